"""Card guessing's report: first, what a player from the table plays (a searched tree per
n, or a refusal) and, with a validated player, how it does against the baselines; then per
answer size, the tree's guess-count distribution and its first levels (the first guess,
the feedbacks that matter most and the guess after each), and the player's distributions
against the baselines on the same answers."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from mine.pipeline.reports import kit
from mine.pipeline.stats import cardguess as stats
from mine.pipeline.stats import opponents
from mine.strategies.engines.cardguess import SIZES, decode, hand_text, hands
from mine.strategies.solvers.cardguess import FlatTree, Trees

FIRST_LEVEL_ROWS = 15  # the feedbacks after the first guess shown, most answers first


def found_at(tree: FlatTree) -> dict[int, int]:
    """Answers by the number of guesses the tree needs for them: at each node, those that
    reach it and go no further are the one its guess finds."""
    below = np.zeros(len(tree), np.int64)
    np.add.at(below, tree.parent[1:], tree.answers[1:])
    found = tree.answers - below
    counts: dict[int, int] = {}
    for depth, count in zip(tree.depth.tolist(), found.tolist(), strict=True):
        if count:
            counts[depth + 1] = counts.get(depth + 1, 0) + count
    return dict(sorted(counts.items()))


def first_levels(tree: FlatTree) -> list[dict[str, Any]]:
    """The root's children with the most answers: feedback, answers, next guess, expected
    guesses from there."""
    universe = hands(tree.n)
    children = range(int(tree.first[0]) + 1, int(tree.first[1]) + 1)
    order = sorted(children, key=lambda k: -int(tree.answers[k]))[:FIRST_LEVEL_ROWS]
    return [
        {
            "feedback": ",".join(map(str, decode(int(tree.code[k])))),
            "answers": int(tree.answers[k]),
            "next guess": hand_text(universe.cards[tree.guess[k]]),
            "expected guesses": float(tree.cost[k]),
        }
        for k in order
    ]


def _size_section(
    n: int, tree: FlatTree, figures: dict[str, Any], card: dict | None
) -> kit.Section:
    counts = found_at(tree)
    total = sum(counts.values())
    first = hand_text(hands(n).cards[tree.guess[0]])
    charts = [
        kit.bar_plot(
            [str(k) for k in counts],
            [v / total for v in counts.values()],
            title=f"n = {n}: share of answers by guesses the tree needs",
            x_label="guesses",
            y_label="share of answers",
        ),
        kit.count_table(
            first_levels(tree),
            title=f"n = {n}: after the first guess {first}, the feedbacks most answers give",
            formats={"expected guesses": "{:.4f}".format},
        ),
    ]
    entry = (card or {}).get("sizes", {}).get(str(n))
    if entry:
        named = {"player": entry["player"], **entry["baselines"]}
        # shares by number of guesses: an exact card holds chances, a sampled one counts
        # (and its keys are strings once the card has been JSON)
        shares = {name: {int(k): v / (1 if f.get("exact") else f["games"])
                         for k, v in f.get("distribution", {}).items()}
                  for name, f in named.items()}  # fmt: skip
        lengths = sorted({k for share in shares.values() for k in share})
        charts.append(
            kit.bar_plot(
                [str(k) for k in lengths],
                {name: [share.get(k, 0.0) for k in lengths] for name, share in shares.items()},
                title=f"n = {n}: the generated player and the baselines on the same answers",
                x_label="guesses",
                y_label="share of answers",
            )
        )
        validation = [
            {"guesser": name, **{k: f.get(k) for k in ("games", "mean", "worst", "invalid")}}
            for name, f in named.items()
        ]
        title = f"n = {n}: validation ({card['answers_from']})"
        charts.append(kit.count_table(validation, title=title, formats={"mean": "{:.4f}".format}))
    return kit.Section(
        f"{n} cards",
        f"{total:,} answers; the tree has {len(tree):,} nodes, expects "
        f"{figures.get('expected_guesses', float(tree.cost[0])):.4f} guesses on average over "
        f"the fitted answer distribution and needs at most {max(counts)}.\n\n{FEEDBACK} The "
        "table after the first guess lists the feedbacks most answers give: how many answers "
        "give it, the tree's next guess, and the guesses it then expects to need.",
        charts,
    )


FEEDBACK = (
    "A feedback is the five numbers the answerer gives back, as the course defines them: "
    "correct cards, answer cards ranked below the guess's lowest rank, correct ranks, answer "
    "cards ranked above its highest rank, correct suits."
)


def strength(card: dict[str, Any]) -> kit.Section:
    """Per n the player plays: its mean guesses and each baseline's on the same answers
    (one axis: guesses); then, drawn apart, the player's paired difference from each."""
    rows, differences = [], []
    for n, entry in sorted(card["sizes"].items(), key=lambda item: int(item[0])):
        if "refused" in entry:
            continue
        mine = entry["player"]
        note = f"worst {mine['worst']}, {mine['invalid']} invalid"
        rows.append(_measured(f"n = {n}: the player", mine["mean"], mine, "games", note))
        for name, figures in entry["baselines"].items():
            note = f"worst {figures.get('worst')}"
            rows.append(_measured(f"n = {n}: {name}", figures["mean"], figures, "games", note))
        for name, vs in entry["vs"].items():
            # the card's difference is the baseline's guesses minus the player's: turned,
            # so that it reads as the player's guesses minus the baseline's, lower better
            # (0.0 - x, not -x: no negative zero)
            low, high = vs.get("ci95", (0.0, 0.0))
            ci = None if vs.get("exact") else (0.0 - high, 0.0 - low)
            differences.append((f"n = {n}: the player − {name}", 0.0 - vs["mean_difference"], ci))
    figures = [] if not differences else [
        kit.interval_plot(
            differences,
            title="The player's mean guesses minus each baseline's, on the same answers",
            x_label="guesses (player − baseline); below 0: the player needs fewer",
            fmt="{:+.4f}".format,
            reference=0.0,
            ident="differences",
            caption="Paired on the same answers; lower is better. An exact difference "
            "(every answer, weighted by its chance) has no interval.",
        )
    ]  # fmt: skip
    return kit.strength(
        rows,
        measure="mean guesses",
        unit="answers",
        fmt="{:.4f}".format,
        higher_is_better=False,
        summary="The generated player (these trees, as `mine generate cardguess` writes them) "
        "and the baselines on the same answers, for each n it plays: the mean number of "
        "guesses to find the answer. Fewer guesses is better. Below the table, the player's "
        "mean minus each baseline's, paired answer by answer (below 0: the player needs "
        f"fewer). Answers: {card['answers_from']}. There is no exact optimum to set beside "
        "it: the trees' search is itself the best the fit could find.",
        figures=figures,
        plot="Mean guesses: the player and each baseline, on the same answers",
    )


def _measured(label: str, value: float, figures: dict, sample: str, note: str) -> kit.Measured:
    """A figure of the card: exact (every answer, weighted by its chance) or sampled."""
    if figures.get("exact"):
        return kit.Measured(label, value, note=note)
    return kit.Measured(label, value, tuple(figures["ci95"]), figures[sample], note=note)


def plays(fitted: Trees, card: dict[str, Any]) -> kit.Section:
    """Per n, what a player generated from the table does: its searched tree, or its
    refusal; the tree's expected guesses, the player's mean guesses and the baselines' on
    the same answers."""
    rows = []
    for n in SIZES:
        tree = fitted.metadata["trees"].get(str(n))
        entry = card["sizes"].get(str(n), {})
        plays = "quick-searched tree" if tree and tree.get("quick") else "searched tree"
        rows.append({
            "n": n,
            "plays": plays if tree else "refused: no tree",
            "tree expects": tree["expected_guesses"] if tree else None,
            "player": entry.get("player", {}).get("mean"),
            **{name: f.get("mean") for name, f in entry.get("baselines", {}).items()},
        })  # fmt: skip
    refused = [str(n) for n in SIZES if n not in fitted.trees]
    text = (
        "A generated player plays each n its table has a searched tree for, and never worse "
        "than the greedy guesser (`mine generate` measures the file on the same answers as "
        "greedy and writes none that is worse). "
        + (f"It refuses n = {', '.join(refused)}: without a tree no rule a standard-library "
           "file can run within the handout's time matches greedy, so its initial_guess "
           "raises ValueError for them (fit them with `mine fit cardguess --n "
           f"{','.join(refused)}`). " if refused else "")
        + "Mean guesses: the tree's over the fitted answer distribution; the file's and the "
        f"baselines' on the same answers ({card['answers_from']})."
    )  # fmt: skip
    columns = {key: key for row in rows for key in row}
    number = "{:.4f}".format
    formats = {key: (lambda v: "" if v is None else number(v)) for key in columns}
    del formats["n"], formats["plays"]
    return kit.Section(
        "What the player plays",
        text,
        [kit.count_table(rows, title="mean guesses per answer", columns=columns, formats=formats)],
    )


def observed(con: Any, log_ids: list[int] | None) -> pl.DataFrame:
    """What the page draws of the logs: every guesser in them against the answers of
    each size it met (`stats.by_opponent`), the weakest first."""
    return opponents.weakest_first(stats.by_opponent(con, log_ids), higher_is_better=False)


def against_each(pairings: pl.DataFrame) -> kit.Section:
    """Every logged guesser against the answerer, per answer size: its mean guesses, with
    intervals."""
    return kit.against_each(
        pairings.to_dicts(),
        label=lambda r: f"{r['player']} on {r['opponent']}",
        measure="mean guesses",
        fmt="{:.3f}".format,
        higher_is_better=False,
        summary="Card guessing has one player, the guesser, and no opponent but the "
        "answerer, which the logs do not name: so each row is a guesser the logs show "
        "(named by its file: cardguess-<guesser>-s<seed>, else the whole file name) "
        "against the answers of one size, with its mean guesses over the games logged "
        "and the normal 95 % interval. These are the logged games, not the generated "
        "player's (its games lead the page).",
    )


def html(fitted: Trees, observed: pl.DataFrame | None, measured: dict[str, Any]) -> str:
    """The page of fitted trees, led by how strong their player is (`measured`: its
    validation on the answers of every n, against the baselines); with a warehouse, every
    logged guesser against the answers of each size (`observed`); then what it plays for
    each n."""
    trees, metadata, card = fitted.trees, fitted.metadata, measured
    figures = metadata.get("trees", {})
    sections = [
        strength(card),
        *([] if observed is None else [against_each(observed)]),
        plays(fitted, card),
        *(
            _size_section(n, tree, figures.get(str(n), {}), card)
            for n, tree in sorted(trees.items())
        ),
    ]
    answerer = metadata.get("answerer", {})
    return kit.page(
        "Card guessing trees",
        sections,
        metadata,
        intro=f"Fitted from {metadata.get('games', '?')} logged games; the answerer is taken "
        f"as {'uniform' if answerer.get('uniform') else 'skewed (smoothed card frequencies)'}"
        ". Each tree gives the next guess for every feedback history, searched to minimise the "
        "expected number of guesses.",
    )

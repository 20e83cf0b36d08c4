"""Card guessing's report: first, what a player from the table plays (a searched tree per
n, or a refusal) and, with a validated player, how it does against the baselines; then per
answer size, the tree's guess-count distribution and its first levels (the first guess,
the feedbacks that matter most and the guess after each), and the player's distributions
against the baselines on the same answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mine.pipeline.reports import kit
from mine.strategies.contained import PlayerFault
from mine.strategies.engines.cardguess import SIZES, decode, hand_text, hands
from mine.strategies.solvers.cardguess import FlatTree, Trees
from mine.strategies.validation.cardguess import table_answerer, validate

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
        lengths = sorted({int(k) for f in named.values() for k in f.get("distribution", {})})
        charts.append(
            kit.bar_plot(
                [str(k) for k in lengths],
                {
                    name: [f["distribution"].get(k, 0) / f["games"] for k in lengths]
                    for name, f in named.items()
                },
                title=f"n = {n}: the generated player and the baselines on the same answers",
                x_label="guesses",
                y_label="share of answers",
            )
        )
        charts.append(
            kit.count_table(
                [
                    {
                        "guesser": name,
                        **{k: f.get(k) for k in ("games", "mean", "worst", "invalid")},
                    }
                    for name, f in named.items()
                ],
                title=f"n = {n}: validation ({card['answers_from']})",
                formats={"mean": "{:.4f}".format},
            )
        )
    return kit.Section(
        f"{n} cards",
        f"{total:,} answers; the tree has {len(tree):,} nodes, expects "
        f"{figures.get('expected_guesses', float(tree.cost[0])):.4f} guesses on average over "
        f"the fitted answer distribution and needs at most {max(counts)}.",
        charts,
    )


def plays(fitted: Trees, card: dict | None) -> kit.Section:
    """Per n, what a player generated from the table does: its searched tree's expected
    guesses, or its refusal; with a validated player, its mean guesses and the baselines'
    on the same answers."""
    rows = []
    for n in SIZES:
        tree = fitted.metadata["trees"].get(str(n))
        entry = (card or {}).get("sizes", {}).get(str(n), {})
        row: dict[str, Any] = {
            "n": n,
            "plays": ("quick-searched tree" if tree.get("quick") else "searched tree")
            if tree
            else "refused: no tree",
            "tree expects": tree["expected_guesses"] if tree else None,
        }
        if card is not None:
            row["player"] = entry.get("player", {}).get("mean")
            for name, figures in entry.get("baselines", {}).items():
                row[name] = figures.get("mean")
        rows.append(row)
    refused = [str(n) for n in SIZES if n not in fitted.trees]
    text = (
        "A generated player plays each n its table has a searched tree for, and never worse "
        "than the greedy guesser (`mine generate` measures the file on the same answers as "
        "greedy and writes none that is worse). "
        + (f"It refuses n = {', '.join(refused)}: without a tree no rule a standard-library "
           "file can run within the handout's time matches greedy, so its initial_guess "
           "raises ValueError for them. " if refused else "")
        + ("Mean guesses: the tree's over the fitted answer distribution; with a validated "
           f"player, the file's and the baselines' ({card['answers_from']})." if card else
           "Run with --player to measure a generated file against the baselines.")
    )  # fmt: skip
    columns = {key: key for key in rows[0]}
    number = "{:.4f}".format
    formats = {key: (lambda v: "" if v is None else number(v)) for key in columns}
    del formats["n"], formats["plays"]
    return kit.Section(
        "What the player plays",
        text,
        [kit.count_table(rows, title="mean guesses per answer", columns=columns, formats=formats)],
    )


def html(fitted: Trees, observed: None = None, player: Path | None = None) -> str:
    """The whole page of fitted trees; with `player` (a generated file), its validation
    on the answers of every n the trees cover, against the baselines."""
    trees, metadata = fitted.trees, fitted.metadata
    answerer = table_answerer(metadata["answerer"])
    try:
        card = None if player is None else validate(player, answerer=answerer)
    except PlayerFault as fault:  # the file's failure: one line, as `mine validate` says it
        raise ValueError(str(fault)) from None
    figures = metadata.get("trees", {})
    sections = [
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

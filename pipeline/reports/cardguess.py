"""Card guessing's report: per answer size, the tree's guess-count distribution and its
first levels (the first guess, the feedbacks that matter most and the guess after each);
with a validated player, its distributions against the baselines on the same answers."""

from __future__ import annotations

from typing import Any

import numpy as np

from mine.pipeline.reports import kit
from mine.strategies.engines.cardguess import decode, hand_text, hands
from mine.strategies.solvers.cardguess import FlatTree

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
        f"the fitted answer distribution and needs at most {max(counts)}.\n\n{FEEDBACK} The "
        "table after the first guess lists the feedbacks most answers give: how many answers "
        "give it, the tree's next guess, and the guesses it then expects to need.",
        charts,
    )


ANSWERS = 500  # answers drawn for an n the page cannot play every answer of in seconds
FEEDBACK = (
    "A feedback is the five numbers the answerer gives back, as the course defines them: "
    "correct cards, answer cards ranked below the guess's lowest rank, correct ranks, answer "
    "cards ranked above its highest rank, correct suits."
)


def measured(trees: dict[int, FlatTree], metadata: dict[str, Any]) -> dict[str, Any]:
    """The card of the trees' generated player against the baselines on the same
    answers: every answer of n = 2 (exact expectations), `ANSWERS` drawn of larger n."""
    from mine.strategies.codegen import cardguess as generator
    from mine.strategies.codegen import write_player
    from mine.strategies.solvers.cardguess import Trees
    from mine.strategies.validation import cardguess as validation

    def measure(path: Any) -> dict[str, Any]:
        every, drawn = [n for n in trees if n == 2], sorted(set(trees) - {2})
        parts, said = [], []
        if every:
            parts.append(validation.validate(path, sizes=every))
            said.append("every answer of n = 2, weighted by its exact chance")
        if drawn:
            parts.append(validation.validate(path, sizes=drawn, answers=ANSWERS))
            said.append(f"{ANSWERS} answers drawn for n = {', '.join(map(str, drawn))}")
        sizes = {n: entry for part in parts for n, entry in part["sizes"].items()}
        return {"sizes": sizes, "answers_from": "; ".join(said)}

    return write_player(generator, Trees(trees, metadata), measure).card


def strength(card: dict[str, Any]) -> kit.Section:
    """Per n: the player's mean guesses, then its paired difference from each baseline."""
    rows = []
    for n, entry in sorted(card["sizes"].items(), key=lambda item: int(item[0])):
        mine = entry["player"]
        note = f"worst {mine['worst']}, {mine['invalid']} invalid"
        rows.append(_measured(f"n = {n}: the answers", mine["mean"], mine, "games", note))
        for name, vs in entry["vs"].items():
            # the card's difference is the baseline's guesses minus the player's: turned,
            # so that every row of the section reads "fewer is better"
            # (0.0 - x, not -x: no negative zero)
            low, high = vs.get("ci95", (0.0, 0.0))
            turned = {**vs, "ci95": [0.0 - high, 0.0 - low]}
            note = f"{name} averages {entry['baselines'][name]['mean']:.4f}"
            label = f"n = {n}: {name} (difference)"
            rows.append(_measured(label, 0.0 - vs["mean_difference"], turned, "answers", note))
    return kit.strength(
        rows,
        measure="guesses",
        unit="answers",
        fmt="{:.4f}".format,
        higher_is_better=False,
        summary="The generated player (these trees, as `mine generate cardguess` writes them) "
        "and the baselines on the same answers. For each n: the player's mean number of "
        "guesses, then the player's mean minus each baseline's (negative: the player needs "
        f"fewer guesses). Answers: {card['answers_from']}. There is no exact optimum to set "
        "beside it: the trees' search is itself the best the fit could find.",
    )


def _measured(label: str, value: float, figures: dict, sample: str, note: str) -> kit.Measured:
    """A figure of the card: exact (every answer, weighted by its chance) or sampled."""
    if figures.get("exact"):
        return kit.Measured(label, value, note=note)
    return kit.Measured(label, value, tuple(figures["ci95"]), figures[sample], note=note)


def html(trees: dict[int, FlatTree], metadata: dict[str, Any], card: dict | None = None) -> str:
    """The page of fitted trees, led by how strong their player is: the validation `card`
    of a player file, or else the trees' own player measured now."""
    figures = metadata.get("trees", {})
    card = card or measured(trees, metadata)
    sections = [strength(card)] + [
        _size_section(n, tree, figures.get(str(n), {}), card) for n, tree in sorted(trees.items())
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

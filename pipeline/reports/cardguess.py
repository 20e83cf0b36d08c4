"""Card guessing's report: per answer size, the tree's guess-count distribution and its
first levels (the first guess, the feedbacks that matter most and the guess after each);
with a validated player, its distributions against the baselines on the same answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mine.pipeline.reports import kit
from mine.strategies.contained import PlayerFault
from mine.strategies.engines.cardguess import decode, hand_text, hands
from mine.strategies.solvers.cardguess import FlatTree, Trees
from mine.strategies.validation.cardguess import validate

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


def html(fitted: Trees, observed: None = None, player: Path | None = None) -> str:
    """The whole page of fitted trees; with `player` (a generated file), its validation
    on the answers of every n the trees cover, against the baselines."""
    trees, metadata = fitted.trees, fitted.metadata
    try:
        card = None if player is None else validate(player, sizes=sorted(trees))
    except PlayerFault as fault:  # the file's failure: one line, as `mine validate` says it
        raise ValueError(str(fault)) from None
    figures = metadata.get("trees", {})
    sections = [
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

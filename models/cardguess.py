"""Card guessing: from the logged answers to a guessing tree per answer size.

1. The answer distribution: how often each card was in an answer, smoothed (add-one per
   card). A chi-square test of those counts against a uniform answerer decides: if it
   does not reject uniform (at `UNIFORM_ALPHA`), the prior is exactly uniform; otherwise a
   hand's weight is the product of its cards' smoothed frequencies.
2. For that prior and each n, the guessing tree: the next guess for every feedback
   history, found by search minimising the expected number of guesses
   (`strategies/solvers/cardguess.py`). The search plan per n says how wide it looks and
   which guesses it considers; it is stored in the metadata.

The table file holds one row per node: n, node, parent, the feedback code that leads to
it, depth, the guess (the spec's cards joined by `;`), the answers reaching it and the
expected guesses from it.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from mine.models import tables
from mine.strategies.engines.cardguess import (
    DECK,
    RANKS,
    SIZES,
    card_text,
    hand_index,
    hand_text,
    hands,
    parse_hand,
)
from mine.strategies.solvers.cardguess import FlatTree, Plan, Search, Trees, flatten

GAME = "cardguess"
KIND = "tree"
UNIFORM_ALPHA = 0.001  # significance of the chi-square test that rejects a uniform answerer
SMOOTHING = 1.0  # pseudo-count added to every card

PLANS = {  # how hard `mine fit` searches for each n (minutes in all on two cores)
    2: Plan(widths=(6, 3), members=1326, extras=1326, extras_from=12),
    3: Plan(widths=(2,), members=1500, extras=1000, extras_from=12),
    4: Plan(widths=(1,), members=600, extras=300, extras_from=12, root_pool=2000),
}
QUICK = Plan(widths=(1,), members=1326, extras=0)  # for tests and smoke runs


class FitError(ValueError):
    """Logs a tree cannot be fitted from."""


@dataclass(frozen=True)
class AnswerModel:
    """What the logs say about the answerer: card counts and the prior they imply."""

    counts: np.ndarray  # per card 0 … 51: games whose answer held it
    games: int
    cards: int  # answer cards in all
    p_value: float  # of the chi-square test against a uniform answerer
    uniform: bool

    @property
    def card_weights(self) -> np.ndarray:
        """Smoothed frequency per card, scaled so a uniform answerer gives 1 each."""
        if self.uniform:
            return np.ones(DECK)
        smoothed = self.counts + SMOOTHING
        return smoothed / smoothed.mean()

    def prior(self, n: int) -> np.ndarray | None:
        """A weight per hand of `hands(n)` (None: uniform)."""
        if self.uniform:
            return None
        logs = np.log(self.card_weights)
        return np.exp(logs[hands(n).cards.astype(np.int64)].sum(axis=1))

    def summary(self) -> dict[str, Any]:
        ranks = self.counts.reshape(13, 4).sum(axis=1)
        return {
            "games": self.games,
            "answer_cards": self.cards,
            "uniform": self.uniform,
            "chi_square_p_value": round(self.p_value, 6),
            "alpha": UNIFORM_ALPHA,
            "smoothing": SMOOTHING,
            "rank_counts": {RANKS[r]: int(c) for r, c in enumerate(ranks)},
            "card_weights": {
                card_text(c): round(float(w), 6) for c, w in enumerate(self.card_weights)
            },
        }


def answer_model(answers: list[str]) -> AnswerModel:
    """The answer model of the logged answers (each `;`-joined cards)."""
    if not answers:
        raise FitError("no card-guessing games in the logs")
    counts = np.zeros(DECK, np.int64)
    for text in answers:
        counts[list(parse_hand(text))] += 1
    p_value = chi_square_p(counts)
    return AnswerModel(counts, len(answers), int(counts.sum()), p_value, p_value >= UNIFORM_ALPHA)


def chi_square_p(counts: np.ndarray) -> float:
    """P-value of the counts under equal chances (Wilson–Hilferty normal approximation)."""
    expected = counts.sum() / counts.size
    statistic = float(((counts - expected) ** 2 / expected).sum())
    df = counts.size - 1
    z = ((statistic / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


def fit(
    answers: list[str],
    sizes: tuple[int, ...] | None = None,
    plans: dict[int, Plan] | None = None,
    data_fingerprint: str | None = None,
    rows: int | None = None,
) -> Trees:
    """The answer model of the logged `answers`, and a tree for each n of `sizes` (default:
    the sizes the logs show)."""
    model = answer_model(answers)
    logged = sorted({len(text.split(";")) for text in answers})
    sizes = tuple(sizes or logged)
    bad = [n for n in sizes if n not in SIZES]
    if bad:
        raise FitError(f"n must be one of {', '.join(map(str, SIZES))}, not {bad[0]}")
    plans = {**PLANS, **(plans or {})}
    trees, per_n = {}, {}
    for n in sizes:
        started = time.perf_counter()
        search = Search(n, model.prior(n), plans[n])
        tree = flatten(n, search.run())
        trees[n] = tree
        per_n[str(n)] = {
            "expected_guesses": round(float(tree.cost[0]), 6),
            "nodes": len(tree),
            "deepest": int(tree.depth.max()) + 1,
            "first_guess": hand_text(hands(n).cards[tree.guess[0]]),
            "seconds": round(time.perf_counter() - started, 1),
            "plan": asdict(plans[n]),
        }
    metadata = {
        "game": GAME,
        "kind": KIND,
        "fingerprint": data_fingerprint or _fingerprint(answers),
        "rows": rows if rows is not None else len(answers),
        "games": len(answers),
        "method": "search",
        "settings": {
            "sizes": list(sizes),
            "search": "widths[d] guesses ranked first by the estimate are solved exactly at "
            "depth d, the estimate's best below (greedy); guesses considered: at most "
            "`members` candidates and `extras` non-candidates (evenly spaced over all hands) "
            "for sets of `extras_from` or more; at the root one hand of each shape (hands "
            "equal up to renaming suits), for n = 4 only `root_pool` evenly spaced shapes",
        },
        "answerer": model.summary(),
        "trees": per_n,
    }
    return Trees(trees, metadata)


def _fingerprint(answers: list[str]) -> str:
    return hashlib.sha256("\n".join(answers).encode()).hexdigest()


# --- the table file ----------------------------------------------------------------------


def table_frame(trees: dict[int, FlatTree]) -> pl.DataFrame:
    frames = []
    for n, tree in sorted(trees.items()):
        guesses = hands(n).cards[tree.guess]
        frames.append(
            pl.DataFrame(
                {
                    "n": np.full(len(tree), n),
                    "node": np.arange(len(tree)),
                    "parent": tree.parent,
                    "code": tree.code,
                    "depth": tree.depth,
                    "guess": [hand_text(hand) for hand in guesses],
                    "answers": tree.answers,
                    "expected_guesses": tree.cost,
                },
                schema=SCHEMA,
            )
        )
    return pl.concat(frames)


SCHEMA = {
    "n": pl.Int8,
    "node": pl.Int32,
    "parent": pl.Int32,
    "code": pl.Int16,
    "depth": pl.Int16,
    "guess": pl.String,
    "answers": pl.Int32,
    "expected_guesses": pl.Float64,
}


def write_table(path: str | Path, fitted: Trees) -> Path:
    return tables.write(path, table_frame(fitted.trees), {**fitted.metadata, "kind": KIND})


def read_table(path: str | Path) -> Trees:
    """The trees by n and the metadata; TableError for a file that is not a tree table."""
    frame, metadata = tables.read(path, GAME, KIND)
    if set(SCHEMA) - set(frame.columns):
        raise tables.TableError(
            f"{path}: lacks columns {', '.join(set(SCHEMA) - set(frame.columns))}"
        )
    trees = {}
    for (n,), rows in frame.sort("n", "node").group_by("n", maintain_order=True):
        try:
            trees[int(n)] = tree_of(int(n), rows)
        except ValueError as error:
            raise tables.TableError(f"{path}: the n = {n} tree is broken ({error})") from None
    return Trees(trees, metadata)


def tree_of(n: int, rows: pl.DataFrame) -> FlatTree:
    """A tree from its rows, checked: breadth-first numbers, children in code order."""
    count = rows.height
    node = rows["node"].to_numpy()
    parent = rows["parent"].to_numpy().astype(np.int64)
    code = rows["code"].to_numpy().astype(np.int64)
    if not (node == np.arange(count)).all() or parent[0] != -1:
        raise ValueError("nodes are not numbered 0, 1, … from the root")
    if count > 1 and (np.diff(parent[1:]) < 0).any() or (parent[1:] >= np.arange(1, count)).any():
        raise ValueError("nodes are not in breadth-first order")
    key = parent[1:] * 4096 + code[1:]
    if count > 2 and (np.diff(key) <= 0).any():
        raise ValueError("a node's children are not in feedback order")
    first = np.searchsorted(parent[1:], np.arange(count + 1))
    guesses = [parse_hand(text, n) for text in rows["guess"].to_list()]
    return FlatTree(
        n,
        np.array([hand_index(hand) for hand in guesses], np.int64),
        parent,
        code,
        rows["depth"].to_numpy().astype(np.int64),
        first.astype(np.int64),
        rows["expected_guesses"].to_numpy(),
        rows["answers"].to_numpy().astype(np.int64),
    )

"""Card guessing: from the logged answers to a guessing tree per answer size.

1. The answer distribution: how often each card was in an answer, smoothed (add-one per
   card). A chi-square test of those counts against a uniform answerer decides: if it
   does not reject uniform (at `UNIFORM_ALPHA`), the prior is exactly uniform; otherwise a
   hand's weight is the product of its cards' smoothed frequencies.
2. For that prior and each n, the guessing tree: the next guess for every feedback
   history, found by search minimising the expected number of guesses
   (`strategies/solvers/cardguess.py`). The search plan per n says how wide it looks and
   which guesses it considers; it is stored in the metadata. The table file holds one row
   per node of each tree (`SCHEMA`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import polars as pl

from mine.models import FitError, chi_square_p, tables
from mine.strategies.engines.cardguess import (
    DECK,
    FEEDBACKS,
    RANKS,
    SIZES,
    card_text,
    hand_index,
    hand_text,
    hands,
    parse_hand,
)
from mine.strategies.runners import spawned_pool
from mine.strategies.solvers.cardguess import FlatTree, Plan, Search, Trees, flatten

GAME = "cardguess"
KIND = "tree"
UNIFORM_ALPHA = 0.001  # significance of the chi-square test that rejects a uniform answerer
SMOOTHING = 1.0  # pseudo-count added to every card
# Searches over fewer answers (n = 2's 1326, about 2 s) run in this process: starting
# processes would cost about what they save.
PARALLEL_ANSWERS = 20_000

PLANS = {  # how hard `mine fit` searches for each n (all three: about 60 CPU seconds)
    2: Plan(widths=(6, 3), members=1326, extras=1326, extras_from=12),
    3: Plan(widths=(2,), members=1500, extras=1000, extras_from=12),
    4: Plan(widths=(1,), members=600, extras=300, extras_from=12, root_pool=2000),
}
QUICK = {  # `mine fit --quick`: the estimate's best guess at every node, in seconds
    2: Plan(widths=(1,), members=1326, extras=1326, extras_from=12),
    3: Plan(widths=(1,), members=1326, extras=0),
    4: PLANS[4],  # already width 1; a narrower pool risks falling below greedy
}


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
        ranks = {RANKS[r]: int(c) for r, c in enumerate(self.counts.reshape(13, 4).sum(axis=1))}
        weights = {card_text(c): round(float(w), 6) for c, w in enumerate(self.card_weights)}
        return {"games": self.games, "answer_cards": self.cards, "uniform": self.uniform,
                "chi_square_p_value": round(self.p_value, 6), "alpha": UNIFORM_ALPHA,
                "smoothing": SMOOTHING, "rank_counts": ranks, "card_weights": weights}  # fmt: skip


def answer_model(answers: list[str]) -> AnswerModel:
    """The answer model of the logged answers (each `;`-joined cards)."""
    if not answers:
        raise FitError("no card-guessing games in the logs")
    counts = np.zeros(DECK, np.int64)
    for text in answers:
        counts[list(parse_hand(text))] += 1
    p_value = chi_square_p(counts)
    return AnswerModel(counts, len(answers), int(counts.sum()), p_value, p_value >= UNIFORM_ALPHA)


class Logged(NamedTuple):
    """What `fit` reads from the warehouse (`pipeline/stats`' `fit_inputs`): the logged
    answers in log order (each the spec's cards joined by `;`), the guess rows they came
    with, the fingerprint of their logs and how many logs."""

    answers: list[str]
    rows: int
    fingerprint: str
    logs: int


def fit(inputs: Logged, sizes: Sequence[int] | None = None, quick: bool = False,
        workers: int | None = 1, plans: dict[int, Plan] | None = None,
        progress: Callable[[str, int, int], None] | None = None) -> Trees:  # fmt: skip
    """The answer model of the logged answers, and a tree for each n of `sizes` (default:
    2, 3 and 4, the sizes the course grades, whatever sizes the logs show), searched with
    each n's plan (`PLANS`; `QUICK` if `quick`; `plans`: a plan of its own for some n), one
    n after the other, each with its root's work spread over `workers` processes (None: one
    a core; the same trees whatever the number) where an n of `PARALLEL_ANSWERS` answers or
    more is searched; each search's answers placed so far are `progress("n = N", done,
    total)`."""
    model = answer_model(inputs.answers)
    sizes = tuple(SIZES if sizes is None else sizes)
    bad = [n for n in sizes if n not in SIZES]
    if bad or not sizes:
        known = ", ".join(map(str, SIZES))
        raise FitError(f"n must be one of {known}, not {bad[0] if bad else 'none'}")
    plans = {**(QUICK if quick else PLANS), **(plans or {})}
    jobs = {n: (n, model.prior(n), plans[n]) for n in sizes}
    workers = (os.cpu_count() or 1) if workers is None else workers
    apart = workers > 1 and max(len(hands(n)) for n in sizes) >= PARALLEL_ANSWERS
    own = spawned_pool(workers) if apart else nullcontext()  # one pool for every n
    with own as processes:
        searched = {n: _search(job, progress, processes) for n, job in jobs.items()}
    per_n = {str(n): {"expected_guesses": round(float(tree.cost[0]), 6), "nodes": len(tree),
                      "deepest": int(tree.depth.max()) + 1,
                      "first_guess": hand_text(hands(n).cards[tree.guess[0]]),
                      "quick": quick and QUICK[n] != PLANS[n], "plan": asdict(plans[n])}
             for n, tree in ((n, searched[n]) for n in sizes)}  # fmt: skip
    metadata = {
        "game": GAME, "kind": KIND, "fingerprint": inputs.fingerprint, "rows": inputs.rows,
        "games": len(inputs.answers), "logs": inputs.logs, "method": "search",
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
    }  # fmt: skip
    return Trees({n: searched[n] for n in sizes}, metadata)


def _search(job: tuple[int, np.ndarray | None, Plan], progress=None, processes=None) -> FlatTree:
    """One n's tree (a table records no timings: the same logs give the same bytes)."""
    n, prior, plan = job
    counted = None if progress is None else (lambda done, total: progress(f"n = {n}", done, total))
    return flatten(n, Search(n, prior, plan, counted).run(processes))


# --- the table file ----------------------------------------------------------------------


SCHEMA = {"n": pl.Int8, "node": pl.Int32, "parent": pl.Int32, "code": pl.Int16,
          "depth": pl.Int16, "guess": pl.String, "answers": pl.Int32,
          "expected_guesses": pl.Float64}  # fmt: skip


def table_frame(trees: dict[int, FlatTree]) -> pl.DataFrame:
    return pl.concat([
        pl.DataFrame([np.full(len(tree), n), np.arange(len(tree)), tree.parent, tree.code,
                      tree.depth, [hand_text(hand) for hand in hands(n).cards[tree.guess]],
                      tree.answers, tree.cost], schema=SCHEMA)
        for n, tree in sorted(trees.items())
    ])  # fmt: skip


def write_table(path: str | Path, fitted: Trees) -> Path:
    return tables.write(path, table_frame(fitted.trees), {**fitted.metadata, "kind": KIND})


TOP = {"games": int, "rows": int, "fingerprint": str, "method": str}
ANSWERER = {"games": int, "uniform": bool, "chi_square_p_value": float}
PER_N = {"expected_guesses": float, "nodes": int, "first_guess": str}


def read_table(path: str | Path) -> Trees:
    """The trees by n and the metadata, checked: every column whole and of its type, each
    tree well formed (see `tree_of`) and stated in the metadata, the figures the commands
    print of the right types; `tables.TableError` (one line) for anything else."""
    frame, metadata = tables.read(path, GAME, KIND, columns=SCHEMA)
    tables.fields(path, {"table": metadata}, "table", TOP)
    if not tables.fields(path, metadata, "answerer", ANSWERER)["uniform"]:
        weights = metadata["answerer"].get("card_weights")
        cards = [card_text(card) for card in range(DECK)]
        tables.fields(path, metadata["answerer"], "card_weights", dict.fromkeys(cards, float))
        if not all(weights[card] > 0 for card in cards):
            raise tables.TableError(f"{path}: a card weight that is not positive")
    stated = metadata.get("trees")
    if frame.is_empty() or not isinstance(stated, dict):
        raise tables.TableError(f"{path}: the table holds no tree")
    trees = {}
    for (n,), rows in frame.sort("n", "node").group_by("n", maintain_order=True):
        if n not in SIZES:
            raise tables.TableError(f"{path}: a tree for n = {n} (n is 2, 3 or 4)")
        figures = tables.fields(path, stated, str(n), PER_N)
        try:
            trees[int(n)] = tree_of(int(n), rows)
        except ValueError as error:
            raise tables.TableError(f"{path}: the n = {n} tree is broken ({error})") from None
        if figures["nodes"] != rows.height:
            said = f"the n = {n} tree has {rows.height} nodes, its metadata says {figures['nodes']}"
            raise tables.TableError(f"{path}: {said}")
    if sorted(stated) != sorted(map(str, trees)):
        raise tables.TableError(f"{path}: its metadata states trees the table does not hold")
    return Trees(trees, metadata)


def tree_of(n: int, rows: pl.DataFrame) -> FlatTree:
    """A tree from its rows, checked: breadth-first numbers, children in feedback order,
    each node one guess deeper than its parent, every guess n distinct cards, feedback
    codes the rules can give, at least one answer and one guess expected at each node."""
    count, node, cost = rows.height, rows["node"].to_numpy(), rows["expected_guesses"].to_numpy()
    columns = ("parent", "code", "depth", "answers")
    parent, code, depth, answers = (rows[c].to_numpy().astype(np.int64) for c in columns)
    if not (node == np.arange(count)).all() or parent[0] != -1:
        raise ValueError("nodes are not numbered 0, 1, … from the root")
    if count > 1 and (np.diff(parent[1:]) < 0).any() or (parent[1:] >= np.arange(1, count)).any():
        raise ValueError("nodes are not in breadth-first order")
    if count > 1 and (parent[1:] < 0).any():
        raise ValueError("a second root")
    key = parent[1:] * 4096 + code[1:]
    if count > 2 and (np.diff(key) <= 0).any():
        raise ValueError("a node's children are not in feedback order")
    if ((code[1:] < 0) | (code[1:] >= FEEDBACKS)).any():
        raise ValueError("a feedback code out of range")
    if depth[0] != 0 or (depth[1:] != depth[parent[1:]] + 1).any():
        raise ValueError("a node's depth is not its parent's plus one")
    if (answers < 1).any() or (cost < 1).any() or (cost > len(hands(n))).any():
        raise ValueError("a node without answers, or expecting guesses out of range")
    first = np.searchsorted(parent[1:], np.arange(count + 1)).astype(np.int64)
    guesses = [hand_index(parse_hand(text, n)) for text in rows["guess"].to_list()]
    return FlatTree(n, np.array(guesses, np.int64), parent, code, depth, first, cost, answers)

"""Card guessing: choosing guesses, and the guessing tree that minimises expected guesses.

A guesser's knowledge is the set of answers still consistent with the feedback (its
candidates, each with its prior weight). A guess splits them into classes by feedback;
the class of the winning feedback is the guess itself, and is done.

- The one-step rules the baselines use score every guess of a pool at once (one feedback
  matrix, one `bincount`): `greedy` minimises the expected number of candidates left (the
  handout's hint 3), `entropy` maximises the information of the feedback.
- `Search` builds a whole tree — the next guess for every feedback history — minimising
  the expected number of guesses: at each node the `width` guesses that a cheap estimate
  ranks first are each solved exactly below (recursively), with a lower bound pruning the
  hopeless ones; guesses need not be candidates (a non-candidate can split better). Below
  the plan's depth, width 1: the estimate's best guess (a greedy rule). Given processes
  (`run(processes)`), the root's work is spread over them and merged in the serial order.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from mine.strategies.engines.cardguess import (
    FEEDBACKS,
    HandSet,
    feedback_matrix,
    hands,
    winning_code,
)

CHUNK = 1 << 21  # feedback pairs scored at once: bounds memory (a few tens of MB)
ROOT_TASK = 256  # root guesses a task scores (at least; rounded up to whole chunks)


# --- scoring a pool of guesses ------------------------------------------------------------


def class_weights(codes: np.ndarray, weights: np.ndarray | None, classes: int) -> np.ndarray:
    """(guesses, classes): the weight of the candidates each guess's feedback (numbered
    0 … classes - 1) sends to each class; `weights` None: how many candidates."""
    rows = codes.shape[0]
    flat = (codes + (np.arange(rows, dtype=np.int64) * classes)[:, None]).ravel()
    if weights is None:  # counts are exact in floating point: as summing ones, faster
        return np.bincount(flat, minlength=rows * classes).astype(float).reshape(rows, classes)
    summed = np.bincount(flat, np.broadcast_to(weights, codes.shape).ravel(), rows * classes)
    return summed.reshape(rows, classes)


Score = Callable[[np.ndarray, np.ndarray, int], np.ndarray]  # (class weights, sizes, win)


def chunk_rows(candidates: int) -> int:
    """Guesses `score_pool` scores at once against this many candidates."""
    return max(1, CHUNK // max(1, candidates))


def score_pool(candidates: HandSet, weights: np.ndarray, pool: HandSet, score: Score) -> np.ndarray:
    """`score(class weights, class sizes, win)` of every guess of the pool, in chunks. The
    classes are the feedbacks that occur in the chunk, and the winning one (column `win`),
    in the order of their codes: not all FEEDBACKS, most of which no pair gives, so that a
    node of a few candidates does not score thousands of empty classes for each guess. A
    guess's score depends on its chunk (the classes are its columns, and a sum's rounding
    depends on them), so a pool scored in parts is cut at whole chunks (`chunk_rows`)."""
    rows = chunk_rows(len(candidates))
    uniform = bool((weights == 1.0).all())  # then the weights are the sizes
    win = winning_code(candidates.n)
    out = np.empty(len(pool))
    for start in range(0, len(pool), rows):
        codes = feedback_matrix(candidates, pool.take(np.arange(len(pool))[start : start + rows]))
        seen = np.zeros(FEEDBACKS, bool)
        seen[codes.ravel()] = True
        seen[win] = True
        number = np.cumsum(seen) - 1  # each code that occurs, numbered in code order
        classes = number[codes]
        sizes = class_weights(classes, None, int(number[-1]) + 1)
        masses = sizes if uniform else class_weights(classes, weights, int(number[-1]) + 1)
        out[start : start + len(codes)] = score(masses, sizes, int(number[win]))
    return out


def expected_left(masses: np.ndarray, sizes: np.ndarray, win: int) -> np.ndarray:
    """The handout's hint 3: the expected number of candidates left after the guess (the
    winning class, column `win`, leaves none)."""
    return ((masses * sizes).sum(axis=1) - masses[:, win]) / masses.sum(axis=1)


def information(masses: np.ndarray, sizes: np.ndarray, win: int) -> np.ndarray:
    """Minus the entropy of the feedback (lower is better, like the other scores)."""
    p = masses / masses.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, p * np.log2(p), 0.0).sum(axis=1)


BRANCHING = 25.0  # how many ways a guess splits a large set, roughly (for the estimate)


def estimated_guesses(masses: np.ndarray, sizes: np.ndarray, win: int) -> np.ndarray:
    """An estimate of the expected number of guesses after this one: a class of one needs
    one more guess, of two one and a half, a larger class about 2 - 1/s plus the further
    splits its size needs; the winning class needs none."""
    with np.errstate(divide="ignore", invalid="ignore"):
        splits = np.log(np.maximum(sizes, 1) / 3.0).clip(0) / np.log(BRANCHING)
        per = np.where(sizes > 1, 2.0 - 1.0 / sizes + splits, 1.0)
    per[:, win] = 0.0
    return 1.0 + (masses * per).sum(axis=1) / masses.sum(axis=1)


RULES = {"greedy": expected_left, "entropy": information, "estimate": estimated_guesses}


def spread(count: int, limit: int) -> np.ndarray:
    """At most `limit` of `count` positions, evenly spaced (all when there are few)."""
    if count <= limit:
        return np.arange(count)
    return np.unique(np.linspace(0, count - 1, limit).round().astype(np.int64))


def best_candidate(candidates: HandSet, weights: np.ndarray, rule: str, limit: int = 1500,
                   considered: np.ndarray | None = None) -> int:  # fmt: skip
    """The position of the candidate the one-step `rule` prefers (the first on ties),
    among the positions `considered` (default: all, or `limit` evenly spaced ones)."""
    if len(candidates) == 1:
        return 0
    if considered is None:
        considered = spread(len(candidates), limit)
    scores = score_pool(candidates, weights, candidates.take(considered), RULES[rule])
    return int(considered[np.argmin(scores)])


def shapes(hands_: HandSet) -> np.ndarray:
    """A number per hand that is the same for hands equal up to renaming suits: its ranks,
    and its suits numbered in order of first appearance. Under a prior that treats suits
    alike, such hands are equally good guesses, so the search tries one of each shape."""
    cards = hands_.cards.astype(np.int64)
    suits = cards % 4
    renamed = np.zeros_like(suits)
    for column in range(1, suits.shape[1]):
        earlier = suits[:, :column]
        same = earlier == suits[:, column : column + 1]
        seen = same.any(axis=1)
        first = np.argmax(same, axis=1)
        fresh = renamed[:, :column].max(axis=1) + 1
        renamed[:, column] = np.where(seen, renamed[np.arange(len(cards)), first], fresh)
    key = np.zeros(len(cards), np.int64)
    for column in range(cards.shape[1]):
        key = (key * 13 + cards[:, column] // 4) * 4 + renamed[:, column]
    return key


@cache
def hand_shapes(n: int) -> np.ndarray:
    """`shapes(hands(n))`, made once a process (a worker's search builds it per task)."""
    return shapes(hands(n))


@cache
def one_of_each_shape(n: int) -> np.ndarray:
    """The first hand (its number) of each shape among `hands(n)`."""
    _, first = np.unique(hand_shapes(n), return_index=True)
    return np.sort(first)


def distinct_shapes(shape: np.ndarray, order: np.ndarray, width: int) -> np.ndarray:
    """The first `width` positions of `order` whose shapes differ."""
    chosen: dict[int, int] = {}  # shape → its first position, in order
    for position in order:
        if len(chosen) == width:
            break
        chosen.setdefault(int(shape[position]), int(position))
    return np.array(list(chosen.values()), np.int64)


# --- the search ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """How hard the search looks: `widths[d]` guesses are solved exactly at depth d (1
    below); candidates scored as guesses at most `members`, plus `extras` non-candidates
    (evenly spaced over all hands) for sets larger than `extras_from`."""

    widths: tuple[int, ...] = (6, 3, 2)
    members: int = 1500
    extras: int = 1326
    extras_from: int = 5
    root_pool: int = 0  # > 0: only this many shapes (evenly spaced) are root guesses

    def width(self, depth: int) -> int:
        return self.widths[depth] if depth < len(self.widths) else 1


@dataclass
class Node:
    guess: int  # the hand's number in `hands(n)`
    cost: float  # expected guesses from here, over the answers that reach it
    answers: int = 1  # how many answers reach it
    children: dict[int, Node] = field(default_factory=dict)  # feedback code → next node


class Search:
    """The tree for answers `hands(n)` weighted by `prior` (None: uniform)."""

    def __init__(self, n: int, prior: np.ndarray | None, plan: Plan,
                 progress: Callable[[int, int], None] | None = None):  # fmt: skip
        self.n, self.plan, self.universe = n, plan, hands(n)
        size = len(self.universe)
        self.prior = np.ones(size) if prior is None else np.asarray(prior, float)
        self.extras, self.shapes = spread(size, plan.extras), hand_shapes(n)
        self.win, self.nodes_solved = winning_code(n), 0
        self.processes: Executor | None = None
        # `progress(done, total)`: answers placed under the root guesses tried, of all
        # answers under each of the root's `width` guesses (a pruned one ends early)
        self.progress, self.placed = progress, 0
        self.total = size * plan.width(0)

    def run(self, processes: Executor | None = None) -> Node:
        """The tree; with `processes`, the root's work goes to it in tasks split by
        what the work is, never by the workers: its guesses scored `ROOT_TASK` at a time,
        and under each root guess tried, each class solved as a task; the parts are merged
        in the serial order, so the tree is the same whatever the processes."""
        self.processes = processes
        try:
            return self.solve(np.arange(len(self.universe)), 0, self.root_pool())
        finally:
            self.processes = None

    def root_pool(self) -> np.ndarray:
        """One hand of each shape (the first), or `root_pool` of them evenly spaced: at the
        root every candidate is still there, so hands of one shape split them alike (under
        a prior that treats suits alike; a fitted prior does nearly)."""
        first = one_of_each_shape(self.n)
        if self.plan.root_pool:
            first = first[spread(len(first), self.plan.root_pool)]
        return first

    def solve(self, idx: np.ndarray, depth: int, pool: np.ndarray | None = None) -> Node:
        """The best node found for the candidates `idx` at `depth`."""
        self.nodes_solved += 1
        w = self.prior[idx]
        if len(idx) <= 2:
            return self._few(idx, w)
        if pool is None:
            pool = self._pool(idx)
        if depth == 0 and self.processes is not None:
            scores = self._scored_apart(idx, w, pool)
        else:
            candidates = self.universe.take(idx)
            scores = score_pool(candidates, w, self.universe.take(pool), estimated_guesses)
        ranked = np.argsort(scores, kind="stable")
        order = distinct_shapes(self.shapes[pool], ranked, self.plan.width(depth))
        best: Node | None = None
        for k, position in enumerate(order):
            if depth == 0:
                self.placed = k * len(idx)
            guess = int(pool[position])
            node = self._try(idx, w, guess, depth, best.cost if best else np.inf)
            if node is not None and (best is None or node.cost < best.cost - 1e-12):
                best = node
        assert best is not None
        return best

    def _few(self, idx: np.ndarray, w: np.ndarray) -> Node:
        """One or two candidates: guess the likelier first."""
        first = int(np.argmax(w))
        node = Node(int(idx[first]), 1.0, len(idx))
        if len(idx) == 2:
            other = int(idx[1 - first])
            code = int(self._codes(np.array([other]), int(idx[first]))[0])
            node.children[code] = Node(other, 1.0)
            node.cost = 1.0 + float(w[1 - first] / w.sum())
        return node

    def _pool(self, idx: np.ndarray) -> np.ndarray:
        members = idx[spread(len(idx), self.plan.members)]
        if len(idx) < self.plan.extras_from:
            return members
        return np.union1d(members, self.extras)

    def _scored_apart(self, idx: np.ndarray, w: np.ndarray, pool: np.ndarray) -> np.ndarray:
        """`score_pool` of the pool's guesses in the processes, cut at whole chunks so each
        guess is scored as `score_pool` of the whole pool scores it."""
        rows = chunk_rows(len(idx))
        size = rows * -(-ROOT_TASK // rows)
        tasks = [self.processes.submit(_scored, (self.n, idx, w, pool[start : start + size]))
                 for start in range(0, len(pool), size)]  # fmt: skip
        return np.concatenate([task.result() for task in tasks])

    def _codes(self, idx: np.ndarray, guess: int) -> np.ndarray:
        return feedback_matrix(self.universe.take(idx), self.universe.take(np.array([guess])))[0]

    def _placed(self, depth: int, members: np.ndarray) -> None:
        if depth == 0 and self.progress:
            self.placed += len(members)
            self.progress(self.placed, self.total)

    def _try(self, idx: np.ndarray, w: np.ndarray, guess: int, depth: int,
             bound: float) -> Node | None:  # fmt: skip
        """The node guessing `guess` with every class solved below, or None once its cost
        cannot beat `bound`."""
        codes = self._codes(idx, guess)
        total = w.sum()
        order = np.argsort(codes, kind="stable")
        classes = np.split(order, np.flatnonzero(np.diff(codes[order])) + 1)
        lower = 1.0
        for members in classes:
            if codes[members[0]] != self.win:
                mass = w[members]
                lower += (2.0 * mass.sum() - mass.max() if len(members) > 1 else mass.sum()) / total
        if lower >= bound:
            return None
        node = Node(guess, lower, len(idx))
        ordered = sorted(classes, key=len, reverse=True)
        apart = self._submitted(idx, w, codes, ordered) if depth == 0 and self.processes else {}
        try:
            for members in ordered:
                code = int(codes[members[0]])
                if code == self.win:  # the guess itself: solved
                    self._placed(depth, members)
                    continue
                mass = w[members]
                if code in apart:
                    child, solved = apart[code].result()
                    self.nodes_solved += solved
                else:
                    child = self.solve(idx[members], depth + 1)
                self._placed(depth, members)
                node.children[code] = child
                floor = (2.0 * mass.sum() - mass.max() if len(members) > 1 else mass.sum()) / total
                node.cost += child.cost * mass.sum() / total - floor
                if node.cost >= bound:
                    return None
            return node
        finally:  # cut off by the bound: the classes not started are not wanted
            for task in apart.values():
                task.cancel()

    def _submitted(self, idx: np.ndarray, w: np.ndarray, codes: np.ndarray,
                   classes: list[np.ndarray]) -> dict[int, Future]:  # fmt: skip
        """Every class but the winning one handed to the processes, in `_try`'s order (a
        subtree depends on its candidates alone): each code's `(node, nodes solved)`."""
        return {int(codes[members[0]]): self.processes.submit(
                    _subtree, (self.n, self.plan, idx[members], w[members], 1))
                for members in classes if codes[members[0]] != self.win}  # fmt: skip


def _scored(task: tuple[int, np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
    """A process's part of the root's scores: candidates `idx` (weights `w`), these guesses."""
    n, idx, w, guesses = task
    universe = hands(n)
    return score_pool(universe.take(idx), w, universe.take(guesses), estimated_guesses)


def _subtree(task: tuple[int, Plan, np.ndarray, np.ndarray, int]) -> tuple[Node, int]:
    """A process's subtree: the node `Search.solve` gives for candidates `idx` (weights
    `w`) at `depth`, and the nodes it solved. The search reads the prior only at the
    candidates and their subsets, so the rest of it may stay 1."""
    n, plan, idx, w, depth = task
    search = Search(n, None, plan)
    search.prior[idx] = w
    return search.solve(idx, depth), search.nodes_solved


# --- the tree as flat rows ----------------------------------------------------------------


@dataclass(frozen=True)
class FlatTree:
    """A tree in breadth-first order: node k's children are the nodes first[k] …
    first[k + 1] - 1, reached by the feedback codes code[first[k]] … (sorted), so node j ≥ 1
    hangs under the edge j - 1."""

    n: int
    guess: np.ndarray  # hand number per node
    parent: np.ndarray  # -1 for the root
    code: np.ndarray  # the feedback that leads to the node (-1 for the root)
    depth: np.ndarray  # guesses made before this node's guess
    first: np.ndarray  # len(nodes) + 1 offsets into the children (breadth-first numbers)
    cost: np.ndarray  # expected guesses from the node, as the search found it
    answers: np.ndarray  # answers that reach the node

    def __len__(self) -> int:
        return len(self.guess)

    def child(self, node: int, code: int) -> int | None:
        lo, hi = int(self.first[node]), int(self.first[node + 1])
        at = lo + int(np.searchsorted(self.code[lo + 1 : hi + 1], code))
        if at < hi and self.code[at + 1] == code:
            return at + 1
        return None


@dataclass(frozen=True, eq=False)
class Trees:
    """What a fit of card guessing is: a tree per answer size, and its metadata (the
    answer model, each tree's figures, provenance). Every layer reads it: models write and
    read it, codegen writes it into a player, validation measures what it covers."""

    trees: dict[int, FlatTree]
    metadata: dict[str, Any]


def flatten(n: int, root: Node) -> FlatTree:
    rows, first, queue = [], [], [(root, -1, -1, 0)]
    for head, (node, up, via, level) in enumerate(queue):  # the queue grows as it is read
        first.append(len(queue) - 1)
        rows.append((node.guess, up, via, level, node.cost, node.answers))
        queue += [(node.children[code], head, code, level + 1) for code in sorted(node.children)]
    first.append(len(queue) - 1)
    guess, parent, code, depth, cost, answers = map(np.array, zip(*rows, strict=True))
    return FlatTree(n, guess.astype(np.int64), parent.astype(np.int64), code.astype(np.int64),
                    depth.astype(np.int64), np.array(first, np.int64), cost.astype(float),
                    answers.astype(np.int64))  # fmt: skip

"""Super-Nim's baseline players: `random`, `greedy`, `alphabeta:D` and `exact`.

A bot is `state -> move`, one of `state.legal_actions()`; each bot draws from its own
seeded generator. `alphabeta:D` searches D plies with the plain score-difference
heuristic (a leaf is worth nothing beyond the points already scored) and breaks ties at
random, so that it is not one fixed line a learner could memorise. `exact` keeps the exact
value (`strategies/solvers/supernim.py`): far from the cut-off the first move (the cash
first) that keeps it, and with the cut-off within `ENDGAME` moves, searched to the cut-off;
under the capped-merge variant, searched to the cut-off in games short enough for it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mine.strategies.engines.supernim import (
    DEFAULT_RULES,
    SPLIT,
    Bot,
    Move,
    State,
    SuperNimRules,
    canonical,
)
from mine.strategies.players.supernim import Searcher
from mine.strategies.solvers.supernim import HORIZON, ExactSolver, closed_form

BASELINES = ("random", "greedy", "alphabeta:1", "alphabeta:2", "alphabeta:3", "alphabeta:4",
             "exact")  # fmt: skip
MAX_DEPTH = 8

Evaluate = Callable[[tuple[int, ...], int], float]


def plain(board: tuple[int, ...], moves_left: int) -> float:
    """The score-difference heuristic: the future is worth nothing yet."""
    return 0


def random_player(rng: np.random.Generator, greedy: bool = False) -> Bot:
    """A uniformly random legal move (the handout's random player); `greedy`: cash in a 2
    when it can."""

    def play(state: State) -> Move:
        legal = state.legal_actions()
        pool = [move for move in legal if move.kind == SPLIT] if greedy else []
        pool = pool or legal
        return pool[int(rng.integers(len(pool)))]

    return play


def growths_left(state: State) -> int:
    """Growth steps the search may still make (-1: no limit)."""
    limit = state.rules.ulam_limit
    return -1 if limit == 0 else max(0, limit - state.growths)


def search_player(
    depth: int,
    evaluate: Evaluate = plain,
    rng: np.random.Generator | None = None,
    budget: float | None = None,
    rules: SuperNimRules = DEFAULT_RULES,
) -> Bot:
    """Alpha-beta to `depth` plies (within `budget` seconds, if given) under `rules`; with
    `rng`, ties at the root are broken at random, else the first best move in canonical
    order."""
    searcher = Searcher(rules.merge_cap, rules.split_reward, evaluate, None, rules.cap_scores)

    def order(kids: list) -> list:
        return [kids[k] for k in rng.permutation(len(kids))] if rng is not None else kids

    def play(state: State) -> Move:
        board = canonical(state.board)
        chosen = searcher.choose(
            board, state.moves_left(), growths_left(state), depth, budget, order
        )
        return real_move(state, chosen[1], chosen[2])

    return play


def real_move(state: State, points: int, target: tuple[int, ...]) -> Move:
    """The first legal move, in heap order, that leaves `target` (sorted) and scores
    `points`: a canonical choice played on the real board."""
    for move in state.legal_actions():
        if move.points == points and canonical(move.after) == target:
            return move
    raise ValueError(f"no legal move from {state.board} leaves {target}")


def exact_player(rules: SuperNimRules) -> Bot:
    """A move that keeps the exact value (growth unlimited); under the capped-merge variant
    only in games short enough for its search to the cut-off (`HORIZON` moves)."""
    if not closed_form(rules) and rules.max_moves > HORIZON:
        raise ValueError(f"exact plays with cap_scores=on only in games of at most "
                         f"{HORIZON} moves (max_moves={HORIZON})")  # fmt: skip
    solver = ExactSolver(rules)

    def play(state: State) -> Move:
        points, after = solver.choose(state.board, state.moves_left())
        return real_move(state, points, after)

    return play


def make_bot(spec: str, rules: SuperNimRules, rng: np.random.Generator | None) -> Bot:
    """The bot a spec names for games under `rules`: `random`, `greedy`, `alphabeta:D`
    (1 ≤ D ≤ 8) or `exact`; ValueError for any other."""
    name, _, argument = spec.partition(":")
    if spec == "exact":
        return exact_player(rules)
    if name in ("random", "greedy") and not argument:
        return random_player(rng, greedy=name == "greedy")
    if name == "alphabeta":
        if not argument.isdigit() or not 1 <= int(argument) <= MAX_DEPTH:
            raise ValueError(f"alphabeta takes a depth 1..{MAX_DEPTH}: {spec!r}")
        return search_player(int(argument), plain, rng, rules=rules)
    raise ValueError(f"unknown Super-Nim bot {spec!r} (known: random, greedy, alphabeta:D, exact)")

"""Super-Nim's baseline players: `random`, `greedy` and `alphabeta:D`.

A player is `(game, state) -> move`, one of `game.legal_actions(state)`; each bot draws
from its own seeded generator. `alphabeta:D` searches D plies with the plain
score-difference heuristic (a leaf is worth nothing beyond the points already scored) and
breaks ties at random, so that it is not one fixed line a learner could memorise.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mine.strategies.bots.supernim_search import Searcher
from mine.strategies.engines.supernim import SPLIT, Game, Move, Player, State, canonical

BASELINES = ("random", "greedy", "alphabeta:1", "alphabeta:2", "alphabeta:3", "alphabeta:4")
MAX_DEPTH = 8

Evaluate = Callable[[tuple[int, ...], int], float]


def plain(board: tuple[int, ...], moves_left: int) -> float:
    """The score-difference heuristic: the future is worth nothing yet."""
    return 0


def random_player(rng: np.random.Generator) -> Player:
    """A uniformly random legal move (the handout's random player)."""

    def play(game: Game, state: State) -> Move:
        legal = game.legal_actions(state)
        return legal[int(rng.integers(len(legal)))]

    return play


def greedy_player(rng: np.random.Generator) -> Player:
    """Cash in a 2 when it can, else a random move."""

    def play(game: Game, state: State) -> Move:
        legal = game.legal_actions(state)
        cash = [move for move in legal if move.kind == SPLIT]
        pool = cash or legal
        return pool[int(rng.integers(len(pool)))]

    return play


def growths_left(game: Game, state: State) -> int:
    """Growth steps the search may still make (-1: no limit)."""
    limit = game.rules.ulam_limit
    return -1 if limit == 0 else max(0, limit - state.growths)


def search_player(
    depth: int,
    evaluate: Evaluate = plain,
    rng: np.random.Generator | None = None,
    budget: float | None = None,
) -> Player:
    """Alpha-beta to `depth` plies (within `budget` seconds, if given); with `rng`, ties
    at the root are broken at random, else the first best move in canonical order."""
    searchers: dict[tuple[int, int], Searcher] = {}

    def order(kids: list) -> list:
        return [kids[k] for k in rng.permutation(len(kids))] if rng is not None else kids

    def play(game: Game, state: State) -> Move:
        rules = game.rules
        key = (rules.merge_cap, rules.split_reward)
        if key not in searchers:
            searchers[key] = Searcher(rules.merge_cap, rules.split_reward, evaluate)
        board = canonical(state.board)
        chosen = searchers[key].choose(
            board, game.moves_left(state), growths_left(game, state), depth, budget, order
        )
        return real_move(game, state, chosen[1], chosen[2])

    return play


def real_move(game: Game, state: State, points: int, target: tuple[int, ...]) -> Move:
    """The first legal move, in heap order, that leaves `target` (sorted) and scores
    `points`: a canonical choice played on the real board."""
    for move in game.legal_actions(state):
        if move.points == points and canonical(move.after) == target:
            return move
    raise ValueError(f"no legal move from {state.board} leaves {target}")


def factory(spec: str) -> Callable[[np.random.Generator], Player]:
    """`rng -> player` for a spec (checked now, so a bad spec fails before any game)."""
    parse_bot(spec, None)
    return lambda rng: parse_bot(spec, rng)


def parse_bot(spec: str, rng: np.random.Generator | None) -> Player:
    """The player a spec names: `random`, `greedy` or `alphabeta:D` (1 ≤ D ≤ 8)."""
    name, _, argument = spec.partition(":")
    if name in ("random", "greedy") and not argument:
        return random_player(rng) if name == "random" else greedy_player(rng)
    if name == "alphabeta":
        if not argument.isdigit() or not 1 <= int(argument) <= MAX_DEPTH:
            raise ValueError(f"alphabeta takes a depth 1..{MAX_DEPTH}: {spec!r}")
        return search_player(int(argument), plain, rng)
    raise ValueError(f"unknown Super-Nim bot {spec!r} (known: random, greedy, alphabeta:D)")

"""Super-Nim benchmark: successor generation and alpha-beta, each against a plain
reference implementation measured in the same run.

- successors: `canonical_children` (sorted boards, duplicates merged) against the handout
  class's `SuperNim.successors` (every move, heap order) on the same boards;
- alpha-beta: the bots' `Searcher` (canonical boards, transposition table, move ordering)
  against a textbook alpha-beta over the handout's states (no table, no ordering), both to
  depth 3 with the score-difference heuristic from the same positions: nodes/s, and the
  seconds to choose a move;
- games: random against random through the State API (the referee: every move checked
  legal, each state copied for the log) against the handout's own random game manager
  (`random.choice` of `SuperNim.successors`, nothing checked or kept) from the same start
  boards, to the 100-move cut-off: games/s; and `simulate` whole (logs written) per game.

    .venv/bin/python bench/supernim.py  →  bench/results/supernim.json
"""

from __future__ import annotations

import json
import platform
import random
import tempfile
import timeit
from pathlib import Path

import numpy as np

from mine.strategies.bots.supernim import make_bot, plain
from mine.strategies.engines import referee
from mine.strategies.engines.simulation import simulate
from mine.strategies.engines.supernim import (
    DEFAULT_RULES,
    MAX,
    MIN,
    State,
    random_board,
)
from mine.strategies.players.supernim import Searcher, SuperNim, canonical_children

RESULTS = Path(__file__).resolve().parent / "results" / "supernim.json"
DEPTH = 3


def best_of(repeats: int, run) -> float:
    return min(timeit.repeat(run, number=1, repeat=repeats))


class Reference:
    """Textbook alpha-beta (minimax form) over the handout's states and class."""

    def __init__(self) -> None:
        self.game = SuperNim()
        self.nodes = 0

    def value(self, state: tuple, depth: int, alpha: float, beta: float) -> float:
        self.nodes += 1
        if self.game.terminal(state) or depth == 0:
            return self.game.heuristic(state)
        if self.game.player(state) == "max":
            for child in self.game.successors(state):
                alpha = max(alpha, self.value(child, depth - 1, alpha, beta))
                if alpha >= beta:
                    break
            return alpha
        for child in self.game.successors(state):
            beta = min(beta, self.value(child, depth - 1, alpha, beta))
            if alpha >= beta:
                break
        return beta

    def choose(self, state: tuple, depth: int) -> tuple:
        children = self.game.successors(state)
        return max(children, key=lambda c: self.value(c, depth - 1, -1e9, 1e9))


def handout_game(game: SuperNim, state: tuple, chooser: random.Random, moves: int) -> tuple:
    """The handout's game manager with two random players, cut off after `moves` moves."""
    for _ in range(moves):
        if game.terminal(state):
            break
        state = chooser.choice(game.successors(state))
    return state


def games_per_s(boards: list[tuple[int, ...]]) -> dict[str, float]:
    handout, chooser = SuperNim(), random.Random(0)
    reference_s = best_of(
        3, lambda: [handout_game(handout, (MAX, b, 0, 0), chooser, 100) for b in boards]
    )
    bots = {
        side: make_bot("random", DEFAULT_RULES, np.random.default_rng(k))
        for k, side in enumerate((MAX, MIN))
    }
    seats = [bots[MAX], bots[MIN]]
    ours_s = best_of(
        3, lambda: [referee.play(State(MAX, b), seats, referee.game_lost) for b in boards]
    )
    with tempfile.TemporaryDirectory() as out:
        simulate_s = best_of(
            3,
            lambda: simulate(
                "supernim",
                DEFAULT_RULES,
                ["random", "random"],
                len(boards),
                0,
                out,
                make_bot=make_bot,
            ),
        )
    return {
        "games": len(boards),
        "reference_games_per_s": round(len(boards) / reference_s),
        "state_api_games_per_s": round(len(boards) / ours_s),
        "state_api_over_reference": round(reference_s / ours_s, 2),
        "simulate_games_per_s": round(len(boards) / simulate_s),
    }


def main() -> None:
    rng = np.random.default_rng(0)
    boards = [random_board(rng) for _ in range(2000)]
    handout = SuperNim()
    states = [("max", b, 0, 0) for b in boards]
    reference_s = best_of(3, lambda: [handout.successors(s) for s in states])
    sorted_boards = [tuple(sorted(b)) for b in boards]
    ours_s = best_of(3, lambda: [canonical_children(b, 10, 2, True) for b in sorted_boards])
    real = sum(len(handout.successors(s)) for s in states)
    distinct = sum(len(canonical_children(b, 10, 2, True)) for b in sorted_boards)

    positions = states[:40]
    reference = Reference()
    reference_search_s = best_of(1, lambda: [reference.choose(s, DEPTH) for s in positions])
    reference_nodes = reference.nodes
    searcher = Searcher(10, 2, plain)
    nodes = 0

    def ours() -> None:
        nonlocal nodes
        nodes = 0
        for s in positions:
            searcher.children_cache.clear()  # no help from an earlier run
            searcher.choose(tuple(sorted(s[1])), 100, -1, DEPTH)
            nodes += searcher.nodes

    search_s = best_of(1, ours)
    result = {
        "boards": len(boards),
        "reference_boards_per_s": round(len(boards) / reference_s),
        "canonical_boards_per_s": round(len(boards) / ours_s),
        "successor_speedup": round(reference_s / ours_s, 2),
        "successors_per_board": round(real / len(boards), 2),
        "distinct_successors_per_board": round(distinct / len(boards), 2),
        "search_depth": DEPTH,
        "positions": len(positions),
        "reference_nodes_per_s": round(reference_nodes / reference_search_s),
        "searcher_nodes_per_s": round(nodes / search_s),
        "reference_seconds_per_move": round(reference_search_s / len(positions), 5),
        "searcher_seconds_per_move": round(search_s / len(positions), 5),
        "search_speedup": round(reference_search_s / search_s, 1),
        **games_per_s(boards[:200]),
        "python": platform.python_version(),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"successors: {result['canonical_boards_per_s']:,} boards/s canonical vs "
        f"{result['reference_boards_per_s']:,} boards/s handout class = "
        f"{result['successor_speedup']}× ({result['distinct_successors_per_board']} distinct "
        f"of {result['successors_per_board']} successors a board)"
    )
    print(
        f"alpha-beta depth {DEPTH}: {result['searcher_seconds_per_move'] * 1000:.1f} ms a move "
        f"vs {result['reference_seconds_per_move'] * 1000:.1f} ms plain = "
        f"{result['search_speedup']}×; {result['searcher_nodes_per_s']:,} nodes/s vs "
        f"{result['reference_nodes_per_s']:,} nodes/s (every node counted in both)"
    )
    print(
        f"games, random v random: {result['state_api_games_per_s']:,} games/s through the State "
        f"API vs {result['reference_games_per_s']:,} games/s handout manager = "
        f"{result['state_api_over_reference']}×; simulate with logs "
        f"{result['simulate_games_per_s']:,} games/s"
    )
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()

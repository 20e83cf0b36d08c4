"""Card-guessing benchmark: feedback evaluations/s, vectorised (one guess against a whole
candidate set, and a guess × answer matrix) against the plain reference in the same run;
games/s of `simulate` (logs written) against the same games played by a bare loop (the
guesser and the state only), and answers/s of `validate` (a generated file run contained) against
the same file played in this process; and the time `mine fit` takes to build each n's
tree with its default plan.

    .venv/bin/python bench/cardguess.py [SIZES]  →  bench/results/cardguess.json
    (SIZES: the trees to build, e.g. 2,3; default 2,3,4 — n = 4 takes minutes)
"""

from __future__ import annotations

import json
import platform
import sys
import tempfile
import time
import timeit
from pathlib import Path

import numpy as np

from mine.models.cardguess import PLANS, QUICK
from mine.strategies.bots.cardguess import make_bot
from mine.strategies.codegen.cardguess import module_source
from mine.strategies.engines.cardguess import (
    CardGuessRules,
    State,
    draw_answer,
    feedback,
    feedback_codes,
    feedback_matrix,
    hands,
)
from mine.strategies.engines.simulation import simulate
from mine.strategies.solvers.cardguess import Search, Trees, flatten
from mine.strategies.validation.cardguess import load, one_game, seat, validate

RESULTS = Path(__file__).resolve().parent / "results" / "cardguess.json"


def best_of(repeats: int, run) -> float:
    return min(timeit.repeat(run, number=1, repeat=repeats))


SIM_GAMES = 3000  # first-consistent, n = 2: the engine's loop and log writing dominate


def games_per_s() -> dict[str, float]:
    """simulate against a bare loop of the same games; validate against the same file
    played here, uncontained."""
    rules = CardGuessRules(n=2)
    with tempfile.TemporaryDirectory() as folder:
        simulate_s = best_of(
            3,
            lambda: simulate(
                "cardguess", rules, ["first-consistent"], SIM_GAMES, 1, folder, make_bot=make_bot
            ),
        )

        def bare() -> None:
            rng = np.random.default_rng(1)
            guesser = make_bot("first-consistent", rules, None)
            for _ in range(SIM_GAMES):
                state = State(rules, draw_answer(2, "uniform", rng))
                while not state.solved():
                    state.apply_action(guesser(state))

        bare_s = best_of(3, bare)
        path = Path(folder) / "player.py"
        tree = flatten(2, Search(2, None, QUICK[2]).run())
        path.write_text(module_source(Trees({2: tree}, {}), None), encoding="utf-8")
        answers = [tuple(hand) for hand in hands(2).cards.tolist()]
        validate_s = best_of(3, lambda: validate(path, sizes=(2,), baselines=()))
        player = seat(load(str(path)))
        here_s = best_of(3, lambda: [one_game(player, a, rules) for a in answers])
    return {
        "simulate_games_per_s": round(SIM_GAMES / simulate_s),
        "baseline_bare_loop_games_per_s": round(SIM_GAMES / bare_s),
        "simulate_vs_bare_loop": round(bare_s / simulate_s, 3),
        "validate_answers_per_s": round(len(answers) / validate_s),
        "baseline_file_in_process_answers_per_s": round(len(answers) / here_s),
        "validate_vs_in_process": round(here_s / validate_s, 3),
    }


def main() -> None:
    sizes = [int(n) for n in sys.argv[1].split(",")] if len(sys.argv) > 1 else [2, 3, 4]
    universe = hands(4)
    rng = np.random.default_rng(0)
    guesses = universe.take(rng.integers(len(universe), size=20))
    answers = universe.cards[rng.integers(len(universe), size=20_000)].tolist()

    plain_pairs = len(answers) * 3
    plain_s = best_of(
        1, lambda: [feedback(a, g) for g in guesses.cards[:3].tolist() for a in answers]
    )
    vector_pairs = len(universe) * len(guesses)
    vector_s = best_of(3, lambda: [feedback_codes(universe, g) for g in guesses.cards.tolist()])
    block = universe.take(np.arange(20_000))
    matrix_pairs = len(block) * 200
    pool = universe.take(rng.integers(len(universe), size=200))
    matrix_s = best_of(3, lambda: feedback_matrix(block, pool))

    games = games_per_s()
    print(f"simulate: {games['simulate_games_per_s']:,} games/s ({games['simulate_vs_bare_loop']:.2f}× "
          f"a bare loop's {games['baseline_bare_loop_games_per_s']:,}); validate: "
          f"{games['validate_answers_per_s']:,} answers/s ({games['validate_vs_in_process']:.2f}× "
          f"the file played in process, {games['baseline_file_in_process_answers_per_s']:,})", flush=True)  # fmt: skip
    trees = {}
    for n in sizes:
        started = time.perf_counter()
        search = Search(n, None, PLANS[n])
        tree = flatten(n, search.run())
        trees[str(n)] = {
            "seconds": round(time.perf_counter() - started, 2),
            "expected_guesses": round(float(tree.cost[0]), 6),
            "nodes": len(tree),
            "nodes_solved": search.nodes_solved,
        }
        print(f"tree n = {n}: {trees[str(n)]['seconds']:.1f} s, expects "
              f"{tree.cost[0]:.4f} guesses, {len(tree):,} nodes", flush=True)  # fmt: skip

    plain_rate = plain_pairs / plain_s
    vector_rate = vector_pairs / vector_s
    matrix_rate = matrix_pairs / matrix_s
    result = {
        "baseline_plain_feedback_per_s": round(plain_rate),
        "vectorised_feedback_per_s": round(vector_rate),
        "vectorised_speedup": round(vector_rate / plain_rate, 1),
        "matrix_feedback_per_s": round(matrix_rate),
        "matrix_speedup": round(matrix_rate / plain_rate, 1),
        "games": games,
        "trees": trees,
        "python": platform.python_version(),
        "numpy": np.__version__,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"feedback (n = 4): {vector_rate:,.0f}/s vectorised over all hands, "
        f"{matrix_rate:,.0f}/s as a matrix, vs {plain_rate:,.0f}/s plain Python = "
        f"{vector_rate / plain_rate:.0f}× / {matrix_rate / plain_rate:.0f}×"
    )
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()

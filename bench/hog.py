"""Hog benchmark: exact evaluation of one pair, and simulation games/s against the State
path (games played by the referee, one at a time) measured in the same run.

    .venv/bin/python bench/hog.py  →  bench/results/hog.json
"""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path

import numpy as np

from mine.strategies.bots.hog import make_bot
from mine.strategies.engines import hog as engine
from mine.strategies.engines import referee
from mine.strategies.engines.hog import HogRules, as_table, new_game, simulate_tables
from mine.strategies.solvers.hog import TurnModel, optimal, win_rates

RESULTS = Path(__file__).resolve().parent / "results" / "hog.json"
PAIR = ("square_strategy", "always_roll:6")


def best_of(repeats: int, run) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def state_games(bots, games: int, rules: HogRules) -> None:
    """`games` games through the State and the referee, first movers alternating."""
    rng = np.random.default_rng(0)
    for game in range(games):
        state = new_game(rules, rng, ("a", "b"), swapped=game % 2 == 1)
        referee.refereed(engine, rules, state, bots)


def main() -> None:
    rules = HogRules()
    model = TurnModel.from_rules(rules)
    bots = [make_bot(spec, rules) for spec in PAIR]
    tables = tuple(as_table(bot, rules) for bot in bots)

    exact_pair = best_of(5, lambda: win_rates(model, *tables))
    exact_optimal = best_of(3, lambda: optimal(model))
    rate = win_rates(model, *tables).average

    python_games = 3_000
    python_s = best_of(1, lambda: state_games(bots, python_games, rules))
    games = 200_000  # recorded, as `mine simulate` plays them
    vector_s = best_of(
        2, lambda: simulate_tables(tables, "ab", range(games), np.random.default_rng(0), rules)
    )
    _, scores = simulate_tables(tables, "ab", range(games), np.random.default_rng(1), rules)
    simulated = float((scores["winner"] == "a").mean())

    python_rate = python_games / python_s
    vector_rate = games / vector_s
    result = {
        "pair": list(PAIR),
        "exact_pair_seconds": round(exact_pair, 4),
        "exact_optimal_seconds": round(exact_optimal, 4),
        "exact_win_rate": round(rate, 6),
        "simulated_win_rate": round(simulated, 6),
        "baseline_python_games_per_s": round(python_rate),
        "vectorised_games_per_s": round(vector_rate),
        "vectorised_speedup": round(vector_rate / python_rate, 1),
        "simulated_games": games,
        "python": platform.python_version(),
        "numpy": np.__version__,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"exact evaluation of {PAIR[0]} vs {PAIR[1]}: {exact_pair * 1000:.1f} ms "
        f"(win rate {rate:.6f}); optimal strategy: {exact_optimal * 1000:.1f} ms"
    )
    print(
        f"simulation: {vector_rate:,.0f} games/s vectorised vs {python_rate:,.0f} games/s "
        f"the State path = {vector_rate / python_rate:.0f}× ({games:,} games with their turn "
        f"rows in {vector_s:.2f} s)"
    )
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()

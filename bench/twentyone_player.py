"""TwentyOne benchmark, what `bench/twentyone.py` does not cover: the generated player.

Its `play` (a module written by `strategies.codegen.twentyone`, with cells that change with
the count, its memory parsed and written on every call, the shoe counted at every bid),
called by the referee through the engine's adapter for the spec's interface in full
10-seat games: CPU µs per call (p50, p99), against the `textbook` bot's call in the same
games (the baseline).

    .venv/bin/python bench/twentyone_player.py  →  bench/results/twentyone_player.json
"""

from __future__ import annotations

import json
import platform
import tempfile
import time
from pathlib import Path

import numpy as np

from mine.strategies.bots.twentyone import make_bot
from mine.strategies.codegen.twentyone import write_module
from mine.strategies.engines import referee
from mine.strategies.engines import twentyone as engine
from mine.strategies.engines.twentyone import TwentyOneRules, course_player, new_game
from mine.strategies.engines.twentyone_chart import Strategy
from mine.strategies.solvers.twentyone import solve
from mine.strategies.validation.twentyone import load_player

RESULTS = Path(__file__).resolve().parent / "results" / "twentyone_player.json"
METADATA = {
    "logs": 0,
    "rows": 0,
    "hands": 0,
    "fingerprint": "0" * 64,
    "method": "bench",
    "learned": {
        "decks": 3,
        "min_bid": 10,
        "max_bid": 100,
        "actions": {"insurance": True, "double_on_21": True, "double_after_split": True},
    },
}


def timed_calls(play, times):
    def player(*args):
        started = time.thread_time()
        result = play(*args)
        times.append(time.thread_time() - started)
        return result

    return player


def main() -> None:
    rules = TwentyOneRules()
    chart = solve(rules).chart
    low = solve(rules.replace(insurance_payout=1.0)).chart  # a chart unlike it, as at low counts
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "player.py"
        bids = ((-10, 0, 10), (1, 10, 100))
        write_module(path, Strategy(chart, bids, ((-10, -2, low),), METADATA))
        module = load_player(path)
    generated: list[float] = []
    textbook: list[float] = []
    for game in range(4):
        rng = np.random.default_rng(game)
        players = {
            "generated": course_player(timed_calls(module.play, generated)),
            "textbook": timed_calls(make_bot("textbook", rules, rng), textbook),
        }
        for i, name in enumerate(("dealer", "cautious", "random", "explorer") * 2):
            players[f"{name}{i}"] = make_bot(name, rules, rng)
        state = new_game(rules, rng, list(players))
        referee.refereed(engine, rules, state, [players[p] for p in state.players])
    gen_p50, gen_p99 = (float(np.percentile(generated, q)) * 1e6 for q in (50, 99))
    base_p50, base_p99 = (float(np.percentile(textbook, q)) * 1e6 for q in (50, 99))

    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "generated_player": {
            "calls": len(generated),
            "cpu_us_p50": round(gen_p50, 1),
            "cpu_us_p99": round(gen_p99, 1),
            "baseline": "the textbook bot's call in the same games",
            "baseline_cpu_us_p50": round(base_p50, 1),
            "baseline_cpu_us_p99": round(base_p99, 1),
            "ratio_p50": round(gen_p50 / base_p50, 2),
            "count_cells": len(module.BY_COUNT),
        },
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"generated player: {gen_p50:.0f} µs CPU per call at p50, {gen_p99:.0f} µs at p99 "
        f"(x{gen_p50 / base_p50:.2f} the textbook bot's, {base_p50:.0f} µs)"
    )


if __name__ == "__main__":
    main()

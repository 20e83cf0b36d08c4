"""TwentyOne benchmark: full games with logs written, and the flat-bet evaluator.

1. Full games between bots (textbook, dealer, cautious, chart, textbook), 1000 rounds
   each, played by the referee, turn and score files written by `mine simulate`'s loop
   (`log_rows` through `parsers.twentyone`'s fields): player-hands/s, against the same
   games played and not written (the baseline: what the logs cost).
2. The vectorised evaluator of `mine validate` (`strategies.validation.twentyone_evaluator`), playing
   the optimal chart as its player file plays it: hands/s for an infinite deck, for fresh
   3-deck shoes and for continuous 3-deck shoes (the count known before each round),
   against the engine playing the same chart hand by hand (one seat, no logs) — the scalar
   way to the same number.
Also the exact optimum's value and the time it takes, infinite deck and 3 decks.

    .venv/bin/python bench/twentyone.py  →  bench/results/twentyone.json
"""

from __future__ import annotations

import json
import platform
import tempfile
import time
from pathlib import Path

import numpy as np

from mine.strategies.bots.twentyone import ChartBot, make_bot
from mine.strategies.engines import referee, simulation
from mine.strategies.engines import twentyone as engine
from mine.strategies.engines.twentyone import BID, TwentyOneRules, new_game
from mine.strategies.solvers.twentyone import solve
from mine.strategies.validation.twentyone import chart_module
from mine.strategies.validation.twentyone_evaluator import (
    FilePolicy,
    continuous_returns,
    flat_returns,
)

RESULTS = Path(__file__).resolve().parent / "results" / "twentyone.json"
SEATS = ("textbook", "dealer", "cautious", "chart", "textbook")


def hands_of(state) -> int:
    return sum(1 for r in state.records for row in r.rows if row[3] == BID)


def played(rules, bots: dict, rng) -> engine.State:
    state = new_game(rules, rng, list(bots))
    referee.refereed(engine, rules, state, [bots[p] for p in state.players])
    return state


def written_games(rules, games: int, folder: Path) -> tuple[float, int]:
    """`mine simulate`'s loop: the games played and their logs written."""
    start = time.perf_counter()
    summary = simulation.simulate("twentyone", rules, SEATS, games, 0, folder,
                                  make_bot=make_bot)  # fmt: skip
    seconds = time.perf_counter() - start
    rows = list(folder.glob("*[0-9].csv"))
    hands = sum(p.read_bytes().count(b",Bid,") for p in rows)
    assert len(rows) == summary["games"]
    return seconds, hands


def unwritten_games(rules, games: int) -> tuple[float, int]:
    hands = 0
    start = time.perf_counter()
    for game in range(games):
        bots = {name if k == 0 else f"{name}#{k}": make_bot(name, rules) for k, name in
                enumerate(SEATS)}  # fmt: skip
        hands += hands_of(played(rules, bots, np.random.default_rng(game)))
    return time.perf_counter() - start, hands


def engine_hands(rules, chart, games: int) -> tuple[float, int]:
    hands = 0
    start = time.perf_counter()
    for game in range(games):
        state = played(rules, {"me": ChartBot(chart, rules)}, np.random.default_rng(game))
        hands += hands_of(state)
    return time.perf_counter() - start, hands


def timed(run):
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def main() -> None:
    rules = TwentyOneRules()
    solve_inf_s, infinite = timed(lambda: solve(rules))
    solve_3_s, three = timed(lambda: solve(rules, decks=3))
    chart = infinite.chart

    with tempfile.TemporaryDirectory() as tmp:
        fast_s, fast_hands = written_games(rules, 6, Path(tmp))
    base_s, base_hands = unwritten_games(rules, 6)
    fast_rate, base_rate = fast_hands / fast_s, base_hands / base_s

    scalar_s, scalar_hands = engine_hands(rules.replace(starting_points=10**6), chart, 20)
    scalar_rate = scalar_hands / scalar_s
    evaluator = {}
    policy = FilePolicy(chart_module(chart, rules))

    def measure(hands: int, seed: int, decks: int | None) -> dict:
        if decks == "continuous":
            return continuous_returns({"chart": policy}, rules, hands, seed, "chart")["chart"]
        return flat_returns({"chart": policy}, rules, hands, seed, decks, "chart")["chart"]

    for label, decks, hands in (
        ("infinite", None, 4_000_000),
        ("3 decks", 3, 2_000_000),
        ("continuous 3-deck shoe", "continuous", 2_000_000),
    ):
        measure(250_000, 0, decks)  # warm up: the policy's table fills
        seconds, estimate = timed(lambda d=decks, n=hands: measure(n, 1, d)["return"])
        evaluator[label] = {
            "hands": hands,
            "seconds": round(seconds, 3),
            "hands_per_s": round(hands / seconds),
            "ratio_vs_engine": round(hands / seconds / scalar_rate, 1),
            "mean": round(estimate["mean"], 5),
            "ci95": [round(x, 5) for x in estimate["ci95"]],
        }

    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "full_games": {
            "seats": list(SEATS),
            "rounds": rules.rounds,
            "player_hands": fast_hands,
            "seconds": round(fast_s, 3),
            "player_hands_per_s": round(fast_rate),
            "baseline": "the same kind of games, played and not written",
            "baseline_player_hands_per_s": round(base_rate),
            "ratio": round(fast_rate / base_rate, 2),
            "target_player_hands_per_s": 30_000,
        },
        "evaluator": evaluator,
        "evaluator_baseline": {
            "what": "the engine playing the same chart, one seat, no logs",
            "hands_per_s": round(scalar_rate),
        },
        "exact": {
            "infinite_deck_ev": round(infinite.ev, 6),
            "infinite_deck_seconds": round(solve_inf_s, 2),
            "three_deck_ev": round(three.ev, 6),
            "three_deck_seconds": round(solve_3_s, 2),
        },
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    games = result["full_games"]
    print(
        f"full games + logs: {games['player_hands_per_s']:,} player-hands/s "
        f"(x{games['ratio']} vs the games unwritten, "
        f"{games['baseline_player_hands_per_s']:,}/s; target 30,000)"
    )
    for label, row in evaluator.items():
        print(
            f"evaluator, {label}: {row['hands_per_s']:,} hands/s "
            f"(x{row['ratio_vs_engine']} vs the engine's {round(scalar_rate):,}/s), "
            f"mean {row['mean']:+.4f} CI {row['ci95']}"
        )
    print(
        f"exact optimum: infinite deck {infinite.ev:+.5f} ({solve_inf_s:.2f} s), "
        f"3 decks {three.ev:+.5f} ({solve_3_s:.1f} s)"
    )
    print(f"→ {RESULTS.relative_to(Path.cwd()) if RESULTS.is_relative_to(Path.cwd()) else RESULTS}")


if __name__ == "__main__":
    main()

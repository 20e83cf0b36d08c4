"""Gin Rummy benchmark: exact meld-solver throughput (ten-card hands/s, against the
brute-force enumeration measured in the same run) and full games/s between two `simple`
bots with both log files written.

Run: .venv/bin/python bench/ginrummy.py   → bench/results/ginrummy.json
"""

from __future__ import annotations

import json
import platform
import tempfile
import time
from pathlib import Path

import numpy as np

from mine.parsers.cards import DECK
from mine.strategies.bots.ginrummy import make_bot
from mine.strategies.engines.ginrummy import GinRummyRules
from mine.strategies.engines.melds import MeldSolver, hand_mask, naive_deadwood
from mine.strategies.engines.simulation import simulate

HANDS = 200_000
NAIVE_HANDS = 2_000
GAMES = 200


def rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def bench_solver(rng: np.random.Generator) -> dict[str, float]:
    deals = [rng.choice(52, 10, replace=False) for _ in range(HANDS)]
    hands = [tuple(DECK[i] for i in deal) for deal in deals]
    masks = [hand_mask(hand) for hand in hands]

    solver = MeldSolver()  # a fresh memo: the first pass is cold
    start = time.perf_counter()
    cold = [solver.deadwood(mask) for mask in masks]
    cold_rate = rate(HANDS, time.perf_counter() - start)

    start = time.perf_counter()
    on_cards = [solver.deadwood_of(hand) for hand in hands]
    cards_rate = rate(HANDS, time.perf_counter() - start)

    start = time.perf_counter()
    naive = [naive_deadwood(hand) for hand in hands[:NAIVE_HANDS]]
    naive_rate = rate(NAIVE_HANDS, time.perf_counter() - start)
    assert naive == cold[:NAIVE_HANDS] and on_cards == cold
    return {
        "hands_per_s_masks_cold_memo": round(cold_rate),
        "hands_per_s_cards_warm_memo": round(cards_rate),
        "naive_hands_per_s": round(naive_rate, 1),
        "ratio_vs_naive": round(cold_rate / naive_rate, 1),
        "memo_entries": len(solver._memo),
    }


def bench_games(seed: int) -> dict[str, float]:
    """The one simulate, in this process: games played through the referee, logs written."""
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        summary = simulate("ginrummy", GinRummyRules(), ["simple", "simple"], GAMES, seed,
                           folder, make_bot=make_bot)  # fmt: skip
        seconds = time.perf_counter() - start
        rounds = sum(len(path.read_bytes().splitlines())
                     for path in Path(folder).glob("*-score.csv"))  # fmt: skip
    turns = summary["matches"][0]["rows"]
    return {
        "games": GAMES,
        "games_per_s": round(rate(GAMES, seconds), 1),
        "rounds_per_game": round(rounds / GAMES, 2),
        "turns_per_s": round(rate(turns, seconds)),
        "target_games_per_s": 20,
    }


def main() -> None:
    solver = bench_solver(np.random.default_rng(2102))
    games = bench_games(2102)
    result = {"python": platform.python_version(), "solver": solver, "games": games}
    print(
        f"meld solver: {solver['hands_per_s_masks_cold_memo']:,} ten-card hands/s "
        f"(masks, cold memo), {solver['hands_per_s_cards_warm_memo']:,}/s from Card tuples; "
        "brute force "
        f"{solver['naive_hands_per_s']:,}/s → ratio {solver['ratio_vs_naive']:,}×"
    )
    print(
        f"games: {games['games_per_s']} games/s (simple vs simple, logs written; "
        f"{games['rounds_per_game']} rounds/game, {games['turns_per_s']:,} turns/s)"
    )
    out = Path(__file__).resolve().parent / "results" / "ginrummy.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()

"""TwentyOne at a full table: what two player files' decisions are worth at the 10-seat
table `mine validate` plays (the file beside nine baselines), both bidding flat at the
minimum, on the same seeds (game g from the g-th child of the seed, as the validator seeds
it): each file's net per round per unit of bid with its 95 % interval, the paired
difference per game, and each file's insurance on the ace up cards it saw: the dealer's
two-card 21 where it insured and where it declined (Wilson 95 % intervals; break-even is a
quarter under the engine's rules). A measure of figures, not of speed: it is here, not in
the tests, because it takes minutes.

    .venv/bin/python bench/twentyone_table.py BASELINE.py PLAYER.py [--games 100]
        →  bench/results/twentyone_table.json
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from mine.strategies.engines.twentyone import TwentyOneRules
from mine.strategies.intervals import Z95, rate
from mine.strategies.validation.twentyone import flat_minimum, flat_rounds, load_player

RESULTS = Path(__file__).resolve().parent / "results" / "twentyone_table.json"


def _games(task: tuple[str, int, int, int]) -> list:
    path, first, last, seed = task
    return flat_rounds(flat_minimum(load_player(path)), TwentyOneRules(), range(first, last), seed)


def measured(path: str, games: int, seed: int, workers: int) -> list:
    """Each game's (nets per unit, aces) for the file, in game order."""
    step = max(1, games // (4 * workers))
    tasks = [(path, g, min(g + step, games), seed) for g in range(0, games, step)]
    with ProcessPoolExecutor(workers) as pool:
        return [game for part in pool.map(_games, tasks) for game in part]


def mean_interval(values: np.ndarray) -> dict[str, object]:
    half = Z95 * values.std(ddof=1) / np.sqrt(len(values))
    return {"mean": float(values.mean()), "ci95": [float(values.mean() - half),
                                                   float(values.mean() + half)]}  # fmt: skip


def figures(games: list) -> dict[str, object]:
    nets = np.array([r for returns, _ in games for r in returns])
    aces = [a for _, seen in games for a in seen]
    return {
        "rounds": len(nets),
        "net_per_unit": mean_interval(nets),
        "ace_rounds": len(aces),
        "insured": {"rounds": sum(i for i, _ in aces),
                    "dealer_two_card_21": rate(sum(c for i, c in aces if i),
                                               sum(i for i, _ in aces))},
        "declined": {"rounds": sum(not i for i, _ in aces),
                     "dealer_two_card_21": rate(sum(c for i, c in aces if not i),
                                                sum(not i for i, _ in aces))},
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("baseline")
    parser.add_argument("player")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    options = parser.parse_args()
    played = {
        name: measured(path, options.games, options.seed, options.workers)
        for name, path in (("baseline", options.baseline), ("player", options.player))
    }
    per_game = np.array(
        [
            np.mean(p[0]) - np.mean(b[0])
            for p, b in zip(played["player"], played["baseline"], strict=True)
        ]
    )
    result = {
        "games": options.games,
        "seed": options.seed,
        "files": {"baseline": options.baseline, "player": options.player},
        **{name: figures(games) for name, games in played.items()},
        "player_minus_baseline_per_unit_by_game": mean_interval(per_game),
    }  # fmt: skip
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

"""Gin Rummy player files side by side, on the same games: each file's win rate against
each opponent with its 95 % interval and the hands it lost to an undercut, and each later
file's paired difference in wins from the first (t 95 % interval over games). Game g is
seeded as `mine validate --seed` seeds it (the deal's and the bot's generator by (seed, g),
seats alternating), so every file meets the same deals and much of their luck cancels: a
difference of 0.02 shows in 600 games, where the intervals of the rates overlap.

A tool for trying variants of the player (a copy of a generated file, edited), not one of
`make bench`'s measures (named so that `bench/run.py` passes it by): the files run in
this process's workers, uncontained and untimed; the figures are those `mine validate`
gives the same file (checked: the generated file of `ginrummy_opponents.py`, 2,000 games
against simple, 0.609 [0.587, 0.630] both ways). Without `--base`, the first file is that
generated file, fitted as `ginrummy_opponents.py` fits it (`--write-base` keeps a copy to
edit).

    .venv/bin/python bench/paired_ginrummy.py [VARIANT.py ...] [--base A.py] [--games 600]
        [--opponents simple,student,never-knock] [--write-base PATH]
        →  bench/results/paired_ginrummy.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from ginrummy_opponents import OPPONENTS, SEED, generated

from mine.strategies.intervals import t_half
from mine.strategies.validation.ginrummy import GameResult, load, play_one, summarise

RESULTS = Path(__file__).resolve().parent / "results" / "paired_ginrummy.json"


def _games(task: tuple[str, str, int, int, int]) -> list[GameResult]:
    path, opponent, first, last, seed = task
    return [play_one(load(path), opponent, seed, game) for game in range(first, last)]


def figures(results: list[GameResult]) -> dict:
    """The validator's figures of a match, and the share of all hands lost to an undercut
    (as `ginrummy_opponents.py` states it)."""
    card = summarise(results)
    return {"games": card["games"], "win_rate": card["win_rate"], "win_ci": card["win_ci"],
            "hands_lost_to_undercut": round(card["knock_rate"] * card["undercut_rate"], 4)}  # fmt: skip


def paired(base: list[GameResult], other: list[GameResult]) -> dict:
    differences = np.array([int(b.won) - int(a.won) for a, b in zip(base, other, strict=True)])
    mean, half = float(differences.mean()), t_half(differences)
    return {"mean": round(mean, 4), "ci95": [round(mean - half, 4), round(mean + half, 4)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variants", nargs="*")
    parser.add_argument("--base")
    parser.add_argument("--write-base")
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--opponents", default=OPPONENTS)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        base = args.base or str(generated(Path(folder)))
        if args.write_base:
            shutil.copyfile(base, args.write_base)
        files = [base, *args.variants]
        step = max(1, args.games // (4 * args.workers))
        runs = [(path, name) for path in files for name in args.opponents.split(",")]
        tasks = [(path, name, g, min(g + step, args.games), args.seed)
                 for path, name in runs for g in range(0, args.games, step)]  # fmt: skip
        with ProcessPoolExecutor(args.workers) as pool:
            parts = list(pool.map(_games, tasks))
    per_run = len(parts) // len(runs)
    played = {run: [game for part in parts[k * per_run : (k + 1) * per_run] for game in part]
              for k, run in enumerate(runs)}  # fmt: skip
    result = {}
    for path, name in runs:
        label = "base" if path == base else Path(path).name
        shown = result.setdefault(label, {})[name] = figures(played[path, name])
        low, high = shown["win_ci"]
        line = (f"{label:24s} vs {name:11s} win {shown['win_rate']:.3f} [{low:.3f}, {high:.3f}]"
                f"; hands lost to an undercut {shown['hands_lost_to_undercut']:.3f}")  # fmt: skip
        if path != base:
            d = shown["paired_difference"] = paired(played[base, name], played[path, name])
            line += (
                f"; paired difference {d['mean']:+.3f} [{d['ci95'][0]:+.3f}, {d['ci95'][1]:+.3f}]"
            )
        print(line, flush=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"games": args.games, "seed": args.seed, "files": result},
                                  indent=2) + "\n")  # fmt: skip


if __name__ == "__main__":
    main()

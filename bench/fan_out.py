"""What fanning out costs, in one run, for every game:

- per task: each game's `simulate` and `validate` in this process, as without
  `--cluster` (the baseline) and on a `local:1` cluster joined once (its tasks: the same
  work, plus shipping it and its results), alternating, each side's fastest of --repeat;
- whole command: `mine validate <game> …` without and with `--cluster local:1` (Ray's
  start and stop included), each its own process, alternating, each side's fastest.

Both sides give the same logs and figures (the cluster tests check it); the load of the
machine is written beside.

    .venv/bin/python bench/fan_out.py [--repeat 2] → bench/results/fan_out.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from mine.pipeline.cluster import runner
from mine.strategies.bots import cardguess as cardguess_bots
from mine.strategies.bots import ginrummy as ginrummy_bots
from mine.strategies.bots import hog as hog_bots
from mine.strategies.bots import supernim as supernim_bots
from mine.strategies.codegen.cardguess import module_source
from mine.strategies.engines import cardguess, ginrummy, hog, simulation, supernim
from mine.strategies.players.source import player_code
from mine.strategies.runners import SERIAL
from mine.strategies.solvers.cardguess import Plan, Search, Trees, flatten
from mine.strategies.validation import cardguess as cardguess_card
from mine.strategies.validation import ginrummy as ginrummy_card
from mine.strategies.validation import hog as hog_card
from mine.strategies.validation import supernim as supernim_card
from mine.strategies.validation import twentyone as twentyone_card

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "fan_out.json"
MINE = str(Path(sys.executable).parent / "mine")
EXAMPLES = ROOT / "examples" / "logs"


def players(folder: Path) -> dict[str, Path]:
    """A player file of each game: Hog's and Super-Nim's written here, card guessing's
    from a searched tree of n = 2, Gin Rummy's by `mine` from its example logs."""
    files = {game: folder / f"{game}_player.py" for game in ("twentyone", "hog", "ginrummy",
                                                            "supernim", "cardguess")}  # fmt: skip
    files["hog"].write_text("def final_strategy(score, opponent_score):\n    return 4\n")
    files["supernim"].write_text(player_code("mine.strategies.players.supernim", {"DEPTH": 2}))
    tree = flatten(2, Search(2, None, Plan(widths=(1,), members=1326, extras=0)).run())
    files["cardguess"].write_text(module_source(Trees({2: tree}, {"method": "search"}), None))
    for game, size in (("ginrummy", ["--games", "0"]), ("twentyone", ["--hands", "1000"])):
        db, table = folder / f"{game}.duckdb", folder / f"{game}.parquet"
        for args in (["ingest", EXAMPLES / game, "--db", db],
                     ["fit", game, "--db", db, "--out", table],
                     ["generate", game, "--table", table, "--out", files[game], *size]):  # fmt: skip
            subprocess.run([MINE, *map(str, args)], check=True, capture_output=True)
    return files


def work(files: dict[str, Path], out: Path) -> dict[str, Callable[[object], object]]:
    """Each measured call, given the runner (None where the call's own default is local
    contained workers: what the command does without --cluster)."""
    return {
        # One core against one: the call in this process, or its tasks on a local:1 cluster.
        "validate twentyone, 1,000,000 hands, 20 games": lambda r: twentyone_card.validate(
            files["twentyone"], hands=1_000_000, games=20, runner=r or SERIAL),
        "simulate hog, 3 matches of 20,000 games": lambda r: simulation.simulate(
            "hog", hog.HogRules(), ["always_roll:6", "square_strategy", "random:1"], 20_000, 1,
            out / "hog", make_bot=hog_bots.make_bot, runner=r or SERIAL),
        "validate hog": lambda r: hog_card.validate(files["hog"], runner=r),
        "simulate ginrummy, 40 games": lambda r: simulation.simulate(
            "ginrummy", ginrummy.GinRummyRules(), ["simple", "explorer"], 40, 1, out / "gin",
            make_bot=ginrummy_bots.make_bot, runner=r or SERIAL),
        "validate ginrummy, 40 games vs simple": lambda r: ginrummy_card.validate(
            files["ginrummy"], games=40, opponents=["simple"], workers=1, runner=r),
        "simulate supernim, 3 matches of 40 games": lambda r: simulation.simulate(
            "supernim", supernim.SuperNimRules(), ["random", "greedy", "alphabeta:1"], 40, 1,
            out / "nim",
            make_bot=supernim_bots.make_bot, runner=r or SERIAL),
        "validate supernim, 40 games vs random, greedy": lambda r: supernim_card.validate(
            files["supernim"], games=40, baselines=["random", "greedy"], equal_depth=0,
            runner=r),
        "simulate cardguess, n = 3, 2,000 games": lambda r: simulation.simulate(
            "cardguess", cardguess.CardGuessRules(n=3), ["greedy"], 2000, 1, out / "cards",
            make_bot=cardguess_bots.make_bot, runner=r or SERIAL),
        "validate cardguess, n = 2": lambda r: cardguess_card.validate(
            files["cardguess"], sizes=(2,), runner=r),
    }  # fmt: skip


COMMANDS = {  # game: the options of its whole-command run
    "twentyone": ["--hands", "1000000", "--games", "20"],
    "hog": [],
    "ginrummy": ["--games", "40", "--baselines", "simple", "--workers", "1"],
    "supernim": ["--games", "40", "--baselines", "random,greedy", "--equal-depth", "0"],
    "cardguess": ["--n", "2"],
}


def seconds(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def ratio(runs: dict[str, list[float]]) -> dict[str, float]:
    base, cluster = min(runs["without"]), min(runs["local:1"])
    return {"without_s": round(base, 3), "local1_s": round(cluster, 3),
            "local1_over_without": round(cluster / base, 3)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    repeat = parser.parse_args().repeat
    load = {"before": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="mine-fan-out-") as scratch:
        folder = Path(scratch)
        files = players(folder)
        calls = work(files, folder / "logs")
        per_task: dict[str, dict[str, list[float]]] = {}
        with runner("local:1") as on_cluster:
            for name, call in calls.items():
                runs: dict[str, list[float]] = {"without": [], "local:1": []}
                for _ in range(repeat):
                    runs["without"].append(seconds(lambda c=call: c(None)))
                    runs["local:1"].append(seconds(lambda c=call: c(on_cluster)))
                per_task[name] = ratio(runs)
                print(f"{name}: {per_task[name]}", flush=True)
        whole: dict[str, dict[str, float]] = {}
        for game, options in COMMANDS.items():
            args = [MINE, "validate", game, str(files[game]), *options, "--json"]
            runs = {"without": [], "local:1": []}
            for _ in range(repeat):
                for side, extra in (("without", []), ("local:1", ["--cluster", "local:1"])):
                    runs[side].append(seconds(lambda a=[*args, *extra]: subprocess.run(
                        a, check=True, capture_output=True)))  # fmt: skip
            whole[f"mine validate {game} {' '.join(options)}".strip()] = ratio(runs)
            print(f"validate {game}, whole command: {whole[next(reversed(whole))]}", flush=True)
    load["after"] = os.getloadavg()
    result = {"cpus": os.cpu_count(), "load_average_1_5_15": load, "repeat": repeat,
              "per_task": per_task, "whole_command": whole}  # fmt: skip
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"load {load} → {RESULTS}")


if __name__ == "__main__":
    main()

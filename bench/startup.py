"""CLI start-up: `mine --help` against a bare `python -c "import typer"`, in the same run.

Each command runs as its own process, alternating, `--repeat` times; the fastest and the
median wall time of each are kept and their ratio printed (the target: `mine --help`
within 1.5× of importing typer alone). Also `mine simulate --help`, which loads every
game's command module. Writes bench/results/startup.json.

    .venv/bin/python bench/startup.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "startup.json"
BIN = Path(sys.executable).parent
COMMANDS = {
    "import typer": [sys.executable, "-c", "import typer"],
    "mine --help": [str(BIN / "mine"), "--help"],
    "mine simulate --help": [str(BIN / "mine"), "simulate", "--help"],
}


def once(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for command in COMMANDS.values():
        once(command)  # warm the file cache
    for _ in range(args.repeat):
        for name, command in COMMANDS.items():
            times[name].append(once(command))
    figures = {
        name: {"min_s": round(min(t), 4), "median_s": round(statistics.median(t), 4)}
        for name, t in times.items()
    }
    base = figures["import typer"]["median_s"]
    for row in figures.values():
        row["ratio_vs_import_typer"] = round(row["median_s"] / base, 2)
    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "repeat": args.repeat,
        "commands": figures,
        "target_ratio_mine_help": 1.5,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    for name, row in figures.items():
        print(
            f"{name}: median {row['median_s'] * 1000:.0f} ms (min {row['min_s'] * 1000:.0f} ms), "
            f"x{row['ratio_vs_import_typer']} a bare import of typer"
        )


if __name__ == "__main__":
    main()

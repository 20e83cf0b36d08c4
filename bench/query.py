"""`mine query` over a big table: the table view of `SELECT * FROM hog_turns` (first rows,
count, time), all of it (`--limit 0`, streamed) and its CSV on stdout, against the same
query written to a file (`--out`, DuckDB's `COPY` inside: the baseline) in the same run,
and a bare `COPY … TO` from Python for reference. Wall time and peak memory of each whole
process, the median of `--repeat` runs taken in turn (the machine is shared).

The warehouse: Hog matches played by `mine simulate` and ingested (about 1.9 M turns).

    .venv/bin/python bench/query.py [--repeat 3]  →  bench/results/query.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "query.json"
MINE = str(Path(sys.executable).parent / "mine")
GAMES = 34_000  # per match, three matches: about 1.9 M turns
SQL = "SELECT * FROM hog_turns"


def run(command: list[str], stdout=subprocess.DEVNULL) -> dict[str, float]:
    """Wall seconds and the peak resident MB of the command's own process."""
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=stdout)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{command[:3]} failed")
    return {"seconds": seconds, "peak_mb": usage.ru_maxrss / 1024}


def medians(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    with tempfile.TemporaryDirectory() as tmp:
        db = f"{tmp}/w.duckdb"
        players = "always_roll:6,random,always_roll:4"
        subprocess.run([MINE, "simulate", "hog", "--games", str(GAMES), "--players", players,
                        "--out", f"{tmp}/logs", "--json"], check=True, stdout=subprocess.DEVNULL)  # fmt: skip
        subprocess.run([MINE, "ingest", f"{tmp}/logs", "--db", db, "--json"], check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
        import duckdb

        con = duckdb.connect(db, read_only=True)
        rows = con.sql(f"SELECT count(*) FROM ({SQL})").fetchall()[0][0]
        con.close()
        statement = f"COPY ({SQL}) TO '{tmp}/copy.csv' (HEADER)"
        copy = [sys.executable, "-c",
                f"import duckdb; duckdb.connect({db!r}, read_only=True).execute({statement!r})"]  # fmt: skip
        commands = {
            "table view": ([MINE, "query", SQL, "--db", db], None),
            "table view, --limit 0": ([MINE, "query", SQL, "--limit", "0", "--db", db], None),
            "csv to stdout": ([MINE, "query", SQL, "--format", "csv", "--db", db], "stdout.csv"),
            "csv to a file (baseline)": (
                [MINE, "query", SQL, "--out", f"{tmp}/out.csv", "--db", db],
                None,
            ),
            "bare COPY to a file": (copy, None),
        }
        runs: dict[str, list] = {name: [] for name in commands}
        for _ in range(repeat):
            for name, (command, sink) in commands.items():
                if sink is None:
                    runs[name].append(run(command))
                else:
                    with open(f"{tmp}/{sink}", "w") as out:
                        runs[name].append(run(command, out))
    figures: dict = {"rows": rows, "repeat": repeat}
    figures |= {name: medians(found) for name, found in runs.items()}
    baseline = figures["csv to a file (baseline)"]["seconds"]
    figures["csv to stdout / csv to a file"] = figures["csv to stdout"]["seconds"] / baseline
    figures["table view --limit 0 / csv to a file"] = (
        figures["table view, --limit 0"]["seconds"] / baseline
    )
    view, whole = figures["table view"], figures["table view, --limit 0"]
    print(f"{rows:,} rows: table view {view['seconds']:.2f} s, {view['peak_mb']:.0f} MB "
          f"(targets < 2 s, < 300 MB); all of it (--limit 0) "
          f"{figures['table view --limit 0 / csv to a file']:.2f}× the CSV to a file, "
          f"{whole['peak_mb']:.0f} MB (targets ≤ 1.5×, < 300 MB); CSV to stdout "
          f"{figures['csv to stdout / csv to a file']:.2f}× the same to a file (target ≤ 1.5×)")  # fmt: skip
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        json.dumps({"python": platform.python_version(), **figures}, indent=2) + "\n"
    )


if __name__ == "__main__":
    main()

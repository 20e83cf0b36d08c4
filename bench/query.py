"""`mine query` over a big table: the table view of `SELECT * FROM hog_turns` (first rows,
count, time) and its CSV on stdout, against the same query written to a file (`--out`,
DuckDB's `COPY` inside: the baseline) in the same run, and a bare `COPY … TO` from Python
for reference. Wall time and peak memory of each whole process.

The warehouse: Hog matches played by `mine simulate` and ingested (about 1.9 M turns).

    .venv/bin/python bench/query.py  →  bench/results/query.json
"""

from __future__ import annotations

import json
import os
import platform
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


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = f"{tmp}/w.duckdb"
        players = "always_roll:6,random,always_roll:4"
        subprocess.run([MINE, "simulate", "hog", "--games", str(GAMES), "--players", players,
                        "--out", f"{tmp}/logs", "--json"], check=True, stdout=subprocess.DEVNULL)  # fmt: skip
        subprocess.run([MINE, "ingest", f"{tmp}/logs", "--db", db, "--json"], check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
        import duckdb

        rows = duckdb.connect(db, read_only=True).sql(f"SELECT count(*) FROM ({SQL})").fetchall()
        statement = f"COPY ({SQL}) TO '{tmp}/copy.csv' (HEADER)"
        copy = [sys.executable, "-c",
                f"import duckdb; duckdb.connect({db!r}, read_only=True).execute({statement!r})"]  # fmt: skip
        with open(f"{tmp}/stdout.csv", "w") as sink:
            figures = {
                "rows": rows[0][0],
                "table view": run([MINE, "query", SQL, "--db", db]),
                "csv to stdout": run([MINE, "query", SQL, "--format", "csv", "--db", db], sink),
                "csv to a file (baseline)": run(
                    [MINE, "query", SQL, "--out", f"{tmp}/out.csv", "--db", db]
                ),
                "bare COPY to a file": run(copy),
            }
    ratio = figures["csv to stdout"]["seconds"] / figures["csv to a file (baseline)"]["seconds"]
    figures["csv to stdout / csv to a file"] = ratio
    view = figures["table view"]
    print(f"{figures['rows']:,} rows: table view {view['seconds']:.2f} s, {view['peak_mb']:.0f} MB "
          f"(targets < 2 s, < 300 MB); CSV to stdout {ratio:.2f}× the same to a file (target ≤ 1.5×)")  # fmt: skip
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        json.dumps({"python": platform.python_version(), **figures}, indent=2) + "\n"
    )


if __name__ == "__main__":
    main()

"""The lake against the warehouse, in one run: `mine ingest` of the bench corpus (a smaller
one of `bench/ingest.py`'s, in its own folder) into a warehouse (today's ingest: the
baseline), into a lake on `--cluster local:1`, and on `--cluster local:2`; then the same
query on the warehouse and on the lake. Each run is its own process, alternating
(--repeat times), each side's fastest kept; the load of the machine is written beside.

The ingest figures are the whole command (Ray's start included) and the command's own
`seconds` (from pairing the files to the commit: the work a cluster would share).

    .venv/bin/python bench/lake.py [--gigabytes 0.3] [--pairs 400] [--shard-pairs 100]
        → bench/results/lake.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MINE_BENCH_CORPUS", str(ROOT / "bench" / "corpus" / "lake"))

from bench.ingest import corpus, corpus_folder  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "lake.json"
MINE = str(Path(sys.executable).parent / "mine")
GAME = "twentyone"  # the largest logs of the games the synthesiser writes
QUERY = (
    "SELECT player, action, count(*) AS turns, avg(bid) AS bid "
    "FROM twentyone_turns GROUP BY ALL ORDER BY ALL"
)


def timed(*args: str) -> tuple[float, dict]:
    """Wall seconds of `mine *args --json` and what it printed."""
    started = time.perf_counter()
    done = subprocess.run([MINE, *args, "--json"], capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"mine {' '.join(args[:3])} failed: {done.stderr[-500:]}")
    return seconds, json.loads(done.stdout)


def ingest(scratch: Path, where: list[str], pairs: int) -> dict[str, float]:
    for old in scratch.glob("target*"):
        shutil.rmtree(old) if old.is_dir() else old.unlink()
    wall, summary = timed("ingest", str(corpus_folder(GAME)), *where)
    assert summary["ok"] and summary["pairs"]["new"] == pairs, summary["errors"][:3]
    return {"wall": wall, "command": summary["seconds"]}


def query_seconds(where: list[str], repeat: int) -> float:
    """The fastest of `repeat` runs of the query as a whole command (CSV to a file)."""
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(
            [MINE, "query", QUERY, *where, "--format", "csv"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        runs.append(time.perf_counter() - started)
    return min(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gigabytes", type=float, default=0.3)
    parser.add_argument("--pairs", type=int, default=400)
    parser.add_argument("--shard-pairs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=2)
    options = parser.parse_args()
    files, size = corpus(GAME, options.gigabytes, options.pairs)
    pairs = len(files) // 2
    scratch = ROOT / "bench" / "corpus" / "lake-runs"
    scratch.mkdir(parents=True, exist_ok=True)
    db, lake = scratch / "target.duckdb", scratch / "target-lake"
    shards = ["--shard-pairs", str(options.shard_pairs)]
    sides = {
        "warehouse": ["--db", str(db)],
        "lake, local:1": ["--lake", str(lake), "--cluster", "local:1", *shards],
        "lake, local:2": ["--lake", str(lake), "--cluster", "local:2", *shards],
    }
    load = {"before": os.getloadavg()}
    runs: dict[str, list[dict[str, float]]] = {side: [] for side in sides}
    for _ in range(options.repeat):
        for side, where in sides.items():
            runs[side].append(ingest(scratch, where, pairs))
            print(f"ingest {side}: {runs[side][-1]}", flush=True)
    best = {side: min(found, key=lambda r: r["wall"]) for side, found in runs.items()}
    # The query: a warehouse and a lake of the same logs (the last runs of each).
    ingest(scratch, sides["warehouse"], pairs)
    timed("ingest", str(corpus_folder(GAME)), "--lake", str(lake), *shards)
    queried = {
        "warehouse": query_seconds(["--db", str(db)], options.repeat + 1),
        "lake": query_seconds(["--lake", str(lake)], options.repeat + 1),
    }
    load["after"] = os.getloadavg()
    one, two, base = best["lake, local:1"], best["lake, local:2"], best["warehouse"]
    result = {
        "corpus": {
            "game": GAME,
            "pairs": pairs,
            "bytes": size,
            "tasks": -(-pairs // options.shard_pairs),
        },
        "cpus": os.cpu_count(),
        "load_average_1_5_15": load,
        "runs": runs,
        "ingest": best,
        "lake_local1_over_warehouse": {
            "wall": round(one["wall"] / base["wall"], 3),
            "command": round(one["command"] / base["command"], 3),
            "goal_at_most": 1.3,
        },
        "local1_over_local2": {
            "wall": round(one["wall"] / two["wall"], 3),
            "command": round(one["command"] / two["command"], 3),
            "goal_at_least_when_idle": 1.6,
        },
        "query": {
            "sql": QUERY,
            "seconds": queried,
            "lake_over_warehouse": round(queried["lake"] / queried["warehouse"], 3),
        },
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"corpus: {pairs} pairs, {size / 1e9:.2f} GB, {result['corpus']['tasks']} tasks; load {load}"
    )
    for side, figures in best.items():
        print(
            f"ingest {side:14} {figures['wall']:6.1f} s whole command, {figures['command']:6.1f} s of ingest"
        )
    print(f"lake on local:1 / warehouse: {result['lake_local1_over_warehouse']} (goal ≤ 1.3)")
    print(f"local:1 / local:2: {result['local1_over_local2']} (goal ≥ 1.6 on an idle machine)")
    print(f"query: warehouse {queried['warehouse']:.2f} s, lake {queried['lake']:.2f} s")


if __name__ == "__main__":
    main()

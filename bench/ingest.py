"""Ingest speed: `mine ingest` against DuckDB's bare `read_csv` of the same files.

Writes (once, then reuses) a synthetic corpus of one game with the project's writers — by
default the first game of the registry that `tests/data/synth.py` can write (TwentyOne,
whose logs are the largest), at least 1 GB in at least 1,000 file pairs; a game it cannot
write (Super-Nim) with the engine's own `mine simulate`, one match a pair (random against
greedy, a seed each) — then, in this run, times (a) DuckDB reading the
same files into bare tables, (b) `mine ingest` into a fresh warehouse (verifying every
game's rules, the default) and (c) `mine ingest --no-verify`, each in its own process so
that each one's peak memory can be read, alternating (--repeat times) and keeping each
side's fastest run. Prints rows/s, the ratios b/a and c/a and the peak memory, and writes
them to bench/results/ingest.json.

    .venv/bin/python bench/ingest.py [--game NAME] [--gigabytes 1.0] [--pairs 1300] [--repeat 2]
    .venv/bin/python bench/ingest.py --game supernim --gigabytes 0.035 --pairs 50

CPU seconds count each side's child processes too (`mine ingest` replays a large batch in
worker processes).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import importlib
import json
import os
import random
import subprocess
import sys
import time
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests/data/synth.py writes the corpus

from mine import games  # noqa: E402
from tests.data import synth  # noqa: E402

WRITABLE = [game.name for game in games.GAMES if hasattr(synth, f"{game.name}_game")]
SIMULATED = ["supernim"]  # written by `mine simulate`: logs of the engine's own play
SIMULATED_PLAYERS = "random,greedy"  # quick bots whose games run to the cut-off
RESULTS = ROOT / "bench" / "results" / "ingest.json"


GIVEN: Path | None = None  # --corpus: a folder of logs used as it is (never rewritten)


def corpus_folder(game: str) -> Path:
    if GIVEN is not None:
        return GIVEN
    return Path(os.environ.get("MINE_BENCH_CORPUS", ROOT / "bench" / "corpus" / game))


def _write_game(game: str, folder: Path, args: tuple[int, int]) -> int:
    index, rounds = args
    write = getattr(synth, f"{game}_bench_game", getattr(synth, f"{game}_game"))
    turns, scores = write(random.Random(index), rounds)  # rounds, or Hog's games
    log_format = games.get(game).module("log_format")
    turn_path, score_path = synth.write_pair(
        folder, f"{1600000000 + index}", log_format, turns, scores
    )
    return turn_path.stat().st_size + score_path.stat().st_size


def _simulate_pair(game: str, folder: Path, args: tuple[int, int]) -> int:
    """One match of `mine simulate` (seed `index`, `games_per_pair` games) into `folder`:
    its bytes."""
    index, games_per_pair = args
    mine = Path(sys.executable).parent / "mine"
    stem = f"{game}-{SIMULATED_PLAYERS.replace(',', '-vs-')}-s{index}"
    subprocess.run(
        [str(mine), "simulate", game, "--games", str(games_per_pair), "--seed", str(index),
         "--players", SIMULATED_PLAYERS, "--out", str(folder)],
        check=True, capture_output=True,
    )  # fmt: skip
    return sum((folder / f"{stem}{end}").stat().st_size for end in (".csv", "-score.csv"))


def writer_fingerprint(game: str) -> str:
    """What wrote a corpus: the sources of the synthesiser, the game's engine and bots, and
    its log format. A corpus another version wrote may break today's rules."""
    parts = [synth.__file__ if game not in SIMULATED else __file__] + [
        importlib.import_module(games.get(game).module_name(part)).__file__
        for part in ("engine", "bots", "log_format")
    ]
    digest = hashlib.sha256()
    for path in parts:
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()


def corpus(game: str, gigabytes: float, pairs: int) -> tuple[list[Path], int]:
    """The corpus's files and bytes, written now if what is on disk is smaller or was
    written by other sources."""
    folder = corpus_folder(game)
    if GIVEN is not None:
        files = sorted(folder.glob("*.csv"))
        return files, sum(f.stat().st_size for f in files)
    stamp = folder / ".written-by"
    files = sorted(folder.glob("*.csv")) if folder.exists() else []
    size = sum(f.stat().st_size for f in files)
    current = stamp.exists() and stamp.read_text() == writer_fingerprint(game)
    if size >= gigabytes * 1e9 and len(files) >= 2 * pairs and current:
        return files, size
    for stale in files:
        stale.unlink()
    sample = folder / "sample"
    writer = _simulate_pair if game in SIMULATED else _write_game
    per_round = writer(game, sample, (0, 20)) / 20  # bytes of a round (a game), measured
    for path in sample.glob("*.csv"):
        path.unlink()
    sample.rmdir()
    rounds = max(1, int(gigabytes * 1e9 / pairs / per_round))
    started = time.perf_counter()
    write = functools.partial(writer, game, folder)
    written, size = 0, 0
    with Pool(2) as pool:
        # later rounds are smaller (players go bankrupt): more pairs until the size is there
        while written < pairs or size < gigabytes * 1e9:
            more = (
                pairs if written == 0 else max(2, int(written * (gigabytes * 1e9 / size - 1)) + 1)
            )
            batch = [(i, rounds) for i in range(written, written + more)]
            size += sum(pool.imap_unordered(write, batch, 8))
            written += more
    stamp.write_text(writer_fingerprint(game))
    print(
        f"wrote corpus: {written} pairs, {size / 1e9:.2f} GB in "
        f"{time.perf_counter() - started:.0f} s"
    )
    return sorted(folder.glob("*.csv")), size


BARE = """
import duckdb, glob, importlib, resource, sys, time
log_format = importlib.import_module(sys.argv[3])
def columns(fmt):
    return '{' + ', '.join(f"'{c.name}': '{c.sql_type}'" for c in fmt.columns) + '}'
folder, db = sys.argv[1], sys.argv[2]
turns = sorted(f for f in glob.glob(folder + '/*.csv') if not f.endswith('-score.csv'))
scores = sorted(glob.glob(folder + '/*-score.csv'))
con = duckdb.connect(db)
con.execute('SET enable_progress_bar = false')
started = time.perf_counter()
for name, files, fmt in (('turns', turns, log_format.TURNS), ('scores', scores, log_format.SCORES)):
    con.execute(f"CREATE TABLE {name} AS SELECT * FROM read_csv(?, header = false, columns = {columns(fmt)})", [files])
seconds = time.perf_counter() - started
rows = con.execute('SELECT (SELECT count(*) FROM turns) + (SELECT count(*) FROM scores)').fetchone()[0]
usage = resource.getrusage(resource.RUSAGE_SELF)
children = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = usage.ru_utime + usage.ru_stime + children.ru_utime + children.ru_stime
print(seconds, rows, usage.ru_maxrss, cpu)
"""

MINE = """
import json, resource, sys, time
from mine.pipeline.cli import app
started = time.perf_counter()
try:
    app(['ingest', sys.argv[1], '--db', sys.argv[2], '--json', *sys.argv[3:]], standalone_mode=False)
except SystemExit:
    pass
seconds = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_SELF)
children = resource.getrusage(resource.RUSAGE_CHILDREN)  # the replay's worker processes
cpu = usage.ru_utime + usage.ru_stime + children.ru_utime + children.ru_stime
print(seconds, usage.ru_maxrss, cpu, file=sys.stderr)
"""


def run(code: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout + "\n" + done.stderr


def run_bare(game: str, scratch: Path) -> tuple[float, int, float, float]:
    """(a): seconds, rows, peak kB, CPU seconds."""
    db = scratch / "bare.duckdb"
    db.unlink(missing_ok=True)
    module = games.get(game).module_name("log_format")
    out = run(BARE, str(corpus_folder(game)), str(db), module)
    seconds, rows, kb, cpu = map(float, out.split()[:4])
    return seconds, int(rows), kb, cpu


def run_mine(game: str, scratch: Path, pairs: int, *flags: str) -> tuple[float, int, float, float]:
    """(b), or (c) with `--no-verify`: seconds, table rows, peak kB, CPU seconds."""
    db = scratch / "mine.duckdb"
    for leftover in scratch.glob("mine.duckdb*"):
        leftover.unlink()
    out = run(MINE, str(corpus_folder(game)), str(db), *flags)
    summary = json.loads(out[: out.rindex("}") + 1])
    assert summary["ok"] and summary["pairs"]["new"] == pairs, summary["errors"][:3]
    seconds, kb, cpu = map(float, out.strip().splitlines()[-1].split())
    return seconds, sum(summary["rows"].values()), kb, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=WRITABLE + SIMULATED, default=WRITABLE[0])
    parser.add_argument("--gigabytes", type=float, default=1.0)
    parser.add_argument("--pairs", type=int, default=1300)
    parser.add_argument("--repeat", type=int, default=2, help="runs of each, alternating")
    parser.add_argument(
        "--corpus", type=Path, help="a folder of logs to time as it is (bench/real_copies.py)"
    )
    options = parser.parse_args()
    global GIVEN
    GIVEN = options.corpus.absolute() if options.corpus else None
    files, size = corpus(options.game, options.gigabytes, options.pairs)
    scratch = ROOT / "bench" / "corpus"
    scratch.mkdir(parents=True, exist_ok=True)  # the corpus may be elsewhere (MINE_BENCH_CORPUS)
    # Alternating runs, each side's fastest kept: a busy moment slows one run, not the figure.
    bare_runs, mine_runs, fast_runs = [], [], []
    for _ in range(options.repeat):
        bare_runs.append(run_bare(options.game, scratch))
        mine_runs.append(run_mine(options.game, scratch, len(files) // 2))
        fast_runs.append(run_mine(options.game, scratch, len(files) // 2, "--no-verify"))
    bare_seconds, rows, bare_kb, bare_cpu = min(bare_runs)
    mine_seconds, mine_rows, mine_kb, mine_cpu = min(mine_runs)
    fast_seconds, _, fast_kb, fast_cpu = min(fast_runs)
    bare_kb = max(r[2] for r in bare_runs)
    mine_kb = max(r[2] for r in mine_runs)

    result = {
        "corpus": {
            "game": options.game,
            "pairs": len(files) // 2,
            "bytes": size,
            "rows": int(rows),
        },
        "runs": {
            "read_csv_seconds": [round(r[0], 2) for r in bare_runs],
            "mine_ingest_seconds": [round(r[0], 2) for r in mine_runs],
            "mine_ingest_no_verify_seconds": [round(r[0], 2) for r in fast_runs],
        },
        "read_csv": {
            "seconds": round(bare_seconds, 2),
            "rows_per_s": round(rows / bare_seconds),
            "peak_mb": round(bare_kb / 1024),
        },
        "mine_ingest": {
            "seconds": round(mine_seconds, 2),
            "rows_per_s": round(rows / mine_seconds),
            "peak_mb": round(mine_kb / 1024),
            "table_rows": mine_rows,
        },
        "mine_ingest_no_verify": {
            "seconds": round(fast_seconds, 2),
            "rows_per_s": round(rows / fast_seconds),
            "peak_mb": round(max(r[2] for r in fast_runs) / 1024),
        },
        "ratio": round(bare_seconds / mine_seconds, 3),
        "ratio_no_verify": round(bare_seconds / fast_seconds, 3),
        # CPU seconds are steadier than wall time when the machine is shared.
        "cpu_seconds": {
            "read_csv": round(bare_cpu, 1),
            "mine_ingest": round(mine_cpu, 1),
            "mine_ingest_no_verify": round(fast_cpu, 1),
        },
        "cpu_ratio": round(bare_cpu / mine_cpu, 3),
        "cpu_ratio_no_verify": round(bare_cpu / fast_cpu, 3),
        "goal": {"ratio_at_least": 0.5, "ratio_no_verify_at_least": 0.7, "peak_mb_below": 1024},
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"corpus: {len(files) // 2} pairs, {size / 1e9:.2f} GB, {int(rows):,} rows")
    print(
        f"runs (s): read_csv {result['runs']['read_csv_seconds']}, mine ingest {result['runs']['mine_ingest_seconds']}"
    )
    print(
        f"(a) DuckDB read_csv: {bare_seconds:.1f} s, {rows / bare_seconds:,.0f} rows/s, peak {bare_kb / 1024:.0f} MB"
    )
    print(
        f"(b) mine ingest:     {mine_seconds:.1f} s, {rows / mine_seconds:,.0f} rows/s, peak {mine_kb / 1024:.0f} MB"
    )
    print(f"(c) mine ingest --no-verify: {fast_seconds:.1f} s, {rows / fast_seconds:,.0f} rows/s")
    print(f"ratio b/a: {result['ratio']:.0%} of read_csv's rows/s (goal ≥ 50 %)")
    print(
        f"ratio c/a: {result['ratio_no_verify']:.0%} of read_csv's rows/s, rules not verified "
        "(goal ≥ 70 %)"
    )
    print(
        f"CPU seconds: read_csv {bare_cpu:.1f}, mine ingest {mine_cpu:.1f} "
        f"(ratio {result['cpu_ratio']:.0%}), --no-verify {fast_cpu:.1f} "
        f"(ratio {result['cpu_ratio_no_verify']:.0%})"
    )


if __name__ == "__main__":
    main()

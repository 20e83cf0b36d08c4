"""Issue 39's question: does replaying EVERY log of a batch cost less CPU than the game's
`suspects` (its rules vectorised in polars) plus reading the staged rows into polars?

Stages a corpus folder (default: the game's `bench/corpus/<game>`, which `bench/ingest.py`
writes) as `mine ingest` does, then
measures, in this process and its worker processes, the CPU seconds (user + sys) of
(a) the staged rows read into polars (`_staged_rows`), (b) `suspects` over the batch,
(c) the replay of every log as ingest runs it (`replay.replayed(..., every=True)`, tasks
on two kept worker processes, their start counted separately) and (d) the same replay in
this process alone. Names the compiled (extension) modules of mine it ran with, if any
(the experiment of branch x39-cython builds TwentyOne's replay with Cython).

    .venv/bin/python bench/replay_all.py [--game twentyone] [--corpus FOLDER]
"""

from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

import duckdb

from mine import games
from mine.strategies.runners import KeptProcesses
from mine.warehouse import ingest, replay


def compiled() -> str:
    """The extension modules this process replays with (none: the plain sources)."""
    names = [name for name, m in sys.modules.items()
             if name.startswith("mine.") and (getattr(m, "__file__", "") or "").endswith(".so")]  # fmt: skip
    return ", ".join(sorted(names)) or "none"


def cpu(children: bool = False) -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def staged(folder: Path, game: str) -> tuple[duckdb.DuckDBPyConnection, list[int]]:
    """The folder's pairs staged as `mine ingest` stages a batch (every pair one game's)."""
    module = games.get(game).module("schema")
    pairs, _ = ingest.pair_files(sorted(folder.glob("*.csv")))
    for log_id, pair in enumerate(pairs, 1):
        pair.log_id = log_id
        for log in pair.files:
            log.read()
    con = duckdb.connect()
    for role in ("turns", "scores"):
        fmt = getattr(module.FORMAT, role.upper())
        ingest._stage(con, role, fmt, getattr(module, "ROW_CHECKS", {}).get(role, ()), pairs)
    return con, [p.log_id for p in pairs]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="twentyone")
    parser.add_argument("--corpus", type=Path, help="default: bench/corpus/<game>")
    args = parser.parse_args()
    args.corpus = args.corpus or Path(__file__).parent / "corpus" / args.game
    if not args.corpus.is_dir():
        sys.exit(f"{args.corpus}: no corpus; write it with bench/ingest.py --game {args.game}")
    module = games.get(args.game).module("schema")
    rules = module.RULES()
    con, ids = staged(args.corpus, args.game)
    print(f"{args.game}: {len(ids)} logs, compiled: {compiled()}")

    start = cpu()
    turns, scores = (ingest._staged_rows(con, module, role, ids) for role in ("turns", "scores"))
    print(
        f"{cpu() - start:7.2f} CPU s  staged rows -> polars ({turns.height + scores.height} rows)"
    )
    find = getattr(module, "suspects", None)
    if find is not None:
        start = cpu()
        named = find(rules, turns, scores)
        print(f"{cpu() - start:7.2f} CPU s  suspects ({len(named)} logs named)")

    # Worker CPU is counted when they end: their start alone first, then start and replay.
    started = cpu(children=True)
    nothing = replay.Task(args.game, rules, turns.clear(), scores.clear())
    with KeptProcesses(2) as runner:
        list(runner.map(replay.replay_logs, [nothing, nothing]))
    start_cost = cpu(children=True) - started
    started = cpu(), cpu(children=True)
    with KeptProcesses(2) as runner:
        found = replay.replayed(args.game, rules, turns, scores, runner, every=True)
    mine = cpu() - started[0]
    workers = cpu(children=True) - started[1]
    print(f"{start_cost:7.2f} CPU s  two workers started (imports), once a command")
    print(f"{mine:7.2f} CPU s  replay-all, this process (tasks cut, sent, answers read)")
    print(f"{workers - start_cost:7.2f} CPU s  replay-all, in the workers (their start taken off)")
    print(f"{mine + workers:7.2f} CPU s  replay-all as ingest runs it, workers' start included")
    start = cpu()
    serial = replay.replayed(args.game, rules, turns, scores, every=True)
    print(f"{cpu() - start:7.2f} CPU s  replay-all in one process")
    assert serial == found
    print(f"{sum(1 for p in found.values() if p)} of {len(found)} logs break a rule")


if __name__ == "__main__":
    sys.exit(main())

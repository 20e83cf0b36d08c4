"""An ingest killed (SIGKILL) anywhere in a multi-file batch leaves a warehouse that opens,
holds only whole logs, and that the same ingest, run again, completes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from mine import games
from mine.parsers import ginrummy, hog, twentyone
from mine.warehouse import ingest
from mine.warehouse.connection import MEMORY_LIMIT, connect
from tests.data import synth

# One transaction per pair (a batch as small as a pair), printing each batch as it lands,
# so that the test can kill it between transactions; or, given a statement and a count,
# killing itself just before that statement's count-th run: inside a transaction, at a
# point that does not depend on how fast the machine is.
INGEST = """
import os, signal, sys
from mine.warehouse import ingest
from mine.warehouse.connection import MEMORY_LIMIT, connect
ingest.BATCH_BYTES = 1
start, count = (sys.argv[3], int(sys.argv[4])) if len(sys.argv) > 3 else ("", 0)

class Dying:
    def __init__(self, con):
        self.con, self.seen = con, 0
    def __getattr__(self, name):
        return getattr(self.con, name)
    def execute(self, sql, *args):
        if start and sql.lstrip().startswith(start):
            self.seen += 1
            if self.seen == count:
                os.kill(os.getpid(), signal.SIGKILL)
        return self.con.execute(sql, *args)

con = connect(sys.argv[2], read_only=False, wait=30, memory_limit=MEMORY_LIMIT)
def progress(files, rows, doing):
    if not doing:  # a batch has landed
        print(files, flush=True)
summary = ingest.ingest(Dying(con), [sys.argv[1]], progress=progress)
print("done" if summary.ok else "failed", flush=True)
"""


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> Path:
    """Eight pairs of three games, tens of kilobytes each."""
    root = tmp_path_factory.mktemp("batch")
    rng = random.Random(11)
    for i in range(4):
        synth.write_pair(root, f"t{i}", twentyone, *synth.twentyone_game(rng, 60, 6))
    for i in range(2):
        synth.write_pair(root, f"g{i}", ginrummy, *synth.ginrummy_game(rng, 6))
        synth.write_pair(root, f"h{i}", hog, *synth.hog_game(rng, 30))
    return root


def _start(batch: Path, db: Path, *dying: str) -> subprocess.Popen:
    # A killed ingest cannot remove its scratch folder: keep it in the test's own folder.
    return subprocess.Popen(
        [sys.executable, "-c", INGEST, str(batch), str(db), *dying],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(db.parent)},
    )


def _kill_after_batches(process: subprocess.Popen, batches: int) -> None:
    for _ in range(batches):
        process.stdout.readline()
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)


def _whole_logs(db: Path, batch: Path) -> int:
    """The warehouse opens, and each log in it holds every line of its files; returns how
    many logs it holds."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        # A kill while the first ingest creates the schema leaves part of it: the next
        # ingest creates the rest.
        present = {
            row[0] for row in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
        }
        if "logs" not in present:
            return 0
        logs = con.execute("SELECT log_id, game, stem, turn_rows, score_rows FROM logs").fetchall()
        for log_id, game, stem, turn_rows, score_rows in logs:
            tables = games.get(game).module("schema").TABLES
            turns = len((batch / f"{stem}.csv").read_bytes().splitlines())
            scores = len((batch / f"{stem}-score.csv").read_bytes().splitlines())
            stored = con.execute(
                f"SELECT (SELECT count(*) FROM {tables[0]} WHERE log_id = $id), "
                f"(SELECT count(*) FROM {tables[-1]} WHERE log_id = $id)",
                {"id": log_id},
            ).fetchone()
            assert (turn_rows, score_rows) == (turns, scores), stem
            assert stored == (turns, scores), stem
        for game in games.with_part("schema"):
            for table in set(game.module("schema").TABLES) & present:
                stray = con.execute(
                    f"SELECT count(*) FROM {table} WHERE log_id NOT IN (SELECT log_id FROM logs)"
                ).fetchone()[0]
                assert stray == 0, f"{table} holds rows of no whole log"
        return len(logs)
    finally:
        con.close()


@pytest.mark.parametrize(
    "kill",
    [
        ("batches", 1),
        ("batches", 5),
        ("INSERT INTO", 3),  # inside the first transactions, rows going in
        ("INSERT INTO", 12),
        ("COMMIT", 4),  # a batch's rows all in, not committed
    ],
    ids=lambda kill: f"{kill[0]}-{kill[1]}",
)
def test_a_killed_ingest_leaves_whole_logs_and_completes_when_run_again(
    tmp_path, batch, kill, monkeypatch
):
    db = tmp_path / "w.duckdb"
    how, when = kill
    if how == "batches":
        process = _start(batch, db)
        _kill_after_batches(process, when)
    else:
        process = _start(batch, db, how, str(when))
        process.communicate(timeout=300)
    assert process.returncode == -signal.SIGKILL  # it was killed, not finished

    if db.exists():
        landed = _whole_logs(db, batch)
        if how == "batches":  # each batch printed had committed
            assert landed >= when

    # The same ingest again, in this process: what is tested is the warehouse the killed
    # process left (the kill needs a process; running it again does not).
    monkeypatch.setattr(ingest, "BATCH_BYTES", 1)
    con = connect(db, read_only=False, wait=30, memory_limit=MEMORY_LIMIT)
    try:
        summary = ingest.ingest(con, [batch])
    finally:
        con.close()
    assert summary.ok, summary.errors
    assert _whole_logs(db, batch) == 8

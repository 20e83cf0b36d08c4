"""Two ingests at once: the second waits for the first's lock, or says clearly who holds it."""

import subprocess
import sys
import time
from pathlib import Path

import duckdb

MINE = str(Path(sys.executable).parent / "mine")


def mine(*args, **kwargs):
    return subprocess.Popen(
        [MINE, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs
    )


def test_two_concurrent_ingests_both_land(tmp_path, good_logs):
    db = tmp_path / "w.duckdb"
    first = mine("ingest", good_logs / "twentyone", "--db", db, "--json")
    second = mine("ingest", good_logs / "ginrummy", "--db", db, "--json")
    outs = [p.communicate(timeout=120) for p in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0], outs
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT game, count(*) FROM logs GROUP BY 1 ORDER BY 1").fetchall() == [
        ("ginrummy", 2),
        ("twentyone", 2),
    ]
    assert con.execute("SELECT count(*) FROM manifest WHERE outcome = 'new'").fetchone() == (8,)


def test_a_held_lock_makes_the_second_wait_then_fail_clearly(tmp_path, good_logs):
    db = tmp_path / "w.duckdb"
    holder = duckdb.connect(str(db))
    try:
        waiting = mine("ingest", good_logs, "--db", db, "--wait", "1")
        _, err = waiting.communicate(timeout=60)
    finally:
        holder.close()
    assert waiting.returncode == 1
    assert "is in use by process" in err and "Traceback" not in err
    assert "--wait" in err


def test_a_waiting_ingest_goes_ahead_when_the_lock_is_released(tmp_path, good_logs):
    db = tmp_path / "w.duckdb"
    holder = duckdb.connect(str(db))
    waiting = mine("ingest", good_logs, "--db", db, "--wait", "60")
    time.sleep(1.5)
    assert waiting.poll() is None  # still waiting for the lock
    holder.close()
    out, err = waiting.communicate(timeout=60)
    assert waiting.returncode == 0, err
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM logs").fetchone() == (4,)

"""A file large enough that DuckDB reads it on several threads still lands in line order."""

import subprocess
import sys
from pathlib import Path

import duckdb

from parsers import hog
from warehouse.ingest import ingest

MINE = str(Path(sys.executable).parent / "mine")


def test_a_large_match_keeps_every_line_in_place(tmp_path):
    logs = tmp_path / "logs"
    subprocess.run(
        [
            MINE,
            "simulate",
            "hog",
            "--games",
            "40000",
            "--players",
            "always_roll:6,random",
            "--seed",
            "3",
            "--out",
            str(logs),
        ],
        check=True,
        capture_output=True,
    )
    (turn_file,) = [p for p in logs.glob("*.csv") if not p.stem.endswith("-score")]
    assert turn_file.stat().st_size > 16 * 1024 * 1024  # several of DuckDB's read buffers

    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    summary = ingest(con, [logs])
    assert summary.ok, summary.errors
    got = con.execute(
        "SELECT game, turn, player, score, new_score FROM hog_turns ORDER BY line"
    ).fetchall()
    expected = [(t.game, t.turn, t.player, t.score, t.new_score) for t in hog.read_turns(turn_file)]
    assert got == expected

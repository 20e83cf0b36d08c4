"""A log written to while ingest reads it lands as the bytes ingest hashed and checked.
DuckDB read the file again after Python had hashed it, so the rows of its new content
landed under the old content's hash: once the file held the old bytes again, the next
ingest found it unchanged and kept the other rows for good."""

from __future__ import annotations

import hashlib

import duckdb

from mine.strategies.bots.hog import make_bot
from mine.strategies.engines.hog import HogRules
from mine.strategies.engines.simulation import simulate
from mine.warehouse import ingest as ingesting


def test_a_file_rewritten_after_it_is_read_lands_as_it_was_read(tmp_path, monkeypatch):
    folder = tmp_path / "logs"
    folder.mkdir()
    simulate("hog", HogRules(), ["always_roll:6", "square_strategy"], 1, 3, folder,
             make_bot=make_bot)  # fmt: skip
    (turns,) = (p for p in folder.glob("*.csv") if not p.name.endswith("-score.csv"))
    before = turns.read_bytes()
    after = before.replace(b"always_roll:6", b"always_roll:7")  # as many lines, well formed
    read = ingesting.LogFile.read

    def read_then_rewritten(log, aside=None):  # a writer at the worst moment: just after
        read(log, aside)
        if log.path == turns and turns.read_bytes() == before:
            turns.write_bytes(after)

    monkeypatch.setattr(ingesting.LogFile, "read", read_then_rewritten)
    con = duckdb.connect(str(tmp_path / "w.duckdb"))

    def landed():
        ((sha256,),) = con.execute(
            "SELECT sha256 FROM manifest WHERE path = ?", [str(turns)]
        ).fetchall()
        players = con.execute("SELECT DISTINCT player FROM hog_turns ORDER BY 1").fetchall()
        return sha256, [p for (p,) in players]

    assert not ingesting.ingest(con, [folder], verify=False).errors
    assert landed() == (hashlib.sha256(before).hexdigest(), ["always_roll:6", "square_strategy"])
    # The next ingest sees the new content, and it replaces the old.
    assert not ingesting.ingest(con, [folder], verify=False).errors
    assert landed() == (hashlib.sha256(after).hexdigest(), ["always_roll:7", "square_strategy"])

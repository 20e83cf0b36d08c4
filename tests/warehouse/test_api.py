"""The library API the README documents: `import mine`, then connect, ingest, frame."""

from __future__ import annotations

import polars as pl

import mine
from tests.conftest import REAL_GINRUMMY


def test_the_documented_api(tmp_path):
    con = mine.connect(tmp_path / "games.duckdb")
    summary = mine.ingest(con, [REAL_GINRUMMY])
    assert summary.ok and summary.count("new") == 12
    rounds = mine.frame(con, "SELECT ending, count(*) AS n FROM ginrummy_rounds GROUP BY 1")
    assert isinstance(rounds, pl.DataFrame) and rounds["n"].sum() == 112
    assert "ginrummy_rounds" in {name for name, *_ in mine.tables(con)}
    assert mine.ingest(con, [REAL_GINRUMMY]).count("unchanged") == 12
    con.close()
    reader = mine.connect(tmp_path / "games.duckdb", read_only=True)
    assert mine.frame(reader, "SELECT count(*) AS n FROM logs")["n"][0] == 12
    reader.close()

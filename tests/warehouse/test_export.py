"""`mine export`: the whole warehouse as hive-partitioned Parquet that DuckDB and polars
read back row for row."""

from __future__ import annotations

import json

import duckdb
import polars as pl

from mine.warehouse.ingest import ingest
from tests.conftest import REAL_GINRUMMY, REAL_TWENTYONE
from tests.mine_cli import digest, mine, one_line_error


def test_every_table_comes_back_row_for_row(tmp_path):
    db = tmp_path / "w.duckdb"
    con = duckdb.connect(str(db))
    ingest(con, [REAL_GINRUMMY, REAL_TWENTYONE])
    con.close()
    before = digest(db)
    out = tmp_path / "export"
    result = mine("export", out, "--db", db, "--json")
    assert result.returncode == 0, result.stderr
    manifest = json.loads(result.stdout)
    assert manifest == json.loads((out / "manifest.json").read_text())
    con = duckdb.connect(str(db), read_only=True)
    for table, figures in manifest["tables"].items():
        files = f"{out}/{table}/**/*.parquet"
        back = duckdb.sql(f"SELECT * FROM read_parquet('{files}', hive_partitioning = true)")
        assert (
            len(back.fetchall())
            == figures["rows"]
            == con.sql(f'SELECT count(*) FROM "{table}"').fetchall()[0][0]
        )
        if figures["partitioned_by"]:
            assert {"game", "log_id"} <= set(back.columns)
    turns = pl.scan_parquet(f"{out}/ginrummy_turns/**/*.parquet", hive_partitioning=True)
    mine_rows = con.sql("SELECT count(*), count(DISTINCT log_id) FROM ginrummy_turns").fetchall()
    polars_rows = turns.select(pl.len(), pl.col("log_id").n_unique()).collect().row(0)
    assert polars_rows == mine_rows[0]
    con.close()
    assert digest(db) == before


def test_an_existing_folder_is_not_exported_over(tmp_path):
    db = tmp_path / "w.duckdb"
    duckdb.connect(str(db)).close()
    mine("ingest", REAL_GINRUMMY, "--db", db)
    (tmp_path / "taken").mkdir()
    assert "already exists" in one_line_error(mine("export", tmp_path / "taken", "--db", db))
    assert list((tmp_path / "taken").iterdir()) == []

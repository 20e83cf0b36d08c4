"""The whole warehouse as Parquet: one folder per table, hive-partitioned by game and log,
and a manifest saying what is there, so DuckDB, polars or any Parquet reader reads it back
(`read_parquet('DIR/<table>/**/*.parquet', hive_partitioning = true)`)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import duckdb

from mine import __version__
from mine.warehouse import schema

MANIFEST = "manifest.json"
OWN = frozenset({"logs", "manifest", "warehouse_version"})


def export(con: duckdb.DuckDBPyConnection, folder: Path) -> dict:
    """Write every table of the warehouse under `folder` (which must not exist yet; it
    appears whole or not at all); the manifest."""
    partial = folder.with_name(f".{folder.name}.{os.getpid()}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        tables = {name: _write(con, name, partial / name) for name in _tables(con)}
        manifest = {
            "mine": __version__,
            "layout_version": schema.VERSION,
            "partitioned_by": ["game", "log_id"],
            "read_with": "read_parquet('<table>/**/*.parquet', hive_partitioning = true)",
            "tables": tables,
        }
        (partial / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
        partial.rename(folder)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return manifest


def _tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    rows = con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' AND NOT temporary "
        "ORDER BY 1"
    ).fetchall()
    return [name for (name,) in rows]


def _write(con: duckdb.DuckDBPyConnection, table: str, target: Path) -> dict:
    columns = [row[0] for row in con.execute(f'DESCRIBE "{table}"').fetchall()]
    rows = con.execute(f'SELECT count(*) FROM "{table}"').fetchall()[0][0]
    if "log_id" in columns and table not in OWN:
        source = f'SELECT t.*, l.game FROM "{table}" t JOIN logs l USING (log_id)'
        by = ["game", "log_id"]
    else:  # the warehouse's own record of logs and files, and statistics: one file each
        source, by = f'SELECT * FROM "{table}"', []
    if not rows:
        by = []  # one empty file: readers still find the table and its columns
    partition = f", PARTITION_BY ({', '.join(by)})" if by else ""
    target.mkdir()
    into = target if by else target / "data.parquet"
    con.execute(f"COPY ({source}) TO '{_literal(str(into))}' (FORMAT parquet{partition})")
    return {"rows": rows, "partitioned_by": by, "columns": columns}


def _literal(text: str) -> str:
    return text.replace("'", "''")

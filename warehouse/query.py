"""Read-only SQL over the warehouse: run a query, export its result, list what is there."""

from __future__ import annotations

from pathlib import Path

import duckdb

EXPORT_FORMATS = {
    "csv": "(FORMAT csv, HEADER true)",
    "json": "(FORMAT json, ARRAY true)",
    "parquet": "(FORMAT parquet)",
}


def run(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[list[str], list[tuple]]:
    """Column names and rows of the query's result."""
    result = con.execute(sql)
    columns = [d[0] for d in result.description] if result.description else []
    return columns, result.fetchall()


def frame(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None):
    """A query's result as a polars DataFrame (through Arrow)."""
    return con.sql(sql, params=params or None).pl()


def export(con: duckdb.DuckDBPyConnection, sql: str, fmt: str, output: str | Path) -> int:
    """Write the query's result to a file with DuckDB's own writers; returns the row count."""
    query = sql.strip().rstrip(";")
    con.execute(f"COPY ({query}) TO '{_literal(str(output))}' {EXPORT_FORMATS[fmt]}")
    return con.execute(f"SELECT count(*) FROM ({query})").fetchone()[0]


def _literal(text: str) -> str:
    return text.replace("'", "''")


def tables(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, int, str]]:
    """(name, table or view, rows, description) of everything in the main schema."""
    found = con.execute(
        """
        SELECT table_name, 'table', comment FROM duckdb_tables()
        WHERE schema_name = 'main' AND NOT temporary
        UNION ALL
        SELECT view_name, 'view', comment FROM duckdb_views()
        WHERE schema_name = 'main' AND NOT internal AND NOT temporary
        ORDER BY 1
        """
    ).fetchall()
    return [
        (name, kind, con.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0], comment or "")
        for name, kind, comment in found
    ]

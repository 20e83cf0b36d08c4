"""The whole warehouse as Parquet: one folder per table and view, hive-partitioned by the
game of each row's log and a bucket of log ids, and a manifest saying what is there, so
DuckDB, polars or any Parquet reader reads it back
(`read_parquet('DIR/<table>/**/*.parquet', hive_partitioning = true)`).

One folder per log would not scale (50,000 logs: 65,000 folders a table, each with its own
writer in memory); a bucket holds `BUCKET_LOGS` consecutive log ids, so a warehouse that
grows adds buckets and leaves the others as they were."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import duckdb

from mine import __version__, outputs
from mine.warehouse import schema

MANIFEST = "manifest.json"
OWN = frozenset({"logs", "manifest", "warehouse_version"})
BUCKET_LOGS = 1000
GAME, BUCKET = "log_game", "log_bucket"  # names no table of the warehouse has
WIDE = ("HUGEINT", "UHUGEINT")  # Parquet has no 128-bit integer (it would be decimal(38,0))


def export(con: duckdb.DuckDBPyConnection, folder: Path) -> dict:
    """Write every table and view of the warehouse under `folder` (new, or an earlier
    export, which it replaces; it appears whole or not at all); the manifest."""
    outputs.remove_stale_partials(folder)  # what runs that were killed left
    partial = outputs.partial_name(folder)
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        con.execute("SET preserve_insertion_order = false")  # bounded memory for a big COPY
        tables = {name: _write(con, name, kind, partial / name) for name, kind in _tables(con)}
        manifest = {
            "mine": __version__,
            "layout_version": schema.VERSION,
            "partitioned_by": [GAME, BUCKET],
            "bucket": f"{BUCKET} = log_id // {BUCKET_LOGS}",
            "read_with": "read_parquet('<table>/**/*.parquet', hive_partitioning = true)",
            "tables": tables,
        }
        (partial / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
        _publish(partial, folder)
    finally:
        _remove(partial)
    return manifest


def is_export(folder: Path) -> bool:
    """Whether `folder` holds an export and nothing else: its manifest and the folders the
    manifest names (so replacing it loses nothing of the user's); not a link to one."""
    if folder.is_symlink():
        return False
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
        names = {MANIFEST, *manifest["tables"]}
        return "mine" in manifest and all(p.name in names for p in folder.iterdir())
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _publish(partial: Path, folder: Path) -> None:
    """Rename the written `partial` onto `folder`; an earlier export there goes aside first
    (under a partial name of ours: a run killed in between leaves it to the next to
    remove) and then away."""
    old = folder.with_name(f".{folder.name}.old.{os.getpid()}{outputs.PARTIAL}")
    if folder.exists():
        os.rename(folder, old)
    os.rename(partial, folder)
    _remove(old)


def _remove(folder: Path) -> None:
    """Remove `folder`, also while an interrupted COPY's threads still close their files
    in it (they write for a moment after the statement has returned)."""
    for _ in range(50):
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            return
        time.sleep(0.02)


def _tables(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    return con.execute(
        """
        SELECT table_name, 'table' FROM duckdb_tables()
        WHERE schema_name = 'main' AND NOT temporary
        UNION ALL
        SELECT view_name, 'view' FROM duckdb_views()
        WHERE schema_name = 'main' AND NOT internal AND NOT temporary
        ORDER BY 1
        """
    ).fetchall()


def _write(con: duckdb.DuckDBPyConnection, table: str, kind: str, target: Path) -> dict:
    described = con.execute(f'DESCRIBE "{table}"').fetchall()
    columns = [name for name, *_ in described]
    types = {name: kind for name, kind, *_ in described}
    shown = ", ".join(
        f'CAST(t."{name}" AS BIGINT) AS "{name}"' if types[name] in WIDE else f't."{name}"'
        for name in columns
    )
    rows = con.execute(f'SELECT count(*) FROM "{table}"').fetchall()[0][0]
    if "log_id" in columns and table not in OWN and rows:
        source = (
            f"SELECT {shown}, l.game AS {GAME}, t.log_id // {BUCKET_LOGS} AS {BUCKET} "
            f'FROM "{table}" t JOIN logs l USING (log_id)'
        )
        by = [GAME, BUCKET]
    else:  # the warehouse's own record of logs and files, statistics, an empty table
        source, by = f'SELECT {shown} FROM "{table}" t', []
    partition = f", PARTITION_BY ({', '.join(by)})" if by else ""
    target.mkdir()
    into = target if by else target / "data.parquet"
    con.execute(f"COPY ({source}) TO '{_literal(str(into))}' (FORMAT parquet{partition})")
    return {"kind": kind, "rows": rows, "partitioned_by": by, "columns": columns}


def _literal(text: str) -> str:
    return text.replace("'", "''")

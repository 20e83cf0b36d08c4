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
import re
import shutil
import stat
import time
from pathlib import Path

import duckdb

from mine import __version__, inputs, outputs
from mine.warehouse import schema
from mine.warehouse.query import LISTED, quoted

MANIFEST = "manifest.json"
MANIFEST_BYTES = 16_000_000  # an export's manifest: a few kB a table
TABLE = re.compile(r"[a-z][a-z0-9_]*")  # the warehouse's tables' and views' names
WRITTEN = re.compile(r"data\.parquet|log_game=[a-z0-9_]+(/log_bucket=\d+(/data_\d+\.parquet)?)?")
"""What an export writes in a table's folder (relative to it): one file, or a partition's
folders and files as DuckDB names them."""
OWN = frozenset({"logs", "manifest", "warehouse_version"})
BUCKET_LOGS = 1000
GAME, BUCKET = "log_game", "log_bucket"  # names no table of the warehouse has
WIDE = ("HUGEINT", "UHUGEINT")  # Parquet has no 128-bit integer (it would be decimal(38,0))


class NotAnExport(ValueError):
    """A folder that an export will not replace: it holds what no export of mine wrote."""

    def __init__(self, folder: Path):
        super().__init__(
            f"{folder}: already exists and is no earlier export; export into a new folder"
        )


def check_target(folder: Path) -> None:
    """NotAnExport unless `folder` is new or an earlier export (see `is_export`)."""
    if os.path.lexists(folder) and not is_export(folder):
        raise NotAnExport(folder)


def export(con: duckdb.DuckDBPyConnection, folder: Path) -> dict:
    """Write every table and view of the warehouse under `folder` (new, or an earlier
    export, which it replaces; it appears whole or not at all); the manifest."""
    check_target(folder)
    outputs.remove_stale_partials(folder)  # what runs that were killed left
    partial = outputs.partial_name(folder)
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        con.execute("SET preserve_insertion_order = false")  # bounded memory for a big COPY
        listed = con.execute(LISTED).fetchall()
        tables = {name: _write(con, name, kind, partial / name) for name, kind, _ in listed}
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
    """Whether `folder` holds an earlier export and nothing else, exactly as an export
    writes it: its manifest, and in the folder of each table the manifest names only the
    Parquet files and partition folders an export makes, no link anywhere. Replacing it
    then loses nothing of the user's, whatever a manifest written by someone else says."""
    try:
        manifest = inputs.read_json(folder / MANIFEST, MANIFEST_BYTES)
    except inputs.InputError:
        return False
    if not (isinstance(manifest, dict) and "mine" in manifest):
        return False
    tables = manifest.get("tables")
    return (
        isinstance(tables, dict)
        and all(TABLE.fullmatch(name) for name in tables)
        and _kind(folder) == stat.S_IFDIR
        and all(_written(entry, tables) for entry in folder.iterdir())
    )


def _written(entry: Path, tables: dict) -> bool:
    """Whether `entry`, in an export's folder, is what the export wrote there."""
    if entry.name == MANIFEST:
        return _kind(entry) == stat.S_IFREG
    if entry.name not in tables or _kind(entry) != stat.S_IFDIR:
        return False
    for root, folders, files in os.walk(entry):  # never through a link: a link is a file here
        made = [(name, stat.S_IFDIR) for name in folders] + [(name, stat.S_IFREG) for name in files]
        for name, kind in made:
            path = Path(root, name)
            if not WRITTEN.fullmatch(path.relative_to(entry).as_posix()) or _kind(path) != kind:
                return False
    return True


def _kind(path: Path) -> int | None:
    """The file type of `path` itself (a link is a link), None if it is not there."""
    try:
        return stat.S_IFMT(os.lstat(path).st_mode)
    except OSError:
        return None


def _publish(partial: Path, folder: Path) -> None:
    """Rename the written `partial` onto `folder`; an earlier export there goes aside first
    (under a partial name of ours: a run killed in between leaves it to the next to
    remove), is checked again (the user may have put a file in it meanwhile: then it is
    put back and the export refused), and then goes away."""
    old = folder.with_name(f".{folder.name}.old.{os.getpid()}{outputs.PARTIAL}")
    if os.path.lexists(folder):
        os.rename(folder, old)
        if not is_export(old):
            os.rename(old, folder)
            raise NotAnExport(folder)
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
    con.execute(f"COPY ({source}) TO {quoted(str(into))} (FORMAT parquet{partition})")
    return {"kind": kind, "rows": rows, "partitioned_by": by, "columns": columns}

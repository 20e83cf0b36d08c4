"""Where the warehouse lives and how to open it.

DuckDB lets one process write a database file at a time (it takes a file lock), and
readers cannot open it while a writer holds it. Rather than failing at once, `connect`
waits for the lock up to a deadline and then says who holds it.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
import weakref
from pathlib import Path

import duckdb

DEFAULT_DB = "mine.duckdb"
ENV_DB = "MINE_DB"
# A writer's DuckDB share of ingest's 1 GB goal: Python, the reader thread and DuckDB
# outside its buffer pool take the rest (peak 864 MB on the 1.4 GB bench corpus).
MEMORY_LIMIT = "750MB"
SEALED = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}


_OPEN: weakref.WeakSet[duckdb.DuckDBPyConnection] = weakref.WeakSet()


def tracked(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """`con`, among the connections `interrupt_all` stops."""
    _OPEN.add(con)
    return con


def interrupt_all() -> None:
    """Stop the statement each open connection runs (from any thread: Ctrl-C's)."""
    for con in list(_OPEN):
        with contextlib.suppress(duckdb.Error):  # closed meanwhile
            con.interrupt()


def in_memory() -> duckdb.DuckDBPyConnection:
    """A DuckDB in memory that loads no extension, within a warehouse's memory limit."""
    return duckdb.connect(
        config={
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
            "memory_limit": MEMORY_LIMIT,
        }
    )


class WarehouseBusy(RuntimeError):
    """Another process holds the database file's lock for longer than we wait."""


class WarehouseMissing(FileNotFoundError):
    """A read-only open of a database that has not been created yet."""


class NotAWarehouse(ValueError):
    """A path that holds something else than a DuckDB database file."""


DUCKDB_MAGIC = b"DUCK"  # bytes 8 to 11 of every DuckDB database file


def check_target(path: Path) -> None:
    """Refuse a path DuckDB would open as something else than a warehouse file: it opens a
    CSV, Parquet or JSON file as an empty database in memory (whatever is then stored is
    lost), and waits forever on a FIFO, the file's or its write-ahead log's (replayed on
    opening; where no Ctrl-C reaches). A new path, an empty file or a DuckDB file pass."""
    wal = Path(f"{path}.wal")
    with contextlib.suppress(OSError):  # none, or none to read: DuckDB says so itself
        mode = wal.stat().st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # a folder: so does DuckDB
            raise NotAWarehouse(
                f"{wal}: the warehouse's log is not a regular file (a FIFO, device or socket?)"
            )
    try:
        info = path.stat()
    except FileNotFoundError:
        return
    except OSError as error:
        raise NotAWarehouse(f"{path}: cannot use it as a warehouse ({error.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise NotAWarehouse(f"{path}: is a folder, not a warehouse file")
    if not stat.S_ISREG(info.st_mode):
        raise NotAWarehouse(f"{path}: not a regular file (a FIFO, device or socket?)")
    if info.st_size == 0:
        return
    try:
        with open(path, "rb") as file:
            head = file.read(12)
    except OSError as error:
        raise NotAWarehouse(f"{path}: cannot read it ({error.strerror})") from None
    if head[8:12] != DUCKDB_MAGIC:
        what = "a Parquet file" if head.startswith(b"PAR1") else "not a DuckDB database file"
        raise NotAWarehouse(
            f"{path}: {what}, so not a warehouse; give --db a warehouse or a new path"
        )


def db_path(db: str | Path | None = None) -> Path:
    """--db, else $MINE_DB, else ./mine.duckdb."""
    return Path(db or os.environ.get(ENV_DB) or DEFAULT_DB)


def connect(
    db: str | Path | None = None,
    *,
    read_only: bool = False,
    wait: float = 60.0,
    memory_limit: str | None = None,
    sealed: bool = False,
) -> duckdb.DuckDBPyConnection:
    """Open the warehouse, waiting up to `wait` seconds for another process's lock.
    `sealed` (read-only) for users' SQL: no files but the warehouse, no extensions, no
    settings changed."""
    path = db_path(db)
    check_target(path)
    if read_only and not path.exists():
        raise WarehouseMissing(f"{path}: no warehouse here yet (run `mine ingest` first)")
    config: dict[str, object] = {"memory_limit": memory_limit} if memory_limit else {}
    if sealed:
        config |= SEALED
    deadline = time.monotonic() + wait
    delay = 0.05
    while True:
        try:
            con = tracked(duckdb.connect(str(path), read_only=read_only, config=config))
            con.execute("SET enable_progress_bar = false")  # it would write into --json output
            if sealed:
                con.execute("SET lock_configuration = true")
            return con
        except duckdb.IOException as error:
            if "lock" not in str(error).lower():
                raise
            if time.monotonic() >= deadline:
                holder = re.search(r"\(PID (\d+)\)", str(error))
                who = f"process {holder.group(1)}" if holder else "another process"
                raise WarehouseBusy(
                    f"{path} is in use by {who} (an ingest?); waited {wait:g} s. "
                    "Try again when it has finished, or raise --wait."
                ) from error
            time.sleep(delay)
            delay = min(delay * 2, 1.0)

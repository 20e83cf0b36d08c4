"""How a command opens the warehouse (or the lake): one line, never a traceback, when it
cannot; only ingest and the demo create a warehouse."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import duckdb

from mine import outputs
from mine.pipeline.console import fail
from mine.warehouse import schema
from mine.warehouse.connection import (
    MEMORY_LIMIT,
    NotAWarehouse,
    WarehouseBusy,
    WarehouseMissing,
    check_target,
    connect,
    db_path,
)
from mine.warehouse.schema import WarehouseVersionError

WAREHOUSE_SUFFIXES = (".duckdb", ".db")  # what a warehouse a command creates is named


def open_warehouse(
    db: Path | None,
    *,
    read_only: bool = True,
    wait: float = 60.0,
    create: bool = False,
    sealed: bool = False,
) -> duckdb.DuckDBPyConnection:
    """The warehouse, or one line saying why not. Only ingest and the demo create one:
    deriving statistics from a warehouse that is not there must not leave an empty one;
    and a warehouse of another layout is refused by every command, before it reads."""
    path = db_path(db)
    try:
        check_target(path)
    except NotAWarehouse as error:
        raise fail(str(error)) from None
    if not create and not path.exists():
        raise fail(f"{path}: no warehouse here yet (run `mine ingest` first)")
    if create and not path.exists() and path.suffix.lower() not in WAREHOUSE_SUFFIXES:
        # `--db logs.csv` is a slip for a log file, not a wish for a DuckDB file named .csv
        raise fail(f"{path}: a new warehouse is named *.duckdb or *.db (did you mean to "
                   "ingest it? `mine ingest FILE --db w.duckdb`)")  # fmt: skip
    try:
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
        con = connect(
            path,
            read_only=read_only,
            wait=wait,
            memory_limit=MEMORY_LIMIT,  # a reader's query or export too: never the machine's
            sealed=sealed,
        )
    except (WarehouseBusy, WarehouseMissing, NotAWarehouse) as error:
        raise fail(str(error)) from None
    except duckdb.InterruptException:
        raise KeyboardInterrupt from None
    except (OSError, duckdb.Error) as error:
        reason = getattr(error, "strerror", None) or str(error).strip().splitlines()[0]
        raise fail(f"{path}: cannot open it as a DuckDB warehouse ({reason})") from None
    outputs.reading(path, f"{path}.wal")  # no output of this command goes over it
    try:
        schema.check(con, path, empty_ok=create)
    except WarehouseVersionError as error:
        con.close()
        raise fail(str(error)) from None
    return con


@contextlib.contextmanager
def working_on(
    db: Path | None, *, read_only: bool = True, lake: Path | None = None
) -> Iterator[duckdb.DuckDBPyConnection]:
    """The warehouse (or the lake) for one command's work, closed after it; what the layers
    refuse with a ValueError (no logs chosen, a fit that cannot be made) is one error line.
    A lake is read into memory; one opened to write (statistics) leaves its statistics out,
    for the command to make its own."""
    if lake is not None:
        con = open_lake(lake, db, statistics=read_only)
    else:
        con = open_warehouse(db, read_only=read_only)
    try:
        yield con
    except ValueError as error:
        if isinstance(error.__context__, duckdb.Error):  # a game's read, said in its words
            changed_by_hand(con, db, lake)
        raise fail(str(error)) from None
    except (duckdb.Error, LookupError, TypeError) as error:
        if isinstance(error, duckdb.InterruptException):
            raise
        changed_by_hand(con, db, lake)
        raise
    finally:
        con.close()


def changed_by_hand(con: duckdb.DuckDBPyConnection, db: Path | None, lake: Path | None) -> None:
    """One line naming the change, where a read (or ingest's write) failed on a table or view
    changed by hand (a column dropped, renamed or retyped, a NULL let in, a view replaced):
    it fails deep in a game's SQL or in the Python that reads its rows; said once here for
    every command. Nothing when the warehouse (or the lake) is as mine makes it."""
    if lake is not None:
        lake_tampered(lake)
        return
    try:
        changed = schema.tampered(con)
    except duckdb.Error:
        changed = None
    if changed is not None:
        raise fail(str(schema.WarehouseChanged(db_path(db), changed))) from None


def open_lake(
    lake: Path, db: Path | None = None, *, sealed: bool = False, statistics: bool = True
) -> duckdb.DuckDBPyConnection:
    """The lake read as a warehouse (see `warehouse.lake.connect`), or one line why not."""
    from mine.warehouse import lake as lakes

    if db is not None:
        raise fail("give --db or --lake, not both")
    try:
        return lakes.connect(lake, sealed=sealed, statistics=statistics)
    except lakes.LakeError as error:
        raise fail(str(error)) from None
    except duckdb.Error as error:
        lake_tampered(lake)
        reason = str(error).strip().splitlines()[0]
        raise fail(f"{lake}: cannot read the lake ({reason})") from None


def lake_tampered(lake: Path) -> None:
    """One line naming the file when a read of the lake failed on a file mine would not
    have written (edited, replaced, cut short); nothing when every file is mine's."""
    from mine.warehouse import lake as lakes

    try:
        changed = lakes.tampered(lake)
    except (lakes.LakeError, duckdb.Error):
        return
    if changed is not None:
        raise fail(f"{changed}: not as mine writes the lake's files (was it edited? ingest "
                   "the logs again into a new lake)")  # fmt: skip


def open_sealed(db: Path | None, lake: Path | None, wait: float) -> duckdb.DuckDBPyConnection:
    """The warehouse (or the lake) for users' SQL: read-only, nothing else reachable."""
    if lake is None:
        return open_warehouse(db, wait=wait, sealed=True)
    return open_lake(lake, db, sealed=True)

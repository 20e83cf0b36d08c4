"""Read-only SQL over the warehouse: run a query, export its result, list what is there.

A user's query runs on a connection that cannot write: the warehouse is opened read-only
with external access off (no `COPY … TO`, `ATTACH`, `INSTALL`, file readers) and its
configuration locked (no `SET`), and only one `SELECT` (or `EXPLAIN`) statement is taken
at all. Results leave through a second, in-memory DuckDB that reads the first's Arrow
stream and writes with DuckDB's own writers, so exports stream and the user's SQL never
runs where files can be written.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb

from mine import outputs

EXPORT_FORMATS = {
    "csv": "(FORMAT csv, HEADER true)",
    "json": "(FORMAT json, ARRAY true)",
    "parquet": "(FORMAT parquet)",
}
READABLE = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}
BATCH_ROWS = 100_000


class QueryError(ValueError):
    """SQL that mine query will not run, or cannot; one line saying why."""


@dataclass(frozen=True)
class Preview:
    columns: list[str]
    rows: list[tuple[str | None, ...]]  # every value as DuckDB prints it
    total: int
    seconds: float


def statement(con: duckdb.DuckDBPyConnection, sql: str) -> str:
    """The one read-only statement in `sql`, or QueryError saying why not."""
    text = sql.strip().rstrip(";").strip()
    if not text:
        raise QueryError("no SQL given: pass it as an argument, with --file, or on stdin")
    try:
        statements = con.extract_statements(text)
    except duckdb.Error as error:
        raise QueryError(_first_line(error)) from None
    if len(statements) != 1:
        raise QueryError(f"one statement at a time ({len(statements)} given)")
    kind = statements[0].type
    if kind not in READABLE:
        raise QueryError(
            f"{kind.name} is refused: mine query only reads (SELECT, WITH, FROM, DESCRIBE, "
            "SHOW, SUMMARIZE, EXPLAIN)"
        )
    return text


def preview(con: duckdb.DuckDBPyConnection, sql: str, limit: int) -> Preview:
    """The first `limit` rows (0: all) as text, and how many rows the query has."""
    started = time.perf_counter()
    if con.extract_statements(sql)[0].type == duckdb.StatementType.EXPLAIN:
        relation = con.sql(sql)
        rows = [tuple(map(str, row)) for row in relation.fetchall()]
        return Preview(relation.columns, rows, len(rows), time.perf_counter() - started)
    # As text in DuckDB: every type prints, and none needs a Python module to convert.
    shown = con.sql(
        f"SELECT COLUMNS(*)::VARCHAR FROM ({sql})" + (f" LIMIT {limit}" if limit else "")
    )
    rows = shown.fetchall()
    total = len(rows) if not limit or len(rows) < limit else _count(con, sql)
    return Preview(shown.columns, rows, total, time.perf_counter() - started)


def _count(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    return con.sql(f"SELECT count(*) FROM ({sql})").fetchall()[0][0]


def export(
    con: duckdb.DuckDBPyConnection, sql: str, fmt: str, output: Path | None, warehouse: Path
) -> int:
    """Write the result with DuckDB's writers to `output` (None: stdout); the row count.
    A file appears whole or not at all, and never in the warehouse's place."""
    if output is not None:
        _check_output(output, warehouse)
    reader = con.sql(sql).to_arrow_reader(BATCH_ROWS)
    writer = duckdb.connect(
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False}
    )
    writer.register("result", reader)
    if output is None:
        sys.stdout.flush()
        return _copy_to_descriptor(writer, fmt, sys.stdout.fileno())
    with outputs.replacing(output) as (partial,):
        return _copy(writer, str(partial), fmt)


def _copy(writer: duckdb.DuckDBPyConnection, target: str, fmt: str) -> int:
    return writer.execute(f"COPY result TO '{_literal(target)}' {EXPORT_FORMATS[fmt]}").fetchone()[
        0
    ]


def _copy_to_descriptor(writer: duckdb.DuckDBPyConnection, fmt: str, descriptor: int) -> int:
    """`_copy` to an open descriptor (stdout as the shell gave it: appending, a pipe, a
    file shared with other commands). DuckDB's writers open a path, and opening
    `/dev/stdout` again would truncate a file and write at its start; so DuckDB writes into
    a FIFO of ours and a thread relays the bytes to the descriptor as they come."""
    with tempfile.TemporaryDirectory(prefix="mine-query-") as folder:
        fifo = os.path.join(folder, "out")
        os.mkfifo(fifo, 0o600)
        source = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        # Our own writer end: the relay sees no end of file before DuckDB has opened the
        # FIFO, and sees one even if DuckDB never does (a query that fails first).
        held = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.set_blocking(source, True)
        relay = _Relay(source, descriptor)
        relay.start()
        try:
            count = _copy(writer, fifo, fmt)
        except duckdb.Error:
            if relay.broken:  # the reader of stdout left: it has all it wanted
                raise BrokenPipeError from None
            raise
        finally:
            os.close(held)
            relay.join()
        if relay.broken:
            raise BrokenPipeError
        return count


class _Relay(threading.Thread):
    """Copies a FIFO to a descriptor until the FIFO's writers are gone, and closes it; a
    reader that left (EPIPE) stops the copy, and the FIFO's writer then fails."""

    def __init__(self, source: int, target: int):
        super().__init__(daemon=True)
        self.source, self.target, self.broken = source, target, False

    def run(self) -> None:
        try:
            while chunk := os.read(self.source, 1 << 20):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(self.target, view) :]
        except BrokenPipeError:
            self.broken = True
        finally:
            os.close(self.source)  # nobody reads the FIFO now: a write fails, never waits


def _check_output(output: Path, warehouse: Path) -> None:
    for protected in (warehouse, Path(f"{warehouse}.wal")):
        if output.resolve() == protected.resolve() or _same_file(output, protected):
            raise QueryError(f"{output}: that is the warehouse; write the result elsewhere")
    folder = output.parent
    if not folder.is_dir():
        raise QueryError(f"{output}: no folder {folder}")
    if not os.access(folder, os.W_OK):
        raise QueryError(f"{output}: cannot write in {folder}")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)  # hard links too
    except OSError:
        return False


def _literal(text: str) -> str:
    return text.replace("'", "''")


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0]


def run(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[list[str], list[tuple]]:
    """Column names and rows of the query's result (for our own small queries)."""
    result = con.execute(sql)
    columns = [d[0] for d in result.description] if result.description else []
    return columns, result.fetchall()


def frame(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None):
    """A query's result as a polars DataFrame (through Arrow)."""
    return con.sql(sql, params=params or None).pl()


def tables(con: duckdb.DuckDBPyConnection) -> Iterator[tuple[str, str, int, str]]:
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
    for name, kind, comment in found:
        yield name, kind, con.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0], comment or ""

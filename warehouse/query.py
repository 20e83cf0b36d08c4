"""Read-only SQL over the warehouse: run a query, export its result, list what is there.

A user's query runs on a connection that cannot write: the warehouse is opened read-only
with external access off (no `COPY … TO`, `ATTACH`, `INSTALL`, file readers) and its
configuration locked (no `SET`), and only one `SELECT` (or `EXPLAIN`) statement is taken
at all. Results leave through a second, in-memory DuckDB that reads the first's Arrow
stream and writes with DuckDB's own writers, so exports stream and the user's SQL never
runs where files can be written.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

import duckdb

from mine import outputs
from mine.warehouse.connection import in_memory, interrupt_all, tracked

EXPORT_FORMATS = {
    "csv": "(FORMAT csv, HEADER true)",
    "json": "(FORMAT json, ARRAY true)",
    "parquet": "(FORMAT parquet)",
}
READABLE = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}
BATCH_ROWS = duckdb.__standard_vector_size__
"""Rows a result travels in between DuckDB and Python: one of DuckDB's own vectors, which
DuckDB held within its memory limit, however wide the rows (a batch of a fixed larger
count held 2 GB of 20-kB rows in Python)."""
SQL_BYTES = 4_000_000  # SQL read from a file or stdin: /dev/zero is refused, not read on


class QueryError(ValueError):
    """SQL that mine query will not run, or cannot; one line saying why."""


NUMBERS = frozenset(
    {"tinyint", "smallint", "integer", "bigint", "hugeint", "utinyint", "usmallint",
     "uinteger", "ubigint", "uhugeint", "float", "double", "decimal"}
)  # fmt: skip
FLOATS = frozenset({"float", "double"})
WIDTH_SAMPLE = 1000  # rows whose values set the table view's column widths
SMALL = 10_000  # a table view of at most this many rows is laid out in Python, at once
CELL = 1000
"""Characters of a value the table view shows: a longer one is cut and its length said
(`--format` writes it whole); with `VIEW_CHARACTERS`, what bounds the view's memory."""
VIEW_CHARACTERS = 20_000_000  # characters of values the table view holds at once, at most
GAP = "  "  # between the table view's columns


def sql_text(data: bytes, source: str | Path) -> str:
    """SQL read from a file or stdin (`source`) as text, or QueryError saying why not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise QueryError(f"{source}: not UTF-8 text (byte {error.start + 1})") from None


def statement(con: duckdb.DuckDBPyConnection, sql: str) -> str:
    """The one read-only statement in `sql`, or QueryError saying why not."""
    try:
        sql.encode("utf-8")
    except UnicodeEncodeError as error:  # an argument's bytes that were not UTF-8
        raise QueryError(f"the SQL is not UTF-8 text (character {error.start + 1})") from None
    text = _without_tail(sql)
    if not text:
        raise QueryError("no SQL given: pass it as an argument, with --file, or on stdin")
    try:
        statements = con.extract_statements(text)
    except duckdb.Error as error:
        raise QueryError(one_line(error)) from None
    if len(statements) != 1:
        raise QueryError(f"one statement at a time ({len(statements)} given)")
    kind = statements[0].type
    if kind not in READABLE:
        raise QueryError(
            f"{kind.name} is refused: mine query only reads (SELECT, WITH, FROM, DESCRIBE, "
            "SHOW, SUMMARIZE, EXPLAIN)"
        )
    return text


def _without_tail(sql: str) -> str:
    """`sql` without what follows its last token: comments and semicolons, which would
    comment out or end the statement the table view wraps it in."""
    data = sql.encode("utf-8")  # the tokens' positions count its bytes, not characters
    end = len(data)
    try:
        tokens = duckdb.tokenize(sql)
    except duckdb.Error:  # extract_statements will say what is wrong with it
        return sql.strip()
    for position, kind in reversed(tokens):
        if kind == duckdb.token_type.comment or data[position : position + 1] == b";":
            end = position
        else:
            break
    return data[:end].decode("utf-8").strip()


def show(con: duckdb.DuckDBPyConnection, sql: str, limit: int, out: BinaryIO) -> int:
    """Write the table view of the query's first `limit` rows (0: all) to `out`: a header,
    a rule and the rows, aligned (numbers on the right, floats to 6 digits, NULL as NULL,
    a value over `CELL` characters cut); the number of rows. It streams, a batch of at
    most `VIEW_CHARACTERS` at a time, so a view of any size or width takes bounded memory.
    The widths come from the first rows; a later value that is longer widens its line."""
    if con.extract_statements(sql)[0].type == duckdb.StatementType.EXPLAIN:
        plan = [line for row in con.sql(sql).fetchall() for line in str(row[-1]).splitlines()]
        out.write("".join(f"{line}\n" for line in plan).encode())
        return len(plan)
    relation = con.sql(sql)
    columns, kinds = relation.columns, [t.id for t in relation.types]
    if not columns:
        return 0
    shown = ", ".join(f"{_shown(f'#{n}', kind)} AS c{n}" for n, kind in enumerate(kinds, 1))
    cut = ", ".join(_cut(f"c{n}") for n in range(1, len(columns) + 1))
    limited = f" LIMIT {limit}" if limit else ""
    text = f"SELECT {cut} FROM (SELECT {shown} FROM ({sql}\n){limited})"
    right = [kind in NUMBERS for kind in kinds]
    at_once = max(1, VIEW_CHARACTERS // (CELL * len(columns)))  # rows
    if limit and limit <= min(SMALL, at_once):
        rows = con.sql(text).fetchall()
        widths = [
            max([len(name), *(len(row[i]) for row in rows)]) for i, name in enumerate(columns)
        ]
        lines = [_aligned(columns, widths, right), GAP.join("─" * w for w in widths)]
        lines += [_aligned(row, widths, right) for row in rows]
        out.write("".join(f"{line}\n" for line in lines).encode())
        return len(rows)
    lengths = ", ".join(f"max(length(c{n}))" for n in range(1, len(columns) + 1))
    sample = f"SELECT * FROM ({text}) LIMIT {min(WIDTH_SAMPLE, at_once)}"
    longest = con.sql(f"SELECT {lengths} FROM ({sample})").fetchall()[0]
    widths = [max(len(name), found or 0) for name, found in zip(columns, longest, strict=True)]
    header = [_aligned(columns, widths, right), GAP.join("─" * w for w in widths)]
    out.write("".join(f"{line}\n" for line in header).encode())
    import polars as pl  # here: the default view (40 rows) starts without it

    cells = [
        pl.col(f"c{n}").str.pad_start(width)
        if to_right
        else pl.col(f"c{n}").str.pad_end(width if n < len(columns) else 0)
        for n, (width, to_right) in enumerate(zip(widths, right, strict=True), 1)
    ]
    line = pl.concat_str(cells, separator=GAP)
    count = 0
    # DuckDB makes the text of each value (in C++, in parallel); polars pads and joins
    # them a batch at a time: Python touches no row.
    for batch in con.sql(text).to_arrow_reader(at_once):
        rows = pl.from_arrow(batch).select(line)
        # Written here, not by polars: its errors would lose their errno (EPIPE, ENOSPC).
        out.write(rows.write_csv(include_header=False, quote_style="never").encode())
        count += batch.num_rows
    return count


def _shown(column: str, kind: str) -> str:
    """SQL: a value as the table view shows it; NULL as NULL, floats to 6 digits."""
    text = f"printf('%.6g', {column})" if kind in FLOATS else f"CAST({column} AS VARCHAR)"
    return f"coalesce({text}, 'NULL')"


def _cut(text: str) -> str:
    """SQL: the text `text` of a value, cut at `CELL` characters (its length said)."""
    cut = f"left({text}, {CELL}) || format('… ({{:,}} characters)', length({text}))"
    return f"CASE WHEN length({text}) > {CELL} THEN {cut} ELSE {text} END AS {text}"


def _aligned(values: Sequence[str], widths: list[int], right: list[bool]) -> str:
    return GAP.join(
        value.rjust(width) if to_right else value.ljust(width)
        for value, width, to_right in zip(values, widths, right, strict=True)
    ).rstrip()


def count(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    return con.sql(f"SELECT count(*) FROM ({sql}\n)").fetchall()[0][0]


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Stop every statement the block runs after `seconds` (None: no limit); the query is
    then QueryError saying so."""
    if not seconds:
        yield
        return
    done, fired = threading.Event(), threading.Event()

    def watch() -> None:
        if done.wait(seconds):
            return
        fired.set()
        while not done.is_set():  # also a statement that starts after the first stop
            interrupt_all()
            done.wait(0.1)

    watcher = threading.Thread(target=watch, name="timeout", daemon=True)
    watcher.start()
    try:
        yield
    except duckdb.InterruptException:
        if fired.is_set():
            raise QueryError(f"stopped after --timeout {seconds:g} s") from None
        raise
    finally:
        done.set()
        watcher.join()


def export(con: duckdb.DuckDBPyConnection, sql: str, fmt: str, output: Path | None) -> int:
    """Write the result with DuckDB's writers to `output` (None: stdout); the row count.
    A file appears whole or not at all, and never in the place of a file the command reads
    (the warehouse, the lake's files, the SQL's own file): refused before the query runs."""
    if output is not None:
        _check_output(output)
        outputs.target(output)
    reader = con.sql(sql).to_arrow_reader(BATCH_ROWS)
    writer = tracked(in_memory())
    writer.register("result", reader)
    if output is None:
        sys.stdout.flush()
        return _copy_to_descriptor(writer, fmt, sys.stdout.fileno())
    try:
        with outputs.replacing(output) as (partial,):
            return _copy(writer, str(partial), fmt)
    except duckdb.IOException as error:
        if (reason := os_reason(error)) is None:
            raise
        raise QueryError(f"{output}: cannot write it ({reason})") from None


def _copy(writer: duckdb.DuckDBPyConnection, target: str, fmt: str) -> int:
    return writer.execute(f"COPY result TO {quoted(target)} {EXPORT_FORMATS[fmt]}").fetchone()[0]


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
            if relay.failed:  # the reader of stdout left, or stdout cannot take more
                raise outputs.stdout_error(relay.failed) from None
            raise
        finally:
            os.close(held)
            relay.join()
        if relay.failed:
            raise outputs.stdout_error(relay.failed)
        return count


class _Relay(threading.Thread):
    """Copies a FIFO to a descriptor until the FIFO's writers are gone, and closes it; a
    write that fails (EPIPE: the reader left; a full disk) stops the copy, and the FIFO's
    writer then fails."""

    def __init__(self, source: int, target: int):
        super().__init__(daemon=True)
        self.source, self.target = source, target
        self.failed: OSError | None = None

    def run(self) -> None:
        try:
            while chunk := os.read(self.source, 1 << 20):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(self.target, view) :]
        except OSError as error:
            self.failed = error
        finally:
            os.close(self.source)  # nobody reads the FIFO now: a write fails, never waits


def _check_output(output: Path) -> None:
    folder = output.parent
    if not folder.is_dir():
        raise QueryError(f"{output}: no folder {folder}")
    if not os.access(folder, os.W_OK):
        raise QueryError(f"{output}: cannot write in {folder}")


def quoted(text: str) -> str:
    """`text` as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def identifier(name: str) -> str:
    """`name` as a SQL identifier (quoted, a quote doubled): whatever it holds, a name."""
    return '"' + name.replace('"', '""') + '"'


def one_line(error: Exception) -> str:
    """DuckDB's message in one line: its first, with the hints that follow it
    (`Did you mean "hog_turns"?`, `Candidate bindings: …`)."""
    first, *rest = str(error).strip().splitlines() or [type(error).__name__]
    hints = [line.strip() for line in rest if line.startswith(("Did you mean", "Candidate"))]
    return " ".join([first, *hints])


def os_reason(error: Exception) -> str | None:
    """The system's reason (`No space left on device`) of a DuckDB error about a file, when
    DuckDB names its errno (its writers' errors end in JSON holding it)."""
    text = str(error)
    start = text.find("{")
    try:
        return os.strerror(int(json.loads(text[start:])["errno"])) if start >= 0 else None
    except (ValueError, KeyError, TypeError):
        return None


def run(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[list[str], list[tuple]]:
    """Column names and rows of the query's result (for our own small queries)."""
    result = con.execute(sql)
    columns = [d[0] for d in result.description] if result.description else []
    return columns, result.fetchall()


def frame(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None):
    """A query's result as a polars DataFrame (through Arrow)."""
    return con.sql(sql, params=params or None).pl()


LISTED = """
SELECT table_name, 'table', comment FROM duckdb_tables()
WHERE schema_name = 'main' AND NOT temporary
UNION ALL
SELECT view_name, 'view', comment FROM duckdb_views()
WHERE schema_name = 'main' AND NOT internal AND NOT temporary
ORDER BY 1
"""
"""SQL: (name, table or view, comment) of everything in the main schema."""


def tables(con: duckdb.DuckDBPyConnection) -> Iterator[tuple[str, str, int, str]]:
    """(name, table or view, rows, description) of everything in the main schema."""
    for name, kind, comment in con.execute(LISTED).fetchall():
        yield name, kind, con.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0], comment or ""

"""The commands every game shares: `mine ingest`, `mine query`, `mine tables`, `mine export`."""

from __future__ import annotations

import dataclasses
import io
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import typer
from rich.cells import cell_len
from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
from rich.text import Text

from mine import games, inputs, outputs
from mine.pipeline.connections import changed_by_hand, open_sealed, open_warehouse
from mine.pipeline.console import console, errors, fail, next_step, print_json, readable, show
from mine.pipeline.options import again
from mine.pipeline.progress import bar as progress_bar
from mine.pipeline.progress import shown as bar_shown
from mine.pipeline.progress import working
from mine.strategies.engines import settings as rule_settings
from mine.warehouse import export as exporting
from mine.warehouse import query as querying
from mine.warehouse import schema
from mine.warehouse.connection import db_path
from mine.warehouse.schema import WarehouseVersionError

if TYPE_CHECKING:
    from mine.warehouse.ingest import Summary


def ingest_rules(settings: list[str], game: str | None) -> dict[str, object]:
    """`--rules KEY=VALUE` as each game's rules: a key applies to every game (or only
    `game`) whose rules dataclass has that field; a key no such game has is an error."""
    if not settings:
        return {}
    try:
        wanted = rule_settings.parse(settings)
    except ValueError as error:
        raise fail(str(error)) from None
    rules, used = {}, set()
    for name, module in schema.game_schemas().items():
        kind = getattr(module, "RULES", None)
        if kind is None or (game is not None and name != game):
            continue
        fields = {f.name for f in dataclasses.fields(kind)}
        mine = {key: text for key, text in wanted.items() if key in fields}
        if mine:
            try:
                rules[name] = kind.from_settings(mine)
            except (ValueError, TypeError) as error:
                raise fail(f"{name}: {error}") from None
            used |= mine.keys()
    unknown = sorted(wanted.keys() - used)
    if unknown:
        raise fail(f"bad rule {unknown[0]!r}: no game's rules have it")
    return rules


def ingest(
    paths: list[str],
    game: str | None,
    db: Path | None,
    as_json: bool,
    wait: float,
    verify: bool = True,
    settings: list[str] | None = None,
    workers: int | None = None,
):
    # Here, not at the top: ingest's reader (pyarrow) would slow every query's start.
    from mine.strategies.runners import KeptProcesses
    from mine.warehouse import ingest as ingesting

    rules = ingest_rules(settings or [], game)
    files, unread = ingesting.find_files(paths)
    if not files:  # nothing to ingest: no warehouse is made for it
        for error in unread[:-1]:
            errors.print(Text.assemble(("error:", "red"), f" {error}"), soft_wrap=True)
        raise fail(str(unread[-1]) if unread else "no log files given")
    con = open_warehouse(db, read_only=False, wait=wait, create=True)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:.0f}/{task.total} files"),
        TextColumn("{task.fields[rows]:,} rows"),
        TextColumn("{task.fields[rate]:,.0f} rows/s"),
        TimeElapsedColumn(),
    )
    with progress_bar(*columns, as_json=as_json) as bar:
        task = bar.add_task("ingest", total=len(files), rows=0, rate=0.0)

        def progress(done_files: float, done_rows: int, doing: str) -> None:
            elapsed = bar.tasks[task].elapsed or 1e-9
            bar.update(
                task,
                completed=done_files,
                rows=done_rows,
                rate=done_rows / elapsed,
                description=f"ingest: {doing}" if doing else "ingest",
            )

        try:
            with KeptProcesses(workers or os.cpu_count() or 1) as replaying:
                summary = ingesting.ingest(
                    con,
                    paths,
                    game=game,
                    progress=progress if bar_shown(as_json) else None,
                    verify=verify,
                    rules=rules,
                    runner=replaying,
                )
        except (ValueError, WarehouseVersionError) as error:
            raise fail(str(error)) from None
        except ingesting.WarehouseWriteError as error:
            raise fail(f"{db_path(db)}: {error}; the batches before it landed") from None
        except duckdb.InterruptException:
            raise KeyboardInterrupt from None
        except (OSError, duckdb.Error) as error:  # the warehouse's, not a log's: logs' are said
            if isinstance(error, duckdb.Error):
                changed_by_hand(con, db, None)
            reason = getattr(error, "strerror", None) or str(error).strip().splitlines()[0]
            raise fail(f"{db_path(db)}: cannot ingest into it ({reason})") from None
        finally:
            con.close()
    show_ingest(summary, as_json, again(db))


def show_ingest(summary: Summary, as_json: bool, where: str) -> None:
    """What an ingest did (each rejection, the counts; `where`: the `--db` or `--lake` of
    the next step), and its exit code."""
    if as_json:
        print_json(summary.as_json())
    else:
        for error in summary.unread:
            errors.print(Text.assemble(("error:", "red"), f" {error}"), soft_wrap=True)
        for error in summary.orphans + [pair.error for pair in summary.pairs if pair.error]:
            errors.print(Text.assemble(("rejected", "red"), f" {error}"), soft_wrap=True)
        _print_summary(summary)
        # the games that received logs, in the registry's order (new or replaced ones:
        # statistics of logs already there are made already)
        landed = {pair.game for pair in summary.pairs if pair.outcome in ("new", "replaced")}
        for name in (name for name in games.names() if name in landed):
            next_step(f"mine stats {name}{where}")
    raise typer.Exit(0 if summary.ok else 1)


def _print_summary(summary: Summary) -> None:
    counts = [(outcome, summary.count(outcome))
              for outcome in ("new", "unchanged", "replaced", "rejected")]  # fmt: skip
    if summary.unread:
        counts.append(("paths or folders not read", len(summary.unread)))
    if summary.orphans:
        counts.append(("unpaired files", len(summary.orphans)))
    counts.append(("rules verified", "yes" if summary.verified else "no (--no-verify)"))
    show([{"pairs": name, "count": count} for name, count in counts],
         f"ingest ({summary.seconds:.2f} s)")  # fmt: skip
    if summary.rows:
        show([{"table": name, "rows": count} for name, count in summary.rows.items()],
             "rows added")  # fmt: skip


def query(
    sql: str | None,
    file: Path | None,
    fmt: str | None,
    out: Path | None,
    limit: int,
    db: Path | None,
    wait: float,
    lake: Path | None = None,
    timeout: float | None = None,
) -> None:
    started = time.perf_counter()
    text = _sql_text(sql, file)
    fmt = fmt or _format_of(out)
    if fmt not in ("table", *querying.EXPORT_FORMATS):
        raise fail(f"unknown format {fmt!r}: use table, csv, json or parquet")
    if fmt == "table" and out is not None:
        raise fail("--format table prints; write a file as csv, json or parquet")
    if fmt == "parquet" and out is None and sys.stdout.isatty():
        raise fail("--format parquet is binary: give --out FILE, or pipe stdout elsewhere")
    con = open_sealed(db, lake, wait)
    try:
        text = querying.statement(con, text)
        with querying.time_limit(timeout):
            if fmt == "table":
                _print_view(con, text, limit, started)
                return
            count = querying.export(con, text, fmt, out)
    except querying.QueryError as error:
        raise fail(str(error)) from None
    except BrokenPipeError:  # `… | head` has what it wanted
        raise
    except OSError as error:
        if error.filename == outputs.STDOUT:  # said once, by the entry, which drops the rest
            raise
        named = error.filename is not None  # an OSError's own str() is "[Errno 36] …: 'path'"
        raise fail(f"{error.filename}: {error.strerror}" if named else str(error)) from None
    except duckdb.InterruptException:
        raise KeyboardInterrupt from None
    except duckdb.Error as error:
        if out is None and "Broken pipe" in str(error):  # `… | head` has what it wanted
            raise typer.Exit(0) from None
        raise fail(querying.one_line(error)) from None
    finally:
        con.close()
    if out is not None:
        errors.print(f"wrote {count:,} row{'' if count == 1 else 's'} to {out}", soft_wrap=True)


def _sql_text(sql: str | None, file: Path | None) -> str:
    """The SQL from the argument, `--file` or stdin; no output of the command replaces its
    file, and no more than `querying.SQL_BYTES` of it is read (`/dev/zero` ends)."""
    if sql is not None and file is not None:
        raise fail("give the SQL as an argument or with --file, not both")
    if sql is not None and sql != "-":
        return sql
    try:
        if file is not None:
            outputs.reading(file)
            data = inputs.read_bytes(file, querying.SQL_BYTES, streams=True)  # `<(…)` too
            return querying.sql_text(data, file)
        if sys.stdin.isatty():
            raise fail("no SQL given: pass it as an argument, with --file, or on stdin")
        data = inputs.read_stream(sys.stdin.buffer, querying.SQL_BYTES, "stdin")
        return querying.sql_text(data, "stdin")
    except ValueError as error:  # InputError, QueryError
        raise fail(str(error)) from None


def _format_of(out: Path | None) -> str:
    if out is None:
        return "table"
    suffix = out.suffix.lower().lstrip(".")
    if suffix not in querying.EXPORT_FORMATS:
        raise fail(
            f"{out}: cannot tell the format from {out.suffix or 'no extension'}; give --format"
        )
    return suffix


def _print_view(con: duckdb.DuckDBPyConnection, sql: str, limit: int, started: float) -> None:
    """The table view, and a footer with the total and the time it all took: a view of at
    most `querying.SMALL` rows as the console lays tables out (`show`: never wider than
    the console, nothing cut), a larger one streamed as the warehouse writes it."""
    sys.stdout.flush()
    if limit and limit <= querying.SMALL:
        view = io.BytesIO()
        shown = querying.show(con, sql, limit, view)
        _print_laid_out(view.getvalue(), shown)
    else:
        shown = querying.show(con, sql, limit, sys.stdout.buffer)
    total = querying.count(con, sql) if limit and shown == limit else shown
    seconds = time.perf_counter() - started
    footer = f"{total:,} rows ({seconds:.2f} s)"
    if total > shown:
        footer = f"first {shown:,} of {footer} · --limit N or --limit 0 for more"
    sys.stdout.buffer.write(f"{footer}\n".encode())


def _print_laid_out(view: bytes, rows: int) -> None:
    """The warehouse's table view as it is where it fits the console, else its cells laid
    out as every table is (`readable`): the view's rule line (`───  ──`) gives each
    column's span. A view is also printed as it is, byte for byte, where laying it out
    cannot help or would lose text: a value holds a line break or is itself wider than the
    console (a long value, or one cut with its length said), or the console cannot encode
    what the view holds."""
    text = view.decode()
    lines = text.splitlines()
    cells: list[list[str]] = []
    if len(lines) == rows + 2 and max(map(cell_len, lines), default=0) > console.width:
        spans, at = [], 0
        for rule in lines[1].split(querying.GAP):
            spans.append((at, at + len(rule)))
            at += len(rule) + len(querying.GAP)
        cells = [[line[a:b].strip() for a, b in spans] for line in [lines[0], *lines[2:]]]
    if (
        not cells
        or (not text.isascii() and console.encoding != "utf-8")
        or any(cell_len(cell) > console.width for row in cells for cell in row)
    ):
        sys.stdout.buffer.write(view)
        sys.stdout.buffer.flush()
        return
    header, *body = cells
    numeric = [all(_number(row[k]) for row in body) and body for k in range(len(header))]
    for part in readable("result", header, ["right" if n else "left" for n in numeric], body):
        console.print(part)


def _number(text: str) -> bool:
    return text == "NULL" or text.lstrip("-").replace(".", "", 1).replace("e", "", 1).isdigit()


def tables(db: Path | None, wait: float, as_json: bool = False, lake: Path | None = None) -> None:
    con = open_sealed(db, lake, wait)
    try:
        with working("counting the rows of every table and view", as_json):
            if lake is None:
                found = list(querying.tables(con))
            else:
                from mine.warehouse import lake as lakes

                found = list(lakes.tables(con, lake))
    except duckdb.InterruptException:
        raise KeyboardInterrupt from None
    except duckdb.Error as error:
        where = db_path(db) if lake is None else lake
        raise fail(f"{where}: cannot read it ({str(error).strip().splitlines()[0]})") from None
    finally:
        con.close()
    where = str(db_path(db) if lake is None else lake)
    rows = [{"name": name, "kind": kind, "rows": rows, "description": comment}
            for name, kind, rows, comment in found]  # fmt: skip
    if as_json:
        print_json({"warehouse": where, "tables": rows})
        return
    show(rows, where, {key: key for key in ("name", "kind", "rows", "description")})
    next_step(f'mine query "SELECT * FROM logs LIMIT 10"{again(db, lake=lake)}')


def export(folder: Path, db: Path | None, as_json: bool, wait: float) -> None:
    try:
        exporting.check_target(folder)  # before the work too
    except exporting.NotAnExport as error:
        raise fail(str(error)) from None
    con = open_warehouse(db, wait=wait)
    try:
        with working(f"exporting the warehouse to {folder}", as_json):
            manifest = exporting.export(con, folder)
    except exporting.NotAnExport as error:
        raise fail(str(error)) from None
    except duckdb.InterruptException:
        raise KeyboardInterrupt from None
    except (OSError, duckdb.Error) as error:
        reason = getattr(error, "strerror", None) or querying.os_reason(error)
        raise fail(
            f"{folder}: cannot export there ({reason or querying.one_line(error)})"
        ) from None
    if as_json:
        print_json(manifest)
        return
    rows = [{"name": name, "kind": figures["kind"], "rows": figures["rows"],
             "by": ", ".join(figures["partitioned_by"])}
            for name, figures in manifest["tables"].items()]  # fmt: skip
    show(rows, f"exported to {folder}",
         {"name": "name", "kind": "kind", "rows": "rows", "by": "partitioned by"})  # fmt: skip
    console.print(
        Text(f"read back: {manifest['read_with']} (the manifest: {folder}/manifest.json)")
    )

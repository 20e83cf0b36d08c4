"""`mine`: ingest game logs into DuckDB, query them, and turn them into players."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import duckdb
import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from pipeline.commands import game_commands
from pipeline.console import console, errors, fail
from warehouse import ingest as ingesting
from warehouse import query as querying
from warehouse.connection import WarehouseBusy, WarehouseMissing, connect, db_path
from warehouse.schema import WarehouseVersionError

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)

Db = Annotated[
    Path | None,
    typer.Option(
        "--db", help="Warehouse file (default: $MINE_DB or ./mine.duckdb).", show_default=False
    ),
]
Wait = Annotated[float, typer.Option(help="Seconds to wait for another process's lock.")]

VERBS = {
    "simulate": "Play games between engines' bots and write logs in the real format.",
    "stats": "Derive per-situation statistics from the warehouse and store them there.",
    "fit": "Fit lookup tables from the warehouse's statistics.",
    "generate": "Generate a single-file player from a fitted table.",
    "validate": "Measure a generated player against the baselines in the reference engine.",
    "report": "Write a self-contained HTML report.",
}


def open_warehouse(db: Path | None, *, read_only: bool, wait: float = 60.0):
    try:
        return connect(
            db,
            read_only=read_only,
            wait=wait,
            memory_limit=None if read_only else ingesting.MEMORY_LIMIT,
        )
    except (WarehouseBusy, WarehouseMissing) as error:
        raise fail(str(error)) from None


@app.command()
def ingest(
    paths: Annotated[list[str], typer.Argument(help="Files, folders (recursive) or globs.")],
    game: Annotated[
        str | None, typer.Option(help="Skip detection: every pair is this game.")
    ] = None,
    db: Db = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    wait: Wait = 60.0,
) -> None:
    """Ingest turn/score log pairs; each pair lands whole or not at all, once per content."""
    con = open_warehouse(db, read_only=False, wait=wait)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} files"),
        TextColumn("{task.fields[rows]:,} rows"),
        TextColumn("{task.fields[rate]:,.0f} rows/s"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=errors, disable=as_json, transient=True) as bar:
        files, _ = ingesting.find_files(paths)
        task = bar.add_task("ingest", total=len(files), rows=0, rate=0.0)

        def progress(done_files: int, done_rows: int) -> None:
            elapsed = bar.tasks[task].elapsed or 1e-9
            bar.update(task, completed=done_files, rows=done_rows, rate=done_rows / elapsed)

        try:
            summary = ingesting.ingest(con, paths, game=game, progress=progress)
        except (ValueError, WarehouseVersionError) as error:
            raise fail(str(error)) from None
    con.close()
    if as_json:
        print(json.dumps(summary.as_json(), indent=2))
    else:
        for error in summary.errors:
            errors.print(f"[red]rejected[/red] {error}", highlight=False, soft_wrap=True)
        _print_summary(summary)
    raise typer.Exit(0 if summary.ok else 1)


def _print_summary(summary: ingesting.Summary) -> None:
    table = Table(title=f"ingest ({summary.seconds:.2f} s)")
    table.add_column("pairs")
    table.add_column("count", justify="right")
    for outcome in ("new", "unchanged", "replaced", "rejected"):
        table.add_row(outcome, str(summary.count(outcome)))
    if summary.orphans:
        table.add_row("unreadable or unpaired files", str(len(summary.orphans)))
    console.print(table)
    if summary.rows:
        rows = Table(title="rows added")
        rows.add_column("table")
        rows.add_column("rows", justify="right")
        for name, count in summary.rows.items():
            rows.add_row(name, f"{count:,}")
        console.print(rows)


@app.command()
def query(
    sql: Annotated[str | None, typer.Argument(help="The SQL to run.")] = None,
    file: Annotated[
        Path | None, typer.Option("--file", "-f", help="Read the SQL from a file.")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="table, csv, json or parquet.")] = "table",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file.")
    ] = None,
    db: Db = None,
    wait: Wait = 60.0,
) -> None:
    """Run SQL over a read-only connection; print a table or export csv/json/parquet."""
    if (sql is None) == (file is None):
        raise fail("give the SQL as an argument or with --file, not both")
    text = sql if sql is not None else file.read_text()
    if fmt not in ("table", *querying.EXPORT_FORMATS):
        raise fail(f"unknown format {fmt!r}: use table, csv, json or parquet")
    con = open_warehouse(db, read_only=True, wait=wait)
    try:
        if fmt == "table":
            columns, rows = querying.run(con, text)
            _print_rows(columns, rows)
        elif output is None:
            if fmt == "parquet":
                raise fail("--format parquet needs --output FILE")
            columns, rows = querying.run(con, text)
            _write_rows(columns, rows, fmt)
        else:
            count = querying.export(con, text, fmt, output)
            errors.print(f"wrote {count:,} rows to {output}")
    except duckdb.Error as error:
        raise fail(str(error)) from None


def _print_rows(columns: list[str], rows: list[tuple]) -> None:
    table = Table(*columns, caption=f"{len(rows):,} rows")
    for row in rows:
        table.add_row(*("NULL" if v is None else str(v) for v in row))
    console.print(table)


def _write_rows(columns: list[str], rows: list[tuple], fmt: str) -> None:
    if fmt == "json":
        print(json.dumps([dict(zip(columns, row, strict=True)) for row in rows], default=str))
        return
    import csv

    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)


@app.command()
def tables(db: Db = None, wait: Wait = 60.0) -> None:
    """List the warehouse's tables and views with row counts and descriptions."""
    con = open_warehouse(db, read_only=True, wait=wait)
    table = Table("name", "kind", "rows", "description", title=str(db_path(db)))
    for name, kind, rows, comment in querying.tables(con):
        table.add_row(name, kind, f"{rows:,}", comment)
    console.print(table)


@app.command()
def demo(db: Db = None) -> None:
    """Run the main job end to end on the embedded default warehouse."""
    from pipeline import demo as running

    try:
        code = running.run(db, console)
    except WarehouseVersionError as error:
        raise fail(str(error)) from None
    raise typer.Exit(code)


def _mount_game_commands() -> None:
    verb_apps: dict[str, typer.Typer] = {}
    for game, module in game_commands().items():
        for verb, command in module.COMMANDS.items():
            if verb not in verb_apps:
                verb_apps[verb] = typer.Typer(no_args_is_help=True, help=VERBS[verb])
                app.add_typer(verb_apps[verb], name=verb)
            verb_apps[verb].command(game)(command)


_mount_game_commands()

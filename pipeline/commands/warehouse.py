"""The commands every game shares: `mine ingest`, `mine query`, `mine tables`; and
`open_warehouse`, how every command opens the warehouse."""

from __future__ import annotations

import csv
import dataclasses
import json
import sys
from pathlib import Path

import duckdb
import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from mine.pipeline.console import console, errors, fail
from mine.strategies.engines import settings as rule_settings
from mine.warehouse import ingest as ingesting
from mine.warehouse import query as querying
from mine.warehouse import schema
from mine.warehouse.connection import WarehouseBusy, WarehouseMissing, connect, db_path
from mine.warehouse.schema import WarehouseVersionError


def open_warehouse(
    db: Path | None, *, read_only: bool = True, wait: float = 60.0, create: bool = False
) -> duckdb.DuckDBPyConnection:
    """The warehouse, or one line saying why not. Only ingest and the demo create one:
    deriving statistics from a warehouse that is not there must not leave an empty one."""
    path = db_path(db)
    if not create and not path.exists():
        raise fail(f"{path}: no warehouse here yet (run `mine ingest` first)")
    try:
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
        return connect(
            path,
            read_only=read_only,
            wait=wait,
            memory_limit=None if read_only else ingesting.MEMORY_LIMIT,
        )
    except (WarehouseBusy, WarehouseMissing) as error:
        raise fail(str(error)) from None
    except (OSError, duckdb.Error) as error:
        raise fail(f"{path}: cannot open the warehouse ({error})".splitlines()[0]) from None


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
):
    rules = ingest_rules(settings or [], game)
    con = open_warehouse(db, read_only=False, wait=wait, create=True)
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
            summary = ingesting.ingest(
                con, paths, game=game, progress=progress, verify=verify, rules=rules
            )
        except (ValueError, WarehouseVersionError) as error:
            raise fail(str(error)) from None
    con.close()
    if as_json:
        print(json.dumps(summary.as_json(), indent=2))
    else:
        for error in summary.errors:
            errors.print(Text.assemble(("rejected", "red"), f" {error}"), soft_wrap=True)
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
    table.add_row("rules verified", "yes" if summary.verified else "no (--no-verify)")
    console.print(table)
    if summary.rows:
        rows = Table(title="rows added")
        rows.add_column("table")
        rows.add_column("rows", justify="right")
        for name, count in summary.rows.items():
            rows.add_row(name, f"{count:,}")
        console.print(rows)


def query(
    sql: str | None, file: Path | None, fmt: str, out: Path | None, db: Path | None, wait: float
) -> None:
    if (sql is None) == (file is None):
        raise fail("give the SQL as an argument or with --file, not both")
    try:
        text = sql if sql is not None else file.read_text()
    except OSError as error:
        raise fail(f"{file}: {error.strerror}") from None
    if fmt not in ("table", *querying.EXPORT_FORMATS):
        raise fail(f"unknown format {fmt!r}: use table, csv, json or parquet")
    con = open_warehouse(db, wait=wait)
    try:
        if fmt == "table":
            columns, rows = querying.run(con, text)
            _print_rows(columns, rows)
        elif out is None:
            if fmt == "parquet":
                raise fail("--format parquet needs --out FILE")
            columns, rows = querying.run(con, text)
            _write_rows(columns, rows, fmt)
        else:
            count = querying.export(con, text, fmt, out)
            errors.print(f"wrote {count:,} rows to {out}")
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
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)


def tables(db: Path | None, wait: float) -> None:
    con = open_warehouse(db, wait=wait)
    table = Table("name", "kind", "rows", "description", title=str(db_path(db)))
    for name, kind, rows, comment in querying.tables(con):
        table.add_row(name, kind, f"{rows:,}", comment)
    console.print(table)

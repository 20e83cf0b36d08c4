"""mine: ingest game logs into DuckDB, query them, and turn them into players."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperGroup

from mine import __version__, games
from mine.pipeline import options

# Plain help: rich's help panels would import rich on every `--help`, tripling start-up.
HELP = {"rich_markup_mode": None, "add_completion": False, "no_args_is_help": True}

VERBS = {
    "simulate": "Play games between bots and write logs in the real format.",
    "stats": "Derive per-situation statistics from the warehouse and store them there.",
    "fit": "Fit lookup tables from the warehouse's logs.",
    "generate": "Generate a single-file player from a fitted table.",
    "validate": "Measure a player file against the baselines in the reference engine.",
    "report": "Write a fitted table's report (a self-contained HTML page).",
}


class GameCommands(TyperGroup):
    """`mine <verb>`: one command per game, loaded only when it runs (or its help shows),
    so that start-up imports neither the games nor their libraries."""

    def list_commands(self, ctx) -> list[str]:
        return [game.name for game in games.with_part("commands")]

    def __init__(self, **attributes) -> None:
        super().__init__(**attributes)
        self.subcommand_metavar = "GAME [OPTIONS]..."

    def format_commands(self, ctx, formatter) -> None:
        """The games from the registry, without importing them."""
        rows = [(game.name, game.about) for game in games.with_part("commands")]
        with formatter.section("Games"):
            formatter.write_dl(rows)

    def get_command(self, ctx, name: str):
        try:
            game = games.get(name)
        except LookupError:
            return None
        function = getattr(game.module("commands"), self.name, None)
        if function is None:
            return None
        single = typer.Typer(**HELP)
        single.command(name)(function)
        return typer.main.get_command(single)


app = typer.Typer(help=__doc__, **HELP)
for verb, about in VERBS.items():
    app.add_typer(typer.Typer(cls=GameCommands, help=about, **HELP), name=verb)


def _version(show: bool) -> None:
    if show:
        print(f"mine {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """mine: ingest game logs into DuckDB, query them, and turn them into players."""


@app.command()
def ingest(
    paths: Annotated[list[str], typer.Argument(help="Files, folders (recursive) or globs.")],
    game: Annotated[
        str | None, typer.Option(help="Skip detection: every pair is this game.")
    ] = None,
    db: options.Db = None,
    as_json: options.Json = False,
    wait: options.Wait = 60.0,
    verify: Annotated[
        bool,
        typer.Option(
            "--verify/--no-verify",
            help="Replay each game's rules over its logs (--no-verify: format checks only).",
        ),
    ] = True,
    rules: Annotated[
        list[str] | None,
        typer.Option(
            "--rules",
            metavar="KEY=VALUE",
            help="The rules the logs were played under (as `mine simulate --rules`), "
            "repeatable; a key applies to every game (or --game) whose rules have it.",
        ),
    ] = None,
) -> None:
    """Ingest turn/score log pairs; each pair lands whole or not at all, once per content."""
    from mine.pipeline.commands import warehouse

    warehouse.ingest(paths, game, db, as_json, wait, verify, rules or [])


@app.command()
def query(
    sql: Annotated[str | None, typer.Argument(help="The SQL to run.")] = None,
    file: Annotated[
        Path | None, typer.Option("--file", "-f", help="Read the SQL from a file.")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="table, csv, json or parquet.")] = "table",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write to this file.")] = None,
    db: options.Db = None,
    wait: options.Wait = 60.0,
) -> None:
    """Run SQL over a read-only connection; print a table or export csv/json/parquet."""
    from mine.pipeline.commands import warehouse

    warehouse.query(sql, file, fmt, out, db, wait)


@app.command()
def tables(db: options.Db = None, wait: options.Wait = 60.0) -> None:
    """List the warehouse's tables and views with row counts and descriptions."""
    from mine.pipeline.commands import warehouse

    warehouse.tables(db, wait)


@app.command()
def demo(db: options.Db = None) -> None:
    """Run the main job end to end on the embedded default warehouse."""
    from mine.pipeline import demo as running

    raise typer.Exit(running.main(db))

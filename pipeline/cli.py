"""mine: ingest game logs into DuckDB, query them, and turn them into players."""

from __future__ import annotations

import difflib
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

from mine import __version__, games
from mine.pipeline import options

# Plain help: rich's help panels would import rich on every `--help`, tripling start-up.
HELP = {
    "rich_markup_mode": None,
    "add_completion": False,
    "no_args_is_help": True,
    "context_settings": {"help_option_names": ["-h", "--help"]},
}

VERBS = {
    "simulate": "Play games between bots and write logs in the real format.",
    "stats": "Derive per-situation statistics from the warehouse and store them there.",
    "fit": "Fit lookup tables from the warehouse's logs.",
    "generate": "Generate a single-file player from a fitted table.",
    "validate": "Measure a player file against the baselines in the reference engine.",
    "tournament": "Play player files and bots in a round robin: ratings, intervals, faults.",
    "report": "Write a fitted table's report (a self-contained HTML page).",
}


class Suggesting(TyperGroup):
    """A group that answers a name it does not know with the one it most likely meant
    (`mine stats twentynoe`: did you mean twentyone?), or the names it knows."""

    def resolve_command(self, ctx, args):
        if args and not args[0].startswith("-") and self.get_command(ctx, args[0]) is None:
            known = self.list_commands(ctx)
            close = difflib.get_close_matches(args[0].lower(), known, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]}?" if close else f"one of {', '.join(known)}"
            what = "game" if isinstance(self, GameCommands) else "command"
            ctx.fail(f"unknown {what} {args[0]!r} ({hint})")
        return super().resolve_command(ctx, args)


class GameCommands(Suggesting):
    """`mine <verb>`: one command per game, loaded only when it runs (or its help shows),
    so that start-up imports neither the games nor their libraries. Game names are read
    in any case (`mine stats Hog`)."""

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
        from mine.pipeline.commands import command

        try:
            game = games.get(name.lower())
        except LookupError:
            return None
        function = command(self.name, game)
        if function is None:
            return None
        single = typer.Typer(**HELP)
        single.command(name)(function)
        return typer.main.get_command(single)


app = typer.Typer(cls=Suggesting, help=__doc__, **HELP)
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
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="table, csv, json or parquet (default: --out's extension, else table).",
            show_default=False,
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write to this file.")] = None,
    limit: Annotated[
        int, typer.Option("--limit", min=0, help="Rows the table shows (0: all).")
    ] = 40,
    db: options.Db = None,
    wait: options.Wait = 60.0,
) -> None:
    """Run one read-only SELECT (from the argument, --file, or stdin); show its first rows,
    or write all of it as csv, json or parquet to --out or stdout."""
    from mine.pipeline.commands import warehouse

    warehouse.query(sql, file, fmt, out, limit, db, wait)


@app.command()
def tables(db: options.Db = None, as_json: options.Json = False, wait: options.Wait = 60.0) -> None:
    """List the warehouse's tables and views with row counts and descriptions."""
    from mine.pipeline.commands import warehouse

    warehouse.tables(db, wait, as_json)


@app.command()
def export(
    folder: Annotated[Path, typer.Argument(help="A new folder for the Parquet files.")],
    db: options.Db = None,
    as_json: options.Json = False,
    wait: options.Wait = 60.0,
) -> None:
    """Write the whole warehouse as Parquet, hive-partitioned by game and log, with a
    manifest (DuckDB, polars or any Parquet reader reads it back)."""
    from mine.pipeline.commands import warehouse

    warehouse.export(folder, db, as_json, wait)


@app.command()
def demo(
    db: Annotated[
        Path | None,
        typer.Option(
            "--db", help="Warehouse file (default: demo-out/mine.duckdb).", show_default=False
        ),
    ] = None,
) -> None:
    """Run the main job end to end on an embedded warehouse of its own (demo-out/)."""
    from mine.pipeline import demo as running

    raise typer.Exit(running.main(db))


def run() -> None:
    """The `mine` command: a bad option or argument is one line (and exit code 2), like
    every other error, instead of click's usage block."""
    try:
        code = _main()
        sys.stdout.flush()
    except BrokenPipeError:  # `mine query … | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)


def _main() -> int:
    try:
        code = app(standalone_mode=False)
    except TyperException as error:  # click's, as typer vendors it: bad options, mostly
        if type(error).__name__ == "NoArgsIsHelpError":  # a bare `mine` or `mine simulate`
            print(error.format_message())
            return 0
        ctx = getattr(error, "ctx", None)
        where = f" (see {ctx.command_path} --help)" if ctx else ""
        print(f"error: {error.format_message()}{where}", file=sys.stderr)
        return error.exit_code
    except typer.Abort:
        return 130
    return code if isinstance(code, int) else 0

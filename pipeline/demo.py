"""`mine demo`: the main job end to end, for every game of the registry: the logs shipped
in `examples/logs/<game>/` (the folder's README says what they are) go in and the game's
`QUERIES` show what SQL over game history looks like; then the game's whole `LOOP` runs,
command by command as a user would type them, on the demo's own warehouse
(`demo-out/mine.duckdb`), so that its simulations never mix with the user's logs.
"""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

import typer
from rich.text import Text

from mine import games
from mine.pipeline import INTERRUPTED
from mine.pipeline.connections import open_warehouse
from mine.pipeline.console import console, fail, show
from mine.warehouse import ingest, query
from mine.warehouse.schema import WarehouseVersionError

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "logs"
FOLDER = Path("demo-out")


def main(db: str | Path | None, app: Callable[..., int | None]) -> int:
    """The whole demo, each command run by `app` (the CLI's, handed down: the demo sits
    below it); the exit code (1 if an example log was rejected)."""
    try:
        return run(warehouse(db), app)
    except WarehouseVersionError as error:
        raise fail(str(error)) from None


def warehouse(db: str | Path | None) -> Path:
    """--db, else the demo's own (not $MINE_DB nor ./mine.duckdb: those hold the user's logs)."""
    return Path(db) if db else FOLDER / "mine.duckdb"


def run(path: Path, app: Callable[..., int | None]) -> int:
    started = time.perf_counter()
    console.rule(f"mine demo → {path}")
    ok = True
    for game in games.GAMES:
        demo = game.module("commands")
        examples = EXAMPLES / game.name
        if examples.is_dir():
            ok &= show_examples(path, examples, demo.QUERIES)
        console.rule(f"{game.name}: simulate → ingest → stats → fit → generate → validate")
        workdir = FOLDER / game.name
        ok &= run_loop(demo.LOOP, path, workdir, app)
    console.rule(f"done in {time.perf_counter() - started:.0f} s")
    console.print(f'Try: mine tables --db {path}   ·   mine query "SELECT ..." --db {path}')
    return 0 if ok else 1


def run_loop(
    loop: tuple[str, ...], db: Path, workdir: Path, app: Callable[..., int | None]
) -> bool:
    """Each command of `loop` (`{db}` the warehouse, `{out}` the game's demo folder), shown
    and run as `mine` runs it; whether every one succeeded (the loop stops at a failure)."""
    values = {"db": shlex.quote(str(db)), "out": shlex.quote(str(workdir))}
    for line in loop:
        words = shlex.split(line.format(**values))
        console.print(Text(f"$ mine {shlex.join(words)}", style="bold"))
        argv, sys.argv = sys.argv, ["mine", *words]  # as the command line would have it
        try:
            code = app(words, standalone_mode=False)
        except typer.Exit as end:
            code = end.exit_code
        except typer.Abort:  # click's word for a KeyboardInterrupt
            raise KeyboardInterrupt from None
        finally:
            sys.argv = argv
        if code == INTERRUPTED:  # a command that stopped at Ctrl-C stops the whole demo
            raise KeyboardInterrupt
        if code:
            return False
    return True


def show_examples(path: Path, folder: Path, queries: dict[str, str]) -> bool:
    """Ingest the example logs in `folder` and run `queries` over them; whether all landed."""
    con = open_warehouse(path, read_only=False, create=True)
    try:
        summary = ingest.ingest(con, [folder])
        console.print(
            f"ingested {folder} ({about(folder)}): {summary.count('new')} new, "
            f"{summary.count('unchanged')} unchanged, {summary.count('rejected')} rejected"
        )
        ids = [pair.log_id for pair in summary.pairs if pair.log_id is not None]
        con.execute(
            "CREATE OR REPLACE TEMP TABLE example_logs AS SELECT unnest(?::INTEGER[]) AS log_id",
            [ids],
        )
        for title, sql in queries.items():
            columns, rows = query.run(con, sql)
            records = [dict(zip(columns, row, strict=True)) for row in rows]
            show(records, title, {name: name for name in columns}, dict.fromkeys(columns, str))
    finally:
        con.close()
    return summary.ok


def about(folder: Path) -> str:
    """What the example logs are, as the title of the folder's README says."""
    readme = folder / "README.md"
    title = readme.read_text().splitlines()[0] if readme.exists() else ""
    return title.lstrip("# ").strip() or "example logs"

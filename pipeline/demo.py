"""`mine demo`: the main job end to end on the embedded default warehouse.

First the real Gin Rummy server logs shipped in `examples/logs/` go in and a few queries
show what SQL over game history looks like; then every game runs its whole loop
(simulate → ingest → stats → fit → generate → validate → report, `pipeline/demos/<game>.py`)
on the same warehouse.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.table import Table

from mine import games
from mine.pipeline.commands.warehouse import open_warehouse
from mine.pipeline.console import console, fail
from mine.warehouse import ingest, query
from mine.warehouse.connection import db_path
from mine.warehouse.schema import WarehouseVersionError

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "logs"

QUERIES = {
    "Real Gin Rummy rounds by how they ended": """
        SELECT ending, count(*) AS rounds, round(avg(points + opponent_points), 1) AS mean_points
        FROM ginrummy_rounds JOIN logs USING (log_id) WHERE logs.stem LIKE '16047%'
        GROUP BY ending ORDER BY rounds DESC""",
    "Mean points per round, by side": """
        SELECT round(avg(points), 2) AS mine, round(avg(opponent_points), 2) AS opponent,
               count(*) AS rounds
        FROM ginrummy_rounds JOIN logs USING (log_id) WHERE logs.stem LIKE '16047%'""",
    "Draws from the discard pile": """
        SELECT CASE WHEN mine THEN 'me' ELSE 'opponent' END AS player,
               count(*) FILTER (WHERE drawn_from = 'discard') AS from_discard,
               count(*) AS draws,
               round(100.0 * count(*) FILTER (WHERE drawn_from = 'discard') / count(*), 1) AS pct
        FROM ginrummy_turns JOIN logs USING (log_id) WHERE logs.stem LIKE '16047%'
        GROUP BY ALL ORDER BY player""",
}


def main(db: str | Path | None) -> int:
    """The whole demo; the exit code (1 if a real log was rejected)."""
    try:
        return run(db_path(db))
    except WarehouseVersionError as error:
        raise fail(str(error)) from None


def run(path: Path) -> int:
    started = time.perf_counter()
    console.rule(f"mine demo → {path}")
    con = open_warehouse(path, read_only=False, create=True)
    try:
        summary = ingest.ingest(con, [EXAMPLES / "ginrummy"])
        console.print(
            f"ingested the real logs in {EXAMPLES / 'ginrummy'}: {summary.count('new')} new, "
            f"{summary.count('unchanged')} unchanged, {summary.count('rejected')} rejected"
        )
        for title, sql in QUERIES.items():
            columns, rows = query.run(con, sql)
            table = Table(*columns, title=title)
            for row in rows:
                table.add_row(*map(str, row))
            console.print(table)
    finally:
        con.close()

    workdir = path.parent / "demo-out"
    for game in games.with_part("demo"):
        console.rule(f"{game.name}: simulate → ingest → stats → fit → generate → validate")
        game.module("demo").run(path, workdir / game.name, console)

    console.rule(f"done in {time.perf_counter() - started:.0f} s")
    console.print(f'Try: mine tables --db {path}   ·   mine query "SELECT ..." --db {path}')
    return 0 if summary.ok else 1

"""`mine demo`: the main job end to end on the embedded default warehouse."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from warehouse import ingest, query
from warehouse.connection import connect, db_path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "logs"

QUERIES = {
    "Gin Rummy rounds by how they ended": """
        SELECT ending, count(*) AS rounds, round(avg(points + opponent_points), 1) AS mean_points
        FROM ginrummy_rounds GROUP BY ending ORDER BY rounds DESC""",
    "Mean points per round, by side": """
        SELECT round(avg(points), 2) AS mine, round(avg(opponent_points), 2) AS opponent,
               count(*) AS rounds
        FROM ginrummy_rounds""",
    "Draws from the discard pile": """
        SELECT CASE WHEN mine THEN 'me' ELSE 'opponent' END AS player,
               count(*) FILTER (WHERE drawn_from = 'discard') AS from_discard,
               count(*) AS draws,
               round(100.0 * count(*) FILTER (WHERE drawn_from = 'discard') / count(*), 1) AS pct
        FROM ginrummy_turns GROUP BY ALL ORDER BY player""",
    "Games": """
        SELECT log_id, rounds, points, opponent_points, winner, gins, knocks, drops
        FROM ginrummy_games ORDER BY log_id""",
}


def run(db: str | Path | None, console: Console) -> int:
    path = db_path(db)
    console.rule(f"mine demo → {path}")
    con = connect(path, memory_limit=ingest.MEMORY_LIMIT)
    summary = ingest.ingest(con, [EXAMPLES / "ginrummy"])
    console.print(
        f"ingested {EXAMPLES / 'ginrummy'}: {summary.count('new')} new, "
        f"{summary.count('unchanged')} unchanged, {summary.count('rejected')} rejected "
        f"({summary.seconds:.2f} s)"
    )
    for title, sql in QUERIES.items():
        columns, rows = query.run(con, sql)
        table = Table(*columns, title=title)
        for row in rows:
            table.add_row(*map(str, row))
        console.print(table)
    con.close()
    console.print(f'Try: mine tables --db {path}   ·   mine query "SELECT ..." --db {path}')
    return 0 if summary.ok else 1

"""Super-Nim's part of `mine demo`: simulate → ingest → stats → fit → generate → validate →
report, on the demo warehouse.

The baselines play each other from random start boards; the heuristic is fitted from
those logs only; the generated player is then measured against the baselines. Runs again
unchanged: the same seed writes the same logs, which ingest skips.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mine.models import supernim as model
from mine.pipeline.commands.supernim import write_player
from mine.pipeline.commands.warehouse import open_warehouse
from mine.pipeline.reports import supernim as report_page
from mine.pipeline.stats import supernim as stats_of
from mine.strategies.bots.supernim import make_bot
from mine.strategies.engines.supernim import DEFAULT_RULES, simulate
from mine.strategies.players.supernim import DEPTH
from mine.strategies.validation import supernim as validation
from mine.warehouse import ingest

POPULATION = ("random", "greedy", "alphabeta:1", "alphabeta:2")
GAMES = 60  # per pairing: 360 games in all
OPPONENTS = ("random", "greedy", "alphabeta:2")
VALIDATION_GAMES = 40

QUERIES = {
    "Super-Nim example logs: outcomes by pairing": """
        SELECT max_player, min_player, count(*) AS games,
               count(*) FILTER (winner = 'max') AS max_wins,
               count(*) FILTER (winner = 'min') AS min_wins,
               count(*) FILTER (ended = 'cutoff') AS cutoffs
        FROM supernim_matches WHERE log_id IN (SELECT log_id FROM example_logs)
        GROUP BY ALL ORDER BY ALL
    """,
    "Super-Nim example logs: points by move kind": """
        SELECT kind, count(*) AS moves, count(*) FILTER (kind = 'split') * 2 AS points
        FROM supernim_moves WHERE log_id IN (SELECT log_id FROM example_logs)
        GROUP BY ALL ORDER BY ALL
    """,
}


def run(
    db: Path,
    workdir: Path,
    console: Console,
    games: int = GAMES,
    validation_games: int = VALIDATION_GAMES,
) -> dict[str, Any]:
    started = time.perf_counter()
    logs = workdir / "logs"
    simulated = simulate(DEFAULT_RULES, POPULATION, games, 0, logs, make_bot=make_bot)
    con = open_warehouse(db, read_only=False, create=True)
    try:
        landed = ingest.ingest(con, [logs])
        log_ids = sorted({p.log_id for p in landed.pairs if p.log_id is not None})
        derived = stats_of.derive(con, log_ids)
        stats_of.store_all(con, derived)
        positions, metadata = stats_of.fit_inputs(con, log_ids)
    finally:
        con.close()
    fitted = model.fit(positions, metadata)
    path = model.write_table(workdir / "supernim-table.parquet", fitted)
    fitted = model.read_table(path)  # as `mine generate supernim --table` reads it
    player = workdir / "supernim_player.py"
    write_player(fitted, player, 0.2, DEPTH, validation_games)
    card = validation.validate(player, baselines=OPPONENTS, games=validation_games, equal_depth=0)
    (workdir / "supernim-card.json").write_text(json.dumps(card, indent=2))
    (workdir / "supernim-report.html").write_text(
        report_page.html(fitted, derived, card), encoding="utf-8"
    )
    figures = {
        "games": sum(match["games"] for match in simulated["matches"]),
        "positions": positions.height,
        "ingest": {o: landed.count(o) for o in ("new", "unchanged", "replaced", "rejected")},
        "wins": {name: row["win"]["mean"] for name, row in card["against"].items()},
        "seconds": round(time.perf_counter() - started, 2),
    }
    summary = Table(title=f"supernim: {figures['games']:,} games between baselines → {workdir}")
    summary.add_column("step")
    summary.add_column("result", justify="right")
    summary.add_row("simulated games / positions", f"{figures['games']:,} / {positions.height:,}")
    summary.add_row("ingested logs (new / unchanged)",
                    f"{landed.count('new')} / {landed.count('unchanged')}")  # fmt: skip
    summary.add_row("yardstick |fit - exact| / |plain - exact|",
                    f"{fitted.metadata['yardstick']['mean_abs_error']:.3f} / "
                    f"{fitted.metadata['yardstick']['plain_mean_abs_error']:.3f}")  # fmt: skip
    for name, row in card["against"].items():
        summary.add_row(f"player vs {name} (win / draw / loss)",
                        f"{row['win']['mean']:.3f} / {row['draw']['mean']:.3f} / "
                        f"{row['loss']['mean']:.3f}")  # fmt: skip
    summary.add_row("seconds", f"{figures['seconds']:.1f}")
    console.print(summary)
    return figures

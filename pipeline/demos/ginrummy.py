"""Gin Rummy's part of `mine demo`: simulate → ingest → stats → fit → generate → validate
→ report, small but sufficient, on the demo warehouse (the real server logs already in)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
from rich.console import Console

from mine.models import ginrummy as model
from mine.models import tables
from mine.pipeline.commands.warehouse import open_warehouse
from mine.pipeline.reports import ginrummy as report_page
from mine.pipeline.stats import ginrummy as stats_of
from mine.strategies.bots.ginrummy import make_bot
from mine.strategies.codegen import ginrummy as codegen
from mine.strategies.engines.ginrummy import GinRummyRules, simulate
from mine.strategies.engines.melds import MeldSolver
from mine.strategies.validation import ginrummy as validation
from mine.warehouse.ingest import ingest

# Over the real server logs of `examples/logs/ginrummy/` (November 2020): the demo ingests
# them first and names their logs `example_logs`.
QUERIES = {
    "Real Gin Rummy rounds by how they ended": """
        SELECT ending, count(*) AS rounds, round(avg(points + opponent_points), 1) AS mean_points
        FROM ginrummy_rounds JOIN example_logs USING (log_id)
        GROUP BY ending ORDER BY rounds DESC""",
    "Mean points per round, by side": """
        SELECT round(avg(points), 2) AS mine, round(avg(opponent_points), 2) AS opponent,
               count(*) AS rounds
        FROM ginrummy_rounds JOIN example_logs USING (log_id)""",
    "Draws from the discard pile": """
        SELECT CASE WHEN mine THEN 'me' ELSE 'opponent' END AS player,
               count(*) FILTER (WHERE drawn_from = 'discard') AS from_discard,
               count(*) AS draws,
               round(100.0 * count(*) FILTER (WHERE drawn_from = 'discard') / count(*), 1) AS pct
        FROM ginrummy_turns JOIN example_logs USING (log_id)
        GROUP BY ALL ORDER BY player""",
}
MATCHES = (("simple", "explorer"), ("ginhunter", "simple"))
GAMES = 20  # per match
SEED = 2024


def run(db: Path, workdir: Path, console: Console) -> dict[str, Any]:
    """Well under a minute; prints one line and returns the headline figures."""
    rules = GinRummyRules()
    solver = MeldSolver()
    logs = workdir / "logs"
    for index, specs in enumerate(MATCHES):
        simulate(rules, specs, GAMES, (SEED, index), logs, make_bot=make_bot, solver=solver,
                 stem=f"ginrummy-demo{index}")  # fmt: skip
    con = open_warehouse(db, read_only=False, create=True)
    try:
        summary = ingest(con, [logs])
        computed = stats_of.run(con)
        features, fingerprint = stats_of.fit_data(con, "simulated")
        shown = stats_of.report_data(con)
    finally:
        con.close()
    fitted = model.fit(features, fingerprint, features.select("log_id").n_unique())
    table_path = tables.write(workdir / "ginrummy-table.parquet", fitted.frame, fitted.metadata)
    player = workdir / "ginrummy_player.py"
    player.write_text(codegen.module_source(fitted, None), encoding="utf-8")
    card = validation.check(player, fitted, games=30, seed=1)
    player.write_text(codegen.module_source(fitted, card), encoding="utf-8")
    (workdir / "ginrummy-report.html").write_text(
        report_page.html(fitted.frame, fitted.metadata, **shown), encoding="utf-8"
    )
    f = card["against"]["simple"]
    server = computed["rounds"].filter(pl.col("source") == "server")
    console.print(
        f"ginrummy: {summary.count('new')} simulated logs ingested; "
        f"{int(server['rounds'].sum() or 0)} real rounds in the warehouse; "
        f"tables from {fitted.metadata['rows']:,} turns → {table_path.name}; "
        f"{player.name} vs simple: {f['win_rate']:.3f} of {f['games']} games "
        f"(95% CI {f['win_ci'][0]:.3f}-{f['win_ci'][1]:.3f}), {f['invalid']} invalid, "
        f"p99 call {f['p99_call_ms']:.2f} ms ({f['p99_call_cpu_ms']:.2f} ms CPU)"
    )
    return {
        "logs": summary.count("new"),
        "turns": fitted.metadata["rows"],
        "danger_auc": fitted.metadata["danger"]["held_out_auc"],
        "win_rate_vs_simple": f["win_rate"],
        "games": f["games"],
        "invalid": f["invalid"],
        "p99_call_ms": f["p99_call_ms"],
        "p99_call_cpu_ms": f["p99_call_cpu_ms"],
    }

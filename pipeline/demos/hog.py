"""Hog's part of `mine demo`: simulate → ingest → stats → fit → generate → validate →
report, on the demo warehouse.

A population of bots plays always_roll:6; both tables are fitted from those logs only (the
best response to always_roll:6, and the minimax table); the generated players are then
measured exactly. Runs again unchanged: the same seed writes the same logs, which ingest
skips.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mine.models import hog as model
from mine.pipeline.commands.warehouse import open_warehouse
from mine.pipeline.reports import hog as report_page
from mine.pipeline.stats import hog as stats_of
from mine.strategies.bots.hog import parse_bot
from mine.strategies.engines.hog import DEFAULT_RULES, run_matches
from mine.strategies.validation import hog as validation
from mine.warehouse import ingest

OPPONENT = "always_roll:6"
POPULATION = ("square_strategy", "tail_strategy", "always_roll:4", "random:1")
GAMES = 5_000  # per match: 20,000 games in all, each against always_roll:6
FITS = (("best-response", OPPONENT), ("minimax", None))  # method, the opponent it answers


def run(db: Path, workdir: Path, console: Console, games: int = GAMES) -> dict[str, Any]:
    """The loop on warehouse `db`, writing into `workdir` (`games` per match); prints a
    summary and returns the headline figures."""
    started = time.perf_counter()
    logs = workdir / "logs"
    bots = [(spec, parse_bot(spec, DEFAULT_RULES)) for spec in POPULATION]
    opponent = (OPPONENT, parse_bot(OPPONENT, DEFAULT_RULES))
    matches = run_matches(bots, games, 0, DEFAULT_RULES, logs, opponent)
    games = sum(m["games"] for m in matches)
    con = open_warehouse(db, read_only=False, create=True)
    try:
        landed = ingest.ingest(con, [logs])
        log_ids = sorted({p.log_id for p in landed.pairs if p.log_id is not None})
        derived = stats_of.derive(con, log_ids=log_ids)
        stats_of.store_all(con, derived)
        fits = {
            method: stats_of.fit_from_warehouse(con, method, against, log_ids)
            for method, against in FITS
        }
    finally:
        con.close()
    cards = {}
    for method, fitted in fits.items():
        path = model.write_table(workdir / f"{method}.parquet", fitted.table, fitted.metadata)
        table, metadata = model.read_table(path)  # as `mine generate hog --table` reads it
        player = workdir / f"hog_{method.replace('-', '_')}.py"
        card = validation.write_player(table, metadata, player)
        (workdir / f"hog-{method}-report.html").write_text(
            report_page.html(table, metadata, card), encoding="utf-8"
        )
        cards[method], _ = validation.validate_player(player)
    headline = stats_of.headline(derived)
    best, minimax = cards["best-response"], cards["minimax"]
    figures: dict[str, Any] = {
        "games": games,
        "turns": headline["turns"],
        "logs": len(log_ids),
        "ingest": {o: landed.count(o) for o in ("new", "unchanged", "replaced", "rejected")},
        "best_response_vs_always_roll_6": best["against"]["always_roll:6"]["average"],
        "best_possible_vs_always_roll_6": best["best_possible_vs_always_roll_6"]["average"],
        "minimax_guaranteed": minimax["guaranteed"]["average"],
        "optimal_guaranteed": minimax["optimal_guaranteed"]["average"],
        "seconds": round(time.perf_counter() - started, 2),
    }
    sow_sad = headline["points_at_1_by_dice"].get(6)
    summary = Table(title=f"hog: {games:,} games against always_roll:6 → {workdir}")
    summary.add_column("step")
    summary.add_column("result", justify="right")
    for step, value in (
        ("simulated games / turns", f"{games:,} / {figures['turns']:,}"),
        ("ingested logs (new / unchanged)", f"{landed.count('new')} / {landed.count('unchanged')}"),
        ("Sow Sad share with 6 dice", f"{sow_sad['share'] if sow_sad else float('nan'):.3f}"),
        ("best response vs always_roll:6", f"{figures['best_response_vs_always_roll_6']:.6f}"),
        ("  best possible", f"{figures['best_possible_vs_always_roll_6']:.6f}"),
        ("minimax table guaranteed", f"{figures['minimax_guaranteed']:.6f}"),
        ("  optimal guaranteed", f"{figures['optimal_guaranteed']:.6f}"),
        ("seconds", f"{figures['seconds']:.1f}"),
    ):
        summary.add_row(step, value)
    console.print(summary)
    return figures

"""Card guessing's part of `mine demo`: simulate → ingest → stats → fit → generate →
validate → report, for two-card answers, on the demo warehouse.

The greedy guesser plays a uniform answerer; the tree is fitted from those logs only and
the generated file plays every two-card answer against greedy and entropy. Runs again
unchanged: the same seed writes the same logs, which ingest skips.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mine.models import cardguess as model
from mine.pipeline.commands.warehouse import open_warehouse
from mine.pipeline.reports import cardguess as report_page
from mine.pipeline.stats import cardguess as stats_of
from mine.strategies.bots.cardguess import make_bot
from mine.strategies.codegen.cardguess import write_module
from mine.strategies.engines.cardguess import CardGuessRules, simulate
from mine.strategies.solvers.cardguess import Plan
from mine.strategies.validation import cardguess as validation
from mine.warehouse import ingest

GAMES = 500
N = 2
# A lighter search than `mine fit`'s (width 1 below the root, every hand a possible guess):
# seconds rather than a minute, and still below greedy.
PLAN = Plan(widths=(1,), members=1326, extras=1326, extras_from=12)

QUERIES = {
    "Simulated card-guessing games by guesser and n (examples/logs/cardguess)": """
        SELECT l.stem AS log, g.n, count(*) AS games, round(avg(g.guesses), 3) AS mean_guesses,
               max(g.guesses) AS most
        FROM cardguess_games g JOIN logs l USING (log_id) JOIN example_logs USING (log_id)
        GROUP BY ALL ORDER BY log""",
    "How often a first guess's feedback shows each correct-ranks count": """
        SELECT n, ranks AS correct_ranks, count(*) AS guesses
        FROM cardguess_guesses JOIN example_logs USING (log_id)
        WHERE guess_no = 1 GROUP BY ALL ORDER BY n, correct_ranks""",
}


def run(db: Path, workdir: Path, console: Console, games: int = GAMES) -> dict[str, Any]:
    started = time.perf_counter()
    logs = workdir / "logs"
    summary = simulate(CardGuessRules(n=N), ["greedy"], games, 0, logs, make_bot=make_bot)
    con = open_warehouse(db, read_only=False, create=True)
    try:
        landed = ingest.ingest(con, [logs])
        log_ids = sorted({p.log_id for p in landed.pairs if p.log_id is not None})
        derived = stats_of.derive(con, log_ids)
        stats_of.store_all(con, derived)
        fitted = stats_of.fit_from_warehouse(con, (N,), log_ids, {N: PLAN})
    finally:
        con.close()
    path = model.write_table(workdir / "cardguess.parquet", fitted)
    fitted = model.read_table(path)  # as `mine generate cardguess --table` reads it
    player = write_module(workdir / "cardguess_player.py", fitted)
    card = validation.check(player, fitted)
    write_module(player, fitted, card)
    metadata = fitted.metadata
    (workdir / "cardguess-report.html").write_text(
        report_page.html(fitted.trees, metadata, card), encoding="utf-8"
    )
    entry = card["sizes"][str(N)]
    figures = {
        "games": games,
        "logged_mean_guesses": summary["mean_guesses"],
        "player_mean": entry["player"]["mean"],
        "player_worst": entry["player"]["worst"],
        "greedy_mean": entry["baselines"]["greedy"]["mean"],
        "entropy_mean": entry["baselines"]["entropy"]["mean"],
        "seconds": round(time.perf_counter() - started, 2),
    }
    table = Table(title=f"cardguess: {games} games of greedy vs a uniform answerer → {workdir}")
    table.add_column("step")
    table.add_column("result", justify="right")
    for step, value in (
        ("simulated games (mean guesses)", f"{games} ({summary['mean_guesses']:.3f})"),
        ("ingested logs (new / unchanged)", f"{landed.count('new')} / {landed.count('unchanged')}"),
        ("tree expects (n = 2)", f"{metadata['trees'][str(N)]['expected_guesses']:.4f}"),
        ("player, every answer: mean / worst",
         f"{figures['player_mean']:.4f} / {figures['player_worst']}"),
        ("greedy, same answers", f"{figures['greedy_mean']:.4f}"),
        ("entropy, same answers", f"{figures['entropy_mean']:.4f}"),
        ("seconds", f"{figures['seconds']:.1f}"),
    ):  # fmt: skip
        table.add_row(step, value)
    console.print(table)
    return figures

"""TwentyOne's part of `mine demo`: simulate → ingest → stats → fit → generate → validate
→ report, small but sufficient, on the demo warehouse."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.console import Console

from mine.models import tables
from mine.models import twentyone as model
from mine.pipeline.commands.twentyone import write_player
from mine.pipeline.commands.warehouse import open_warehouse
from mine.pipeline.console import interval
from mine.pipeline.reports import twentyone as report_page
from mine.pipeline.stats import twentyone as stats_of
from mine.strategies.bots.twentyone import make_bot
from mine.strategies.engines.twentyone import TwentyOneRules, simulate
from mine.strategies.engines.twentyone_chart import Strategy
from mine.strategies.validation import twentyone as validation
from mine.warehouse import ingest

GAME = "twentyone"
# Over the real logs of `examples/logs/twentyone/` (the course engine's, 2021): the demo
# ingests them first and names their logs `example_logs`.
QUERIES = {
    "Real TwentyOne rounds: the dealer's final hand by its number of cards": """
        SELECT n_cards AS cards, count(*) AS rounds,
               count(*) FILTER (WHERE total > 21) AS bust,
               count(*) FILTER (WHERE hand_class = 'Charlie') AS charlie
        FROM twentyone_dealer_hands JOIN example_logs USING (log_id) WHERE played
        GROUP BY ALL ORDER BY cards""",
    "Their players' decisions": """
        SELECT action, count(*) AS decisions,
               round(100.0 * count(*) / sum(count(*)) OVER (), 1) AS pct
        FROM twentyone_turns JOIN example_logs USING (log_id)
        WHERE player <> 'dealer' AND action <> 'Bid' GROUP BY ALL ORDER BY decisions DESC""",
}
SEATS = [
    "textbook",
    "dealer",
    "cautious",
    "random",
    "explorer:textbook:0.2",
    "explorer:dealer:0.2",
    "explorer:cautious:0.2",
    "textbook",
    "dealer",
    "random",
]


def run(db: Path, workdir: Path, console: Console) -> dict[str, Any]:
    started = time.perf_counter()
    rules = TwentyOneRules()
    logs = workdir / "logs"
    simulate(rules, SEATS, games=8, seed=2021, out=logs, make_bot=make_bot)
    con = open_warehouse(db, read_only=False, create=True)
    try:
        summary = ingest.ingest(con, [logs], game=GAME)
        computed = stats_of.compute(con, rules)
        stats_of.store_all(con, computed)
        data = stats_of.fit_data(con)
    finally:
        con.close()
    fitted = model.fit(data)
    table_path = tables.write(workdir / "twentyone-table.parquet", fitted.table, fitted.metadata)
    chart, bids = fitted.solved.chart, model.bids_from_frame(fitted.table)
    strategy = Strategy(chart, tuple(bids), tuple(fitted.count_charts), fitted.metadata)
    player = workdir / "twentyone_player.py"
    write_player(player, strategy, rules=rules, hands=50_000, seed=0)
    result = validation.validate(
        player, rules, hands=300_000, games=4, seed=0, exact=False, shoe_hands=300_000
    )
    (workdir / "twentyone-report.html").write_text(
        report_page.html(
            chart,
            bids,
            fitted.metadata,
            computed["dealer"][0],
            computed["count_results"][0],
            fitted.count_charts,
        ),
        encoding="utf-8",
    )
    flat = result["flat_bet"]
    check = computed["settlement"][0].row(0, named=True)
    figures = {
        "logs": summary.count("new") + summary.count("unchanged"),
        "hands": fitted.metadata["hands"],
        "settlement_match_rate": check["match_rate"],
        "learned": {
            k: fitted.metadata["learned"][k] for k in ("decks", "dealer_rule", "player_card_limit")
        },
        "player_flat_return": flat["player"],
        "exact_optimum_infinite_deck": flat["exact_optimum"]["infinite_deck"],
        "textbook_flat_return": flat["baselines"]["textbook"]["return"],
        "beats_every_baseline_95": flat["beats_every_baseline_95"],
        "mean_rank_in_games": result["games"]["players"]["player"]["mean_rank"],
        "invalid_actions": result["invalid_actions"],
        "decision_p99_seconds": result["decision_p99_seconds"],
        "decision_p99_cpu_seconds": result["decision_p99_cpu_seconds"],
        "table": str(table_path),
        "player": str(player),
        "seconds": time.perf_counter() - started,
    }
    console.print(
        f"twentyone: {figures['hands']:,} hands from {figures['logs']} logs; settlement matches "
        f"{check['match_rate']:.2%} of player-rounds; learned {figures['learned']}"
    )
    console.print(
        f"generated {player.name}: flat-bet {interval(flat['player'])} per unit of bid "
        f"(exact optimum {figures['exact_optimum_infinite_deck']:+.4f}; textbook "
        f"{interval(flat['baselines']['textbook']['return'])}); mean rank "
        f"{figures['mean_rank_in_games']:.2f} of 10 in 4 games; invalid actions "
        f"{figures['invalid_actions']}; "
        f"p99 decision {figures['decision_p99_seconds'] * 1e6:.0f} µs "
        f"(CPU {figures['decision_p99_cpu_seconds'] * 1e6:.0f} µs) "
        f"({figures['seconds']:.0f} s)"
    )
    shoe = result["continuous_shoe"]
    figures["count_play_gain"] = shoe["gain_over_static_optimum"]
    console.print(
        f"count play: {shoe['count_cells']} cells change with the count; on "
        f"{shoe['hands']:,} hands of continuous shoes it gains "
        f"{interval(shoe['gain_over_static_optimum'], '{:+.4f}')} per unit of bid over the "
        "static optimal chart (`mine validate --shoe-hands 10000000` for a tight interval)"
    )
    return figures

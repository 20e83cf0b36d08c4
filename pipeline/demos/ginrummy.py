"""Gin Rummy's part of `mine demo`: simulate → ingest → stats → fit → generate → validate
→ report, small but sufficient, through the commands a user runs, on the demo warehouse
(the real server logs already in).

Two matches of bots play; the tables are fitted from those logs only (`--logs`), the
generated player is measured against simple and random, and the report draws every log
of the warehouse, the real ones included. Runs again unchanged: the same seeds write the
same logs, which ingest skips.
"""

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
LOOP = (
    "simulate ginrummy --players simple,explorer --games 20 --seed 2024 --out {out}/logs",
    "simulate ginrummy --players ginhunter,simple --games 20 --seed 2025 --out {out}/logs",
    "ingest {out}/logs --db {db}",
    "stats ginrummy --db {db} --logs {out}/logs/*",
    "fit ginrummy --db {db} --logs {out}/logs/* --out {out}/ginrummy-table.parquet",
    "generate ginrummy --table {out}/ginrummy-table.parquet --out {out}/ginrummy_player.py "
    "--games 30 --seed 1",
    "validate ginrummy {out}/ginrummy_player.py --games 20 --baselines simple,random",
    "report ginrummy --table {out}/ginrummy-table.parquet --db {db} "
    "--out {out}/ginrummy-report.html",
)

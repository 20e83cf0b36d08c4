"""Super-Nim's part of `mine demo`: simulate → ingest → stats → fit → generate → validate →
report, through the commands a user runs, on the demo warehouse.

The baselines play each other from random start boards; the heuristic is fitted from
those logs only; the generated player is then measured against the baselines. Runs again
unchanged: the same seed writes the same logs, which ingest skips.
"""

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
LOOP = (
    "simulate supernim --players random,greedy,alphabeta:1,alphabeta:2 --games 60 --seed 0 "
    "--out {out}/logs",
    "ingest {out}/logs --db {db}",
    "stats supernim --db {db} --logs {out}/logs/*",
    "fit supernim --db {db} --logs {out}/logs/* --out {out}/supernim-table.parquet",
    "generate supernim --table {out}/supernim-table.parquet --out {out}/supernim_player.py "
    "--check-games 40",
    "validate supernim {out}/supernim_player.py --games 40 --baselines random,greedy,alphabeta:2 "
    "--equal-depth 0",
    "report supernim --table {out}/supernim-table.parquet --db {db} --logs {out}/logs/* "
    "--out {out}/supernim-report.html",
)

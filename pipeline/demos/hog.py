"""Hog's part of `mine demo`: simulate → ingest → stats → fit → generate → validate →
report, through the commands a user runs, on the demo warehouse.

A population of bots plays always_roll:6; both tables are fitted from those logs only (the
best response to always_roll:6, and the minimax table); the generated players are then
measured exactly. Runs again unchanged: the same seed writes the same logs, which ingest
skips.
"""

QUERIES: dict[str, str] = {}  # Hog has no example logs
LOOP = (
    "simulate hog --players square_strategy,tail_strategy,always_roll:4,random:1 "
    "--opponent always_roll:6 --games 5000 --seed 0 --out {out}/logs",
    "ingest {out}/logs --db {db}",
    "stats hog --db {db} --logs {out}/logs/*",
    "fit hog --method best-response --opponent always_roll:6 --db {db} --logs {out}/logs/* "
    "--out {out}/best-response.parquet",
    "generate hog --table {out}/best-response.parquet --out {out}/hog_best_response.py",
    "validate hog {out}/hog_best_response.py",
    "report hog --table {out}/best-response.parquet --out {out}/hog-best-response.html",
    "fit hog --method minimax --db {db} --logs {out}/logs/* --out {out}/minimax.parquet",
    "generate hog --table {out}/minimax.parquet --out {out}/hog_minimax.py",
    "validate hog {out}/hog_minimax.py",
)

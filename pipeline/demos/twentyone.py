"""TwentyOne's part of `mine demo`: simulate → ingest → stats → fit → generate → validate
→ report, small but sufficient, through the commands a user runs, on the demo warehouse.

Ten bots (textbook play, the dealer's rule, cautious, random, and explorers that stray
from the first three) play 8 games of 1,000 rounds; the table is fitted from those logs
only, and its player is measured against the baselines, on continuous shoes, and in full
games. Runs again unchanged: the same seed writes the same logs, which ingest skips.
"""

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
SEATS = (
    "textbook,dealer,cautious,random,explorer:textbook:0.2,explorer:dealer:0.2,"
    "explorer:cautious:0.2,textbook,dealer,random"
)
LOOP = (
    f"simulate twentyone --players {SEATS} --games 8 --seed 2021 --out {{out}}/logs",
    "ingest {out}/logs --db {db}",
    "stats twentyone --db {db} --logs {out}/logs/*",
    "fit twentyone --db {db} --logs {out}/logs/* --out {out}/twentyone-table.parquet",
    "generate twentyone --table {out}/twentyone-table.parquet --out {out}/twentyone_player.py "
    "--hands 50000",
    "validate twentyone {out}/twentyone_player.py --hands 300000 --shoe-hands 300000 --games 4",
    "report twentyone --table {out}/twentyone-table.parquet --out {out}/twentyone-report.html "
    "--db {db} --logs {out}/logs/*",
)

"""Card guessing's part of `mine demo`: simulate → ingest → stats → fit → generate →
validate → report, for two-card answers, through the commands a user runs, on the demo
warehouse.

The greedy guesser plays a uniform answerer; the tree is fitted from those logs only
(`--quick`: seconds, and still below greedy) and the generated file plays every two-card
answer against greedy and entropy. Runs again unchanged: the same seed writes the same
logs, which ingest skips.
"""

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
LOOP = (
    "simulate cardguess --n 2 --games 500 --players greedy --seed 0 --out {out}/logs",
    "ingest {out}/logs --db {db}",
    "stats cardguess --db {db} --logs {out}/logs/*",
    "fit cardguess --n 2 --quick --db {db} --logs {out}/logs/* --out {out}/cardguess.parquet",
    "generate cardguess --table {out}/cardguess.parquet --out {out}/cardguess_player.py",
    "validate cardguess {out}/cardguess_player.py --n 2",
    "report cardguess --table {out}/cardguess.parquet --out {out}/cardguess-report.html",
)

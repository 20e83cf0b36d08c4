"""`mine <verb> hog`: options, the layers that do the work, what is printed.

Everything downstream of `mine ingest` reads the warehouse (`hog_turns`, `hog_games`),
never the log files: the same path whether the logs came from a server or from
`mine simulate hog`. `--logs GLOB` narrows stats and fit to the logs ingested from
matching files, so one warehouse can hold several rule variants.
"""

from __future__ import annotations

from mine.pipeline import options
from mine.pipeline.options import own
from mine.pipeline.stats.hog import BUCKET
from mine.strategies.bots.hog import BASELINES
from mine.strategies.engines.hog import HogRules

BOTS = ",".join(BASELINES)  # a tournament's bots unless --bots says otherwise


OPTIONS = {
    "simulate": {
        "games": (options.games("Games per match."), 1000),
        "players": (options.players("Bots, comma-separated (always_roll:6, tail_strategy, "
                                    "square_strategy:12:6, random:SEED); every pair plays a "
                                    "match, unless --opponent is given."),
                    "always_roll:6,square_strategy"),
    },
    "stats": {
        "bucket": own(int, "--bucket", BUCKET, "Width of the win-rate score buckets.", min=1)
    },
    "fit": {
        "method": own(str, "--method", "best-response",
                      "best-response (to the logged players) or minimax."),
        "opponent": own(str | None, "--opponent", None,
                        "Best-respond to this logged player id only (default: every one)."),
    },
}  # fmt: skip
ABOUT = {
    "simulate": "Play matches between Hog bots and write <stem>.csv + <stem>-score.csv per match.",
    "stats": "Derive Hog's statistics from the warehouse and store them as stats_hog_* tables: "
    "points by number of dice (Sow Sad), Pig Tail, Square Swine, win rates by state and k.",
    "fit": "Fit a Hog table from the warehouse: learn the rules and the players, solve exactly.",
    "generate": "Generate a single-file, standard-library-only Hog player from a table.",
    "validate": "Exact win rates of a player against every baseline and the optimal strategy "
    "(and --against another file), in the rules the module states (RULES, else goal = its "
    "table's size) with --rules over them.",
    "report": "Write one self-contained HTML page: the table as a heat map, its exact win "
    "rates and its provenance.",
}


def tournament(
    files: options.PlayerFiles = None,
    bots: options.bots("always_roll:N, tail_strategy, square_strategy, random, …") = BOTS,
    games: options.games("Weight of each pairing in the ratings (its win rates are exact).") = 100,
    seed: options.Seed = 0,
    workers: options.Workers = 1,
    rules: options.Rules = None,
    cluster: options.Cluster = None,
    as_json: options.Json = False,
    html: options.Html = None,
) -> None:
    """A round robin of player files and bots: every pairing's exact win rate (each side
    moving first half the time), Elo-style ratings, faults; in the default rules with
    --rules over them."""
    from mine.pipeline.commands import tournament as shared
    from mine.strategies.tournament.match import Context

    context = Context(options.game_rules(HogRules, rules))
    shared.run("hog", files, bots, games, seed, workers, context, as_json, html, cluster)

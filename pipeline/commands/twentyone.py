"""`mine <verb> twentyone`: options, the layers that do the work, what is printed.

Everything downstream of `mine ingest` reads the warehouse (`twentyone_turns`,
`twentyone_scores`), never the log files; `--logs GLOB` narrows stats and fit (and the
report's observed outcomes) to the logs ingested from matching files.
"""

from __future__ import annotations

from typing import Annotated

import typer

from mine.pipeline import options
from mine.pipeline.console import fail
from mine.pipeline.options import own
from mine.strategies.bots.twentyone import BOTS
from mine.strategies.engines.twentyone import TwentyOneRules

SEED = (options.Seed, 0)
OPTIONS = {
    "simulate": {
        "games": (options.games("Games to play (one file pair each)."), 10),
        "players": (options.players(f"Bots, comma-separated, one per seat: {', '.join(BOTS)}; "
                                    "explorer:POLICY:SHARE (explorer:textbook:0.1)."),
                    "textbook,dealer,cautious,random,explorer"),
        "me": own(int, "--me", 0, "The player (index in --players) whose point of view the "
                  "logs take.", min=0, max=9),
    },
    "stats": {"rules": (options.Rules, None)},
    "generate": {
        "rules": (options.Rules, None),
        "hands": (options.hands("Hands for the docstring's flat-bet figure."), 200_000),
        "seed": SEED,
    },
    "validate": {
        "hands": (options.hands("Hands for the flat-bet returns."), 2_000_000),
        "shoe_hands": (
            options.hands(
                "Hands on continuous shoes for the count play, paired against the static "
                "optimal chart (0: none).",
                minimum=0,
                flag="--shoe-hands",
            ),
            1_000_000,
        ),
        "games": (options.games("Full games at a table of baselines.", minimum=0), 100),
        "seed": SEED,
    },
    "report": {
        "fmt": own(str, "--format", "html",
                   "html (the report) or csv (the chart: one row per context and situation)."),
    },
}  # fmt: skip
ABOUT = {
    "simulate": "Play TwentyOne games between bots at one table; write <stem>.csv + "
    "<stem>-score.csv per game.",
    "stats": "Derive TwentyOne statistics from the warehouse and store them as "
    "stats_twentyone_* (`--by player`: each player id's habits, and its choices against a "
    "fitted chart), settling the hands by the rules (--rules over the defaults).",
    "fit": "Fit TwentyOne action and bid tables: learn the game from the logs, then solve it.",
    "generate": "Generate a single-file, standard-library-only TwentyOne player from a table.",
    "validate": "Measure a player file: flat-bet return vs baselines and the exact optimum, "
    "count play on continuous shoes, full games, invalid actions and decision times; with "
    "--against, another file on the same cards and head to head at one table.",
    "report": "Write the table's report: one self-contained HTML page (the strategy as grids, "
    "play by the count, insurance, the bid table and, from the warehouse if there is one, the "
    "dealer's outcomes by up card and results by count), or the chart as CSV.",
}


def tournament(
    files: options.PlayerFiles = None,
    bots: options.bots(
        "textbook, dealer, cautious, random, explorer, …"
    ) = "textbook,dealer,random",
    games: options.games("Games per pairing (even: each shoe from both seats).", 2) = 20,
    seed: options.Seed = 0,
    workers: options.Workers = 1,
    rules: options.Rules = None,
    table_bots: Annotated[
        str,
        typer.Option("--table-bots", help="Bots that sit at every table beside the pair."),
    ] = "",
    cluster: options.Cluster = None,
    as_json: options.Json = False,
    html: options.Html = None,
) -> None:
    """A round robin of player files and bots: each pairing plays full games at one table
    (with --table-bots), each shoe from both seats; who ranks higher, point margins with
    95 % intervals, Elo-style ratings, invalid actions and faults per player."""
    from mine.pipeline.commands import tournament as shared
    from mine.strategies.tournament.match import Context, Match

    game_rules = options.game_rules(TwentyOneRules, rules)
    table = Context(game_rules, tuple(options.names(table_bots)))
    try:
        for spec in table.bots:
            Match("twentyone").check_bot(spec, table)
    except ValueError as error:
        raise fail(str(error), 2) from None
    if len(table.bots) + 2 > game_rules.max_players:
        raise fail(
            f"--table-bots: a table seats {game_rules.max_players} players, the pair included", 2
        )
    shared.run("twentyone", files, bots, games, seed, workers, table, as_json, html, cluster)

"""`mine <verb> ginrummy`: options, the layers that do the work, what is printed.

`simulate`, `stats`, `fit`, `generate`, `validate` and `report` are the loop's commands
(`pipeline/commands/loop.py`) with Gin Rummy's own options: simulate's bots and `--me`,
`fit --source` (all, simulated or server logs, with `--logs` or without), the games, seed
and rules that measure a generated file, and the games, seed, baselines and workers of
`validate`. `tournament` is Gin Rummy's own (its rules).
"""

from __future__ import annotations

from mine.pipeline import options
from mine.pipeline.options import own
from mine.strategies.bots.ginrummy import BASELINES as BASELINE_BOTS
from mine.strategies.engines.ginrummy import GinRummyRules

BOT_NAMES = "simple, random, ginhunter, explorer, explorer:<share>, explorer:<policy>:<share>"
BASELINES = ",".join(BASELINE_BOTS)

OPTIONS = {
    "simulate": {
        "games": (options.games("Games per pairing (each deal from both seats)."), 100),
        "players": (options.players(f"Bots, comma-separated ({BOT_NAMES}): every pair plays "
                                    "one match."), "simple,explorer"),
        "me": (options.Me, 0),
    },
    "fit": {
        "source": own(str, "--source", "all", "Logs to fit from: all, simulated or server."),
    },
    "generate": {
        "games": (options.games("Games against simple for the docstring's figures.",
                                minimum=0), 100),
        "seed": (options.Seed, 0),
        "rules": (options.Rules, None),
    },
    "validate": {
        "games": (options.games("Games against each baseline."), 1000),
        "seed": (options.Seed, 0),
        "opponents": (options.baselines("Baselines, comma-separated (simple, random, "
                                        "ginhunter, …)."), BASELINES),
        "workers": (options.Workers, 2),
    },
    "report": {
        "games": (options.games("Without --card: games against each baseline behind the "
                                "page's strength section.", minimum=1), 40),
        "opponents": (options.baselines("Without --card: the baselines the page's player "
                                        "plays, comma-separated."), BASELINES),
    },
}  # fmt: skip
ABOUT = {
    "simulate": "Play Gin Rummy games between bots; write <stem>.csv + <stem>-score.csv per "
    "game, from --me's seat.",
    "stats": "Derive Gin Rummy statistics from the warehouse and store them there "
    "(stats_ginrummy_*; `--by player`: each player's habits, and its knocks against a fitted "
    "knock policy).",
    "fit": "Fit the danger, draw and knock tables from the warehouse's Gin Rummy logs.",
    "generate": "Generate a single-file, standard-library-only Gin Rummy player from fitted "
    "tables.",
    "validate": "Full games to the target against each baseline (and --against another file), "
    "seats alternating: win rate with its 95 % interval, points per round, how rounds end, "
    "invalid plays and call times.",
    "report": "One self-contained HTML page: the knock policy, the danger grid, what the "
    "opponent throws, and with a warehouse its draw statistics (real logs' included) and "
    "how rounds end; the tables' provenance.",
}


def tournament(
    files: options.PlayerFiles = None,
    bots: options.bots("simple, random, ginhunter, explorer:POLICY:SHARE") = BASELINES,
    games: options.games("Games per pairing (even: each deal from both seats).", 2) = 100,
    seed: options.Seed = 0,
    workers: options.Workers = 2,
    rules: options.Rules = None,
    cluster: options.Cluster = None,
    as_json: options.Json = False,
    html: options.Html = None,
) -> None:
    """A round robin of player files and bots: full games to the target, each deal played
    from both seats; win rates and point margins with 95 % intervals, Elo-style ratings,
    invalid plays and faults per player."""
    from mine.pipeline.commands import tournament as shared
    from mine.strategies.tournament.match import Context

    context = Context(options.game_rules(GinRummyRules, rules))
    shared.run("ginrummy", files, bots, games, seed, workers, context, as_json, html, cluster)

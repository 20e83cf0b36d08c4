"""`mine <verb> hog`: options, the layers that do the work, what is printed.

Everything downstream of `mine ingest` reads the warehouse (`hog_turns`, `hog_games`),
never the log files: the same path whether the logs came from a server or from
`mine simulate hog`. `--logs GLOB` narrows stats and fit to the logs ingested from
matching files, so one warehouse can hold several rule variants.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from mine.pipeline import options
from mine.pipeline.cluster import runner
from mine.pipeline.console import fail, next_step, print_json, show
from mine.pipeline.options import own
from mine.pipeline.progress import per_name
from mine.pipeline.stats.hog import BUCKET
from mine.strategies.bots.hog import BASELINES, make_bot
from mine.strategies.engines import hog as engine
from mine.strategies.engines.hog import HogRules
from mine.strategies.runners import SERIAL

BOTS = ",".join(BASELINES)  # a tournament's bots unless --bots says otherwise


LOG_BYTES_PER_GAME = 2_000  # a match's files per game, generously (about 780 measured)


OPTIONS = {
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


def simulate(
    games: options.games("Games per match.") = 1000,
    players: options.players(
        "Bots, comma-separated (always_roll:6, tail_strategy, square_strategy:12:6, "
        "random:SEED); every pair plays a match, unless --opponent is given."
    ) = "always_roll:6,square_strategy",
    opponent: Annotated[
        str | None,
        typer.Option(
            "--opponent",
            help="A bot that plays a match against each of --players (and no other match).",
        ),
    ] = None,
    seed: options.Seed = 0,
    out: options.out("Folder for the log files.") = Path("logs/hog"),
    rules: options.Rules = None,
    cluster: options.Cluster = None,
    as_json: options.Json = False,
) -> None:
    """Play matches between Hog bots and write <stem>.csv + <stem>-score.csv per match."""
    game_rules = options.game_rules(HogRules, rules)
    specs = options.names(players)
    if opponent is None and len(specs) < 2:
        raise fail("--players needs at least two bots (or one and --opponent)")
    if opponent is not None and not specs:
        raise fail("--players needs at least one bot to play --opponent")
    matches = len(specs) if opponent else len(specs) * (len(specs) - 1) // 2
    options.room_for(out, matches * games * LOG_BYTES_PER_GAME)
    bar, progress = per_name(as_json)
    try:
        with bar, runner(cluster, SERIAL) as running:
            summary = engine.simulate(
                game_rules, specs, games, seed, out,
                make_bot=make_bot, progress=progress, opponent=opponent, runner=running,
            )  # fmt: skip
    except ValueError as error:  # an unknown bot, or one whose choices are not dice here
        raise fail(str(error)) from None
    except OSError as error:
        raise fail(f"cannot write the logs into {out}: {error.strerror}") from None
    if as_json:
        print_json({"rules": asdict(game_rules), "seed": seed, "out": str(out), "matches": summary})
        return
    show(
        [{**m, "a": m["wins"][m["players"][0]], "b": m["wins"][m["players"][1]]} for m in summary],
        f"hog matches → {out}",
        {"stem": "match", "games": "games", "a": "wins A", "b": "wins B", "rows": "turn rows"},
    )
    next_step(f"mine ingest {out}")


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

    game_rules = options.game_rules(HogRules, rules)
    shared.run("hog", files, bots, games, seed, workers, game_rules, as_json, html, cluster)

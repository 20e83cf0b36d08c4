"""`mine <verb> supernim`: options, the layers that do the work, what is printed.

Everything downstream of `mine ingest` reads the warehouse (`supernim_moves`,
`supernim_games` and their views), never the log files. `--logs GLOB` narrows stats and
fit to the logs ingested from matching files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mine.pipeline import options
from mine.pipeline.cluster import runner
from mine.pipeline.console import fail, next_step, print_json, show
from mine.pipeline.options import own
from mine.pipeline.progress import per_name
from mine.strategies.bots.supernim import BASELINES, make_bot
from mine.strategies.engines import supernim as engine
from mine.strategies.players.supernim import DEPTH
from mine.strategies.runners import SERIAL
from mine.strategies.validation.supernim import CHECK_GAMES

Start = Annotated[
    str,
    typer.Option(
        "--start", help="The start board (heap sizes like 2,4,2,3), or random: 3-6 heaps of 1-10."
    ),
]

OPTIONS = {
    "stats": {"rules": (options.Rules, None)},
    "fit": {"rules": (options.Rules, None)},
    "generate": {
        "budget": own(float, "--budget", 0.2, "Seconds per move at most (≤ 1).", min=0.01, max=1.0),
        "depth": own(int, "--depth", DEPTH, "Search depth cap (plies).", min=1, max=8),
        "games": own(int, "--check-games", CHECK_GAMES,
                     "Games per opponent behind the docstring's figures.", min=4),
    },
    "validate": {
        "games": (options.games("Games per opponent (random start boards, both first movers).",
                                2), 1000),
        "baselines": (options.baselines("Opponents, comma-separated."), ",".join(BASELINES)),
        "equal_depth": own(int, "--equal-depth", 3,
                           "Also play the file's search at this depth against alphabeta at the "
                           "same depth (its heuristic against the plain one); 0: skip.",
                           min=0, max=8),
        "four_fields": own(bool, "--four-fields", False,
                           "Ask the file with the handout's four fields only (ai_move(state)), "
                           "not with the moves left."),
        "seed": (options.Seed, 0),
        "workers": (options.Workers, 1),
    },
    "report": {
        "card": own(Path | None, "--card", None,
                    "A `mine validate supernim --json` result to draw."),
        "games": (options.games("Without --card: games against each baseline behind the "
                                "page's strength section."), 40),
    },
}  # fmt: skip
ABOUT = {
    "stats": "Derive Super-Nim's statistics and store them as stats_supernim_* tables: outcomes "
    "by pairing and start board, position values, outcomes by move kind, score trajectories.",
    "fit": "Fit Super-Nim's heuristic from the warehouse: fitted value iteration over the "
    "logged boards' feature cells, checked against the exact value on held-out positions.",
    "generate": "Generate a single-file, standard-library-only Super-Nim player from a table.",
    "validate": "Play a player file against the baselines (and --against another file) from "
    "random start boards, both sides: win/draw/loss with 95 % intervals, cut-offs, margin, "
    "invalid moves, p99 move time, and results against the exact value.",
    "report": "Write one self-contained HTML page: win rates by pairing (logs) and of the player "
    "(its validation card), score trajectories, position values, and the table's provenance.",
}


def _start_board(start: str) -> tuple[int, ...] | None:
    if start == "random":
        return None
    try:
        return engine.parse_board(start)
    except ValueError as error:
        raise fail(str(error)) from None


def simulate(
    games: options.games("Games per pairing (first movers alternate).") = 100,
    players: options.players(
        "Bots, comma-separated (random, greedy, alphabeta:D): every pair plays one match, "
        "the first named as max."
    ) = "random,alphabeta:3",
    start: Start = "random",
    seed: options.Seed = 0,
    out: options.out("Folder for the log files.") = Path("logs/supernim"),
    rules: options.Rules = None,
    cluster: options.Cluster = None,
    as_json: options.Json = False,
) -> None:
    """Play Super-Nim matches between bots and write <stem>.csv + <stem>-score.csv each."""
    game_rules = options.game_rules(engine.RULES, rules)
    specs = options.names(players)
    if len(specs) < 2:
        raise fail("--players needs at least two bots (a bot may play itself: random,random)")
    board = _start_board(start)
    bar, advance = per_name(as_json)
    try:
        with bar, runner(cluster, SERIAL) as running:
            summary = engine.simulate(game_rules, specs, games, seed, out, progress=advance,
                                      make_bot=make_bot, start=board, runner=running)  # fmt: skip
    except ValueError as error:
        raise fail(str(error)) from None
    except OSError as error:
        raise fail(f"cannot write the logs into {out}: {error.strerror}") from None
    if as_json:
        print_json(summary)
        return
    show(summary["matches"], f"supernim matches → {out}")
    next_step(f"mine ingest {out}")


def tournament(
    files: options.PlayerFiles = None,
    bots: options.bots("random, greedy, alphabeta:D") = "random,greedy,alphabeta:2",
    games: options.games("Games per pairing (even: each board from both seats).", 2) = 100,
    seed: options.Seed = 0,
    workers: options.Workers = 1,
    cluster: options.Cluster = None,
    as_json: options.Json = False,
    html: options.Html = None,
) -> None:
    """A round robin of player files and bots from random start boards, each board played
    from both seats: win rates and score margins with 95 % intervals, Elo-style ratings,
    invalid moves and faults per player."""
    from mine.pipeline.commands import tournament as shared

    shared.run("supernim", files, bots, games, seed, workers, None, as_json, html, cluster)

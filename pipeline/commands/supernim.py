"""`mine <verb> supernim`: options, the layers that do the work, what is printed.

Everything downstream of `mine ingest` reads the warehouse (`supernim_moves`,
`supernim_games` and their views), never the log files. `--logs GLOB` narrows stats and
fit to the logs ingested from matching files.
"""

from __future__ import annotations

from typing import Annotated

import typer

from mine.pipeline import options
from mine.pipeline.options import own
from mine.strategies.bots.supernim import BASELINES
from mine.strategies.engines import supernim as engine
from mine.strategies.players.supernim import DEPTH
from mine.strategies.validation.supernim import CHECK_GAMES


class Board(tuple):
    """A start board from the command line: heap sizes like 2,4,2,3, or random (None)."""


def _board(start: str) -> Board | None:
    if start == "random":
        return None
    try:
        return Board(engine.parse_board(start))
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None


OPTIONS = {
    "simulate": {
        "games": (options.games("Games per pairing (each board from both sides)."), 100),
        "players": (options.players("Bots, comma-separated (random, greedy, alphabeta:D, "
                                    "exact): every pair plays one match, the first named as "
                                    "max."), "random,alphabeta:3"),
        "board": (Annotated[Board | None, typer.Option(
            "--start", parser=_board, metavar="BOARD",
            help="The start board (heap sizes like 2,4,2,3), or random: 3-6 heaps of 1-10.",
        )], "random"),
    },
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
        "games": (options.games("Without --card: games against each baseline behind the "
                                "page's strength section."), 40),
    },
}  # fmt: skip
ABOUT = {
    "simulate": "Play Super-Nim matches between bots and write each as <stem>.csv + "
    "<stem>-score.csv.",
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

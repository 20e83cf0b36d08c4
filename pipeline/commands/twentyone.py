"""`mine <verb> twentyone`: options, the layers that do the work, what is printed.

Everything downstream of `mine ingest` reads the warehouse (`twentyone_turns`,
`twentyone_scores`), never the log files; `--logs GLOB` narrows stats and fit (and the
report's observed outcomes) to the logs ingested from matching files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.text import Text

from mine.pipeline import options
from mine.pipeline.cluster import runner
from mine.pipeline.console import errors, fail, next_step, print_json, show
from mine.pipeline.options import own
from mine.pipeline.progress import bar as progress_bar
from mine.strategies.bots.twentyone import BOTS, make_bot
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.strategies.engines.twentyone import simulate as play_games
from mine.strategies.runners import SERIAL

LOG_BYTES_PER_DECISION = 200  # a round's rows of one seat, generously (about 140 measured)
SEED = (options.Seed, 0)
OPTIONS = {
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


def simulate(
    games: options.games("Games to play (one file pair each).") = 10,
    players: options.players(
        f"Bots, comma-separated, one per seat: {', '.join(BOTS)}; "
        "explorer:POLICY:SHARE (explorer:textbook:0.1)."
    ) = "textbook,dealer,cautious,random,explorer",
    seed: options.Seed = 0,
    out: options.out("Folder for the log files.") = Path("logs/twentyone"),
    me: options.Me = 0,
    rules: options.Rules = None,
    cluster: options.Cluster = None,
    as_json: options.Json = False,
) -> None:
    """Play TwentyOne games between bots; write <stem>.csv + <stem>-score.csv per game."""
    game_rules = options.game_rules(TwentyOneRules, rules)
    specs = options.names(players)
    if not 1 <= len(specs) <= game_rules.max_players:
        raise fail(f"--players needs 1 to {game_rules.max_players} bots, got {len(specs)}")
    if me >= len(specs):
        raise fail(f"--me {me} is not a seat (0..{len(specs) - 1})")
    try:
        for spec in specs:  # a bad name fails before any file is written
            make_bot(spec, game_rules, np.random.default_rng(0))
    except ValueError as error:
        raise fail(str(error)) from None
    options.room_for(out, games * game_rules.rounds * len(specs) * LOG_BYTES_PER_DECISION)
    columns = (TextColumn("games"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with progress_bar(*columns, as_json=as_json) as bar:
        task = bar.add_task("games", total=games)
        try:
            with runner(cluster, SERIAL) as running:
                summary = play_games(
                    game_rules,
                    specs,
                    games,
                    seed,
                    out,
                    progress=lambda _, done, __: bar.update(task, completed=done),
                    make_bot=make_bot,
                    me=me,
                    runner=running,
                )
        except OSError as error:
            raise fail(f"cannot write the logs into {out}: {error.strerror}") from None
    if as_json:
        print_json(summary)
        return
    show(
        [
            {
                **row,
                "id": row["id"] + (" (me)" if row["id"] == summary["perspective"] else ""),
                "per_hand": row["net_points"] / max(row["hands"], 1),
            }
            for row in summary["players"]
        ],
        f"twentyone: {games} games, {summary['player_hands']:,} player-hands → {out}",
        {
            "id": "id",
            "bot": "bot",
            "hands": "hands",
            "net_points": "net points",
            "per_hand": "per hand",
            "games_won": "games won",
        },  # fmt: skip
        {"net_points": "{:+,}".format, "per_hand": "{:+.2f}".format},
    )
    for where, reason in summary["disqualified"].items():
        errors.print(Text.assemble(("disqualified:", "yellow"), f" {where}: {reason}"))
    next_step(f"mine ingest {out}")


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
    from mine.strategies.tournament.twentyone import Table, check_bot

    game_rules = options.game_rules(TwentyOneRules, rules)
    seated = tuple(options.names(table_bots))
    try:
        for spec in seated:
            check_bot(spec, Table(game_rules))
    except ValueError as error:
        raise fail(str(error), 2) from None
    if len(seated) + 2 > game_rules.max_players:
        raise fail(
            f"--table-bots: a table seats {game_rules.max_players} players, the pair included", 2
        )
    table = Table(game_rules, seated)
    shared.run("twentyone", files, bots, games, seed, workers, table, as_json, html, cluster)

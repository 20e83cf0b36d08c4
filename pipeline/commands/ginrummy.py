"""`mine <verb> ginrummy`: options, the layers that do the work, what is printed.

`stats`, `fit`, `generate`, `validate` and `report` are the loop's commands
(`pipeline/commands/loop.py`) with Gin Rummy's own options: `fit --source` (all,
simulated or server logs, with `--logs` or without), the games, seed and rules that
measure a generated file, and the games, seed, baselines and workers of `validate`.
`simulate` and `tournament` are Gin Rummy's own.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

from mine.pipeline import options
from mine.pipeline.cluster import runner
from mine.pipeline.console import console, fail, next_step, print_json, show
from mine.pipeline.options import own
from mine.pipeline.progress import bar as progress_bar
from mine.strategies.bots.ginrummy import BASELINES as BASELINE_BOTS
from mine.strategies.bots.ginrummy import make_bot
from mine.strategies.engines.ginrummy import GinRummyRules
from mine.strategies.engines.ginrummy import simulate as play_games
from mine.strategies.runners import SERIAL

BOT_NAMES = "simple, random, ginhunter, explorer, explorer:<share>, explorer:<policy>:<share>"
BASELINES = ",".join(BASELINE_BOTS)
PROGRESS = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn())  # fmt: skip


LOG_BYTES_PER_GAME = 20_000  # both files, generously (about 5 kB measured)

OPTIONS = {
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


def _bots(names: list[str], rules: GinRummyRules) -> None:
    """Fail with one line, before anything runs, if a bot name is bad."""
    try:
        for name in names:
            make_bot(name, rules, np.random.default_rng(0))
    except ValueError as error:
        raise fail(str(error)) from None


def simulate(
    games: options.games("Number of games.") = 100,
    players: options.players(f"The two bots, comma-separated: {BOT_NAMES}.") = "simple,explorer",
    seed: options.Seed = 0,
    out: options.out("Folder for the log files.") = Path("logs/ginrummy"),
    me: options.Me = 0,
    rules: options.Rules = None,
    cluster: options.Cluster = None,
    as_json: options.Json = False,
) -> None:
    """Play games between two bots; write <stem>.csv + <stem>-score.csv per game."""
    game_rules = options.game_rules(GinRummyRules, rules)
    if game_rules.hand_size != 10:
        raise fail("the log format holds 10-card hands; hand_size must stay 10 to write logs")
    specs = options.names(players)
    if len(specs) != 2:
        raise fail(f"--players needs exactly two bots, not {players!r}")
    if me > 1:
        raise fail(f"--me {me} is not a player (0 or 1)")
    _bots(specs, game_rules)
    options.room_for(out, games * LOG_BYTES_PER_GAME)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise fail(f"cannot create {out}: {error.strerror}") from None
    with progress_bar(*PROGRESS, as_json=as_json) as bar:
        task = bar.add_task(f"{specs[0]} vs {specs[1]}", total=games)
        try:
            with runner(cluster, SERIAL) as running:
                summary = play_games(game_rules, specs, games, seed, out,
                                     progress=lambda: bar.advance(task), make_bot=make_bot,
                                     me=me, runner=running)  # fmt: skip
        except OSError as error:
            raise fail(f"cannot write the logs to {out}: {error.strerror}") from None
    if as_json:
        print_json(summary)
        return
    wins = summary["wins"]
    show(
        [{"seat": str(seat), "bot": spec, "wins": wins[seat]} for seat, spec in enumerate(specs)],
        f"ginrummy: {games:,} games → {out}",
    )
    endings = summary["endings"]
    console.print(
        f"{summary['rounds']:,} rounds: {endings['Gin']:,} gin, {endings['Knock']:,} knock, "
        f"{endings['Drop']:,} stock-out; {summary['invalid']:,} games ended by an invalid play"
    )
    next_step(f"mine ingest {out}")


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

    game_rules = options.game_rules(GinRummyRules, rules)
    shared.run("ginrummy", files, bots, games, seed, workers, game_rules, as_json, html, cluster)

"""`mine <verb> supernim`: options, the layers that do the work, what is printed.

Everything downstream of `mine ingest` reads the warehouse (`supernim_moves`,
`supernim_games` and their views), never the log files. `--logs GLOB` narrows stats and
fit to the logs ingested from matching files.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from mine.models import supernim as model
from mine.pipeline import options
from mine.pipeline.commands.warehouse import working_on
from mine.pipeline.console import (
    console,
    fail,
    interval,
    next_step,
    print_json,
    read_fitted,
    show,
    show_pairs,
    write_fitted,
    write_report,
)
from mine.pipeline.progress import per_name, working
from mine.pipeline.reports import supernim as report_page
from mine.pipeline.stats import supernim as stats_of
from mine.strategies.bots.supernim import BASELINES, factory
from mine.strategies.contained import PlayerFault
from mine.strategies.engines.supernim import SuperNimRules, parse_board, run_match
from mine.strategies.validation import supernim as validation

ALL_BASELINES = ",".join(BASELINES)
Start = Annotated[
    str,
    typer.Option(
        "--start", help="The start board (heap sizes like 2,4,2,3), or random: 3-6 heaps of 1-10."
    ),
]


def _start_board(start: str) -> tuple[int, ...] | None:
    if start == "random":
        return None
    try:
        return parse_board(start)
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
    as_json: options.Json = False,
) -> None:
    """Play Super-Nim matches between bots and write <stem>.csv + <stem>-score.csv each."""
    game_rules = options.game_rules(SuperNimRules, rules)
    specs = options.names(players)
    if len(specs) < 2:
        raise fail("--players needs at least two bots (a bot may play itself: random,random)")
    board = _start_board(start)
    try:
        bots = {spec: factory(spec) for spec in specs}
    except ValueError as error:
        raise fail(str(error)) from None
    pairs = [(a, b) for k, a in enumerate(specs) for b in specs[k + 1 :]]
    bar, advance = per_name(as_json)
    summary = []
    try:
        with bar:
            for number, (a, b) in enumerate(pairs):
                factories = ((a, bots[a]), (b, bots[b]))
                summary.append(
                    run_match(factories, games, board, seed + number, game_rules, out, advance)
                )
    except OSError as error:
        raise fail(f"cannot write the logs into {out}: {error.strerror}") from None
    if as_json:
        print_json({"rules": asdict(game_rules), "seed": seed, "out": str(out), "matches": summary})
        return
    show(summary, f"supernim matches → {out}")
    next_step(f"mine ingest {out}")


def stats(
    db: options.Db = None,
    logs: options.Logs = None,
    as_json: options.Json = False,
) -> None:
    """Derive Super-Nim's statistics and store them as stats_supernim_* tables: outcomes by
    pairing and start board, position values, outcomes by move kind, score trajectories."""
    with (
        working_on(db, read_only=False) as con,
        working("deriving Super-Nim's statistics", as_json),
    ):
        derived = stats_of.derive(con, stats_of.chosen_logs(con, logs))
        names = stats_of.store_all(con, derived)
    if as_json:
        print_json({"tables": {names[n]: t.height for n, t in derived._asdict().items()}})
        return
    rate = "{:.3f}".format
    show(
        derived.pairings.to_dicts(),
        "outcomes by pairing (max vs min)",
        formats={"max_win_rate": rate, "draw_rate": rate, "cutoff_rate": rate},
    )
    show(
        derived.parity.to_dicts(),
        "outcomes by start 2-heap parity (odd: the first mover cashes one more)",
        formats={"first_win_rate": rate},
    )
    show(
        derived.kinds.to_dicts(),
        "outcomes by move kind (final margin from the mover's side)",
        formats={"mean_final_margin": "{:+.3f}".format, "win_rate": rate},
    )
    show(
        derived.features.sort("positions", descending=True).head(12).to_dicts(),
        "position value by board features (the 12 most seen)",
        formats={"mean_future_margin": "{:+.3f}".format, "mean_final_margin": "{:+.3f}".format},
    )
    console.print(f"stored {', '.join(names.values())}")
    next_step(f"mine fit supernim{options.again(db, logs)}")


def fit(
    out: options.out("Table file to write (Parquet; its metadata beside it as .json).") = Path(
        "supernim-table.parquet"
    ),
    db: options.Db = None,
    logs: options.Logs = None,
    as_json: options.Json = False,
) -> None:
    """Fit Super-Nim's heuristic from the warehouse: a scikit-learn model on position
    features, tabulated, plus the values of the canonical boards the logs cover well."""
    with (
        working_on(db) as con,
        working("fitting the Super-Nim heuristic (and the exact yardstick)", as_json),
    ):
        positions, metadata = stats_of.fit_inputs(con, stats_of.chosen_logs(con, logs))
        fitted = model.fit(positions, metadata)
    path = write_fitted(model.write_table, out, fitted)
    if as_json:
        print_json({"table": str(path), **fitted.metadata})
        return
    meta = fitted.metadata
    show_pairs(
        f"supernim heuristic table → {path}",
        [
            ("logs / games / positions", f"{meta['logs']} / {meta['games']:,} / {meta['rows']:,}"),
            ("data fingerprint", meta["fingerprint"][:16] + "…"),
            ("model", meta["method"]),
            ("feature cells / boards", f"{meta['feature_cells']:,} / {meta['boards']:,}"),
            ("held-out R² (model)", f"{meta['r2_holdout']:.3f}"),
            ("exact yardstick boards", meta["yardstick"]["boards"]),
            ("mean |fit - exact|", f"{meta['yardstick']['mean_abs_error']:.3f}"),
            ("mean |0 - exact| (plain)", f"{meta['yardstick']['plain_mean_abs_error']:.3f}"),
        ],
    )
    next_step(f"mine generate supernim --table {path}")


def generate(
    table: options.Table,
    out: options.out("The player module to write.") = Path("supernim_player.py"),
    budget: Annotated[
        float,
        typer.Option("--budget", min=0.01, max=1.0, help="Seconds per move at most (≤ 1)."),
    ] = 0.2,
    depth: Annotated[
        int, typer.Option("--depth", min=1, max=8, help="Search depth cap (plies).")
    ] = model.DEPTH,
    check_games: Annotated[
        int,
        typer.Option(
            "--check-games", min=4, help="Games per opponent behind the docstring's figures."
        ),
    ] = validation.CHECK_GAMES,
    as_json: options.Json = False,
) -> None:
    """Generate a single-file, standard-library-only Super-Nim player from a table."""
    fitted = read_fitted(model.read_table, table)
    try:
        with working(f"writing the player and playing {check_games} games a baseline", as_json):
            card = validation.write_player(fitted, out, budget, depth, check_games)
    except (ValueError, OSError, PlayerFault) as error:
        raise fail(f"cannot generate from {table}: {error}") from None
    if as_json:
        print_json({"player": str(out), "depth": depth, "budget_seconds": budget, "card": card})
        return
    console.print(f"wrote {out} (depth {depth}, at most {budget} s a move)")
    next_step(f"mine validate supernim {out}")


def validate(
    player: options.PlayerFile,
    games: options.games("Games per opponent (random start boards, both first movers).", 2) = 1000,
    baselines: options.baselines("Opponents, comma-separated.") = ALL_BASELINES,
    equal_depth: Annotated[
        int,
        typer.Option(
            "--equal-depth",
            min=0,
            max=8,
            help="Also play the file's search at this depth against alphabeta at the same "
            "depth (its heuristic against the plain one); 0: skip.",
        ),
    ] = 3,
    seed: options.Seed = 0,
    workers: options.Workers = 1,
    against: options.Against = None,
    as_json: options.Json = False,
) -> None:
    """Play a player file against the baselines (and --against another file) from random
    start boards, both sides: win/draw/loss with 95 % intervals, cut-offs, margin, invalid
    moves, p99 move time."""
    bar, advance = per_name(as_json)
    try:
        with bar:
            card = validation.validate_player(
                player, options.names(baselines), games, seed, workers, equal_depth, advance,
                against=against,
            )  # fmt: skip
    except (ValueError, PlayerFault) as error:  # PlayerFileError, an unknown baseline
        raise fail(str(error)) from None
    if as_json:
        print_json({"player": str(player), **card})
        return
    percent = "{:.1%}".format
    rows = [
        {
            "opponent": name,
            "games": row["games"],
            "win": interval(row["win"], "{:.3f}"),
            "draw": interval(row["draw"], "{:.3f}"),
            "loss": interval(row["loss"], "{:.3f}"),
            "cutoff": row["cutoff_rate"],
            "margin": row["mean_margin"],
            "invalid": row["invalid_moves"],
            "theirs": row["opponent_invalid_moves"],
            "p99 s": row["p99_move_seconds"],
        }
        for name, row in card["against"].items()
    ]
    show(rows, f"{player} ({card['rules_text']})", formats={"cutoff": percent})


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


def report(
    table: options.Table,
    card: Annotated[
        Path | None,
        typer.Option("--card", help="A `mine validate supernim --json` result to draw."),
    ] = None,
    db: options.Db = None,
    out: options.out("The HTML file to write.") = Path("supernim-report.html"),
    as_json: options.Json = False,
) -> None:
    """Write one self-contained HTML page: win rates by pairing (logs) and of the player
    (its validation card), score trajectories, position values, and the table's provenance."""
    fitted = read_fitted(model.read_table, table)
    try:
        validation_card = validation.read_card(card) if card else None
    except ValueError as error:
        raise fail(str(error)) from None
    with (
        working_on(db) as con,
        working("reading the statistics and drawing the page", as_json),
    ):
        derived = stats_of.derive(con, stats_of.chosen_logs(con, None))
        page = report_page.html(fitted, derived, validation_card)
    write_report(out, page, as_json)

"""`mine <verb> hog`: options, the layers that do the work, what is printed.

Everything downstream of `mine ingest` reads the warehouse (`hog_turns`, `hog_games`),
never the log files: the same path whether the logs came from a server or from
`mine simulate hog`. `--logs GLOB` narrows stats and fit to the logs ingested from
matching files, so one warehouse can hold several rule variants.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer

from mine.models import hog as model
from mine.pipeline import options
from mine.pipeline.commands.warehouse import working_on
from mine.pipeline.console import (
    console,
    fail,
    next_step,
    print_json,
    read_fitted,
    show,
    show_pairs,
    write_fitted,
    write_report,
)
from mine.pipeline.progress import per_name, working
from mine.pipeline.reports import hog as report_page
from mine.pipeline.stats import hog as stats_of
from mine.strategies.bots.hog import BASELINES, parse_bot
from mine.strategies.contained import PlayerFault
from mine.strategies.engines.hog import HogRules, run_matches
from mine.strategies.validation import hog as validation

DIGITS = {str(d): str(d) for d in range(10)}
BOTS = ",".join(BASELINES)  # a tournament's bots unless --bots says otherwise


LOG_BYTES_PER_GAME = 2_000  # a match's files per game, generously (about 780 measured)


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
    as_json: options.Json = False,
) -> None:
    """Play matches between Hog bots and write <stem>.csv + <stem>-score.csv per match."""
    game_rules = options.game_rules(HogRules, rules)
    specs = options.names(players)
    if opponent is None and len(specs) < 2:
        raise fail("--players needs at least two bots (or one and --opponent)")
    if opponent is not None and not specs:
        raise fail("--players needs at least one bot to play --opponent")
    try:
        bots = [(spec, parse_bot(spec, game_rules)) for spec in specs]
        against = None if opponent is None else (opponent, parse_bot(opponent, game_rules))
    except ValueError as error:
        raise fail(str(error)) from None
    matches = len(specs) if against else len(specs) * (len(specs) - 1) // 2
    options.room_for(out, matches * games * LOG_BYTES_PER_GAME)
    bar, progress = per_name(as_json)
    try:
        with bar:
            summary = run_matches(bots, games, seed, game_rules, out, against, progress)
    except ValueError as error:  # a bot whose choices are not dice here
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


def stats(
    db: options.Db = None,
    bucket: Annotated[
        int,
        typer.Option("--bucket", min=1, help="Width of the score buckets of the win-rate table."),
    ] = stats_of.BUCKET,
    logs: options.Logs = None,
    as_json: options.Json = False,
) -> None:
    """Derive Hog's statistics from the warehouse and store them as stats_hog_* tables:
    points by number of dice (Sow Sad), Pig Tail, Square Swine, win rates by state and k."""
    with (
        working_on(db, read_only=False) as con,
        working("deriving Hog's statistics", as_json),
    ):
        derived = stats_of.derive(con, bucket, stats_of.chosen_logs(con, logs))
        names = stats_of.store_all(con, derived)
    if as_json:
        rows = {names[n]: t.height for n, t in derived._asdict().items()}
        print_json({"tables": rows, **stats_of.headline(derived)})
        return
    _print_stats(derived, bucket)
    console.print(f"stored {', '.join(names.values())}")
    next_step(f"mine fit hog{options.again(db, logs)}")


def _print_stats(derived: stats_of.HogStats, bucket: int) -> None:
    """The five tables `mine stats hog` prints: rows, title, headings, formats, caption."""
    rate = "{:.3f}".format
    headline, tail = stats_of.headline(derived), derived.pig_tail
    grid = stats_of.state_grid(derived.win_rates)
    buckets = [key for key in (grid[0] if grid else {}) if key != "score"]
    tables = (
        (stats_of.points_summary(derived.points),
         "points by number of dice (k = 0: Pig Tail; mass at 1: Sow Sad)",
         {"num_rolls": "k", "turns": "turns", "mean": "mean points", "at_1": "points = 1",
          "share": "share at 1", "most": "most points"},
         {"mean": "{:.2f}".format, "share": rate}, None),
        (stats_of.pig_tail_grid(tail),
         "Pig Tail: points of rolling 0 by the opponent's score digits (most common)",
         {"tens": "tens \\ ones", **DIGITS}, dict.fromkeys(DIGITS, _or_dot(str)),
         f"{int(tail['turns'].sum()):,} zero-dice turns; "
         f"{stats_of.pig_tail_mixed(tail)} digit pairs scored more than one way"),
        (stats_of.swine_moves(derived.square_swine), "Square Swine: totals that moved",
         {"total": "total", "new_score": "became", "bonus": "bonus", "turns": "turns",
          "opportunities": "of turns there", "share": "share"},
         {"bonus": "+{}".format, "share": rate},
         f"fired on {headline['square_swine_fired']:,} of {headline['turns']:,} turns, "
         f"{headline['square_swine_bonus_points']:,} bonus points in all"),
        (stats_of.choice_rates(derived.win_rates),
         "win rate of the mover by choice of k (all states, all players)",
         {"num_rolls": "k", "wins": "wins", "opportunities": "turns", "win_rate": "win rate"},
         {"win_rate": rate}, None),
        (grid, "win rate of the mover by score (rows) and opponent score (columns), "
         f"buckets of {bucket}", {"score": "score", **{b: b for b in buckets}},
         dict.fromkeys(buckets, _or_dot("{:.2f}".format)),
         "counts per player and k: table stats_hog_win_rates"),
    )  # fmt: skip
    for rows, title, columns, formats, caption in tables:
        show(rows, title, columns, formats, caption)


def _or_dot(fmt: Callable[[Any], str]) -> Callable[[Any], str]:
    """`fmt`, and a dot where there is no value."""
    return lambda value: "·" if value is None else fmt(value)


def fit(
    out: options.out("Table file to write (Parquet; its metadata beside it as .json).") = Path(
        "hog-table.parquet"
    ),
    method: Annotated[
        str,
        typer.Option("--method", help="best-response (to the logged players) or minimax."),
    ] = "best-response",
    opponent: Annotated[
        str | None,
        typer.Option(
            "--opponent",
            help="Best-respond to this logged player id only (default: every logged player).",
        ),
    ] = None,
    db: options.Db = None,
    logs: options.Logs = None,
    as_json: options.Json = False,
) -> None:
    """Fit a Hog table from the warehouse: learn the rules and the players, solve exactly."""
    with (
        working_on(db) as con,
        working("fitting the Hog table (learning the rules, solving)", as_json),
    ):
        chosen = stats_of.chosen_logs(con, logs)
        fitted = stats_of.fit_from_warehouse(con, method, opponent, chosen)
    path = write_fitted(model.write_table, out, fitted.table, fitted.metadata)
    if as_json:
        print_json({"table": str(path), **fitted.metadata})
        return
    metadata, learned = fitted.metadata, fitted.metadata["learned"]
    show_pairs(
        f"hog {metadata['method']} table → {path}",
        [
            ("logs / games / rows",
             f"{metadata['logs']} / {metadata['games']:,} / {metadata['rows']:,}"),
            ("data fingerprint", metadata["fingerprint"][:16] + "…"),
            ("goal", learned["goal"]),
            ("dice", f"{learned['dice_sides']} sides, fair: {learned['fair_die']}"),
            ("Sow Sad", learned["sow_sad"]),
            ("Pig Tail cells seen", learned["pig_tail_cells_observed"]),
            ("Square Swine", learned["square_swine"]),
            ("model win rate", str(metadata["model_win_rate"]["average"])),
        ],
    )  # fmt: skip
    next_step(f"mine generate hog --table {path}")


def generate(
    table: options.Table,
    out: options.out("The player module to write.") = Path("hog_player.py"),
    as_json: options.Json = False,
) -> None:
    """Generate a single-file, standard-library-only Hog player from a table."""
    strategy, metadata = read_fitted(model.read_table, table)
    try:
        with working("writing and measuring the player", as_json):
            card = validation.write_player(strategy, metadata, out)
    except (ValueError, OSError) as error:
        raise fail(f"cannot generate from {table}: {error}") from None
    if as_json:
        print_json({"player": str(out), **card})
        return
    console.print(
        f"wrote {out}: vs always_roll:6 "
        f"{card['against']['always_roll:6']['average']:.6f} (best possible "
        f"{card['best_possible_vs_always_roll_6']['average']:.6f}), guaranteed "
        f"{card['guaranteed']['average']:.6f}"
    )
    next_step(f"mine validate hog {out}")


def validate(
    player: options.PlayerFile,
    rules: options.Rules = None,
    against: options.Against = None,
    as_json: options.Json = False,
) -> None:
    """Exact win rates of a player against every baseline and the optimal strategy (and
    --against another file), in the rules the module states (RULES, else goal = its
    table's size) with --rules over them."""
    try:
        with working(f"measuring {player}", as_json):
            card, game_rules = validation.validate_player(player, rules, against=against)
    except (ValueError, PlayerFault) as error:  # the file, or rules that make no sense
        raise fail(str(error)) from None
    if as_json:
        print_json({"player": str(player), **card})
        return
    rate = "{:.6f}".format
    show(
        validation.card_rows(card),
        f"{player} (exact, goal {game_rules.goal}, {game_rules.dice_sides}-sided dice)",
        formats={"first": rate, "second": rate, "average": rate},
    )
    gaps = card["gaps"]
    console.print(
        f"gap to the best possible vs always_roll:6: "
        f"{gaps['best_vs_always_roll_6_minus_player']:.6f}; gap to the optimal guaranteed: "
        f"{gaps['optimal_guaranteed_minus_player_guaranteed']:.6f}"
    )


def tournament(
    files: options.PlayerFiles = None,
    bots: options.bots("always_roll:N, tail_strategy, square_strategy, random, …") = BOTS,
    games: options.games("Weight of each pairing in the ratings (its win rates are exact).") = 100,
    seed: options.Seed = 0,
    workers: options.Workers = 1,
    rules: options.Rules = None,
    as_json: options.Json = False,
    html: options.Html = None,
) -> None:
    """A round robin of player files and bots: every pairing's exact win rate (each side
    moving first half the time), Elo-style ratings, faults; in the default rules with
    --rules over them."""
    from mine.pipeline.commands import tournament as shared

    game_rules = options.game_rules(HogRules, rules)
    shared.run("hog", files, bots, games, seed, workers, game_rules, as_json, html)


def report(
    table: options.Table,
    out: options.out("The HTML file to write.") = Path("hog-report.html"),
    as_json: options.Json = False,
) -> None:
    """Write one self-contained HTML page: the table as a heat map, its exact win rates
    and its provenance."""
    strategy, metadata = read_fitted(model.read_table, table)
    with working("measuring the table and drawing the page", as_json):
        card, _ = validation.table_card(strategy, metadata)
        page = report_page.html(strategy, metadata, card)
    write_report(out, page, as_json)

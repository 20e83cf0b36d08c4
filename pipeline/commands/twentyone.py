"""`mine <verb> twentyone`: options, the layers that do the work, what is printed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from mine.models import tables
from mine.models import twentyone as model
from mine.pipeline import options
from mine.pipeline.commands.warehouse import open_warehouse
from mine.pipeline.console import (
    console,
    errors,
    fail,
    interval,
    print_json,
    show,
    show_pairs,
)
from mine.pipeline.reports import twentyone as report_page
from mine.pipeline.stats import has_logs
from mine.pipeline.stats import twentyone as stats_of
from mine.strategies.bots.twentyone import BOTS, make_bot
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.strategies.engines.twentyone import simulate as play_games
from mine.strategies.player_file import PlayerFileError
from mine.strategies.validation import twentyone as validation

GAME = "twentyone"
NO_LOGS = "no TwentyOne logs in the warehouse (run `mine ingest` first)"


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
            make_bot(spec, np.random.default_rng(0), game_rules)
    except ValueError as error:
        raise fail(str(error)) from None
    seats = [(spec, lambda rng, spec=spec: make_bot(spec, rng, game_rules)) for spec in specs]
    columns = (TextColumn("games"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=errors, disable=as_json, transient=True) as bar:
        task = bar.add_task("games", total=games)
        summary = play_games(
            game_rules, seats, games, seed, out, me, lambda: bar.update(task, advance=1)
        )
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


def stats(db: options.Db = None, rules: options.Rules = None, as_json: options.Json = False):
    """Derive TwentyOne statistics from the warehouse and store them as stats_twentyone_*."""
    game_rules = options.game_rules(TwentyOneRules, rules)
    con = open_warehouse(db, read_only=False)
    try:
        if not has_logs(con, GAME):
            raise fail(NO_LOGS)
        computed = stats_of.compute(con, game_rules)
        stored = stats_of.store_all(con, computed)
    finally:
        con.close()
    check = computed["settlement"][0].row(0, named=True)
    dealer, shoe = computed["dealer"][0], computed["shoe"][0]
    if as_json:
        print_json(
            {
                "tables": {
                    name: table.height
                    for name, (table, _) in zip(stored, computed.values(), strict=True)
                },
                "settlement": {k: v for k, v in check.items() if k != "rules"},
                "decks": int(shoe["decks"][0]) if shoe.height else None,
                "dealer": dealer.to_dicts(),
                "count_results": computed["count_results"][0].to_dicts(),
            }
        )
        return
    console.print(
        f"settlement of final hands vs score files: {check['matched']:,} of "
        f"{check['player_rounds']:,} player-rounds match ({check['match_rate']:.4%})"
    )
    rate = "{:.3f}".format
    show(
        stats_of.dealer_grid(dealer),
        "dealer's final hand by up card (rate, n / opportunities)",
        formats={o: (lambda v: "-" if v is None else rate(v)) for o in stats_of.DEALER_OUTCOMES},
    )
    situations = computed["situations"][0]
    show(
        situations.filter(
            (situations["total"] == 16) & ~situations["soft"] & (situations["pair"] == 0)
            & situations["action"].is_in(["Hit", "Stand"]) & (situations["n_cards"] <= 3)
        ).sort("up", "n_cards", "action").to_dicts(),
        "hard 16 (any cards): Hit vs Stand, n / opportunities and mean result",
        {"up": "up", "n_cards": "cards", "action": "action", "n": "n",
         "opportunities": "opportunities", "rate": "rate", "mean_result": "mean result"},
        {"rate": rate, "mean_result": "{:+.3f}".format},
    )  # fmt: skip
    show(
        computed["count_results"][0].to_dicts(),
        "results per unit of bid by true count before the round (logged play)",
        {"tc": "true count", "hands": "hands", "share": "share",
         "mean_result": "mean result", "mean_bid": "mean bid"},
        {"share": rate, "mean_result": "{:+.4f}".format, "mean_bid": "{:.1f}".format},
    )  # fmt: skip
    console.print("stored: " + ", ".join(stored))


def fit(
    out: options.out("Table file to write (Parquet; its metadata beside it as .json).") = Path(
        "twentyone-table.parquet"
    ),
    db: options.Db = None,
    as_json: options.Json = False,
) -> None:
    """Fit TwentyOne action and bid tables: learn the game from the logs, then solve it."""
    con = open_warehouse(db)
    try:
        if not has_logs(con, GAME):
            raise fail(NO_LOGS)
        data = stats_of.fit_data(con)
    finally:
        con.close()
    try:
        fitted = model.fit(data)
    except model.FitError as error:
        raise fail(str(error)) from None
    path = tables.write(out, fitted.table, fitted.metadata)
    if as_json:
        print_json({"table": str(path), **fitted.metadata})
        return
    learned = fitted.metadata["learned"]
    show_pairs(
        f"twentyone table → {path}",
        [
            ("logs / hands / decisions",
             f"{data.logs:,} / {fitted.metadata['hands']:,} / {fitted.metadata['rows']:,}"),
            ("decks", learned["decks"]),
            ("dealer", learned["dealer_rule"]),
            ("player card limit", learned["player_card_limit"]),
            ("payoffs", learned["payoffs"]),
            ("insurance net", learned["insurance_net"]),
            ("bids", f"{learned['min_bid']}..{learned['max_bid']}"),
            ("model value per hand", f"{fitted.metadata['model_ev']:+.5f}"),
        ],
    )  # fmt: skip
    show(
        [{"tc": f"{r['tc_low']}..{r['tc_high']}", **r} for r in fitted.bids.to_dicts()],
        "bid by true count",
        {"tc": "true count", "rounds": "rounds", "ev": "model value", "bid": "bid"},
        {"ev": "{:+.4f}".format},
    )


def _read_table(path: Path):
    try:
        frame, metadata = tables.read(path, GAME, model.KIND)
    except tables.TableError as error:
        raise fail(str(error)) from None
    return (
        model.chart_from_frame(frame),
        model.bids_from_frame(frame),
        model.count_charts_from_frame(frame),
        metadata,
    )


def generate(
    table: options.Table,
    out: options.out("The player module to write.") = Path("twentyone_player.py"),
    rules: options.Rules = None,
    hands: options.hands("Hands for the docstring's flat-bet figure.") = 200_000,
    seed: options.Seed = 0,
) -> None:
    """Generate a single-file, standard-library-only TwentyOne player from a table."""
    chart, bids, count_charts, metadata = _read_table(table)
    game_rules = options.game_rules(TwentyOneRules, rules)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        figures = validation.generate(out, chart, bids, count_charts, metadata, game_rules,
                                      hands, seed)  # fmt: skip
    except (ValueError, OSError) as error:
        raise fail(f"cannot generate from {table}: {error}") from None
    flat = figures[validation.FLAT.format(hands, game_rules.decks)]
    console.print(
        f"wrote {out}: flat-bet return {flat:+.4f} per unit of bid "
        f"(exact optimum {figures['exact optimum, infinite deck']:+.4f}, infinite deck)"
    )


def validate(
    player: options.PlayerFile,
    rules: options.Rules = None,
    hands: options.hands("Hands for the flat-bet returns.") = 2_000_000,
    shoe_hands: Annotated[
        int,
        typer.Option(
            "--shoe-hands",
            min=0,
            help="Hands on continuous shoes for the count play, paired against the static "
            "optimal chart (0: none).",
        ),
    ] = 1_000_000,
    games: options.games("Full games at a table of baselines.", minimum=0) = 100,
    seed: options.Seed = 0,
    as_json: options.Json = False,
) -> None:
    """Measure a player file: flat-bet return vs baselines and the exact optimum, count
    play on continuous shoes, full games, invalid actions and decision times."""
    game_rules = options.game_rules(TwentyOneRules, rules)
    try:
        result = validation.validate(player, game_rules, hands, games, seed, shoe_hands=shoe_hands)
    except PlayerFileError as error:
        raise fail(str(error)) from None
    if as_json:
        print_json(result)
        return
    _print_validation(result)


def _print_validation(result: dict[str, Any]) -> None:
    flat = result["flat_bet"]
    rows = [{"player": "player (this file)", "return": interval(flat["player"]), "gap": ""}]
    rows += [
        {
            "player": name,
            "return": interval(row["return"]),
            "gap": interval(row["player_minus_this"]),
        }
        for name, row in flat["baselines"].items()
    ]
    rows += [
        {"player": f"exact optimum ({name.replace('_', ' ')})", "return": f"{v:+.4f}", "gap": ""}
        for name, v in flat["exact_optimum"].items()
    ]
    value = flat["exact_value_of_player_chart_infinite_deck"]
    rows.append({"player": "exact value of this chart (infinite deck)", "return": f"{value:+.4f}"})
    show(
        rows,
        f"flat-bet return per hand per unit of bid, {flat['hands']:,} hands, "
        f"same shoes ({flat['decks']} decks)",
        {"player": "player", "return": "return (95% CI)", "gap": "player − this (95% CI)"},
    )
    shoe = result.get("continuous_shoe")
    if shoe:
        console.print(
            f"count play, {shoe['hands']:,} hands of continuous {shoe['decks']}-deck shoes "
            f"({shoe['count_cells']} cells change with the count): "
            f"{interval(shoe['player'])}; gain over the static optimal chart on the same "
            f"shoes {interval(shoe['gain_over_static_optimum'], '{:+.5f}')}"
        )
    gap = flat["gap_to_optimum"]
    console.print(
        f"gap to the optimum {gap['mean']:+.4f} "
        f"(at worst {gap['worst_in_ci95']:+.4f} within the CI): "
        f"{'within' if flat['within_0.005_of_optimum'] else 'NOT within'} 0.005; "
        f"beats every baseline with 95% confidence: {flat['beats_every_baseline_95']}"
    )
    games = result.get("games")
    if not games:
        return
    show(
        [
            {"seat": pid, **row, "rank_distribution": " ".join(map(str, row["rank_distribution"]))}
            for pid, row in sorted(games["players"].items(), key=lambda kv: kv[1]["mean_rank"])
        ],
        f"{games['games']} full games of {games['rounds']} rounds, {len(games['seats'])} seats",
        {"seat": "seat", "mean_points": "mean points", "mean_rank": "mean rank",
         "wins": "wins", "rank_distribution": "rank distribution"},
        {"mean_points": "{:,.0f}".format, "mean_rank": "{:.2f}".format},
    )  # fmt: skip
    gain = games.get("bid_gain_vs_flat_minimum")
    if gain:
        console.print(
            "bid table vs flat minimum bids, same games: "
            f"{gain['mean_points_per_game']:+,.0f} points per game "
            f"[{gain['ci95'][0]:+,.0f}, {gain['ci95'][1]:+,.0f}] over {gain['games']} games"
        )
    times, cpu = games["decision_seconds"], games["decision_cpu_seconds"]
    console.print(
        f"invalid actions: {games['invalid_actions']}; "
        f"decision time p50 {times['p50'] * 1e6:.0f} µs, "
        f"p99 {times['p99'] * 1e6:.0f} µs (CPU p99 {cpu['p99'] * 1e6:.0f} µs), max "
        f"{times['max'] * 1e6:.0f} µs over {games['decisions_timed']:,} calls"
    )


def report(
    table: options.Table,
    out: options.out("The file to write.") = Path("twentyone-report.html"),
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="html (the report) or csv (the static chart: one row per situation).",
        ),
    ] = "html",
    db: options.Db = None,
) -> None:
    """Write the table's report: one self-contained HTML page (the strategy as grids, play
    by the count, insurance, the bid table and, from the warehouse if there is one, the
    dealer's outcomes by up card), or the static chart as CSV."""
    if fmt not in ("html", "csv"):
        raise fail(f"unknown format {fmt!r}: use html or csv")
    chart, bids, count_charts, metadata = _read_table(table)
    if fmt == "csv":
        text = report_page.chart_csv(chart)
    else:
        dealer = counts = None
        if db is not None or options.default_db_exists():
            con = open_warehouse(db)
            try:
                if has_logs(con, GAME):
                    dealer = stats_of.dealer_outcomes(stats_of.dealers(con))
                    counts = stats_of.stored(con, "count_results")
            finally:
                con.close()
        text = report_page.html(chart, bids, metadata, dealer, counts, count_charts)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as error:
        raise fail(f"cannot write {out}: {error.strerror}") from None
    console.print(f"wrote {out}")

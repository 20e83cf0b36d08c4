"""`mine <verb> twentyone`: options, the layers that do the work, what is printed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import numpy as np
import polars as pl
import typer
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.text import Text

from mine.models import tables
from mine.models import twentyone as model
from mine.pipeline import options
from mine.pipeline.cluster import runner
from mine.pipeline.commands.warehouse import open_warehouse
from mine.pipeline.console import (
    console,
    errors,
    fail,
    interval,
    next_step,
    print_json,
    print_players_json,
    ratio,
    read_fitted,
    show,
    show_against,
    show_pairs,
    write_report,
)
from mine.pipeline.progress import bar as progress_bar
from mine.pipeline.progress import working
from mine.pipeline.reports import twentyone as report_page
from mine.pipeline.stats import has_logs
from mine.pipeline.stats import twentyone as stats_of
from mine.strategies.bots.twentyone import BOTS, make_bot
from mine.strategies.codegen.twentyone import write_module
from mine.strategies.contained import PlayerFault
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.strategies.engines.twentyone import simulate as play_games
from mine.strategies.engines.twentyone_chart import Strategy
from mine.strategies.player_file import PlayerFileError
from mine.strategies.runners import SERIAL
from mine.strategies.validation import twentyone as validation

GAME = "twentyone"
LOG_BYTES_PER_DECISION = 200  # a round's rows of one seat, generously (about 140 measured)
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


def stats(
    db: options.Db = None,
    rules: options.Rules = None,
    by: options.By = None,
    table: options.ChartTable = None,
    as_json: options.Json = False,
):
    """Derive TwentyOne statistics from the warehouse and store them as stats_twentyone_*
    (`--by player`: each player id's habits, and its choices against a fitted chart)."""
    game_rules = options.game_rules(TwentyOneRules, rules)
    if options.grouping(by, table) == "player":
        chart = _read_table(table).chart if table is not None else None
        _stats_by_player(db, game_rules, chart, table, as_json)
        return
    con = open_warehouse(db, read_only=False)
    try:
        if not has_logs(con, GAME):
            raise fail(NO_LOGS)
        with working("deriving TwentyOne's statistics", as_json):
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
    next_step(f"mine fit twentyone{options.again(db)}")


def _stats_by_player(db, game_rules: TwentyOneRules, chart, table, as_json: bool) -> None:
    con = open_warehouse(db, read_only=False)
    try:
        if not has_logs(con, GAME):
            raise fail(NO_LOGS)
        with working("reading each player's choices" + (" and valuing them" if chart else ""),
                     as_json):  # fmt: skip
            computed = stats_of.by_player(con, game_rules, chart)
        stored = stats_of.store_players(con, computed)
    finally:
        con.close()
    players, ups = computed["players"][0], computed["player_ups"][0]
    deviations = computed["player_deviations"][0] if chart is not None else None
    if as_json:
        print_players_json(table, players, deviations, stored, player_ups=ups.to_dicts())
        return
    show(
        [_player_row(row) for row in players.iter_rows(named=True)],
        "per player id: n/opportunities",
    )
    show(stats_of.hit16_grid(ups), "hits on hard 16 by up card: n/opportunities")
    show_against(
        None if deviations is None else [_chart_row(r) for r in players.iter_rows(named=True)],
        f"choices against the chart of {table}: EV of the logged action minus the chart's, "
        "per unit of bid (sum, per deviation) and in points at the logged bids",
        GAME,
        "each player's choices against its chart and what each deviation cost",
    )
    if deviations is not None:
        _show_costliest(deviations)
    console.print("stored: " + ", ".join(stored))


def _player_row(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "player": row["player"],
        "hands": row["hands"],
        "hit 16": ratio(row["n_hit_16"], row["n_16_opportunities"]),
        "double": ratio(row["n_double"], row["n_double_opportunities"]),
        "split": ratio(row["n_split"], row["n_split_opportunities"]),
        "insure": ratio(row["n_insurance"], row["n_insurance_opportunities"]),
        "mean bid": f"{row['bid_sum'] / row['n_bids']:.1f}",
        "net points": f"{row['net_points']:+,}",
    }


def _chart_row(row: dict[str, Any]) -> dict[str, Any]:
    deviations = row["n_deviations"]
    return {
        "player": row["player"],
        "off the chart": ratio(deviations, row["chart_decisions"]),
        "not valued": row["n_unmeasured"],
        "EV vs chart": f"{row['ev_diff_sum']:+.2f}",
        "per deviation": f"{row['ev_diff_sum'] / deviations:+.3f}" if deviations else "-",
        "points": f"{row['ev_diff_points']:+,.0f}",
    }


def _show_costliest(deviations: pl.DataFrame, rows: int = 12) -> None:
    worst = deviations.filter(pl.col("deviation")).sort("ev_diff_points").head(rows)
    show(
        [
            {
                "player": r["player"],
                "situation": stats_of.situation_name(r),
                "played": r["action"],
                "chart": r["chart_action"],
                "n": r["n"],
                "per decision": f"{r['ev_diff_sum'] / r['measured']:+.3f}"
                if r["measured"]
                else "-",
                "points": f"{r['ev_diff_points']:+,.0f}",
            }
            for r in worst.iter_rows(named=True)
        ],
        "the costliest deviations (exact values for an infinite deck, the chart playing on)",
    )


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
        with working("reading the TwentyOne logs", as_json):
            data = stats_of.fit_data(con)
    finally:
        con.close()
    try:
        with working("fitting the TwentyOne tables (learning the game, solving it)", as_json):
            fitted = model.fit(data)
    except model.FitError as error:
        raise fail(str(error)) from None
    _check_learned(fitted.metadata["learned"])
    try:
        path = tables.write(out, fitted.table, fitted.metadata)
    except tables.TableError as error:
        raise fail(str(error)) from None
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
    next_step(f"mine generate twentyone --table {path}")


def _check_learned(learned: dict[str, Any]) -> None:
    """The fitter learns the rules without reading them; what it learned must still be a
    setting the rules allow, or no table is written."""
    for name in ("decks", "min_bid", "max_bid"):
        if not TwentyOneRules.within(name, learned[name]):
            low, high = TwentyOneRules.BOUNDS[name]
            raise fail(
                f"the logs show {name} {learned[name]:,}, outside the rules' {low:,}..{high:,}: "
                "no table written (leave such logs out of the warehouse)"
            )


def _read_table(path: Path) -> Strategy:
    frame, metadata = read_fitted(lambda p: tables.read(p, GAME, model.KIND), path)
    return Strategy(
        model.chart_from_frame(frame),
        tuple(model.bids_from_frame(frame)),
        tuple(model.count_charts_from_frame(frame)),
        metadata,
    )


def write_player(path: Path, fitted: Strategy, **options: Any) -> dict[str, Any]:
    """Write the player file, measure that file, and write it again with the figures in
    its docstring (the same tables: only the docstring changes); the figures."""
    write_module(path, fitted, None)
    card = validation.check(path, fitted, **options)
    write_module(path, fitted, card)
    return card


def generate(
    table: options.Table,
    out: options.out("The player module to write.") = Path("twentyone_player.py"),
    rules: options.Rules = None,
    hands: options.hands("Hands for the docstring's flat-bet figure.") = 200_000,
    seed: options.Seed = 0,
    as_json: options.Json = False,
) -> None:
    """Generate a single-file, standard-library-only TwentyOne player from a table."""
    strategy = _read_table(table)
    game_rules = options.game_rules(TwentyOneRules, rules)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with working(f"writing the player and playing {hands:,} hands", as_json):
            figures = write_player(out, strategy, rules=game_rules, hands=hands, seed=seed)
    except (ValueError, OSError) as error:
        raise fail(f"cannot generate from {table}: {error}") from None
    if as_json:
        print_json({"player": str(out), "figures": figures})
        return
    flat = figures[validation.FLAT.format(hands, game_rules.decks)]
    console.print(
        f"wrote {out}: flat-bet return {flat:+.4f} per unit of bid "
        f"(exact optimum {figures['exact optimum, infinite deck']:+.4f}, infinite deck)"
    )
    next_step(f"mine validate twentyone {out}")


def validate(
    player: options.PlayerFile,
    rules: options.Rules = None,
    hands: options.hands("Hands for the flat-bet returns.") = 2_000_000,
    shoe_hands: options.hands(
        "Hands on continuous shoes for the count play, paired against the static optimal "
        "chart (0: none).",
        minimum=0,
        flag="--shoe-hands",
    ) = 1_000_000,
    games: options.games("Full games at a table of baselines.", minimum=0) = 100,
    seed: options.Seed = 0,
    against: options.Against = None,
    cluster: options.Cluster = None,
    as_json: options.Json = False,
) -> None:
    """Measure a player file: flat-bet return vs baselines and the exact optimum, count
    play on continuous shoes, full games, invalid actions and decision times; with
    --against, another file on the same cards and head to head at one table."""
    game_rules = options.game_rules(TwentyOneRules, rules)
    try:
        with (
            working(f"measuring {player} (hands, count play, full games)", as_json),
            runner(cluster, SERIAL) as running,
        ):
            result = validation.validate(
                player,
                game_rules,
                against=against,
                hands=hands,
                games=games,
                seed=seed,
                shoe_hands=shoe_hands,
                runner=running,
            )
    except (PlayerFileError, PlayerFault) as error:
        raise fail(str(error)) from None
    if as_json:
        print_json(result)
    else:
        _print_validation(result)
    why = validation.failure(result)
    if why is not None:
        raise fail(why)


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
    other = result.get("against")
    if other:
        rows.append({
            "player": other["file"],
            "return": interval(other["flat_bet"]["return"]),
            "gap": interval(other["flat_bet"]["player_minus_this"]),
        })  # fmt: skip
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
    if other and other["games"]:
        pair = other["games"]
        low, high = pair["a_score_ci95"]
        console.print(
            f"head to head with {other['file']}, {pair['games']} games at one table (each "
            f"shoe from both seats): this file ranks higher in {pair['a_wins']}, draws "
            f"{pair['draws']}, lower in {pair['b_wins']}; score {pair['a_score_rate']:.3f} "
            f"[{low:.3f}, {high:.3f}]"
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
    if not games["decisions_timed"]:
        console.print(f"invalid actions: {games['invalid_actions']}; no decision was timed")
        return
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
    as_json: options.Json = False,
) -> None:
    """Write the table's report: one self-contained HTML page (the strategy as grids, play
    by the count, insurance, the bid table and, from the warehouse if there is one, the
    dealer's outcomes by up card), or the static chart as CSV."""
    if fmt not in ("html", "csv"):
        raise fail(f"unknown format {fmt!r}: use html or csv")
    strategy = _read_table(table)
    if fmt == "csv":
        text = report_page.chart_csv(strategy.chart)
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
        with working("drawing the page", as_json):
            text = report_page.html(
                strategy.chart,
                list(strategy.bids),
                strategy.metadata,
                dealer,
                counts,
                list(strategy.count_charts),
            )
    write_report(out, text, as_json)

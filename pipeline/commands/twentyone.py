"""`mine <verb> twentyone`: simulate, stats, fit, generate, validate, report, and `demo`.

simulate writes logs in the server's format; stats derives the per-situation tables from
the warehouse and stores them there; fit learns the game from the logs and solves for an
action table and a bid table; generate writes a single-file player from the table;
validate measures a player file against the baselines; report draws the table as HTML.
"""

from __future__ import annotations

import contextlib
import dataclasses
import html
import io
import json
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import duckdb
import numpy as np
import polars as pl
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from mine.models import twentyone as tw_model
from mine.models.tables import TableError
from mine.models.tables import read as read_table
from mine.models.tables import write as write_table
from mine.pipeline import options
from mine.pipeline.console import console, errors, fail
from mine.pipeline.stats import data_fingerprint, store
from mine.pipeline.stats import twentyone as tw_stats
from mine.strategies.bots.twentyone import BOTS, make_bot
from mine.strategies.codegen.twentyone import chart_of_module, write_module
from mine.strategies.engines.twentyone import (
    BID,
    BUST,
    COMBO,
    TwentyOneRules,
    classify,
    play_game,
    write_logs,
)
from mine.strategies.engines.twentyone import settle as settle_hand
from mine.strategies.player_file import PlayerFileError
from mine.strategies.validation import twentyone as tw_validate

GAME = "twentyone"
EPOCH = datetime(2021, 10, 1)  # stems look like the server's timestamps; game g is EPOCH + g s


def stem(seed: int, game: int) -> str:
    return f"{EPOCH + timedelta(seconds=game):%Y%m%d-%H%M%S}-s{seed}"


def simulate(
    games: Annotated[int, typer.Option(min=1, help="Games to play (one file pair each).")] = 10,
    seats: Annotated[
        str,
        typer.Option(
            help="Bots, comma-separated, one per seat: "
            f"{', '.join(BOTS)}; explorer:POLICY:SHARE (explorer:textbook:0.1)."
        ),
    ] = "textbook,dealer,cautious,random,explorer",
    seed: Annotated[
        int, typer.Option(help="Seed of shoes, seats and bots (same seed, same bytes).")
    ] = 0,
    out: Annotated[Path, typer.Option(help="Folder for the log files.")] = Path("logs/twentyone"),
    me: Annotated[
        int,
        typer.Option("--me", min=0, help="The seat (index in --seats) the logs are written for."),
    ] = 0,
    rounds: Annotated[
        int | None, typer.Option(min=1, help="Rounds per game (rules' default 1000).")
    ] = None,
    rules: Annotated[
        list[str] | None,
        typer.Option(
            "--rules",
            help="A rule setting KEY=VALUE (decks=6, charlie=off, max_bid=1000, …); repeatable.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Play TwentyOne games and write <stem>.csv + <stem>-score.csv per game."""
    game_rules = options.game_rules(TwentyOneRules, rules)
    if rounds is not None:
        game_rules = game_rules.replace(rounds=rounds)
    specs = [s.strip() for s in seats.split(",") if s.strip()]
    if not 1 <= len(specs) <= game_rules.max_players:
        raise fail(f"--seats needs 1 to {game_rules.max_players} bots, got {len(specs)}")
    if me >= len(specs):
        raise fail(f"--me {me} is not a seat (0..{len(specs) - 1})")
    ids = [str(i + 1) for i in range(len(specs))]  # the server's ids are numbers
    try:
        for spec in specs:  # fail on a bad name before any file is written
            make_bot(spec, np.random.default_rng(0), game_rules)
    except ValueError as error:
        raise fail(str(error)) from None
    out.mkdir(parents=True, exist_ok=True)
    totals = dict.fromkeys(ids, 0)
    wins = dict.fromkeys(ids, 0)
    played = dict.fromkeys(ids, 0)  # hands each player bid on
    disqualified: dict[str, str] = {}
    hands = 0
    columns = (TextColumn("games"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=errors, disable=as_json, transient=True) as bar:
        task = bar.add_task("games", total=games)
        for game, sequence in enumerate(np.random.SeedSequence(seed).spawn(games)):
            table_rng, *bot_rngs = (
                np.random.default_rng(s) for s in sequence.spawn(len(specs) + 1)
            )
            players = {
                pid: make_bot(spec, rng, game_rules)
                for pid, spec, rng in zip(ids, specs, bot_rngs, strict=True)
            }
            state = play_game(game_rules, players, table_rng)
            write_logs(state, ids[me], out, stem(seed, game))
            for pid, points in zip(state.ids, state.points, strict=True):
                totals[pid] += points - game_rules.starting_points
            wins[state.standings()[0]] += 1
            for seat, reason in enumerate(state.disqualified):
                if reason is not None:
                    disqualified[f"game {game} player {state.ids[seat]}"] = reason
            for record in state.records:
                for row in record.rows:
                    if row[3] == BID:
                        played[state.ids[row[1]]] += 1
                        hands += 1
            bar.update(task, advance=1)
    summary = {
        "rules": dataclasses.asdict(game_rules),
        "seed": seed,
        "out": str(out),
        "games": games,
        "player_hands": hands,
        "perspective": ids[me],
        "players": [
            {
                "id": pid,
                "bot": spec,
                "hands": played[pid],
                "net_points": totals[pid],
                "games_won": wins[pid],
            }
            for pid, spec in zip(ids, specs, strict=True)
        ],
        "disqualified": disqualified,
    }
    if as_json:
        print(json.dumps(summary, indent=2))
        return
    table = Table(title=f"twentyone: {games} games, {hands:,} player-hands → {out}")
    for name in ("id", "bot", "hands", "net points", "per hand", "games won"):
        table.add_column(name, justify="left" if name in ("id", "bot") else "right")
    for row in summary["players"]:
        table.add_row(
            row["id"] + (" (me)" if row["id"] == ids[me] else ""),
            row["bot"],
            f"{row['hands']:,}",
            f"{row['net_points']:+,}",
            f"{row['net_points'] / max(row['hands'], 1):+.2f}",
            str(row["games_won"]),
        )
    console.print(table)
    for where, reason in disqualified.items():
        errors.print(f"[yellow]disqualified:[/yellow] {where}: {reason}", highlight=False)


# --- stats -----------------------------------------------------------------------------

Db = Annotated[
    Path | None,
    typer.Option(
        "--db", help="Warehouse file (default: $MINE_DB or ./mine.duckdb).", show_default=False
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
RulesOption = Annotated[
    list[str] | None,
    typer.Option(
        "--rules",
        help="A rule setting KEY=VALUE (dealer_hits_soft_17=on, charlie_cards=6, …); repeatable.",
    ),
]


def _open(db: Path | None, read_only: bool):
    from mine.warehouse.connection import WarehouseBusy, WarehouseMissing, connect

    try:
        return connect(db, read_only=read_only)
    except (WarehouseBusy, WarehouseMissing) as error:
        raise fail(str(error)) from None


def _has_twentyone(con) -> bool:
    try:
        return con.execute("SELECT count(*) FROM twentyone_turns").fetchall()[0][0] > 0
    except duckdb.Error:
        return False


def compute_stats(con, rules: TwentyOneRules) -> dict[str, tuple[pl.DataFrame, str]]:
    """Every statistic, by name, with its description (what `mine stats` stores)."""
    hands = tw_stats.hands(con)
    dealers = tw_stats.dealers(con)
    settled = tw_stats.settle(
        hands,
        dealers,
        lambda n, total, split: classify(n, total, rules, split),
        lambda bid, p, d: settle_hand(bid, p, d, rules),
        rules.insurance_return,
        COMBO,
        BUST,
    )
    check = tw_stats.settlement_check(settled, tw_stats.point_changes(con), rules.starting_points)
    decided = tw_stats.decisions_with_results(tw_stats.decisions(con), settled)
    cards = tw_stats.cards(con)
    decks = tw_stats.infer_decks(cards.filter(pl.col("log_id") <= cards["log_id"].min() + 40))
    shoe = tw_stats.shoe(cards, decks["decks"])
    return {
        "decisions": (
            decided.drop("p_class", "d_class"),
            "TwentyOne: one row per decision with the state before it and the hand's settled "
            "result per unit of first bid (net_per_bid)",
        ),
        "situations": (
            tw_stats.situations(decided),
            "TwentyOne: per (up, total, soft, pair, n_cards, action) n of opportunities and "
            "the mean result per unit of bid (free decisions of unsplit, uninsured hands)",
        ),
        "dealer": (
            tw_stats.dealer_outcomes(dealers),
            "TwentyOne: the dealer's final hands by up card: n of opportunities (rounds played)",
        ),
        "shoe": (
            shoe.with_columns(pl.lit(decks["decks"]).alias("decks")),
            "TwentyOne: the shoe before each round: cards left by value, running and true count",
        ),
        "count_results": (
            tw_stats.count_results(shoe, settled),
            "TwentyOne: player-round results per unit of bid by true count before the round",
        ),
        "settlement": (
            tw_stats.check_summary(check).with_columns(
                pl.lit(json.dumps(dataclasses.asdict(rules))).alias("rules")
            ),
            "TwentyOne: player-rounds whose change of points the rules' settlement of the "
            "final hands reproduces",
        ),
    }


def stats(db: Db = None, rules: RulesOption = None, as_json: Json = False) -> None:
    """Derive TwentyOne statistics from the warehouse and store them as stats_twentyone_*."""
    game_rules = options.game_rules(TwentyOneRules, rules)
    con = _open(db, read_only=False)
    try:
        if not _has_twentyone(con):
            raise fail("no TwentyOne logs in the warehouse (run `mine ingest` first)")
        tables = compute_stats(con, game_rules)
        stored = {
            name: store(con, GAME, name, table, description)
            for name, (table, description) in tables.items()
        }
    finally:
        con.close()
    check = tables["settlement"][0].row(0, named=True)
    dealer = tables["dealer"][0]
    if as_json:
        print(
            json.dumps(
                {
                    "tables": {stored[n]: t.height for n, (t, _) in tables.items()},
                    "settlement": {k: v for k, v in check.items() if k != "rules"},
                    "decks": int(tables["shoe"][0]["decks"][0])
                    if tables["shoe"][0].height
                    else None,
                    "dealer": dealer.to_dicts(),
                    "count_results": tables["count_results"][0].to_dicts(),
                },
                indent=2,
                default=str,
            )
        )
        return
    _print_stats(tables)


def _print_stats(tables: dict[str, tuple[pl.DataFrame, str]]) -> None:
    check = tables["settlement"][0].row(0, named=True)
    console.print(
        f"settlement of final hands vs score files: {check['matched']:,} of "
        f"{check['player_rounds']:,} player-rounds match ({check['match_rate']:.4%})"
    )
    dealer = tables["dealer"][0]
    grid = Table(title="dealer's final hand by up card (rate, n / opportunities)")
    grid.add_column("up")
    for outcome in tw_stats.DEALER_OUTCOMES:
        grid.add_column(outcome, justify="right")
    grid.add_column("rounds", justify="right")
    for up in (2, 3, 4, 5, 6, 7, 8, 9, 10, 1):
        rows = {r["outcome"]: r for r in dealer.filter(pl.col("up") == up).iter_rows(named=True)}
        if not rows:
            continue
        opportunities = next(iter(rows.values()))["opportunities"]
        grid.add_row(
            "A" if up == 1 else str(up),
            *(f"{rows[o]['rate']:.3f}" if o in rows else "-" for o in tw_stats.DEALER_OUTCOMES),
            f"{opportunities:,}",
        )
    console.print(grid)
    situations = tables["situations"][0]
    hard16 = situations.filter((pl.col("total") == 16) & ~pl.col("soft") & (pl.col("pair") == 0))
    table = Table(title="hard 16 (any cards): Hit vs Stand, n / opportunities and mean result")
    for name in ("up", "cards", "action", "n", "opportunities", "rate", "mean result"):
        table.add_column(name, justify="right")
    for row in hard16.sort("up", "n_cards", "action").iter_rows(named=True):
        if row["action"] in ("Hit", "Stand") and row["n_cards"] <= 3:
            table.add_row(
                str(row["up"]),
                str(row["n_cards"]),
                row["action"],
                f"{row['n']:,}",
                f"{row['opportunities']:,}",
                f"{row['rate']:.3f}",
                f"{row['mean_result']:+.3f}",
            )
    console.print(table)
    counts = tables["count_results"][0]
    table = Table(title="results per unit of bid by true count before the round (logged play)")
    for name in ("true count", "hands", "share", "mean result", "mean bid"):
        table.add_column(name, justify="right")
    for row in counts.iter_rows(named=True):
        table.add_row(
            str(row["tc"]),
            f"{row['hands']:,}",
            f"{row['share']:.3f}",
            f"{row['mean_result']:+.4f}",
            f"{row['mean_bid']:.1f}",
        )
    console.print(table)
    console.print("stored: " + ", ".join(f"stats_{GAME}_{name}" for name in tables))


# --- fit -------------------------------------------------------------------------------


def fit_data(con) -> tw_model.FitData:
    """What the fitter needs, derived from the warehouse (no rules involved)."""
    cards = tw_stats.cards(con)
    decks = tw_stats.infer_decks(cards.filter(pl.col("log_id") <= cards["log_id"].min() + 40))
    fingerprint, logs = data_fingerprint(con, GAME)
    return tw_model.FitData(
        hands=tw_stats.hands(con),
        dealers=tw_stats.dealers(con),
        dealer_decisions=tw_stats.dealer_decisions(con),
        decisions=tw_stats.decisions(con),
        changes=tw_stats.point_changes(con),
        bids=tw_stats.frame(
            con, "SELECT log_id, round, player, bid FROM twentyone_turns WHERE action = 'Bid'"
        ),
        cards=cards,
        shoe=tw_stats.shoe(cards, decks["decks"]),
        decks=decks,
        fingerprint=fingerprint,
        logs=logs,
    )


def fit(
    out: Annotated[
        Path, typer.Option(help="Table file to write (Parquet; metadata beside it as .json).")
    ] = Path("twentyone-table.parquet"),
    db: Db = None,
    as_json: Json = False,
) -> None:
    """Fit TwentyOne action and bid tables: learn the game from the logs, then solve it."""
    con = _open(db, read_only=True)
    try:
        if not _has_twentyone(con):
            raise fail("no TwentyOne logs in the warehouse (run `mine ingest` first)")
        data = fit_data(con)
    finally:
        con.close()
    try:
        fitted = tw_model.fit(data)
    except tw_model.FitError as error:
        raise fail(str(error)) from None
    path = write_table(out, fitted.table, fitted.metadata)
    if as_json:
        print(json.dumps({"table": str(path), **fitted.metadata}, indent=2, default=str))
        return
    learned = fitted.metadata["learned"]
    table = Table(title=f"twentyone table → {path}", show_header=False)
    for name, value in (
        (
            "logs / hands / decisions",
            f"{data.logs:,} / {fitted.metadata['hands']:,} / {fitted.metadata['rows']:,}",
        ),
        ("decks", learned["decks"]),
        ("dealer", learned["dealer_rule"]),
        ("player card limit", learned["player_card_limit"]),
        ("payoffs", learned["payoffs"]),
        ("insurance net", learned["insurance_net"]),
        ("bids", f"{learned['min_bid']}..{learned['max_bid']}"),
        ("model value per hand", f"{fitted.metadata['model_ev']:+.5f}"),
    ):
        table.add_row(name, str(value))
    console.print(table)
    bids = Table(title="bid by true count")
    for name in ("true count", "rounds", "model value", "bid"):
        bids.add_column(name, justify="right")
    for row in fitted.bids.iter_rows(named=True):
        bids.add_row(
            f"{row['tc_low']}..{row['tc_high']}",
            f"{row['rounds']:,}",
            f"{row['ev']:+.4f}",
            str(row["bid"]),
        )
    console.print(bids)


# --- generate and validate -------------------------------------------------------------


def _read_table(path: Path):
    try:
        frame, metadata = read_table(path, GAME, tw_model.KIND)
    except TableError as error:
        raise fail(str(error)) from None
    return tw_model.chart_from_frame(frame), tw_model.bids_from_frame(frame), metadata


_FLAT = "flat-bet return, {} hands of fresh {}-deck shoes"


def quick_validation(chart, rules: TwentyOneRules, hands: int, seed: int) -> dict[str, Any]:
    """A few figures for the docstring: the chart's exact value and its flat-bet return
    on the same shoes as textbook's (the full measure is `mine validate`)."""
    from mine.strategies.solvers.twentyone import chart_value, solve

    policies = {
        "player": tw_validate.ChartPolicy(chart),
        "textbook": tw_validate.baseline_policies(rules)["textbook"],
    }
    flat = tw_validate.flat_returns(policies, rules, hands, seed, rules.decks, "player")
    player, gap = flat["player"]["return"], flat["textbook"]["player_minus_this"]
    return {
        "reference rules": ", ".join(f"{k}={v}" for k, v in _rule_changes(rules).items())
        or "engine defaults",
        "exact value of this chart, infinite deck": chart_value(rules, chart),
        "exact optimum, infinite deck": solve(rules).ev,
        _FLAT.format(hands, rules.decks): player["mean"],
        "95% CI low": player["ci95"][0],
        "95% CI high": player["ci95"][1],
        "gain over textbook on the same shoes": gap["mean"],
    }


def _rule_changes(rules: TwentyOneRules) -> dict[str, Any]:
    base = dataclasses.asdict(TwentyOneRules())
    return {k: v for k, v in dataclasses.asdict(rules).items() if base[k] != v}


def generate(
    table: Annotated[Path, typer.Option(help="A table written by `mine fit twentyone`.")],
    out: Annotated[Path, typer.Option(help="The player module to write.")] = Path(
        "twentyone_player.py"
    ),
    rules: RulesOption = None,
    hands: Annotated[
        int, typer.Option(min=1000, help="Hands for the docstring's flat-bet figure.")
    ] = 200_000,
    seed: Annotated[int, typer.Option(help="Seed of the docstring's validation shoes.")] = 0,
) -> None:
    """Generate a single-file, standard-library-only TwentyOne player from a table."""
    chart, bids, metadata = _read_table(table)
    game_rules = options.game_rules(TwentyOneRules, rules)
    validation = quick_validation(chart, game_rules, hands, seed)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        write_module(out, chart, bids, metadata, validation)
    except ValueError as error:
        raise fail(f"cannot generate from {table}: {error}") from None
    console.print(
        f"wrote {out}: flat-bet return {validation[_FLAT.format(hands, game_rules.decks)]:+.4f} "
        f"per unit of bid (exact optimum {validation['exact optimum, infinite deck']:+.4f}, "
        "infinite deck)"
    )


def validate_player(
    path: Path, rules: TwentyOneRules, hands: int, games: int, seed: int, exact: bool = True
) -> dict[str, Any]:
    """Everything `mine validate twentyone` measures, as a dict."""
    from mine.strategies.solvers.twentyone import chart_value, solve

    module = tw_validate.load_player(path)
    chart = chart_of_module(module)
    policies = {"player": tw_validate.ChartPolicy(chart), **tw_validate.baseline_policies(rules)}
    started = time.perf_counter()
    flat = tw_validate.flat_returns(policies, rules, hands, seed, rules.decks, "player")
    flat_seconds = time.perf_counter() - started
    optimum = {"infinite_deck": solve(rules).ev}
    if exact:
        optimum[f"{rules.decks}_decks"] = solve(rules, decks=rules.decks).ev
    player = flat["player"]["return"]
    reference = optimum.get(f"{rules.decks}_decks", optimum["infinite_deck"])
    baselines = {name: flat[name] for name in policies if name != "player"}
    result = {
        "player": str(path),
        "rules": dataclasses.asdict(rules),
        "flat_bet": {
            "hands": hands,
            "decks": rules.decks,
            "seconds": flat_seconds,
            "player": player,
            "baselines": baselines,
            "exact_optimum": optimum,
            "exact_value_of_player_chart_infinite_deck": chart_value(rules, chart),
            "gap_to_optimum": {
                "optimum": reference,
                "mean": reference - player["mean"],
                "worst_in_ci95": reference - player["ci95"][0],
            },
            "within_0.005_of_optimum": reference - player["ci95"][0] <= 0.005,
            "beats_every_baseline_95": all(
                b["player_minus_this"]["ci95"][0] > 0 for b in baselines.values()
            ),
        },
    }
    if games:
        twin = tw_validate.flat_minimum(tw_validate.load_player(path))
        started = time.perf_counter()
        result["games"] = tw_validate.full_games(module, rules, games, seed, flat_twin=twin)
        result["games"]["seconds"] = time.perf_counter() - started
        result["invalid_actions"] = result["games"]["invalid_actions"]
        result["decision_p99_seconds"] = result["games"]["decision_seconds"]["p99"]
        result["decision_p99_cpu_seconds"] = result["games"]["decision_cpu_seconds"]["p99"]
    return result


def validate(
    player: Annotated[
        Path, typer.Argument(help="A player module written by `mine generate twentyone`.")
    ],
    rules: RulesOption = None,
    hands: Annotated[
        int, typer.Option(min=1000, help="Hands for the flat-bet returns.")
    ] = 2_000_000,
    games: Annotated[int, typer.Option(min=0, help="Full games at a table of baselines.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed of the shoes and games.")] = 0,
    as_json: Json = False,
) -> None:
    """Measure a player file: flat-bet return vs baselines and the exact optimum, full
    games, invalid actions and decision times."""
    game_rules = options.game_rules(TwentyOneRules, rules)
    try:
        result = validate_player(player, game_rules, hands, games, seed)
    except PlayerFileError as error:
        raise fail(str(error)) from None
    if as_json:
        print(json.dumps(result, indent=2, default=str))
        return
    _print_validation(result)


def _ci(interval: dict[str, Any]) -> str:
    low, high = interval["ci95"]
    return f"{interval['mean']:+.4f} [{low:+.4f}, {high:+.4f}]"


def _print_validation(result: dict[str, Any]) -> None:
    flat = result["flat_bet"]
    table = Table(
        title=f"flat-bet return per hand per unit of bid, {flat['hands']:,} hands, "
        f"same shoes ({flat['decks']} decks)"
    )
    for name in ("player", "return (95% CI)", "player − this (95% CI)"):
        table.add_column(name, justify="left" if name == "player" else "right")
    table.add_row("player (this file)", _ci(flat["player"]), "", style="bold")
    for name, row in flat["baselines"].items():
        table.add_row(name, _ci(row["return"]), _ci(row["player_minus_this"]))
    for name, value in flat["exact_optimum"].items():
        table.add_row(f"exact optimum ({name.replace('_', ' ')})", f"{value:+.4f}", "", style="dim")
    table.add_row(
        "exact value of this chart (infinite deck)",
        f"{flat['exact_value_of_player_chart_infinite_deck']:+.4f}",
        "",
        style="dim",
    )
    console.print(table)
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
    table = Table(
        title=f"{games['games']} full games of {games['rounds']} rounds, "
        f"{len(games['seats'])} seats"
    )
    for name in ("seat", "mean points", "mean rank", "wins", "rank distribution"):
        table.add_column(name, justify="left" if name in ("seat", "rank distribution") else "right")
    for pid, row in sorted(games["players"].items(), key=lambda kv: kv[1]["mean_rank"]):
        table.add_row(
            pid,
            f"{row['mean_points']:,.0f}",
            f"{row['mean_rank']:.2f}",
            str(row["wins"]),
            " ".join(map(str, row["rank_distribution"])),
        )
    console.print(table)
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


# --- report ----------------------------------------------------------------------------

COLOURS = {"H": "#f4a3a3", "S": "#f6e27f", "D": "#8fd694", "P": "#8ab6f0", "-": "#eeeeee"}
NAMES = {"H": "Hit", "S": "Stand", "D": "DoubleDown (else Hit)", "P": "Split", "-": "no decision"}
UP_ORDER = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)


def _grid(chart, context: int, n_cards: int, title: str, pairs: bool) -> str:
    letters = {1: "H", 2: "S", 3: "D"}
    head = "".join(f"<th>{'A' if u == 1 else u}</th>" for u in UP_ORDER)
    rows = []
    for soft in (0, 1):
        for total in range(13 if soft else 5, 22):
            if n_cards == 2 and not soft and total < 5:
                continue
            cells = "".join(
                _cell(letters.get(int(chart.hand[context, u, total, soft, n_cards - 2]), "S"))
                for u in UP_ORDER
            )
            rows.append(f"<tr><th>{'soft' if soft else 'hard'} {total}</th>{cells}</tr>")
    if pairs:
        for value in range(1, 11):
            cells = "".join(
                _cell("P" if chart.split[min(context, 1), u, value] else "-") for u in UP_ORDER
            )
            label = "A,A" if value == 1 else f"{value},{value}"
            rows.append(f"<tr><th>pair {label}</th>{cells}</tr>")
    return (
        f"<div class='chart'><h3>{html.escape(title)}</h3><table class='grid'>"
        f"<tr><th></th>{head}</tr>{''.join(rows)}</table></div>"
    )


def _cell(letter: str) -> str:
    return f"<td style='background:{COLOURS[letter]}' title='{NAMES[letter]}'>{letter}</td>"


def report_html(chart, bids, metadata: dict[str, Any], dealer: pl.DataFrame | None) -> str:
    learned = metadata.get("learned", {})
    stop = int(learned.get("player_card_limit", 5))
    legend = "".join(
        f"<span class='key'><i style='background:{c}'></i>{k} = {NAMES[k]}</span>"
        for k, c in COLOURS.items()
    )
    charts = [_grid(chart, 0, 2, "Main hand, two cards (pairs: split or not)", True)]
    for n in range(3, min(stop, 6)):
        label = f"{n} cards" if n < 5 else "5 or more cards"
        charts.append(_grid(chart, 0, n, f"Main hand, {label}", False))
    charts.append(_grid(chart, 2, 2, "Split hand, two cards", False))
    charts.append(_grid(chart, 1, 2, "Insured hand (dealer shows an ace), two cards", True))
    insured = [
        f"{'soft' if soft else 'hard'} {total}{' (pair)' if pair else ''}"
        for total in range(4, 22)
        for soft in (0, 1)
        for pair in (0, 1)
        if chart.insure[total, soft, pair]
    ]
    insurance = (
        f"<p>Insurance (dealer shows an ace) is taken with: {html.escape(', '.join(insured))}.</p>"
        if insured
        else "<p>Insurance is never taken.</p>"
    )
    if dealer is not None and dealer.height:
        head = "".join(f"<th>{o}</th>" for o in tw_stats.DEALER_OUTCOMES)
        body = []
        for up in UP_ORDER:
            rows = {
                r["outcome"]: r for r in dealer.filter(pl.col("up") == up).iter_rows(named=True)
            }
            if not rows:
                continue
            total = next(iter(rows.values()))["opportunities"]
            cells = "".join(
                f"<td>{rows[o]['rate']:.3f}<br><small>{rows[o]['n']:,}</small></td>"
                if o in rows
                else "<td>-</td>"
                for o in tw_stats.DEALER_OUTCOMES
            )
            body.append(f"<tr><th>{'A' if up == 1 else up}</th>{cells}<td>{total:,}</td></tr>")
        dealer_html = (
            "<table class='data'><tr><th>up</th>"
            + head
            + "<th>rounds</th></tr>"
            + "".join(body)
            + "</table>"
        )
    else:
        dealer_html = "<p>(no warehouse given: run with --db to show the logged outcomes)</p>"
    bid_rows = "".join(f"<tr><td>{low}..{high}</td><td>{bid}</td></tr>" for low, high, bid in bids)
    meta = html.escape(json.dumps(metadata, indent=2, default=str))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>TwentyOne strategy</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #222; }}
.chart {{ display: inline-block; vertical-align: top; margin: 0 2em 2em 0; }}
table.grid {{ border-collapse: collapse; font-size: 12px; }}
table.grid td {{ width: 22px; height: 18px; text-align: center; border: 1px solid #fff; }}
table.grid th {{ font-weight: normal; padding: 0 6px; text-align: right; }}
table.data {{ border-collapse: collapse; font-size: 13px; }}
table.data td, table.data th {{ padding: 3px 8px; text-align: right;
  border-bottom: 1px solid #eee; }}
.key {{ margin-right: 14px; }} .key i {{ display: inline-block; width: 14px; height: 14px;
  margin-right: 4px; vertical-align: middle; }}
pre {{ background: #f8f8f8; padding: 1em; font-size: 11px; }}
</style></head><body>
<h1>TwentyOne strategy ({html.escape(str(metadata.get("method")))})</h1>
<p>Rows: the player's hand (hard and soft totals, pairs); columns: the dealer's up card.
Learned from {metadata.get("logs")} logs ({metadata.get("hands")} hands); model value per hand
{float(metadata.get("model_ev", 0.0)):+.4f} per unit of bid.</p>
<p>{legend}</p>
{"".join(charts)}
<h2>Insurance</h2>{insurance}
<h2>Dealer's final hand by up card (rate, count)</h2>{dealer_html}
<h2>Bid by true count (Hi-Lo count per deck left)</h2>
<table class="data"><tr><th>true count</th><th>bid</th></tr>{bid_rows}</table>
<h2>Provenance</h2><pre>{meta}</pre>
</body></html>
"""


def report(
    table: Annotated[Path, typer.Option(help="A table written by `mine fit twentyone`.")],
    out: Annotated[Path, typer.Option(help="The HTML file to write.")] = Path(
        "twentyone-report.html"
    ),
    db: Db = None,
) -> None:
    """Write one self-contained HTML page: the strategy chart as coloured grids, the dealer's
    outcomes by up card and the bid table."""
    chart, bids, metadata = _read_table(table)
    dealer = None
    from mine.warehouse.connection import db_path

    if db is not None or db_path(None).exists():
        con = _open(db, read_only=True)
        try:
            if _has_twentyone(con):
                dealer = tw_stats.dealer_outcomes(tw_stats.dealers(con))
        finally:
            con.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report_html(chart, bids, metadata, dealer), encoding="utf-8")
    console.print(f"wrote {out}")


# --- demo ------------------------------------------------------------------------------

DEMO_SEATS = (
    "textbook,dealer,cautious,random,explorer:textbook:0.2,explorer:dealer:0.2,"
    "explorer:cautious:0.2,textbook,dealer,random"
)


def demo(db: Path, workdir: Path, console: Console) -> dict[str, Any]:
    """simulate → ingest → stats → fit → generate → validate, small but sufficient."""
    from mine.warehouse import ingest as ingesting
    from mine.warehouse.connection import connect

    started = time.perf_counter()
    logs = workdir / "logs"
    with contextlib.redirect_stdout(io.StringIO()):  # simulate's JSON summary is not for here
        simulate(
            games=8,
            seats=DEMO_SEATS,
            seed=2021,
            out=logs,
            me=0,
            rounds=None,
            rules=None,
            as_json=True,
        )
    con = connect(db)
    try:
        summary = ingesting.ingest(con, [logs], game=GAME)
        tables = compute_stats(con, TwentyOneRules())
        for name, (frame_, description) in tables.items():
            store(con, GAME, name, frame_, description)
        data = fit_data(con)
    finally:
        con.close()
    fitted = tw_model.fit(data)
    table_path = write_table(workdir / "twentyone-table.parquet", fitted.table, fitted.metadata)
    rules = TwentyOneRules()
    chart = fitted.solved.chart
    player = workdir / "twentyone_player.py"
    write_module(
        player,
        chart,
        tw_model.bids_from_frame(fitted.table),
        fitted.metadata,
        quick_validation(chart, rules, 50_000, 0),
    )
    result = validate_player(player, rules, 300_000, 4, 0, exact=False)
    (workdir / "twentyone-report.html").write_text(
        report_html(
            chart, tw_model.bids_from_frame(fitted.table), fitted.metadata, tables["dealer"][0]
        ),
        encoding="utf-8",
    )
    flat = result["flat_bet"]
    check = tables["settlement"][0].row(0, named=True)
    figures = {
        "logs": summary.count("new") + summary.count("unchanged"),
        "hands": fitted.metadata["hands"],
        "settlement_match_rate": check["match_rate"],
        "learned": {
            k: fitted.metadata["learned"][k] for k in ("decks", "dealer_rule", "player_card_limit")
        },
        "player_flat_return": flat["player"],
        "exact_optimum_infinite_deck": flat["exact_optimum"]["infinite_deck"],
        "textbook_flat_return": flat["baselines"]["textbook"]["return"],
        "beats_every_baseline_95": flat["beats_every_baseline_95"],
        "mean_rank_in_games": result["games"]["players"]["player"]["mean_rank"],
        "invalid_actions": result["invalid_actions"],
        "decision_p99_seconds": result["decision_p99_seconds"],
        "decision_p99_cpu_seconds": result["decision_p99_cpu_seconds"],
        "table": str(table_path),
        "player": str(player),
        "seconds": time.perf_counter() - started,
    }
    console.print(
        f"twentyone: {figures['hands']:,} hands from {figures['logs']} logs; settlement matches "
        f"{check['match_rate']:.2%} of player-rounds; learned {figures['learned']}"
    )
    console.print(
        f"generated {player.name}: flat-bet {_ci(flat['player'])} per unit of bid "
        f"(exact optimum {figures['exact_optimum_infinite_deck']:+.4f}; textbook "
        f"{_ci(flat['baselines']['textbook']['return'])}); mean rank "
        f"{figures['mean_rank_in_games']:.2f} of 10 in 4 games; invalid actions "
        f"{figures['invalid_actions']}; "
        f"p99 decision {figures['decision_p99_seconds'] * 1e6:.0f} µs "
        f"(CPU {figures['decision_p99_cpu_seconds'] * 1e6:.0f} µs) "
        f"({figures['seconds']:.0f} s)"
    )
    return figures


COMMANDS = {
    "simulate": simulate,
    "stats": stats,
    "fit": fit,
    "generate": generate,
    "validate": validate,
    "report": report,
}

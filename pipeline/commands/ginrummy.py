"""`mine <verb> ginrummy`: options, the layers that do the work, what is printed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import polars as pl
import typer
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

from mine.models import ginrummy as model
from mine.models import tables
from mine.pipeline import options
from mine.pipeline.commands.warehouse import open_warehouse
from mine.pipeline.console import (
    console,
    fail,
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
from mine.pipeline.reports import ginrummy as report_page
from mine.pipeline.stats import ginrummy as stats_of
from mine.pipeline.stats import has_logs
from mine.strategies.bots.ginrummy import make_bot
from mine.strategies.codegen import ginrummy as codegen
from mine.strategies.contained import PlayerFault
from mine.strategies.engines.ginrummy import GinRummyRules, MeldSolver
from mine.strategies.engines.ginrummy import simulate as play_games
from mine.strategies.player_file import PlayerFileError
from mine.strategies.validation import ginrummy as validation

GAME = "ginrummy"
NO_LOGS = "no Gin Rummy logs in the warehouse (run `mine ingest` first)"
BOT_NAMES = "simple, random, ginhunter, explorer, explorer:<share>, explorer:<policy>:<share>"
BASELINES = ",".join(validation.BASELINES)
PROGRESS = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn())  # fmt: skip


LOG_BYTES_PER_GAME = 20_000  # both files, generously (about 5 kB measured)


def _bots(names: list[str], rules: GinRummyRules, solver: MeldSolver | None = None) -> None:
    """Fail with one line, before anything runs, if a bot name is bad."""
    try:
        for name in names:
            make_bot(name, np.random.default_rng(0), rules, solver)
    except ValueError as error:
        raise fail(str(error)) from None


def simulate(
    games: options.games("Number of games.") = 100,
    players: options.players(f"The two bots, comma-separated: {BOT_NAMES}.") = "simple,explorer",
    seed: options.Seed = 0,
    out: options.out("Folder for the log files.") = Path("logs/ginrummy"),
    me: options.Me = 0,
    rules: options.Rules = None,
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
    solver = MeldSolver(game_rules.meld_sizes)
    _bots(specs, game_rules, solver)
    options.room_for(out, games * LOG_BYTES_PER_GAME)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise fail(f"cannot create {out}: {error.strerror}") from None
    seats = [
        (spec, lambda rng, spec=spec: make_bot(spec, rng, game_rules, solver)) for spec in specs
    ]
    with progress_bar(*PROGRESS, as_json=as_json) as bar:
        task = bar.add_task(f"{specs[0]} vs {specs[1]}", total=games)
        try:
            summary = play_games(game_rules, seats, games, seed, out, me,
                                 lambda: bar.advance(task), solver=solver)  # fmt: skip
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


def _from_warehouse(db: Path | None, read: Callable[[Any], Any], read_only: bool = True) -> Any:
    """`read(connection)` on the warehouse, or one line saying there is nothing to read."""
    con = open_warehouse(db, read_only=read_only)
    try:
        if not has_logs(con, GAME):
            raise fail(NO_LOGS)
        return read(con)
    finally:
        con.close()


def _plain(value: Any) -> str:
    return "" if value is None else f"{value:,}" if type(value) is int else str(value)


def _show(frame: pl.DataFrame, title: str) -> None:
    show(frame.to_dicts(), title, formats=dict.fromkeys(frame.columns, _plain))


def stats(
    db: options.Db = None,
    by: options.By = None,
    table: options.ChartTable = None,
    as_json: options.Json = False,
) -> None:
    """Derive Gin Rummy statistics from the warehouse and store them there (stats_ginrummy_*;
    `--by player`: each player's habits, and its knocks against a fitted knock policy)."""
    if options.grouping(by, table) == "player":
        fitted = _read_table(table)[0] if table is not None else None
        _stats_by_player(db, fitted, table, as_json)
        return
    with working("deriving Gin Rummy's statistics", as_json):
        computed = _from_warehouse(db, stats_of.run, read_only=False)
    if as_json:
        print_json({name: table.to_dicts() for name, table in computed.items()})
        return
    for name in ("rounds", "draws", "danger"):
        _show(computed[name], f"stats_ginrummy_{name}")
    knocks = stats_of.knocks_by_deadwood(computed["knocks"])
    _show(knocks, "stats_ginrummy_knocks (summed over turns)")
    console.print(f"stored {len(computed) + 1} tables: stats_ginrummy_*")
    next_step(f"mine fit ginrummy{options.again(db)}")


def _stats_by_player(db: Path | None, fitted, table: Path | None, as_json: bool) -> None:
    def run(con) -> tuple[dict[str, pl.DataFrame], list[str]]:
        computed = stats_of.by_player(con, fitted)
        return computed, stats_of.store_players(con, computed)

    with working("reading each player's choices", as_json):
        computed, stored = _from_warehouse(db, run, read_only=False)
    players = computed["players"]
    deviations = computed.get("player_deviations")
    if as_json:
        print_players_json(table, players, deviations, stored, not_measured=NOT_MEASURED)
        return
    show(
        [_player_row(row) for row in players.iter_rows(named=True)],
        "per player (me: the logs' writer; opponent: whoever it played): n/opportunities "
        "(calls: knock or gin where allowed; undercut: n/knocks; gin: n/rounds)",
    )
    show_against(
        None if deviations is None else [_knock_row(r) for r in players.iter_rows(named=True)],
        f"knock or wait against the knock policy of {table} (value of the logged choice "
        "minus the policy's, in game-win chance)",
        GAME,
        "each player's knocks against the fitted knock policy",
    )
    console.print(f"not measured: {NOT_MEASURED}")
    console.print("stored: " + ", ".join(stored))


NOT_MEASURED = (
    "what draws and discards cost: the fitted tables value a deadwood after a play, and a "
    "stock draw's card is unseen, so no logged draw or discard has a value to compare"
)


def _player_row(row: dict[str, Any]) -> dict[str, Any]:
    knocks = row["n_knock"]
    return {
        "player": row["player"],
        "discard draws": ratio(row["n_discard_draws"], row["n_draw_opportunities"]),
        "when it melds": ratio(row["n_meld_draws"], row["n_meld_draw_opportunities"]),
        "calls": ratio(row["n_call"], row["n_call_opportunities"]),
        "knock deadwood": f"{row['knock_deadwood_sum'] / knocks:.1f}" if knocks else "-",
        "undercut": ratio(row["n_undercut"], knocks),
        "gin": ratio(row["n_gin"], row["rounds"]),
        "points": row["points"],
    }


def _knock_row(row: dict[str, Any]) -> dict[str, Any]:
    off = row["n_knock_deviations"]
    return {
        "player": row["player"],
        "off the policy": ratio(off, row["knock_decisions"]),
        "waited where it knocks": row["n_waited"],
        "knocked where it waits": off - row["n_waited"],
        "win chance vs policy": f"{row['win_chance_diff_sum']:+.3f}",
        "per deviation": f"{row['win_chance_diff_sum'] / off:+.4f}" if off else "-",
    }


def fit(
    out: options.out("Table file to write (Parquet; metadata beside it as .json).") = Path(
        "ginrummy-table.parquet"
    ),
    source: Annotated[
        str, typer.Option("--source", help="Logs to fit from: all, simulated or server.")
    ] = "all",
    db: options.Db = None,
    as_json: options.Json = False,
) -> None:
    """Fit the danger, draw and knock tables from the warehouse's Gin Rummy logs."""
    if source not in stats_of.SOURCES:
        raise fail(f"--source must be all, simulated or server, not {source!r}")
    with working("reading the Gin Rummy logs", as_json):
        features, fingerprint = _from_warehouse(db, lambda con: stats_of.fit_data(con, source))
    logs = features.select("log_id").n_unique()
    try:
        with working("fitting the Gin Rummy tables", as_json):
            fitted = model.fit(features, fingerprint, logs)
        fitted.metadata["settings"]["source"] = source
        path = tables.write(out, fitted.frame, fitted.metadata)
    except (model.FitError, tables.TableError) as error:
        raise fail(str(error)) from None
    except OSError as error:
        raise fail(f"cannot write {out}: {error.strerror}") from None
    if as_json:
        print_json({"table": str(out), **fitted.metadata})
        return
    danger = fitted.metadata["danger"]
    knock = np.array(model.nested(fitted.frame)["knock"])
    show_pairs(
        f"ginrummy tables → {path}",
        [
            ("logs / rounds / turns",
             f"{logs:,} / {fitted.metadata['rounds']:,} / {features.height:,}"),
            ("danger model", f"{danger['discards']:,} discards, {danger['picked_up']:,} picked "
                             f"up, held-out AUC {danger['held_out_auc']}"),
            ("knock policy", f"wait in {int((knock == 0).sum()):,} of {knock.size:,} "
                             "(score, deadwood, turn) cells"),
            ("fingerprint", fitted.metadata["fingerprint"][:16] + "…"),
        ],
    )  # fmt: skip
    next_step(f"mine generate ginrummy --table {path}")


def _read_table(path: Path) -> tuple[pl.DataFrame, dict[str, Any]]:
    return read_fitted(lambda p: tables.read(p, GAME, model.KIND), path)


def _validated(player: Path, baselines: list[str], rules: GinRummyRules, **settings: Any):
    try:
        return validation.validate(player, baselines, rules=rules, **settings)
    except (PlayerFileError, PlayerFault) as error:
        raise fail(str(error)) from None


def generate(
    table: options.Table,
    out: options.out("The player module to write.") = Path("ginrummy_player.py"),
    games: options.games("Games against simple for the docstring's figures.", minimum=0) = 100,
    seed: options.Seed = 0,
    rules: options.Rules = None,
    as_json: options.Json = False,
) -> None:
    """Generate a single-file, standard-library-only Gin Rummy player from fitted tables."""
    frame, metadata = _read_table(table)
    game_rules = options.game_rules(GinRummyRules, rules)
    try:
        nested = model.nested(frame)
        source = codegen.module_source(nested, metadata)
    except ValueError as error:
        raise fail(f"{table}: {error}") from None
    playing = f" and playing {games} games against simple" if games else ""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        figures = None
        with working(f"writing the player{playing}", as_json):
            out.write_text(source, encoding="utf-8")
            if games:
                figures = _validated(out, ["simple"], game_rules, games=games, seed=seed)
                codegen.write_module(out, nested, metadata, figures, game_rules.changes())
    except OSError as error:
        raise fail(f"cannot write {out}: {error.strerror}") from None
    if as_json:
        print_json({"player": str(out), "against": figures})
        return
    line = f"wrote {out}"
    if figures:
        f = figures["simple"]
        line += (f": vs simple {f['win_rate']:.3f} over {f['games']} games "
                 f"(95% CI {f['win_ci'][0]:.3f}-{f['win_ci'][1]:.3f}), "
                 f"{f['invalid']} invalid")  # fmt: skip
    console.print(line)
    next_step(f"mine validate ginrummy {out}")


# The validation table's rows: one column per baseline stays readable in 80 columns.
ROWS = {
    "games won": lambda f: f"{f['win_rate']:.3f}",
    "95% interval": lambda f: f"{f['win_ci'][0]:.3f}–{f['win_ci'][1]:.3f}",
    "points per round": lambda f: f"{f['points_per_round']:+.2f}",
    "rounds ended by my gin": lambda f: f"{f['gin_rate']:.3f}",
    "rounds ended by my knock": lambda f: f"{f['knock_rate']:.3f}",
    "  of them undercut": lambda f: f"{f['undercut_rate']:.3f}",
    "rounds run out of stock": lambda f: f"{f['stockout_rate']:.3f}",
    "invalid plays": lambda f: str(f["invalid"]),
    "  the opponent's": lambda f: str(f["opponent_invalid"]),  # a win by its fault
    "p99 call ms (CPU)": lambda f: f"{f['p99_call_ms']:.2f} ({f['p99_call_cpu_ms']:.2f})",
    "max call ms (CPU)": lambda f: f"{f['max_call_ms']:.2f} ({f['max_call_cpu_ms']:.2f})",
}


def validate(
    player: options.PlayerFile,
    games: options.games("Games against each baseline.") = 1000,
    seed: options.Seed = 0,
    baselines: options.baselines(
        "Baselines, comma-separated (simple, random, ginhunter, …)."
    ) = BASELINES,
    rules: options.Rules = None,
    workers: options.Workers = 2,
    against: options.Against = None,
    as_json: options.Json = False,
) -> None:
    """Full games to the target against each baseline (and --against another file), seats
    alternating: win rate with its 95 % interval, points per round, how rounds end,
    invalid plays and call times."""
    game_rules = options.game_rules(GinRummyRules, rules)
    opponents = options.names(baselines)
    _bots(opponents, game_rules)
    # a bad file fails here, before the progress bars
    _validated(player, [], game_rules, against=against, games=0)
    labels = opponents + ([] if against is None else [str(against)])
    with progress_bar(*PROGRESS, as_json=as_json) as bar:
        tasks = {name: bar.add_task(f"vs {name}", total=games) for name in labels}
        figures = _validated(
            player, opponents, game_rules, games=games, seed=seed, workers=workers,
            progress=lambda name, done: bar.update(tasks[name], completed=done),
            against=against,
        )  # fmt: skip
    if as_json:
        print_json({"player": str(player), "games": games, "seed": seed, "against": figures})
        return
    show(
        [{"vs": label, **{name: row(f) for name, f in figures.items()}}
         for label, row in ROWS.items()],
        f"{player}: {games:,} games per baseline, seed {seed}",
        {"vs": "vs", **{name: name for name in figures}},
    )  # fmt: skip


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


def report(
    table: options.Table,
    out: options.out("The HTML file to write.") = Path("ginrummy-report.html"),
    db: options.Db = None,
    as_json: options.Json = False,
) -> None:
    """One self-contained HTML page: the knock policy, the danger grid, draw statistics
    (real logs' included) and the tables' provenance."""
    frame, metadata = _read_table(table)
    with working("reading the statistics and drawing the page", as_json):
        data = _from_warehouse(db, stats_of.report_data)
        page = report_page.html(frame, metadata, **data)
    write_report(out, page, as_json)

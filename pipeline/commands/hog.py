"""`mine <verb> hog`: simulate matches, derive statistics, fit tables, generate, validate
and report players; and `demo`, the whole loop on one warehouse.

Everything downstream of `mine ingest` reads the warehouse (`hog_turns`, `hog_games`),
never the log files: the same path whether the logs came from a server or from
`mine simulate hog`. `--logs GLOB` narrows stats and fit to the logs ingested from
matching files, so one warehouse can hold several rule variants.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import struct
import time
import zlib
from dataclasses import asdict
from itertools import combinations
from pathlib import Path
from typing import Annotated, Any

import duckdb
import numpy as np
import polars as pl
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from mine.models import hog as hog_model
from mine.models.tables import TableError
from mine.parsers import hog as hog_log
from mine.pipeline import options
from mine.pipeline.console import console, errors, fail
from mine.pipeline.stats import data_fingerprint
from mine.pipeline.stats import frame as stats_frame
from mine.pipeline.stats import hog as hog_stats
from mine.strategies.bots.hog import BASELINES, parse_bot
from mine.strategies.codegen.hog import write_module
from mine.strategies.engines.hog import (
    DEFAULT_RULES,
    HogRules,
    as_table,
    match_frames,
    simulate_tables,
)
from mine.strategies.engines.settings import parse as settings_parse
from mine.strategies.player_file import PlayerFileError, load_module
from mine.strategies.solvers.hog import report_card

GAME = "hog"
CHUNK = 50_000  # games simulated at once; part of what a seed means, so a constant

Json = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
RulesOption = Annotated[
    list[str] | None,
    typer.Option(
        "--rules",
        help="A rule setting KEY=VALUE (goal=120, dice_sides=8, "
        "sow_sad=off, …); repeat for several.",
    ),
]


# --- simulate --------------------------------------------------------------------------


def simulate(
    games: Annotated[int, typer.Option(min=1, help="Games per match.")] = 1000,
    players: Annotated[
        str,
        typer.Option(
            help="Bots, comma-separated (always_roll:6, tail_strategy, square_strategy:12:6, "
            "random:SEED); every pair plays a match, unless --opponent is given."
        ),
    ] = "always_roll:6,square_strategy",
    opponent: Annotated[
        str | None,
        typer.Option(
            help="A bot that plays a match against each of --players (and no other match)."
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the dice (same seed, same bytes).")] = 0,
    out: Annotated[Path, typer.Option(help="Folder for the log files.")] = Path("logs/hog"),
    rules: RulesOption = None,
    as_json: Json = False,
) -> None:
    """Play matches between Hog bots and write <stem>.csv + <stem>-score.csv per match."""
    game_rules = options.game_rules(HogRules, rules)
    specs = [p.strip() for p in players.split(",") if p.strip()]
    if opponent is None and len(specs) < 2:
        raise fail("--players needs at least two bots (or one and --opponent)")
    if opponent is not None and not specs:
        raise fail("--players needs at least one bot to play --opponent")
    with Progress(*PROGRESS, console=errors, disable=as_json, transient=True) as bar:
        try:
            summary = run_matches(specs, opponent, games, seed, game_rules, out, bar)
        except ValueError as error:
            raise fail(str(error)) from None
    result = {"rules": game_rules.__dict__, "seed": seed, "out": str(out), "matches": summary}
    if as_json:
        print(json.dumps(result, indent=2))
        return
    console.print(_matches_table(summary, out))


PROGRESS = (
    TextColumn("{task.description}"),
    BarColumn(),
    MofNCompleteColumn(),
    TimeElapsedColumn(),
)


def run_matches(
    specs: list[str],
    opponent: str | None,
    games: int,
    seed: int,
    rules: HogRules,
    out: Path,
    bar: Progress | None = None,
) -> list[dict[str, Any]]:
    """Play the matches and write their logs into `out`; one summary per match. Every pair
    of `specs` meets, or with `opponent` each of them meets it."""
    if opponent is not None:
        specs = [opponent, *specs]
    tables = [as_table(parse_bot(spec, rules), rules) for spec in specs]  # ValueError: a bad bot
    ids = _player_ids(specs)
    if opponent is None:
        matches = list(combinations(range(len(specs)), 2))
    else:
        matches = [(0, b) for b in range(1, len(specs))]
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    summary = []
    for a, b in matches:
        stem = f"{_slug(ids[a])}-vs-{_slug(ids[b])}"
        task = bar.add_task(stem, total=games) if bar else None
        wins, rows = _play_match(
            (tables[a], tables[b]),
            (ids[a], ids[b]),
            games,
            rng,
            rules,
            out / stem,
            lambda done, task=task: bar.update(task, completed=done) if bar else None,
        )
        summary.append(
            {"stem": stem, "players": [ids[a], ids[b]], "games": games, "wins": wins, "rows": rows}
        )
    return summary


def _matches_table(summary: list[dict[str, Any]], out: Path) -> Table:
    table = Table(title=f"hog matches → {out}")
    for name in ("match", "games", "wins A", "wins B", "turn rows"):
        table.add_column(name, justify="left" if name == "match" else "right")
    for match in summary:
        a, b = match["players"]
        table.add_row(
            match["stem"],
            f"{match['games']:,}",
            f"{match['wins'][a]:,}",
            f"{match['wins'][b]:,}",
            f"{match['rows']:,}",
        )
    return table


def _player_ids(specs: list[str]) -> list[str]:
    ids: list[str] = []
    for spec in specs:
        name, n = spec, 2
        while name in ids:
            name, n = f"{spec}#{n}", n + 1
        ids.append(name)
    return ids


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_") or "player"


def _play_match(tables, ids, games, rng, rules, stem: Path, progress) -> tuple[dict, int]:
    turn_path, score_path = stem.with_suffix(".csv"), Path(f"{stem}-score.csv")
    wins = dict.fromkeys(ids, 0)
    rows = 0
    for start in range(0, games, CHUNK):
        n = min(CHUNK, games - start)
        first = np.arange(start, start + n) % 2
        result = simulate_tables(tables, n, rng, rules, first=first, record=True)
        turns, scores = match_frames(result, ids, first_game=start + 1)
        hog_log.write_turn_frame(turn_path, turns, append=start > 0)
        hog_log.write_score_frame(score_path, scores, append=start > 0)
        rows += turns.height
        for player, count in scores["winner"].value_counts().iter_rows():
            wins[player] += count
        progress(start + n)
    return wins, rows


# --- the warehouse ---------------------------------------------------------------------

Db = Annotated[
    Path | None,
    typer.Option(
        "--db", help="Warehouse file (default: $MINE_DB or ./mine.duckdb).", show_default=False
    ),
]
Logs = Annotated[
    str | None,
    typer.Option(
        "--logs",
        help="Only the Hog logs ingested from files matching this glob "
        "(e.g. 'runs/variant/*'; default: every Hog log in the warehouse).",
    ),
]


def _connect(db: Path | None, read_only: bool) -> duckdb.DuckDBPyConnection:
    """The warehouse, which must exist: writing statistics must not create an empty one."""
    from mine.warehouse.connection import WarehouseBusy, WarehouseMissing, connect, db_path

    if not db_path(db).exists():
        raise fail(f"{db_path(db)}: no warehouse here yet (run `mine ingest` first)")
    try:
        return connect(db, read_only=read_only)
    except (WarehouseBusy, WarehouseMissing) as error:
        raise fail(str(error)) from None


def _selected_logs(con: duckdb.DuckDBPyConnection, pattern: str | None) -> list[int] | None:
    """The Hog logs ingested from files matching `pattern` (None: every one)."""
    if pattern is None:
        return None
    absolute = pattern if Path(pattern).is_absolute() else str(Path.cwd() / pattern)
    try:
        rows = con.execute(
            "SELECT DISTINCT log_id FROM manifest WHERE game = 'hog' AND log_id IS NOT NULL "
            "AND log_id IN (SELECT log_id FROM logs) AND (path GLOB ? OR path GLOB ?) "
            "ORDER BY log_id",
            [absolute, pattern],
        ).fetchall()
    except duckdb.Error as error:
        raise fail(f"cannot read the manifest: {error}".splitlines()[0]) from None
    if not rows:
        raise fail(f"no ingested Hog log comes from a file matching {pattern!r}")
    return [row[0] for row in rows]


def warehouse_fingerprint(
    con: duckdb.DuckDBPyConnection, log_ids: list[int] | None
) -> tuple[str, int]:
    """`pipeline.stats.data_fingerprint` of the Hog logs read, and how many there are: over
    all of them, or the same hash (SHA-256 of the sorted content hashes) over the chosen."""
    if log_ids is None:
        return data_fingerprint(con, GAME)
    hashes = sorted(
        row[0]
        for row in con.execute(
            "SELECT content_sha256 FROM logs WHERE game = ? AND list_contains(?, log_id)",
            [GAME, log_ids],
        ).fetchall()
    )
    return hashlib.sha256("\n".join(hashes).encode()).hexdigest(), len(hashes)


def fit_from_warehouse(
    con: duckdb.DuckDBPyConnection,
    method: str,
    against: str | None = None,
    log_ids: list[int] | None = None,
) -> hog_model.Fit:
    """Read the ingested turns and games (of `log_ids`) and fit a table from them."""
    where = hog_stats.logs_filter(log_ids)
    try:
        turns = stats_frame(con, f"SELECT * FROM hog_turns WHERE {where} ORDER BY log_id, line")
        games = stats_frame(con, f"SELECT * FROM hog_games WHERE {where} ORDER BY log_id, line")
        fingerprint, logs = warehouse_fingerprint(con, log_ids)
    except duckdb.Error as error:
        raise hog_model.FitError(f"cannot read the Hog tables: {error}".splitlines()[0]) from None
    fitted = hog_model.fit(
        turns, games, method=method, against=against, data_fingerprint=fingerprint
    )
    fitted.metadata["logs"] = logs
    return fitted


# --- stats -----------------------------------------------------------------------------


def stats(
    db: Db = None,
    bucket: Annotated[
        int, typer.Option(min=1, help="Width of the score buckets of the win-rate table.")
    ] = hog_stats.BUCKET,
    logs: Logs = None,
    as_json: Json = False,
) -> None:
    """Derive Hog's statistics from the warehouse and store them as stats_hog_* tables:
    points by number of dice (Sow Sad), Pig Tail, Square Swine, win rates by state and k."""
    con = _connect(db, read_only=False)
    try:
        log_ids = _selected_logs(con, logs)
        derived = hog_stats.derive(con, bucket, log_ids)
        names = hog_stats.store_all(con, derived)
    except duckdb.Error as error:
        raise fail(f"cannot derive Hog statistics: {error}".splitlines()[0]) from None
    finally:
        con.close()
    summary = hog_stats.headline(derived)
    if not summary["turns"]:
        raise fail("no Hog turns in the warehouse (run `mine ingest` on Hog logs first)")
    if as_json:
        rows = {names[n]: t.height for n, t in derived._asdict().items()}
        print(json.dumps({"tables": rows, **summary}, indent=2))
        return
    for table in stats_tables(derived, bucket):
        console.print(table)
    console.print(f"stored {', '.join(names.values())}")


def stats_tables(derived: hog_stats.HogStats, bucket: int) -> list[Table]:
    """The statistics as rich tables: what `mine stats hog` prints."""
    return [
        _points_table(derived.points),
        _pig_tail_table(derived.pig_tail),
        _swine_table(derived.square_swine),
        _choice_table(derived.win_rates),
        _state_table(derived.win_rates, bucket),
    ]


def _points_table(points) -> Table:
    table = Table(title="points by number of dice (k = 0: Pig Tail; mass at 1: Sow Sad)")
    for name in ("k", "turns", "mean points", "points = 1", "share at 1", "most points"):
        table.add_column(name, justify="right")
    by_k = (
        points.group_by("num_rolls")
        .agg(
            pl.col("turns").sum().alias("n"),
            ((pl.col("points") * pl.col("turns")).sum() / pl.col("turns").sum()).alias("mean"),
            pl.col("turns").filter(pl.col("points") == 1).sum().alias("at_1"),
            pl.col("points").max().alias("max"),
        )
        .sort("num_rolls")
    )
    for k, n, mean, at_1, most in by_k.iter_rows():
        table.add_row(str(k), f"{n:,}", f"{mean:.2f}", f"{at_1:,}", f"{at_1 / n:.3f}", str(most))
    return table


def _pig_tail_table(tail) -> Table:
    turns = int(tail["turns"].sum())
    mixed = tail.filter(pl.col("share") < 1).select("tens", "ones").unique().height
    table = Table(
        title="Pig Tail: points of rolling 0 by the opponent's score digits (most common)",
        caption=f"{turns:,} zero-dice turns; {mixed} digit pairs scored more than one way",
    )
    table.add_column("tens \\ ones", justify="right")
    for ones in range(10):
        table.add_column(str(ones), justify="right")
    modal = {
        (t, o): p
        for t, o, p, *_ in tail.sort(["tens", "ones", "turns"], descending=[False, False, True])
        .unique(["tens", "ones"], keep="first")
        .iter_rows()
    }
    for tens in range(10):
        table.add_row(str(tens), *(str(modal.get((tens, ones), "·")) for ones in range(10)))
    return table


def _swine_table(swine) -> Table:
    fired = swine.filter("fired")
    total = int(swine["turns"].sum())
    table = Table(
        title="Square Swine: totals that moved",
        caption=f"fired on {int(fired['turns'].sum()):,} of {total:,} turns, "
        f"{int((fired['bonus'] * fired['turns']).sum()):,} bonus points in all",
    )
    for name in ("total", "became", "bonus", "turns", "of turns there", "share"):
        table.add_column(name, justify="right")
    for row in fired.sort("total").iter_rows(named=True):
        table.add_row(
            str(row["total"]),
            str(row["new_score"]),
            f"+{row['bonus']}",
            f"{row['turns']:,}",
            f"{row['opportunities']:,}",
            f"{row['share']:.3f}",
        )
    return table


def _choice_table(rates) -> Table:
    table = Table(title="win rate of the mover by choice of k (all states, all players)")
    for name in ("k", "wins", "turns", "win rate"):
        table.add_column(name, justify="right")
    by_k = rates.group_by("num_rolls").agg(pl.col("wins").sum(), pl.col("opportunities").sum())
    for k, wins, n in by_k.sort("num_rolls").iter_rows():
        table.add_row(str(k), f"{wins:,}", f"{n:,}", f"{wins / n:.3f}")
    return table


def _state_table(rates, bucket: int) -> Table:
    """The mover's win rate by (score bucket, opponent bucket), every k pooled."""
    pooled = rates.group_by("score_bucket", "opponent_bucket").agg(
        pl.col("wins").sum(), pl.col("opportunities").sum()
    )
    cells = {(s, o): w / n for s, o, w, n in pooled.iter_rows()}
    buckets = sorted({s for s, _ in cells} | {o for _, o in cells})
    table = Table(
        title=f"win rate of the mover by score (rows) and opponent score (columns), "
        f"buckets of {bucket}",
        caption="counts per player and k: table stats_hog_win_rates",
    )
    table.add_column("score", justify="right")
    for o in buckets:
        table.add_column(str(o), justify="right")
    for s in buckets:
        table.add_row(str(s), *(f"{cells[s, o]:.2f}" if (s, o) in cells else "·" for o in buckets))
    return table


# --- fit -------------------------------------------------------------------------------


def fit(
    out: Annotated[
        Path, typer.Option(help="Table file to write (Parquet; metadata beside it as .json).")
    ] = Path("hog-table.parquet"),
    method: Annotated[
        str, typer.Option(help="best-response (to the logged players) or minimax.")
    ] = "best-response",
    against: Annotated[
        str | None,
        typer.Option(help="Best-respond to this player id only (default: every logged player)."),
    ] = None,
    db: Db = None,
    logs: Logs = None,
    as_json: Json = False,
) -> None:
    """Fit a Hog table from the warehouse: learn the rules and the players, solve exactly."""
    con = _connect(db, read_only=True)
    try:
        fitted = fit_from_warehouse(con, method, against, _selected_logs(con, logs))
    except hog_model.FitError as error:
        raise fail(str(error)) from None
    finally:
        con.close()
    path = hog_model.write_table(out, fitted.table, fitted.metadata)
    if as_json:
        print(json.dumps({"table": str(path), **fitted.metadata}, indent=2))
        return
    console.print(_fit_table(fitted, path))


def _fit_table(fitted: hog_model.Fit, path: Path) -> Table:
    metadata = fitted.metadata
    learned = metadata["learned"]
    table = Table(title=f"hog {metadata['method']} table → {path}", show_header=False)
    counts = f"{metadata['logs']} / {metadata['games']:,} / {metadata['rows']:,}"
    for name, value in (
        ("logs / games / rows", counts),
        ("data fingerprint", metadata["fingerprint"][:16] + "…"),
        ("goal", learned["goal"]),
        ("dice", f"{learned['dice_sides']} sides, fair: {learned['fair_die']}"),
        ("Sow Sad", learned["sow_sad"]),
        ("Pig Tail cells seen", learned["pig_tail_cells_observed"]),
        ("Square Swine", learned["square_swine"]),
        ("model win rate", metadata["model_win_rate"]["average"]),
    ):
        table.add_row(name, str(value))
    return table


# --- generate and validate -------------------------------------------------------------


def _reference_rules(metadata: dict[str, Any]) -> HogRules:
    learned = metadata.get("learned", {})
    return HogRules(
        goal=int(learned.get("goal", 100)),
        dice_sides=int(learned.get("dice_sides", 6)),
        max_rolls=int(learned.get("max_rolls", 10)),
        sow_sad=bool(learned.get("sow_sad", True)),
        square_swine=bool(learned.get("square_swine", True)),
    )


def _read_table(path: Path) -> tuple[np.ndarray, dict[str, Any]]:
    try:
        return hog_model.read_table(path)
    except TableError as error:
        raise fail(str(error)) from None


def generate_player(table: Path, out: Path) -> dict[str, Any]:
    """Write the player module of a fitted table; returns its exact report card."""
    strategy, metadata = hog_model.read_table(table)
    rules = _reference_rules(metadata)
    card = report_card(strategy, rules, BASELINES)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_module(out, strategy, metadata, card, rules=asdict(rules))
    return card


def generate(
    table: Annotated[Path, typer.Option(help="A table written by `mine fit hog`.")],
    out: Annotated[Path, typer.Option(help="The player module to write.")] = Path("hog_player.py"),
) -> None:
    """Generate a single-file, standard-library-only Hog player from a table."""
    try:
        card = generate_player(table, out)
    except TableError as error:
        raise fail(str(error)) from None
    console.print(
        f"wrote {out}: vs always_roll:6 "
        f"{card['against']['always_roll:6']['average']:.6f} (best possible "
        f"{card['best_possible_vs_always_roll_6']['average']:.6f}), guaranteed "
        f"{card['guaranteed']['average']:.6f}"
    )


def load_player(path: Path) -> tuple[Any, dict[str, Any]]:
    """The module's `final_strategy` and the rules it states (`RULES`, else the goal its
    `STRATEGY_TABLE` implies)."""
    module = load_module(path, "hog", ("final_strategy",))
    strategy = module.final_strategy
    stated = getattr(module, "RULES", None)
    if isinstance(stated, dict):
        return strategy, {k: str(v) for k, v in stated.items()}
    goal = len(getattr(module, "STRATEGY_TABLE", ())) or DEFAULT_RULES.goal
    return strategy, {"goal": str(goal)}


def validate_player(
    path: Path, settings: dict[str, str] | None = None
) -> tuple[dict[str, Any], HogRules]:
    """The exact report card of a player module, with the gaps to the best possible
    figures, in the rules it states with `settings` over them; and those rules."""
    strategy, stated = load_player(path)
    rules = DEFAULT_RULES.with_settings({**stated, **settings_parse(settings or [])})
    try:
        table = as_table(strategy, rules)
    except (ValueError, TypeError, IndexError) as error:
        raise PlayerFileError(
            f"{path}: final_strategy is not a Hog strategy here ({error})"
        ) from None
    card = report_card(table, rules, BASELINES)
    card["gaps"] = {
        "best_vs_always_roll_6_minus_player": card["best_possible_vs_always_roll_6"]["average"]
        - card["against"]["always_roll:6"]["average"],
        "optimal_guaranteed_minus_player_guaranteed": card["optimal_guaranteed"]["average"]
        - card["guaranteed"]["average"],
    }
    return card, rules


def validate(
    player: Annotated[Path, typer.Argument(help="A player module with final_strategy.")],
    rules: Annotated[
        list[str] | None,
        typer.Option(
            "--rules",
            help="A rule setting KEY=VALUE (goal=120, dice_sides=8, …), repeatable; by default "
            "the rules the module states (RULES), else goal = its table's size.",
        ),
    ] = None,
    as_json: Json = False,
) -> None:
    """Exact win rates of a player against every baseline and the optimal strategy."""
    try:
        card, game_rules = validate_player(player, rules)
    except ValueError as error:  # PlayerFileError, or rules that do not make sense
        raise fail(str(error)) from None
    if as_json:
        print(json.dumps({"player": str(player), **card}, indent=2))
        return
    console.print(
        _card_table(
            card, f"{player} (exact, goal {game_rules.goal}, {game_rules.dice_sides}-sided dice)"
        )
    )
    gaps = card["gaps"]
    console.print(
        f"gap to the best possible vs always_roll:6: "
        f"{gaps['best_vs_always_roll_6_minus_player']:.6f}; gap to the optimal guaranteed: "
        f"{gaps['optimal_guaranteed_minus_player_guaranteed']:.6f}"
    )


def _card_table(card: dict[str, Any], title: str) -> Table:
    table = Table(title=title)
    for name in ("against", "first", "second", "average"):
        table.add_column(name, justify="left" if name == "against" else "right")

    def row(name: str, rates: dict[str, float], style: str = "") -> None:
        table.add_row(
            name, *(f"{rates[k]:.6f}" for k in ("first", "second", "average")), style=style
        )

    for name, rates in card["against"].items():
        row(name, rates)
    row("guaranteed (vs its best response)", card["guaranteed"], "bold")
    row("best possible vs always_roll:6", card["best_possible_vs_always_roll_6"], "dim")
    row("optimal guaranteed", card["optimal_guaranteed"], "dim")
    return table


# --- report ----------------------------------------------------------------------------

PALETTE = (
    "#4d4d4d",
    "#3b4cc0",
    "#5977e3",
    "#7b9ff9",
    "#9ebeff",
    "#c0d4f5",
    "#dddcdc",
    "#f2cbb7",
    "#f7ac8e",
    "#ee8468",
    "#d65244",
    "#b40426",
)


def report(
    table: Annotated[Path, typer.Option(help="A table written by `mine fit hog`.")],
    out: Annotated[Path, typer.Option(help="The HTML file to write.")] = Path("hog-report.html"),
) -> None:
    """Write one self-contained HTML page: the table as a heat map, its provenance and its
    exact win rates."""
    strategy, metadata = _read_table(table)
    rules = _reference_rules(metadata)
    card = report_card(strategy, rules, BASELINES)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report_html(strategy, metadata, card), encoding="utf-8")
    console.print(f"wrote {out}")


def report_html(table: np.ndarray, metadata: dict[str, Any], card: dict[str, Any]) -> str:
    """One page, no outside resources: the table as a PNG heat map inlined as a data URI
    (one palette index per cell, scaled up: a few kB where SVG rectangles took 1 MB), the
    table again as a string of base-36 digits for the hover read-out, and the figures."""
    goal = table.shape[0]
    size = goal * CELL
    image = base64.b64encode(heat_map_png(table, CELL)).decode("ascii")
    digits = "".join(np.base_repr(int(k), 36).lower() for k in table.reshape(-1))
    ticks = "".join(
        f'<text x="{t * CELL}" y="-4" font-size="10">{t}</text>'
        f'<text x="-4" y="{t * CELL + 8}" font-size="10" text-anchor="end">{t}</text>'
        for t in range(0, goal, 10)
    )
    legend = "".join(
        f'<span class="key"><i style="background:{_colour(k)}"></i>{k}</span>'
        for k in range(int(table.max()) + 1)
    )
    rows = "".join(
        f"<tr><td>{html.escape(name)}</td>"
        + "".join(f"<td>{rates[k]:.6f}</td>" for k in ("first", "second", "average"))
        + "</tr>"
        for name, rates in [
            *card["against"].items(),
            ("guaranteed (vs its best response)", card["guaranteed"]),
            ("best possible vs always_roll:6", card["best_possible_vs_always_roll_6"]),
            ("optimal guaranteed", card["optimal_guaranteed"]),
        ]
    )
    meta = html.escape(json.dumps(metadata, indent=2))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Hog strategy</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; }} td, th {{ padding: 2px 10px; text-align: right; }}
td:first-child {{ text-align: left; }} tr:nth-child(even) {{ background: #f4f4f4; }}
.key {{ margin-right: 12px; }} .key i {{ display: inline-block; width: 12px; height: 12px;
  margin-right: 4px; vertical-align: middle; }}
#cell {{ min-height: 1.2em; font-family: monospace; }}
pre {{ background: #f8f8f8; padding: 1em; font-size: 12px; }}
</style></head><body>
<h1>Hog strategy ({html.escape(str(metadata.get("method")))})</h1>
<p>Dice to roll for each state: row = my score, column = the opponent's score
(goal {goal}). Point at a cell for its value.</p>
<p>{legend}</p>
<svg id="map" xmlns="http://www.w3.org/2000/svg" width="{size + 40}" height="{size + 30}"
 viewBox="-30 -20 {size + 40} {size + 30}">{ticks}<image x="0" y="0" width="{size}"
 height="{size}" href="data:image/png;base64,{image}"/></svg>
<p id="cell"></p>
<script>
const GOAL = {goal}, CELL = {CELL}, TABLE = "{digits}";
const map = document.getElementById("map"), out = document.getElementById("cell");
map.addEventListener("mousemove", (event) => {{
  const box = map.getBoundingClientRect();
  const o = Math.floor((event.clientX - box.left - 30) / CELL);
  const s = Math.floor((event.clientY - box.top - 20) / CELL);
  out.textContent = (s >= 0 && s < GOAL && o >= 0 && o < GOAL)
    ? `score ${{s}}, opponent ${{o}}: roll ${{parseInt(TABLE[s * GOAL + o], 36)}}` : "";
}});
</script>
<h2>Exact win probabilities (reference rules)</h2>
<table><tr><th>against</th><th>first</th><th>second</th><th>average</th></tr>{rows}</table>
<h2>Provenance</h2>
<pre>{meta}</pre>
</body></html>
"""


CELL = 6  # pixels per state in the heat map


def _colour(k: int) -> str:
    return PALETTE[min(k, len(PALETTE) - 1)]


def heat_map_png(table: np.ndarray, cell: int = CELL) -> bytes:
    """The table as an indexed-colour PNG, `cell` × `cell` pixels per state (row = my
    score, top to bottom), colour k for k dice; written with zlib, no imaging library."""
    indices = np.minimum(table, len(PALETTE) - 1).astype(np.uint8)
    pixels = np.repeat(np.repeat(indices, cell, axis=0), cell, axis=1)
    height, width = pixels.shape
    raw = np.concatenate([np.zeros((height, 1), np.uint8), pixels], axis=1).tobytes()
    palette = b"".join(bytes.fromhex(colour[1:]) for colour in PALETTE)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"PLTE", palette)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


# --- demo ----------------------------------------------------------------------------

DEMO_OPPONENT = "always_roll:6"
DEMO_POPULATION = ("square_strategy", "tail_strategy", "always_roll:4", "random:1")
DEMO_GAMES = 5_000  # per match: 20,000 games in all, each against always_roll:6


def demo(db: Path, workdir: Path, console: Console, games: int = DEMO_GAMES) -> dict[str, Any]:
    """Hog's loop on warehouse `db`: simulate a population against always_roll:6 into
    `workdir`, ingest, derive statistics, fit both tables from those logs only, generate
    the players and validate them exactly (`games` per match). Returns the headline
    figures. Runs again unchanged: the same seed writes the same logs, which ingest skips."""
    from mine.warehouse import ingest as ingesting
    from mine.warehouse.connection import connect

    started = time.perf_counter()
    logs = workdir / "logs"
    matches = run_matches(list(DEMO_POPULATION), DEMO_OPPONENT, games, 0, DEFAULT_RULES, logs)
    games = sum(m["games"] for m in matches)
    con = connect(db, memory_limit=ingesting.MEMORY_LIMIT)
    try:
        landed = ingesting.ingest(con, [logs])
        log_ids = sorted({p.log_id for p in landed.pairs if p.log_id is not None})
        derived = hog_stats.derive(con, log_ids=log_ids)
        hog_stats.store_all(con, derived)
        fits = {
            method: fit_from_warehouse(con, method, against, log_ids)
            for method, against in (("best-response", DEMO_OPPONENT), ("minimax", None))
        }
    finally:
        con.close()
    figures: dict[str, Any] = {
        "games": games,
        "turns": hog_stats.headline(derived)["turns"],
        "logs": len(log_ids),
        "ingest": {o: landed.count(o) for o in ("new", "unchanged", "replaced", "rejected")},
    }
    cards = {}
    for method, fitted in fits.items():
        table = hog_model.write_table(workdir / f"{method}.parquet", fitted.table, fitted.metadata)
        player = workdir / f"hog_{method.replace('-', '_')}.py"
        generate_player(table, player)
        cards[method], _ = validate_player(player)
    best, minimax = cards["best-response"], cards["minimax"]
    figures |= {
        "best_response_vs_always_roll_6": best["against"]["always_roll:6"]["average"],
        "best_possible_vs_always_roll_6": best["best_possible_vs_always_roll_6"]["average"],
        "minimax_guaranteed": minimax["guaranteed"]["average"],
        "optimal_guaranteed": minimax["optimal_guaranteed"]["average"],
        "seconds": round(time.perf_counter() - started, 2),
    }
    summary = Table(title=f"hog: {games:,} games against always_roll:6 → {workdir}")
    summary.add_column("step")
    summary.add_column("result", justify="right")
    for step, value in (
        ("simulated games / turns", f"{games:,} / {figures['turns']:,}"),
        ("ingested logs (new / unchanged)", f"{landed.count('new')} / {landed.count('unchanged')}"),
        ("Sow Sad share with 6 dice", f"{_sow_sad_share(derived, 6):.3f}"),
        ("best response vs always_roll:6", f"{figures['best_response_vs_always_roll_6']:.6f}"),
        ("  best possible", f"{figures['best_possible_vs_always_roll_6']:.6f}"),
        ("minimax table guaranteed", f"{figures['minimax_guaranteed']:.6f}"),
        ("  optimal guaranteed", f"{figures['optimal_guaranteed']:.6f}"),
        ("seconds", f"{figures['seconds']:.1f}"),
    ):
        summary.add_row(step, value)
    console.print(summary)
    return figures


def _sow_sad_share(derived: hog_stats.HogStats, k: int) -> float:
    row = hog_stats.headline(derived)["points_at_1_by_dice"].get(k)
    return row["share"] if row else float("nan")


COMMANDS = {
    "simulate": simulate,
    "stats": stats,
    "fit": fit,
    "generate": generate,
    "validate": validate,
    "report": report,
}

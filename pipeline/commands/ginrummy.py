"""`mine <verb> ginrummy`: simulate games between bots in the real log format, derive
statistics, fit tables, generate a player, validate it and report."""

from __future__ import annotations

import hashlib
import html
import json
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import polars as pl
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from mine.models import ginrummy as gr_model
from mine.models import tables
from mine.parsers.cards import COURSE_RANKS
from mine.pipeline import options
from mine.pipeline.console import console, errors, fail
from mine.pipeline.stats import data_fingerprint, store
from mine.pipeline.stats import ginrummy as ginrummy_stats
from mine.strategies.bots.ginrummy import make_bot
from mine.strategies.codegen import ginrummy as codegen
from mine.strategies.engines.ginrummy import GinRummyRules, MeldSolver, play_game, write_game
from mine.strategies.player_file import PlayerFileError
from mine.strategies.validation import ginrummy as validating


def simulate(
    games: Annotated[int, typer.Option(min=1, help="Number of games.")] = 100,
    seats: Annotated[
        str,
        typer.Option(
            help="The two bots, comma-separated: simple, random, ginhunter, explorer, "
            "explorer:<share>, explorer:<policy>:<share>."
        ),
    ] = "simple,explorer",
    seed: Annotated[int, typer.Option(min=0, help="Seed (same seed, same bytes).")] = 0,
    out: Annotated[Path, typer.Option(help="Folder for the log files.")] = Path("logs/ginrummy"),
    view: Annotated[
        int, typer.Option(min=0, max=1, help="Seat whose point of view the logs take.")
    ] = 0,
    rules: Annotated[
        list[str] | None,
        typer.Option(
            "--rules",
            help="A rule setting KEY=VALUE (knock_limit=5, game_target=50, …); repeatable.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Play games between two bots; write <stem>.csv + <stem>-score.csv per game."""
    game_rules = options.game_rules(GinRummyRules, rules)
    if game_rules.hand_size != 10:
        raise fail("the log format holds 10-card hands; hand_size must stay 10 to write logs")
    specs = [spec.strip() for spec in seats.split(",") if spec.strip()]
    if len(specs) != 2:
        raise fail(f"--seats needs exactly two bots, not {seats!r}")
    solver = MeldSolver(game_rules.meld_sizes)
    try:
        for spec in specs:
            make_bot(spec, np.random.default_rng(0), game_rules, solver)
    except ValueError as error:
        raise fail(str(error)) from None
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise fail(f"cannot create {out}: {error.strerror}") from None

    wins, rounds, invalid, endings = [0, 0], 0, 0, {"Gin": 0, "Knock": 0, "Drop": 0}
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=errors, disable=as_json, transient=True) as bar:
        task = bar.add_task(f"{specs[0]} vs {specs[1]}", total=games)
        for index in range(games):
            # One generator per game, from (seed, game): a game's bytes do not depend on --games.
            rng = np.random.default_rng([seed, index])
            players = [make_bot(spec, rng, game_rules, solver) for spec in specs]
            record = play_game(game_rules, players, rng, solver)
            write_game(record, view, out, f"ginrummy-{seed}-{index + 1:06d}")
            if record.invalid is not None:
                invalid += 1
            else:
                wins[0 if record.totals[0] > record.totals[1] else 1] += 1
            rounds += len(record.rounds)
            for game_round in record.rounds:
                endings[game_round.ending] += 1
            bar.advance(task)

    summary = {
        "games": games,
        "seats": specs,
        "seed": seed,
        "out": str(out),
        "wins": wins,
        "invalid": invalid,
        "rounds": rounds,
        "endings": endings,
        "rules": game_rules.__dict__,
    }
    if as_json:
        print(json.dumps(summary, indent=2))
        return
    table = Table(title=f"ginrummy: {games:,} games → {out}")
    for name in ("seat", "bot", "wins"):
        table.add_column(name, justify="right" if name == "wins" else "left")
    for seat, spec in enumerate(specs):
        table.add_row(str(seat), spec, f"{wins[seat]:,}")
    console.print(table)
    console.print(
        f"{rounds:,} rounds: {endings['Gin']:,} gin, {endings['Knock']:,} knock, "
        f"{endings['Drop']:,} stock-out; {invalid:,} games ended by an invalid play"
    )


# --- stats -------------------------------------------------------------------------------

Db = Annotated[
    Path | None,
    typer.Option(
        "--db", help="Warehouse file (default: $MINE_DB or ./mine.duckdb).", show_default=False
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
FEATURES_TABLE = "stats_ginrummy_turn_features"


def _connect(db: Path | None, read_only: bool):
    from mine.warehouse.connection import WarehouseBusy, WarehouseMissing, connect

    try:
        return connect(db, read_only=read_only)
    except (WarehouseBusy, WarehouseMissing) as error:
        raise fail(str(error)) from None


def _has_turns(con) -> bool:
    found = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'ginrummy_turns'"
    ).fetchall()[0]
    return bool(found and found[0]) and bool(
        con.execute("SELECT count(*) FROM ginrummy_turns").fetchall()[0][0]
    )


def run_stats(con) -> dict[str, pl.DataFrame]:
    """Compute and store every statistic (and the per-turn features `fit` reads)."""
    turns, rounds = ginrummy_stats.load(con)
    features = ginrummy_stats.turn_features(turns, rounds)
    tables = {
        "draws": ginrummy_stats.draw_stats(features),
        "danger": ginrummy_stats.danger_stats(features),
        "danger_cards": ginrummy_stats.danger_card_stats(features),
        "knocks": ginrummy_stats.knock_stats(features),
        "rounds": ginrummy_stats.round_stats(rounds),
    }
    ginrummy_stats.store_all(con, tables)
    store(con, "ginrummy", "turn_features", features,
          "Gin Rummy: one row per logged turn with its situation (deadwood before, if the "
          "discard were taken, after), the draw, the discard's relation to the opponent's "
          "pickups and passes, whether it was picked up, the call, the round's points "
          "and the cards the opponent could not see (opponent_unseen, a 52-bit mask)")  # fmt: skip
    return tables


def stats(db: Db = None, as_json: Json = False) -> None:
    """Derive Gin Rummy statistics from the warehouse and store them there (stats_ginrummy_*)."""
    con = _connect(db, read_only=False)
    try:
        if not _has_turns(con):
            raise fail("no Gin Rummy logs in the warehouse (run `mine ingest` first)")
        tables = run_stats(con)
    finally:
        con.close()
    if as_json:
        print(json.dumps({name: t.to_dicts() for name, t in tables.items()}, indent=2))
        return
    for name in ("rounds", "draws", "danger"):
        console.print(_rich(tables[name], f"stats_ginrummy_{name}"))
    knocks = (
        tables["knocks"]
        .group_by("source", "call", "deadwood")
        .agg(pl.col("undercuts").sum(), pl.col("knocks").sum(), pl.col("points").sum())
        .with_columns(
            (pl.col("undercuts") / pl.col("knocks")).round(4).alias("undercut_rate"),
            (pl.col("points") / pl.col("knocks")).round(2).alias("mean_points"),
        )
        .sort("source", "call", "deadwood")
    )
    console.print(_rich(knocks, "stats_ginrummy_knocks (summed over turns)"))
    console.print(f"stored {len(tables) + 1} tables: stats_ginrummy_*")


def _rich(frame: pl.DataFrame, title: str) -> Table:
    table = Table(*frame.columns, title=title)
    for row in frame.iter_rows():
        table.add_row(*("" if v is None else f"{v:,}" if isinstance(v, int) else str(v)
                        for v in row))  # fmt: skip
    return table


# --- fit ---------------------------------------------------------------------------------


def _features(con, source: str) -> pl.DataFrame:
    """The stored per-turn features when they hold exactly the warehouse's logs (none
    added, replaced or removed since `mine stats`) and today's columns, else computed
    afresh."""
    rows = con.execute("SELECT log_id FROM logs WHERE game = 'ginrummy'").fetchall()
    logs = {log_id for (log_id,) in rows}
    stored = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [FEATURES_TABLE]
    ).fetchall()[0][0]
    features = None
    if stored:
        held = con.execute(f"SELECT DISTINCT log_id FROM {FEATURES_TABLE}").fetchall()
        if {log_id for (log_id,) in held} == logs:
            features = con.sql(f"SELECT * FROM {FEATURES_TABLE}").pl()
            if features.columns != list(ginrummy_stats.FEATURES):
                features = None  # stored by an older `mine stats`
    if features is None:
        turns, rounds = ginrummy_stats.load(con)
        features = ginrummy_stats.turn_features(turns, rounds)
    if source != "all":
        features = features.filter(pl.col("source") == source)
    return features


def _fingerprint(con, features: pl.DataFrame, source: str) -> str:
    """The data fingerprint of the logs a fit used: every Gin Rummy log's for `all`, else
    the same hash (SHA-256 over the sorted content hashes) over the chosen logs only."""
    if source == "all":
        return data_fingerprint(con, "ginrummy")[0]
    ids = features["log_id"].unique().to_list()
    hashes = sorted(
        row[0]
        for row in con.execute(
            "SELECT content_sha256 FROM logs WHERE game = 'ginrummy' AND list_contains(?, log_id)",
            [ids],
        ).fetchall()
    )
    return hashlib.sha256("\n".join(hashes).encode()).hexdigest()


def fit(
    out: Annotated[
        Path, typer.Option(help="Table file to write (Parquet; metadata beside it as .json).")
    ] = Path("ginrummy-table.parquet"),
    source: Annotated[
        str, typer.Option(help="Logs to fit from: all, simulated or server.")
    ] = "all",
    db: Db = None,
    as_json: Json = False,
) -> None:
    """Fit the danger, draw and knock tables from the warehouse's Gin Rummy logs."""
    if source not in ("all", "simulated", "server"):
        raise fail(f"--source must be all, simulated or server, not {source!r}")
    con = _connect(db, read_only=True)
    try:
        if not _has_turns(con):
            raise fail("no Gin Rummy logs in the warehouse (run `mine ingest` first)")
        features = _features(con, source)
        fingerprint = _fingerprint(con, features, source)
    finally:
        con.close()
    logs = features.select("log_id").n_unique()
    try:
        fitted = gr_model.fit(features, fingerprint, logs)
    except gr_model.FitError as error:
        raise fail(str(error)) from None
    fitted.metadata["settings"]["source"] = source
    tables.write(out, fitted.frame, fitted.metadata)
    if as_json:
        print(json.dumps({"table": str(out), **fitted.metadata}, indent=2))
        return
    summary = Table(title=f"ginrummy tables → {out}", show_header=False)
    danger = fitted.metadata["danger"]
    knock = np.array(gr_model.nested(fitted.frame)["knock"])
    waits = int((knock == 0).sum())
    for name, value in (
        ("logs / rounds / turns",
         f"{logs:,} / {fitted.metadata['rounds']:,} / {features.height:,}"),
        ("danger model", f"{danger['discards']:,} discards, {danger['picked_up']:,} picked up, "
                         f"held-out AUC {danger['held_out_auc']}"),
        ("knock policy", f"wait in {waits:,} of {knock.size:,} (score, deadwood, turn) cells"),
        ("fingerprint", fitted.metadata["fingerprint"][:16] + "…"),
    ):  # fmt: skip
        summary.add_row(name, value)
    console.print(summary)


# --- generate and validate ---------------------------------------------------------------


def _read_table(path: Path) -> tuple[pl.DataFrame, dict[str, Any]]:
    try:
        return tables.read(path, "ginrummy", gr_model.KIND)
    except tables.TableError as error:
        raise fail(str(error)) from None


def generate(
    table: Annotated[Path, typer.Option(help="A table written by `mine fit ginrummy`.")],
    out: Annotated[Path, typer.Option(help="The player module to write.")] = Path(
        "ginrummy_player.py"
    ),
    games: Annotated[
        int, typer.Option(min=0, help="Games against simple for the docstring's figures.")
    ] = 100,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the validation games.")] = 0,
) -> None:
    """Generate a single-file, standard-library-only Gin Rummy player from fitted tables."""
    frame, metadata = _read_table(table)
    try:
        nested = gr_model.nested(frame)
        source = codegen.module_source(nested, metadata)
    except ValueError as error:
        raise fail(f"{table}: {error}") from None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(source, encoding="utf-8")
    figures = None
    if games:
        figures = validating.validate(out, ["simple"], games=games, seed=seed)
        codegen.write_module(out, nested, metadata, figures)
    line = f"wrote {out}"
    if figures:
        f = figures["simple"]
        line += (f": vs simple {f['win_rate']:.3f} over {f['games']} games "
                 f"(95% CI {f['win_ci'][0]:.3f}-{f['win_ci'][1]:.3f}), "
                 f"{f['invalid']} invalid")  # fmt: skip
    console.print(line)


def validate(
    player: Annotated[Path, typer.Argument(help="A player module with pick, play and melds.")],
    games: Annotated[int, typer.Option(min=1, help="Games against each baseline.")] = 1000,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the games.")] = 0,
    against: Annotated[
        str, typer.Option(help="Baselines, comma-separated (simple, random, ginhunter, …).")
    ] = ",".join(validating.BASELINES),
    workers: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 2,
    as_json: Json = False,
) -> None:
    """Full games to 100 against each baseline, seats alternating: win rate with its 95 %
    interval, points per round, how rounds end, invalid plays and call times."""
    opponents = [name.strip() for name in against.split(",") if name.strip()]
    try:
        for name in opponents:
            make_bot(name, np.random.default_rng(0), GinRummyRules())
    except ValueError as error:
        raise fail(str(error)) from None
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())  # fmt: skip
    with Progress(*columns, console=errors, disable=as_json, transient=True) as bar:
        tasks = {name: bar.add_task(f"vs {name}", total=games) for name in opponents}
        try:
            figures = validating.validate(
                player, opponents, games=games, seed=seed, workers=workers,
                progress=lambda name, done: bar.update(tasks[name], completed=done),
            )  # fmt: skip
        except PlayerFileError as error:
            raise fail(str(error)) from None
    result = {"player": str(player), "games": games, "seed": seed, "against": figures}
    if as_json:
        print(json.dumps(result, indent=2))
        return
    # One column per baseline: the figures stay readable in an 80-column terminal.
    table = Table("vs", title=f"{player}: {games:,} games per baseline, seed {seed}")
    for name in figures:
        table.add_column(name, justify="right")
    rows = {
        "games won": lambda f: f"{f['win_rate']:.3f}",
        "95% interval": lambda f: f"{f['win_ci'][0]:.3f}–{f['win_ci'][1]:.3f}",
        "points per round": lambda f: f"{f['points_per_round']:+.2f}",
        "rounds ended by my gin": lambda f: f"{f['gin_rate']:.3f}",
        "rounds ended by my knock": lambda f: f"{f['knock_rate']:.3f}",
        "  of them undercut": lambda f: f"{f['undercut_rate']:.3f}",
        "rounds run out of stock": lambda f: f"{f['stockout_rate']:.3f}",
        "invalid plays": lambda f: str(f["invalid"]),
        "p99 call ms (CPU)": lambda f: f"{f['p99_call_ms']:.2f} ({f['p99_call_cpu_ms']:.2f})",
        "max call ms (CPU)": lambda f: f"{f['max_call_ms']:.2f} ({f['max_call_cpu_ms']:.2f})",
    }
    for label, show in rows.items():
        table.add_row(label, *(show(f) for f in figures.values()))
    console.print(table)


# --- report --------------------------------------------------------------------------------


def report(
    table: Annotated[Path, typer.Option(help="A table written by `mine fit ginrummy`.")],
    out: Annotated[Path, typer.Option(help="The HTML file to write.")] = Path(
        "ginrummy-report.html"
    ),
    db: Db = None,
) -> None:
    """One self-contained HTML page: the knock policy, the danger grid, draw statistics
    (real logs' included) and the tables' provenance."""
    frame, metadata = _read_table(table)
    con = _connect(db, read_only=True)
    try:
        if not _has_turns(con):
            raise fail("no Gin Rummy logs in the warehouse (run `mine ingest` first)")
        features = _features(con, "all")
        rounds = ginrummy_stats.load_rounds(con)
    finally:
        con.close()
    page = report_html(
        frame,
        metadata,
        ginrummy_stats.draw_stats(features),
        ginrummy_stats.round_stats(rounds),
        ginrummy_stats.knock_stats(features),
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page, encoding="utf-8")
    console.print(f"wrote {out}")


def _shade(value: float) -> str:
    """White (0) to red (1)."""
    v = min(max(value, 0.0), 1.0)
    return f"rgb(255,{int(255 - 200 * v)},{int(255 - 220 * v)})"


def _html_table(frame: pl.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
        for row in frame.iter_rows()
    )
    return f"<table><tr>{head}</tr>{body}</table>"


# The knock policy's score situations the report draws: (caption, my bucket, theirs).
_TOP = gr_model.SCORE_BUCKETS - 1
KNOCK_SCORES = (("level, at the start", 0, 0), ("far behind", 0, _TOP),
                ("near the target", _TOP, 0))  # fmt: skip


def _scores(bucket: int) -> str:
    low = bucket * gr_model.SCORE_STEP
    return f"{low}+" if bucket == _TOP else f"{low}-{low + gr_model.SCORE_STEP - 1}"


def _knock_charts(frame: pl.DataFrame) -> str:
    return "".join(
        f'<figure class="knock"><figcaption>{html.escape(caption)} ({_scores(mine)} against '
        f"{_scores(theirs)})</figcaption>"
        f"{_knock_chart(frame, mine * gr_model.SCORE_BUCKETS + theirs)}"
        "</figure>"
        for caption, mine, theirs in KNOCK_SCORES
    )


def _knock_chart(frame: pl.DataFrame, scores: int) -> str:
    """Knock (green) or wait (grey) at one score bucket pair, by deadwood (rows) and turn
    bucket (columns), with the knock-minus-wait margin in each cell's tooltip."""
    knock = frame.filter((pl.col("table") == "knock") & (pl.col("c") == scores))
    cell, parts, step = 26, [], gr_model.TURN_BUCKET
    turns = int(knock["b"].max()) + 1
    for a, b, value, n, extra in knock.select("a", "b", "value", "n", "extra").iter_rows():
        colour = "#3a9d5d" if value >= 0.5 else "#bbbbbb"
        margin = "n/a" if extra is None else f"{100 * extra:+.2f}"
        parts.append(
            f'<rect x="{b * cell}" y="{a * cell}" width="{cell - 2}" height="{cell - 2}"'
            f' fill="{colour}"><title>deadwood {a}, turns {b * step + 1}-{b * step + step}: '
            f"{'knock' if value >= 0.5 else 'wait'} (knock − wait {margin} % game-win chance, "
            f"n {n})</title></rect>"
        )
    for b in range(turns):
        parts.append(f'<text x="{b * cell + 4}" y="{11 * cell + 14}" font-size="10">'
                     f"{b * step + 1}</text>")  # fmt: skip
    for a in range(11):
        parts.append(f'<text x="-6" y="{a * cell + 16}" font-size="10" text-anchor="end">'
                     f"{a}</text>")  # fmt: skip
    width = turns * cell
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width + 40}"'
            f' height="{11 * cell + 50}"'
            f' viewBox="-30 -24 {width + 40} {11 * cell + 50}">{"".join(parts)}</svg>')  # fmt: skip


def _danger_grid(frame: pl.DataFrame) -> str:
    cards = {(a, c): (v, n, e) for a, c, v, n, e in frame.filter(pl.col("table") == "card")
             .select("a", "c", "value", "n", "extra").iter_rows()}  # fmt: skip
    rows = ["<tr><th></th>" + "".join(f"<th>{r}</th>" for r in COURSE_RANKS) + "</tr>"]
    for s, suit in enumerate("SHDC"):
        cells = []
        for rank in range(1, 14):
            value, n, seen = cards.get((s, rank), (0.0, 0, None))
            observed = "n/a" if seen is None else f"{seen:.3f}"
            cells.append(
                f'<td style="background:{_shade(value * 1.5)}" '
                f'title="{suit}{COURSE_RANKS[rank - 1]}: model {value:.3f}, observed {observed}, '
                f'n {n}">{value:.2f}</td>'
            )
        rows.append(f"<tr><th>{suit}</th>{''.join(cells)}</tr>")
    return f'<table class="grid">{"".join(rows)}</table>'


def _thrown_grid(frame: pl.DataFrame) -> str:
    """The chance an unseen card of each rank (columns) is the opponent's next discard, by
    turn bucket (rows), in per cent."""
    thrown = frame.filter(pl.col("table") == "thrown").sort("b", "a")
    step = gr_model.TURN_BUCKET
    rows = ["<tr><th>turns</th>" + "".join(f"<th>{r}</th>" for r in COURSE_RANKS) + "</tr>"]
    for (b,), part in thrown.group_by("b", maintain_order=True):
        cells = "".join(
            f'<td style="background:{_shade(value * 6)}" title="{COURSE_RANKS[a - 1]}: '
            f'{int(extra or 0):,} thrown of {n:,} unseen">{100 * value:.1f}</td>'
            for a, value, n, extra in part.select("a", "value", "n", "extra").iter_rows()
        )
        last = b == gr_model.TURN_BUCKETS - 1
        turns = f"{b * step + 1}+" if last else f"{b * step + 1}-{b * step + step}"
        rows.append(f"<tr><th>{turns}</th>{cells}</tr>")
    return f'<table class="grid">{"".join(rows)}</table>'


def report_html(frame, metadata, draws, rounds, knocks) -> str:
    by_deadwood = (
        knocks.group_by("source", "deadwood")
        .agg(pl.col("undercuts").sum(), pl.col("knocks").sum(), pl.col("points").sum())
        .with_columns((pl.col("undercuts") / pl.col("knocks")).round(3).alias("undercut_rate"),
                      (pl.col("points") / pl.col("knocks")).round(2).alias("mean_points"))
        .sort("source", "deadwood")
    )  # fmt: skip
    danger = metadata.get("danger", {})
    meta = html.escape(json.dumps(metadata, indent=2, default=str))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Gin Rummy: statistics and tables</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 70em; }}
table {{ border-collapse: collapse; margin-bottom: 1em; }}
td, th {{ padding: 2px 8px; text-align: right; font-size: 13px; }}
tr:nth-child(even) {{ background: #f4f4f4; }}
figure.knock {{ display: inline-block; margin: 0 2em 1em 0; }}
table.grid td {{ width: 2.6em; text-align: center; border: 1px solid #fff; }}
pre {{ background: #f8f8f8; padding: 1em; font-size: 12px; }}
</style></head><body>
<h1>Gin Rummy: what the logs say, and the fitted tables</h1>
<p>Tables fitted from {metadata.get("games")} logs ({metadata.get("rows")} turns;
sources: {html.escape(", ".join(metadata.get("sources", [])))}); data fingerprint
<code>{html.escape(str(metadata.get("fingerprint")))}</code>.</p>
<h2>Knock policy</h2>
<p>Green: knock; grey: play on. Rows: deadwood after the discard (0 is always gin);
columns: first turn of the bucket (both players' turns counted). Knocking is weighed against
waiting by dynamic programming over the logged plays: the chance the opponent calls first,
what its call costs, and how deadwood falls over the next draws, each round's points counted
as the chance of winning the game they leave at the round's scores (the policy has one
such chart per pair of score buckets; three are drawn). Hover for the knock-minus-wait
margin and the number of logged plays.</p>
{_knock_charts(frame)}
<h2>Discard danger</h2>
<p>Chance that the opponent picks a discard up (logistic regression on the card's relation to
the opponent's earlier pickups and passes, and its rank), averaged over the logged discards of
each card; held-out AUC {danger.get("held_out_auc")}. Hover for the observed rate.</p>
{_danger_grid(frame)}
<h2>What the opponent throws</h2>
<p>Chance (per cent) that a card of each rank, unseen by a player, is its opponent's next
discard, by turn. A stock draw reaches each unseen card at one rate; the opponent's
discards favour the ranks it does not keep, so a hand waiting on those fills sooner. The
generated player counts both ways in when it weighs a discard. Hover for the counts.</p>
{_thrown_grid(frame)}
<h2>Draw decisions (all ingested logs, real server logs included)</h2>
<p>How often the discard is taken, by what the top card does for the hand.</p>
{_html_table(draws)}
<h2>How rounds end</h2>
{_html_table(rounds)}
<h2>Knocks by deadwood</h2>
{_html_table(by_deadwood)}
<h2>Provenance</h2>
<pre>{meta}</pre>
</body></html>
"""


# --- demo ----------------------------------------------------------------------------------


def demo(db: Path, workdir: Path, console: Console) -> dict:
    """Simulate → ingest → stats → fit → generate → a short validation, in well under a
    minute; prints a summary and returns the headline figures."""
    from mine.warehouse.connection import connect
    from mine.warehouse.ingest import MEMORY_LIMIT, ingest

    rules = GinRummyRules()
    solver = MeldSolver()
    logs = workdir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    for index, seats in enumerate((("simple", "explorer"), ("ginhunter", "simple"))):
        for game in range(20):
            rng = np.random.default_rng([2024, index, game])
            players = [make_bot(spec, rng, rules, solver) for spec in seats]
            record = play_game(rules, players, rng, solver)
            write_game(record, 0, logs, f"ginrummy-demo{index}-{game + 1:06d}")
    con = connect(db, memory_limit=MEMORY_LIMIT)
    try:
        summary = ingest(con, [logs])
        stats_tables = run_stats(con)
        features = _features(con, "simulated")
        fingerprint = _fingerprint(con, features, "simulated")
    finally:
        con.close()
    fitted = gr_model.fit(features, fingerprint, features.select("log_id").n_unique())
    table_path = tables.write(workdir / "ginrummy-table.parquet", fitted.frame, fitted.metadata)
    nested = gr_model.nested(fitted.frame)
    player = workdir / "ginrummy_player.py"
    codegen.write_module(player, nested, fitted.metadata)
    figures = validating.validate(player, ["simple"], games=30, seed=1)
    codegen.write_module(player, nested, fitted.metadata, figures)
    f = figures["simple"]
    server = stats_tables["rounds"].filter(pl.col("source") == "server")
    console.print(
        f"ginrummy: {summary.count('new')} simulated logs ingested; "
        f"{int(server['rounds'].sum() or 0)} real rounds in the warehouse; "
        f"tables from {fitted.metadata['rows']:,} turns → {table_path.name}; "
        f"{player.name} vs simple: {f['win_rate']:.3f} of {f['games']} games "
        f"(95% CI {f['win_ci'][0]:.3f}-{f['win_ci'][1]:.3f}), {f['invalid']} invalid, "
        f"p99 call {f['p99_call_ms']:.2f} ms ({f['p99_call_cpu_ms']:.2f} ms CPU)"
    )
    return {
        "logs": summary.count("new"),
        "turns": fitted.metadata["rows"],
        "danger_auc": fitted.metadata["danger"]["held_out_auc"],
        "win_rate_vs_simple": f["win_rate"],
        "games": f["games"],
        "invalid": f["invalid"],
        "p99_call_ms": f["p99_call_ms"],
        "p99_call_cpu_ms": f["p99_call_cpu_ms"],
    }


COMMANDS = {
    "simulate": simulate,
    "stats": stats,
    "fit": fit,
    "generate": generate,
    "validate": validate,
    "report": report,
}

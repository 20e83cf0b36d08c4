"""`mine <verb> hog`: simulate matches, fit tables, generate, validate and report players."""

from __future__ import annotations

import html
import importlib.util
import json
import re
from itertools import combinations
from pathlib import Path
from typing import Annotated, Any

import duckdb
import numpy as np
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from models import hog as hog_model
from parsers import hog as hog_log
from strategies.bots.hog import BASELINES, parse_bot
from strategies.codegen.hog import write_module
from strategies.engines.hog import DEFAULT_RULES, HogRules, as_table, match_frames, simulate_tables
from strategies.hog_exact import report_card

console = Console()
errors = Console(stderr=True)
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


def _fail(message: str) -> typer.Exit:
    errors.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(1)


def _rules(settings: list[str] | None, base: HogRules = DEFAULT_RULES) -> HogRules:
    pairs = {}
    for setting in settings or []:
        key, sep, value = setting.partition("=")
        if not sep:
            raise _fail(f"--rules takes KEY=VALUE, not {setting!r}")
        pairs[key.strip()] = value.strip()
    try:
        return base.with_settings(pairs)
    except ValueError as error:
        raise _fail(str(error)) from None


# --- simulate --------------------------------------------------------------------------


def simulate(
    games: Annotated[int, typer.Option(min=1, help="Games per match.")] = 1000,
    players: Annotated[
        str,
        typer.Option(
            help="Bots, comma-separated (always_roll:6, tail_strategy, square_strategy:12:6, "
            "random:SEED); every pair plays a match."
        ),
    ] = "always_roll:6,square_strategy",
    seed: Annotated[int, typer.Option(help="Seed of the dice (same seed, same bytes).")] = 0,
    out: Annotated[Path, typer.Option(help="Folder for the log files.")] = Path("logs/hog"),
    rules: RulesOption = None,
    as_json: Json = False,
) -> None:
    """Play matches between Hog bots and write <stem>.csv + <stem>-score.csv per match."""
    game_rules = _rules(rules)
    specs = [p.strip() for p in players.split(",") if p.strip()]
    if len(specs) < 2:
        raise _fail("--players needs at least two bots")
    try:
        tables = [as_table(parse_bot(spec, game_rules), game_rules) for spec in specs]
    except ValueError as error:
        raise _fail(str(error)) from None
    ids = _player_ids(specs)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    matches = list(combinations(range(len(specs)), 2))
    summary = []
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=errors, disable=as_json, transient=True) as bar:
        for a, b in matches:
            stem = f"{_slug(ids[a])}-vs-{_slug(ids[b])}"
            task = bar.add_task(stem, total=games)
            wins, rows = _play_match(
                (tables[a], tables[b]),
                (ids[a], ids[b]),
                games,
                rng,
                game_rules,
                out / stem,
                lambda done, task=task: bar.update(task, completed=done),
            )
            summary.append(
                {
                    "stem": stem,
                    "players": [ids[a], ids[b]],
                    "games": games,
                    "wins": wins,
                    "rows": rows,
                }
            )
    result = {"rules": game_rules.__dict__, "seed": seed, "out": str(out), "matches": summary}
    if as_json:
        print(json.dumps(result, indent=2))
        return
    table = Table(title=f"hog matches → {out}")
    for name in ("match", "games", "wins A", "wins B", "turn rows"):
        table.add_column(name, justify="left" if name == "match" else "right")
    for match in summary:
        a, b = match["players"]
        table.add_row(
            match["stem"],
            f"{games:,}",
            f"{match['wins'][a]:,}",
            f"{match['wins'][b]:,}",
            f"{match['rows']:,}",
        )
    console.print(table)


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
    db: Annotated[
        Path | None,
        typer.Option(
            "--db", help="Warehouse file (default: $MINE_DB or ./mine.duckdb).", show_default=False
        ),
    ] = None,
    as_json: Json = False,
) -> None:
    """Fit a Hog table from the warehouse: learn the rules and the players, solve exactly."""
    from warehouse.connection import WarehouseBusy, WarehouseMissing, connect

    try:
        con = connect(db, read_only=True)
    except (WarehouseBusy, WarehouseMissing) as error:
        raise _fail(str(error)) from None
    try:
        turns = con.sql("SELECT * FROM hog_turns ORDER BY log_id, line").pl()
        games = con.sql("SELECT * FROM hog_games ORDER BY log_id, line").pl()
    except duckdb.Error as error:
        raise _fail(f"cannot read the Hog tables: {error}".splitlines()[0]) from None
    finally:
        con.close()
    try:
        fitted = hog_model.fit(turns, games, method=method, against=against)
    except hog_model.FitError as error:
        raise _fail(str(error)) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    hog_model.write_table(out, fitted.table, fitted.metadata)
    if as_json:
        print(json.dumps({"table": str(out), **fitted.metadata}, indent=2))
        return
    learned = fitted.metadata["learned"]
    table = Table(title=f"hog {method} table → {out}", show_header=False)
    for name, value in (
        ("games / rows", f"{fitted.metadata['games']:,} / {fitted.metadata['rows']:,}"),
        ("goal", learned["goal"]),
        ("dice", f"{learned['dice_sides']} sides, fair: {learned['fair_die']}"),
        ("Sow Sad", learned["sow_sad"]),
        ("Pig Tail cells seen", learned["pig_tail_cells_observed"]),
        ("Square Swine", learned["square_swine"]),
        ("model win rate", fitted.metadata["model_win_rate"]["average"]),
    ):
        table.add_row(name, str(value))
    console.print(table)


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
    except ValueError as error:
        raise _fail(str(error)) from None


def generate(
    table: Annotated[Path, typer.Option(help="A table written by `mine fit hog`.")],
    out: Annotated[Path, typer.Option(help="The player module to write.")] = Path("hog_player.py"),
) -> None:
    """Generate a single-file, standard-library-only Hog player from a table."""
    strategy, metadata = _read_table(table)
    rules = _reference_rules(metadata)
    card = report_card(strategy, rules, BASELINES)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_module(out, strategy, metadata, card)
    console.print(
        f"wrote {out}: vs always_roll:6 "
        f"{card['against']['always_roll:6']['average']:.6f} (best possible "
        f"{card['best_possible_vs_always_roll_6']['average']:.6f}), guaranteed "
        f"{card['guaranteed']['average']:.6f}"
    )


def _load_player(path: Path) -> tuple[Any, int]:
    if not path.is_file():
        raise _fail(f"{path}: no such file")
    spec = importlib.util.spec_from_file_location(f"hog_player_{abs(hash(path))}", path)
    if spec is None or spec.loader is None:
        raise _fail(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # a broken player is the user's input, not our bug
        raise _fail(f"{path}: cannot load ({type(error).__name__}: {error})") from None
    strategy = getattr(module, "final_strategy", None)
    if not callable(strategy):
        raise _fail(f"{path}: defines no final_strategy(score, opponent_score)")
    goal = len(getattr(module, "STRATEGY_TABLE", ())) or 100
    return strategy, goal


def validate(
    player: Annotated[Path, typer.Argument(help="A player module with final_strategy.")],
    rules: RulesOption = None,
    as_json: Json = False,
) -> None:
    """Exact win rates of a player against every baseline and the optimal strategy."""
    strategy, goal = _load_player(player)
    game_rules = _rules(rules, HogRules(goal=goal))
    try:
        table = as_table(strategy, game_rules)
    except (ValueError, TypeError, IndexError) as error:
        raise _fail(f"{player}: final_strategy is not a Hog strategy here ({error})") from None
    card = report_card(table, game_rules, BASELINES)
    if as_json:
        print(json.dumps({"player": str(player), **card}, indent=2))
        return
    console.print(
        _card_table(
            card, f"{player} (exact, goal {game_rules.goal}, {game_rules.dice_sides}-sided dice)"
        )
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
    goal, cell = table.shape[0], 6
    size = goal * cell
    rects = "".join(
        f'<rect x="{o * cell}" y="{s * cell}" width="{cell}" height="{cell}" '
        f'fill="{PALETTE[min(int(table[s, o]), len(PALETTE) - 1)]}"><title>score {s}, '
        f"opponent {o}: roll {int(table[s, o])}</title></rect>"
        for s in range(goal)
        for o in range(goal)
    )
    ticks = "".join(
        f'<text x="{t * cell}" y="-4" font-size="10">{t}</text>'
        f'<text x="-4" y="{t * cell + 8}" font-size="10" text-anchor="end">{t}</text>'
        for t in range(0, goal, 10)
    )
    legend = "".join(
        f'<span class="key"><i style="background:{PALETTE[k]}"></i>{k}</span>'
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
pre {{ background: #f8f8f8; padding: 1em; font-size: 12px; }}
</style></head><body>
<h1>Hog strategy ({html.escape(str(metadata.get("method")))})</h1>
<p>Dice to roll for each state: row = my score, column = the opponent's score
(goal {goal}). Hover a cell for its value.</p>
<p>{legend}</p>
<svg xmlns="http://www.w3.org/2000/svg" width="{size + 40}" height="{size + 30}"
 viewBox="-30 -20 {size + 40} {size + 30}">{ticks}{rects}</svg>
<h2>Exact win probabilities (reference rules)</h2>
<table><tr><th>against</th><th>first</th><th>second</th><th>average</th></tr>{rows}</table>
<h2>Provenance</h2>
<pre>{meta}</pre>
</body></html>
"""


COMMANDS = {
    "simulate": simulate,
    "fit": fit,
    "generate": generate,
    "validate": validate,
    "report": report,
}

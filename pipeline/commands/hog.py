"""`mine <verb> hog`: Hog's own options, what its commands print, its demo, its tournament.
`--logs GLOB` narrows stats and fit to some of the warehouse's logs, so that one warehouse
can hold several rule variants.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from mine.pipeline import options
from mine.pipeline.console import console, show, show_pairs, unless_none
from mine.pipeline.options import own
from mine.pipeline.stats.hog import BUCKET, HogStats, headline
from mine.strategies.bots.hog import BASELINES
from mine.strategies.engines.hog import HogRules
from mine.strategies.validation.hog import card_rows

BOTS = ",".join(BASELINES)  # a tournament's bots unless --bots says otherwise


OPTIONS = {
    "simulate": {
        "games": (options.games("Games per match."), 1000),
        "players": (options.players("Bots, comma-separated (always_roll:6, tail_strategy, "
                                    "square_strategy:12:6, random:SEED); every pair plays a "
                                    "match, unless --opponent is given."),
                    "always_roll:6,square_strategy"),
    },
    "stats": {
        "bucket": own(int, "--bucket", BUCKET, "Width of the win-rate score buckets.", min=1)
    },
    "fit": {
        "method": own(str, "--method", "best-response",
                      "best-response (to the logged players) or minimax."),
        "opponent": own(str | None, "--opponent", None,
                        "Best-respond to this logged player id only (default: every one)."),
    },
}  # fmt: skip
ABOUT = {
    "simulate": "Play matches between Hog bots and write <stem>.csv + <stem>-score.csv per match.",
    "stats": "Derive Hog's statistics from the warehouse and store them as stats_hog_* tables: "
    "points by number of dice (Sow Sad), Pig Tail, Square Swine, win rates by state and k.",
    "fit": "Fit a Hog table from the warehouse: learn the rules and the players, solve exactly.",
    "generate": "Generate a single-file, standard-library-only Hog player from a table.",
    "validate": "Exact win rates of a player against every baseline and the optimal strategy "
    "(and --against another file), in the rules the module states (RULES, else goal = its "
    "table's size) with --rules over them.",
    "report": "Write one self-contained HTML page: the table as a heat map, its exact win "
    "rates and its provenance.",
}


def tournament(
    files: options.PlayerFiles = None,
    bots: options.bots("always_roll:N, tail_strategy, square_strategy, random, …") = BOTS,
    games: options.games("Weight of each pairing in the ratings (its win rates are exact).") = 100,
    seed: options.Seed = 0,
    workers: options.Workers = 1,
    rules: options.Rules = None,
    cluster: options.Cluster = None,
    as_json: options.Json = False,
    html: options.Html = None,
) -> None:
    """A round robin of player files and bots: every pairing's exact win rate (each side
    moving first half the time), Elo-style ratings, faults; in the default rules with
    --rules over them."""
    from mine.pipeline.commands import tournament as shared
    from mine.strategies.tournament.match import Context

    context = Context(options.game_rules(HogRules, rules))
    shared.run("hog", files, bots, games, seed, workers, context, as_json, html, cluster)


# --- what the commands print ------------------------------------------------------

DIGITS = {str(d): str(d) for d in range(10)}


def stats(stats: HogStats) -> None:
    """The five tables `mine stats hog` prints: rows, title, headings, formats, caption."""
    rate = "{:.3f}".format
    figures, tail = headline(stats), stats.pig_tail
    grid = state_grid(stats.win_rates)
    buckets = [key for key in (grid[0] if grid else {}) if key != "score"]
    bucket = min((int(b) for b in buckets if int(b) > 0), default=None)  # the width asked for
    mixed = tail.filter(pl.col("share") < 1).select("tens", "ones").unique().height
    tables = (
        (points_summary(stats.points),
         "points by number of dice (k = 0: Pig Tail; mass at 1: Sow Sad)",
         {"num_rolls": "k", "turns": "turns", "mean": "mean points", "at_1": "points = 1",
          "share": "share at 1", "most": "most points"},
         {"mean": "{:.2f}".format, "share": rate}, None),
        (pig_tail_grid(tail),
         "Pig Tail: points of rolling 0 by the opponent's score digits (most common)",
         {"tens": "tens \\ ones", **DIGITS}, dict.fromkeys(DIGITS, unless_none(str, "·")),
         f"{int(tail['turns'].sum()):,} zero-dice turns; "
         f"{mixed} digit pairs scored more than one way"),
        (stats.square_swine.filter("fired").sort("total").to_dicts(),
         "Square Swine: totals that moved",
         {"total": "total", "new_score": "became", "bonus": "bonus", "turns": "turns",
          "opportunities": "of turns there", "share": "share"},
         {"bonus": "+{}".format, "share": rate},
         f"fired on {figures['square_swine_fired']:,} of {figures['turns']:,} turns, "
         f"{figures['square_swine_bonus_points']:,} bonus points in all"),
        (choice_rates(stats.win_rates),
         "win rate of the mover by choice of k (all states, all players)",
         {"num_rolls": "k", "wins": "wins", "opportunities": "turns", "win_rate": "win rate"},
         {"win_rate": rate}, None),
        (grid, "win rate of the mover by score (rows) and opponent score (columns), "
         f"buckets of {bucket or 'any width (one bucket)'}",
         {"score": "score", **{b: b for b in buckets}},
         dict.fromkeys(buckets, unless_none("{:.2f}", "·")),
         "counts per player and k: table stats_hog_win_rates"),
    )  # fmt: skip
    for rows, title, columns, formats, caption in tables:
        show(rows, title, columns, formats, caption)


def points_summary(points: pl.DataFrame) -> list[dict[str, Any]]:
    """Per number of dice k: turns, mean points, turns scoring 1 and their share, most."""
    return (
        points.group_by("num_rolls")
        .agg(
            pl.col("turns").sum(),
            ((pl.col("points") * pl.col("turns")).sum() / pl.col("turns").sum()).alias("mean"),
            pl.col("turns").filter(pl.col("points") == 1).sum().alias("at_1"),
            pl.col("points").max().alias("most"),
        )
        .with_columns((pl.col("at_1") / pl.col("turns")).alias("share"))
        .sort("num_rolls")
        .to_dicts()
    )


def pig_tail_grid(tail: pl.DataFrame) -> list[dict[str, Any]]:
    """The most common points of rolling 0, a row per tens digit of the opponent's score
    (`tens`) and a column per ones digit (`"0"` … `"9"`); None where none was seen."""
    modal = {
        (t, o): p
        for t, o, p, *_ in tail.sort(["tens", "ones", "turns"], descending=[False, False, True])
        .unique(["tens", "ones"], keep="first")
        .iter_rows()
    }
    return [
        {"tens": tens, **{str(ones): modal.get((tens, ones)) for ones in range(10)}}
        for tens in range(10)
    ]


def choice_rates(rates: pl.DataFrame) -> list[dict[str, Any]]:
    """The mover's wins out of turns by the number of dice chosen, every state pooled."""
    return (
        rates.group_by("num_rolls")
        .agg(pl.col("wins").sum(), pl.col("opportunities").sum())
        .with_columns((pl.col("wins") / pl.col("opportunities")).alias("win_rate"))
        .sort("num_rolls")
        .to_dicts()
    )


def state_grid(rates: pl.DataFrame) -> list[dict[str, Any]]:
    """The mover's win rate by score bucket (`score`, a row) and opponent bucket (a
    column named by the bucket), every k pooled; None where no turn was taken."""
    pooled = rates.group_by("score_bucket", "opponent_bucket").agg(
        pl.col("wins").sum(), pl.col("opportunities").sum()
    )
    cells = {(s, o): w / n for s, o, w, n in pooled.iter_rows()}
    buckets = sorted({s for s, _ in cells} | {o for _, o in cells})
    return [{"score": s, **{str(o): cells.get((s, o)) for o in buckets}} for s in buckets]


def fitted(fitted: Any, path: Path) -> None:
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


def generated(path: Path, card: dict[str, Any]) -> None:
    console.print(
        f"wrote {path}: vs always_roll:6 "
        f"{card['against']['always_roll:6']['average']:.6f} (best possible "
        f"{card['best_possible_vs_always_roll_6']['average']:.6f}), guaranteed "
        f"{card['guaranteed']['average']:.6f}"
    )


def validated(card: dict[str, Any]) -> None:
    rate, rules = "{:.6f}".format, card["rules"]
    show(
        card_rows(card),
        f"{card['player']} (exact, goal {rules['goal']}, {rules['dice_sides']}-sided dice)",
        formats={"first": rate, "second": rate, "average": rate},
    )
    gaps = card["gaps"]
    console.print(
        f"gap to the best possible vs always_roll:6: "
        f"{gaps['best_vs_always_roll_6_minus_player']:.6f}; gap to the optimal guaranteed: "
        f"{gaps['optimal_guaranteed_minus_player_guaranteed']:.6f}"
    )


# --- its part of `mine demo` ------------------------------------------------------

QUERIES: dict[str, str] = {}  # Hog has no example logs
LOOP = (
    "simulate hog --players square_strategy,tail_strategy,always_roll:4,random:1 "
    "--opponent always_roll:6 --games 5000 --seed 0 --out {out}/logs",
    "ingest {out}/logs --db {db}",
    "stats hog --db {db} --logs {out}/logs/*",
    "fit hog --method best-response --opponent always_roll:6 --db {db} --logs {out}/logs/* "
    "--out {out}/best-response.parquet",
    "generate hog --table {out}/best-response.parquet --out {out}/hog_best_response.py",
    "validate hog {out}/hog_best_response.py",
    "report hog --table {out}/best-response.parquet --out {out}/hog-best-response.html",
    "fit hog --method minimax --db {db} --logs {out}/logs/* --out {out}/minimax.parquet",
    "generate hog --table {out}/minimax.parquet --out {out}/hog_minimax.py",
    "validate hog {out}/hog_minimax.py",
)

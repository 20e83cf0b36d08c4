"""`mine <verb> supernim`: Super-Nim's own options, what its commands print, its demo,
its tournament."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from mine.models.supernim import Fitted
from mine.pipeline import options
from mine.pipeline.console import console, interval, show, show_pairs, unless_none
from mine.pipeline.options import own
from mine.pipeline.stats.supernim import SuperNimStats
from mine.strategies.bots.supernim import BASELINES
from mine.strategies.engines import supernim as engine
from mine.strategies.players.supernim import DEPTH
from mine.strategies.validation.supernim import CHECK_GAMES


class Board(tuple):
    """A start board from the command line: heap sizes like 2,4,2,3, or random (None)."""


def _board(start: str) -> Board | None:
    if start == "random":
        return None
    try:
        return Board(engine.parse_board(start))
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None


OPTIONS = {
    "simulate": {
        "games": (options.games("Games per pairing (each board from both sides)."), 100),
        "players": (options.players("Bots, comma-separated (random, greedy, alphabeta:D, "
                                    "exact): every pair plays one match, the first named as "
                                    "max."), "random,alphabeta:3"),
        "board": own(Board | None, "--start", "random", "The start board (heap sizes like "
                     "2,4,2,3), or random: 3-6 heaps of 1-10.", parser=_board, metavar="BOARD"),
    },
    "stats": {"rules": (options.Rules, None)},
    "fit": {"rules": (options.Rules, None)},
    "generate": {
        "budget": own(float, "--budget", 0.2, "Seconds per move at most (≤ 1).", min=0.01, max=1.0),
        "depth": own(int, "--depth", DEPTH, "Search depth cap (plies).", min=1, max=8),
        "games": own(int, "--check-games", CHECK_GAMES,
                     "Games per opponent behind the docstring's figures.", min=4,
                     max=options.MAX_GAMES),  # its start boards are listed before play
    },
    "validate": {
        "games": (options.games("Games per opponent (random start boards, both first movers).",
                                2), 1000),
        "baselines": (options.baselines("Opponents, comma-separated."), ",".join(BASELINES)),
        "equal_depth": own(int, "--equal-depth", 3,
                           "Also play the file's search at this depth against alphabeta at the "
                           "same depth (its heuristic against the plain one); 0: skip.",
                           min=0, max=8),
        "four_fields": own(bool, "--four-fields", False,
                           "Ask the file with the handout's four fields only (ai_move(state)), "
                           "not with the moves left."),
        "seed": (options.Seed, 0),
        "workers": (options.Workers, 1),
    },
    "report": {
        "games": (options.games("Without --card: games against each baseline behind the "
                                "page's strength section."), 40),
    },
}  # fmt: skip
ABOUT = {
    "simulate": "Play Super-Nim matches between bots and write each as <stem>.csv + "
    "<stem>-score.csv.",
    "stats": "Derive Super-Nim's statistics and store them as stats_supernim_* tables: outcomes "
    "by pairing and start board, position values, outcomes by move kind, score trajectories.",
    "fit": "Fit Super-Nim's heuristic from the warehouse: fitted value iteration over the "
    "logged boards' feature cells, checked against the exact value on held-out positions.",
    "generate": "Generate a single-file, standard-library-only Super-Nim player from a table.",
    "validate": "Play a player file against the baselines (and --against another file) from "
    "random start boards, both sides: win/draw/loss with 95 % intervals, cut-offs, margin, "
    "invalid moves, p99 move time, and results against the exact value.",
    "report": "Write one self-contained HTML page: win rates by pairing (logs) and of the player "
    "(its validation card), score trajectories, position values, and the table's provenance.",
}


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


# --- what the commands print ------------------------------------------------------


RATE = "{:.3f}".format


def stats(stats: SuperNimStats) -> None:
    show(
        stats.pairings.to_dicts(),
        "outcomes by pairing (max vs min)",
        formats={"max_win_rate": RATE, "draw_rate": RATE, "cutoff_rate": RATE},
    )
    show(
        stats.parity.to_dicts(),
        "outcomes by start 2-heap parity (odd: the first mover cashes one more)",
        formats={"first_win_rate": RATE},
    )
    show(
        stats.value.to_dicts(),
        "results against the exact value (value-losing moves per side; max's margin - value)",
        # none where the solver reaches no start (a variant's long games)
        formats={"max_margin_minus_value": unless_none("{:+.3f}")},
    )
    show(
        stats.kinds.to_dicts(),
        "outcomes by move kind (final margin from the mover's side)",
        formats={"mean_final_margin": "{:+.3f}".format, "win_rate": RATE},
    )
    show(
        stats.features.sort("positions", descending=True).head(12).to_dicts(),
        "position value by board features (the 12 most seen)",
        formats={"mean_future_margin": "{:+.3f}".format, "mean_final_margin": "{:+.3f}".format},
    )


def fitted(fitted: Fitted, path: Path) -> None:
    meta = fitted.metadata
    held = meta["holdout"]
    show_pairs(
        f"supernim heuristic table → {path}",
        [
            ("logs / games / positions", f"{meta['logs']} / {meta['games']:,} / {meta['rows']:,}"),
            ("data fingerprint", meta["fingerprint"][:16] + "…"),
            ("model", meta["method"]),
            ("feature cells / boards", f"{meta['feature_cells']:,} / {meta['boards']:,}"),
            (
                "held-out |fit - value|, 2-heap / none",
                f"{held['mean_abs_error_with_two']:.3f} / {held['mean_abs_error_without_two']:.3f}",
            ),
            (
                "held-out |0 - value| (plain), 2-heap / none",
                f"{held['plain_mean_abs_error_with_two']:.3f} / "
                f"{held['plain_mean_abs_error_without_two']:.3f}",
            ),
            ("exact yardstick boards", meta["yardstick"]["boards"]),
            ("mean |fit - exact|", f"{meta['yardstick']['mean_abs_error']:.3f}"),
            ("mean |0 - exact| (plain)", f"{meta['yardstick']['plain_mean_abs_error']:.3f}"),
        ],
    )


def generated(path: Path, card: dict[str, Any]) -> None:
    console.print(
        f"wrote {path} (depth {card['depth']}, at most {card['budget_seconds']} s a move)"
    )


def _against_value(row: dict[str, Any] | None) -> dict[str, Any]:
    """The card's figures against the exact value (blank where no start was solved)."""
    if row is None:
        return dict.fromkeys(("below value", "margin - value", "odd: 1st wins", "even: losses"))
    return {
        "below value": interval(row["below_value"], "{:.4f}"),
        "margin - value": row["mean_margin_minus_value"],
        "odd: 1st wins": interval(row["odd_first_wins"], "{:.3f}"),
        "even: losses": interval(row["even_losses"], "{:.4f}"),
    }


def validated(card: dict[str, Any]) -> None:
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
            **_against_value(row.get("against_value")),
        }
        for name, row in card["against"].items()
    ]
    show(
        rows,
        f"{card['player']} ({card['rules_text']}; asked with {card['asked_with']})",
        formats={
            "cutoff": "{:.1%}".format,
            "margin - value": unless_none("{:+.3f}"),
        },  # fmt: skip
    )


# --- its part of `mine demo` ------------------------------------------------------

QUERIES = {
    "Super-Nim example logs: outcomes by pairing": """
        SELECT max_player, min_player, count(*) AS games,
               count(*) FILTER (winner = 'max') AS max_wins,
               count(*) FILTER (winner = 'min') AS min_wins,
               count(*) FILTER (ended = 'cutoff') AS cutoffs
        FROM supernim_matches WHERE log_id IN (SELECT log_id FROM example_logs)
        GROUP BY ALL ORDER BY ALL
    """,
    "Super-Nim example logs: points by move kind": """
        SELECT kind, count(*) AS moves, count(*) FILTER (kind = 'split') * 2 AS points
        FROM supernim_moves WHERE log_id IN (SELECT log_id FROM example_logs)
        GROUP BY ALL ORDER BY ALL
    """,
}
LOOP = (
    "simulate supernim --players random,greedy,alphabeta:1,alphabeta:2 --games 60 --seed 0 "
    "--out {out}/logs",
    "ingest {out}/logs --db {db}",
    "stats supernim --db {db} --logs {out}/logs/*",
    "fit supernim --db {db} --logs {out}/logs/* --out {out}/supernim-table.parquet",
    "generate supernim --table {out}/supernim-table.parquet --out {out}/supernim_player.py "
    "--check-games 40",
    "validate supernim {out}/supernim_player.py --games 40 --baselines random,greedy,alphabeta:2 "
    "--equal-depth 0",
    "report supernim --table {out}/supernim-table.parquet --db {db} --logs {out}/logs/* "
    "--out {out}/supernim-report.html",
)

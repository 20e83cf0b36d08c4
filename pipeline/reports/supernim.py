"""Super-Nim's report: win rates by pairing (the logs) and of the generated player (its
validation card), score trajectories, and the values the fitted heuristic learned."""

from __future__ import annotations

from typing import Any, NamedTuple

import duckdb
import polars as pl

from mine.models.supernim import Fitted
from mine.pipeline.reports import kit
from mine.pipeline.stats import opponents
from mine.pipeline.stats.supernim import SuperNimStats, by_opponent, derive

RATE = "{:.3f}".format
TRAJECTORY_PAIRINGS = 6  # the most played pairings get a score graph


class Observed(NamedTuple):
    """What the page draws of the logs."""

    stats: SuperNimStats
    opponents: pl.DataFrame  # the logs' player against each opponent, weakest first


def observed(con: duckdb.DuckDBPyConnection, log_ids: list[int] | None) -> Observed:
    """What the page draws of the logs: their statistics, and the player they are most
    about against each opponent it met (`by_opponent`)."""
    return Observed(derive(con, log_ids), opponents.of_player(by_opponent(con, log_ids)))


def html(fitted: Fitted, observed: Observed | None, measured: dict[str, Any]) -> str:
    """The page of a fitted heuristic, led by how strong its player is (`measured`: its
    validation card); with a warehouse, the logs' player against each opponent, the logs'
    outcomes and score trajectories; and what the heuristic learned."""
    stats = None if observed is None else observed.stats
    sections = [strength(measured)]
    sections += [] if observed is None else [against_each(observed.opponents), *_logs(stats)]
    sections.insert(1, _validation(measured))
    sections.append(_learned(fitted, stats))
    return kit.page(
        "Super-Nim heuristic",
        sections,
        fitted.metadata,
        intro=f"Fitted from {fitted.metadata.get('games', '?')} games "
        f"({fitted.metadata.get('rows', '?')} positions): {fitted.metadata.get('method')}.",
    )


def strength(card: dict[str, Any]) -> kit.Section:
    """The player against the exact value of its starts, each opponent's games: its mean
    final margin minus that value, with its interval (0: it keeps the value; below 0: it
    gives points away), and how often it ends below it. Where the solver reaches no start
    (the capped-merge variant's long games), its win rate."""
    valued = {name: row for name, row in card["against"].items() if "against_value" in row}
    played = (
        f"The generated player (search depth {card.get('depth')}, "
        f"{card.get('budget_seconds')} s a move) against each opponent "
        f"({card.get('rules_text', '')}), from random start boards, both sides and both "
        "first movers"
    )
    if not valued:  # its win rates, where no start's value is known
        rows = [
            kit.Measured(name, row["win"]["mean"], tuple(row["win"]["ci95"]), row["games"],
                         note=f"draws {RATE(row['draw']['mean'])} · losses "
                         f"{RATE(row['loss']['mean'])}")
            for name, row in card["against"].items()
        ]  # fmt: skip
        summary = f"{played}; a draw is not a win. {_yardstick_text(card)}"
        return kit.strength(rows, measure="win rate", summary=summary)
    rows = []
    for name, row in valued.items():
        value = row["against_value"]
        # a card from before the margin's interval, or of one game, has none: "–"
        below, ci = value["below_value"], value.get("margin_minus_value_ci95")
        rows.append(kit.Measured(
            name, value["mean_margin_minus_value"], tuple(ci) if ci else None,
            value.get("games_with_value", row["games"]),
            note=f"below the value in {RATE(below['mean'])} of games "
            f"[{RATE(below['ci95'][0])}, {RATE(below['ci95'][1])}]; win "
            f"{RATE(row['win']['mean'])} · draw {RATE(row['draw']['mean'])} · loss "
            f"{RATE(row['loss']['mean'])}",
        ))  # fmt: skip
    return kit.strength(
        rows,
        measure=MARGIN,
        summary=f"{played}, set against the exact value of each start: its final margin minus "
        "that value, averaged (0: it keeps the value; above 0: it wins more than a perfect "
        "opponent would allow; below 0: it gives points away). " + _yardstick_text(card),
        fmt=SIGNED,
        reference=0.0,
    )


def against_each(pairings: pl.DataFrame) -> kit.Section:
    """The logs' player against each opponent it met: its mean final margin, with
    intervals."""
    player = pairings["player"][0] if pairings.height else "–"
    return kit.against_each(
        pairings.to_dicts(),
        note=lambda r: f"won {r['wins']:,} · drew {r['draws']:,} · lost {r['losses']:,}",
        measure="mean final margin",
        summary=f"The logs' games of {player}, the player in the most of their matches "
        "(named by the files: max-vs-min; ties go to the first by name), against each "
        "player it met: its final score minus the opponent's, averaged over the games, "
        "with the normal 95 % interval. These are the logged games, not the generated "
        "player's (its games lead the page).",
        fmt=SIGNED,
        reference=0.0,
    )


MARGIN = "final margin minus the exact value"
SIGNED = "{:+.3f}".format


def _yardstick_text(card: dict[str, Any]) -> str:
    """What the card's results are set against: the closed form, or the variant's search."""
    if isinstance(card.get("rules"), dict) and card["rules"].get("cap_scores"):
        return (
            "Where merges score (cap_scores) the exact value of a start is the solver's "
            'search to the cut-off, within its reach (short games): "The generated '
            'player" sets each game it reaches against it. `mine validate supernim` plays '
            "more games."
        )
    return (
        "Every start's exact value is known (the split reward to the mover when the board "
        "holds an odd number of 2-heaps, else 0), so a win rate is no yardstick: a player "
        "that keeps the value wins only the odd boards it moves first on against an "
        "opponent that keeps it too (its win rates are under The generated player). "
        "`mine validate supernim` plays more games."
    )


def _logs(stats: SuperNimStats) -> list[kit.Section]:
    pairings = stats.pairings.sort("games", descending=True)
    rates = dict.fromkeys(("max_win_rate", "draw_rate", "cutoff_rate"), RATE)
    sides = pairings.select("max_player", "min_player").rows()
    return [
        kit.Section(
            "Win rates by pairing",
            "Every pairing in the logs (max bot, min bot; first movers alternate): wins of "
            "each side, draws and games cut off at the move limit, with their rates.",
            [
                kit.count_table(pairings.to_dicts(), title="Outcomes by pairing", formats=rates),
                kit.bar_plot(
                    [f"{a} v {b}" for a, b in sides],
                    {
                        "max wins": pairings["max_win_rate"].to_list(),
                        "min wins": (pairings["min_wins"] / pairings["games"]).to_list(),
                        "draws": pairings["draw_rate"].to_list(),
                        "cut-offs": pairings["cutoff_rate"].to_list(),
                    },
                    title="Rates by pairing",
                    x_label="pairing (max v min)",
                    y_label="share of games",
                    fmt=RATE,
                    colours={"draws": kit.DRAW},
                ),
            ],
        ),
        kit.Section(
            "Score trajectories",
            "Mean scores of max and min after each move, over the games of a pairing "
            "still going at that move: how points accrue in games that mostly run to the "
            "cut-off.",
            [_trajectory(stats.trajectories, a, b) for a, b in sides[:TRAJECTORY_PAIRINGS]],
        ),
    ]


def _learned(fitted: Fitted, stats: SuperNimStats | None) -> kit.Section:
    kinds = [] if stats is None else [
        kit.count_table(
            stats.kinds.to_dicts(),
            title="Outcomes by move kind (the mover's side)",
            formats={"mean_final_margin": "{:+.3f}".format, "win_rate": RATE},
        )
    ]  # fmt: skip
    return kit.Section(
        "What the heuristic learned",
        "The fitted future margin of the mover by the number of 2-heaps on the board "
        "(where merges score: by the sticks the largest merge loses to the cap), averaged "
        "over the table's other cells, and the "
        "positions the logs saw per move kind. " + _fit_text(fitted.metadata),
        [
            *kinds,
            kit.count_table(
                _values_by_first(fitted),
                title=f"Fitted future margin by {LABELS[_first(fitted)]} (mean over feature cells)",
                formats={"mean_value": "{:+.3f}".format},
            ),
        ],
    )


def _fit_text(metadata: dict[str, Any]) -> str:
    """How well the fit knows the exact value on positions it did not see."""
    held, near = metadata.get("holdout"), metadata.get("yardstick")
    if held is None:
        return ""
    if not held["positions_with_two"] + held["positions_without_two"] and near:
        return (  # no closed form to meet far from the cut-off (cap_scores)
            f"On {near['boards']} positions held out of the fit, at most "
            f"{near['moves_left_at_most']} moves from the cut-off, its mean error against "
            f"the exact value is {near['mean_abs_error']:.2f} (the plain score "
            f"difference's: {near['plain_mean_abs_error']:.2f})."
        )
    return (
        f"On positions held out of the fit ({held['moves_left_at_least']} moves or more "
        "from the cut-off), its mean error against the exact value is "
        f"{held['mean_abs_error_with_two']:.2f} with a 2-heap on the board (the plain score "
        f"difference's: {held['plain_mean_abs_error_with_two']:.2f}) and "
        f"{held['mean_abs_error_without_two']:.2f} without one "
        f"({held['plain_mean_abs_error_without_two']:.2f})."
    )


def _trajectory(trajectories: pl.DataFrame, max_player: str, min_player: str) -> str:
    rows = trajectories.filter(
        (pl.col("max_player") == max_player) & (pl.col("min_player") == min_player)
    ).sort("move")
    moves = rows["move"].to_list()
    return kit.line_plot(
        {
            f"max ({max_player})": (moves, rows["mean_score_max"].to_list()),
            f"min ({min_player})": (moves, rows["mean_score_min"].to_list()),
        },
        title=f"{max_player} v {min_player}: mean scores by move",
        x_label="move",
        y_label="mean score",
        zero=True,
    )


LABELS = {"twos": "2-heaps", "gain": "the sticks the largest merge loses to the cap"}


def _first(fitted: Fitted) -> str:
    """The table's first feature: the 2-heaps, or where merges score the largest merge's
    lost sticks (`gain`)."""
    return next(iter(fitted.metadata["settings"].get("caps", {"twos": 0})))


def _values_by_first(fitted: Fitted) -> list[dict[str, Any]]:
    by_first: dict[int, list[float]] = {}
    for key, value in fitted.cells.items():
        by_first.setdefault(key[0], []).append(value)
    return [
        {_first(fitted): count, "cells": len(values), "mean_value": sum(values) / len(values)}
        for count, values in sorted(by_first.items())
    ]


def _validation(card: dict[str, Any]) -> kit.Section:
    rows, kept = [], ("cutoff_rate", "mean_margin", "invalid_moves", "p99_move_seconds")
    for name, row in card["against"].items():  # read in the columns' order, so a card without one
        # names the same first missing figure
        shown = {"opponent": name, "games": row["games"], "win": row["win"]["mean"]}
        shown |= {"win_low": row["win"]["ci95"][0], "win_high": row["win"]["ci95"][1]}
        shown |= {"draw": row["draw"]["mean"], "loss": row["loss"]["mean"]}
        rows.append(shown | {key: row[key] for key in kept})
    rates = ("win", "win_low", "win_high", "draw", "loss", "cutoff_rate")
    valued = [(name, row["against_value"]) for name, row in card["against"].items()
              if "against_value" in row]  # fmt: skip
    return kit.Section(
        "The generated player",
        f"The player file against each opponent ({card.get('rules_text', '')}), "
        "from random start boards, both sides, both first movers; Wilson 95 % intervals.",
        [
            kit.count_table(rows, title="Win / draw / loss", formats=dict.fromkeys(rates, RATE)),
            kit.bar_plot(
                [row["opponent"] for row in rows],
                {k: [row[k] for row in rows] for k in ("win", "draw", "loss")},
                title="The player's results by opponent",
                x_label="opponent",
                y_label="share of games",
                fmt=RATE,
                colours=kit.OUTCOMES,
                errors={
                    k: [tuple(r[k]["ci95"]) for r in card["against"].values()]
                    for k in ("win", "draw", "loss")
                },  # fmt: skip
                caption="Bars: the share of games; whiskers: its 95 % interval.",
            ),
            *_against_value(valued, card.get("asked_with", "the moves left")),
        ],
    )


def _against_value(valued: list[tuple[str, dict[str, Any]]], asked: str) -> list[str]:
    """The player against the exact value of each start: games ended below it, mean margin
    minus it, first-mover wins on odd boards and losses on even boards (the margin's
    interval is drawn where the page leads)."""
    if not valued:
        return []
    rows = []
    for name, row in valued:
        shown = {"opponent": name}
        for figure in ("below_value", "odd_first_wins", "even_losses"):
            found = row[figure]
            shown |= {figure: found["mean"], f"{figure}_low": found["ci95"][0]}
            shown[f"{figure}_high"] = found["ci95"][1]
        rows.append({**shown, "mean_margin_minus_value": row["mean_margin_minus_value"]})
    return [
        kit.count_table(
            rows,
            title=f"Against the exact value (asked with {asked})",
            formats={key: RATE for key in rows[0] if key != "opponent"},
        ),
        kit.interval_plot(
            [
                (name, row["below_value"]["mean"], tuple(row["below_value"]["ci95"]))
                for name, row in valued
            ],  # fmt: skip
            title="Games the player ends below the exact value (95 % interval)",
            x_label="share of games",
            marks=[0.0] * len(valued),
        ),
    ]  # the mean margin minus the value, with its interval, leads the page

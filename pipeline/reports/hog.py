"""Hog's report: how strong the table is (exact win probabilities against every baseline
and the optimal strategy, each beside the best possible), the table as a map of dice per
state, and how many states call for each number of dice."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from mine.pipeline.reports import kit
from mine.pipeline.stats import hog as stats
from mine.pipeline.stats import opponents
from mine.strategies.bots.hog import BASELINES, make_bot
from mine.strategies.engines.hog import DEFAULT_RULES, HogRules, as_table
from mine.strategies.solvers.hog import TurnModel, best_response, optimal

# Dice 0 (Pig Tail) … 10 (the spec's most), light to dark; a table that rolls more dice
# (learned from logs that show more) gets a palette as long as it needs.
PALETTE = kit.ordinal_palette(DEFAULT_RULES.max_rolls + 1)
CELL = 6  # pixels per state in the map
RATE = "{:.6f}".format


def observed(con: Any, log_ids: list[int] | None) -> pl.DataFrame:
    """What the page draws of the logs: the player they are most about against each
    opponent it met (`stats.by_opponent`), the weakest matchup first."""
    return opponents.of_player(stats.by_opponent(con, log_ids))


def html(fitted: Any, observed: pl.DataFrame | None, measured: dict[str, Any]) -> str:
    """The whole page of a fitted table (dice per state): how strong its player is,
    exactly (`measured`: its exact report card, `mine validate hog`'s); with a warehouse,
    how the logs' player did against each opponent (`observed`); the table; its
    provenance."""
    table, metadata = fitted.table, fitted.metadata
    goal = table.shape[0]
    labels = [str(score) for score in range(goal)]  # the kit labels as many as fit
    dice, states = np.unique(table, return_counts=True)
    most = int(table.max())
    palette = PALETTE if most < len(PALETTE) else kit.ordinal_palette(most + 1)
    sections = [
        strength(measured),
        *([] if observed is None else [against_each(observed)]),
        kit.Section(
            "Dice per state",
            f"The number of dice the table rolls in each state: row = my score, column = the "
            f"opponent's score (goal {goal}); 0 dice is Pig Tail. The table itself is in the "
            "generated player (STRATEGY_TABLE) and the table file.",
            [
                kit.heat_map(
                    table.tolist(),
                    labels,
                    labels,
                    title="Dice to roll",
                    value_label="dice",
                    x_label="opponent's score",
                    y_label="my score",
                    low=0,
                    high=most,
                    fmt=str,
                    cell=CELL,
                    palette=palette,
                    ident="dice-map",
                ),
                kit.bar_plot(
                    [str(k) for k in dice],
                    [count / table.size for count in states.tolist()],
                    title="Share of states by number of dice",
                    x_label="dice",
                    y_label="share of states",
                ),
            ],
        ),
    ]
    return kit.page(
        f"Hog strategy ({metadata.get('method')})",
        sections,
        metadata,
        intro=f"Fitted from {_count(metadata, 'logs')} logs ({_count(metadata, 'games')} games, "
        f"{_count(metadata, 'rows')} turns): {_method_text(metadata)}.",
    )


def strength(card: dict[str, Any]) -> kit.Section:
    """The player's exact win probability against each opponent of its card (the average
    of moving first and second), each beside the best any strategy wins against that
    opponent where it is a baseline or the optimal strategy; then what it is guaranteed
    beside what the optimum guarantees."""
    rules = HogRules.from_settings(card["rules"])  # a card's rules: bounded, as --rules are
    model = TurnModel.from_rules(rules)
    best = {spec: best_response(model, as_table(make_bot(spec, rules), rules)).average
            for spec in card["against"] if spec in BASELINES}  # fmt: skip
    best["optimal"] = best_response(model, optimal(model).table[0]).average
    measured = [
        kit.Measured(name, rates["average"], note=_seats(rates), best=best.get(name))
        for name, rates in card["against"].items()
    ]
    guaranteed = card["guaranteed"]
    measured.append(
        kit.Measured("its best response", guaranteed["average"], note=_seats(guaranteed),
                     best=card["optimal_guaranteed"]["average"])
    )  # fmt: skip
    first, optimum = measured[0], card["against"]["optimal"]["average"]
    return kit.strength(
        measured,
        measure="win probability",
        fmt=RATE,
        summary=f"Exact win probabilities by dynamic programming in the reference rules "
        f"({_rules_text(card['rules'])}), each the average of moving first and second: "
        f"{RATE(first.value)} against {first.against}, where the best any strategy wins is "
        f"{RATE(first.best)}; {RATE(optimum)} against the optimal strategy; and "
        f"{RATE(guaranteed['average'])} against the opponent that exploits the player best "
        f"(its best response), where the optimal strategy is sure of "
        f"{RATE(card['optimal_guaranteed']['average'])}. The exact optimum of each row is the "
        "best response to that opponent. Measured on the generated player file (`mine "
        "validate hog` writes the same card).",
    )


def against_each(pairings: pl.DataFrame) -> kit.Section:
    """The logs' player against each opponent it met there: its win rate, with intervals."""
    player = pairings["player"][0] if pairings.height else "–"
    return kit.against_each(
        pairings.to_dicts(),
        note=lambda r: f"{r['wins']:,} won of {r['n']:,}",
        measure="win rate",
        summary=f"The logs' games of {player}, the player in the most of their matches (each "
        "match of `mine simulate hog --opponent X` has X), against each player it met: its "
        "win rate with the Wilson 95 % interval. These are the logged games, not the "
        "table's player (its exact figures lead the page).",
        reference=0.5,
    )


def _seats(rates: dict[str, float]) -> str:
    return f"first {RATE(rates['first'])} · second {RATE(rates['second'])}"


def _count(metadata: dict[str, Any], key: str) -> str:
    value = metadata.get(key)
    return f"{value:,}" if isinstance(value, int) else "?"


def _rules_text(rules: dict[str, Any]) -> str:
    def shown(value: Any) -> str:
        return ("off", "on")[value] if isinstance(value, bool) else str(value)

    return ", ".join(f"{key.replace('_', ' ')} {shown(value)}" for key, value in rules.items())


def _method_text(metadata: dict[str, Any]) -> str:
    if metadata.get("method") != "best-response":
        return "the minimax-optimal table under the rules learned from the logs"
    against = metadata.get("settings", {}).get("against")
    return f"the best response to {against or 'every logged player'} under the learned rules"

"""Hog's report: the fitted table as a map of dice per state, how many states call for each
number of dice, and the table's exact win probabilities in its reference rules."""

from __future__ import annotations

from typing import Any

import numpy as np

from mine.pipeline.reports import kit
from mine.strategies.bots.hog import BASELINES
from mine.strategies.engines.hog import DEFAULT_RULES, HogRules
from mine.strategies.validation.hog import card_rows, report_card

# Dice 0 (Pig Tail) … 10 (the spec's most), light to dark; a table that rolls more dice
# (learned from logs that show more) gets a palette as long as it needs.
PALETTE = kit.ordinal_palette(DEFAULT_RULES.max_rolls + 1)
CELL = 6  # pixels per state in the map
RATE = "{:.6f}".format


def html(fitted: Any, observed: None = None) -> str:
    """The whole page of a fitted table (dice per state): the table, its exact report card
    in the rules it was solved in, its provenance."""
    table, metadata = fitted.table, fitted.metadata
    rules = HogRules.learned(metadata.get("learned", {}))
    card = report_card(table, rules, BASELINES)
    goal = table.shape[0]
    labels = [str(score) for score in range(goal)]  # the kit labels as many as fit
    dice, states = np.unique(table, return_counts=True)
    most = int(table.max())
    palette = PALETTE if most < len(PALETTE) else kit.ordinal_palette(most + 1)
    rows = card_rows(card)
    opponents = [row for row in rows if row["against"] in card["against"]]
    sections = [
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
        kit.Section(
            "Exact win probabilities",
            "Computed by dynamic programming in the reference rules "
            f"({_rules_text(card['rules'])}), not sampled: moving first, second, and their "
            "average; then what the table is guaranteed against the opponent that exploits it "
            "best, and the best figures possible.",
            [
                kit.count_table(
                    rows,
                    title="Win probability of the table",
                    formats={"first": RATE, "second": RATE, "average": RATE},
                ),
                kit.bar_plot(
                    [_short(row["against"]) for row in opponents],
                    {k: [row[k] for row in opponents] for k in ("first", "second", "average")},
                    title="Win probability against each opponent",
                    x_label="opponent",
                    y_label="win probability",
                    fmt=RATE,
                    caption="roll:N is always_roll:N; tail and square are tail_strategy "
                    "and square_strategy.",
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


def _short(name: str) -> str:
    """A baseline's name short enough for a bar's label."""
    return name.replace("always_roll", "roll").removesuffix("_strategy")


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

"""TwentyOne's report: the strategy chart as grids, insurance, the dealer's outcomes by up
card, the bid by true count and, from the warehouse, results by true count."""

from __future__ import annotations

from typing import Any

import polars as pl

from mine.pipeline.reports import kit
from mine.pipeline.stats.twentyone import DEALER_OUTCOMES, UP_ORDER, dealer_grid, up_name
from mine.strategies.engines.twentyone import DOUBLE, HIT, STAND

LEGEND = {
    "H": ("Hit", "#f4a3a3"),
    "S": ("Stand", "#f6e27f"),
    "D": ("DoubleDown (else Hit)", "#8fd694"),
    "P": ("Split", "#8ab6f0"),
    "-": ("no decision", "#eeeeee"),
}
LETTERS = {HIT: "H", STAND: "S", DOUBLE: "D"}
COLUMNS = [up_name(u) for u in UP_ORDER]


def _rows(n_cards: int) -> list[tuple[str, int, int]]:
    """(label, total, soft) of the hands a chart of `n_cards` cards shows."""
    low = 5 if n_cards == 2 else 4
    return [(f"hard {t}", t, 0) for t in range(low, 22)] + [
        (f"soft {t}", t, 1) for t in range(13, 22)
    ]


def strategy_grid(chart, context: int, n_cards: int, title: str, pairs: bool) -> str:
    rows = _rows(n_cards)
    keys = [
        [LETTERS.get(int(chart.hand[context, u, total, soft, n_cards - 2]), "S") for u in UP_ORDER]
        for _, total, soft in rows
    ]
    labels = [label for label, _, _ in rows]
    if pairs:
        for value in range(1, 11):
            keys.append(["P" if chart.split[min(context, 1), u, value] else "-" for u in UP_ORDER])
            labels.append("pair " + ("A,A" if value == 1 else f"{value},{value}"))
    return kit.grid(
        keys, labels, COLUMNS, LEGEND, title=title, x_label="dealer's up card", y_label="hand"
    )


def insured_hands(chart) -> list[str]:
    return [
        f"{'soft' if soft else 'hard'} {total}{' (pair)' if pair else ''}"
        for total in range(4, 22)
        for soft in (0, 1)
        for pair in (0, 1)
        if chart.insure[total, soft, pair]
    ]


def html(
    chart,
    bids: list[tuple[int, int, int]],
    metadata: dict[str, Any],
    dealer: pl.DataFrame | None = None,
    count_results: pl.DataFrame | None = None,
) -> str:
    learned = metadata.get("learned", {})
    stop = int(learned.get("player_card_limit", 5))
    charts = [strategy_grid(chart, 0, 2, "Main hand, two cards (pairs: split or not)", True)]
    for n in range(3, min(stop, 6)):
        label = f"{n} cards" if n < 5 else "5 or more cards"
        charts.append(strategy_grid(chart, 0, n, f"Main hand, {label}", False))
    charts.append(strategy_grid(chart, 2, 2, "Split hand, two cards", False))
    charts.append(strategy_grid(chart, 1, 2, "Insured hand (dealer shows an ace), two cards", True))
    insured = insured_hands(chart)
    sections = [
        kit.Section(
            "Strategy",
            "Rows: the player's hand (hard and soft totals, pairs); columns: the dealer's up "
            "card. Each cell is the action of the fitted table in that situation.",
            charts,
        ),
        kit.Section(
            "Insurance",
            "Insurance (dealer shows an ace) is taken with: " + ", ".join(insured) + "."
            if insured
            else "Insurance is never taken.",
        ),
        kit.Section(
            "Bid by true count",
            "The bid the table places at each Hi-Lo true count (running count per deck left).",
            [
                kit.bar_plot(
                    [f"{low}..{high}" if low != high else str(low) for low, high, _ in bids],
                    [bid for _, _, bid in bids],
                    title="Bid by true count",
                    x_label="true count",
                    y_label="bid",
                    fmt=str,
                ),
                kit.count_table(
                    [{"true count": f"{lo}..{hi}", "bid": bid} for lo, hi, bid in bids],
                    title="Bid table",
                ),
            ],
        ),
    ]
    if dealer is not None and dealer.height:
        grid = dealer_grid(dealer)
        sections.append(
            kit.Section(
                "The dealer's final hand by up card",
                "From the warehouse's logs: the share of the rounds the dealer played that "
                "ended in each outcome ('other': below 17 at a card limit).",
                [
                    kit.bar_plot(
                        [row["up"] for row in grid],
                        [row["Bust"] or 0.0 for row in grid],
                        title="Dealer bust rate by up card",
                        x_label="dealer's up card",
                        y_label="bust rate",
                    ),
                    kit.count_table(
                        grid,
                        title="Outcome rates (rounds: the dealer played)",
                        columns={"up": "up", **{o: o for o in DEALER_OUTCOMES}, "rounds": "rounds"},
                    ),
                ],
            )
        )
    if count_results is not None and count_results.height:
        sections.append(
            kit.Section(
                "Results by true count",
                "The logged players' mean result per unit of bid by the true count before the "
                "round: what the cards left in the shoe are worth.",
                [
                    kit.line_plot(
                        {
                            "mean result": (
                                count_results["tc"].to_list(),
                                count_results["mean_result"].to_list(),
                            )
                        },
                        title="Mean result per unit of bid",
                        x_label="true count",
                        y_label="result per unit of bid",
                        zero=True,
                    )
                ],
            )
        )
    return kit.page(
        f"TwentyOne strategy ({metadata.get('method')})",
        sections,
        metadata,
        intro=f"Learned from {metadata.get('logs')} logs ({metadata.get('hands')} hands); "
        f"model value per hand {float(metadata.get('model_ev', 0.0)):+.4f} per unit of bid.",
    )

"""TwentyOne's report: the strategy chart as grids, insurance, the dealer's outcomes by up
card, the bid by true count and, from the warehouse, results by true count; or the chart
as CSV (`--format csv`)."""

from __future__ import annotations

import csv
import io
from itertools import combinations_with_replacement
from typing import Any, NamedTuple

import duckdb
import polars as pl

from mine.pipeline.reports import kit
from mine.pipeline.stats.twentyone import (
    DEALER_OUTCOMES,
    UP_ORDER,
    count_results,
    dealer_grid,
    dealer_outcomes,
    up_name,
)
from mine.pipeline.stats.twentyone_features import (
    LogIds,
    cards,
    dealers,
    hands,
    infer_decks,
    settle,
    shoe,
)
from mine.strategies.engines.twentyone import DEFAULT_RULES, DOUBLE, HIT, STAND, add_points
from mine.strategies.engines.twentyone_chart import (
    CONTEXT_NAMES,
    INSURED,
    MAIN,
    SPLIT_HAND,
    TC_LIMIT,
    Chart,
    Strategy,
)

LEGEND = {
    "H": ("Hit", "#f4a3a3"),
    "S": ("Stand", "#f6e27f"),
    "D": ("DoubleDown (else Hit)", "#8fd694"),
    "P": ("Split", "#8ab6f0"),
}
LETTERS = {HIT: "H", STAND: "S", DOUBLE: "D"}
COLUMNS = [up_name(u) for u in UP_ORDER]


def _rows(n_cards: int) -> list[tuple[str, int, int]]:
    """(label, total, soft) of the hands a chart of `n_cards` cards shows: every total
    such a hand can have (two cards: other than a pair's)."""
    return [(f"{kind} {total}", total, soft) for kind, total, soft in hands_of(n_cards)]


def _situations(n_cards: int, pairs: bool) -> list[tuple[str, int, int, int]]:
    """(label, total, soft, pair value or 0) of each row of a chart of `n_cards` cards."""
    rows = [(label, total, soft, 0) for label, total, soft in _rows(n_cards)]
    if pairs:
        for value in range(1, 11):
            total, soft = (12, 1) if value == 1 else (2 * value, 0)
            rows.append((f"pair {up_name(value)},{up_name(value)}", total, soft, value))
    return rows


def _key(chart, context: int, up: int, total: int, soft: int, pair: int, n_cards: int) -> str:
    """The chart's letter in one situation: a pair it does not split plays as its total."""
    if pair and chart.split[context, up, pair]:
        return "P"
    return LETTERS[int(chart.hand[context, up, total, soft, n_cards - 2])]


def strategy_grid(
    chart, context: int, n_cards: int, title: str, pairs: bool, static=None, counted=()
) -> str:
    """One context and hand size of a chart; with `static`, each cell's tooltip names the
    static chart's action where this one differs; the cells where one of the `counted`
    charts (by true count) plays otherwise are marked."""
    keys, tips, marked, labels = [], [], [], []
    for label, total, soft, pair in _situations(n_cards, pairs):
        cells = [_key(chart, context, u, total, soft, pair, n_cards) for u in UP_ORDER]
        keys.append(cells)
        labels.append(label)
        others = [[_key(c, context, u, total, soft, pair, n_cards) for c in counted]
                  for u in UP_ORDER]  # fmt: skip
        marked.append([any(k != key for k in ks) for key, ks in zip(cells, others, strict=True)])
        if static is not None:
            tips.append([_tip(label, u, key, _key(static, context, u, total, soft, pair, n_cards))
                         for u, key in zip(UP_ORDER, cells, strict=True)])  # fmt: skip
    return kit.grid(
        keys, labels, COLUMNS, LEGEND, title=title, x_label="dealer's up card", y_label="hand",
        tips=tips or None, marked=marked, mark_name="played otherwise at some true count",
    )  # fmt: skip


def _tip(label: str, up: int, key: str, static: str) -> str:
    note = "" if key == static else f" (static chart: {LEGEND[static][0]})"
    return f"{label} vs {up_name(up)}: {LEGEND[key][0]}{note}"


def insured_hands(chart) -> list[str]:
    return [
        f"{'soft' if soft else 'hard'} {total}{' (pair)' if pair else ''}"
        for total in range(4, 22)
        for soft in (0, 1)
        for pair in (0, 1)
        if chart.insure[total, soft, pair]
    ]


# --- how strong the chart is ------------------------------------------------------------

HANDS = 100_000  # hands on the same cards for the comparison with the baselines
RETURN = "{:+.4f}".format


def strength(chart, rules=DEFAULT_RULES, hands: int = HANDS, seed: int = 0) -> kit.Section:
    """The chart against the dealer (its exact value, infinite deck) beside the exact
    optimum's, then its lead over each baseline on the same `hands` hands of the engine's
    shoe (each from a fresh shoe, flat minimum bids) beside the optimal chart's lead."""
    from mine.strategies.solvers.twentyone import chart_value, solve
    from mine.strategies.validation.twentyone import chart_module
    from mine.strategies.validation.twentyone_evaluator import (
        FilePolicy,
        baseline_policies,
        flat_returns,
    )

    best = solve(rules)
    value = chart_value(rules, chart)
    policies = {"player": FilePolicy(chart_module(chart, rules)),
                "optimum": FilePolicy(chart_module(best.chart, rules)),
                **baseline_policies(rules)}  # fmt: skip
    flat = flat_returns(policies, rules, hands, seed, rules.decks, "player")
    optimum = flat["optimum"]["return"]["mean"]
    played = flat["player"]["return"]
    measured = [
        kit.Measured("the dealer (exact, infinite deck)", value, best=best.ev),
        kit.Measured(f"the dealer ({rules.decks} decks)", played["mean"],
                     tuple(played["ci95"]), hands, best=optimum),
    ]  # fmt: skip
    for name in baseline_policies(rules):
        lead = flat[name]["player_minus_this"]
        theirs = flat[name]["return"]["mean"]
        measured.append(
            kit.Measured(f"{name} (lead on the same cards)", lead["mean"], tuple(lead["ci95"]),
                         hands, best=optimum - theirs,
                         note=f"{name} returns {RETURN(theirs)}")
        )  # fmt: skip
    return kit.strength(
        measured,
        measure="per hand (unit bid)",
        unit="hands",
        fmt=RETURN,
        summary=f"The chart returns {RETURN(value)} per hand per unit of bid against the "
        f"dealer, exactly (infinite deck); the exact optimum returns {RETURN(best.ev)}. "
        f"Then, played on the same {hands:,} hands of {rules.decks} decks (each from a fresh "
        "shoe, flat minimum bids): the chart's return against the dealer, and how much more "
        "it wins per hand than each baseline, each beside the exact optimum's chart on the "
        "same hands. The "
        "engine's reference rules; the count play and the bids are the player file's own "
        "(mine validate twentyone measures them).",
    )


class Observed(NamedTuple):
    """What the warehouse's logs show that the page draws."""

    dealer: pl.DataFrame  # the dealer's outcomes by up card (`stats_twentyone_dealer`)
    count_results: pl.DataFrame  # results by true count (`stats_twentyone_count_results`)


def observed(con: duckdb.DuckDBPyConnection, log_ids: LogIds) -> Observed:
    """The dealer's outcomes and the results by true count of the chosen logs (settled
    by the default rules)."""
    dealer_frame, card_frame = dealers(con, log_ids), cards(con, log_ids)
    settled = settle(hands(con, log_ids), dealer_frame, DEFAULT_RULES)
    shoe_frame = shoe(card_frame, infer_decks(card_frame)["decks"])
    return Observed(dealer_outcomes(dealer_frame), count_results(shoe_frame, settled))


FORMATS = ("html", "csv")


def html(fitted: Strategy, observed: Observed | None, fmt: str = "html") -> str:
    """The table's page (with the warehouse's `observed` logs where there are some), or
    with `fmt` csv its chart as CSV."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: use html or csv")
    if fmt == "csv":
        return chart_csv(fitted.chart)
    return page(fitted, observed or Observed(pl.DataFrame(), pl.DataFrame()))


def page(fitted: Strategy, observed: Observed) -> str:
    chart, bids, metadata = fitted.chart, fitted.bids, fitted.metadata
    count_charts, (dealer, counts) = fitted.count_charts, observed
    learned = metadata.get("learned", {})
    stop = int(learned.get("player_card_limit", 5))
    counted = [c for _, _, c in count_charts]

    def drawn(context: int, n: int, title: str, pairs: bool) -> str:
        return strategy_grid(chart, context, n, title, pairs, counted=counted)

    charts = [drawn(0, 2, "Main hand, two cards (pairs: split or not)", True)]
    for n in range(3, min(stop, 6)):
        label = f"{n} cards" if n < 5 else "5 or more cards"
        charts.append(drawn(0, n, f"Main hand, {label}", False))
    charts.append(drawn(2, 2, "Split hand, two cards (pairs: split again or not)", True))
    charts.append(drawn(1, 2, "Insured hand (dealer shows an ace), two cards", True))
    insured = insured_hands(chart)
    marks = (
        " A black corner marks a cell played otherwise at some true count (see Play by the count)."
        if count_charts
        else ""
    )
    sections = [
        strength(chart),
        kit.Section(
            "Strategy",
            "Rows: the player's hand (hard and soft totals, pairs); columns: the dealer's up "
            "card. Each cell is the action of the fitted table in that situation; a pair "
            "it does not split plays as its total." + marks,
            charts,
        ),
        kit.Section(
            "Insurance",
            "Insurance (dealer shows an ace) is taken with: " + ", ".join(insured) + "."
            if insured
            else "Insurance is never taken.",
        ),
        bid_section(bids, learned),
    ]
    if count_charts:
        sections.append(count_section(chart, count_charts))
    if dealer.height:
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
    if counts.height:
        sections.append(
            kit.Section(
                "Results by true count",
                "The logged players' mean result per unit of bid by the true count before the "
                "round: what the cards left in the shoe are worth.",
                [
                    kit.line_plot(
                        {
                            "mean result": (
                                counts["tc"].to_list(),
                                counts["mean_result"].to_list(),
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


def count_label(low: int, high: int) -> str:
    """A range of true counts as a reader takes it: the ends the player clamps its true
    count to (±TC_LIMIT) stand for every count beyond them."""
    if low == -TC_LIMIT and high < TC_LIMIT:
        return f"≤ {high}"
    if high == TC_LIMIT and low > -TC_LIMIT:
        return f"≥ {low}"
    return str(low) if low == high else f"{low}..{high}"


CLAMPED = (
    f"True counts are clamped to -{TC_LIMIT}..{TC_LIMIT}: the lowest range holds every count "
    "below it, the highest every count above."
)


def bid_section(bids: list[tuple[int, int, int]], learned: dict[str, Any]) -> kit.Section:
    """The bid by true count; a flat bid table said in words (a flat bar chart says
    nothing)."""
    table = kit.count_table(
        [{"true count": count_label(lo, hi), "bid": bid} for lo, hi, bid in bids],
        title="Bid table",
    )
    amounts = {bid for _, _, bid in bids}
    limits = f"(bids run {learned.get('min_bid', '?')} to {learned.get('max_bid', '?')})"
    if len(amounts) == 1:
        bid = amounts.pop()
        why = {
            learned.get("min_bid"): "the least: at no count did the fit find a larger bid "
            "worth its risk, so the player's edge comes from its play alone",
            learned.get("max_bid"): "the most: the fit found the chart's return positive at "
            "every count, so a larger bid is always worth more",
        }.get(bid, "the same")
        return kit.Section(
            "Bid by true count",
            f"The table bids {bid} at every true count {limits}, {why}.",
            [table],
        )
    return kit.Section(
        "Bid by true count",
        f"The bid the table places at each Hi-Lo true count (running count per deck left) "
        f"{limits}. {CLAMPED}",
        [
            kit.bar_plot(
                [count_label(lo, hi) for lo, hi, _ in bids],
                [bid for _, _, bid in bids],
                title="Bid by true count",
                x_label="true count",
                y_label="bid",
                fmt=str,
            ),
            table,
        ],
    )


def count_section(chart, count_charts: list[tuple[int, int, Any]]) -> kit.Section:
    """How many cells each true count plays otherwise, and the charts at the two ends."""
    changed = [
        int((c.hand != chart.hand).sum() + (c.split != chart.split).sum()
            + (c.insure != chart.insure).sum())
        for _, _, c in count_charts
    ]  # fmt: skip
    extremes = [count_charts[0], count_charts[-1]] if len(count_charts) > 1 else count_charts

    def title(low: int, high: int) -> str:
        beyond = " and below" if low == -TC_LIMIT else " and above" if high == TC_LIMIT else ""
        return f"Main hand, two cards, true count {low}..{high}{beyond}"

    return kit.Section(
        "Play by the count",
        "The chart changes with the shoe: at each true count the logs' mean shoe is solved "
        "again, and the cells where that chart differs from the static one are played by "
        "the count. Below, the main hand's two-card chart at the lowest and the highest "
        f"count; hover a cell for the static chart's action where it differs. {CLAMPED}",
        [
            kit.bar_plot(
                [count_label(lo, hi) for lo, hi, _ in count_charts], changed,
                title="Cells played otherwise than the static chart", x_label="true count",
                y_label="cells", fmt=str,
            ),
            *(strategy_grid(c, 0, 2, title(lo, hi), True, static=chart)
              for lo, hi, c in extremes),
        ],
    )  # fmt: skip


# --- the chart as CSV, one row per context and situation -------------------------------------

CSV_COLUMNS = (
    "context", "kind", "total_or_pair_rank", "n_cards", "upcard", "best_action", "insure",
)  # fmt: skip
ACTION_WORDS = {HIT: "hit", STAND: "stand", DOUBLE: "double"}
CSV_UPS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
CSV_CONTEXTS = ((MAIN, CSV_UPS), (INSURED, (1,)), (SPLIT_HAND, CSV_UPS))  # insured: an ace up


def hands_of(n_cards: int) -> list[tuple[str, int, int]]:
    """(kind, total, soft) of every hand of `n_cards` cards worth 21 or less (two cards:
    the ones that are not pairs; two ten-valued cards of two ranks are not), hard before
    soft, by total."""
    found = set()
    for values in combinations_with_replacement(range(1, 11), n_cards):
        if n_cards == 2 and values[0] == values[1] < 10:
            continue
        total, soft = 0, 0
        for value in values:
            total, soft = add_points(total, soft, 11 if value == 1 else value)
        if total <= 21:
            found.add(("soft" if soft else "hard", total, soft))
    return sorted(found, key=lambda h: (h[2], h[1]))


def chart_csv(chart: Chart) -> str:
    """The static chart as CSV, every context the player plays a hand in (`context`: the
    main hand; `insured`, once insurance is taken, against an ace; `split`, every hand a
    Split made): hard and soft hands of 2 to 5 cards (5: five or more; two cards: not
    pairs), then pairs (two cards; 10: two cards of one ten-valued rank: `split` is to
    split them, in a split hand to split again), against every up card; `insure` on the
    main hand's two cards against an ace. Played as written, it is worth what the chart is
    (`chart_value`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for context, ups in CSV_CONTEXTS:
        name = CONTEXT_NAMES[context]
        for n in (2, 3, 4, 5):
            for kind, total, soft in hands_of(n):
                for up in ups:
                    action = ACTION_WORDS[int(chart.hand[context, up, total, soft, n - 2])]
                    insure = _insure(chart, context, n, up, total, soft, 0)
                    writer.writerow((name, kind, total, n, up_name(up), action, insure))
        for value in range(1, 11):
            total, soft = (12, 1) if value == 1 else (2 * value, 0)
            for up in ups:
                if chart.split[context, up, value]:
                    action = "split"
                else:
                    action = ACTION_WORDS[int(chart.hand[context, up, total, soft, 0])]
                insure = _insure(chart, context, 2, up, total, soft, 1)
                writer.writerow((name, "pair", up_name(value), 2, up_name(up), action, insure))
    return out.getvalue()


def _insure(chart: Chart, context: int, n: int, up: int, total: int, soft: int, pair: int):
    """1 or 0 where insurance is offered (the main hand's two cards, an ace up), else ''."""
    offered = context == MAIN and n == 2 and up == 1
    return int(chart.insure[total, soft, pair]) if offered else ""

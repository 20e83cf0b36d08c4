"""TwentyOne's report: the strategy chart as grids, insurance, the dealer's outcomes by up
card, the bid by true count and, from the warehouse, results by true count; or the chart
as CSV (`--format csv`)."""

from __future__ import annotations

import csv
import io
import re
from itertools import combinations_with_replacement
from typing import Any, NamedTuple

import duckdb
import polars as pl

from mine.pipeline.reports import kit
from mine.pipeline.stats import opponents
from mine.pipeline.stats.twentyone import (
    DEALER_OUTCOMES,
    UP_ORDER,
    by_opponent,
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
from mine.strategies.intervals import NO, YES, Z95, at_least

LEGEND = {
    "H": ("Hit", "#f4a3a3"),
    "S": ("Stand", "#f6e27f"),
    "D": ("DoubleDown (else Hit)", "#8fd694"),
    "P": ("Split", "#8ab6f0"),
}
LETTERS = {HIT: "H", STAND: "S", DOUBLE: "D"}
COLUMNS = [up_name(u) for u in UP_ORDER]


def _situations(n_cards: int, pairs: bool) -> list[tuple[str, int, int, int]]:
    """(label, total, soft, pair value or 0) of each row of a chart of `n_cards` cards: every
    total such a hand can have (two cards: other than a pair's), then the pairs."""
    rows = [(f"{kind} {total}", total, soft, 0) for kind, total, soft in hands_of(n_cards)]
    if pairs:
        rows += [(f"pair {up_name(v)},{up_name(v)}", *_pair(v), v) for v in range(1, 11)]
    return rows


def _pair(value: int) -> tuple[int, int]:
    """The (total, soft) of a pair of cards worth `value` each (aces: soft 12)."""
    return (12, 1) if value == 1 else (2 * value, 0)


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


def insurance_rows(chart) -> list[dict[str, str]]:
    """Per kind of two-card hand (hard, soft, pair), the hands the chart insures when the
    dealer shows an ace and those it does not."""
    kinds = {
        "hard total": [(str(t), chart.insure[t, 0, 0]) for t in range(5, 21)],
        "soft total": [(str(t), chart.insure[t, 1, 0]) for t in range(13, 22)],
        "pair": [(f"{up_name(v)},{up_name(v)}", chart.insure[(*_pair(v), 1)])
                 for v in range(1, 11)],
    }  # fmt: skip
    return [
        {"hand": kind,
         "insured": runs([name for name, taken in hands if taken]) or "none",
         "not insured": runs([name for name, taken in hands if not taken]) or "none"}
        for kind, hands in kinds.items()
    ]  # fmt: skip


def runs(names: list[str]) -> str:
    """Totals as runs (5, 6, 7, 9 → 5–7, 9); other names listed."""
    if not all(name.isdigit() for name in names):
        return ", ".join(names)
    found: list[list[int]] = []
    for value in map(int, names):
        if found and value == found[-1][-1] + 1:
            found[-1].append(value)
        else:
            found.append([value])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in found)


# --- how strong the chart is ------------------------------------------------------------

RETURN = "{:+.4f}".format


def strength(card: dict[str, Any]) -> kit.Section:
    """The player file against the dealer: its static chart's exact value (infinite deck)
    beside the exact optimum's, and its flat-bet return as played, with its interval; then,
    drawn apart, its lead over the baselines on the same hands."""
    figures = card_figures(card)
    value, best, played = figures["value"], figures["optimum"], figures["return"]
    hands, decks = figures["hands"], figures["decks"]
    measured = [
        kit.Measured("the dealer (exact, infinite deck)", value, best=best),
        kit.Measured(f"the dealer ({decks} decks, played)", played["mean"],
                     tuple(played["ci95"]), hands),
    ]  # fmt: skip
    where = {YES: "below", NO: "above"}.get(at_least(played["ci95"], best), "inside")
    leads = [(name, lead["mean"], tuple(lead["ci95"])) for name, lead in figures["leads"].items()]
    lead_plot = kit.interval_plot(  # its lead per hand over each baseline on the same hands
        leads,
        title="Its lead over each baseline, per hand, on the same cards",
        x_label="the chart's return minus the baseline's, per hand (unit bid)",
        fmt=RETURN,
        reference=0.0,
        ident="leads",
        caption=f"{hands:,} hands, the same cards for every player; above 0: the chart wins "
        "more than that baseline.",
    )
    return kit.strength(
        measured,
        measure="return per hand (unit bid)",
        unit="hands",
        fmt=RETURN,
        summary=f"The player file's chart returns {RETURN(value)} per hand per unit of bid "
        f"against the dealer, exactly (infinite deck); the exact optimum returns "
        f"{RETURN(best)}. Played on {hands:,} hands of {decks} decks (each from a fresh "
        "shoe, flat minimum bids), its return is sampled and carries an interval; the exact "
        f"optimum lies {where} it. Below, drawn apart (a lead is not a return), how much "
        "more it wins per hand than each baseline on the same hands. The count play and the "
        "bids are the file's own (`mine validate twentyone` measures them, and its --json "
        "card, given as --card, draws every baseline here).",
        figures=[lead_plot],
    )


def card_figures(card: dict[str, Any]) -> dict[str, Any]:
    """What the strength section draws, from either card of a player file: `mine validate
    twentyone --json`'s (its `flat_bet`: every baseline) or the figures `mine generate`
    measures for the file's docstring (textbook alone)."""
    if "flat_bet" in card:
        flat = card["flat_bet"]
        return {
            "value": flat["exact_value_of_player_chart_infinite_deck"],
            "optimum": flat["exact_optimum"]["infinite_deck"],
            "return": flat["player"], "hands": flat["hands"], "decks": flat["decks"],
            "leads": {name: row["player_minus_this"] for name, row in flat["baselines"].items()},
        }  # fmt: skip
    ((name, mean),) = [(k, v) for k, v in card.items() if k.startswith("flat-bet return")]
    hands, decks = map(int, re.search(r"(\d+) hands of fresh (\d+)-deck", name).groups())
    textbook = [card["gain over textbook, 95% CI low"], card["gain over textbook, 95% CI high"]]
    return {
        "value": card["exact value of the static chart, infinite deck"],
        "optimum": card["exact optimum, infinite deck"],
        "return": {"mean": mean, "ci95": [card["95% CI low"], card["95% CI high"]]},
        "hands": hands, "decks": decks,
        "leads": {"textbook": {"mean": card["gain over textbook on the same shoes"],
                               "ci95": textbook}},
    }  # fmt: skip


class Observed(NamedTuple):
    """What the warehouse's logs show that the page draws."""

    dealer: pl.DataFrame  # the dealer's outcomes by up card (`stats_twentyone_dealer`)
    count_results: pl.DataFrame  # results by true count (`stats_twentyone_count_results`)
    opponents: pl.DataFrame  # the logs' writer against each other id, weakest first


def observed(con: duckdb.DuckDBPyConnection, log_ids: LogIds) -> Observed:
    """The dealer's outcomes and the results by true count of the chosen logs (settled
    by the default rules), and the id that wrote most of them against each other id at
    its tables."""
    dealer_frame, card_frame = dealers(con, log_ids), cards(con, log_ids)
    settled = settle(hands(con, log_ids), dealer_frame, DEFAULT_RULES)
    shoe_frame = shoe(card_frame, infer_decks(card_frame)["decks"])
    return Observed(dealer_outcomes(dealer_frame), count_results(shoe_frame, settled),
                    opponents.of_player(by_opponent(con, log_ids)))  # fmt: skip


FORMATS = ("html", "csv")


def table_alone(fmt: str = "html", **_: Any) -> bool:
    """Whether the page's options ask for the table alone (the chart as CSV): the loop then
    measures no player and reads no logs for it, which the CSV would not show."""
    return fmt == "csv"


def html(
    fitted: Strategy, observed: Observed | None, measured: dict[str, Any], fmt: str = "html"
) -> str:
    """The table's page, led by its player file's card (`measured`), with the warehouse's
    `observed` logs where there are some; or with `fmt` csv its chart as CSV."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: use html or csv")
    if fmt == "csv":
        return chart_csv(fitted.chart)
    chart, bids, metadata = fitted.chart, fitted.bids, fitted.metadata
    count_charts = fitted.count_charts
    dealer, counts, matchups = observed or Observed(pl.DataFrame(), pl.DataFrame(), None)
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
    marks = (
        " A black corner marks a cell played otherwise at some true count (see Play by the count)."
        if count_charts
        else ""
    )
    sections = [
        strength(measured),
        *([] if matchups is None else [against_each(matchups)]),
        kit.Section(
            "Strategy",
            "Rows: the player's hand (hard and soft totals, pairs); columns: the dealer's up "
            "card. Each cell is the action of the fitted table in that situation; a pair "
            "it does not split plays as its total." + marks,
            charts,
        ),
        kit.Section(
            "Insurance",
            "When the dealer shows an ace, the chart takes insurance (half the bid, paid 2 "
            "to 1 if the dealer holds a two-card 21) with these two-card hands.",
            [kit.count_table(insurance_rows(chart), title="Insurance by the player's two cards")],
        ),
        bid_section(bids, learned),
    ]
    if count_charts:
        sections.append(count_section(chart, count_charts))
    if dealer.height:
        grid = dealer_grid(dealer)
        bust = kit.bar_plot(
            [row["up"] for row in grid],
            [row["Bust"] or 0.0 for row in grid],
            title="Dealer bust rate by up card",
            x_label="dealer's up card",
            y_label="bust rate",
        )
        columns = {"up": "up", **{o: o for o in DEALER_OUTCOMES}, "rounds": "rounds"}
        rates = kit.count_table(
            grid, title="Outcome rates (rounds: the dealer played)", columns=columns
        )
        text = (
            "From the warehouse's logs: the share of the rounds the dealer played that "
            "ended in each outcome ('other': below 17 at a card limit)."
        )
        sections.append(kit.Section("The dealer's final hand by up card", text, [bust, rates]))
    if counts.height:
        sections.append(results_section(counts))
    return kit.page(
        f"TwentyOne strategy ({metadata.get('method')})",
        sections,
        metadata,
        intro=f"Learned from {metadata.get('logs')} logs ({metadata.get('hands')} hands); "
        f"model value per hand {float(metadata.get('model_ev', 0.0)):+.4f} per unit of bid.",
    )


def against_each(pairings: pl.DataFrame) -> kit.Section:
    """The logs' writer against each other id at its tables: its lead a round over that
    player, paired round by round, with intervals."""
    player = pairings["player"][0] if pairings.height else "–"
    return kit.against_each(
        pairings.to_dicts(),
        label=lambda r: f"id {r['opponent']}",
        note=lambda r: f"{r['logs']:,} log{'s' * (r['logs'] != 1)}",
        measure="lead a round (points)",
        unit="rounds",
        fmt=LEAD,
        summary=f"TwentyOne's seats each play the dealer, so against an opponent means "
        f"beside it: the logs' writer (id {player}, the id marked as yours in the most "
        "logs; only the logs it wrote are counted) against each other id at its tables, "
        "as its lead over that player's return: the points it won in a round minus the "
        "points that player won in the same round (the same dealer's cards), averaged "
        "over the rounds both began with points, with the normal 95 % interval (rounds "
        "of one shoe are not quite independent). Above 0: it out-earned that player. "
        "The ids are the logs' seats: the same id in two logs may be two programs.",
        reference=0.0,
    )


LEAD = "{:+.2f}".format


def results_section(counts: pl.DataFrame) -> kit.Section:
    """The logged players' mean result per unit of bid by true count, each with its 95 %
    interval, and the hands it rests on."""
    shown = counts.filter(pl.col("hands") >= 2)
    rows = []
    for tc, hands_at, mean, sd in shown.select("tc", "hands", "mean_result", "sd_result").rows():
        half = Z95 * sd / hands_at**0.5
        rows.append((count_label(tc, tc, 10), mean, (mean - half, mean + half), hands_at))
    return kit.Section(
        "Results by true count",
        "The logged players' mean result per unit of bid by the true count before the "
        "round (rounded; the ends hold every count beyond them): what the cards left in "
        "the shoe are worth. Intervals are 95 % (normal, over hands; hands of one round "
        "share the dealer's cards, so they are somewhat narrower than they should be). "
        + ("" if shown.height == counts.height else "Counts seen in fewer than 2 hands are "
           "left out."),
        [
            kit.interval_plot(
                [(f"true count {label}", mean, ci) for label, mean, ci, _ in rows],
                title="Mean result per unit of bid, by true count",
                x_label="result per unit of bid", fmt=RETURN, reference=0.0,
                ident="count-results",
            ),
            kit.count_table(
                [{"true count": label, "hands": n, "mean result": mean,
                  "95 % interval": f"{RETURN(ci[0])} … {RETURN(ci[1])}"}
                 for label, mean, ci, n in rows],
                title="Results by true count", formats={"mean result": RETURN},
            ),
        ],
    )  # fmt: skip


def count_label(low: int, high: int, limit: int = TC_LIMIT) -> str:
    """A range of true counts as a reader takes it: the ends the counts are clamped to
    (±`limit`: the player's TC_LIMIT) stand for every count beyond them."""
    if low == -limit and high < limit:
        return f"≤ {high}"
    if high == limit and low > -limit:
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
        [{"true count": count_label(lo, hi), "bid": bid} for lo, hi, bid in merged(bids)],
        title="Bid table (neighbouring counts with the same bid in one row)",
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


def merged(bids: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The bid table with neighbouring ranges of the same bid in one: what varies."""
    rows: list[tuple[int, int, int]] = []
    for low, high, bid in bids:
        if rows and rows[-1][2] == bid:
            rows[-1] = (rows[-1][0], high, bid)
        else:
            rows.append((low, high, bid))
    return rows


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
ACTION_WORDS = {"P": "split", "H": "hit", "S": "stand", "D": "double"}  # by the chart's letters
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
    situations = [
        (kind, total, soft, 0, n) for n in (2, 3, 4, 5) for kind, total, soft in hands_of(n)
    ]
    situations += [("pair", *_pair(value), value, 2) for value in range(1, 11)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for context, ups in CSV_CONTEXTS:
        name = CONTEXT_NAMES[context]
        for kind, total, soft, pair, n in situations:
            for up in ups:
                action = ACTION_WORDS[_key(chart, context, up, total, soft, pair, n)]
                # insurance is offered on the main hand's two cards, an ace up
                offered = context == MAIN and n == 2 and up == 1
                insure = int(chart.insure[total, soft, int(pair > 0)]) if offered else ""
                shown = up_name(pair) if pair else total
                writer.writerow((name, kind, shown, n, up_name(up), action, insure))
    return out.getvalue()

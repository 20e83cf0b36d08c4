"""TwentyOne strategies as every layer shares them: the `Chart` (an action for every
situation), a fitted `Strategy` (charts by true count and bids), and the same in the
generated player's terms (`strategies/players/twentyone.py`'s constants and tables).

The solver answers with a Chart, the fitter writes one, the report draws one, the code
generator writes one into a player file and the evaluator reads it back: so it lives here,
below all of them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import numpy as np

from mine.inputs import quoted
from mine.strategies.engines.twentyone import DOUBLE, HIT, STAND, TwentyOneRules

MAIN, INSURED, SPLIT_HAND = range(3)  # the contexts a hand is played in
CONTEXT_NAMES = ("main", "insured", "split")
VALUES = tuple(range(1, 11))  # card values, ace 1, ten-valued cards 10


def n_index(n_cards: int) -> int:
    """Chart index of a hand size: 2, 3, 4, then 5 or more."""
    return min(n_cards, 5) - 2


@dataclass(frozen=True)
class Chart:
    """An action for every situation, the form the solver's answer and the evaluator share.

    - `hand[context, up, total, soft, n]`: STAND, HIT or DOUBLE (engine codes), context
      main / insured / split hand, up card value 1..10, n index 0..3 for 2, 3, 4, 5+ cards;
      DOUBLE where it is not allowed means HIT; HIT on a Combo is a Hit (the course engine
      lets a two-card 21 draw);
    - `split[context, up, value]`: split a pair of this value (main or insured hand), or
      split it again (split hand: a split hand dealt a card of its pair's rank);
    - `insure[total, soft, pair]`: take insurance with this first hand (up card an ace).
    """

    hand: np.ndarray = field(repr=False)
    split: np.ndarray = field(repr=False)
    insure: np.ndarray = field(repr=False)

    @classmethod
    def empty(cls) -> Chart:
        hand = np.full((3, 11, 32, 2, 4), STAND, dtype=np.int8)
        hand[:, :, :12] = HIT  # below 12 nothing busts: a sane default for unreached cells
        return cls(hand, np.zeros((3, 11, 11), bool), np.zeros((32, 2, 2), bool))

    def copy(self) -> Chart:
        return Chart(self.hand.copy(), self.split.copy(), self.insure.copy())

    def rows(self, context: int = MAIN, n_cards: int = 2) -> dict[str, str]:
        """A printable chart: `"hard 16": "HHHHHSSSSS"`-like strings, up cards 2..10, A."""
        ups = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)
        table = {}
        for soft in (0, 1):
            for total in range(4 if not soft else 12, 22):
                row = self.hand[context, ups, total, soft, n_index(n_cards)]
                table[f"{'soft' if soft else 'hard'} {total}"] = "".join(LETTERS[a] for a in row)
        for value in VALUES:
            row = self.split[context, ups, value]
            table[f"pair {value}"] = "".join("P" if p else "-" for p in row)
        return table


Bids = tuple[tuple[int, int, int], ...]
"""(lowest true count, highest, the bid there), by true count."""
CountCharts = tuple[tuple[int, int, Chart], ...]
"""(lowest true count, highest, the chart played there)."""


@dataclass(frozen=True, eq=False)
class Strategy:
    """A fitted TwentyOne table as the layers above the fitter read it: the static chart,
    the charts played at other true counts, the bids by true count, and the table's
    metadata (what was learned: decks, bids, the actions the logs show)."""

    chart: Chart
    bids: Bids
    count_charts: CountCharts = ()
    metadata: dict[str, Any] = field(default_factory=dict)


# --- in the generated player's terms ---------------------------------------------------------

LETTERS = {HIT: "H", STAND: "S", DOUBLE: "D"}
TC_LIMIT = 10  # the player's true counts run -TC_LIMIT..TC_LIMIT
TABLES = ("HAND", "SPLIT", "INSURE", "BIDS", "BY_COUNT")


def check_tables(tables: Mapping[str, Any], tc_limit: Any) -> None:
    """ValueError unless `tables` (a player file's HAND, SPLIT, INSURE, BIDS and BY_COUNT)
    and its TC_LIMIT have the shape of a chart's, as `player_tables` writes them: what is
    measured or written of a file reads them as that, whatever the file holds."""
    if type(tc_limit) is not int or tc_limit != TC_LIMIT:
        raise ValueError(f"TC_LIMIT is {quoted(tc_limit)}, not {TC_LIMIT} (a generated "
                         f"player's true counts run -{TC_LIMIT}..{TC_LIMIT})")  # fmt: skip
    hand, width = tables["HAND"], 2 * TC_LIMIT + 1
    try:
        ok = (
            len(hand) == 3
            and all(len(u) == 11 for u in hand)
            and all(len(s) == 2 and all(len(n) == 4 for n in s) for u in hand for s in u)
            and all(_rows(r"[SHD]{32}", n) for u in hand for s in u for n in s)
            and len(tables["SPLIT"]) == 3
            and all(_rows(r"[P-]{11}", ctx) for ctx in tables["SPLIT"])
            and _rows(r"[01]{32}", tables["INSURE"])
            and len(tables["BIDS"]) == width
            and all(type(b) is int and b > 0 for b in tables["BIDS"])
            and type(tables["BY_COUNT"]) is dict
            and all(_count_cell(key, row, width) for key, row in tables["BY_COUNT"].items())
        )
    except (TypeError, ValueError):  # a table of another kind: no len(), no items()
        ok = False
    if not ok:
        raise ValueError("tables do not have the shape of a TwentyOne chart")


def _rows(pattern: str, rows: Any) -> bool:
    return all(type(row) is str and re.fullmatch(pattern, row) for row in rows)


def _count_cell(key: Any, row: Any, width: int) -> bool:
    kinds = {"H": ("[SHD]", 5), "P": ("[P-]", 3), "I": ("[01]", 3)}
    if type(key) is not tuple or not key or key[0] not in kinds or len(key) != kinds[key[0]][1] + 1:
        return False
    return all(type(k) is int and 0 <= k < 32 for k in key[1:]) and bool(
        type(row) is str and re.fullmatch(kinds[key[0]][0] + f"{{{width}}}", row)
    )


def _letters(chart: Chart, ctx: int, up: int, soft: int, n: int) -> str:
    return "".join(LETTERS.get(int(chart.hand[ctx, up, t, soft, n]), "S") for t in range(32))


def player_tables(
    chart: Chart,
    bids: Sequence[tuple[int, int, int]],
    count_charts: Sequence[tuple[int, int, Chart]] = (),
    limit: int = TC_LIMIT,
) -> dict[str, Any]:
    """The player's tables (`TABLES`) of a chart, bid rows and count charts: letters per
    cell, and `BY_COUNT` for the cells whose action changes with the true count."""
    hand = tuple(
        tuple(
            tuple(tuple(_letters(chart, ctx, up, soft, n) for n in range(4)) for soft in (0, 1))
            for up in range(11)
        )
        for ctx in range(3)
    )
    split = tuple(
        tuple(
            "".join("P" if chart.split[ctx, up, x] else "-" for x in range(11)) for up in range(11)
        )
        for ctx in range(3)
    )
    insure = tuple(
        "".join("1" if chart.insure[t, soft, pair] else "0" for t in range(32))
        for soft in (0, 1)
        for pair in (0, 1)
    )
    by_tc = []
    for tc in range(-limit, limit + 1):
        row = min(
            bids, key=lambda b: 0 if b[0] <= tc <= b[1] else min(abs(tc - b[0]), abs(tc - b[1]))
        )
        by_tc.append(int(row[2]))
    # the chart played at each true count: the count chart whose range holds it, else the static one
    charts = [
        next((c for low, high, c in count_charts if low <= tc <= high), chart)
        for tc in range(-limit, limit + 1)
    ]
    by_count: dict[tuple, str] = {}
    for ctx, up in product(range(3), range(1, 11)):
        for soft, n, total in product((0, 1), range(4), range(32)):
            row = "".join(LETTERS.get(int(c.hand[ctx, up, total, soft, n]), "S") for c in charts)
            if len(set(row)) > 1:
                by_count[("H", ctx, up, soft, n, total)] = row
        for x in range(1, 11):
            row = "".join("P" if c.split[ctx, up, x] else "-" for c in charts)
            if len(set(row)) > 1:
                by_count[("P", ctx, up, x)] = row
    for soft, pair, total in product((0, 1), (0, 1), range(32)):
        row = "".join("1" if c.insure[total, soft, pair] else "0" for c in charts)
        if len(set(row)) > 1:
            by_count[("I", soft, pair, total)] = row
    return dict(zip(TABLES, (hand, split, insure, tuple(by_tc), by_count), strict=True))


GAME_NUMBERS = ("decks", "min_bid", "max_bid")  # what a table says of the game it plays


def outside_the_rules(numbers: Mapping[str, Any]) -> str | None:
    """Which of a table's `GAME_NUMBERS` no game of the rules can have (not a whole number,
    outside the rules' bounds, a minimum bid above the maximum), in words; None if all
    can be."""
    for name in GAME_NUMBERS:
        value = numbers.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"{name} is {value!r}, not a number"
        if not (TwentyOneRules.within(name, value) and value == int(value)):
            low, high = TwentyOneRules.BOUNDS[name]
            return f"{name} {value:,} is out of the rules' range {low:,}..{high:,}"
    if numbers["min_bid"] > numbers["max_bid"]:
        return f"min_bid {numbers['min_bid']:,} above max_bid {numbers['max_bid']:,}"
    return None


def player_constants(strategy: Strategy) -> dict[str, Any]:
    """Every constant the player module states, for this strategy: the game's numbers and
    the actions the logs allow (from the metadata), then its tables. ValueError for
    numbers the rules cannot have."""
    learned = strategy.metadata.get("learned", {})
    actions = learned.get("actions", {})
    tables = player_tables(strategy.chart, strategy.bids, strategy.count_charts)
    numbers = {
        "decks": float(learned.get("decks", 3)),
        "min_bid": float(learned.get("min_bid", 10)),
        "max_bid": float(learned.get("max_bid", 10)),
    }
    problem = outside_the_rules(numbers)
    if problem:
        raise ValueError(f"table metadata: {problem}")
    decks, low, high = (int(v) for v in numbers.values())
    if any(not low <= bid <= high for bid in tables["BIDS"]):
        raise ValueError("a bid of the table lies outside the table's min_bid..max_bid")
    return {
        "DECKS": decks,
        "MIN_BID": low,
        "MAX_BID": high,
        "TC_LIMIT": (len(tables["BIDS"]) - 1) // 2,
        "CAN_INSURE": bool(actions.get("insurance", False)),
        "DOUBLE_ON_21": bool(actions.get("double_on_21", False)),
        "DOUBLE_AFTER_SPLIT": bool(actions.get("double_after_split", False)),
        **tables,
    }


def chart_of_tables(player: Any) -> Chart:
    """The `Chart` a player module plays (its HAND, SPLIT and INSURE tables)."""
    codes = {letter: code for code, letter in LETTERS.items()}
    chart = Chart.empty()
    for ctx, up, soft, n in product(range(3), range(1, 11), (0, 1), range(4)):
        row = player.HAND[ctx][up][soft][n]
        chart.hand[ctx, up, :, soft, n] = np.array([codes[c] for c in row])
    for ctx, up in product(range(len(player.SPLIT)), range(1, 11)):
        chart.split[ctx, up, :] = np.array([c == "P" for c in player.SPLIT[ctx][up]])
    for soft, pair in product((0, 1), (0, 1)):
        chart.insure[:, soft, pair] = np.array([c == "1" for c in player.INSURE[2 * soft + pair]])
    return chart

"""TwentyOne baseline bots: `dealer`, `cautious`, `textbook`, `random`, `explorer`, `chart`.

A bot is `bot(state) -> action` and plays by its policy, a plain function of the situation
(`bid(points, low, high)`, `act(up, total, soft, n_cards, pair, legal)` returning an action
kind), which the vectorised evaluator also reads: `up` is the up card's value 1..10 (ace
1), `soft` whether an ace counts 11, `pair` the rank a two-card hand pairs (0: none),
`legal` a mask of `CAN_*` bits. A deterministic bot is memoised by situation.

`textbook` is the casino basic-strategy chart for several decks, dealer standing on soft
17, doubling after splits allowed: it knows nothing of Charlie, Combo or the rich
insurance. Bots bid the minimum unless they are random.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from mine.strategies.engines.twentyone import (
    CAN_DOUBLE,
    CAN_HIT,
    CAN_INSURE,
    CAN_SPLIT,
    CAN_STAND,
    DOUBLE,
    HIT,
    INSURANCE,
    SPLIT,
    STAND,
    Action,
    Bid,
    State,
    TwentyOneRules,
)

KINDS = (HIT, STAND, DOUBLE, SPLIT, INSURANCE)


class TableBot:
    """Base: subclasses define `decide`; `act` handles the forced moves after DoubleDown."""

    name = "table"
    deterministic = True  # a plain function of the situation: memoised

    def __init__(self, rules: TwentyOneRules | None = None):
        self.rules = rules or TwentyOneRules()
        self._memo: dict[tuple, int] = {}

    def __call__(self, state: State) -> Action:
        seat = state.current_player()
        if state.is_bidding():
            points = state.points[seat]
            return Bid(self.bid(points, *state.rules.bid_range(points)))
        situation = (*state.situation(), state.legal_mask())
        kind = self._memo.get(situation) if self.deterministic else None
        if kind is None:
            kind = self.act(*situation)
            if self.deterministic:
                self._memo[situation] = kind
        return state.action(kind)

    def bid(self, points: int, low: int, high: int) -> int:
        return low

    def act(self, up: int, total: int, soft: bool, n_cards: int, pair: int, legal: int) -> int:
        if legal in (CAN_HIT, CAN_STAND):  # only one legal action (after a DoubleDown)
            return HIT if legal == CAN_HIT else STAND
        return self.decide(up, total, soft, n_cards, pair, legal)

    def decide(self, up: int, total: int, soft: bool, n_cards: int, pair: int, legal: int) -> int:
        raise NotImplementedError


def _fallback(kind: int, legal: int) -> int:
    """A wanted action that is not legal becomes the nearest legal one."""
    return kind if legal >> kind & 1 else STAND


class Threshold(TableBot):
    """Hit while the total is below `stand_on`, else stand."""

    def __init__(self, stand_on: int, name: str, rules: TwentyOneRules | None = None):
        super().__init__(rules)
        self.stand_on = stand_on
        self.name = name

    def decide(self, up: int, total: int, soft: bool, n_cards: int, pair: int, legal: int) -> int:
        return _fallback(HIT if total < self.stand_on else STAND, legal)


# --- textbook: the basic-strategy chart (multi-deck, S17, DAS, no surrender) --------------

_UP = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)  # column order of the charts below
# H hit, S stand, D double else hit, X double else stand, P split
_HARD = {
    **{t: "HHHHHHHHHH" for t in range(4, 9)},
    9: "HDDDDHHHHH",
    10: "DDDDDDDDHH",
    11: "DDDDDDDDDH",
    12: "HHSSSHHHHH",
    **{t: "SSSSSHHHHH" for t in range(13, 17)},
    **{t: "SSSSSSSSSS" for t in range(17, 22)},
}
_SOFT = {
    13: "HHHDDHHHHH",
    14: "HHHDDHHHHH",
    15: "HHDDDHHHHH",
    16: "HHDDDHHHHH",
    17: "HDDDDHHHHH",
    18: "SXXXXSSHHH",
    19: "SSSSSSSSSS",
    20: "SSSSSSSSSS",
    21: "SSSSSSSSSS",
}
_PAIRS = {  # split (P) or play the total (-)
    1: "PPPPPPPPPP",
    2: "PPPPPP----",
    3: "PPPPPP----",
    4: "---PP-----",
    5: "----------",
    6: "PPPPP-----",
    7: "PPPPPP----",
    8: "PPPPPPPPPP",
    9: "PPPPP-PP--",
    10: "----------",
}


class Textbook(TableBot):
    name = "textbook"

    def decide(self, up: int, total: int, soft: bool, n_cards: int, pair: int, legal: int) -> int:
        col = _UP.index(up)
        if pair and legal & CAN_SPLIT and _PAIRS[min(pair, 10)][col] == "P":
            return SPLIT
        row = _SOFT.get(total) if soft else None
        code = (row or _HARD.get(total, "S" * 10))[col]
        if code in "DX":
            if legal & CAN_DOUBLE and n_cards == 2:
                return DOUBLE
            code = "H" if code == "D" else "S"
        return _fallback(HIT if code == "H" else STAND, legal)


# --- random and explorer ------------------------------------------------------------------


class RandomBot(TableBot):
    """Uniformly random legal actions (every kind) and uniformly random legal bids."""

    name = "random"
    deterministic = False

    def __init__(self, rng: np.random.Generator, rules: TwentyOneRules | None = None):
        super().__init__(rules)
        self.rng = rng

    def bid(self, points: int, low: int, high: int) -> int:
        return int(self.rng.integers(low, high + 1))

    def decide(self, up: int, total: int, soft: bool, n_cards: int, pair: int, legal: int) -> int:
        return random_legal(self.rng, legal)


def random_legal(rng: np.random.Generator, legal: int) -> int:
    kinds = [k for k in KINDS if legal >> k & 1]
    return kinds[int(rng.integers(len(kinds)))]


class Explorer(TableBot):
    """`policy`'s action, replaced by a random legal one with probability `share`."""

    deterministic = False

    def __init__(
        self,
        policy: TableBot,
        share: float,
        rng: np.random.Generator,
        rules: TwentyOneRules | None = None,
    ):
        super().__init__(rules)
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"explorer share {share} is not between 0 and 1")
        self.policy, self.share, self.rng = policy, share, rng
        self.name = f"explorer:{policy.name}:{share:g}"

    def bid(self, points: int, low: int, high: int) -> int:
        return self.policy.bid(points, low, high)

    def decide(self, up: int, total: int, soft: bool, n_cards: int, pair: int, legal: int) -> int:
        if self.rng.random() < self.share:
            return random_legal(self.rng, legal)
        return self.policy.decide(up, total, soft, n_cards, pair, legal)


class ChartBot(TableBot):
    """Plays a `Chart` (`strategies/engines/twentyone_chart.py`). The situation does not
    say whether the hand is a split hand or insured, so it reads the chart's main context,
    and the insured one for a two-card hand against an ace once insurance is no longer
    offered."""

    def __init__(self, chart: object, rules: TwentyOneRules | None = None, name: str = "chart"):
        super().__init__(rules)
        self.chart = chart
        self.name = name

    def decide(self, up: int, total: int, soft: bool, n_cards: int, pair: int, legal: int) -> int:
        chart = self.chart
        if legal & CAN_INSURE and chart.insure[total, int(soft), int(pair > 0)]:  # type: ignore[attr-defined]
            return INSURANCE
        context = 1 if up == 1 and n_cards == 2 and not legal & CAN_INSURE else 0
        if legal & CAN_SPLIT and chart.split[context, up, min(pair, 10)]:  # type: ignore[attr-defined]
            return SPLIT
        action = int(chart.hand[context, up, total, int(soft), min(n_cards, 5) - 2])  # type: ignore[attr-defined]
        if action == DOUBLE and not legal & CAN_DOUBLE:
            action = HIT
        return _fallback(action, legal)


@lru_cache(maxsize=8)
def optimal_chart(rules: TwentyOneRules) -> object:
    """The infinite-deck optimal chart for these rules (a pure function, so cached)."""
    from mine.strategies.solvers.twentyone import solve  # the solver is only needed by this bot

    return solve(rules).chart


# --- registry -----------------------------------------------------------------------------

BotFactory = Callable[..., TableBot]


def _explorer(rules: TwentyOneRules, rng: np.random.Generator | None, *args: str) -> TableBot:
    policy_name = args[0] if args else "textbook"
    share = float(args[1]) if len(args) > 1 else 0.1
    if policy_name not in BOTS or policy_name == "explorer":
        raise ValueError(f"explorer: unknown policy {policy_name!r}")
    return Explorer(make_bot(policy_name, rules, rng), share, rng, rules)


BOTS: dict[str, BotFactory] = {
    "dealer": lambda rules, rng: Threshold(17, "dealer", rules),
    "cautious": lambda rules, rng: Threshold(12, "cautious", rules),
    "textbook": lambda rules, rng: Textbook(rules),
    "random": lambda rules, rng: RandomBot(rng, rules),
    "explorer": _explorer,
    "chart": lambda rules, rng: ChartBot(optimal_chart(rules), rules),
}
"""name → factory(rules, rng, *args); `explorer:POLICY:SHARE` passes POLICY and SHARE."""

BASELINES = ("textbook", "dealer", "cautious", "random", "explorer")
"""What a generated player is measured against by default."""


def make_bot(
    spec: str, rules: TwentyOneRules | None = None, rng: np.random.Generator | None = None
) -> TableBot:
    """A bot from `name` or `name:arg:…` (`explorer:textbook:0.2`); `rng` draws the
    choices of the bots that make random ones."""
    name, *args = spec.split(":")
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(BOTS)})")
    rules = rules or TwentyOneRules()
    return BOTS[name](rules, rng, *args)

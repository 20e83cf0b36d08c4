"""TwentyOne by exact computation: the optimal flat-bet return and its chart, for any rules.

`solve(rules, decks)` computes, without sampling, the expected net return per hand per unit
of bid of the best strategy for one player alone at the table (the dealer plays whenever
one of the player's hands is not bust), for an infinite deck (`decks=None`) or for a hand
dealt from a full shoe of `decks` decks, where the strategy may depend on the exact cards in
hand (composition-dependent) and the dealer's chances are computed from the cards left.

How. The dealer's final class given its up card is a sum over the multisets of cards it can
draw (it draws while 16 or less, with no card limit unless the rules set one): each
multiset is counted once with the number of orders in which the dealer's rule draws it, so
that for any shoe its probability is that count times a product of falling factorials
(`DealerTable`). The player's side is a recursion over hand compositions with memoisation
(`_Solver`): stand / hit (also on a Combo: the course engine asks every hand) / DoubleDown
(also on a Combo, paid as a Combo on the doubled bid, and on split hands) / Split /
Insurance, Charlie and Combo included. By exchangeability the
dealer's hole card and draws can be taken from the shoe left after the player's cards.

Splits are unlimited, as in the engine. A split hand that is dealt a card of its pair's
rank may split again; in an infinite deck the hands of a split are independent, so the
value of one half is the fixed point of `R = A + q · max(B, 2R)` (`A`: the half's value
over the cards that do not pair it, `q`: the chance that the card pairs it, `B`: playing
the re-paired hand instead of splitting it), that is `max(A + qB, A / (1 − 2q))`; the
chance that every hand of a split busts (which loses an insured pair its insurance) is the
matching fixed point `Z = a + q Z²`. Stated approximations: from a finite shoe each split
hand is valued from the shoe without the pair and the up card, ignoring the cards the other
hands draw (the usual composition-dependent approximation; exact for the infinite deck);
the hands of an insured split are played as split hands, their insurance valued with the
chance that they all bust. Amounts are per unit of bid without rounding (`bid // 2`
insurance = 0.5, Combo = `combo_payout`).

The answer is a `Chart` (`strategies/engines/twentyone_chart.py`), the form of a strategy
every layer shares; `chart_value` gives the exact value of a chart (the vectorised
evaluator is `strategies.validation.twentyone_evaluator`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from math import comb

import numpy as np

from mine.strategies.engines.twentyone import (
    BUST,
    CHARLIE,
    COMBO,
    DOUBLE,
    HIT,
    SPLIT,
    STAND,
    TwentyOneRules,
    add_points,
    classify,
    classify_dealer,
    dealer_hits,
    return_multiple,
)
from mine.strategies.engines.twentyone_chart import (
    INSURED,
    MAIN,
    SPLIT_HAND,
    VALUES,
    Chart,
    n_index,
)

RANKS_PER_VALUE = np.array([1, 1, 1, 1, 1, 1, 1, 1, 1, 4])  # ten, jack, queen, king
N_CLASSES = 25  # class index: Bust 0, Value(n) n + 1, Charlie 23, Combo 24
SAME_RANK = 1 / 13  # infinite deck: the chance that a card has a given rank


def class_index(cls: int) -> int:
    return {BUST: 0, CHARLIE: 23, COMBO: 24}.get(cls, cls + 1)


def points(value: int) -> int:
    return 11 if value == 1 else value


# --- the dealer -------------------------------------------------------------------------


@dataclass(frozen=True)
class DealerTable:
    """Every multiset of cards the dealer can draw after its up card, as arrays."""

    counts: np.ndarray  # (E, 10) cards of each value drawn
    orders: np.ndarray  # (E,) how many drawing orders the dealer's rule allows
    sizes: np.ndarray  # (E,) cards drawn
    classes: np.ndarray  # (E,) class index of the final hand

    @classmethod
    def build(cls, up: int, rules: TwentyOneRules) -> DealerTable:
        start_total, start_soft = add_points(0, 0, points(up))
        layer = {(0,) * 10: (1, start_total, start_soft)}  # multiset → (orders, total, soft)
        rows: list[tuple[tuple[int, ...], int, int, int]] = []
        n = 1
        while layer:
            following: dict[tuple[int, ...], tuple[int, int, int]] = {}
            for drawn, (ways, total, soft) in layer.items():
                if n >= 2 and not dealer_hits(n, total, bool(soft), rules):
                    rows.append((drawn, ways, n - 1, class_index(classify_dealer(n, total, rules))))
                    continue
                for value in VALUES:
                    grown = list(drawn)
                    grown[value - 1] += 1
                    key = tuple(grown)
                    t, s = add_points(total, soft, points(value))
                    old = following.get(key)
                    following[key] = (ways + (old[0] if old else 0), t, s)
            layer, n = following, n + 1
        counts = np.array([r[0] for r in rows], dtype=np.int64)
        return cls(
            counts,
            np.array([r[1] for r in rows], dtype=np.float64),
            np.array([r[2] for r in rows], dtype=np.int64),
            np.array([r[3] for r in rows], dtype=np.int64),
        )

    def distribution(self, shoe: np.ndarray | None, probs: np.ndarray | None = None) -> np.ndarray:
        """Class probabilities (N_CLASSES) for a finite shoe (counts by value) or, with
        `probs`, for an infinite deck."""
        if shoe is None:
            weight = self.orders * np.prod(probs[None, :] ** self.counts, axis=1)
        else:
            top = self.counts.max() + 1
            falling = _falling_table(int(shoe.max()), int(top))
            weight = self.orders * np.prod(falling[shoe[None, :], self.counts], axis=1)
            total = int(shoe.sum())
            weight /= _falling_table(total, int(self.sizes.max()) + 1)[total, self.sizes]
        return np.bincount(self.classes, weights=weight, minlength=N_CLASSES)


@lru_cache(maxsize=64)
def _falling_table(top: int, width: int) -> np.ndarray:
    """falling[s, d] = s (s - 1) … (s - d + 1), 0 when d > s."""
    table = np.zeros((top + 1, width))
    for s in range(top + 1):
        value = 1.0
        for d in range(width):
            table[s, d] = value
            value *= s - d
            if value <= 0:
                value = 0.0
    return table


# --- the solver -------------------------------------------------------------------------


def full_shoe(decks: int) -> np.ndarray:
    return 4 * decks * RANKS_PER_VALUE


INFINITE = RANKS_PER_VALUE / 13.0


@dataclass(frozen=True)
class Solution:
    """The answer of `solve` / `chart_value`: value per hand and per up card."""

    rules: TwentyOneRules
    decks: int | None
    ev: float  # expected net return per hand per unit of bid
    by_up: dict[int, float]  # same, given the up card (value 1..10)
    chart: Chart
    insurance_share: float  # probability that the strategy takes insurance


class _Solver:
    """The recursion for one up card. A hand is (cards by value, total, soft, n)."""

    def __init__(
        self, rules: TwentyOneRules, decks: int | None, up: int, chart: Chart | None
    ) -> None:
        self.rules, self.decks, self.up, self.chart = rules, decks, up, chart
        self.table = DealerTable.build(up, rules)
        if decks is None:
            self.shoe0 = None
        else:
            shoe = full_shoe(decks).copy()
            shoe[up - 1] -= 1
            self.shoe0 = shoe
        self.stop = rules.charlie_cards if rules.charlie else 64
        self.insurance_back = rules.insurance_payout * (0.5 if rules.insurance_on_side_bet else 1)
        returns = np.zeros((N_CLASSES, N_CLASSES))
        classes = [BUST, *range(22), CHARLIE, COMBO]
        for p in classes:
            for d in classes:
                returns[class_index(p), class_index(d)] = return_multiple(p, d, rules)
        self.returns = returns
        self._dealer: dict[tuple[int, ...], np.ndarray] = {}
        self._memo: dict[tuple, tuple[float, int]] = {}
        self._bust: dict[tuple, float] = {}
        self.q: dict[tuple[int, int, int, int, int], np.ndarray] = {}  # chart votes

    # -- chances --

    def key(self, cards: tuple[int, ...], total: int, soft: int, n: int) -> tuple:
        return (total, soft, n) if self.shoe0 is None else (cards, total, soft)

    def next_card(self, removed: tuple[int, ...]) -> np.ndarray:
        if self.shoe0 is None:
            return INFINITE
        left = self.shoe0 - np.array(removed)
        return left / left.sum()

    def dealer(self, removed: tuple[int, ...]) -> np.ndarray:
        key = removed if self.shoe0 is not None else ()
        dist = self._dealer.get(key)
        if dist is None:
            if self.shoe0 is None:
                dist = self.table.distribution(None, INFINITE)
            else:
                dist = self.table.distribution(self.shoe0 - np.array(removed))
            self._dealer[key] = dist
        return dist

    # -- values (net, per unit of the hand's first bid) --

    def settle(self, removed: tuple[int, ...], cls: int, stake: float, context: int) -> float:
        if cls == BUST:
            return -stake  # the dealer does not play: insurance is lost too
        dist = self.dealer(removed)
        value = stake * float(self.returns[class_index(cls)] @ dist) - stake
        if context == INSURED:
            value += self.insurance_back * dist[24]
        return value

    def classify(self, n: int, total: int, context: int) -> int:
        return classify(n, total, self.rules, split=context == SPLIT_HAND)

    def after_card(
        self, cards, removed, total, soft, n, value, context
    ) -> tuple[tuple, tuple, int, int, int]:
        grown = _plus(cards, value)
        t, s = add_points(total, soft, points(value))
        return grown, _plus(removed, value), t, s, n + 1

    def best(
        self,
        cards: tuple[int, ...],
        removed: tuple[int, ...],
        total: int,
        soft: int,
        n: int,
        context: int,
    ) -> tuple[float, int]:
        """(value, action) of a live hand: STAND, HIT or DOUBLE (no Split here)."""
        memo_key = (self.key(removed, total, soft, n), n, context)
        found = self._memo.get(memo_key)
        if found is not None:
            return found
        options = self.options(cards, removed, total, soft, n, context)
        if self.chart is None:
            action = max(options, key=options.__getitem__)
        else:
            action = int(self.chart.hand[context, self.up, total, soft, n_index(n)])
            if action not in options:  # the chart's fallback: DOUBLE → HIT
                action = HIT
        if self.chart is None:
            self._vote(removed, total, soft, n, context, options)
        found = self._memo[memo_key] = (options[action], action)
        return found

    def options(self, cards, removed, total, soft, n, context) -> dict[int, float]:
        """What each legal action of a live hand is worth (STAND, HIT, DOUBLE), the hand
        being played on by `best` after it."""
        combo = n == 2 and self.classify(2, total, context) == COMBO
        options = {
            STAND: self.settle(removed, self.classify(n, total, context), 1.0, context),
            HIT: self.hit(cards, removed, total, soft, n, context),
        }
        if n == 2 and (not combo or self.rules.double_on_combo):
            options[DOUBLE] = self.double(cards, removed, total, soft, context, combo)
        return options

    def hit(self, cards, removed, total, soft, n, context) -> float:
        probs = self.next_card(removed)
        value = 0.0
        for v in VALUES:
            p = probs[v - 1]
            if p == 0:
                continue
            c2, r2, t, s, m = self.after_card(cards, removed, total, soft, n, v, context)
            if m >= self.stop or t > 21:
                value += p * self.settle(r2, self.classify(m, t, context), 1.0, context)
            else:
                value += p * self.best(c2, r2, t, s, m, context)[0]
        return value

    def double(self, cards, removed, total, soft, context, combo: bool) -> float:
        if combo:  # ends at once, paid as a Combo on the doubled bid
            return self.settle(removed, COMBO, 2.0, context)
        probs = self.next_card(removed)
        value = 0.0
        for v in VALUES:
            p = probs[v - 1]
            if p:
                _, r2, t, _, m = self.after_card(cards, removed, total, soft, 2, v, context)
                value += p * self.settle(r2, self.classify(m, t, context), 2.0, context)
        return value

    def bust_chance(self, cards, removed, total, soft, n, context) -> float:
        """Chance that a live hand busts when played by `best`."""
        key = (self.key(removed, total, soft, n), n, context)
        if key in self._bust:
            return self._bust[key]
        _, action = self.best(cards, removed, total, soft, n, context)
        chance = 0.0
        combo = n == 2 and self.classify(2, total, context) == COMBO
        if action != STAND and not (action == DOUBLE and combo):
            probs = self.next_card(removed)
            for v in VALUES:
                p = probs[v - 1]
                if not p:
                    continue
                c2, r2, t, s, m = self.after_card(cards, removed, total, soft, n, v, context)
                if action == DOUBLE or m >= self.stop or t > 21:
                    chance += p * (self.classify(m, t, context) == BUST)
                else:
                    chance += p * self.bust_chance(c2, r2, t, s, m, context)
        self._bust[key] = chance
        return chance

    def same_rank(self, value: int, removed: tuple[int, ...]) -> float:
        """Chance that the next card has the rank of a pair of `value` (ten-valued pairs
        are of one rank: a quarter of the tens, less the pair)."""
        if self.shoe0 is None:
            return SAME_RANK
        left = self.shoe0 - np.array(removed)
        same = left[value - 1] if value < 10 else self.shoe0[9] / 4 - removed[9]
        return max(float(same), 0.0) / float(left.sum())

    def split(self, value: int, context: int) -> float:
        """Every hand of a split pair of `value`, re-splits included (see the module's
        docstring): 2 R, plus the insurance of an insured pair."""
        pair = _plus(_plus((0,) * 10, value), value)
        probs = self.next_card(pair)
        q = self.same_rank(value, pair)
        one = _plus((0,) * 10, value)
        other = other_bust = 0.0  # over the cards that do not pair the half
        for v in VALUES:
            p = probs[v - 1] - (q if v == value else 0.0)
            if p <= 0:
                continue
            cards, removed = _plus(one, v), _plus(pair, v)
            t, s = add_points(*add_points(0, 0, points(value)), points(v))
            other += p * self.best(cards, removed, t, s, 2, SPLIT_HAND)[0]
            if context == INSURED:
                other_bust += p * self.bust_chance(cards, removed, t, s, 2, SPLIT_HAND)
        cards, removed = _plus(one, value), _plus(pair, value)
        t, s = add_points(*add_points(0, 0, points(value)), points(value))
        again = self.best(cards, removed, t, s, 2, SPLIT_HAND)[0]  # the re-paired hand, kept
        keep, resplit = other + q * again, other / (1 - 2 * q)
        if self.chart is None:
            split_again = q > 0 and resplit > keep
            self._split_votes[(SPLIT_HAND, value)] = resplit - keep
        else:
            split_again = bool(self.chart.split[SPLIT_HAND, self.up, value])
        half = resplit if split_again else keep
        total = 2 * half
        if context == INSURED:  # the dealer plays unless every hand of the split busts
            if split_again:
                bust = (1 - np.sqrt(max(1 - 4 * q * other_bust, 0.0))) / (2 * q)
            else:
                bust = other_bust + q * self.bust_chance(cards, removed, t, s, 2, SPLIT_HAND)
            total += self.insurance_back * self.dealer(pair)[24] * (1 - bust * bust)
        return total

    def first(self, v1: int, v2: int, splittable: bool, context: int) -> tuple[float, str]:
        """(value, action) of the first decision on a dealt hand in `context`."""
        cards = _plus(_plus((0,) * 10, v1), v2)
        total, soft = add_points(*add_points(0, 0, points(v1)), points(v2))
        value, action = self.best(cards, cards, total, soft, 2, context)
        name = {STAND: "S", HIT: "H", DOUBLE: "D"}[action]
        if splittable:
            split_value = self.split(v1, context)
            if self.chart is None:
                take = split_value > value
            else:
                take = bool(self.chart.split[context, self.up, v1])
            self._split_votes[(context, v1)] = split_value - value
            if take:
                value, name = split_value, "P"
        return value, name

    def _vote(self, removed, total, soft, n, context, options: dict[int, float]) -> None:
        """Weigh each action's value by the chance of holding these cards (finite shoe),
        so that the chart gives one action per situation."""
        key = (context, total, soft, n_index(n), 0)
        votes = self.q.setdefault(key, np.zeros(4))
        weight = 1.0 if self.shoe0 is None else _composition_chance(self.shoe0, removed)
        best = max(options.values())
        for action in (STAND, HIT, DOUBLE):
            votes[action] += weight * (options.get(action, best - 10.0) - best)

    _split_votes: dict


def _plus(counts: tuple[int, ...], value: int) -> tuple[int, ...]:
    grown = list(counts)
    grown[value - 1] += 1
    return tuple(grown)


def _composition_chance(shoe: np.ndarray, cards: tuple[int, ...]) -> float:
    """Chance that sum(cards) cards drawn from `shoe` are exactly `cards` (any order)."""
    n = sum(cards)
    chance = 1.0
    for have, take in zip(shoe.tolist(), cards, strict=True):
        chance *= comb(int(have), take)
    return chance / comb(int(shoe.sum()), n)


def _deals(shoe: np.ndarray | None, up: int) -> list[tuple[int, int, bool, float]]:
    """(v1, v2, splittable, chance) of every first hand given the up card; a pair of
    ten-valued cards is splittable only when both have the same rank."""
    if shoe is None:
        probs = INFINITE
        left = None
    else:
        left = shoe.astype(float).copy()
        left[up - 1] -= 1
        probs = left / left.sum()
    deals = []
    for v1 in VALUES:
        for v2 in VALUES:
            if v2 < v1:
                continue
            if left is None:
                chance = probs[v1 - 1] * probs[v2 - 1] * (1 if v1 == v2 else 2)
            else:
                n = left.sum()
                first = left[v1 - 1] / n
                left[v1 - 1] -= 1
                chance = first * left[v2 - 1] / (n - 1) * (1 if v1 == v2 else 2)
                left[v1 - 1] += 1
            if v1 == v2 == 10:
                same = _same_rank_tens(shoe, up)
                deals.append((10, 10, True, chance * same))
                deals.append((10, 10, False, chance * (1 - same)))
            else:
                deals.append((v1, v2, v1 == v2, chance))
    return deals


def _same_rank_tens(shoe: np.ndarray | None, up: int) -> float:
    """Chance that two ten-valued cards share a rank (ten, jack, queen, king)."""
    if shoe is None:
        return 0.25
    per_rank = np.full(4, shoe[9] / 4)
    if up == 10:
        per_rank[0] -= 1  # the up card's rank has one card fewer (by symmetry, any one)
    tens = per_rank.sum()
    return float((per_rank * (per_rank - 1)).sum() / (tens * (tens - 1)))


def solve(
    rules: TwentyOneRules | None = None,
    decks: int | None = None,
    chart: Chart | None = None,
    progress: Callable[[int], None] | None = None,
) -> Solution:
    """The optimal strategy's value and chart (or, given `chart`, that chart's value)."""
    rules = rules or TwentyOneRules()
    if chart is None and progress is None:
        return copy.deepcopy(_optimum(rules, decks))
    return _solve(rules, decks, chart, progress)


@lru_cache(maxsize=8)
def _optimum(rules: TwentyOneRules, decks: int | None) -> Solution:
    # Seconds of work that one measure asks for several times (a baseline's chart, the
    # reference, the report), and a process's commands for the same rules again.
    return _solve(rules, decks, None, None)


def _solve(
    rules: TwentyOneRules,
    decks: int | None,
    chart: Chart | None,
    progress: Callable[[int], None] | None,
) -> Solution:
    shoe = None if decks is None else full_shoe(decks)
    up_chance = INFINITE if shoe is None else shoe / shoe.sum()
    result = Chart.empty() if chart is None else chart
    by_up: dict[int, float] = {}
    insured_share = 0.0
    for up in VALUES:
        solver = _Solver(rules, decks, up, chart)
        solver._split_votes = {}
        value = 0.0
        for v1, v2, splittable, chance in _deals(shoe, up):
            plain, _ = solver.first(v1, v2, splittable, MAIN)
            best = plain
            total, soft = add_points(*add_points(0, 0, points(v1)), points(v2))
            if up == 1:
                insured, _ = solver.first(v1, v2, splittable, INSURED)
                insured -= 0.5  # the side bet, bid // 2
                if chart is None:
                    take = insured > plain
                    result.insure[total, soft, int(splittable)] = take
                else:
                    take = bool(chart.insure[total, soft, int(splittable)])
                if take:
                    best = insured
                    insured_share += up_chance[0] * chance
            value += chance * best
        by_up[up] = value
        if chart is None:
            _fill_chart(result, solver, up)
        if progress:
            progress(up)
    ev = float(sum(up_chance[u - 1] * by_up[u] for u in VALUES))
    return Solution(rules, decks, ev, by_up, result, float(insured_share))


def _fill_chart(chart: Chart, solver: _Solver, up: int) -> None:
    for (context, total, soft, n, _), votes in solver.q.items():
        chart.hand[context, up, total, soft, n] = max((STAND, HIT, DOUBLE), key=votes.__getitem__)
    for (context, value), gain in solver._split_votes.items():
        chart.split[context, up, value] = gain > 0


def chart_value(rules: TwentyOneRules, chart: Chart, decks: int | None = None) -> float:
    """The exact value of playing `chart` (same model as `solve`)."""
    return solve(rules, decks, chart).ev


def _two_cards(total: int, soft: int, pair: int) -> tuple[int, int]:
    """Two card values making a first hand of this total (`pair`: the pair's value, 0
    for none); in an infinite deck nothing else about them changes a value."""
    if pair:
        return pair, pair
    if soft:
        return 1, total - 11
    high = min(10, total - 2)
    return high, total - high


class ChartValues:
    """What each action is worth in a situation when `chart` plays the rest of the hand:
    the recursion of `solve` (infinite deck), net per unit of the hand's first bid.
    What a choice gains or loses against the chart's is the difference of two of these."""

    def __init__(self, rules: TwentyOneRules, chart: Chart) -> None:
        self.rules, self.chart = rules, chart
        self._solvers: dict[int, _Solver] = {}

    def _solver(self, up: int) -> _Solver:
        solver = self._solvers.get(up)
        if solver is None:
            solver = self._solvers[up] = _Solver(self.rules, None, up, self.chart)
            solver._split_votes = {}
        return solver

    def hand(self, up: int, total: int, soft: int, n_cards: int, context: int) -> dict[int, float]:
        """STAND, HIT and DOUBLE where they are legal."""
        none = (0,) * 10  # an infinite deck: the cards in hand change no chance
        return self._solver(up).options(none, none, total, soft, n_cards, context)

    def split(self, up: int, pair: int, context: int) -> float:
        """Splitting a pair of value `pair` (re-splitting it, in a split hand)."""
        return self._solver(up).split(pair, context)

    def chart_action(self, up: int, total: int, soft: int, n_cards: int, context: int,
                     pair: int) -> int:  # fmt: skip
        """The chart's action there (an engine code, SPLIT included), with the chart's
        fallback (DOUBLE where it is not legal is HIT)."""
        if pair and self.chart.split[context, up, pair]:
            return SPLIT
        action = int(self.chart.hand[context, up, total, soft, n_index(n_cards)])
        legal = self.hand(up, total, soft, n_cards, context)
        return action if action in legal else HIT

    def insurance(self, total: int, soft: int, pair: int) -> tuple[float, float]:
        """(insured, not insured): a first hand's value against an ace with the side bet
        (`bid // 2`, half a bid) taken, and without it."""
        v1, v2 = _two_cards(total, soft, pair)
        solver = self._solver(1)
        insured = solver.first(v1, v2, pair > 0, INSURED)[0] - 0.5
        return insured, solver.first(v1, v2, pair > 0, MAIN)[0]

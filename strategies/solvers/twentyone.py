"""TwentyOne by exact computation: the optimal flat-bet return and its chart, for any rules
or for a game learned from logs.

`solve(rules, decks)` computes, without sampling, the expected net return per hand per unit
of bid of the best strategy for one player alone at the table (the dealer plays whenever
one of the player's hands is not bust), for an infinite deck (`decks=None`) or for a hand
dealt from a full shoe of `decks` decks, where the strategy may depend on the exact cards in
hand (composition-dependent) and the dealer's chances are computed from the cards left.
`solve_game(game, …)` solves a `Game`: what the solver needs of the rules, which the rules
give (`game_of`) and `models.twentyone` learns from logs (payoffs by hand, the dealer's
rule, insurance's net, which actions exist), with its card chances; given a `prefer`red
chart, it keeps that chart's action wherever another is not worth `margin` more.

How. The dealer's final hand given its up card is a sum over the multisets of cards it can
draw: each multiset is counted once with the number of orders in which the dealer's rule
draws it, so that for any shoe its probability is that count times a product of falling
factorials (`DealerTable`). The player's side is a recursion over hand compositions with
memoisation (`_Solver`): stand / hit (also on a Combo: the course engine asks every hand) /
DoubleDown (also on a Combo, paid as a Combo on the doubled bid, and on split hands) /
Split / Insurance. By exchangeability the dealer's hole card and draws can be taken from
the shoe left after the player's cards.

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
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import combinations_with_replacement
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
INFINITE = RANKS_PER_VALUE / 13.0
SAME_RANK = 1 / 13  # infinite deck: the chance that a card has a given rank
CLASSES = (BUST, *range(22), CHARLIE, COMBO)  # class index i ↔ CLASSES[i]


def class_index(cls: int) -> int:
    return {BUST: 0, CHARLIE: 23, COMBO: 24}.get(cls, cls + 1)


def points(value: int) -> int:
    return 11 if value == 1 else value


@dataclass(frozen=True, eq=False)
class Game:
    """The game as the solver sees it: what a final hand (`player_cell` of its cards, total
    and whether a split made it) gets back per unit of bid against the dealer's final hand
    (`dealer_cell`), when the dealer draws, where a hand stops, what insurance nets per
    unit of bid (the side bet included: the dealer has a Combo, has none, does not play),
    which actions exist."""

    probs: np.ndarray  # the chance of each card value 1..10 (an infinite deck)
    payoff: np.ndarray  # (player cells, dealer cells)
    player_cell: Callable[[int, int, bool], int]
    dealer_cell: Callable[[int, int], int]
    dealer_hits: Callable[[int, int, bool], bool]  # (cards, total, soft)
    dead: np.ndarray  # by player cell: bust (the dealer does not play for it)
    stop: int  # a hand ends at this many cards
    insurance: tuple[float, float, float]
    hit_on_21: bool = True
    double: bool = True
    double_on_21: bool = True
    double_after_split: bool = True
    split: bool = True
    insure: bool = True
    combo_after_split: bool = True  # a split hand of two cards worth 21 is a Combo
    combo: int = field(init=False)  # the dealer cell of two cards worth 21

    def __post_init__(self) -> None:
        object.__setattr__(self, "combo", self.dealer_cell(2, 21))


@lru_cache(maxsize=16)
def game_of(rules: TwentyOneRules) -> Game:
    """The rules as the solver sees them: cells are hand classes (`CLASSES`)."""
    back = rules.insurance_payout * (0.5 if rules.insurance_on_side_bet else 1)
    return Game(
        INFINITE,
        np.array([[return_multiple(p, d, rules) for d in CLASSES] for p in CLASSES]),
        lambda n, total, split: class_index(classify(n, total, rules, split)),
        lambda n, total: class_index(classify(n, total, rules, dealer=True)),
        lambda n, total, soft: dealer_hits(n, total, soft, rules),
        np.arange(len(CLASSES)) == 0,
        rules.charlie_cards if rules.charlie else 64,
        (back - 0.5, -0.5, -0.5),
        double_on_21=rules.double_on_combo,
        combo_after_split=rules.combo_after_split,
    )


# --- the dealer -------------------------------------------------------------------------


@dataclass(frozen=True)
class DealerTable:
    """Every multiset of cards the dealer can draw after its up card, as arrays."""

    counts: np.ndarray  # (E, 10) cards of each value drawn
    orders: np.ndarray  # (E,) how many drawing orders the dealer's rule allows
    sizes: np.ndarray  # (E,) cards drawn
    cells: np.ndarray  # (E,) the final hand's dealer cell
    width: int  # dealer cells

    @classmethod
    def build(cls, up: int, game: Game) -> DealerTable:
        start_total, start_soft = add_points(0, 0, points(up))
        layer = {(0,) * 10: (1, start_total, start_soft)}  # multiset → (orders, total, soft)
        rows: list[tuple[tuple[int, ...], int, int, int]] = []
        n = 1
        while layer:
            following: dict[tuple[int, ...], tuple[int, int, int]] = {}
            for drawn, (ways, total, soft) in layer.items():
                if n >= 2 and not game.dealer_hits(n, total, bool(soft)):
                    rows.append((drawn, ways, n - 1, game.dealer_cell(n, total)))
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
            game.payoff.shape[1],
        )

    def distribution(self, shoe: np.ndarray | None, probs: np.ndarray | None = None) -> np.ndarray:
        """Chances of the dealer cells for a finite shoe (counts by value) or, with
        `probs`, for an infinite deck."""
        if shoe is None:
            weight = self.orders * np.prod(probs[None, :] ** self.counts, axis=1)
        else:
            # Only the values a row draws count (a factor of 1 for the others): a product
            # over its nonzero counts, each row's run of them together, is four times fewer
            # factors than over all ten values (the 3-deck solver spends most of its time here).
            rows, values, drawn = self._drawn
            falling = _falling_table(int(shoe.max()), int(self.counts.max()) + 1)
            weight = self.orders * np.multiply.reduceat(falling[shoe[values], drawn], rows)
            total = int(shoe.sum())
            weight /= _falling_table(total, int(self.sizes.max()) + 1)[total, self.sizes]
        return np.bincount(self.cells, weights=weight, minlength=self.width)

    @cached_property
    def _drawn(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(where each row's run starts, values, counts) of the nonzero counts, row by row:
        every row draws at least one card, so no run is empty."""
        row, value = np.nonzero(self.counts)
        starts = np.searchsorted(row, np.arange(len(self.counts)))
        return starts, value, self.counts[row, value]


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


@dataclass(frozen=True)
class Solution:
    """The answer of `solve` / `chart_value`: value per hand and per up card."""

    decks: int | None
    ev: float  # expected net return per hand per unit of bid
    by_up: dict[int, float]  # same, given the up card (value 1..10)
    chart: Chart
    insurance_share: float  # probability that the strategy takes insurance


class _Solver:
    """The recursion for one up card. A hand is (cards by value, total, soft, n); the
    cards matter only from a finite shoe (`decks`). With `chart`, the value of playing it;
    with `prefer`, its action wherever the best is not worth `margin` more."""

    def __init__(
        self, game: Game, decks: int | None, up: int, chart: Chart | None = None,
        prefer: Chart | None = None, margin: float = 0.0,
    ) -> None:  # fmt: skip
        self.game, self.decks, self.up, self.chart = game, decks, up, chart
        self.prefer, self.margin = prefer, margin
        self.table = DealerTable.build(up, game)
        self.shoe0 = None if decks is None else full_shoe(decks)  # a new array, less the up card
        if self.shoe0 is not None:
            self.shoe0[up - 1] -= 1
        self._stand: dict[tuple[int, ...], tuple[np.ndarray, float]] = {}
        self._memo: dict[tuple, tuple[float, int]] = {}
        self._bust: dict[tuple, float] = {}
        self.q: dict[tuple[int, int, int, int, int], np.ndarray] = {}  # chart votes
        self.split_votes: dict[tuple[int, int], float] = {}

    # -- chances --

    def key(self, cards: tuple[int, ...], total: int, soft: int, n: int) -> tuple:
        return (total, soft, n) if self.shoe0 is None else (cards, total, soft)

    def next_card(self, removed: tuple[int, ...]) -> np.ndarray:
        if self.shoe0 is None:
            return self.game.probs
        left = self.shoe0 - np.array(removed)
        return left / left.sum()

    def stand(self, removed: tuple[int, ...]) -> tuple[np.ndarray, float]:
        """(net of standing per unit of stake by player cell, the chance of a dealer
        Combo), the dealer's hand drawn from what `removed` leaves."""
        key = removed if self.shoe0 is not None else ()
        found = self._stand.get(key)
        if found is None:
            if self.shoe0 is None:
                dist = self.table.distribution(None, self.game.probs)
            else:
                dist = self.table.distribution(self.shoe0 - np.array(removed))
            found = self._stand[key] = (self.game.payoff @ dist - 1.0, float(dist[self.game.combo]))
        return found

    # -- values (net, per unit of the hand's first bid) --

    def settle(self, removed, n: int, total: int, stake: float, context: int) -> float:
        """A final hand's value; an insured hand's insurance with it."""
        cell = self.game.player_cell(n, total, context == SPLIT_HAND)
        stand, combo = self.stand(removed)
        value = stake * stand[cell]
        if context == INSURED:
            value += self.insured(combo, self.game.dead[cell])
        return value

    def insured(self, combo: float, dead: float) -> float:
        """Insurance's net when every hand it covers is bust with chance `dead`."""
        win, lose, no_play = self.game.insurance
        return (1 - dead) * (combo * win + (1 - combo) * lose) + dead * no_play

    def draws(self, cards, removed, total, soft, n):
        """(chance, (cards, removed, total, soft, n) after it) of each next card's value."""
        probs = self.next_card(removed)
        for value in VALUES:
            if probs[value - 1]:
                t, s = add_points(total, soft, points(value))
                yield probs[value - 1], (_plus(cards, value), _plus(removed, value), t, s, n + 1)

    def best(
        self, cards, removed, total: int, soft: int, n: int, context: int
    ) -> tuple[float, int]:
        """(value, action) of a live hand: STAND, HIT or DOUBLE (no Split here)."""
        memo_key = (self.key(removed, total, soft, n), n, context)
        found = self._memo.get(memo_key)
        if found is not None:
            return found
        if self.chart is None:
            options = self.options(cards, removed, total, soft, n, context)
            action = max(options, key=options.__getitem__)
            if self.prefer is not None:
                kept = int(self.prefer.hand[context, self.up, total, soft, n_index(n)])
                if kept in options and options[kept] >= options[action] - self.margin:
                    action = kept
            self._vote(removed, total, soft, n, context, options)
        else:
            # Only the chart's action is valued: the others' values are never read, and
            # valuing them would play every hand on past where the chart stands (without
            # Charlie, to a bust: most of a finite shoe's work).
            legal = self.legal(n, total, context)
            action = int(self.chart.hand[context, self.up, total, soft, n_index(n)])
            if action not in legal:  # the chart's fallback: DOUBLE → HIT, else STAND
                action = HIT if HIT in legal else STAND
            options = self.options(cards, removed, total, soft, n, context, only=action)
        found = self._memo[memo_key] = (options[action], action)
        return found

    def is_combo(self, n: int, total: int, context: int) -> bool:
        return n == 2 and total == 21 and (context != SPLIT_HAND or self.game.combo_after_split)

    def legal(self, n: int, total: int, context: int) -> tuple[int, ...]:
        """The actions of a live hand among STAND, HIT and DOUBLE."""
        game = self.game
        actions = [STAND]
        if not (n == 2 and total == 21) or game.hit_on_21:
            actions.append(HIT)
        doubles = n == 2 and game.double and (context != SPLIT_HAND or game.double_after_split)
        if doubles and (not self.is_combo(n, total, context) or game.double_on_21):
            actions.append(DOUBLE)
        return tuple(actions)

    def options(
        self, cards, removed, total, soft, n, context, only: int | None = None
    ) -> dict[int, float]:
        """What each legal action of a live hand is worth (STAND, HIT, DOUBLE; `only`: that
        one alone), the hand being played on by `best` after it."""
        options = {}
        for action in self.legal(n, total, context):
            if only is not None and action != only:
                continue
            if action == STAND:
                options[STAND] = self.settle(removed, n, total, 1.0, context)
            elif action == HIT:
                options[HIT] = self.hit(cards, removed, total, soft, n, context)
            elif not self.is_combo(n, total, context):
                options[DOUBLE] = self.double(cards, removed, total, soft, context)
            else:  # a Combo doubled ends at once, paid as a Combo on the doubled bid
                options[DOUBLE] = self.settle(removed, n, total, 2.0, context)
        return options

    def hit(self, cards, removed, total, soft, n, context) -> float:
        value = 0.0
        for p, (c2, r2, t, s, m) in self.draws(cards, removed, total, soft, n):
            if m >= self.game.stop or t > 21:
                value += p * self.settle(r2, m, t, 1.0, context)
            else:
                value += p * self.best(c2, r2, t, s, m, context)[0]
        return value

    def double(self, cards, removed, total, soft, context) -> float:
        value = 0.0
        for p, (_, r2, t, _, m) in self.draws(cards, removed, total, soft, 2):
            value += p * self.settle(r2, m, t, 2.0, context)
        return value

    def bust_chance(self, cards, removed, total, soft, n, context) -> float:
        """Chance that a live hand busts when played by `best`."""
        key = (self.key(removed, total, soft, n), n, context)
        if key in self._bust:
            return self._bust[key]
        _, action = self.best(cards, removed, total, soft, n, context)
        chance = 0.0
        if action != STAND and not (action == DOUBLE and self.is_combo(n, total, context)):
            for p, (c2, r2, t, s, m) in self.draws(cards, removed, total, soft, n):
                if action == DOUBLE or m >= self.game.stop or t > 21:
                    cell = self.game.player_cell(m, t, context == SPLIT_HAND)
                    chance += p * self.game.dead[cell]
                else:
                    chance += p * self.bust_chance(c2, r2, t, s, m, context)
        self._bust[key] = chance
        return chance

    def same_rank(self, value: int, removed: tuple[int, ...]) -> float:
        """Chance that the next card has the rank of a pair of `value` (ten-valued pairs
        are of one rank: a quarter of the tens, less the pair)."""
        if self.shoe0 is None:
            return self.game.probs[value - 1] / (4 if value == 10 else 1)
        left = self.shoe0 - np.array(removed)
        same = left[value - 1] if value < 10 else self.shoe0[9] / 4 - removed[9]
        return max(float(same), 0.0) / float(left.sum())

    def choose(self, gain: float, kept: bool) -> bool:
        """Take an option worth `gain` more than its alternative; with `prefer`, keep the
        preferred chart's choice `kept` unless the other is worth `margin` more."""
        if self.prefer is None:
            return gain > 0
        return gain > -self.margin if kept else gain > self.margin

    def splits(self, context: int, value: int, gain: float, possible: bool = True) -> bool:
        """Whether a pair of `value` is split in `context`: the chart's choice where a chart
        is valued, else `choose`'s (if `possible`), kept for the chart being built."""
        if self.chart is not None:
            return bool(self.chart.split[context, self.up, value])
        kept = self.prefer is not None and bool(self.prefer.split[context, self.up, value])
        take = self.split_votes[(context, value)] = possible and self.choose(gain, kept)
        return take

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
        split_again = self.splits(SPLIT_HAND, value, resplit - keep, q > 0)
        total = 2 * (resplit if split_again else keep)
        if context == INSURED:  # the dealer plays unless every hand of the split busts
            if split_again:
                bust = (1 - np.sqrt(max(1 - 4 * q * other_bust, 0.0))) / (2 * q)
            else:
                bust = other_bust + q * self.bust_chance(cards, removed, t, s, 2, SPLIT_HAND)
            total += self.insured(self.stand(pair)[1], bust * bust)
        return total

    def first(self, v1: int, v2: int, splittable: bool, context: int) -> tuple[float, bool]:
        """(value, split?) of the first decision on a dealt hand in `context`."""
        cards = _plus(_plus((0,) * 10, v1), v2)
        total, soft = add_points(*add_points(0, 0, points(v1)), points(v2))
        value, _ = self.best(cards, cards, total, soft, 2, context)
        if not (splittable and self.game.split):
            return value, False
        split_value = self.split(v1, context)
        if self.splits(context, v1, split_value - value):
            return split_value, True
        return value, False

    def _vote(self, removed, total, soft, n, context, options: dict[int, float]) -> None:
        """Weigh each action's value by the chance of holding these cards (finite shoe),
        so that the chart gives one action per situation."""
        key = (context, total, soft, n_index(n), 0)
        votes = self.q.setdefault(key, np.zeros(4))
        weight = 1.0 if self.shoe0 is None else _composition_chance(self.shoe0, removed)
        best = max(options.values())
        for action in (STAND, HIT, DOUBLE):
            votes[action] += weight * (options.get(action, best - 10.0) - best)


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


def _deals(shoe: np.ndarray | None, up: int, probs: np.ndarray = INFINITE) -> list:
    """(v1, v2, splittable, chance) of every first hand given the up card (from a full
    shoe of counts by value, or an infinite deck of `probs`); a pair of ten-valued cards is
    splittable only when both have the same rank."""
    left = None if shoe is None else shoe.astype(float)
    if left is not None:
        left[up - 1] -= 1
    deals = []
    for v1, v2 in combinations_with_replacement(VALUES, 2):
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
    return solve_game(game_of(rules), decks, chart, progress=progress)


@lru_cache(maxsize=8)
def _optimum(rules: TwentyOneRules, decks: int | None) -> Solution:
    # Seconds of work that one measure asks for several times (a baseline's chart, the
    # reference, the report), and a process's commands for the same rules again.
    return solve_game(game_of(rules), decks)


def solve_game(
    game: Game,
    decks: int | None = None,
    chart: Chart | None = None,
    prefer: Chart | None = None,
    margin: float = 0.0,
    progress: Callable[[int], None] | None = None,
    fill: Callable[[Chart, _Solver], None] | None = None,
) -> Solution:
    """`game` solved (see the module's docstring): its best chart, or the value of
    `chart`; `fill(chart, solver)` writes each up card's cells (the default: the cells
    the deals reach, by their votes)."""
    shoe = None if decks is None else full_shoe(decks)
    up_chance = game.probs if shoe is None else shoe / shoe.sum()
    result = Chart.empty() if chart is None else chart
    by_up: dict[int, float] = {}
    insured_share = 0.0
    for up in VALUES:
        solver = _Solver(game, decks, up, chart, prefer, margin)
        value = 0.0
        for v1, v2, splittable, chance in _deals(shoe, up, game.probs):
            best, _ = solver.first(v1, v2, splittable, MAIN)
            if up == 1 and game.insure:
                total, soft = add_points(*add_points(0, 0, points(v1)), points(v2))
                cell = (total, soft, int(splittable))
                insured, _ = solver.first(v1, v2, splittable, INSURED)
                if chart is None:
                    kept = prefer is not None and bool(prefer.insure[cell])
                    take = result.insure[cell] = solver.choose(insured - best, kept)
                else:
                    take = bool(chart.insure[cell])
                if take:
                    best = insured
                    insured_share += up_chance[0] * chance
            value += chance * best
        by_up[up] = value
        if chart is None:
            (fill or _fill_chart)(result, solver)
        if progress:
            progress(up)
    ev = float(sum(up_chance[u - 1] * by_up[u] for u in VALUES))
    return Solution(decks, ev, by_up, result, float(insured_share))


def _fill_chart(chart: Chart, solver: _Solver) -> None:
    for (context, total, soft, n, _), votes in solver.q.items():
        chart.hand[context, solver.up, total, soft, n] = max((STAND, HIT, DOUBLE),
                                                             key=votes.__getitem__)  # fmt: skip
    for (context, value), take in solver.split_votes.items():
        chart.split[context, solver.up, value] = take


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
        self.game, self.chart = game_of(rules), chart
        self._solvers: dict[int, _Solver] = {}

    def _solver(self, up: int) -> _Solver:
        solver = self._solvers.get(up)
        if solver is None:
            solver = self._solvers[up] = _Solver(self.game, None, up, self.chart)
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
        return solver.first(v1, v2, pair > 0, INSURED)[0], solver.first(v1, v2, pair > 0, MAIN)[0]

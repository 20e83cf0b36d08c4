"""TwentyOne's vectorised evaluator: millions of hands by the engine's rules at once.

A second implementation of the rules (`play_round`: one seat and the dealer, unlimited
re-splits, DoubleDown on any two cards, insurance on the first decision), checked against
the engine and the exact solver by the tests, that plays one round per row of arrays:
- flat-bet return per hand per unit of bid, with 95% confidence intervals. Every policy
  plays the *same cards* — card k of a row is the k-th card dealt in that row whatever the
  policy does — so differences between policies are paired and their intervals tight. Two
  ways to deal: a fresh shoe (or an infinite deck) per hand (`flat_returns`), or one
  continuous shoe per row, dealt round after round to its end and followed by a fresh one
  (mid-round if need be), as the engine deals (`continuous_returns`); there every policy
  starts each round from the same point of the same shoe, and the shoe moves on by the
  reference's cards;
- policies: what a player file decides is the file's own `action_for`, tabulated
  situation by situation the first time the evaluator meets it (`FilePolicy`), so no
  second policy can drift from the file; the baselines (textbook, dealer and cautious by
  their own `decide`, random, and explorer: textbook with a share of random actions).
"""

from __future__ import annotations

from functools import lru_cache
from types import ModuleType
from typing import Any

import numpy as np

from mine.inputs import quoted
from mine.strategies.bots.twentyone import Textbook, Threshold
from mine.strategies.engines.twentyone import (
    BUST,
    CAN_DOUBLE,
    CAN_HIT,
    CAN_INSURE,
    CAN_SPLIT,
    CAN_STAND,
    CHARLIE,
    COMBO,
    DOUBLE,
    HIT,
    INSURANCE,
    SPLIT,
    STAND,
    TwentyOneRules,
    return_multiple,
)
from mine.strategies.engines.twentyone_chart import INSURED, MAIN, SPLIT_HAND
from mine.strategies.intervals import Z95
from mine.strategies.runners import child

FIRST_CARDS = 4  # the dealer's two and the player's two
ROUNDS_PER_ROW = 200  # rounds each continuous shoe plays at least: several whole shoes
POINTS = np.array([0, 11, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10], dtype=np.int64)  # by rank
VALUE = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10], dtype=np.int64)
HI_LO = np.array([0, -1, 1, 1, 1, 1, 1, 0, 0, 0, -1, -1, -1, -1], dtype=np.int64)
CLASSES = [BUST, *range(22), CHARLIE, COMBO]  # class index i ↔ CLASSES[i]
LETTER_ACTIONS = {"I": INSURANCE, "P": SPLIT, "D": DOUBLE, "H": HIT, "S": STAND}


# --- policies: an action per row of hands -------------------------------------------------
# act(up, total, soft, n, pair, legal, context, first, tc, rng): arrays, one entry per hand;
# `pair` is the rank of a two-card pair (0: none), `legal` the engine's CAN_* mask, `tc`
# the count bucket before the round (as the file computes it).


class _Tabled:
    """A deterministic policy asked once per situation (`_ask` of the situation's `digits`,
    each below its radix in `radices`), its answers kept in a table."""

    radices: tuple[int, ...]

    def __init__(self) -> None:
        self.table = np.full(int(np.prod(self.radices)), -1, np.int8)

    def act(self, up, total, soft, n, pair, legal, context, first, tc, rng) -> np.ndarray:
        digits = self.digits(up, total, soft, n, pair, legal, context, first.astype(np.int64), tc)
        key = np.ravel_multi_index(digits, self.radices)
        action = self.table[key]
        unknown = action < 0
        if unknown.any():
            for k in np.unique(key[unknown]).tolist():
                self.table[k] = self._ask(*map(int, np.unravel_index(k, self.radices)))
            action = self.table[key]
        return action.astype(np.int64)


class FilePolicy(_Tabled):
    """A player file's decisions: its `action_for`, asked once per situation and kept in
    a table (count bucket, context, up, total, soft, cards, pair value, first)."""

    def __init__(self, module: ModuleType):
        self.module = module
        self.limit = int(module.TC_LIMIT)
        self.radices = (2 * self.limit + 1, 3, 11, 32, 2, 4, 11, 2)
        super().__init__()

    def digits(self, up, total, soft, n, pair, legal, context, first, tc) -> tuple:
        total, n, pair = np.minimum(total, 31), np.minimum(n, 5) - 2, np.minimum(pair, 10)
        return tc + self.limit, context, up, total, soft, n, pair, first

    def _ask(self, tc, context, up, total, soft, n, value, first) -> int:
        letter = self.module.action_for(
            context, up, total, soft, n + 2, value, tc - self.limit, bool(first)
        )
        # as a builtin str: a class of the file's own would run its __hash__ here
        action = LETTER_ACTIONS.get(str.__str__(letter)) if isinstance(letter, str) else None
        if action is None:  # the file's words, said as its fault (not a KeyError)
            raise ValueError(f"action_for answered {quoted(letter)}, not one of "
                             f"{', '.join(LETTER_ACTIONS)}")  # fmt: skip
        return action


class BotPolicy(_Tabled):
    """A deterministic table bot: its own `decide`, once per situation."""

    radices = (11, 32, 2, 16, 14, 64)

    def __init__(self, bot):
        self.bot = bot
        super().__init__()

    def digits(self, up, total, soft, n, pair, legal, context, first, tc) -> tuple:
        return up, np.minimum(total, 31), soft, np.minimum(n, 15), pair, legal

    def _ask(self, up, total, soft, cards, rank, mask) -> int:
        return self.bot.decide(up, total, bool(soft), cards, rank, mask)


class RandomPolicy:
    """A uniformly random legal action, as the `random` bot."""

    def act(self, up, total, soft, n, pair, legal, context, first, tc, rng) -> np.ndarray:
        kinds = np.array([HIT, STAND, DOUBLE, SPLIT, INSURANCE])
        allowed = (legal[:, None] >> kinds[None, :]) & 1
        pick = (rng.random(len(legal)) * allowed.sum(axis=1)).astype(np.int64)
        order = np.cumsum(allowed, axis=1) - 1
        chosen = np.argmax((order == pick[:, None]) & (allowed == 1), axis=1)
        return kinds[chosen]


class ExplorerPolicy:
    """`policy`'s action, replaced by a random legal one with probability `share`."""

    def __init__(self, policy, share: float):
        self.policy, self.share, self.random = policy, share, RandomPolicy()

    def act(self, up, total, soft, n, pair, legal, context, first, tc, rng) -> np.ndarray:
        args = (up, total, soft, n, pair, legal, context, first, tc, rng)
        planned, noise = self.policy.act(*args), self.random.act(*args)
        return np.where(rng.random(len(legal)) < self.share, noise, planned)


def baseline_policies(rules: TwentyOneRules, share: float = 0.1) -> dict[str, Any]:
    textbook = BotPolicy(Textbook(rules))
    return {
        "textbook": textbook,
        "dealer": BotPolicy(Threshold(17, "dealer", rules)),
        "cautious": BotPolicy(Threshold(12, "cautious", rules)),
        "random": RandomPolicy(),
        "explorer": ExplorerPolicy(textbook, share),
    }


# --- cards: the same for every policy -----------------------------------------------------


class FreshShoes:
    """Each row's hand dealt from its own fresh shoe of `decks` decks (None: an infinite
    deck). Cards are drawn the first time any policy needs them and kept, so card k of a
    row is the same for every policy. A finite shoe keeps, per row, how many cards of each
    rank it dealt; a draw picks one of the shoe's slots uniformly (rank, copy) and is taken
    again if that copy was dealt — copies of a rank are dealt in order, so the accepted
    slots are exactly the cards left, each equally likely."""

    def __init__(self, n: int, rng: np.random.Generator, decks: int | None, width: int = 16):
        self.rng, self.n, self.width = rng, n, width
        self.size = 0 if decks is None else 52 * decks
        self.cards = np.zeros(n * width, np.int64)  # row r's card k at r * width + k
        self.filled = np.zeros(n, np.int64)
        self.taken = np.zeros(n * 14, np.int64) if decks else None  # row r, rank: r * 14 + rank
        self._deal(FIRST_CARDS)

    def _deal(self, k: int) -> None:
        """The first `k` cards of every row at once (every round deals at least four): `k`
        distinct slots of each shoe, drawn again where two coincide; copies being alike,
        the dealt ones are taken to be each rank's first."""
        if not self.size:
            ranks = self.rng.integers(1, 14, size=(self.n, k))
        else:
            codes = self.rng.integers(0, self.size, size=(self.n, k))
            rows = np.arange(self.n)
            while rows.size:
                drawn = codes[rows]
                clash = np.zeros(len(rows), bool)
                for i in range(k):
                    for j in range(i + 1, k):
                        clash |= drawn[:, i] == drawn[:, j]
                rows = rows[clash]
                codes[rows] = self.rng.integers(0, self.size, size=(len(rows), k))
            ranks = codes % 13 + 1
            slots = (np.arange(self.n)[:, None] * 14 + ranks).reshape(-1)
            self.taken = np.bincount(slots, minlength=self.n * 14)
        self.cards.reshape(self.n, self.width)[:, :k] = ranks
        self.filled[:] = k

    def card(self, rows: np.ndarray, k: np.ndarray) -> np.ndarray:
        if len(k) and k.max() >= self.width:
            grown = np.zeros((self.n, 2 * self.width), np.int64)
            grown[:, : self.width] = self.cards.reshape(self.n, self.width)
            self.cards, self.width = grown.reshape(-1), 2 * self.width
        at = rows * self.width + k
        new = k >= self.filled[rows]  # k == filled: cards are asked for in order
        if new.any():
            fresh = rows[new]
            self.cards[at[new]] = self._draw(fresh)
            self.filled[fresh] += 1
        return self.cards[at]

    def _draw(self, rows: np.ndarray) -> np.ndarray:
        if not self.size:
            return self.rng.integers(1, 14, size=len(rows))
        ranks = np.empty(len(rows), np.int64)
        pending = np.arange(len(rows))
        base = rows * 14
        while pending.size:
            code = self.rng.integers(0, self.size, size=len(pending))
            rank = code % 13 + 1
            slot = base[pending] + rank
            free = code // 13 >= self.taken[slot]
            ranks[pending[free]] = rank[free]
            self.taken[slot[free]] += 1
            pending = pending[~free]
        return ranks


class ContinuousShoe:
    """One shoe per row dealt round after round to its last card, then a fresh one (the
    engine's shoe): each round starts at `head`; `card(rows, k)` is the k-th card from
    there, for every policy; `advance` moves the shoe on by the cards a round took. Each
    card keeps how many cards its shoe had dealt before it and the Hi-Lo count of those a
    player saw (a file counts an unseen hole card as dealt, not by its value)."""

    def __init__(self, n: int, rng: np.random.Generator, decks: int):
        self.rng, self.size = rng, 52 * decks
        self.deck = np.tile(np.tile(np.arange(1, 14, dtype=np.int8), 4), decks)
        self.cards = np.concatenate([self._shoes(n), self._shoes(n)], axis=1)
        self.head = rng.integers(0, self.size, n)  # anywhere in the shoe, its past seen
        position = np.arange(self.size, dtype=np.int64)
        self.dealt = np.tile(np.concatenate([position, position]), (n, 1))
        shoes = (self.cards[:, : self.size], self.cards[:, self.size :])
        self.count = np.concatenate([self._counts(shoe) for shoe in shoes], axis=1)

    def _shoes(self, n: int) -> np.ndarray:
        return self.rng.permuted(np.tile(self.deck, (n, 1)), axis=1)

    @staticmethod
    def _counts(shoes: np.ndarray) -> np.ndarray:
        """The Hi-Lo count of each shoe's cards before each card."""
        running = np.cumsum(HI_LO[shoes.astype(np.int64)], axis=1)
        return np.concatenate([np.zeros((len(shoes), 1), np.int64), running[:, :-1]], axis=1)

    def before(self) -> tuple[np.ndarray, np.ndarray]:
        """(cards dealt from the current shoe, their Hi-Lo count) before each row's round."""
        rows = np.arange(len(self.head))
        return self.dealt[rows, self.head], self.count[rows, self.head]

    def card(self, rows: np.ndarray, k: np.ndarray) -> np.ndarray:
        at = self.head[rows] + k
        if at.max(initial=0) >= self.cards.shape[1]:
            raise RuntimeError("a round took more cards than a shoe holds")
        return self.cards[rows, at].astype(np.int64)

    def hide(self, rows: np.ndarray, k: int) -> None:
        """The k-th card of these rows' round was never shown (a dealer's hole card when
        every hand bust): a player's count leaves it out for the rest of its shoe."""
        at = self.head[rows] + k
        end = (at // self.size + 1) * self.size
        later = np.arange(self.cards.shape[1])
        within = (later > at[:, None]) & (later < end[:, None])
        self.count[rows] -= within * HI_LO[self.cards[rows, at].astype(np.int64)][:, None]

    def advance(self, used: np.ndarray) -> None:
        self.head += used
        spent = np.flatnonzero(self.head >= self.size)
        if spent.size:  # drop the finished shoe, a fresh one follows the current
            fresh = self._shoes(len(spent))
            self.cards[spent, : self.size] = self.cards[spent, self.size :]
            self.cards[spent, self.size :] = fresh
            self.count[spent, : self.size] = self.count[spent, self.size :]
            self.count[spent, self.size :] = self._counts(fresh)
            self.head[spent] -= self.size


class _Dealer:
    """One policy's place in each row's cards."""

    def __init__(self, cards, n: int):
        self.cards, self.k = cards, np.zeros(n, np.int64)

    def draw(self, rows: np.ndarray) -> np.ndarray:
        ranks = self.cards.card(rows, self.k[rows])
        self.k[rows] += 1
        return ranks


# --- one round per row, by the engine's rules ---------------------------------------------


def _add(total: np.ndarray, soft: np.ndarray, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised `add_points`; `soft` is 0 or 1 (two aces never both count 11)."""
    total = total + pts
    soft = soft + (pts == 11)
    for _ in range(2):  # at most two aces fall back from 11 to 1 on one card
        fall = (total > 21) & (soft > 0)
        total = total - 10 * fall
        soft = soft - fall
    return total, np.minimum(soft, 1)


def _start(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    zero = np.zeros(len(a), np.int64)
    return _add(*_add(zero, zero, POINTS[a]), POINTS[b])


def _class_index(total, n, rules: TwentyOneRules, split, dealer: bool = False) -> np.ndarray:
    """Vectorised `classify` as class indices (`CLASSES`)."""
    cls = np.where(total > 21, 0, total + 1)
    if rules.charlie:
        charlie = (n == rules.charlie_cards) if dealer else (n >= rules.charlie_cards)
        if rules.charlie_bust_first:
            charlie &= total <= 21
        cls = np.where(charlie, 23, cls)
    combo = (n == 2) & (total == 21)
    if not rules.combo_after_split and not dealer:
        combo &= ~np.asarray(split)
    return np.where(combo, 24, cls)


@lru_cache(maxsize=16)
def _returns(rules: TwentyOneRules) -> np.ndarray:
    table = np.zeros((len(CLASSES), len(CLASSES)))
    for i, p in enumerate(CLASSES):
        for j, d in enumerate(CLASSES):
            table[i, j] = return_multiple(p, d, rules)
    return table


class _Slot:
    """The k-th hand of every row (slot 0 the dealt hand, later slots the hands splits
    make), one array per field, so that a slot's fields are contiguous."""

    def __init__(self, n: int):
        self.first, self.second = np.zeros(n, np.int64), np.zeros(n, np.int64)
        self.total, self.soft = np.zeros(n, np.int64), np.zeros(n, np.int64)
        self.cards, self.stake = np.zeros(n, np.int64), np.ones(n)
        self.split = np.zeros(n, bool)

    def deal(self, rows, first, second, split: bool) -> None:
        self.first[rows], self.second[rows] = first, second
        self.total[rows], self.soft[rows] = _start(first, second)
        self.cards[rows], self.stake[rows] = 2, 1.0
        self.split[rows] = split

    def take(self, other: _Slot, rows) -> None:
        """These rows' hands of `other` (dealt, not played yet) move to this slot."""
        for name in ("first", "second", "total", "soft", "cards", "stake", "split"):
            getattr(self, name)[rows] = getattr(other, name)[rows]


def play_round(
    policy, dealer: _Dealer, n: int, rules: TwentyOneRules, rng, tc: np.ndarray
) -> tuple[np.ndarray, int, np.ndarray]:
    """Net return per unit of bid of one round per row (one seat, the dealer, the engine's
    rules: unlimited re-splits, a split's hands played depth first, DoubleDown on any two
    cards, a Hit on any hand, insurance on the first decision) played by `policy`; how
    many of its actions were not legal (played as Stand); and whether the dealer played
    (else its hole card was never shown)."""
    everyone = np.arange(n)
    up_rank, hole, a, b = (dealer.draw(everyone) for _ in range(4))  # the dealer's first
    up = VALUE[up_rank]
    slots = [_Slot(n)]
    slots[0].deal(everyone, a, b, False)
    count = np.ones(n, np.int64)  # hands per row
    insured = np.zeros(n, bool)
    first = np.ones(n, bool)
    stop = rules.charlie_cards if rules.charlie else 1 << 30
    invalid = 0
    k = 0
    while k < len(slots):
        hand = slots[k]
        rows = everyone if k == 0 else np.flatnonzero(count > k)
        while rows.size:
            t, s, m = hand.total[rows], hand.soft[rows], hand.cards[rows]
            split = hand.split[rows]
            two = m == 2
            one = hand.first[rows]
            pair = np.where(two & (one == hand.second[rows]), one, 0)
            combo = two & (t == 21) & (rules.combo_after_split | ~split)
            legal = CAN_STAND | CAN_HIT | np.where(pair > 0, CAN_SPLIT, 0)  # a Combo may Hit
            legal |= np.where(two & (~combo | rules.double_on_combo), CAN_DOUBLE, 0)
            firsts = first[rows]
            legal |= np.where(firsts & (up[rows] == 1), CAN_INSURE, 0)
            context = np.where(split, SPLIT_HAND, np.where(insured[rows], INSURED, MAIN))
            action = policy.act(up[rows], t, s, m, pair, legal, context, firsts, tc[rows], rng)
            bad = (legal >> action) & 1 == 0
            if bad.any():
                invalid += int(bad.sum())
                action = np.where(bad, STAND, action)
            first[rows] = False
            keep = action == INSURANCE
            insured[rows[keep]] = True

            splits = action == SPLIT
            if splits.any():
                at = rows[splits]
                kept, moved = dealer.draw(at), dealer.draw(at)  # the engine's order
                pair_rank = hand.first[at]
                hand.deal(at, pair_rank, kept, True)
                # the new hand is played next (depth first, as the course engine plays a
                # split's hands): the hands after this one move up a slot
                if int(count[at].max()) == len(slots):
                    slots.append(_Slot(n))
                for j in range(int(count[at].max()), k + 1, -1):
                    slots[j].take(slots[j - 1], at[count[at] >= j])
                slots[k + 1].deal(at, pair_rank, moved, True)
                count[at] += 1
                keep |= splits

            doubles = action == DOUBLE
            hand.stake[rows[doubles]] = 2.0
            takes = (action == HIT) | (doubles & ~combo)
            drawn = rows[takes]
            t2, s2 = _add(t[takes], s[takes], POINTS[dealer.draw(drawn)])
            hand.total[drawn], hand.soft[drawn] = t2, s2
            hand.cards[drawn] += 1
            keep[takes] = (action[takes] == HIT) & (t2 <= 21) & (m[takes] + 1 < stop)
            rows = rows[keep]
        k += 1

    returns = _returns(rules)
    classes = [_class_index(h.total, h.cards, rules, h.split) for h in slots]
    plays = np.zeros(n, bool)  # the dealer plays unless every hand busts
    for k, cls in enumerate(classes):
        plays |= (cls > 0) & (count > k)
    d_total, d_soft = _start(up_rank, hole)
    d_n = np.full(n, 2)
    rows = np.flatnonzero(plays)
    while rows.size:
        t, s, m = d_total[rows], d_soft[rows], d_n[rows]
        hits = (t < rules.dealer_stands_on) | (
            rules.dealer_hits_soft_17 & (t == rules.dealer_stands_on) & (s > 0)
        )
        if rules.dealer_card_limit:
            hits &= m < rules.dealer_card_limit
        rows = rows[hits]
        d_total[rows], d_soft[rows] = _add(t[hits], s[hits], POINTS[dealer.draw(rows)])
        d_n[rows] += 1
    d_class = _class_index(d_total, d_n, rules, False, dealer=True)
    net = slots[0].stake * (returns[classes[0], d_class] - 1.0)
    for k in range(1, len(slots)):
        rows = np.flatnonzero(count > k)
        hand = slots[k]
        net[rows] += hand.stake[rows] * (returns[classes[k][rows], d_class[rows]] - 1.0)
    back = rules.insurance_payout * (0.5 if rules.insurance_on_side_bet else 1.0)
    pays = plays & (d_class == 24)
    if rules.insurance_needs_live_hand:
        pays &= classes[0] > 0
    net += np.where(insured, -0.5 + back * pays, 0.0)
    return net, invalid, plays


# --- flat-bet returns ------------------------------------------------------------------------


def _interval(total: float, squares: float, n: int, z: float = Z95) -> dict[str, Any]:
    mean = total / n
    var = max(squares / n - mean * mean, 0.0) * n / max(n - 1, 1)
    half = z * float(np.sqrt(var / n))
    return {"mean": mean, "ci95": [mean - half, mean + half], "n": n}


class _Sums:
    """Sums of each policy's returns and of its paired differences from the reference."""

    def __init__(self, names, reference: str):
        self.reference = reference
        self.sums = {name: [0.0, 0.0] for name in names}
        self.diffs = {name: [0.0, 0.0] for name in names}
        self.invalid = dict.fromkeys(names, 0)
        self.hands = 0

    def add(self, nets: dict[str, np.ndarray]) -> None:
        for name, net in nets.items():
            self.sums[name][0] += float(net.sum())
            self.sums[name][1] += float(np.square(net).sum())
            d = nets[self.reference] - net
            self.diffs[name][0] += float(d.sum())
            self.diffs[name][1] += float(np.square(d).sum())
        self.hands += len(net)

    def data(self) -> dict[str, Any]:
        """The sums as plain data (what a contained job may return)."""
        return {"sums": self.sums, "diffs": self.diffs, "invalid": self.invalid,
                "hands": self.hands}  # fmt: skip

    def merge(self, data: dict[str, Any]) -> None:
        for name in self.sums:
            for mine, theirs in ((self.sums, data["sums"]), (self.diffs, data["diffs"])):
                mine[name][0] += theirs[name][0]
                mine[name][1] += theirs[name][1]
            self.invalid[name] += data["invalid"][name]
        self.hands += data["hands"]

    def result(self, z: float = Z95) -> dict[str, dict[str, Any]]:
        """Each policy's figures with intervals of quantile `z` (95 %, or 95 % over several
        looks: `intervals.z_of`)."""
        return {
            name: {
                "return": _interval(*self.sums[name], self.hands, z),
                f"{self.reference}_minus_this": _interval(*self.diffs[name], self.hands, z),
                "invalid_actions": self.invalid[name],
            }
            for name in self.sums
        }


FLAT_CHUNK = 100_000  # hands dealt from one child of the seed: the unit the flat bets split by


def flat_chunks(hands: int) -> int:
    return -(-hands // FLAT_CHUNK)


def flat_returns(
    policies: dict[str, Any],
    rules: TwentyOneRules,
    hands: int,
    seed: int,
    decks: int | None,
    reference: str,
) -> dict[str, dict[str, Any]]:
    """Each policy's flat-bet return, each hand from a fresh shoe (or an infinite deck),
    on the same cards, and its paired difference from `reference` (reference − policy:
    positive when the reference does better). The count before every hand is 0."""
    chunks = flat_sums(policies, rules, range(flat_chunks(hands)), hands, seed, decks, reference)
    return fold(chunks, reference).result()


def flat_sums(
    policies: dict[str, Any],
    rules: TwentyOneRules,
    chunks: range,
    hands: int,
    seed: int,
    decks: int | None,
    reference: str,
) -> list[dict[str, Any]]:
    """The sums of `flat_returns`'s chunks `chunks`, one each (as `_Sums.data`): chunk c is hands
    c·FLAT_CHUNK onwards (of `hands`), dealt from the c-th child of the seed, so that the
    chunks may be played anywhere and folded in order to the same figures."""
    done = []
    for c in chunks:
        n = min(FLAT_CHUNK, hands - c * FLAT_CHUNK)
        rng = np.random.default_rng(child(seed, c))
        cards = FreshShoes(n, rng, decks)
        sums, nets = _Sums(policies, reference), {}
        for name, policy in policies.items():
            nets[name], bad, _ = play_round(
                policy, _Dealer(cards, n), n, rules, rng, np.zeros(n, np.int64)
            )
            sums.invalid[name] += bad
        sums.add(nets)
        done.append(sums.data())
    return done


def fold(chunks: list[dict[str, Any]], reference: str) -> _Sums:
    """The chunks' sums added in chunk order (floating point: the order is the figure)."""
    total = _Sums(chunks[0]["sums"], reference)
    for data in chunks:
        total.merge(data)
    return total


def continuous_returns(
    policies: dict[str, Any],
    rules: TwentyOneRules,
    hands: int,
    seed: int,
    reference: str,
    rows: int = 50_000,
) -> dict[str, dict[str, Any]]:
    """Flat-bet returns over at most `rows` continuous shoes of `rules.decks` decks dealt
    round after round (the engine's shoe) until `hands` hands are played: each round every
    policy plays from the same point of the same shoe, knowing the count before the round
    as a player file computes it; the shoe then moves on by `reference`'s cards. Each shoe
    starts at a random point of its first deal and plays `ROUNDS_PER_ROW` rounds or more,
    so that the rounds meet every depth of the shoe as a seat at the table does."""
    rng = np.random.default_rng(seed)
    rows = min(rows, max(1, hands // ROUNDS_PER_ROW))
    shoe = ContinuousShoe(rows, rng, rules.decks)
    sums = _Sums(policies, reference)
    size = 52 * rules.decks
    while sums.hands < hands:
        dealt, count = shoe.before()
        tc = np.clip(np.rint(count * 52.0 / (size - dealt)), -10, 10).astype(np.int64)
        nets, used, unseen = {}, None, None
        for name, policy in policies.items():
            dealer = _Dealer(shoe, rows)
            limit = getattr(policy, "limit", 10)
            bucket = np.clip(tc, -limit, limit)
            nets[name], bad, plays = play_round(policy, dealer, rows, rules, rng, bucket)
            sums.invalid[name] += bad
            if name == reference:
                used, unseen = dealer.k, np.flatnonzero(~plays)
        take = min(rows, hands - sums.hands)
        sums.add({name: net[:take] for name, net in nets.items()})
        shoe.hide(unseen, 1)  # the hole card: the round's second card
        shoe.advance(used)
    return sums.result()

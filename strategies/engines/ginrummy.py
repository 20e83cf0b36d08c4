"""Gin Rummy (course variant): the reference engine.

Rules: `../shared/spec/ginrummy.md`, checked against the course's Haskell engine and the
real server logs. A `GinRummyState` is one game (rounds until a player has ≥ `game_target`
points and the totals differ), OpenSpiel-style: `current_player`, `legal_actions`,
`apply_action`, `is_terminal`, `returns`. Its decisions, in order, each round:

- `PICK`: `"stock"` or `"discard"`;
- `PLAY`: `Play(act, card)` — discard `card` (never the card just drawn) and announce
  `"gin"`, `"knock"` or `"drop"`;
- `MELDS`: when the round is over, the caller (the last player to play) declares its melds,
  then the opponent (`legal_actions` offers the least-deadwood declaration; any valid
  declaration is accepted).

A round ends on a call, when the stock is empty after a play (the last player to draw is
then the caller, scored as a knock: the `Drop` rows of the real logs match exactly that),
or after `play_cap` plays. An invalid action ends the game: `invalid` says who and why.

`play_game` runs a game between two players exposing the spec's `pick`, `play` and `melds`
functions, enforcing the memory and time limits, and returns a `GameRecord` that
`write_game` turns into the spec's turn and score files from either seat's point of view;
`simulate` plays many games between two player factories (the bots of
`strategies.bots.ginrummy`, or any) and writes them all, each game seeded on its own.

Melds (the first half of this module): the least-deadwood arrangement of a hand, the best
discard, and the check of a player's declared melds. Sets are 3 or 4 cards of one rank;
straights are 3, 4 or 5 cards of one suit with consecutive ranks, aces low, no wrap (Q-K-A
is not a straight); every other card is deadwood worth its rank (A = 1, J/Q/K = 10).

A hand is a 52-bit mask, suit-major: bit `13 * suit + rank - 1` with suits in `SHDC` order,
so a straight is a run of adjacent bits inside one 13-bit block and a set is the same bit
in several blocks. The exact search only looks at the cards that belong to some meld of the
hand (most hands have none or a handful) and memoises the best melded value per such mask:
dropping the lowest card of the mask either leaves it as deadwood or spends it in one of the
melds whose lowest card it is.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import Enum
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import Any, ClassVar, NamedTuple, Protocol

import numpy as np

from mine.parsers.cards import DECK, SUITS, Card, deadwood_points
from mine.parsers.csvlog import partial_pair, publish_pair
from mine.parsers.ginrummy import Score, Turn, write_scores, write_turns
from mine.strategies.engines.settings import RuleSettings

# --- melds -----------------------------------------------------------------------------

Meld = tuple[Card, ...]
"""A declared meld: 3-4 cards of a rank, 3-5 of a suit in sequence, or one deadwood card."""

SUIT_BITS = 13
BLOCK = (1 << SUIT_BITS) - 1
SUIT_INDEX = {suit: index for index, suit in enumerate(SUITS)}
CARD_BITS: dict[Card, int] = {
    card: 1 << (SUIT_INDEX[card.suit] * 13 + card.rank - 1) for card in DECK
}
BIT_CARDS: dict[int, Card] = {bit: card for card, bit in CARD_BITS.items()}
VALUES: tuple[int, ...] = tuple(deadwood_points(BIT_CARDS[1 << index]) for index in range(52))
SPREAD = 1 | 1 << 13 | 1 << 26 | 1 << 39  # copies a 13-bit rank mask into all four suits


def card_bit(card: Card) -> int:
    return CARD_BITS[card]


def hand_mask(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= CARD_BITS[card]
    return mask


def mask_cards(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, suit by suit (S H D C), ace to king."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(BIT_CARDS[low])
        mask ^= low
    return tuple(cards)


def mask_value(mask: int) -> int:
    return sum(VALUES[index] for index in range(52) if mask >> index & 1)


# --- what a meld is -----------------------------------------------------------------------


@dataclass(frozen=True)
class MeldSizes:
    """The meld sizes the rules allow (the spec: sets 3-4, straights 3-5)."""

    min_set: int = 3
    max_set: int = 4
    min_straight: int = 3
    max_straight: int = 5


DEFAULT_SIZES = MeldSizes()


def meld_kind(cards: Sequence[Card], sizes: MeldSizes = DEFAULT_SIZES) -> str | None:
    """'set', 'straight', or None when the cards form neither (written from the rules, not
    from the masks, so that it can check them)."""
    if len(set(cards)) != len(cards):
        return None
    n = len(cards)
    if sizes.min_set <= n <= sizes.max_set and len({card.rank for card in cards}) == 1:
        return "set"
    if sizes.min_straight <= n <= sizes.max_straight and len({card.suit for card in cards}) == 1:
        ranks = sorted(card.rank for card in cards)
        if ranks == list(range(ranks[0], ranks[0] + n)):
            return "straight"
    return None


@cache
def all_meld_masks(sizes: MeldSizes = DEFAULT_SIZES) -> tuple[int, ...]:
    melds = []
    for rank in range(1, 14):
        of_rank = [CARD_BITS[Card(rank, suit)] for suit in SUITS]
        for n in range(sizes.min_set, sizes.max_set + 1):
            melds.extend(sum(group) for group in combinations(of_rank, n))
    for suit in SUITS:
        for n in range(sizes.min_straight, sizes.max_straight + 1):
            for low in range(1, 15 - n):
                melds.append(sum(CARD_BITS[Card(rank, suit)] for rank in range(low, low + n)))
    return tuple(melds)


# --- the solver ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Discards:
    """The best discards of an 11-card hand: the deadwood left and every card that leaves it."""

    deadwood: int
    cards: tuple[Card, ...]


@cache
def _block_values() -> tuple[int, ...]:
    """Deadwood value of every 13-bit suit block (immutable, built once)."""
    return tuple(mask_value(block) for block in range(1 << SUIT_BITS))


@cache
def _melds_by_lowest(sizes: MeldSizes) -> tuple[tuple[tuple[int, int], ...], ...]:
    """For each card, the (meld, value) pairs whose lowest card it is (immutable)."""
    by_lowest: list[list[tuple[int, int]]] = [[] for _ in range(52)]
    for meld in all_meld_masks(sizes):
        by_lowest[(meld & -meld).bit_length() - 1].append((meld, mask_value(meld)))
    return tuple(tuple(group) for group in by_lowest)


@dataclass
class MeldSolver:
    """Exact least-deadwood arrangements. Holds its memo (bounded), so keep one per user.

    `deadwood(mask)` and friends work on masks for speed; `deadwood_of(cards)` etc. take
    cards.
    """

    sizes: MeldSizes = DEFAULT_SIZES
    memo_limit: int = 1 << 20
    _memo: dict[int, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.melds = all_meld_masks(self.sizes)
        self._by_lowest = _melds_by_lowest(self.sizes)
        self._block_value = _block_values()
        self.deadwood = self._make_deadwood()

    # The hot path is a closure so that every name it touches is a local.
    def _make_deadwood(self) -> Callable[[int], int]:
        memo, limit, by_lowest, block_value = (
            self._memo,
            self.memo_limit,
            self._by_lowest,
            self._block_value,
        )
        sizes, melds = self.sizes, self.melds
        fast = sizes.min_set == 3 and sizes.min_straight == 3
        start3 = 0
        for suit in range(4):
            start3 |= ((1 << 11) - 1) << (13 * suit)  # runs of 3 may start at A…J

        def best(mask: int) -> int:
            # The most points the melds inside `mask` can absorb.
            value = memo.get(mask)
            if value is not None:
                return value
            low = mask & -mask
            rest = mask ^ low
            value = best(rest) if rest else 0
            for meld, points in by_lowest[low.bit_length() - 1]:
                if meld & mask == meld:
                    rest = mask ^ meld
                    candidate = points + (best(rest) if rest else 0)
                    if candidate > value:
                        value = candidate
            if len(memo) >= limit:
                memo.clear()
            memo[mask] = value
            return value

        self._best = best

        def meldable(hand: int) -> int:
            # The cards of `hand` that belong to at least one meld inside `hand`.
            if fast:
                run = hand & hand >> 1 & hand >> 2 & start3
                a, b, c, d = hand & BLOCK, hand >> 13 & BLOCK, hand >> 26 & BLOCK, hand >> 39
                ranks = a & b & (c | d) | c & d & (a | b)
                if not run and not ranks:
                    return 0
                covered = run | run << 1 | run << 2 if run else 0
                return covered | (ranks * SPREAD & hand) if ranks else covered
            covered = 0
            for meld in melds:
                if meld & hand == meld:
                    covered |= meld
            return covered

        self._meldable = meldable

        def deadwood(hand: int) -> int:
            total = (
                block_value[hand & BLOCK]
                + block_value[hand >> 13 & BLOCK]
                + block_value[hand >> 26 & BLOCK]
                + block_value[hand >> 39]
            )
            cover = meldable(hand)
            return total - best(cover) if cover else total

        return deadwood

    def meldable(self, hand: int) -> int:
        """The cards of `hand` (a mask) that belong to at least one meld inside it."""
        return self._meldable(hand)

    def arrangement(self, hand: int) -> tuple[int, ...]:
        """The melds (as masks) of one least-deadwood arrangement; deterministic."""
        mask = self._meldable(hand)
        chosen = []
        while mask:
            target = self._best(mask)
            low = mask & -mask
            rest = mask ^ low
            if (self._best(rest) if rest else 0) == target:
                mask = rest
                continue
            for meld, points in self._by_lowest[low.bit_length() - 1]:
                rest = mask ^ meld
                if meld & mask == meld and points + (self._best(rest) if rest else 0) == target:
                    chosen.append(meld)
                    mask = rest
                    break
            else:  # pragma: no cover - best() found a value some meld must reach
                raise AssertionError("arrangement lost its meld")
        return tuple(chosen)

    def best_discards(self, hand: int, drawn: int) -> tuple[int, list[int]]:
        """(least deadwood after the discard, every discard bit reaching it); the card just
        drawn (`drawn`, a bit of `hand`) may not be discarded."""
        deadwood = self.deadwood
        best_value, best_bits = 1 << 30, []
        rest = hand & ~drawn
        while rest:
            bit = rest & -rest
            rest ^= bit
            value = deadwood(hand ^ bit)
            if value < best_value:
                best_value, best_bits = value, [bit]
            elif value == best_value:
                best_bits.append(bit)
        return best_value, best_bits

    def deadwoods(self, hand: int) -> list[int]:
        """Every deadwood some declaration of `hand` (a mask) leaves, least first: a player
        may declare any melds it holds, not only the best ones."""
        by_lowest, memo = self._by_lowest, {}

        def absorbed(mask: int) -> frozenset[int]:
            if not mask:
                return frozenset((0,))
            found = memo.get(mask)
            if found is None:
                low = mask & -mask
                values = set(absorbed(mask ^ low))  # the lowest card in no meld
                for meld, points in by_lowest[low.bit_length() - 1]:
                    if meld & mask == meld:
                        values.update(points + v for v in absorbed(mask ^ meld))
                found = memo[mask] = frozenset(values)
            return found

        total = mask_value(hand)
        return sorted(total - value for value in absorbed(self._meldable(hand)))

    # --- the same on cards ---

    def deadwood_of(self, cards: Iterable[Card]) -> int:
        return self.deadwood(hand_mask(cards))

    def melds_of(self, cards: Iterable[Card]) -> list[Meld]:
        """A least-deadwood declaration: the melds, then each deadwood card on its own."""
        hand = hand_mask(cards)
        melds = self.arrangement(hand)
        used = 0
        for meld in melds:
            used |= meld
        return [mask_cards(meld) for meld in melds] + [(card,) for card in mask_cards(hand & ~used)]

    def discards_of(self, hand: Sequence[Card], drawn: Card) -> Discards:
        value, bits = self.best_discards(hand_mask(hand) | CARD_BITS[drawn], CARD_BITS[drawn])
        return Discards(value, tuple(BIT_CARDS[bit] for bit in bits))


# --- the reference: slow, written straight from the rules ---------------------------------


def naive_deadwood(cards: Sequence[Card], sizes: MeldSizes = DEFAULT_SIZES) -> int:
    """Least deadwood by trying every combination of disjoint melds of the hand."""
    hand = list(dict.fromkeys(cards))
    candidates = [
        frozenset(group)
        for n in range(3, max(sizes.max_set, sizes.max_straight) + 1)
        for group in combinations(hand, n)
        if meld_kind(group, sizes)
    ]

    def most_melded(start: int, used: frozenset[Card]) -> int:
        best = 0
        for index in range(start, len(candidates)):
            meld = candidates[index]
            if not meld & used:
                best = max(
                    best, sum(map(deadwood_points, meld)) + most_melded(index + 1, used | meld)
                )
        return best

    return sum(map(deadwood_points, hand)) - most_melded(0, frozenset())


# --- declared melds -----------------------------------------------------------------------


class MeldError(ValueError):
    """A declaration the rules reject; the message says why."""


def check_melds(
    hand: Sequence[Card],
    melds: Iterable[Sequence[Card]],
    *,
    complete: bool = True,
    sizes: MeldSizes = DEFAULT_SIZES,
) -> int:
    """The deadwood a declaration leaves, or MeldError.

    Each declared meld must be a valid set or straight of cards of the hand, or a single
    card declared as deadwood; no card may be used twice. With `complete` (the course
    engine's rule) every card of the hand must be declared; otherwise undeclared cards
    count as deadwood.
    """
    in_hand = set(hand)
    used: set[Card] = set()
    deadwood = 0
    for meld in melds:
        cards = tuple(meld)
        for card in cards:
            if not isinstance(card, Card):
                raise MeldError(f"{card!r} is not a card")
            if card not in in_hand:
                raise MeldError(f"{card} is not in the hand")
            if card in used:
                raise MeldError(f"{card} is used twice")
            used.add(card)
        if len(cards) == 1:
            deadwood += deadwood_points(cards[0])
        elif meld_kind(cards, sizes) is None:
            raise MeldError(_why_not_meld(cards, sizes))
    missing = [card for card in hand if card not in used]
    if missing and complete:
        raise MeldError("did not declare " + " ".join(map(str, missing)))
    return deadwood + sum(map(deadwood_points, missing))


def _why_not_meld(cards: Sequence[Card], sizes: MeldSizes) -> str:
    shown = " ".join(map(str, cards))
    if len({card.rank for card in cards}) == 1:
        return f"{shown}: a set has {sizes.min_set} to {sizes.max_set} cards"
    if len({card.suit for card in cards}) > 1:
        return f"{shown}: not one rank, and a straight must be of one suit"
    if not sizes.min_straight <= len(cards) <= sizes.max_straight:
        return f"{shown}: a straight has {sizes.min_straight} to {sizes.max_straight} cards"
    return f"{shown}: a straight needs consecutive ranks (aces low)"


# --- the game ----------------------------------------------------------------------------

DRAWS = ("stock", "discard")
ACTS = ("gin", "knock", "drop")
ENDINGS = {"gin": "Gin", "knock": "Knock", "drop": "Drop"}


@dataclass(frozen=True)
class GinRummyRules(RuleSettings):
    """Every number of the spec is a setting; the defaults are the course's."""

    hand_size: int = 10
    knock_limit: int = 10  # the engine allows deadwood ≤ 10 (the handout says < 10)
    gin_bonus: int = 25
    undercut_bonus: int = 10
    game_target: int = 100
    play_cap: int = 200  # plays per round (the spec; the Haskell source allows one more)
    call_ban_plays: int = 2  # no Gin/Knock in the first two plays (each player's first turn)
    memory_limit: int = 10_000
    time_limit: float = 1.0  # seconds per player call; ≤ 0 switches the check off
    min_set: int = 3
    max_set: int = 4
    min_straight: int = 3
    max_straight: int = 5
    first_player: str = "alternate"  # "alternate" (the spec) or "random" (the real logs)
    declare_every_card: bool = True  # the engine's OmitError: deadwood is declared too

    BOUNDS: ClassVar[Mapping[str, tuple[float, float]]] = {
        "hand_size": (1, 25),
        "knock_limit": (0, 100),
        "gin_bonus": (0, 1000),
        "undercut_bonus": (0, 1000),
        "game_target": (1, 10_000),
        "play_cap": (1, 10_000),
        "call_ban_plays": (0, 100),
        "memory_limit": (0, 10**6),
        "time_limit": (0, 60),
        "min_set": (2, 4),
        "max_set": (2, 4),
        "min_straight": (2, 13),
        "max_straight": (2, 13),
    }

    @property
    def meld_sizes(self) -> MeldSizes:
        return MeldSizes(self.min_set, self.max_set, self.min_straight, self.max_straight)

    def __post_init__(self) -> None:
        if self.first_player not in ("alternate", "random"):
            raise ValueError("first_player must be 'alternate' or 'random'")
        if not 1 <= self.hand_size <= 25:
            raise ValueError("hand_size must be between 1 and 25")


class Play(NamedTuple):
    act: str  # gin | knock | drop
    card: Card  # the discard


class Phase(Enum):
    PICK = "pick"
    PLAY = "play"
    MELDS = "melds"
    OVER = "over"


class Invalid(NamedTuple):
    seat: int
    reason: str


class Deal(NamedTuple):
    """A round's cards, for replaying known rounds instead of shuffling."""

    first: int  # the seat that plays first
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]  # per seat, in dealt order
    upcard: Card
    stock: tuple[Card, ...]  # in drawing order


class TurnRecord(NamedTuple):
    seat: int
    hand: tuple[Card, ...]  # after the discard, the picked card first
    discard_top: Card
    picked: Card
    draw: str
    act: str
    discarded: Card


class RoundRecord(NamedTuple):
    number: int
    turns: tuple[TurnRecord, ...]
    ending: str  # Gin | Knock | Drop
    caller: int  # the seat of the round's last play
    points: tuple[int, int]  # per seat, this round
    deadwood: tuple[int, int]  # per seat, from the declared melds


@dataclass
class GinRummyState:
    """One game. `rng` shuffles every round's deck (and picks the first dealer)."""

    rules: GinRummyRules
    rng: np.random.Generator
    solver: MeldSolver | None = None
    totals: list[int] = field(default_factory=lambda: [0, 0])
    rounds: list[RoundRecord] = field(default_factory=list)
    invalid: Invalid | None = None
    deals: Sequence[Deal] | None = None  # replay these rounds (the game ends after them)

    def __post_init__(self) -> None:
        if self.solver is None:
            self.solver = MeldSolver(self.rules.meld_sizes)
        self._first = int(self.rng.integers(2))
        self._start_round()

    # --- the round ---

    def _start_round(self) -> None:
        rules = self.rules
        if self.deals is not None:
            return self._start_dealt_round()
        if self.rounds:
            if rules.first_player == "alternate":
                self._first = 1 - self._first
            else:
                self._first = int(self.rng.integers(2))
        deck = [DECK[index] for index in self.rng.permutation(52)]
        n = rules.hand_size
        self.hands: list[list[Card]] = [deck[:n], deck[n : 2 * n]]
        if self._first == 1:
            self.hands.reverse()
        self.discard: list[Card] = [deck[2 * n]]
        self.stock: list[Card] = deck[: 2 * n : -1]  # top of the stock is the end of the list
        self._reset_round()

    def _start_dealt_round(self) -> None:
        assert self.deals is not None
        if len(self.rounds) >= len(self.deals):
            self.phase = Phase.OVER
            return
        deal = self.deals[len(self.rounds)]
        self._first = deal.first
        self.hands = [list(deal.hands[0]), list(deal.hands[1])]
        self.discard = [deal.upcard]
        self.stock = list(reversed(deal.stock))
        self._reset_round()

    def _reset_round(self) -> None:
        self.round_scores = (self.totals[0], self.totals[1])
        self.turns: list[TurnRecord] = []
        self.phase = Phase.PICK
        self.player = self._first
        self.picked: Card | None = None
        self.draw: str | None = None
        self.caller: int | None = None
        self.declared: dict[int, int] = {}

    @property
    def round_number(self) -> int:
        return len(self.rounds) + 1

    def current_player(self) -> int:
        return self.player

    def may_call(self) -> bool:
        return len(self.turns) >= self.rules.call_ban_plays

    def opponent_draw(self) -> str | None:
        return self.turns[-1].draw if self.turns else None

    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    def returns(self) -> tuple[float, float]:
        """+1 to the winner, -1 to the loser (the player of an invalid action loses)."""
        if not self.is_terminal():
            return 0.0, 0.0
        if self.invalid is not None:
            return (-1.0, 1.0) if self.invalid.seat == 0 else (1.0, -1.0)
        return (1.0, -1.0) if self.totals[0] > self.totals[1] else (-1.0, 1.0)

    def legal_actions(self) -> list[Any]:
        if self.phase is Phase.PICK:
            return list(DRAWS)
        if self.phase is Phase.PLAY:
            assert self.picked is not None
            return legal_plays(
                self.rules, self.solver, self.hands[self.player], self.picked, self.may_call()
            )
        if self.phase is Phase.MELDS:
            return [tuple(self.solver.melds_of(self.hands[self.player]))]
        return []

    def apply_action(self, action: Any) -> None:
        if self.phase is Phase.PICK:
            self._pick(action)
        elif self.phase is Phase.PLAY:
            self._play(action)
        elif self.phase is Phase.MELDS:
            self._melds(action)
        else:
            raise ValueError("the game is over")

    def forfeit(self, reason: str) -> None:
        """The current player broke a rule the state cannot see (memory, time)."""
        self.invalid = Invalid(self.player, reason)
        self.phase = Phase.OVER

    def _pick(self, draw: Any) -> None:
        if draw == "stock":
            self.picked = self.stock.pop()
        elif draw == "discard":
            self.picked = self.discard.pop()
        else:
            return self.forfeit(f"draw must be 'stock' or 'discard', not {draw!r}")
        self.draw = draw
        self.phase = Phase.PLAY

    def _play(self, action: Any) -> None:
        rules, hand, picked = self.rules, self.hands[self.player], self.picked
        assert picked is not None and self.draw is not None
        try:
            act, card = action
        except (TypeError, ValueError):
            return self.forfeit(f"a play is (act, card), not {action!r}")
        if act not in ACTS:
            return self.forfeit(f"act must be gin, knock or drop, not {act!r}")
        if card == picked:
            return self.forfeit("Cannot play the last drawn card")
        if card not in hand:
            return self.forfeit("Card played wasn't in player's hand")
        if act != "drop":
            if not self.may_call():
                return self.forfeit("Called on first turn")
            left = self.solver.deadwood((hand_mask(hand) | CARD_BITS[picked]) ^ CARD_BITS[card])
            if act == "gin" and left:
                return self.forfeit("Called gin with remaining deadwood")
            if act == "knock" and left > rules.knock_limit:
                return self.forfeit(
                    f"Knocked with more than {rules.knock_limit} points in deadwood"
                )
        top = self.discard[-1] if self.draw == "stock" else picked
        after = [picked, *(held for held in hand if held != card)]
        self.hands[self.player] = after
        self.discard.append(card)
        self.turns.append(TurnRecord(self.player, tuple(after), top, picked, self.draw, act, card))
        self.picked = self.draw = None
        if act != "drop" or not self.stock or len(self.turns) >= rules.play_cap:
            self.caller = self.player
            self.phase = Phase.MELDS
        else:
            self.player = 1 - self.player
            self.phase = Phase.PICK

    def _melds(self, melds: Any) -> None:
        rules, seat = self.rules, self.player
        try:
            deadwood = check_melds(
                self.hands[seat],
                list(melds),
                complete=rules.declare_every_card,
                sizes=rules.meld_sizes,
            )
        except MeldError as error:
            return self.forfeit(f"bad melds: {error}")
        except TypeError:
            return self.forfeit(f"melds must be a list of card tuples, not {melds!r}")
        act = self.turns[-1].act
        if seat == self.caller:
            if act == "gin" and deadwood:
                return self.forfeit("Called gin with remaining deadwood")
            if act == "knock" and deadwood > rules.knock_limit:
                return self.forfeit(
                    f"Knocked with more than {rules.knock_limit} points in deadwood"
                )
        self.declared[seat] = deadwood
        if len(self.declared) < 2:
            self.player = 1 - seat
            return None
        self._score()

    def _score(self) -> None:
        caller = self.caller
        assert caller is not None
        points = round_points(
            self.rules, self.turns[-1].act, self.declared[caller], self.declared[1 - caller]
        )
        per_seat = (points[0], points[1]) if caller == 0 else (points[1], points[0])
        self.totals = [self.totals[0] + per_seat[0], self.totals[1] + per_seat[1]]
        self.rounds.append(
            RoundRecord(
                self.round_number,
                tuple(self.turns),
                ENDINGS[self.turns[-1].act],
                caller,
                per_seat,
                (self.declared[0], self.declared[1]),
            )
        )
        if game_over(self.rules, self.totals):
            self.phase = Phase.OVER
        else:
            self._start_round()


def round_points(rules: GinRummyRules, act: str, caller: int, opponent: int) -> tuple[int, int]:
    """(caller's, opponent's) points for a round, from each side's declared deadwood.

    Gin: 25 + the opponent's deadwood. Knock, and a Drop (stock out or play cap, the last
    player treated as having knocked): the caller scores the difference if strictly lower,
    else the opponent scores 10 + the difference (ties are undercuts).
    """
    if act == "gin":
        return rules.gin_bonus + opponent, 0
    if caller < opponent:
        return opponent - caller, 0
    return 0, rules.undercut_bonus + caller - opponent


def game_over(rules: GinRummyRules, totals: Sequence[int]) -> bool:
    return max(totals) >= rules.game_target and totals[0] != totals[1]


def legal_plays(
    rules: GinRummyRules, solver: MeldSolver, hand: Sequence[Card], picked: Card, may_call: bool
) -> list[Play]:
    """Every legal `Play` after drawing `picked` into `hand` (hand without it)."""
    plays = [Play("drop", card) for card in hand if card != picked]
    if may_call:
        full = hand_mask(hand) | CARD_BITS[picked]
        for card in hand:
            if card == picked:
                continue
            left = solver.deadwood(full ^ CARD_BITS[card])
            if left <= rules.knock_limit:
                plays.append(Play("knock", card))
            if left == 0:
                plays.append(Play("gin", card))
    return plays


# --- players ------------------------------------------------------------------------------


class Player(Protocol):
    """The spec's three functions (Python translation of the handout's)."""

    def pick(
        self,
        discard_top: Card,
        scores: tuple[int, int],
        memory: str | None,
        opponent_draw: str | None,
        hand: tuple[Card, ...],
    ) -> tuple[str, str]: ...

    def play(
        self, picked: Card, scores: tuple[int, int], memory: str, hand: tuple[Card, ...]
    ) -> tuple[tuple[str, Card], str]: ...

    def melds(
        self, scores: tuple[int, int], memory: str, hand: tuple[Card, ...]
    ) -> list[tuple[Card, ...]]: ...


@dataclass(frozen=True)
class FunctionPlayer:
    """A player made of three plain functions."""

    pick: Any
    play: Any
    melds: Any


class GameRecord(NamedTuple):
    rounds: tuple[RoundRecord, ...]
    totals: tuple[int, int]
    invalid: Invalid | None


def play_game(
    rules: GinRummyRules,
    players: Sequence[Player],
    rng: np.random.Generator,
    solver: MeldSolver | None = None,
    deals: Sequence[Deal] | None = None,
) -> GameRecord:
    """Play one game between seats 0 and 1, checking every call (rules, memory, time)."""
    state = GinRummyState(rules, rng, solver, deals=deals)
    memories: list[str | None] = [None, None]
    limit = rules.time_limit if rules.time_limit > 0 else float("inf")
    clock = time.perf_counter

    def remember(memory: Any) -> bool:
        if not isinstance(memory, str):
            state.forfeit(f"memory must be a string, not {type(memory).__name__}")
            return False
        if len(memory) > rules.memory_limit:
            state.forfeit(f"Memory is too large ({len(memory)} > {rules.memory_limit} characters)")
            return False
        memories[state.player] = memory
        return True

    while not state.is_terminal():
        seat = state.player
        player = players[seat]
        scores = (state.round_scores[seat], state.round_scores[1 - seat])
        hand = tuple(state.hands[seat])
        started = clock()
        try:
            if state.phase is Phase.PICK:
                draw, memory = player.pick(
                    state.discard[-1], scores, memories[seat], state.opponent_draw(), hand
                )
                action: Any = draw
            elif state.phase is Phase.PLAY:
                action, memory = player.play(state.picked, scores, memories[seat], hand)
            else:
                action, memory = player.melds(scores, memories[seat], hand), memories[seat]
        except Exception as error:  # a player's crash is its invalid play, not ours
            state.forfeit(f"player raised {type(error).__name__}: {error}")
            break
        if clock() - started > limit:
            state.forfeit("Took too long to play")
            break
        if state.phase is not Phase.MELDS and not remember(memory):
            break
        state.apply_action(action)
    return GameRecord(tuple(state.rounds), (state.totals[0], state.totals[1]), state.invalid)


# --- logs ---------------------------------------------------------------------------------


def turns_for(record: GameRecord, seat: int) -> list[Turn]:
    return [
        Turn(
            game_round.number,
            turn.hand,
            turn.seat == seat,
            turn.discard_top,
            turn.picked,
            turn.discarded,
        )
        for game_round in record.rounds
        for turn in game_round.turns
    ]


def scores_for(record: GameRecord, seat: int) -> list[Score]:
    return [
        Score(
            game_round.number,
            game_round.points[seat],
            game_round.points[1 - seat],
            game_round.ending,
            game_round.caller == seat,
        )
        for game_round in record.rounds
    ]


def write_game(
    record: GameRecord, seat: int, directory: str | Path, stem: str
) -> tuple[Path, Path]:
    """`<stem>.csv` and `<stem>-score.csv` from `seat`'s point of view (completed rounds)."""
    turns, scores = partial_pair(directory, stem)
    write_turns(turns, turns_for(record, seat))
    write_scores(scores, scores_for(record, seat))
    return publish_pair(directory, stem)


# --- simulation: games between players, logs in the server's format -----------------------

STEM_PREFIX = "ginrummy-"  # every stem `simulate` writes starts so: its logs read as simulated


def simulate(
    rules: GinRummyRules,
    seats: Sequence[tuple[str, Callable[[np.random.Generator], Player]]],
    games: int,
    seed: int | Sequence[int],
    out: str | Path,
    me: int = 0,
    progress: Callable[[], None] | None = None,
    *,
    solver: MeldSolver | None = None,
    stem: str | None = None,
) -> dict[str, Any]:
    """Play `games` games between the two `seats` (each a name and a factory of its player
    from the game's generator) and write each game's logs into `out` from seat `me`'s point
    of view, as `<stem>-<game, from 1>.csv` and `…-score.csv` (`stem`: `ginrummy-<seed>`);
    returns the summary (wins per seat, rounds, how they ended). Game g's generator is
    seeded with (seed…, g): a game's bytes do not depend on `games`."""
    if len(seats) != 2:
        raise ValueError(f"Gin Rummy needs exactly two players, not {len(seats)}")
    solver = solver if solver is not None else MeldSolver(rules.meld_sizes)
    seeds = [seed] if isinstance(seed, int) else list(seed)
    stem = stem if stem is not None else f"{STEM_PREFIX}{seed}"
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    wins, rounds, invalid, endings = [0, 0], 0, 0, {"Gin": 0, "Knock": 0, "Drop": 0}
    for index in range(games):
        rng = np.random.default_rng([*seeds, index])
        record = play_game(rules, [make(rng) for _, make in seats], rng, solver)
        write_game(record, me, out, f"{stem}-{index + 1:06d}")
        if record.invalid is not None:
            invalid += 1
        else:
            wins[0 if record.totals[0] > record.totals[1] else 1] += 1
        rounds += len(record.rounds)
        for game_round in record.rounds:
            endings[game_round.ending] += 1
        if progress:
            progress()
    return {
        "games": games,
        "seats": [name for name, _ in seats],
        "seed": seed,
        "out": str(out),
        "wins": wins,
        "invalid": invalid,
        "rounds": rounds,
        "endings": endings,
        "rules": asdict(rules),
    }

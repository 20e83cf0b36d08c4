"""Gin Rummy's melds: the least-deadwood arrangement of a hand, the best discard, and the
check of a player's declared melds (the engine, the bots, the models, the statistics and
the code generator all ask these questions; `strategies.players.ginrummy` carries its own
copy of the search, standard library only).

Sets are 3 or 4 cards of one rank; straights are 3, 4 or 5 cards of one suit with
consecutive ranks, aces low, no wrap (Q-K-A is not a straight); every other card is
deadwood worth its rank (A = 1, J/Q/K = 10). The sizes are settings (`MeldSizes`).

A hand is a 52-bit mask, suit-major: bit `13 * suit + rank - 1` with suits in `SHDC` order,
so a straight is a run of adjacent bits inside one 13-bit block and a set is the same bit
in several blocks. The exact search only looks at the cards that belong to some meld of the
hand (most hands have none or a handful) and memoises the best melded value per such mask:
dropping the lowest card of the mask either leaves it as deadwood or spends it in one of the
melds whose lowest card it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations, product

from mine.parsers.cards import DECK, SUITS, Card, deadwood_points

# --- masks -----------------------------------------------------------------------------

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
    for suit, n in product(SUITS, range(sizes.min_straight, sizes.max_straight + 1)):
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
    """Exact least-deadwood arrangements on masks (the `*_of` methods take cards). Holds
    its memo (bounded), so keep one per user."""

    sizes: MeldSizes = DEFAULT_SIZES
    memo_limit: int = 1 << 20
    _memo: dict[int, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.melds = all_meld_masks(self.sizes)
        self._by_lowest = _melds_by_lowest(self.sizes)
        self._block_value = _block_values()
        self.deadwood = self._make_deadwood()

    def __reduce__(self) -> tuple[type[MeldSolver], tuple[MeldSizes, int]]:
        # A solver is its settings: the memo is a cache (and the closures do not pickle).
        return MeldSolver, (self.sizes, self.memo_limit)

    # The hot path is a closure so that every name it touches is a local.
    def _make_deadwood(self) -> Callable[[int], int]:
        memo, limit = self._memo, self.memo_limit
        by_lowest, block_value = self._by_lowest, self._block_value
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
            # The cards of `hand` (a mask) that belong to at least one meld inside it.
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

        self.meldable = meldable

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

    def arrangement(self, hand: int) -> tuple[int, ...]:
        """The melds (as masks) of one least-deadwood arrangement; deterministic."""
        mask = self.meldable(hand)
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
        return sorted(total - value for value in absorbed(self.meldable(hand)))

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

"""Playing cards and the two notations the logs use.

The course card games (TwentyOne, Gin Rummy) write a card suit first with the rank spelled
out (`SQ`, `H3`, `D10`); the card-guessing handout writes rank first with `T` for ten
(`QS`, `TS`). Both denote the same 52 cards, so there is one `Card` type and one parser per
notation. Ranks are stored as 1 (ace) … 13 (king); each game picks its own order.
"""

from __future__ import annotations

from typing import NamedTuple

SUITS = "SHDC"
"""Suits in the order the course logs enumerate them."""
GUESS_SUITS = "CDHS"
"""Suits in the card-guessing handout's order (clubs lowest)."""

COURSE_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
GUESS_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")

COURSE_CARD_PATTERN = r"[SHDC](?:[2-9]|10|[AJQK])"
"""A regular expression for one card in the course notation (shared with SQL checks)."""
GUESS_CARD_PATTERN = r"(?:[2-9]|[TJQKA])[CDHS]"


class CardError(ValueError):
    """A card that is not written in the expected notation."""


class Card(NamedTuple):
    rank: int  # 1 = ace … 11 = jack, 12 = queen, 13 = king
    suit: str  # one of SUITS

    def __str__(self) -> str:
        return format_course(self)


DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in SUITS for rank in range(1, 14))
"""The 52 cards, suit by suit, ace to king."""

_COURSE = {f"{suit}{COURSE_RANKS[rank - 1]}": Card(rank, suit) for rank, suit in DECK}
_GUESS = {f"{GUESS_RANKS[rank - 1]}{suit}": Card(rank, suit) for rank, suit in DECK}


def _parse(
    text: str, cards: dict[str, Card], suits: str, ranks: tuple[str, ...], suit_first: bool
) -> Card:
    """The card `text` names, or CardError naming the card and what is wrong."""
    card = cards.get(text)
    if card is None:
        raise CardError(f"bad card {text!r}: {_why_not(text, suits, ranks, suit_first)}")
    return card


def _why_not(text: str, suits: str, ranks: tuple[str, ...], suit_first: bool) -> str:
    if not text:
        return "empty card"
    if suit_first:
        suit, rank = text[0], text[1:]
    else:
        rank, suit = text[:-1], text[-1]
    if suit.upper() in suits and suit not in suits:
        return f"suit {suit!r} must be upper case"
    if suit not in suits:
        return f"unknown suit {suit!r} (expected one of {' '.join(suits)})"
    if rank.upper() in ranks and rank not in ranks:
        return f"rank {rank!r} must be upper case"
    return f"unknown rank {rank!r} (expected one of {' '.join(ranks)})"


def parse_course(text: str) -> Card:
    """`SQ` → queen of spades. Raises CardError naming the card and what is wrong."""
    return _parse(text, _COURSE, SUITS, COURSE_RANKS, suit_first=True)


def format_course(card: Card) -> str:
    return f"{card.suit}{COURSE_RANKS[card.rank - 1]}"


def parse_guess(text: str) -> Card:
    """`TS` → ten of spades (card-guessing notation, rank first)."""
    return _parse(text, _GUESS, GUESS_SUITS, GUESS_RANKS, suit_first=False)


def format_guess(card: Card) -> str:
    return f"{GUESS_RANKS[card.rank - 1]}{card.suit}"


def parse_hand(text: str) -> tuple[Card, ...]:
    """A `;`-joined hand in the course notation; the empty string is the empty hand."""
    return tuple(parse_course(part) for part in text.split(";")) if text else ()


def format_hand(cards: tuple[Card, ...] | list[Card]) -> str:
    return ";".join(format_course(card) for card in cards)


# --- rank orders -------------------------------------------------------------------------


def gin_rank(card: Card) -> int:
    """Gin Rummy: aces low, 1 … 13."""
    return card.rank


def guess_rank(card: Card) -> int:
    """Card guessing: aces high, 2 … 14."""
    return 14 if card.rank == 1 else card.rank


def deadwood_points(card: Card) -> int:
    """Gin Rummy deadwood value: ace 1, pips face value, court cards 10."""
    return min(card.rank, 10)


# --- blackjack points ---------------------------------------------------------------------


def blackjack_points(card: Card) -> int:
    """The card's points with the ace counted high (11)."""
    return 11 if card.rank == 1 else min(card.rank, 10)


def hand_value(cards: tuple[Card, ...] | list[Card]) -> tuple[int, bool]:
    """(total, soft): aces count 11 while the total stays ≤ 21; soft if one still does."""
    total = sum(blackjack_points(card) for card in cards)
    high_aces = sum(1 for card in cards if card.rank == 1)
    while total > 21 and high_aces:
        total -= 10
        high_aces -= 1
    return total, high_aces > 0

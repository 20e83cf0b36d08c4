"""TwentyOne logs: the turn file (8 columns) and the score file (running totals).

Format: `../shared/spec/twentyone.md`. Hands are written newest card first; Bid rows have
an empty hand; an action may carry a trailing amount (`DoubleDown 10`), kept as `amount`
so that writing a parsed file gives back its bytes.
"""

from __future__ import annotations

from typing import NamedTuple

from mine.parsers import csvlog
from mine.parsers.cards import COURSE_CARD_PATTERN as CARD
from mine.parsers.cards import Card, format_course, format_hand, parse_course, parse_hand
from mine.parsers.csvlog import FLAG, ID, NUMBER, POSITIVE, UINT, Column, Format, reader, writer

GAME = "twentyone"
ACTIONS = ("Bid", "Hit", "Stand", "DoubleDown", "Split", "Insurance")
DEALER = "dealer"

TURNS = Format(
    "twentyone turns",
    (
        Column("round", "INTEGER", POSITIVE, "a round number (1, 2, …)"),
        Column("hand", "VARCHAR", f"(?:{CARD}(?:;{CARD})*)?", "a hand of cards like SQ;H3;D10"),
        Column("player", "VARCHAR", ID, "a player id"),
        Column("mine", "VARCHAR", FLAG, "1 or 0"),
        Column("hand_id", "INTEGER", UINT, "a hand id (0, 1, …)"),
        Column("action", "VARCHAR", rf"(?:{'|'.join(ACTIONS)})(?: (?:{NUMBER}))?", "an action"),
        Column("bid", "INTEGER", UINT, "a bid"),
        Column("upcard", "VARCHAR", CARD, "a card like SQ, H3 or D10"),
    ),
)

SCORES = Format(
    "twentyone scores",
    (
        Column("round", "INTEGER", POSITIVE, "a round number (1, 2, …)"),
        Column("points", "INTEGER", UINT, "a number of points"),
        Column("others", "VARCHAR", rf"(?:(?:{NUMBER})(?:;(?:{NUMBER}))*)?", "points joined by ;"),
    ),
)


class Turn(NamedTuple):
    round: int
    hand: tuple[Card, ...]  # newest card first
    player: str
    mine: bool
    hand_id: int
    action: str
    bid: int
    upcard: Card
    amount: int | None = None  # the trailing amount some servers write (`DoubleDown 10`)


class Score(NamedTuple):
    round: int
    points: int  # the perspective player's running total after the round
    others: tuple[int, ...]  # the other players' totals, sorted by player id as text


def _turn(fields: list[str]) -> Turn:
    action, _, amount = fields[5].partition(" ")
    values = csvlog.typed(TURNS, fields, hand=parse_hand, mine=csvlog.flag, upcard=parse_course)
    return Turn(*values[:5], action, *values[6:], amount=int(amount) if amount else None)


def _score(fields: list[str]) -> Score:
    return Score(*csvlog.typed(SCORES, fields, others=csvlog.numbers))


read_turns = reader(TURNS, _turn)
read_scores = reader(SCORES, _score)


def turn_fields(turn: Turn) -> tuple[object, ...]:
    action = turn.action if turn.amount is None else f"{turn.action} {turn.amount}"
    hand, mine, upcard = format_hand(turn.hand), int(turn.mine), format_course(turn.upcard)
    return turn.round, hand, turn.player, mine, turn.hand_id, action, turn.bid, upcard


def score_fields(score: Score) -> tuple[object, ...]:
    return score.round, score.points, csvlog.joined(score.others)


write_turns = writer(turn_fields)
write_scores = writer(score_fields)

"""Gin Rummy logs: the turn file (6 columns) and the score file (points per round).

Format: `../shared/spec/ginrummy.md`; the real server's files are in
`examples/logs/ginrummy/`. The hand is written after the discard, the picked card first.
"""

from __future__ import annotations

from typing import NamedTuple

from mine.parsers import csvlog
from mine.parsers.cards import COURSE_CARD_PATTERN as CARD
from mine.parsers.cards import Card, format_course, format_hand, parse_course, parse_hand
from mine.parsers.csvlog import FLAG, POSITIVE, UINT, Column, Format, reader, writer

GAME = "ginrummy"
ENDINGS = ("Gin", "Knock", "Drop")
HAND_SIZE = 10

TURNS = Format(
    "ginrummy turns",
    (
        Column("round", "INTEGER", POSITIVE, "a round number (1, 2, …)"),
        Column("hand", "VARCHAR", f"{CARD}(?:;{CARD}){{{HAND_SIZE - 1}}}", "a hand of 10 cards"),
        Column("mine", "VARCHAR", FLAG, "1 or 0"),
        Column("discard_top", "VARCHAR", CARD, "a card like SQ, H3 or D10"),
        Column("picked", "VARCHAR", CARD, "a card like SQ, H3 or D10"),
        Column("discarded", "VARCHAR", CARD, "a card like SQ, H3 or D10"),
    ),
)

SCORES = Format(
    "ginrummy scores",
    (
        Column("round", "INTEGER", POSITIVE, "a round number (1, 2, …)"),
        Column("points", "INTEGER", UINT, "a number of points"),
        Column("opponent_points", "INTEGER", UINT, "a number of points"),
        Column("ending", "VARCHAR", "|".join(ENDINGS), "Gin, Knock or Drop"),
        Column("last_mine", "VARCHAR", FLAG, "1 or 0"),
    ),
)


class Turn(NamedTuple):
    round: int
    hand: tuple[Card, ...]  # after the discard, the picked card first
    mine: bool
    discard_top: Card  # top of the discard pile before the draw
    picked: Card  # equals discard_top when drawn from the discard pile
    discarded: Card

    @property
    def from_discard(self) -> bool:
        return self.picked == self.discard_top


class Score(NamedTuple):
    round: int
    points: int  # the perspective player's points for this round
    opponent_points: int
    ending: str  # Gin, Knock, or Drop (the stock ran out)
    last_mine: bool  # whether the round's last play was the perspective player's


def _turn(fields: list[str]) -> Turn:
    hand = parse_hand(fields[1])
    if len(set(hand)) != len(hand):
        raise ValueError(f"hand {fields[1]!r} holds a card twice")
    return Turn(
        int(fields[0]),
        hand,
        fields[2] == "1",
        parse_course(fields[3]),
        parse_course(fields[4]),
        parse_course(fields[5]),
    )


def _score(fields: list[str]) -> Score:
    return Score(*csvlog.typed(SCORES, fields, last_mine=csvlog.flag))


read_turns = reader(TURNS, _turn)
read_scores = reader(SCORES, _score)


def turn_fields(turn: Turn) -> tuple[object, ...]:
    return (turn.round, format_hand(turn.hand), int(turn.mine), *map(format_course, turn[3:]))


def score_fields(score: Score) -> tuple[object, ...]:
    return score.round, score.points, score.opponent_points, score.ending, int(score.last_mine)


write_turns = writer(turn_fields)
write_scores = writer(score_fields)

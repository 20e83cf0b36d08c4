"""Hog logs: the turn file (9 columns, one row per turn) and the score file (one per game).

Format: `../shared/spec/hog.md`. Outcomes are the dice rolled joined by `;`, empty when the
player rolled none (Pig Tail); `points` is the turn's points after Sow Sad / Pig Tail and
`new_score` the mover's score after Square Swine. The parser checks the format only (the
dice count matches `num_rolls`), never the rules: logs of variants must still load.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from mine.parsers import csvlog
from mine.parsers.csvlog import ID, POSITIVE, POSITIVE_NUMBER, UINT, Column, Format, reader, writer

if TYPE_CHECKING:  # polars loads when a frame is read or written (an ingest reads none)
    import polars as pl

GAME = "hog"
PLAYER = ID
DICE = rf"(?:(?:{POSITIVE_NUMBER})(?:;(?:{POSITIVE_NUMBER}))*)?"

TURNS = Format(
    "hog turns",
    (
        Column("game", "INTEGER", POSITIVE, "a game number (1, 2, …)"),
        Column("turn", "INTEGER", POSITIVE, "a turn number (1, 2, …)"),
        Column("player", "VARCHAR", PLAYER, "a player id"),
        Column("score", "INTEGER", UINT, "a score"),
        Column("opponent_score", "INTEGER", UINT, "a score"),
        Column("num_rolls", "INTEGER", UINT, "a number of dice"),
        Column("outcomes", "VARCHAR", DICE, "dice like 3;6;1"),
        Column("points", "INTEGER", UINT, "a number of points"),
        Column("new_score", "INTEGER", UINT, "a score"),
    ),
)

SCORES = Format(
    "hog scores",
    (
        Column("game", "INTEGER", POSITIVE, "a game number (1, 2, …)"),
        Column("first_player", "VARCHAR", PLAYER, "a player id"),
        Column("final_score_first", "INTEGER", UINT, "a score"),
        Column("final_score_second", "INTEGER", UINT, "a score"),
        Column("winner", "VARCHAR", PLAYER, "a player id"),
    ),
)


class Turn(NamedTuple):
    game: int
    turn: int
    player: str
    score: int  # the mover's score before the turn
    opponent_score: int
    num_rolls: int
    outcomes: tuple[int, ...]  # the dice rolled, () for Pig Tail
    points: int  # after Sow Sad / Pig Tail
    new_score: int  # after Square Swine


class Score(NamedTuple):
    game: int
    first_player: str
    final_score_first: int
    final_score_second: int
    winner: str


def _turn(fields: list[str]) -> Turn:
    turn = Turn(*csvlog.typed(TURNS, fields, outcomes=csvlog.numbers))
    if len(turn.outcomes) != turn.num_rolls:
        raise ValueError(f"num_rolls is {turn.num_rolls} but {len(turn.outcomes)} dice are listed")
    return turn


def _score(fields: list[str]) -> Score:
    return Score(*csvlog.typed(SCORES, fields))


read_turns = reader(TURNS, _turn)
read_scores = reader(SCORES, _score)


def turn_fields(turn: Turn) -> tuple[object, ...]:
    return (*turn[:6], csvlog.joined(turn.outcomes), *turn[7:])


def score_fields(score: Score) -> tuple[object, ...]:
    return tuple(score)


write_turns = writer(turn_fields)
write_scores = writer(score_fields)


def turn_frame_bytes(frame: pl.DataFrame) -> bytes:
    """A columnar batch of turns (the columns of `Turn`, `outcomes` a list of ints) as the
    bytes `write_turns` writes of the same rows, at the speed of polars: the simulator
    writes millions of rows."""
    import polars as pl

    outcomes = pl.col("outcomes").list.eval(pl.element().cast(pl.String)).list.join(";")
    return _csv(frame.select(*TURN_COLUMNS[:6], outcomes, *TURN_COLUMNS[7:]))


def score_frame_bytes(frame: pl.DataFrame) -> bytes:
    """A columnar batch of scores as the bytes `write_scores` writes of the same rows."""
    return _csv(frame.select(SCORE_COLUMNS))


TURN_COLUMNS = tuple(column.name for column in TURNS.columns)
SCORE_COLUMNS = tuple(column.name for column in SCORES.columns)


def _csv(frame: pl.DataFrame) -> bytes:
    text = frame.write_csv(None, include_header=False, line_terminator="\r\n", quote_style="never")
    return text.encode()


def turn_frame(turns: Iterable[Turn]) -> pl.DataFrame:
    """Turn records as a DataFrame with the warehouse's columns (outcomes a list)."""
    import polars as pl

    return _frame(turns, TURNS, outcomes=pl.List(pl.Int64))


def score_frame(scores: Iterable[Score]) -> pl.DataFrame:
    return _frame(scores, SCORES)


def _frame(records: Iterable[tuple], layout: Format, **types: pl.DataType) -> pl.DataFrame:
    import polars as pl

    schema = {c.name: types.get(c.name, pl.String if c.sql_type == "VARCHAR" else pl.Int64)
              for c in layout.columns}  # fmt: skip
    return pl.DataFrame([tuple(record) for record in records], schema=schema, orient="row")

"""Super-Nim logs: the turn file (10 columns, one row per move) and the score file.

Format: `../shared/spec/supernim.md`. Boards are heap sizes joined by `;` (an emptied board
is an empty field); heaps are numbered from 1, as the handout's "first heap"; `j` is set
for a merge only; the scores are those after the move. The parser checks the format only
(a field's shape, `j` present exactly for merges), never the rules: the warehouse replays
the rules at ingest, and logs of rule variants must still parse.
"""

from __future__ import annotations

from typing import NamedTuple

from mine.parsers import csvlog
from mine.parsers.csvlog import POSITIVE, POSITIVE_NUMBER, UINT, Column, Format, reader, writer

GAME = "supernim"
PLAYER = "max|min"
KINDS = ("merge", "ulam", "split")
BOARD = rf"(?:(?:{POSITIVE_NUMBER})(?:;(?:{POSITIVE_NUMBER}))*)?"
NONEMPTY_BOARD = rf"(?:{POSITIVE_NUMBER})(?:;(?:{POSITIVE_NUMBER}))*"

TURNS = Format(
    "supernim turns",
    (
        Column("game", "INTEGER", POSITIVE, "a game number (1, 2, …)"),
        Column("move", "INTEGER", POSITIVE, "a move number (1, 2, …)"),
        Column("player", "VARCHAR", PLAYER, "max or min"),
        Column("board_before", "VARCHAR", NONEMPTY_BOARD, "a board like 2;4;2;3"),
        Column("kind", "VARCHAR", "|".join(KINDS), "merge, ulam or split"),
        Column("i", "INTEGER", POSITIVE, "a heap number (1, 2, …)"),
        Column("j", "VARCHAR", rf"(?:{POSITIVE_NUMBER})?", "a heap number or empty"),
        Column("board_after", "VARCHAR", BOARD, "a board like 2;4;2;3 (or empty)"),
        Column("score_max", "INTEGER", UINT, "a score"),
        Column("score_min", "INTEGER", UINT, "a score"),
    ),
)

SCORES = Format(
    "supernim scores",
    (
        Column("game", "INTEGER", POSITIVE, "a game number (1, 2, …)"),
        Column("first_player", "VARCHAR", PLAYER, "max or min"),
        Column("start_board", "VARCHAR", NONEMPTY_BOARD, "a board like 2;4;2;3"),
        Column("score_max", "INTEGER", UINT, "a score"),
        Column("score_min", "INTEGER", UINT, "a score"),
        Column("winner", "VARCHAR", "max|min|draw", "max, min or draw"),
        Column("moves", "INTEGER", UINT, "a number of moves"),
        Column("ended", "VARCHAR", "(?:cutoff)?", "empty or cutoff"),
    ),
)


class Turn(NamedTuple):
    game: int
    move: int
    player: str
    board_before: tuple[int, ...]
    kind: str
    i: int  # heap number, from 1
    j: int | None  # the heap merged onto (merges only), from 1
    board_after: tuple[int, ...]
    score_max: int  # after the move
    score_min: int


class Score(NamedTuple):
    game: int
    first_player: str
    start_board: tuple[int, ...]
    score_max: int
    score_min: int
    winner: str
    moves: int
    ended: str  # "" (the board was emptied) or "cutoff"


def _turn(fields: list[str]) -> Turn:
    kind, j = fields[4], fields[6]
    if (kind == "merge") != bool(j):
        raise ValueError("j names the heap merged onto: set for a merge, empty otherwise")
    heap = int if j else lambda _: None  # j is empty but for a merge
    board = csvlog.numbers
    return Turn(*csvlog.typed(TURNS, fields, board_before=board, j=heap, board_after=board))


def _score(fields: list[str]) -> Score:
    return Score(*csvlog.typed(SCORES, fields, start_board=csvlog.numbers))


read_turns = reader(TURNS, _turn)
read_scores = reader(SCORES, _score)


def turn_fields(turn: Turn) -> tuple[object, ...]:
    j = "" if turn.j is None else turn.j
    before, after = csvlog.joined(turn.board_before), csvlog.joined(turn.board_after)
    return (*turn[:3], before, *turn[4:6], j, after, *turn[8:])


def score_fields(score: Score) -> tuple[object, ...]:
    return (*score[:2], csvlog.joined(score.start_board), *score[3:])


write_turns = writer(turn_fields)
write_scores = writer(score_fields)

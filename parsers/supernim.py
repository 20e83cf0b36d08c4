"""Super-Nim logs: the turn file (10 columns, one row per move) and the score file.

Format: `../shared/spec/supernim.md`. Boards are heap sizes joined by `;` (an emptied board
is an empty field); heaps are numbered from 1, as the handout's "first heap"; `j` is set
for a merge only; the scores are those after the move. The parser checks the format only
(a field's shape, `j` present exactly for merges), never the rules: the warehouse replays
the rules at ingest, and logs of rule variants must still parse.
"""

from __future__ import annotations

from typing import NamedTuple

from mine.parsers.csvlog import POSITIVE, UINT, Column, Format, reader, writer

GAME = "supernim"
PLAYER = "max|min"
KINDS = ("merge", "ulam", "split")
BOARD = rf"(?:(?:{POSITIVE})(?:;(?:{POSITIVE}))*)?"
NONEMPTY_BOARD = rf"(?:{POSITIVE})(?:;(?:{POSITIVE}))*"

TURNS = Format(
    "supernim turns",
    (
        Column("game", "INTEGER", POSITIVE, "a game number (1, 2, …)"),
        Column("move", "INTEGER", POSITIVE, "a move number (1, 2, …)"),
        Column("player", "VARCHAR", PLAYER, "max or min"),
        Column("board_before", "VARCHAR", NONEMPTY_BOARD, "a board like 2;4;2;3"),
        Column("kind", "VARCHAR", "|".join(KINDS), "merge, ulam or split"),
        Column("i", "INTEGER", POSITIVE, "a heap number (1, 2, …)"),
        Column("j", "VARCHAR", rf"(?:{POSITIVE})?", "a heap number or empty"),
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


def board(text: str) -> tuple[int, ...]:
    return tuple(int(n) for n in text.split(";")) if text else ()


def board_text(heaps: tuple[int, ...]) -> str:
    return ";".join(map(str, heaps))


def _turn(fields: list[str]) -> Turn:
    kind, j = fields[4], fields[6]
    if (kind == "merge") != bool(j):
        raise ValueError("j names the heap merged onto: set for a merge, empty otherwise")
    return Turn(
        game=int(fields[0]),
        move=int(fields[1]),
        player=fields[2],
        board_before=board(fields[3]),
        kind=kind,
        i=int(fields[5]),
        j=int(j) if j else None,
        board_after=board(fields[7]),
        score_max=int(fields[8]),
        score_min=int(fields[9]),
    )


def _score(fields: list[str]) -> Score:
    return Score(
        int(fields[0]),
        fields[1],
        board(fields[2]),
        int(fields[3]),
        int(fields[4]),
        fields[5],
        int(fields[6]),
        fields[7],
    )


read_turns = reader(TURNS, _turn)
read_scores = reader(SCORES, _score)


def turn_fields(turn: Turn) -> tuple[object, ...]:
    return (
        turn.game,
        turn.move,
        turn.player,
        board_text(turn.board_before),
        turn.kind,
        turn.i,
        "" if turn.j is None else turn.j,
        board_text(turn.board_after),
        turn.score_max,
        turn.score_min,
    )


def score_fields(score: Score) -> tuple[object, ...]:
    return (
        score.game,
        score.first_player,
        board_text(score.start_board),
        score.score_max,
        score.score_min,
        score.winner,
        score.moves,
        score.ended,
    )


write_turns = writer(turn_fields)
write_scores = writer(score_fields)

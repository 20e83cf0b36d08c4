"""Super-Nim's log format: read and written byte for byte, bad rows named by line."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers import supernim as log_format
from mine.parsers.errors import LogFormatError

heaps = st.lists(st.integers(1, 60), min_size=0, max_size=8).map(tuple)
moves = st.builds(
    log_format.Turn,
    game=st.integers(1, 500),
    move=st.integers(1, 100),
    player=st.sampled_from(["max", "min"]),
    board_before=heaps.filter(bool),
    kind=st.sampled_from(["ulam", "split"]),
    i=st.integers(1, 8),
    j=st.none(),
    board_after=heaps,
    score_max=st.integers(0, 400),
    score_min=st.integers(0, 400),
) | st.builds(
    log_format.Turn,
    game=st.integers(1, 500),
    move=st.integers(1, 100),
    player=st.sampled_from(["max", "min"]),
    board_before=heaps.filter(bool),
    kind=st.just("merge"),
    i=st.integers(1, 8),
    j=st.integers(1, 8),
    board_after=heaps,
    score_max=st.integers(0, 400),
    score_min=st.integers(0, 400),
)
games = st.builds(
    log_format.Score,
    game=st.integers(1, 500),
    first_player=st.sampled_from(["max", "min"]),
    start_board=heaps.filter(bool),
    score_max=st.integers(0, 400),
    score_min=st.integers(0, 400),
    winner=st.sampled_from(["max", "min", "draw"]),
    moves=st.integers(0, 100),
    ended=st.sampled_from(["", "cutoff"]),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(moves, min_size=1, max_size=20), st.lists(games, min_size=1, max_size=10))
def test_records_and_bytes_round_trip(tmp_path_factory, rows, scores):
    folder = tmp_path_factory.mktemp("logs")
    turns, score = folder / "t.csv", folder / "t-score.csv"
    log_format.write_turns(turns, rows)
    log_format.write_scores(score, scores)
    assert list(log_format.read_turns(turns)) == rows
    assert list(log_format.read_scores(score)) == scores
    again = folder / "again.csv"
    log_format.write_turns(again, log_format.read_turns(turns))
    assert again.read_bytes() == turns.read_bytes()


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("1,1,max,2;4,merge,1,,6,0,0", "j names the heap merged onto"),
        ("1,1,max,2;4,ulam,2,1,2;2;2,0,0", "j names the heap merged onto"),
        ("1,1,both,2;4,ulam,2,,2;2;2,0,0", "player 'both' is not max or min"),
        ("1,1,max,2;0,ulam,1,,2;2,0,0", "board_before '2;0' is not a board"),
        ("1,1,max,,split,1,,,2,0", "board_before '' is not a board"),
        ("1,1,max,2,cash,1,,,2,0", "kind 'cash' is not merge, ulam or split"),
        ("1,1,max,2,split,1,,,2", "expected 10 columns, found 9"),
    ],
)
def test_bad_rows_name_file_line_and_reason(tmp_path, line, reason):
    path = tmp_path / "bad.csv"
    path.write_bytes(b"1,1,min,3;4,merge,1,2,7,0,0\r\n" + line.encode() + b"\r\n")
    with pytest.raises(LogFormatError) as error:
        list(log_format.read_turns(path))
    assert str(error.value).startswith(f"{path}:2") and reason in str(error.value)

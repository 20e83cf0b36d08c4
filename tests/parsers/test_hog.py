"""Hog logs: round trips (records → bytes → records), the columnar writer, bad lines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers import hog
from mine.parsers.errors import LogFormatError

players = st.text(
    alphabet=st.characters(blacklist_characters=",;", blacklist_categories=("Z", "C")),
    min_size=1,
    max_size=8,
)
counts = st.integers(min_value=0, max_value=500)


@st.composite
def turns(draw):
    outcomes = tuple(draw(st.lists(st.integers(1, 20), max_size=10)))
    return hog.Turn(
        game=draw(st.integers(1, 10**6)),
        turn=draw(st.integers(1, 500)),
        player=draw(players),
        score=draw(counts),
        opponent_score=draw(counts),
        num_rolls=len(outcomes),
        outcomes=outcomes,
        points=draw(counts),
        new_score=draw(counts),
    )


scores = st.builds(hog.Score, st.integers(1, 10**6), players, counts, counts, players)


@settings(max_examples=60, deadline=None)
@given(st.lists(turns(), min_size=1, max_size=20))
def test_turns_round_trip(tmp_path_factory, records):
    path = tmp_path_factory.mktemp("hog") / "t.csv"
    hog.write_turns(path, records)
    assert list(hog.read_turns(path)) == records
    again = path.with_name("again.csv")
    hog.write_turns(again, hog.read_turns(path))
    assert again.read_bytes() == path.read_bytes()


@settings(max_examples=60, deadline=None)
@given(st.lists(scores, min_size=1, max_size=20))
def test_scores_round_trip(tmp_path_factory, records):
    path = tmp_path_factory.mktemp("hog") / "s.csv"
    hog.write_scores(path, records)
    assert list(hog.read_scores(path)) == records


@settings(max_examples=40, deadline=None)
@given(st.lists(turns(), min_size=1, max_size=20), st.lists(scores, min_size=1, max_size=5))
def test_columnar_writer_writes_the_same_bytes(tmp_path_factory, turn_records, score_records):
    folder = tmp_path_factory.mktemp("hog")
    hog.write_turns(folder / "rows.csv", turn_records)
    assert hog.turn_frame_bytes(hog.turn_frame(turn_records)) == (folder / "rows.csv").read_bytes()
    hog.write_scores(folder / "rows-score.csv", score_records)
    frame = hog.score_frame_bytes(hog.score_frame(score_records))
    assert frame == (folder / "rows-score.csv").read_bytes()


def test_frames_written_one_after_another_continue_the_file(tmp_path):
    records = [hog.Turn(1, t, "a", 0, 0, 1, (3,), 3, 3) for t in range(1, 5)]
    parts = [hog.turn_frame_bytes(hog.turn_frame(part)) for part in (records[:2], records[2:])]
    (tmp_path / "t.csv").write_bytes(b"".join(parts))
    assert list(hog.read_turns(tmp_path / "t.csv")) == records


def test_the_spec_example_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"7,12,1,31,42,0,,5,49\r\n")
    assert list(hog.read_turns(path)) == [hog.Turn(7, 12, "1", 31, 42, 0, (), 5, 49)]


@pytest.mark.parametrize(
    ("line", "column", "reason"),
    [
        (b"1,1,a,0,0,2,3,3,3", None, "num_rolls is 2 but 1 dice"),
        (b"1,1,a,0,0,1,0,3,3", 7, "outcomes"),
        (b"0,1,a,0,0,1,3,3,3", 1, "game"),
        (b"1,1,a b,0,0,1,3,3,3", 3, "player"),
        (b"1,1,a,-1,0,1,3,3,3", 4, "score"),
        (b"1,1,a,0,0,1,3,3", None, "expected 9 columns"),
    ],
)
def test_bad_turn_lines_name_line_column_and_reason(tmp_path, line, column, reason):
    path = tmp_path / "t.csv"
    path.write_bytes(b"1,1,a,0,0,1,3,3,3\r\n" + line + b"\r\n")
    with pytest.raises(LogFormatError) as error:
        list(hog.read_turns(path))
    assert error.value.line == 2
    assert error.value.column == column
    assert reason in error.value.reason


def test_bad_score_line(tmp_path):
    path = tmp_path / "s.csv"
    path.write_bytes(b"1,a,100,50,a\r\n2,a,100,x,b\r\n")
    with pytest.raises(LogFormatError) as error:
        list(hog.read_scores(path))
    assert (error.value.line, error.value.column) == (2, 4)

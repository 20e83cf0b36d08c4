"""Card-guessing logs: byte-exact round trips and one clear line per bad row."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers import cardguess as log_format
from mine.parsers.cardguess import Score, Turn
from mine.parsers.errors import LogFormatError

CARDS = [r + s for r in "23456789TJQKA" for s in "CDHS"]


@st.composite
def games(draw):
    turns, scores = [], []
    for game in range(1, draw(st.integers(1, 4)) + 1):
        n = draw(st.integers(1, 4))
        hand = st.lists(st.sampled_from(CARDS), min_size=n, max_size=n, unique=True)
        answer = tuple(draw(hand))
        count = draw(st.integers(1, 5))
        for number in range(1, count + 1):
            guess = answer if number == count else tuple(draw(hand))
            fb = draw(st.lists(st.integers(0, n), min_size=5, max_size=5))
            turns.append(Turn(game, n, answer, number, guess, *fb))
        scores.append(Score(game, n, answer, count))
    return turns, scores


@settings(max_examples=60, deadline=None)
@given(games())
def test_round_trips_are_byte_exact(tmp_path_factory, logged):
    turns, scores = logged
    folder = tmp_path_factory.mktemp("logs")
    log_format.write_turns(folder / "g.csv", turns)
    log_format.write_scores(folder / "g-score.csv", scores)
    assert list(log_format.read_turns(folder / "g.csv")) == turns
    assert list(log_format.read_scores(folder / "g-score.csv")) == scores
    first = (folder / "g.csv").read_bytes()
    log_format.write_turns(folder / "again.csv", log_format.read_turns(folder / "g.csv"))
    assert (folder / "again.csv").read_bytes() == first


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("1,2,3C;4H,1,4H,2,0,2,0,2", "guess has 1 cards, n is 2"),
        ("1,2,3C;3C,1,4H;3C,2,0,2,0,2", "answer repeats a card"),
        ("1,2,3C;4H,1,4H;3C,3,0,2,0,2", "correct is 3, more than the 2 cards"),
        ("1,2,3c;4H,1,4H;3C,2,0,2,0,2", "answer '3c;4H' is not cards like 3C;TH"),
        ("1,2,10C;4H,1,4H;3C,2,0,2,0,2", "answer '10C;4H' is not cards like 3C;TH"),
        ("1,5,3C;4H,1,4H;3C,2,0,2,0,2", "n '5' is not a number of cards"),
        ("1,2,3C;4H,1,4H;3C,2,0,2,0", "expected 10 columns, found 9"),
    ],
)
def test_a_bad_row_is_named_by_file_and_line(tmp_path, line, reason):
    path = tmp_path / "g.csv"
    path.write_bytes(b"1,2,3C;4H,1,4H;3C,2,0,2,0,2\r\n" + line.encode() + b"\r\n")
    with pytest.raises(LogFormatError) as raised:
        list(log_format.read_turns(path))
    assert str(raised.value).startswith(f"{path}:2")
    assert reason in str(raised.value)

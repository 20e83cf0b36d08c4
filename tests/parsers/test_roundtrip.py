"""Records → writer → parser gives the same records; the real files come back byte for byte."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers import ginrummy, twentyone
from mine.parsers.cards import DECK
from mine.parsers.errors import LogFormatError
from tests.conftest import REAL_GINRUMMY

cards = st.sampled_from(DECK)
ids = st.text(
    st.characters(whitelist_categories=("L", "N"), max_codepoint=0x24F), min_size=1, max_size=6
)
counts = st.integers(0, 10**6)

twentyone_turns = st.builds(
    twentyone.Turn,
    round=st.integers(1, 2000),
    hand=st.lists(cards, max_size=6).map(tuple),
    player=ids | st.just("dealer"),
    mine=st.booleans(),
    hand_id=st.integers(0, 8),
    action=st.sampled_from(twentyone.ACTIONS),
    bid=counts,
    upcard=cards,
    amount=st.none() | counts,
)
twentyone_scores = st.builds(
    twentyone.Score, st.integers(1, 2000), counts, st.lists(counts, max_size=10).map(tuple)
)
ginrummy_turns = st.builds(
    ginrummy.Turn,
    round=st.integers(1, 50),
    hand=st.lists(cards, min_size=10, max_size=10, unique=True).map(tuple),
    mine=st.booleans(),
    discard_top=cards,
    picked=cards,
    discarded=cards,
)
ginrummy_scores = st.builds(
    ginrummy.Score,
    st.integers(1, 50),
    counts,
    counts,
    st.sampled_from(ginrummy.ENDINGS),
    st.booleans(),
)


def _round_trip(tmp_path_factory, write, read, records):
    path = tmp_path_factory.mktemp("rt") / "log.csv"
    write(path, records)
    assert path.read_bytes().count(b"\r\n") == len(records)
    return list(read(path))


@settings(max_examples=60, deadline=None)
@given(st.lists(twentyone_turns, min_size=1, max_size=30))
def test_twentyone_turns_round_trip(tmp_path_factory, turns):
    got = _round_trip(tmp_path_factory, twentyone.write_turns, twentyone.read_turns, turns)
    assert got == turns


@settings(max_examples=60, deadline=None)
@given(st.lists(twentyone_scores, min_size=1, max_size=30))
def test_twentyone_scores_round_trip(tmp_path_factory, scores):
    got = _round_trip(tmp_path_factory, twentyone.write_scores, twentyone.read_scores, scores)
    assert got == scores


@settings(max_examples=60, deadline=None)
@given(st.lists(ginrummy_turns, min_size=1, max_size=30))
def test_ginrummy_turns_round_trip(tmp_path_factory, turns):
    got = _round_trip(tmp_path_factory, ginrummy.write_turns, ginrummy.read_turns, turns)
    assert got == turns


@settings(max_examples=60, deadline=None)
@given(st.lists(ginrummy_scores, min_size=1, max_size=30))
def test_ginrummy_scores_round_trip(tmp_path_factory, scores):
    got = _round_trip(tmp_path_factory, ginrummy.write_scores, ginrummy.read_scores, scores)
    assert got == scores


@pytest.mark.parametrize("path", sorted(REAL_GINRUMMY.glob("*.csv")), ids=lambda p: p.name)
def test_real_ginrummy_files_are_written_back_byte_for_byte(path, tmp_path):
    scores = path.stem.endswith("-score")
    read = ginrummy.read_scores if scores else ginrummy.read_turns
    write = ginrummy.write_scores if scores else ginrummy.write_turns
    write(tmp_path / "out.csv", list(read(path)))
    assert (tmp_path / "out.csv").read_bytes() == path.read_bytes()


def test_readers_accept_lf_as_well_as_crlf(tmp_path):
    path = tmp_path / "lf.csv"
    path.write_bytes(b"20,S7;H7,2,0,0,Split,40,H6\n20,S7;C9,2,0,0,DoubleDown 10,40,H6\n")
    turns = list(twentyone.read_turns(path))
    assert turns[0].hand == (DECK[6], DECK[13 + 6])
    assert (turns[1].action, turns[1].amount) == ("DoubleDown", 10)


def test_bid_rows_have_empty_hands_and_ids_stay_text(tmp_path):
    path = tmp_path / "bid.csv"
    path.write_bytes(b"1,,007,1,0,Bid,10,SA\r\n")
    (turn,) = twentyone.read_turns(path)
    assert turn.hand == () and turn.player == "007" and turn.mine


@pytest.mark.parametrize(
    "content, line, column, reason",
    [
        (b"1,SX,1,0,0,Hit,10,SA\r\n", 1, 2, "hand 'SX' is not a hand of cards"),
        (b"1,,1,0,0,Bid,10,SA\r\n1,S2;S3,1,0,0,Fold,10,SA\r\n", 2, 6, "action 'Fold'"),
        (b"1,,1,0,0,Bid,10,SA,9\r\n", 1, None, "expected 8 columns, found 9"),
        (b"1,,1,0,0,Bid,10,s10\r\n", 1, 8, "upcard 's10'"),
    ],
)
def test_errors_name_file_line_column_and_reason(tmp_path, content, line, column, reason):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with pytest.raises(LogFormatError) as error:
        list(twentyone.read_turns(path))
    assert (error.value.line, error.value.column) == (line, column)
    assert reason in error.value.reason
    assert str(error.value).startswith(f"{path}:{line}")

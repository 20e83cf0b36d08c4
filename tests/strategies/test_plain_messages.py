"""What a worker tells the harness: plain data that comes back as it went, and anything
else refused as malformed before it is built."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mine.strategies.engines.hog import HogRules
from mine.strategies.plain_messages import HEADER, MAX_BYTES, Malformed, decode, encode, length
from mine.strategies.tournament import Outcome
from mine.strategies.validation.ginrummy import GameResult

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
KEYS = st.text() | st.integers() | st.tuples(st.integers(), st.text())
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(KEYS, inner, max_size=4)
    ),
    max_leaves=20,
)
RECORDS = [
    HogRules(goal=50, sow_sad=False),
    Outcome(0.5, True, None, ("timed out", None)),
    GameResult(True, None, False, 3, 17, 1, 2, 0, 0, 0, (0.001, 0.002), (0.001,)),
]


def _round_trip(value):
    message = encode(value)
    assert length(message[: HEADER.size]) == len(message) - HEADER.size
    return decode(message[HEADER.size :])


@given(VALUES)
def test_plain_data_comes_back_as_it_went(value):
    assert _round_trip(value) == value


@given(st.sampled_from(RECORDS), VALUES)
def test_records_of_the_harness_come_back_as_their_class(record, value):
    back = _round_trip({"record": record, "beside": value})
    assert back == {"record": record, "beside": value}
    assert type(back["record"]) is type(record)


def test_numbers_beyond_json_come_back():
    back = _round_trip([math.inf, -math.inf, math.nan])
    assert back[:2] == [math.inf, -math.inf] and math.isnan(back[2])


def test_numpy_scalars_come_back_as_python_numbers():
    back = _round_trip([np.int64(3), np.float32(0.5), np.bool_(True), np.uint8(7)])
    assert back == [3, 0.5, True, 7]
    assert [type(value) for value in back] == [int, float, bool, int]


def test_what_is_not_plain_data_is_not_sent():
    with pytest.raises(TypeError, match="not plain data"):
        encode({"a": {1, 2}})
    with pytest.raises(TypeError, match="not plain data"):
        encode(object())


@dataclass(frozen=True)
class Foreign:
    """A record of a module that is not the harness's (these tests)."""

    command: str


def _text(value) -> bytes:
    return json.dumps(value).encode()


@pytest.mark.parametrize(
    "text, says",
    [
        (b"\x80\x04\x95 a pickle", "not plain data"),
        (b"[1, 2", "not plain data"),
        (b"[" * 100_000 + b"]" * 100_000, "not plain data"),
        (b"1" * 5000, "not plain data"),  # an integer of 5,000 digits
        (_text({"\0x": 1}), "an unknown tag"),
        (_text({"\0t": [1], "b": 2}), "an unknown tag"),
        (_text({"\0t": 1}), "a malformed 't' tag"),
        (_text({"\0d": [[[1], 2]]}), "not plain data"),  # a list as a key: unhashable
        (_text({"\0r": ["subprocess:Popen", {"args": "id"}]}), "not a record of the harness"),
        (_text({"\0r": ["os:system", {}]}), "not a record of the harness"),
        (_text({"\0r": [f"{__name__}:Foreign", {"command": "id"}]}), "not a record of"),
        (_text({"\0r": ["mine.strategies.engines.hog:HogRules", {"goal": 5}]}), "the fields of"),
        (
            _text(
                {
                    "\0r": [
                        "mine.strategies.engines.hog:HogRules",
                        {f.name: 0 for f in fields(HogRules)},
                    ]
                }
            ),  # fmt: skip
            "not a HogRules: goal must be at least 1",
        ),
        (_text({"\0r": ["mine.strategies.plain_messages:json", {}]}), "not a record of"),
    ],
)
def test_a_message_that_is_not_plain_data_is_malformed(text, says):
    with pytest.raises(Malformed, match=says):
        decode(text)


def test_a_message_over_the_cap_is_refused_by_its_header():
    assert length(HEADER.pack(MAX_BYTES)) == MAX_BYTES
    with pytest.raises(Malformed, match="over the 16 MB cap"):
        length(HEADER.pack(MAX_BYTES + 1))

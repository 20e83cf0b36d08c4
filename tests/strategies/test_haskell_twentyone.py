"""The generated TwentyOne `Player.hs`: compiled as the FIT2102 2021 bundle compiles it
(our stand-ins, the course's flags, imported `safe`), without a warning, and deciding as
the Python file of the same table on every call of whole games, memory included."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers.cards import DECK
from mine.strategies.codegen.haskell import check, template
from mine.strategies.codegen.haskell.twentyone import haskell_source
from mine.strategies.codegen.twentyone import module_source
from mine.strategies.engines.twentyone import PlayerInfo, PlayerPoints, TwentyOneRules
from mine.strategies.engines.twentyone_chart import Strategy
from mine.strategies.haskell import protocol
from mine.strategies.player_file import load_source
from mine.strategies.solvers.twentyone import solve
from mine.strategies.validation import haskell as compare
from tests.shared_warehouse import haskell_program
from tests.strategies.haskell_files import needs_ghc
from tests.strategies.test_twentyone_codegen import BIDS, METADATA
from tests.strategies.test_twentyone_validate import count_charts

FIGURES = {"flat-bet return": 0.0771}
GAMES = 3  # whole games in the suite, about 24,000 calls; bench/twentyone_haskell.py plays more


@pytest.fixture(scope="module")
def table():
    chart = solve(TwentyOneRules()).chart
    return Strategy(chart, BIDS, count_charts(chart), METADATA)


@pytest.fixture(scope="module")
def source(table):
    return haskell_source(module_source(table, FIGURES))


@pytest.fixture(scope="module")
def python(table):
    return load_source(module_source(table, FIGURES), "twentyone")


@pytest.fixture(scope="module")
def built(source, tmp_path_factory, haskell_stand_ins):
    return haskell_program(tmp_path_factory, "twentyone", source, haskell_stand_ins)


def test_the_file_states_its_provenance_and_is_the_template_with_its_tables(table, source):
    assert source.startswith("-- TwentyOne player (FIT2102 2021")
    for fact in ("games (logs): 12", "rows (decisions): 3456", "ab" * 32, "flat-bet return"):
        assert fact in source
    assert "module Player (playCard) where" in source
    assert source == haskell_source(module_source(table, FIGURES))  # deterministic
    check(source, template("twentyone"))
    with pytest.raises(ValueError):
        check(source.replace("tcLimit = 10", "tcLimit = 10 -- {-"), template("twentyone"))
    with pytest.raises(ValueError):
        check(source.replace("playCard upcard", "playCard  upcard"), template("twentyone"))


def test_log_text_cannot_reach_the_file(table):
    metadata = table.metadata
    hostile = {**metadata, "method": '"\n-}\nimport System.IO.Unsafe', "logs": "1\nmain = 1"}
    source = haskell_source(module_source(dataclasses.replace(table, metadata=hostile), FIGURES))
    assert "(not shown)" in source and "Unsafe" not in source and "main = 1" not in source
    no_decks = {**metadata, "learned": {**metadata["learned"], "decks": 0}}
    with pytest.raises(ValueError):
        haskell_source(module_source(dataclasses.replace(table, metadata=no_decks), FIGURES))


@needs_ghc
def test_compiles_under_the_course_flags_without_a_warning(built):
    assert built.warnings == ()
    assert "Player" in built.output and "error" not in built.output.lower()


@needs_ghc
def test_decides_as_the_python_file_on_every_call_of_whole_games(built, python):
    result = compare.twentyone(built.program, python, GAMES, seed=1)
    assert result.mismatches == 0, result.first
    assert result.calls > 20_000
    for kind in ("Bid", "Hit", "Stand", "DoubleDown", "Split", "Insurance"):
        assert result.kinds[kind] > 0, result.kinds
    assert result.longest_memory <= TwentyOneRules().memory_chars


MEMORY = "t21:100:-7:30:1f:50:F:0:0"


@needs_ghc
@settings(max_examples=15, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=40),
            st.builds(
                lambda at, c: MEMORY[:at] + c + MEMORY[at + 1 :],
                st.integers(0, len(MEMORY) - 1),
                st.sampled_from("0123456789-abcdefFPHS:x"),
            ),
            st.just("t21:" + "9" * 9990),
            st.just(MEMORY + ":"),
        ),
        min_size=20,
        max_size=20,
    )
)
def test_a_memory_it_did_not_write_is_read_as_the_python_file_reads_it(built, python, memories):
    """Anything else than its own memory starts afresh in both files (never an error),
    and a memory one character away from its own is accepted or refused alike."""
    points = (PlayerPoints("1", 500), PlayerPoints("2", 5))
    infos = (PlayerInfo("1", (DECK[3], DECK[16])), PlayerInfo("dealer", (DECK[0], DECK[25])))
    calls = [
        (up, points, infos, "1", memory, hand)
        for memory in memories
        for up, hand in ((None, ()), (DECK[0], (DECK[7], DECK[20])), (DECK[5], (DECK[1], DECK[9])))
    ]
    replies = protocol.ask(built.program, [protocol.twentyone_play(*call) for call in calls])
    for call, reply in zip(calls, replies, strict=True):
        action, memory = python.play(*call)
        expected = (type(action).__name__, getattr(action, "amount", 0), memory)
        assert protocol.twentyone_answer(reply) == expected, call

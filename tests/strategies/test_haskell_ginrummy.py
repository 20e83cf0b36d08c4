"""The generated Gin Rummy `Player.hs`: compiled as the FIT2102 2020 bundle compiles it
(our stand-ins, the course's flags, imported `safe`), without a warning, and deciding as
the Python file of the same tables (fitted on the real 2020 server's logs) on every draw,
discard, call and declaration of whole games."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers.cards import DECK
from mine.strategies.codegen.ginrummy import module_source
from mine.strategies.codegen.haskell import check, template
from mine.strategies.codegen.haskell.ginrummy import haskell_source
from mine.strategies.engines.ginrummy import GinRummyRules
from mine.strategies.engines.melds import check_melds, meld_kind
from mine.strategies.haskell import protocol
from mine.strategies.player_file import load_source
from mine.strategies.validation import haskell as compare
from tests.shared_warehouse import ginrummy_fitted, haskell_program
from tests.strategies.haskell_files import needs_ghc

GAMES = 42  # whole games in the suite (14 against each baseline); the bench plays 240
KINDS = {"set": ("Set3", "Set4"), "straight": ("Straight3", "Straight4", "Straight5")}


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    return ginrummy_fitted(tmp_path_factory)


@pytest.fixture(scope="module")
def source(fitted):
    return haskell_source(module_source(fitted, None))


@pytest.fixture(scope="module")
def python(fitted):
    return load_source(module_source(fitted, None), "ginrummy")


@pytest.fixture(scope="module")
def built(source, tmp_path_factory, haskell_stand_ins):
    return haskell_program(tmp_path_factory, "ginrummy", source, haskell_stand_ins)


def test_the_file_states_its_provenance_and_is_the_template_with_its_tables(fitted, source):
    tables, metadata = fitted.tables, fitted.metadata
    assert source.startswith("-- Gin Rummy player (FIT2102 2020")
    assert "data fingerprint (SHA-256):" in source and metadata["fingerprint"] in source
    assert "module Player (pickCard, playCard, makeMelds) where" in source
    assert source == haskell_source(module_source(fitted, None))
    check(source, template("ginrummy"))
    with pytest.raises(ValueError):
        hostile = SimpleNamespace(
            tables={**tables, "hazard": (0.5, float("nan"))}, metadata=metadata
        )
        haskell_source(module_source(hostile, None))


@needs_ghc
def test_compiles_under_the_course_flags_without_a_warning(built):
    assert built.warnings == ()


@needs_ghc
def test_decides_as_the_python_file_on_every_call_of_whole_games(built, python):
    result = compare.ginrummy(built.program, python, GAMES, seed=2)
    assert result.mismatches == 0, result.first
    for kind in ("stock", "discard", "drop", "knock", "melds"):
        assert result.kinds[kind] > 0, result.kinds
    assert result.longest_memory <= GinRummyRules().memory_limit


@needs_ghc
@settings(max_examples=10, deadline=None)
@given(st.lists(st.permutations(range(52)).map(lambda deck: deck[:10]), min_size=30, max_size=30))
def test_declares_the_python_files_melds_with_the_course_constructors(built, python, hands):
    """On any hand: the same melds in the same order, each under the constructor of its
    kind and size, and a declaration the rules accept."""
    hands = [tuple(DECK[c] for c in hand) for hand in hands]
    replies = protocol.ask(built.program, [protocol.ginrummy_melds((0, 0), "", h) for h in hands])
    for hand, reply in zip(hands, replies, strict=True):
        melds = protocol.ginrummy_melds_answer(reply)
        assert [cards for _, cards in melds] == [tuple(m) for m in python.melds((0, 0), "", hand)]
        for kind, cards in melds:
            expected = "Deadwood" if len(cards) == 1 else KINDS[meld_kind(cards)][len(cards) - 3]
            assert kind.startswith(expected), (kind, cards)
        check_melds(hand, [cards for _, cards in melds])


@needs_ghc
def test_a_memory_it_did_not_write_still_gives_a_legal_play(built):
    """The Python file raises on a memory not its own; the Haskell file cannot raise, so
    it starts the round afresh: still a card of the hand, never the one just drawn."""
    hand, drawn = DECK[:10], DECK[20]
    memories = ["", "x", "g1;s0,0", "g1;s0,0;h3ff;p1;f1;n99;l-;d0;k0;x0", "\u00e9" * 10_001]
    replies = protocol.ask(
        built.program,
        [protocol.ginrummy_play(drawn, (0, 0), m, hand) for m in memories]
        + [protocol.ginrummy_pick(drawn, (0, 0), m, "stock", hand) for m in memories],
    )
    for reply in replies[: len(memories)]:
        (act, card), memory = protocol.ginrummy_play_answer(reply)
        assert card in hand and act in ("drop", "knock", "gin") and len(memory) < 200
    for reply in replies[len(memories) :]:
        assert protocol.ginrummy_pick_answer(reply)[0] in ("stock", "discard")


@needs_ghc
def test_decides_as_the_python_file_against_players_that_wait_to_undercut(built, python):
    """Against never-knock and student the file reads its opponent across rounds (its
    declined knocks, from the scores) and refuses knocks it would see undercut: both
    files read and refuse alike."""
    opponents = ("never-knock", "student")
    calls = compare.ginrummy_calls(python, 6, 5, opponents)
    memories = [call.expected[1] for call in calls if call.kind in ("drop", "knock", "gin")]
    assert any(python.parse_memory(memory).declined > 0 for memory in memories)
    result = compare.ginrummy(built.program, python, 6, seed=5, opponents=opponents)
    assert result.mismatches == 0, result.first
    assert result.kinds["knock"] > 0

"""The generated card-guessing `Proj1.hs`: compiled as the handout's test driver is
(`ghc -O2 --make`, here with -Wall), without a warning, its feedback the engine's, and
guessing as the Python file of the same trees on every n = 2 answer and on a sample of
n = 3 (a tree of part of the answers: on it and off it, where both fall back alike), and
refusing n = 4 (no tree) as the Python file does; and a `Proj1.hs` that compiles but never
finds the answer is measured, each game lost at the guess limit, and refused in one line."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.strategies.codegen.cardguess import module_source
from mine.strategies.codegen.haskell import check, template
from mine.strategies.codegen.haskell.cardguess import haskell_source
from mine.strategies.engines.cardguess import card_text, feedback, hands
from mine.strategies.haskell import protocol
from mine.strategies.haskell.build import build, stand_ins
from mine.strategies.haskell.programs import CACHE
from mine.strategies.player_file import load_source
from mine.strategies.players.cardguess import FALLBACK_HANDS
from mine.strategies.solvers.cardguess import Plan, Search, Trees, flatten
from mine.strategies.validation import haskell as compare
from tests.conftest import with_stand_ins
from tests.mine_cli import here, one_line_error
from tests.strategies.haskell_files import needs_ghc
from tests.strategies.test_cardguess_codegen import METADATA

QUICK = Plan(widths=(1,), members=50, extras=0)
THREES = 10  # every THREES-th n = 3 answer is in the tree; the suite plays 7 of them and 7 not


@pytest.fixture(scope="module")
def trees():
    three = Search(3, None, QUICK)
    return {
        2: flatten(2, Search(2, None, QUICK).run()),
        3: flatten(3, three.solve(np.arange(0, len(three.universe), THREES), 0)),
    }


@pytest.fixture(scope="module")
def source(trees):
    return haskell_source(module_source(Trees(trees, METADATA), None))


@pytest.fixture(scope="module")
def python(trees):
    return load_source(module_source(Trees(trees, METADATA), None), "cardguess")


@pytest.fixture(scope="module")
def built(source, tmp_path_factory, haskell_stand_ins):
    folder = tmp_path_factory.mktemp("haskell-cardguess")
    return build("cardguess", source, folder, stand_ins("cardguess", haskell_stand_ins))


def test_the_file_states_its_provenance_and_is_the_template_with_its_trees(trees, source):
    assert source.startswith("-- Card-guessing player (COMP30020 2016, Proj1.hs)")
    assert "module Proj1 (feedback, initialGuess, nextGuess, GameState) where" in source
    assert "fingerprint (SHA-256):" in source and "ab" * 32 in source
    assert source == haskell_source(module_source(Trees(trees, METADATA), None))
    check(source, template("cardguess"))
    assert f"fallbackHands = {FALLBACK_HANDS}\n" in source  # the Python file's budget


@needs_ghc
def test_compiles_without_a_warning(built):
    assert built.warnings == ()


@needs_ghc
def test_guesses_as_the_python_file_on_every_two_card_answer(built, python, trees):
    answers = hands(2).cards.tolist()
    result = compare.cardguess(built.program, python, 2, answers)
    assert result.mismatches == 0, result.first
    mean = result.calls / len(answers)  # one call per guess
    assert mean == pytest.approx(trees[2].cost[0], abs=1e-9)


@needs_ghc
def test_guesses_as_the_python_file_on_and_off_a_three_card_tree(built, python):
    threes = hands(3).cards.tolist()
    step = len(threes) // 7 // THREES * THREES
    on_tree = list(range(0, len(threes), step))[:7]
    answers = [threes[i] for i in on_tree] + [threes[i + 3] for i in on_tree]
    result = compare.cardguess(built.program, python, 3, answers)
    assert result.mismatches == 0, result.first
    assert result.calls > len(answers)


@needs_ghc
def test_refuses_an_n_without_a_tree_as_the_python_file_does(built, python):
    said = "this player has no tree for n = 4 (it plays n = 2, 3)"
    with pytest.raises(ValueError, match=re.escape(said)):
        python.initial_guess(4)
    with pytest.raises(protocol.ProtocolError, match=re.escape(said)):
        protocol.ask(built.program, [protocol.cardguess_initial(4)])


@needs_ghc
@settings(max_examples=10, deadline=None)
@given(
    st.lists(
        st.integers(1, 4).flatmap(
            lambda n: st.tuples(
                *[st.lists(st.integers(0, 51), min_size=n, max_size=n, unique=True)] * 2
            )
        ),
        min_size=50,
        max_size=50,
    )
)
def test_its_feedback_is_the_engines(built, pairs):
    texts = [([card_text(c) for c in a], [card_text(c) for c in g]) for a, g in pairs]
    replies = protocol.ask(built.program, [protocol.cardguess_feedback(a, g) for a, g in texts])
    for (answer, guess), reply in zip(pairs, replies, strict=True):
        assert tuple(map(int, reply.fields)) == feedback(answer, guess)


NEVER = """module Proj1 (feedback, initialGuess, nextGuess, GameState) where

import Card

type GameState = ()

feedback :: [Card] -> [Card] -> (Int, Int, Int, Int, Int)
feedback _ _ = (0, 0, 0, 0, 0)

initialGuess :: Int -> ([Card], GameState)
initialGuess n = (take n [minBound ..], ())

nextGuess :: ([Card], GameState) -> (Int, Int, Int, Int, Int) -> ([Card], GameState)
nextGuess previous _ = previous
"""


@needs_ghc
def test_a_proj1_that_never_finds_the_answer_loses_each_game_at_the_guess_limit(
    tmp_path, monkeypatch, haskell_stand_ins
):
    path = tmp_path / "Proj1.hs"
    path.write_text(NEVER)
    cache = with_stand_ins(tmp_path / "cache", haskell_stand_ins)
    monkeypatch.setenv(CACHE, str(cache))  # the program compiled once, here
    validated = here("validate", "cardguess", path, "--n", 2, "--answers", 3, "--baselines",
                     "greedy")  # fmt: skip
    line = one_line_error(validated, code=1)
    assert line == f"error: {path}: found no answer of n = 2 (not found in 100 guesses)"
    played = here("tournament", "cardguess", path, "--bots", "greedy", "--games", 2, "--json")
    assert played.returncode == 0, played.stderr
    (pairing,) = json.loads(played.stdout)["pairings"]
    assert pairing["b_wins"] == 2 and pairing["invalid"] == [0, 0]  # lost by the rules
    assert pairing["margin"]["mean"] < -90  # 101 guesses, a lost game's, against greedy's few

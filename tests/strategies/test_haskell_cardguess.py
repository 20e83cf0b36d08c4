"""The generated card-guessing `Proj1.hs`: compiled as the handout's test driver is
(`ghc -O2 --make`, here with -Wall), without a warning, its feedback the engine's, and
guessing as the Python file of the same trees on every n = 2 answer and on samples of
n = 3 (a tree of part of the answers: on it and off it) and n = 4 (no tree: the fallback
alone)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.strategies.codegen.cardguess import module_source
from mine.strategies.codegen.haskell import check, template
from mine.strategies.codegen.haskell.cardguess import haskell_source
from mine.strategies.engines.cardguess import card_text, feedback, hands
from mine.strategies.haskell import protocol
from mine.strategies.haskell.build import build
from mine.strategies.player_file import load_source
from mine.strategies.solvers.cardguess import Plan, Search, Trees, flatten
from mine.strategies.validation import haskell as compare
from tests.strategies.haskell_files import needs_ghc
from tests.strategies.test_cardguess_codegen import METADATA

QUICK = Plan(widths=(1,), members=50, extras=0)
THREES = 10  # every THREES-th n = 3 answer is in the tree; the suite plays 7 of them and 7 not
FOURS = 8  # n = 4 answers in the suite, from the first hands in the cards' order (the
# Python file's fallback scans hands in that order without end when its clock is lifted);
# bench/cardguess_haskell.py samples the whole range


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
    module = load_source(module_source(Trees(trees, METADATA), None), "cardguess")
    module.FALLBACK_SECONDS = float("inf")  # decide by the rule alone, never by the clock
    return module


@pytest.fixture(scope="module")
def built(source, tmp_path_factory):
    return build("cardguess", source, tmp_path_factory.mktemp("haskell-cardguess"))


def test_the_file_states_its_provenance_and_is_the_template_with_its_trees(trees, source):
    assert source.startswith("-- Card-guessing player (COMP30020 2016, Proj1.hs)")
    assert "module Proj1 (feedback, initialGuess, nextGuess, GameState) where" in source
    assert "fingerprint (SHA-256):" in source and "ab" * 32 in source
    assert source == haskell_source(module_source(Trees(trees, METADATA), None))
    check(source, template("cardguess"))


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
def test_guesses_as_the_python_file_on_three_and_four_card_samples(built, python):
    threes = hands(3).cards.tolist()
    step = len(threes) // 7 // THREES * THREES
    on_tree = list(range(0, len(threes), step))[:7]
    samples = {
        3: [threes[i] for i in on_tree] + [threes[i + 3] for i in on_tree],
        4: hands(4).cards.tolist()[::997][:FOURS],
    }
    for n, answers in samples.items():
        result = compare.cardguess(built.program, python, n, answers)
        assert result.mismatches == 0, (n, result.first)
        assert result.calls > len(answers)


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

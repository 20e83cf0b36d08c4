"""The generated card-guessing player: stdlib only, decides exactly as its tree, its own
feedback is the engine's, and its fallback never fails."""

from __future__ import annotations

import ast

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.strategies.codegen.cardguess import module_source
from mine.strategies.engines.cardguess import (
    CardGuessRules,
    card_text,
    feedback,
    hands,
    play_game,
)
from mine.strategies.player_file import load_source
from mine.strategies.solvers.cardguess import Plan, Search, Trees, flatten
from mine.strategies.validation.cardguess import (
    FileGuesser,
    failure,
    figures,
    measure_file,
    validate,
)

METADATA = {
    "games": 10,
    "rows": 40,
    "fingerprint": "ab" * 32,
    "method": "search",
    "answerer": {"uniform": True, "chi_square_p_value": 0.5},
    "trees": {"2": {"nodes": 1326, "expected_guesses": 3.5, "first_guess": "6C;TD"}},
}


@pytest.fixture(scope="module")
def tree():
    return flatten(2, Search(2, None, Plan(widths=(1,), members=1326, extras=0)).run())


@pytest.fixture(scope="module")
def source(tree):
    return module_source(Trees({2: tree}, METADATA), None)


@pytest.fixture(scope="module")
def player(source):
    return load_source(source, "cardguess")


def test_the_file_needs_only_the_standard_library_and_states_its_provenance(source, tree):
    tree_ast = ast.parse(source)
    doc = ast.get_docstring(tree_ast)
    assert "fingerprint (SHA-256): " + "ab" * 32 in doc and "games: 10" in doc
    assert "first guess 6C TD" in doc
    assert source == module_source(Trees({2: tree}, METADATA), None)  # deterministic


def test_the_file_decides_exactly_as_its_tree_on_every_answer(player, tree):
    universe = hands(2)
    counts = []
    for hand in universe.cards.tolist():
        played = play_game(FileGuesser(player), tuple(hand), CardGuessRules(n=2))
        counts.append(len(played.guesses))
    assert np.mean(counts) == pytest.approx(tree.cost[0], abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda n: st.tuples(
            *[st.lists(st.integers(0, 51), min_size=n, max_size=n, unique=True)] * 2
        )
    )
)
def test_the_files_feedback_is_the_engines(player, pair):
    answer, guess = pair
    texts = [card_text(c) for c in answer], [card_text(c) for c in guess]
    assert tuple(player.feedback(*texts)) == feedback(answer, guess)


def test_an_impossible_feedback_still_gets_a_valid_guess(player):
    guess, state = player.initial_guess(2)
    after, state = player.next_guess((guess, state), (2, 2, 2, 2, 2))
    assert len(set(after)) == 2 and set(after) != set(guess)
    again, _ = player.next_guess((after, state), (0, 0, 0, 0, 0))
    assert len(set(again)) == 2 and set(again) not in ({*guess}, {*after})


def test_without_a_tree_for_n_the_fallback_still_finds_the_answer(player):
    played = play_game(FileGuesser(player), (0, 9, 30), CardGuessRules(n=3))
    assert played.guesses[-1] == (0, 9, 30)


def test_validation_counts_what_the_file_does(tmp_path, source):
    path = tmp_path / "p.py"
    path.write_text(source)
    answers = [tuple(h) for h in hands(2).cards[:50].tolist()]
    records = measure_file(path, 2, answers, CardGuessRules(n=2))
    card = figures(records)
    assert card["games"] == 50 and card["invalid"] == 0 and card["slowest_call_s"] < 1.0
    chances = np.linspace(1.0, 2.0, 50)
    exact = figures(records, chances)
    counts = np.array([r["guesses"] for r in records])
    assert exact["exact"] and exact["mean"] == pytest.approx(
        chances @ counts / chances.sum(), abs=1e-6
    )
    assert exact["ci95"] == [exact["mean"], exact["mean"]]
    broken = tmp_path / "broken.py"
    broken.write_text(
        source.replace("return _guess_at(n, 0), (n, 0, ())", 'return ["2C", "2C"], (n, 0, ())')
    )
    assert figures(measure_file(broken, 2, answers, CardGuessRules(n=2)))["invalid"] == 50


def test_validate_reads_the_rules_shows_progress_and_says_what_fails(tmp_path, source):
    path = tmp_path / "p.py"
    path.write_text(source)
    seen = []
    strict = validate(path, ["guess_limit=3"], sizes=(2,), answers=40, baselines=(),
                      progress=lambda *args: seen.append(args))  # fmt: skip
    assert strict["limits"]["guess_limit"] == 3 and seen[-1] == ("n = 2", 40, 40)
    lost = strict["sizes"]["2"]["player"]["invalid"]
    assert 0 < lost < 40  # the tree needs more than three guesses for some answers only
    assert (
        failure(strict)
        == f"{path}: {lost} of 40 games of n = 2 lost to an invalid guess, a crash or a limit"
    )
    assert failure(validate(path, sizes=(2,), answers=40, baselines=())) is None
    wrong = tmp_path / "wrong.py"
    wrong.write_text(source.replace("overlap(answer_ranks, guess_ranks),", "0,"))
    card = validate(wrong, sizes=(2,), answers=40, baselines=())
    assert card["sizes"]["2"]["player"]["invalid"] == 0
    assert "its feedback is wrong for" in failure(card)

"""The generated card-guessing player: stdlib only, decides exactly as its tree, its own
feedback is the engine's, and its fallback never fails."""

from __future__ import annotations

import ast

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.strategies.bots.cardguess import make_bot
from mine.strategies.codegen.cardguess import module_source
from mine.strategies.engines.cardguess import CardGuessRules, card_text, feedback, hands
from mine.strategies.player_file import load_source
from mine.strategies.solvers.cardguess import Plan, Search, Trees, flatten
from mine.strategies.validation.cardguess import (
    SAMPLE_SEED,
    _baseline_records,
    baseline_records,
    check,
    failure,
    figures,
    measure_file,
    one_game,
    seat,
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
        counts.append(one_game(seat(player), tuple(hand), CardGuessRules(n=2))["guesses"])
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


def test_without_a_tree_for_n_the_file_refuses_n_and_says_so(source, player):
    played = one_game(seat(player), (0, 9, 30), CardGuessRules(n=3))
    said = "raised ValueError: this player has no tree for n = 3 (it plays n = 2)"
    assert played["guesses"] is None and played["error"] == said
    doc = ast.get_docstring(ast.parse(source))
    assert "Plays n = 2, each by its searched tree" in doc
    assert "Refuses n = 3, 4: its table has no tree" in doc


def test_validate_reports_the_n_a_file_refuses_and_plays_the_others(tmp_path, source):
    path = tmp_path / "p.py"
    path.write_text(source)
    card = validate(path, sizes=(2, 3), answers=40, baselines=())
    assert card["sizes"]["3"] == {
        "refused": "ValueError: this player has no tree for n = 3 (it plays n = 2)"
    }
    assert card["sizes"]["2"]["player"]["games"] == 40 and failure(card) is None


def test_check_measures_every_answer_and_refuses_a_file_worse_than_greedy(tmp_path, tree):
    good = tmp_path / "good.py"
    good.write_text(module_source(Trees({2: tree}, METADATA), None))
    card = check(good, Trees({2: tree}, METADATA))
    assert set(card["sizes"]) == {"2", "3", "4"} and "player" not in card
    assert card["sizes"]["3"]["refused"] and card["sizes"]["4"]["refused"]
    entry = card["sizes"]["2"]
    assert entry["player"]["exact"] and entry["player"]["games"] == 1326
    assert entry["player"]["mean"] <= entry["baselines"]["greedy"]["mean"]
    # a tree that guesses the first candidate each time: first-consistent, not greedy
    naive = flatten(2, Search(2, None, Plan(widths=(1,), members=1, extras=0)).run())
    bad = tmp_path / "bad.py"
    bad.write_text(module_source(Trees({2: naive}, METADATA), None))
    with pytest.raises(ValueError, match="n = 2: the file needs .* more per answer than greedy"):
        check(bad, Trees({2: naive}, METADATA))


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


def test_a_baselines_records_are_played_once_and_each_caller_gets_its_own():
    answers = [tuple(hand) for hand in hands(2).cards[:40].tolist()]
    rules = CardGuessRules(n=2)
    first = baseline_records("greedy", 2, answers, rules)
    played = [one_game(make_bot("greedy", rules, np.random.default_rng(SAMPLE_SEED)), a, rules)
              for a in answers]  # fmt: skip
    assert [r["guesses"] for r in first] == [r["guesses"] for r in played]
    first[0]["guesses"] = -1  # a caller that writes on its answer
    again = baseline_records("greedy", 2, answers, rules)
    assert again[0]["guesses"] == played[0]["guesses"] and again is not first
    assert _baseline_records.cache_info().hits >= 1

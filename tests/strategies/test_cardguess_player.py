"""The card-guessing player module (`strategies/players/cardguess.py`), played as it is in
the engine: its string feedback, its refusal of an n without a tree, its fallback off the
tree, and a tree walked exactly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.strategies.codegen.cardguess import packed
from mine.strategies.engines import cardguess as engine
from mine.strategies.engines import referee
from mine.strategies.engines.cardguess import (
    CardGuessRules,
    State,
    card_text,
    encode,
    feedback,
    hand_index,
    hands,
)
from mine.strategies.players import cardguess as player
from mine.strategies.solvers.cardguess import FlatTree, Plan, Search, flatten


def play_game(answer, rules):
    """The module's game of `answer`, refereed behind the engine's course adapter."""
    state = State(rules, answer)
    seen = referee.refereed(engine, rules, state, [engine.course_player(player)])
    assert seen.faults == [None]
    return state


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda n: st.tuples(
            *[st.lists(st.integers(0, 51), min_size=n, max_size=n, unique=True)] * 2
        )
    )
)
def test_the_feedback_on_strings_is_the_engines(pair):
    answer, guess = pair
    texts = [card_text(c) for c in answer], [card_text(c) for c in guess]
    assert player.feedback(*texts) == feedback(answer, guess)
    assert [player.card_number(t) for t in texts[0]] == answer


@pytest.mark.parametrize("n", [2, 3, 4])
def test_without_a_tree_for_n_it_refuses_n(n):
    assert player.TREES == {}  # the module as it is: no tree
    with pytest.raises(ValueError, match=f"no tree for n = {n} \\(it plays n = none\\)"):
        player.initial_guess(n)


def root_only(n: int, guess: tuple[int, ...]) -> FlatTree:
    """A tree of one node: every feedback to its first guess is off the tree."""
    one, none = np.array([0]), np.array([-1])
    return FlatTree(n, np.array([hand_index(guess)]), none, none, one * 0, np.array([0, 0]),
                    np.ones(1), one + 1)  # fmt: skip


@pytest.mark.parametrize(("n", "answer"), [(2, (0, 51)), (2, (17, 30)), (3, (0, 9, 30))])
def test_off_the_tree_it_guesses_a_hand_consistent_with_every_feedback(monkeypatch, n, answer):
    monkeypatch.setattr(player, "TREES", {n: packed(root_only(n, tuple(range(20, 20 + n))))})
    monkeypatch.setattr(player, "_DECODED", {})
    with pytest.raises(ValueError, match=f"it plays n = {n}\\)"):
        player.initial_guess(5 - n)
    played = play_game(answer, CardGuessRules(n=n))
    assert played.guesses[-1] == answer
    for k, guess in enumerate(played.guesses):
        for earlier, fb in zip(played.guesses[:k], played.feedbacks[:k], strict=True):
            assert feedback(guess, earlier) == fb


def test_with_a_tree_it_guesses_exactly_as_the_tree_on_every_answer(monkeypatch):
    tree = flatten(2, Search(2, None, Plan(widths=(1,), members=1326, extras=0)).run())
    monkeypatch.setattr(player, "TREES", {2: packed(tree)})
    monkeypatch.setattr(player, "_DECODED", {})
    universe = hands(2)
    for answer in universe.cards.tolist():
        node, walked = 0, []
        while True:
            guess = tuple(universe.cards[tree.guess[node]].tolist())
            walked.append(guess)
            if guess == tuple(answer):
                break
            node = tree.child(node, encode(feedback(answer, guess)))
        played = play_game(tuple(answer), CardGuessRules(n=2))
        assert list(played.guesses) == walked


def test_past_its_budget_the_fallback_guesses_the_first_hand_not_yet_guessed(monkeypatch):
    monkeypatch.setattr(player, "TREES", {4: packed(root_only(4, (20, 21, 22, 23)))})
    monkeypatch.setattr(player, "_DECODED", {})
    monkeypatch.setattr(player, "FALLBACK_HANDS", 500)  # no consistent hand among them
    said = player.initial_guess(4)
    answer = [card_text(card) for card in (48, 49, 50, 51)]
    for expected in ((0, 1, 2, 3), (0, 1, 2, 4), (0, 1, 2, 5)):
        said = player.next_guess(said, player.feedback(answer, said[0]))
        assert said[0] == [card_text(card) for card in expected]

"""The card-guessing player module (`strategies/players/cardguess.py`), played as it is in
the engine: its string feedback, its fallback (no tree), and a tree walked exactly."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.strategies.codegen.cardguess import packed
from mine.strategies.engines.cardguess import (
    CardGuessRules,
    card_text,
    encode,
    feedback,
    hands,
    play_game,
)
from mine.strategies.players import cardguess as player
from mine.strategies.solvers.cardguess import Plan, Search, flatten


class ModuleGuesser:
    """The module's functions as an engine guesser (cards as text to it, ints from it)."""

    def initial_guess(self, n):
        guess, state = player.initial_guess(n)
        return [player.card_number(c) for c in guess], (guess, state)

    def next_guess(self, previous, fb):
        _, (guess, state) = previous
        guess, state = player.next_guess((guess, state), fb)
        return [player.card_number(c) for c in guess], (guess, state)


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


@pytest.mark.parametrize(("n", "answer"), [(2, (0, 51)), (2, (17, 30)), (3, (0, 9, 30))])
def test_without_a_tree_it_guesses_a_hand_consistent_with_every_feedback(n, answer):
    assert player.TREES == {}  # the module as it is: every n falls back
    played = play_game(ModuleGuesser(), answer, CardGuessRules(n=n))
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
        played = play_game(ModuleGuesser(), tuple(answer), CardGuessRules(n=2))
        assert list(played.guesses) == walked

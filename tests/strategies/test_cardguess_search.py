"""Card guessing's guess rules, baselines and tree search (n = 2, cheap plans only)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.strategies.bots.cardguess import GUESSERS, make_bot
from mine.strategies.engines import cardguess as engine
from mine.strategies.engines import referee
from mine.strategies.engines.cardguess import (
    CardGuessRules,
    State,
    encode,
    feedback,
    feedback_codes,
    hand_index,
    hands,
    winning_code,
)
from mine.strategies.solvers.cardguess import (
    FlatTree,
    Plan,
    Search,
    best_candidate,
    expected_left,
    flatten,
    score_pool,
    shapes,
)

QUICK = Plan(widths=(1,), members=1326, extras=0)
RULES_2 = CardGuessRules(n=2)


@pytest.fixture(scope="module")
def quick_tree() -> FlatTree:
    return flatten(2, Search(2, None, QUICK).run())


def play_game(bot, answer: tuple[int, ...], rules: CardGuessRules) -> State:
    """`answer` found by the bot, refereed; the game's end (no fault: a bot's guesses are
    legal)."""
    state = State(rules, answer)
    assert referee.refereed(engine, rules, state, [bot]).faults == [None]
    return state


def walk(tree: FlatTree, answer: tuple[int, ...]) -> int:
    """Guesses the tree needs for `answer`, following the engine's feedback."""
    universe, node = hands(2), 0
    for guesses in range(1, 20):
        guess = tuple(universe.cards[tree.guess[node]].tolist())
        if guess == answer:
            return guesses
        child = tree.child(node, encode(feedback(answer, guess)))
        assert child is not None, f"the tree has no branch for {answer} after {guess}"
        node = child
    raise AssertionError("no end")


def test_the_tree_finds_every_answer_and_its_cost_is_their_mean(quick_tree):
    universe = hands(2)
    counts = [walk(quick_tree, tuple(hand)) for hand in universe.cards.tolist()]
    assert quick_tree.cost[0] == pytest.approx(np.mean(counts), abs=1e-9)
    assert quick_tree.answers[0] == 1326 and max(counts) <= 7


def test_a_wider_search_is_never_worse_and_prunes_by_its_bound():
    narrow = Search(2, None, QUICK).run()
    wide = Search(2, None, Plan(widths=(3,), members=1326, extras=0)).run()
    assert wide.cost <= narrow.cost + 1e-12


def test_the_search_beats_the_greedy_baseline_over_every_answer(quick_tree):
    greedy = make_bot("greedy", RULES_2, np.random.default_rng(0))
    answers = [tuple(h) for h in hands(2).cards.tolist()]
    mean = np.mean([len(play_game(greedy, a, RULES_2).guesses) for a in answers])
    assert quick_tree.cost[0] <= mean + 1e-12


def test_a_tree_fitted_to_a_skewed_prior_needs_fewer_guesses_under_it():
    universe = hands(2)
    face = np.isin(universe.cards // 4, [9, 10, 11]).sum(axis=1)  # J, Q, K
    prior = np.where(face == 2, 50.0, 1.0)
    skewed = flatten(2, Search(2, prior, QUICK).run())
    uniform = flatten(2, Search(2, None, QUICK).run())
    answers = [tuple(hand) for hand in universe.cards.tolist()]

    def expected(tree):
        return np.average([walk(tree, answer) for answer in answers], weights=prior)

    assert expected(skewed) == pytest.approx(skewed.cost[0], abs=1e-9)
    assert expected(skewed) < expected(uniform) - 0.1


def test_every_rule_leaves_the_winning_class_out():
    universe = hands(2)
    scores = score_pool(
        universe, np.ones(len(universe)), universe.take(np.arange(3)), expected_left
    )
    for row, guess in enumerate(universe.cards[:3].tolist()):
        codes = feedback_codes(universe, guess)
        sizes = np.bincount(codes, minlength=3125)
        sizes[winning_code(2)] = 0
        assert scores[row] == pytest.approx((sizes**2).sum() / 1326)


def test_shapes_are_equal_exactly_up_to_renaming_suits():
    universe = hands(2)
    shape = shapes(universe)
    a, b, c = (hand_index(h) for h in ((0, 5), (2, 7), (0, 4)))  # 2C 3D, 2H 3S, 2C 3C
    assert shape[a] == shape[b] and shape[a] != shape[c]


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(GUESSERS), st.integers(0, 1325), st.integers(0, 2**16))
def test_baselines_guess_only_candidates_and_find_the_answer(name, number, seed):
    answer = tuple(hands(2).cards[number].tolist())
    played = play_game(make_bot(name, RULES_2, np.random.default_rng(seed)), answer, RULES_2)
    assert played.guesses[-1] == answer
    for k, guess in enumerate(played.guesses):
        for earlier, fb in zip(played.guesses[:k], played.feedbacks[:k], strict=True):
            assert feedback(guess, earlier) == fb  # a candidate: consistent with all so far


def test_greedy_picks_the_candidate_the_handout_would():
    universe = hands(2).take(np.arange(60))
    chosen = best_candidate(universe, np.ones(60), "greedy")
    scores = score_pool(universe, np.ones(60), universe, expected_left)
    assert scores[chosen] == scores.min()


def test_an_unknown_guesser_is_refused():
    with pytest.raises(ValueError, match="unknown guesser"):
        make_bot("oracle", RULES_2, np.random.default_rng(0))

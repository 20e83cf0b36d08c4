"""Card guessing's engine: the feedback rule (the spec's examples, a plain reference, the
vectorised forms), answerers, the game and its limits, its course player, log writing."""

from __future__ import annotations

import time
from collections import Counter
from itertools import combinations
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers.cards import CardError
from mine.strategies.engines import cardguess as engine
from mine.strategies.engines import referee
from mine.strategies.engines.cardguess import (
    DEFAULT_RULES,
    CardGuessRules,
    HandSet,
    InvalidGuess,
    State,
    answer_probabilities,
    card_text,
    check_guess,
    decode,
    draw_answer,
    encode,
    feedback,
    feedback_codes,
    feedback_matrix,
    hand_index,
    hands,
    parse_card,
    parse_hand,
)
from mine.strategies.engines.state import IllegalAction

SPEC_EXAMPLES = [
    ("3C;4H", "4H;3C", (2, 0, 2, 0, 2)),
    ("3C;4H", "3C;3H", (1, 0, 1, 1, 2)),
    ("3D;3H", "3S;3C", (0, 0, 2, 0, 0)),
    ("3C;4H", "2H;3H", (0, 0, 1, 1, 1)),
    ("AC;2C", "3C;4H", (0, 1, 0, 1, 1)),
]


@pytest.mark.parametrize(("answer", "guess", "expected"), SPEC_EXAMPLES)
def test_the_specs_examples(answer, guess, expected):
    assert feedback(parse_hand(answer), parse_hand(guess)) == expected


def reference(answer: list[str], guess: list[str]) -> tuple[int, ...]:
    """The spec read literally, on card strings: nothing shared with the engine."""
    order = "23456789TJQKA"
    a_ranks = [order.index(c[0]) for c in answer]
    g_ranks = [order.index(c[0]) for c in guess]

    def multiset(xs, ys):
        return sum(min(xs.count(v), ys.count(v)) for v in set(ys))

    return (
        sum(1 for c in answer if c in guess),
        sum(1 for r in a_ranks if r < min(g_ranks)),
        multiset(a_ranks, g_ranks),
        sum(1 for r in a_ranks if r > max(g_ranks)),
        multiset([c[1] for c in answer], [c[1] for c in guess]),
    )


def two_hands(n: int):
    cards = st.lists(st.integers(0, 51), min_size=n, max_size=n, unique=True)
    return st.tuples(cards, cards)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 4).flatmap(two_hands))
def test_feedback_agrees_with_a_plain_reading_of_the_spec(pair):
    answer, guess = pair
    expected = reference([card_text(c) for c in answer], [card_text(c) for c in guess])
    assert feedback(answer, guess) == expected
    assert feedback(guess, guess) == (len(guess), 0, len(guess), 0, len(guess))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.integers(0, 2**32 - 1))
def test_vectorised_feedback_is_the_plain_feedback(n, seed):
    rng = np.random.default_rng(seed)
    universe = hands(n)
    answers = universe.take(rng.integers(len(universe), size=40))
    guesses = universe.take(rng.integers(len(universe), size=5))
    matrix = feedback_matrix(answers, guesses)
    for row, guess in enumerate(guesses.cards.tolist()):
        codes = feedback_codes(answers, guess)
        assert (codes == matrix[row]).all()
        for answer, code in zip(answers.cards.tolist(), codes.tolist(), strict=True):
            assert decode(code) == feedback(answer, guess)


@given(st.tuples(*[st.integers(0, 4)] * 5))
def test_codes_round_trip(fb):
    assert decode(encode(fb)) == fb


def test_hands_are_every_combination_in_order_and_numbered():
    for n in (2, 3):
        universe = hands(n)
        assert [tuple(h) for h in universe.cards.tolist()] == list(combinations(range(52), n))
    universe = hands(4)
    assert len(universe) == 270_725
    for i in (0, 1, 99_999, 270_724):
        assert hand_index(universe.cards[i].tolist()) == i


def test_cards_read_and_write_in_the_specs_notation():
    assert card_text(parse_card("TH")) == "TH"
    assert parse_card("2C") == 0 and parse_card("AS") == 51
    assert parse_hand("4H;3C") == parse_hand("3C;4H")
    with pytest.raises(CardError):
        parse_card("1H")
    with pytest.raises(CardError, match="repeats"):
        parse_hand("3C;3C")


@pytest.mark.parametrize(
    ("guess", "reason"),
    [([1, 1], "repeats"), ([1], "1 cards"), ([1, 52], "not a card"), (["x", 2], "not a list")],
)
def test_invalid_guesses_are_rejected(guess, reason):
    with pytest.raises(InvalidGuess, match=reason):
        check_guess(guess, 2)


def test_handset_of_any_card_order_is_the_sorted_hand():
    a = HandSet.of([[51, 0]])
    b = HandSet.of([[0, 51]])
    assert (a.cards == b.cards).all() and a.masks[0] == b.masks[0]


def scripted(*guesses, spin=0.0):
    """A player of the handout's interface that says the guesses it is told (card texts;
    the last again and again), each call spinning until `spin` CPU seconds have passed."""

    def said(k):
        started = time.process_time()
        while time.process_time() - started < spin:
            pass
        return guesses[min(k, len(guesses) - 1)], k + 1

    return SimpleNamespace(initial_guess=lambda n: said(0),
                           next_guess=lambda previous, fb: said(previous[1]))  # fmt: skip


def refereed(player, answer, rules=DEFAULT_RULES):
    state = State(rules, answer)
    return state, referee.refereed(engine, rules, state, [engine.course_player(player)])


def test_the_game_ends_when_the_answer_is_guessed_and_that_guess_counts():
    state, seen = refereed(scripted(["2C", "2D"], ["2H", "2S"], ["2S", "2H"]), (2, 3))
    assert state.guesses == ((0, 1), (2, 3)) and state.solved() and seen.faults == [None]
    assert state.feedbacks[-1] == (2, 0, 2, 0, 2) and state.returns() == (-2.0,)
    assert len(seen.times[0]) == 2  # each call of the file timed


def test_an_invalid_guess_loses_the_game():
    state, seen = refereed(scripted(["2C", "2D"], ["3H", "3H"]), (2, 3))
    assert seen.faults == ["a card repeats in 3H;3H"] == [state.lost]
    assert len(state.guesses) == 1 and state.returns() == (-101.0,)


@pytest.mark.parametrize(
    ("said", "reason"),
    [(None, "not a (guess, state)"), ("2C3C", "not a (guess, state)"),
     (iter(["2C", "3C"]), "not a (guess, state)"), (["2C", 3], "not a (guess, state)"),
     (["ZZ", "3C"], "not a card: bad card 'ZZ'"), (["2C", "3C", "4C"], "3 cards guessed")],
)  # fmt: skip
def test_a_guess_that_is_not_card_texts_loses_the_game_and_says_why(said, reason):
    player = SimpleNamespace(initial_guess=lambda n: (said, None))
    state, seen = refereed(player, (2, 3))
    assert reason in seen.faults[0] and state.lost == seen.faults[0] and not state.guesses


def test_the_guess_limit_ends_a_game_lost():
    state, seen = refereed(scripted(["2C", "2D"]), (2, 3), CardGuessRules(n=2, guess_limit=3))
    assert state.lost == "not found in 3 guesses" and seen.faults == [None]
    assert len(state.guesses) == 3 and state.returns() == (-4.0,)


def test_the_time_limit_is_a_games_and_the_call_over_it_loses_the_game():
    rules = CardGuessRules(n=2, seconds=0.05)  # each call spins for more than half of it
    state, seen = refereed(scripted(["2C", "2D"], spin=0.03), (2, 3), rules)
    assert seen.faults[0] in ("over 0.05 s after 1 guesses", "over 0.05 s after 2 guesses")
    assert state.lost == seen.faults[0] and state.returns() == (-101.0,)
    fast, _ = refereed(scripted(["2C", "2D"], ["2H", "2S"]), (2, 3), rules)
    assert fast.solved()  # a game's quick calls add up to less


def test_the_state_follows_the_rules():
    state = State(DEFAULT_RULES, (2, 3))
    assert len(state.legal_actions()) == 1326 and not state.is_terminal()
    after_number = state.clone()
    after_number.apply_action(hand_index((2, 3)))
    state.apply_action((3, 2))
    assert state == after_number
    assert state.is_terminal() and state.returns() == (-1.0,)
    with pytest.raises(IllegalAction, match="over"):
        state.apply_action((0, 1))


def test_the_faces_answerer_picks_face_cards_more_often():
    rng = np.random.default_rng(3)
    counts = Counter(card_text(c)[0] for _ in range(3000) for c in draw_answer(2, "faces", rng))
    uniform = Counter(card_text(c)[0] for _ in range(3000) for c in draw_answer(2, "uniform", rng))
    assert counts["K"] > 2 * counts["5"]
    assert uniform["K"] < 1.5 * uniform["5"]
    with pytest.raises(ValueError, match="unknown answerer"):
        draw_answer(2, "cheater", rng)


def test_exact_answer_chances_match_the_draws():
    chances = answer_probabilities(2, "faces")
    assert chances.sum() == pytest.approx(1.0)
    assert answer_probabilities(3, "uniform") == pytest.approx(1 / 22100)
    rng = np.random.default_rng(8)
    drawn = Counter(hand_index(draw_answer(2, "faces", rng)) for _ in range(40_000))
    kings = hand_index(parse_hand("KC;KD"))
    low = hand_index(parse_hand("2C;3D"))
    assert drawn[kings] / 40_000 == pytest.approx(chances[kings], rel=0.25)
    assert chances[kings] > 8 * chances[low]


def test_a_game_is_logged_as_its_rows_and_a_lost_one_is_refused():
    state, _ = refereed(scripted(["2C", "2D"], ["2H", "2S"]), (2, 3))
    turns, scores = engine.log_rows(state, 7)
    assert [(t.game, t.guess_no, t.guess, t.feedback) for t in turns] == [
        (7, 1, ("2C", "2D"), (0, 0, 2, 0, 0)), (7, 2, ("2H", "2S"), (2, 0, 2, 0, 2))]  # fmt: skip
    assert scores == [engine.Score(7, 2, ("2H", "2S"), 2)]
    lost, _ = refereed(scripted(["2C", "2D"]), (2, 3), CardGuessRules(n=2, guess_limit=2))
    with pytest.raises(ValueError, match="game 1 was lost \\(not found in 2 guesses\\)"):
        engine.log_rows(lost, 1)
    game = engine.new_game(DEFAULT_RULES, np.random.default_rng(1), ["me"], answerer="faces")
    assert game.players == ("me",) and len(game.answer) == 2

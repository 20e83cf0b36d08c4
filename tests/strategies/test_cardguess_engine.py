"""Card guessing's engine: the feedback rule (the spec's examples, a plain reference, the
vectorised forms), answerers, the game loop and its limits, log writing."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers.cards import CardError
from mine.strategies.engines.cardguess import (
    DEFAULT_RULES,
    CardGuessRules,
    GameOver,
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
    play_game,
    simulate,
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


class Scripted:
    """A guesser that says what it is told to."""

    def __init__(self, guesses):
        self.guesses = list(guesses)

    def initial_guess(self, n):
        return self.guesses[0], 1

    def next_guess(self, previous, fb):
        _, k = previous
        return self.guesses[min(k, len(self.guesses) - 1)], k + 1


def test_the_game_ends_when_the_answer_is_guessed_and_that_guess_counts():
    played = play_game(Scripted([(0, 1), (2, 3), (3, 2)]), (2, 3))
    assert played.guesses == ((0, 1), (2, 3))
    assert played.feedbacks[-1] == (2, 0, 2, 0, 2)


def test_the_game_loop_rejects_an_invalid_guess():
    with pytest.raises(GameOver, match="invalid guess 2: a card repeats"):
        play_game(Scripted([(0, 1), (5, 5)]), (2, 3))


def test_the_guess_limit_ends_a_game():
    with pytest.raises(GameOver, match="not found in 3 guesses"):
        play_game(Scripted([(0, 1)]), (2, 3), CardGuessRules(n=2, guess_limit=3))


def test_the_time_limit_ends_a_game():
    ticks = iter(range(0, 100, 6))
    with pytest.raises(GameOver, match="over 10 s"):
        play_game(Scripted([(0, 1)]), (2, 3), DEFAULT_RULES, clock=lambda: next(ticks))


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


def test_the_same_seed_writes_the_same_bytes(tmp_path):
    from mine.strategies.bots.cardguess import make_bot

    def run(folder, seed):
        simulate(CardGuessRules(n=2), ["random-consistent"], 30, seed, tmp_path / folder,
                 make_bot=make_bot, answerer="faces")  # fmt: skip
        stem = tmp_path / folder / "random-consistent-faces-n2"
        return stem.with_suffix(".csv").read_bytes(), (
            stem.parent / f"{stem.name}-score.csv"
        ).read_bytes()

    assert run("a", 5) == run("b", 5)
    assert run("a", 5) != run("c", 6)

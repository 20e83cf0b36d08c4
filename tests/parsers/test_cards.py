import pytest
from hypothesis import given
from hypothesis import strategies as st

from mine.parsers.cards import (
    DECK,
    CardError,
    format_course,
    format_guess,
    gin_rank,
    guess_rank,
    hand_value,
    parse_course,
    parse_guess,
)


def test_course_notation_is_suit_first_with_spelled_out_ranks():
    assert parse_course("SQ") == (12, "S")
    assert parse_course("H3") == (3, "H")
    assert parse_course("D10") == (10, "D")
    assert parse_course("CA") == (1, "C")


def test_guess_notation_is_rank_first_with_t_for_ten():
    assert parse_guess("QS") == parse_course("SQ")
    assert parse_guess("TS") == parse_course("S10")
    assert parse_guess("AC") == parse_course("CA")


@given(st.sampled_from(DECK))
def test_both_notations_round_trip(card):
    assert parse_course(format_course(card)) == card
    assert parse_guess(format_guess(card)) == card


@pytest.mark.parametrize(
    "text, why",
    [
        ("X9", "unknown suit 'X'"),
        ("S11", "unknown rank '11'"),
        ("S1", "unknown rank '1'"),
        ("s10", "suit 's' must be upper case"),
        ("SQQ", "unknown rank 'QQ'"),
        ("", "empty card"),
    ],
)
def test_bad_course_cards_say_which_card_and_why(text, why):
    with pytest.raises(CardError) as error:
        parse_course(text)
    assert repr(text) in str(error.value)
    assert why in str(error.value)


def test_bad_guess_cards_say_why():
    with pytest.raises(CardError, match="unknown rank '10'"):
        parse_guess("10S")
    with pytest.raises(CardError, match="suit 's' must be upper case"):
        parse_guess("Ts")


def test_rank_orders_put_aces_low_for_gin_and_high_for_guessing():
    ace, king = parse_course("SA"), parse_course("SK")
    assert gin_rank(ace) < gin_rank(king)
    assert guess_rank(ace) > guess_rank(king)


@pytest.mark.parametrize(
    "hand, total, soft",
    [
        ("SA;SK", 21, True),
        ("SA;SA", 12, True),
        ("SA;SA;S9", 21, True),
        ("SA;S5;SK", 16, False),
        ("SK;SQ;S2", 22, False),
        ("S7;H7", 14, False),
    ],
)
def test_blackjack_values(hand, total, soft):
    assert hand_value([parse_course(c) for c in hand.split(";")]) == (total, soft)


@given(st.lists(st.sampled_from(DECK), min_size=1, max_size=8))
def test_aces_count_high_only_while_the_total_stays_at_most_21(cards):
    total, soft = hand_value(cards)
    low = sum(min(c.rank, 10) for c in cards)
    has_ace = any(c.rank == 1 for c in cards)
    assert total == (low + 10 if has_ace and low + 10 <= 21 else low)
    assert soft == (has_ace and low + 10 <= 21)

"""The Gin Rummy meld solver against a brute-force enumeration, the discard rule, and the
check of declared melds."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers.cards import DECK, Card, deadwood_points, parse_course
from mine.strategies.engines.melds import (
    MeldError,
    MeldSizes,
    MeldSolver,
    all_meld_masks,
    check_melds,
    hand_mask,
    mask_cards,
    meld_kind,
    naive_deadwood,
)

SOLVER = MeldSolver()
hands = st.lists(st.sampled_from(DECK), min_size=0, max_size=11, unique=True)
# Hands drawn from a few adjacent ranks: overlapping sets and straights are the hard case.
dense = st.lists(
    st.sampled_from([c for c in DECK if 3 <= c.rank <= 8]), min_size=6, max_size=11, unique=True
)


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_course(part) for part in text.split())


@settings(max_examples=300, deadline=None)
@given(st.one_of(hands, dense))
def test_solver_matches_brute_force(hand):
    assert SOLVER.deadwood_of(hand) == naive_deadwood(hand)


def every_declared_deadwood(hand) -> set[int]:
    """By brute force: the deadwood of every set of disjoint melds the hand holds."""
    hand = list(hand)
    melds = [
        set(group)
        for n in range(3, len(hand) + 1)
        for group in combinations(hand, n)
        if meld_kind(group, MeldSizes())
    ]
    total = sum(map(deadwood_points, hand))

    def absorbed(start: int, used: set) -> set[int]:
        found = {0}
        for index in range(start, len(melds)):
            if not melds[index] & used:
                points = sum(map(deadwood_points, melds[index]))
                found |= {points + v for v in absorbed(index + 1, used | melds[index])}
        return found

    return {total - v for v in absorbed(0, set())}


@settings(max_examples=200, deadline=None)
@given(st.one_of(hands, dense))
def test_every_deadwood_a_declaration_can_leave(hand):
    found = SOLVER.deadwoods(hand_mask(hand))
    assert found == sorted(every_declared_deadwood(hand))
    assert found[0] == SOLVER.deadwood_of(hand)


@settings(max_examples=200, deadline=None)
@given(st.one_of(hands, dense))
def test_arrangement_is_a_valid_declaration_reaching_the_least_deadwood(hand):
    declared = SOLVER.melds_of(hand)
    assert check_melds(hand, declared) == SOLVER.deadwood_of(hand)
    assert sorted(card for meld in declared for card in meld) == sorted(hand)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=11, max_size=11, unique=True), st.data())
def test_best_discards_never_offer_the_drawn_card(hand, data):
    drawn = data.draw(st.sampled_from(hand))
    rest = [card for card in hand if card != drawn]
    best = SOLVER.discards_of(rest, drawn)
    assert drawn not in best.cards and best.cards
    options = {card: naive_deadwood([c for c in hand if c != card]) for card in rest}
    assert best.deadwood == min(options.values())
    assert set(best.cards) == {card for card, value in options.items() if value == best.deadwood}


@pytest.mark.parametrize(
    ("hand", "deadwood"),
    [
        ("SQ SK SA", 21),  # Q-K-A does not wrap
        ("SA S2 S3", 0),
        ("S4 S5 S6 S7 S8 S9", 0),  # six in a row: two straights of three
        ("S4 S5 S6 S7 S8 S9 S10 SJ SQ SK", 0),  # ten in a row: two of five
        ("C7 S7 D7 D8 D9", 14),  # 7♦ in the set or the straight, not both
        ("C7 S7 H7 D7 D8 D9", 0),  # set of three and the straight
        ("C7 S7 D7 D8 D9 D10", 0),  # the set takes 7♦, the straight starts at 8♦
        ("C7 S7 D7 D8 D9 HK", 24),
        ("S5 H5 D5 C5 C6 C7", 0),  # four-set broken up to free 5♣ for the straight
        ("S2 H2 D2 C2 S3 H3 D3 C3 S4 H4 D4", 0),
    ],
)
def test_known_hands(hand, deadwood):
    assert SOLVER.deadwood_of(cards(hand)) == deadwood == naive_deadwood(cards(hand))


def test_meld_tables_follow_the_spec_sizes():
    melds = all_meld_masks()
    assert len(melds) == 13 * (4 + 1) + 4 * (11 + 10 + 9)
    assert all(meld_kind(mask_cards(meld)) for meld in melds)
    assert meld_kind(cards("S2 S3 S4 S5 S6 S7")) is None  # no straight of six
    short = MeldSolver(MeldSizes(max_straight=3))
    assert (
        short.deadwood_of(cards("S2 S3 S4 S5")) == 2
        and SOLVER.deadwood_of(cards("S2 S3 S4 S5")) == 0
    )


def test_mask_round_trip():
    for card in DECK:
        assert mask_cards(hand_mask([card])) == (card,)
    assert sum(deadwood_points(c) for c in mask_cards(hand_mask(DECK))) == 340


@pytest.mark.parametrize(
    ("declared", "complete", "result"),
    [
        (["SA S2 S3", "H7 D7 C7", "HK", "S5"], True, 15),
        (["SA S2 S3", "H7 D7 C7"], False, 15),
        (["SA S2 S3", "H7 D7 C7"], True, "did not declare S5 HK"),
        (["SA S2 S3", "SA H7 D7 C7", "HK"], True, "used twice"),
        (["SA S2 S5", "H7 D7 C7", "HK"], True, "consecutive"),
        (["SA S2 H7", "D7 C7", "HK"], True, "one suit"),
        (["SA S2", "S3", "H7 D7 C7", "HK"], True, "a straight has 3 to 5"),
        (["SA S2 S3", "H7 D7", "C7", "HK"], True, "a set has 3 to 4"),
        (["SA S2 S3", "H7 D7 C7", "DK"], True, "not in the hand"),
    ],
)
def test_check_melds(declared, complete, result):
    hand = cards("SA S2 S3 S5 H7 D7 C7 HK")
    melds = [cards(meld) for meld in declared]
    if isinstance(result, int):
        assert check_melds(hand, melds, complete=complete) == result
    else:
        with pytest.raises(MeldError, match=result):
            check_melds(hand, melds, complete=complete)

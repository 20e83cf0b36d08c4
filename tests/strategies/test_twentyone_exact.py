"""TwentyOne exact values: the dealer's distribution, the optimum with unlimited re-splits,
and agreement with the vectorised evaluator and with the engine."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.strategies.bots.twentyone import ChartBot
from mine.strategies.engines.twentyone import (
    BID,
    DOUBLE,
    HIT,
    STAND,
    TwentyOneRules,
    add_points,
    classify,
    dealer_hits,
)
from mine.strategies.engines.twentyone_chart import MAIN, SPLIT_HAND, Chart
from mine.strategies.solvers.twentyone import (
    INFINITE,
    SAME_RANK,
    DealerTable,
    _optimum,
    _Solver,
    chart_value,
    class_index,
    full_shoe,
    game_of,
    solve,
)
from mine.strategies.validation.twentyone import chart_module
from mine.strategies.validation.twentyone_evaluator import FilePolicy, flat_returns
from tests.strategies.twentyone_games import play

RULES = TwentyOneRules()
CASINO = TwentyOneRules(
    charlie=False,
    double_on_combo=False,
    combo_after_split=False,
    insurance_on_side_bet=True,
    insurance_payout=3.0,
)


@cache
def optimum(rules: TwentyOneRules = RULES):
    return solve(rules)


@cache
def plain_chart() -> Chart:
    """The infinite-deck optimum without splits or insurance (what a stateless bot plays)."""
    chart = optimum().chart
    return Chart(chart.hand, np.zeros_like(chart.split), np.zeros_like(chart.insure))


@cache
def three_deck_value(rules: TwentyOneRules, which: str = "optimum") -> float:
    """A chart's exact three-deck value (seconds of work: each is worked out once here)."""
    chart = optimum(rules).chart if which == "optimum" else plain_chart()
    return chart_value(rules, chart, decks=3)


def dealer_by_recursion(up: int, rules: TwentyOneRules) -> np.ndarray:
    """The dealer's classes for an infinite deck, by plain recursion over draws."""
    out = np.zeros(25)

    def go(total: int, soft: int, n: int, p: float) -> None:
        if n >= 2 and not dealer_hits(n, total, bool(soft), rules):
            out[class_index(classify(n, total, rules, dealer=True))] += p
            return
        for value in range(1, 11):
            t, s = add_points(total, soft, 11 if value == 1 else value)
            go(t, s, n + 1, p * INFINITE[value - 1])

    go(*add_points(0, 0, 11 if up == 1 else up), 1, 1.0)
    return out


@settings(max_examples=16, deadline=None)
@given(st.integers(1, 10), st.booleans(), st.booleans(), st.booleans(), st.sampled_from([0, 5, 6]))
def test_dealer_table_matches_a_plain_recursion(up, charlie, h17, bust_first, limit) -> None:
    rules = RULES.replace(
        charlie=charlie, dealer_hits_soft_17=h17, charlie_bust_first=bust_first,
        dealer_card_limit=limit,
    )  # fmt: skip
    table = DealerTable.build(up, game_of(rules))
    exact = table.distribution(None, INFINITE)
    assert exact.sum() == pytest.approx(1.0)
    assert exact == pytest.approx(dealer_by_recursion(up, rules), abs=1e-12)
    finite = table.distribution(full_shoe(3) - np.eye(10, dtype=int)[up - 1])
    assert finite.sum() == pytest.approx(1.0)


def test_the_dealer_draws_past_five_cards() -> None:
    # with no card limit some dealer hands end with six cards or more, and those are never
    # a Charlie; with the earlier limit of five none do
    table = DealerTable.build(2, game_of(RULES))
    assert (table.sizes >= 5).any()  # cards drawn after the up card
    limited = DealerTable.build(2, game_of(RULES.replace(dealer_card_limit=5)))
    assert limited.sizes.max() == 4


def _split_by_recursion(solver: _Solver, value: int, depth: int) -> float:
    """One half of a split pair of `value` in an infinite deck, re-split at most `depth`
    more times, by explicit recursion over the cards dealt."""
    one = tuple(1 if v == value else 0 for v in range(1, 11))
    total = 0.0
    for v in range(1, 11):
        cards = tuple(c + (1 if i + 1 == v else 0) for i, c in enumerate(one))
        t, s = add_points(*add_points(0, 0, 11 if value == 1 else value), 11 if v == 1 else v)
        played = solver.best(cards, cards, t, s, 2, SPLIT_HAND)[0]
        p = INFINITE[v - 1]
        if v == value:  # the pairing card is one rank of the value's
            p -= SAME_RANK
            again = (
                max(played, 2 * _split_by_recursion(solver, value, depth - 1)) if depth else played
            )
            total += SAME_RANK * again
        total += p * played
    return total


@pytest.mark.parametrize("value", [1, 8, 10])
def test_resplits_are_the_fixed_point_of_the_recursion(value) -> None:
    solver = _Solver(game_of(RULES), None, 6, None)
    closed = solver.split(value, MAIN) / 2
    deep = _split_by_recursion(solver, value, 12)
    assert deep == pytest.approx(closed, abs=1e-8)  # what depth 12 leaves out: (2/13)^13
    once = _split_by_recursion(solver, value, 0)
    assert closed >= once - 1e-12


def test_casino_rules_give_the_basic_strategy_figure() -> None:
    """Charlie off, no Combo tricks, casino insurance: the infinite-deck basic-strategy
    return for S17 with doubling after splits and no hole-card peek is about -0.5%."""
    result = optimum(CASINO)
    assert -0.007 < result.ev < -0.003
    assert result.insurance_share == 0.0
    rows = result.chart.rows()
    assert rows["hard 16"] == "SSSSSHHHHH"
    assert rows["hard 12"] == "HHSSSHHHHH"
    assert rows["hard 11"] == "DDDDDDDDHH"  # no peek: 11 v 10 and A is a hit
    assert rows["soft 18"][:5] == "SDDDD"
    assert rows["pair 1"] == "PPPPPPPPPP"
    assert result.chart.rows(SPLIT_HAND)["pair 1"] == "PPPPPPPPPP"  # aces split again
    assert rows["pair 10"] == "----------"
    assert rows["pair 5"] == "----------"


def test_default_rules_favour_the_player() -> None:
    result = optimum()
    assert 0.05 < result.ev < 0.10
    rows = result.chart.rows()
    assert rows["soft 21"] == "D" * 10  # DoubleDown on every Combo: paid as a Combo on 2×
    assert result.insurance_share > 0  # insurance pays 2 × bid
    assert result.chart.insure[20, 0, 0]  # insure a hard 20
    # with Charlie, a four-card 14 hits where two cards stand
    assert result.chart.hand[MAIN, 6, 14, 0, 2] == HIT
    assert result.chart.hand[MAIN, 6, 14, 0, 0] == STAND
    assert DOUBLE in result.chart.hand[MAIN, :, 11, 0, 0]


def test_the_optimum_is_solved_once_and_each_caller_gets_its_own() -> None:
    rules = TwentyOneRules(charlie_cards=6)  # rules no other test has solved in this process
    first = solve(rules)
    first.chart.hand[MAIN, 6, 16, 0, 0] = DOUBLE  # a caller that writes on its answer
    again = solve(rules)
    assert again.chart.hand[MAIN, 6, 16, 0, 0] == STAND and again.ev == first.ev
    assert again.chart is not first.chart and _optimum.cache_info().hits >= 1
    assert chart_value(rules, again.chart) == pytest.approx(again.ev, abs=1e-12)


def test_evaluator_agrees_with_the_exact_values() -> None:
    for rules in (RULES, CASINO):
        result = optimum(rules)
        policy = FilePolicy(chart_module(result.chart, rules))
        for decks, exact in ((None, result.ev), (3, None)):
            flat = flat_returns({"chart": policy}, rules, 200_000, 2021, decks, "chart")
            estimate = flat["chart"]["return"]
            exact = exact if exact is not None else three_deck_value(rules)
            half = (estimate["ci95"][1] - estimate["ci95"][0]) / 2
            assert abs(estimate["mean"] - exact) < 2 * half  # about four standard errors
            assert flat["chart"]["invalid_actions"] == 0


def test_composition_dependent_optimum_beats_the_chart() -> None:
    best = solve(RULES, decks=3)
    assert best.ev >= three_deck_value(RULES) - 1e-12
    assert abs(best.ev - optimum().ev) < 0.01  # three decks are close to infinitely many


def test_engine_play_agrees_with_the_exact_value() -> None:
    """A one-seat table playing the chart in the engine (continuous 3-deck shoe, bid 10)."""
    rules = RULES.replace(rounds=1000, starting_points=100_000)
    net, hands = 0, 0
    for game in range(60):
        bot = ChartBot(plain_chart(), rules)
        state = play(rules, {"me": bot}, np.random.default_rng(game))
        net += state.points[0] - rules.starting_points
        hands += sum(1 for r in state.records for row in r.rows if row[3] == BID)
    mean = net / hands / 10
    exact = three_deck_value(RULES, "plain")
    assert abs(mean - exact) < 4 * 1.25 / np.sqrt(hands)

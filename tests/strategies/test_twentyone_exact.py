"""TwentyOne exact values: the dealer's distribution, the optimum, and agreement with the
vectorised evaluator and with the engine."""

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
    play_game,
)
from mine.strategies.solvers.twentyone import (
    INFINITE,
    MAIN,
    Chart,
    DealerTable,
    chart_value,
    class_index,
    evaluate,
    full_shoe,
    solve,
)

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
def three_deck_value(which: str) -> float:
    chart = optimum().chart if which == "optimum" else plain_chart()
    return chart_value(RULES, chart, decks=3)


def dealer_by_recursion(up: int, rules: TwentyOneRules) -> np.ndarray:
    """The dealer's classes for an infinite deck, by plain recursion over draws."""
    out = np.zeros(25)
    stop = rules.charlie_cards if rules.charlie else 64

    def go(total: int, soft: int, n: int, p: float) -> None:
        hits = n < 2 or (
            n < stop
            and (
                total < rules.dealer_stands_on
                or (rules.dealer_hits_soft_17 and total == rules.dealer_stands_on and soft)
            )
        )
        if not hits:
            out[class_index(classify(n, total, rules))] += p
            return
        for value in range(1, 11):
            t, s = add_points(total, soft, 11 if value == 1 else value)
            go(t, s, n + 1, p * INFINITE[value - 1])

    go(*add_points(0, 0, 11 if up == 1 else up), 1, 1.0)
    return out


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 10), st.booleans(), st.booleans(), st.booleans())
def test_dealer_table_matches_a_plain_recursion(up, charlie, h17, bust_first) -> None:
    rules = RULES.replace(charlie=charlie, dealer_hits_soft_17=h17, charlie_bust_first=bust_first)
    table = DealerTable.build(up, rules)
    exact = table.distribution(None, INFINITE)
    assert exact.sum() == pytest.approx(1.0)
    assert exact == pytest.approx(dealer_by_recursion(up, rules), abs=1e-12)
    finite = table.distribution(full_shoe(3) - np.eye(10, dtype=int)[up - 1])
    assert finite.sum() == pytest.approx(1.0)


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


def test_evaluator_agrees_with_the_exact_values() -> None:
    rng = np.random.default_rng(2021)
    for rules in (RULES, CASINO):
        result = optimum(rules)
        estimate = evaluate(rules, result.chart, 400_000, rng)
        assert abs(estimate.mean - result.ev) < 4 * estimate.stdev / np.sqrt(estimate.hands)
    exact = three_deck_value("optimum")
    estimate = evaluate(RULES, optimum().chart, 400_000, rng, decks=3)
    assert abs(estimate.mean - exact) < 4 * estimate.stdev / np.sqrt(estimate.hands)


def test_composition_dependent_optimum_beats_the_chart() -> None:
    best = solve(RULES, decks=3)
    assert best.ev >= three_deck_value("optimum") - 1e-12
    assert abs(best.ev - optimum().ev) < 0.01  # three decks are close to infinitely many


def test_engine_play_agrees_with_the_exact_value() -> None:
    """A one-seat table playing the chart in the engine (continuous 3-deck shoe, bid 10)."""
    rules = RULES.replace(rounds=1000, starting_points=100_000)
    net, hands = 0, 0
    for game in range(60):
        bot = ChartBot(plain_chart(), rules)
        state = play_game(rules, {"me": bot}, np.random.default_rng(game))
        net += state.points[0] - rules.starting_points
        hands += sum(1 for r in state.records for row in r.rows if row[3] == BID)
    mean = net / hands / 10
    exact = three_deck_value("plain")
    assert abs(mean - exact) < 4 * 1.25 / np.sqrt(hands)

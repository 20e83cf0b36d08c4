"""Exact Hog: the dynamic programme against brute force, simulation and the handout."""

from __future__ import annotations

from functools import cache
from itertools import product

import numpy as np
import pytest

from mine.strategies.bots.hog import BASELINES, always_roll, make_bot
from mine.strategies.engines.hog import (
    HogRules,
    as_table,
    simulate_tables,
    square_swine,
    turn_points,
)
from mine.strategies.solvers.hog import (
    TurnModel,
    best_response,
    guaranteed,
    optimal,
    roll_distribution,
    solve,
    win_rates,
)
from mine.strategies.validation.hog import report_card

RULES = HogRules()
MODEL = TurnModel.from_rules(RULES)
ALWAYS_6 = as_table(always_roll(6))


def test_square_strategy_beats_always_roll_6_about_62_percent():
    result = win_rates(MODEL, as_table(make_bot("square_strategy")), ALWAYS_6)
    assert 0.61 < result.average < 0.64  # the handout: "close to 62%"
    assert result.first > result.second


def test_a_mirror_match_is_fair_on_average():
    result = win_rates(MODEL, ALWAYS_6, ALWAYS_6)
    assert result.average == pytest.approx(0.5, abs=1e-12)
    assert result.first > 0.5  # moving first helps


def _brute_force(rules: HogRules, tables):
    """Win probability of the mover by recursion over every dice outcome."""
    goal = rules.goal

    @cache
    def win(x: int, s: int, o: int) -> float:
        ks = (
            range(rules.min_rolls, rules.max_rolls + 1)
            if tables[x] is None
            else [int(tables[x][s, o])]
        )
        best = 0.0
        for k in ks:
            throws = list(product(range(1, rules.dice_sides + 1), repeat=k))
            value = 0.0
            for outcomes in throws:
                new = square_swine(s + turn_points(k, outcomes, o, rules), rules)
                value += 1.0 if new >= goal else 1.0 - win(1 - x, o, new)
            best = max(best, value / len(throws))
        return best

    return win


@pytest.mark.parametrize("seed", [0, 1])
def test_solver_matches_brute_force_on_a_small_game(seed):
    rules = HogRules(goal=25, dice_sides=3, max_rolls=3)
    model = TurnModel.from_rules(rules)
    rng = np.random.default_rng(seed)
    a, b = (rng.integers(0, 4, size=(25, 25)) for _ in range(2))
    pair = win_rates(model, a, b)
    brute = _brute_force(rules, (a, b))
    assert pair.first == pytest.approx(brute(0, 0, 0), abs=1e-12)
    assert pair.second == pytest.approx(1 - brute(1, 0, 0), abs=1e-12)
    best = optimal(model)
    brute_best = _brute_force(rules, (None, None))
    assert best.first == pytest.approx(brute_best(0, 0, 0), abs=1e-12)
    assert best.win[0][7, 12] == pytest.approx(brute_best(0, 7, 12), abs=1e-12)
    response = best_response(model, b)
    brute_response = _brute_force(rules, (None, b))
    assert response.first == pytest.approx(brute_response(0, 0, 0), abs=1e-12)


def test_exact_win_rate_agrees_with_simulation():
    tables = (as_table(make_bot("square_strategy")), ALWAYS_6)
    exact = win_rates(MODEL, *tables).average
    _, games = simulate_tables(tables, "ab", range(40_000), np.random.default_rng(11))
    error = np.sqrt(exact * (1 - exact) / games.height)
    assert abs((games["winner"] == "a").mean() - exact) < 4 * error


def test_exact_agrees_with_simulation_on_a_variant():
    rules = HogRules(goal=120, dice_sides=8)
    model = TurnModel.from_rules(rules)
    tables = (optimal(model).table[0], as_table(always_roll(6), rules))
    exact = win_rates(model, *tables).average
    _, games = simulate_tables(tables, "ab", range(40_000), np.random.default_rng(12), rules)
    won = (games["winner"] == "a").mean()
    assert abs(won - exact) < 4 * np.sqrt(exact * (1 - exact) / games.height)


def test_points_distribution():
    dist = roll_distribution(np.full(6, 1 / 6), 10)
    assert np.allclose(dist[1:].sum(axis=1), 1)
    assert dist[1, 1:7] == pytest.approx([1 / 6] * 6)
    assert dist[2, 1] == pytest.approx(11 / 36)  # Sow Sad
    assert dist[2, 4] == pytest.approx(1 / 36)  # 2 + 2
    assert (dist[6] * np.arange(dist.shape[1])).sum() == pytest.approx(8.7027, abs=1e-4)
    plain = roll_distribution(np.full(6, 1 / 6), 2, sow_sad=False)
    assert plain[2, 2] == pytest.approx(1 / 36) and plain[2, 1] == 0


def test_best_response_beats_every_other_table_against_its_opponent():
    mixed = np.zeros((100, 100, 11))
    mixed[..., 4], mixed[..., 6], mixed[..., 0] = 0.5, 0.3, 0.2
    response = best_response(MODEL, mixed)
    for spec in (*BASELINES, "always_roll:3"):
        other = solve(MODEL, as_table(make_bot(spec)), mixed)
        assert response.first >= other.first - 1e-12
        assert response.second >= other.second - 1e-12
    # a one-hot distribution is the table itself
    one_hot = np.eye(11)[ALWAYS_6]
    assert solve(MODEL, response.table[0], one_hot).first == pytest.approx(
        win_rates(MODEL, response.table[0], ALWAYS_6).first, abs=1e-12
    )


def test_minimax_is_guaranteed_half_and_nothing_guarantees_more():
    best = optimal(MODEL)
    sure = guaranteed(MODEL, best.table[0])
    assert sure.average == pytest.approx(0.5, abs=1e-12)
    assert sure.first == pytest.approx(best.first, abs=1e-12)
    for spec in BASELINES:
        assert guaranteed(MODEL, as_table(make_bot(spec))).average < 0.5
    response = best_response(MODEL, ALWAYS_6)
    assert response.average > win_rates(MODEL, best.table[0], ALWAYS_6).average


def test_report_card_figures():
    card = report_card(ALWAYS_6, RULES, ["always_roll:6"])
    assert card["against"]["always_roll:6"]["average"] == pytest.approx(0.5)
    assert card["optimal_guaranteed"]["average"] == pytest.approx(0.5)
    assert card["best_possible_vs_always_roll_6"]["average"] > 0.7
    assert card["guaranteed"]["average"] < card["against"]["optimal"]["average"] + 1e-12


def test_model_rejects_impossible_inputs():
    with pytest.raises(ValueError):
        TurnModel(goal=10, roll_points=np.ones((3, 5)), tail=None, swine=np.arange(10))
    with pytest.raises(ValueError):
        TurnModel(goal=10, roll_points=MODEL.roll_points, tail=None, swine=np.zeros(10, dtype=int))

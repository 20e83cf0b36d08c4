"""Hog's rules, game loop and vectorised simulator."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers.hog import Turn
from mine.strategies.bots.hog import always_roll, make_bot
from mine.strategies.engines.hog import (
    HogRules,
    State,
    as_table,
    match_frames,
    play_game,
    play_match,
    roll_points,
    score_records,
    simulate_tables,
    square_swine,
    tail_points,
    turn_points,
    turn_records,
)
from mine.strategies.engines.state import TERMINAL, IllegalAction
from mine.strategies.solvers.hog import TurnModel

RULES = HogRules()


@given(st.lists(st.integers(1, 6), min_size=1, max_size=10))
def test_sow_sad_any_one_scores_exactly_one(outcomes):
    points = roll_points(outcomes, RULES)
    assert points == (1 if 1 in outcomes else sum(outcomes))
    assert roll_points(outcomes, HogRules(sow_sad=False)) == sum(outcomes)


@given(st.integers(0, 10**6))
def test_pig_tail_reads_the_last_two_digits(score):
    tens, ones = str(score).zfill(2)[-2:]
    assert tail_points(score) == 2 * abs(int(tens) - int(ones)) + 1
    assert tail_points(score) == tail_points(score % 100)
    assert 1 <= tail_points(score) <= 19


def test_pig_tail_examples_above_99():
    assert tail_points(123) == 3  # tens 2, ones 3
    assert tail_points(190) == 19
    assert tail_points(100) == 1


@given(st.integers(1, 10**6))
def test_square_swine_moves_squares_to_the_next_square(score):
    new = square_swine(score, RULES)
    root = math.isqrt(score)
    if root * root == score:
        assert new == (root + 1) ** 2
    else:
        assert new == score
    assert square_swine(score, HogRules(square_swine=False)) == score


RNG = np.random.default_rng(0)


def test_the_spec_example_turn():
    state = State(RULES, RNG, scores=(42, 31), mover=1)
    points = state.apply_roll(0, ())
    assert points == 5
    assert state.scores == (42, 49)
    assert state.mover == 0


def test_state_actions_terminal_and_returns():
    state = State(RULES, RNG)
    assert list(state.legal_actions()) == list(range(11))
    assert list(State(HogRules(pig_tail=False), RNG).legal_actions()) == list(range(1, 11))
    assert not state.is_terminal()
    with pytest.raises(IllegalAction):
        state.apply_roll(11, (2,) * 11)
    with pytest.raises(IllegalAction):
        state.apply_roll(2, (2,))
    won = State(RULES, RNG, scores=(95, 10), mover=0)
    won.apply_roll(1, (6,))
    assert won.is_terminal() and won.returns() == (1.0, -1.0) and won.winner() == 0
    assert won.current_player() == TERMINAL and list(won.legal_actions()) == []
    with pytest.raises(IllegalAction):
        won.apply_roll(1, (3,))


def test_apply_action_rolls_the_states_own_dice():
    """Chance is the state's: the dice come from the rng it was given, so two states
    with generators of the same seed play the same turn."""
    first, second = (State(RULES, np.random.default_rng(9)) for _ in range(2))
    first.apply_action(6)
    second.apply_action(6)
    assert first.scores == second.scores and first.scores[0] > 0


def _check_game_records(turns: list[Turn], rules: HogRules) -> None:
    """Every row follows the rules and continues the previous ones."""
    scores: dict[str, int] = {}
    for row in turns:
        assert row.num_rolls == len(row.outcomes)
        assert all(1 <= d <= rules.dice_sides for d in row.outcomes)
        assert row.points == turn_points(row.num_rolls, row.outcomes, row.opponent_score, rules)
        assert row.new_score == square_swine(row.score + row.points, rules)
        assert row.score == scores.get(row.player, 0)
        scores[row.player] = row.new_score
    finals = sorted([*scores.values(), 0][:2])  # a player who never moved has 0
    assert finals[0] < rules.goal <= finals[1]


def test_game_loop_follows_the_rules_and_is_seeded():
    strategies = (make_bot("square_strategy"), always_roll(6))
    first = play_game(strategies, ("a", "b"), np.random.default_rng(3))
    again = play_game(strategies, ("a", "b"), np.random.default_rng(3))
    assert first == again
    turns, score = first
    _check_game_records(turns, RULES)
    assert [t.turn for t in turns] == list(range(1, len(turns) + 1))
    assert turns[0].player == "a" and score.first_player == "a"
    last = turns[-1]
    assert score.winner == last.player and last.new_score >= 100


def test_match_alternates_the_first_player():
    turns, scores = play_match(
        (always_roll(5), always_roll(6)), ("a", "b"), 6, np.random.default_rng(0)
    )
    assert [s.first_player for s in scores] == ["a", "b"] * 3
    assert [s.game for s in scores] == list(range(1, 7))


@pytest.mark.parametrize(
    "rules",
    [
        HogRules(),
        HogRules(dice_sides=8, goal=120),
        HogRules(dice_sides=20, max_rolls=7, sow_sad=False),
    ],
)
def test_vectorised_records_follow_the_rules(rules):
    tables = (
        as_table(make_bot("square_strategy", rules), rules),
        as_table(make_bot("random:4", rules), rules),
    )
    result = simulate_tables(tables, 300, np.random.default_rng(1), rules, record=True)
    turn_frame, score_frame = match_frames(result, ("sq", "rnd"))
    turns, scores = turn_records(turn_frame), score_records(score_frame)
    by_game: dict[int, list[Turn]] = {}
    for row in turns:
        by_game.setdefault(row.game, []).append(row)
    assert sorted(by_game) == list(range(1, 301))
    for score in scores:
        game = by_game[score.game]
        _check_game_records(game, rules)
        assert [t.turn for t in game] == list(range(1, len(game) + 1))
        assert game[0].player == score.first_player == ("sq" if score.game % 2 else "rnd")
        assert game[-1].player == score.winner
        final = {t.player: t.new_score for t in game}
        assert final[score.first_player] == score.final_score_first
        table = tables[0] if game[0].player == "sq" else tables[1]
        assert game[0].num_rolls == table[0, 0]


def test_vectorised_simulation_is_seeded():
    tables = (as_table(make_bot("random:1")), as_table(always_roll(6)))
    one = simulate_tables(tables, 500, np.random.default_rng(9), record=True)
    two = simulate_tables(tables, 500, np.random.default_rng(9), record=True)
    assert one.turns.equals(two.turns)
    three = simulate_tables(tables, 500, np.random.default_rng(10), record=True)
    assert not one.turns.equals(three.turns)


def test_simulated_dice_follow_the_exact_points_distribution():
    rules = HogRules()
    result = simulate_tables(
        (as_table(always_roll(3)), as_table(always_roll(8))),
        4000,
        np.random.default_rng(2),
        rules,
        record=True,
    )
    exact = TurnModel.from_rules(rules).roll_points
    frame = result.turns
    for k in (3, 8):
        points = frame.filter(frame["num_rolls"] == k)["points"].to_numpy()
        observed = np.bincount(points, minlength=exact.shape[1]) / points.size
        # total variation of an honest sample of this size stays well below 0.05
        assert np.abs(observed - exact[k]).sum() / 2 < 0.05
        assert abs(points.mean() - (exact[k] * np.arange(exact.shape[1])).sum()) < 0.3


def test_tables_must_fit_the_rules():
    with pytest.raises(ValueError):
        as_table(np.full((99, 99), 6))
    with pytest.raises(ValueError):
        as_table(np.full((100, 100), 11))
    assert as_table(always_roll(4)).shape == (100, 100)


def test_rules_from_text_settings():
    assert HogRules().with_settings({"goal": "120", "sow_sad": "off"}) == HogRules(
        goal=120, sow_sad=False
    )
    for bad in ({"goals": "1"}, {"goal": "x"}, {"sow_sad": "maybe"}, {"dice_sides": "1"}):
        with pytest.raises(ValueError):
            HogRules().with_settings(bad)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31))
def test_random_bot_is_a_seeded_table(seed):
    one, two = make_bot(f"random:{seed}"), make_bot(f"random:{seed}")
    assert all(
        one(s, o) == two(s, o) and 0 <= one(s, o) <= 10
        for s in range(0, 100, 7)
        for o in range(0, 100, 3)
    )

"""Hog's exact tournament games with invalid plays: a strategy that answers 11 dice (or
raises) in some states loses the games that reach them, and the exact chance of that is
what the engine's own games show; such a file is not disqualified, its invalid games
are counted."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mine.strategies import tournament as core
from mine.strategies.bots.hog import make_bot
from mine.strategies.engines.hog import HogRules, State, as_table
from mine.strategies.engines.state import IllegalAction
from mine.strategies.solvers.hog import TurnModel, optimal, stuck, win_rates
from mine.strategies.tournament.match import Context, Match

RULES = HogRules(goal=40)
BAND = range(10, 20)  # my scores at which the strategy under test answers 11 dice


@pytest.fixture(scope="module")
def table():
    return optimal(TurnModel.from_rules(RULES)).table[0]


def _policy(table: np.ndarray, invalid_band: bool) -> np.ndarray:
    policy = np.eye(RULES.max_rolls + 1)[table]
    if invalid_band:
        policy[BAND.start : BAND.stop] = 0.0  # no play: an invalid one
    return policy


def _engine_games(strategies, first: int, count: int, rng) -> tuple[int, int]:
    """`count` games in the engine, side `first` moving first: side 0's wins, and games
    side 0 lost by an illegal action (the engine refuses it)."""
    won = lost = 0
    for _ in range(count):
        state, seat = State(RULES, rng), (first, 1 - first)  # seat → side
        while not state.is_terminal():
            side = seat[state.mover]
            score, opponent = state.scores[state.mover], state.scores[1 - state.mover]
            try:
                state.apply_action(strategies[side](score, opponent))
            except IllegalAction:
                lost += side == 0
                break
        else:
            won += seat[state.winner()] == 0
    return won, lost


def test_the_chance_of_an_invalid_play_is_what_the_engine_shows(table):
    model = TurnModel.from_rules(RULES)
    bot = make_bot("always_roll:6", RULES)
    a, b = _policy(table, True), _policy(as_table(bot, RULES), False)
    ended, rates = stuck(model, a, b), win_rates(model, a, b)
    assert ended[:, 1].tolist() == [0.0, 0.0]  # B always has a play
    strategies = (
        lambda s, o: 11 if s in BAND else int(table[s, o]),
        lambda s, o: int(bot.table[s, o]),
    )
    rng, count = np.random.default_rng(7), 4000
    for first, exact_win in ((0, rates.first), (1, rates.second)):
        won, lost = _engine_games(strategies, first, count, rng)
        for seen, chance in ((won, exact_win), (lost, ended[first, 0])):
            assert 0.05 < chance < 0.95  # the band is reached often, not always
            assert abs(seen / count - chance) < 4 * math.sqrt(chance * (1 - chance) / count)


def test_without_invalid_plays_nothing_is_stuck_and_with_none_at_all_everything_is(table):
    model = TurnModel.from_rules(RULES)
    valid = _policy(table, False)
    assert stuck(model, valid, valid).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    nothing = np.zeros_like(valid)
    ended = stuck(model, nothing, valid)
    # moving first, A is stuck at once; moving second, unless B wins with its first turn
    points = model.roll_points[int(table[0, 0])]
    first_turn_wins = sum(p for total, p in enumerate(points) if total >= RULES.goal or
                          model.swine[min(total, RULES.goal - 1)] >= RULES.goal)  # fmt: skip
    assert ended[0, 0] == 1.0
    assert ended[1, 0] == pytest.approx(1.0 - first_turn_wins, abs=1e-12)


@pytest.mark.parametrize(
    ("answer", "reason"),
    [("11", "returned 11 (the rules allow 0..10 dice)"),
     ("'3'", "returned '3' (the rules allow 0..10 dice)"),
     ("3.0", "returned 3.0 (the rules allow 0..10 dice)"),  # issue 42: not a whole number
     ("True", "returned True (the rules allow 0..10 dice)"),  # nor a bool, though 1 == True
     ("10 ** 5000", "returned an integer of about 5,001 digits (the rules allow 0..10 dice)"),
     ("1 // 0", "raised ZeroDivisionError: integer division or modulo by zero")],
)  # fmt: skip
def test_a_file_that_plays_invalidly_loses_those_games_and_is_not_disqualified(
    answer, reason, table, tmp_path
):
    path = tmp_path / "band.py"
    path.write_text(
        f"TABLE = {table.tolist()!r}\n\n"
        "def final_strategy(score, opponent_score):\n"
        f"    if {BAND.start} <= score < {BAND.stop}:\n"
        f"        return {answer}\n"
        "    return TABLE[score][opponent_score]\n"
    )
    match = Match("hog")
    entrants = core.entrants_of([path], ["always_roll:6"], match, Context(RULES))
    result = core.round_robin(match, entrants, 20, 0, Context(RULES))
    assert result["disqualified"] == {}
    (pairing,) = result["pairings"]
    model = TurnModel.from_rules(RULES)
    bot = _policy(as_table(make_bot("always_roll:6", RULES), RULES), False)
    ended, rates = (
        stuck(model, _policy(table, True), bot),
        win_rates(model, _policy(table, True), bot),
    )
    assert pairing["invalid"] == [pytest.approx(10 * ended[:, 0].sum(), abs=1e-5), 0]
    assert pairing["a_score_rate"] == pytest.approx(rates.average, abs=1e-6)
    assert pairing["invalid_reasons"][0] == [f"final_strategy({BAND.start}, 0) {reason}"]
    row = next(row for row in result["standings"] if row["name"] == str(path))
    assert row["invalid"] == pairing["invalid"][0] and row["plus_minus"] is None

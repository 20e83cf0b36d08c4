"""Hog's rules, its State (played by the referee), the course's interface, and the
vectorised simulator, held equal to the State path."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mine.parsers import hog as log
from mine.parsers.csvlog import line
from mine.parsers.hog import Turn
from mine.strategies.bots.hog import always_roll, make_bot
from mine.strategies.engines import hog as engine
from mine.strategies.engines import referee, simulation
from mine.strategies.engines.hog import (
    HogRules,
    State,
    as_table,
    course_player,
    log_rows,
    new_game,
    play_fast,
    roll_points,
    simulate_tables,
    square_swine,
    tail_points,
    turn_points,
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
    state.apply_action(0)  # Pig Tail: no dice
    assert state.played == [(1, 31, 42, 0, (), 5, 49)]
    assert state.scores == (42, 49)
    assert state.mover == 0


def test_state_actions_terminal_and_returns():
    state = State(RULES, RNG)
    assert list(state.legal_actions()) == list(range(11))
    assert list(State(HogRules(pig_tail=False), RNG).legal_actions()) == list(range(1, 11))
    assert not state.is_terminal()
    for illegal in (11, -1, True, 3.0, "3", None):  # only a whole number (not a bool)
        with pytest.raises(IllegalAction):
            state.apply_action(illegal)
    assert state.scores == (0, 0) and state.played == [] and state.mover == 0
    won = State(RULES, RNG, scores=(99, 10), mover=0)  # any turn scores: the game is won
    won.apply_action(1)
    assert won.is_terminal() and won.returns() == (1.0, -1.0) and won.winner() == 0
    assert won.current_player() == TERMINAL and list(won.legal_actions()) == []
    with pytest.raises(IllegalAction):
        won.apply_action(1)


def test_a_fault_loses_the_game_for_the_seat_that_made_it():
    state = new_game(RULES, RNG, ("a", "b"), swapped=True)
    assert state.current_player() == 1
    engine.FORFEIT(state, 1, "a reason")
    assert state.is_terminal() and state.winner() == 0 and state.returns() == (1.0, -1.0)


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


def _played(rules, specs, seed, swapped=False):
    """One game between the bots `specs` (ids a and b) through the referee: its rows."""
    state = new_game(rules, np.random.default_rng(seed), ("a", "b"), swapped)
    seen = referee.refereed(engine, rules, state, [make_bot(spec, rules) for spec in specs])
    assert seen.faults == [None, None]
    return log_rows(state, 1)


def test_a_game_through_the_referee_follows_the_rules_and_is_seeded():
    first = _played(RULES, ("square_strategy", "always_roll:6"), 3)
    assert first == _played(RULES, ("square_strategy", "always_roll:6"), 3)
    turns, (score,) = first
    _check_game_records(turns, RULES)
    assert [t.turn for t in turns] == list(range(1, len(turns) + 1))
    assert turns[0].player == "a" and score.first_player == "a"
    last = turns[-1]
    assert score.winner == last.player and last.new_score >= 100
    turns, (score,) = _played(RULES, ("square_strategy", "always_roll:6"), 3, swapped=True)
    assert turns[0].player == "b" == score.first_player  # the deal from the other side


def test_a_match_alternates_the_first_player(tmp_path):
    simulation.simulate("hog", RULES, ["always_roll:5", "always_roll:6"], 6, 0, tmp_path,
                        make_bot=make_bot)  # fmt: skip
    scores = list(log.read_scores(tmp_path / "hog-always_roll_5-vs-always_roll_6-s0-score.csv"))
    assert [s.first_player for s in scores] == ["always_roll:5", "always_roll:6"] * 3
    assert [s.game for s in scores] == list(range(1, 7))


@pytest.mark.parametrize("answer", ["'3'", "3.0", "True", "11", "-1", "None"])
def test_the_course_interface_answers_only_whole_numbers_of_dice_the_rules_allow(answer):
    """Issue 42: a string, a float or a bool is not a number of dice; the seat that answers
    one loses the game, the answer named."""
    player = course_player(SimpleNamespace(final_strategy=lambda score, opponent: eval(answer)))
    state = new_game(RULES, np.random.default_rng(0), ("file", "bot"))
    seen = referee.refereed(engine, RULES, state, [player, make_bot("always_roll:6")])
    assert seen.faults == [f"returned {answer} (the rules allow 0..10 dice)", None]
    assert state.played == [] and state.returns() == (-1.0, 1.0)
    valid = course_player(SimpleNamespace(final_strategy=lambda score, opponent: 4))
    state = new_game(RULES, np.random.default_rng(0), ("file", "bot"))
    seen = referee.refereed(engine, RULES, state, [valid, make_bot("always_roll:6")])
    assert seen.faults == [None, None] and state.is_terminal()
    assert {turn[3] for turn in state.played if turn[0] == 0} == {4}


@pytest.mark.parametrize(
    "rules",
    [
        HogRules(),
        HogRules(dice_sides=8, goal=120),
        HogRules(dice_sides=20, max_rolls=7, sow_sad=False),
    ],
)
def test_vectorised_records_follow_the_rules(rules, tmp_path):
    bots = [make_bot("square_strategy", rules), make_bot("random:4", rules)]
    played = play_fast(rules, bots, ("sq", "rnd"), range(300), np.random.default_rng(1))
    turns, scores = _read(tmp_path, played)
    by_game: dict[int, list[Turn]] = {}
    for row in turns:
        by_game.setdefault(row.game, []).append(row)
    assert sorted(by_game) == list(range(1, 301)) and played.rows == len(turns)
    for score, (ids, returns, faults) in zip(scores, played.games, strict=True):
        game = by_game[score.game]
        _check_game_records(game, rules)
        assert [t.turn for t in game] == list(range(1, len(game) + 1))
        assert game[0].player == score.first_player == ("sq" if score.game % 2 else "rnd")
        assert game[-1].player == score.winner == ids[returns.index(1.0)]
        assert ids == ("sq", "rnd") and faults == (None, None)
        final = {t.player: t.new_score for t in game}
        assert final[score.first_player] == score.final_score_first
        table = bots[0].table if game[0].player == "sq" else bots[1].table
        assert game[0].num_rolls == table[0, 0]


def _read(folder, played) -> tuple[list[Turn], list[log.Score]]:
    """A task's log bytes, read back with the parser."""
    ((turns, scores),) = played.logs
    (folder / "t.csv").write_bytes(turns)
    (folder / "t-score.csv").write_bytes(scores)
    return list(log.read_turns(folder / "t.csv")), list(log.read_scores(folder / "t-score.csv"))


class Recorded:
    """The dice a game rolled, dealt again in order as a state's rng draws them: the State
    path replays the vectorised games with the same chance."""

    def __init__(self, turns: list[Turn]) -> None:
        self.rolls = [turn.outcomes for turn in turns if turn.num_rolls]

    def integers(self, low: int, high: int, size: int) -> np.ndarray:
        dice = self.rolls.pop(0)
        assert len(dice) == size and all(low <= d < high for d in dice)
        return np.array(dice)


VARIANTS = [
    HogRules(),
    HogRules(goal=60, dice_sides=8),
    HogRules(dice_sides=20, max_rolls=7, sow_sad=False),  # dice drawn one by one
    HogRules(goal=50, pig_tail=False, square_swine=False),
]
SPECS = [
    "square_strategy",
    "tail_strategy",
    "always_roll:1",
    "always_roll:6",
    "random:1",
    "random:2",
]


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rules=st.sampled_from(VARIANTS),
    specs=st.lists(st.sampled_from(SPECS), min_size=2, max_size=2),
    start=st.integers(0, 20_000),
)
def test_the_vectorised_games_are_the_state_paths_games(
    tmp_path_factory, seed, rules, specs, start
):
    """The fast path writes, byte for byte, what the State path played by the referee
    writes with the same dice: the same turns and score rows, winners and returns."""
    try:
        bots = [make_bot(spec, rules) for spec in specs]
    except ValueError:  # Pig Tail off: a strategy that rolls 0 is none
        assume(False)
    ids, span = ("a", "b#2"), range(start, start + 9)
    played = play_fast(rules, bots, ids, span, np.random.default_rng(seed))
    turns, _ = _read(tmp_path_factory.mktemp("fast"), played)
    turn_lines, score_lines, games = [], [], []
    for game in span:
        dice = Recorded([turn for turn in turns if turn.game == game + 1])
        state = new_game(rules, dice, ids, swapped=game % 2 == 1)
        assert referee.refereed(engine, rules, state, bots).faults == [None, None]
        assert dice.rolls == []  # every die the fast path rolled, and no other
        rows, scores = log_rows(state, game + 1)
        turn_lines += [line(log.turn_fields(row)) for row in rows]
        score_lines += [line(log.score_fields(row)) for row in scores]
        games.append((ids, state.returns(), (None, None)))
    assert played.logs == [("".join(turn_lines).encode(), "".join(score_lines).encode())]
    assert played.games == games and played.rows == len(turn_lines)


def test_a_bot_without_a_table_leaves_the_games_to_the_state_path():
    bots = [make_bot("always_roll:6"), lambda state: 6]
    assert play_fast(RULES, bots, ("a", "b"), range(4), np.random.default_rng(0)) is None


def test_vectorised_simulation_is_seeded():
    tables = (as_table(make_bot("random:1")), as_table(always_roll(6)))
    one, _ = simulate_tables(tables, "ab", range(500), np.random.default_rng(9))
    two, _ = simulate_tables(tables, "ab", range(500), np.random.default_rng(9))
    assert one.equals(two)
    three, _ = simulate_tables(tables, "ab", range(500), np.random.default_rng(10))
    assert not one.equals(three)


def test_simulated_dice_follow_the_exact_points_distribution():
    rules = HogRules()
    tables = (as_table(always_roll(3)), as_table(always_roll(8)))
    frame, _ = simulate_tables(tables, "ab", range(4000), np.random.default_rng(2), rules)
    exact = TurnModel.from_rules(rules).roll_points
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
        one.table[s, o] == two.table[s, o] and 0 <= one.table[s, o] <= 10
        for s in range(0, 100, 7)
        for o in range(0, 100, 3)
    )

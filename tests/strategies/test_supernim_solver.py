"""Super-Nim's exact value (issue 31): R * [odd number of 2-heaps] with no cut-off, and the
exact endgame search near it, against an exhaustive cut-off search over the engine's moves."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from mine.strategies.engines.supernim import DEFAULT_RULES, SuperNimRules, canonical, moves
from mine.strategies.solvers.supernim import ExactSolver, value, value_lost

small_boards = st.lists(st.integers(1, 8), min_size=1, max_size=4).map(canonical)
boards = st.lists(st.integers(1, 40), min_size=1, max_size=8).map(canonical)


@cache
def exhaustive(board: tuple[int, ...], left: int, reward: int = 2) -> int:
    """The mover's best future margin with `left` moves to the cut-off: every engine move."""
    if not board or left == 0:
        return 0
    rules = SuperNimRules(split_reward=reward)
    return max(
        m.points - exhaustive(canonical(m.after), left - 1, reward) for m in moves(board, rules)
    )


@given(boards, st.sampled_from([1, 2, 5]))
def test_the_value_is_the_best_move_against_the_value_on_every_board(board, reward):
    """value(b) = max over moves (points - value(after)): the equation the proofs rest on."""
    rules = SuperNimRules(split_reward=reward)
    best = max(m.points - value(m.after, reward) for m in moves(board, rules))
    assert value(board, reward) == best


@settings(max_examples=60, deadline=None)
@given(small_boards, st.integers(1, 6), st.sampled_from([2, 3]))
def test_the_endgame_search_is_the_exhaustive_cut_off_search(board, left, reward):
    exact = exhaustive(board, left, reward)
    assert ExactSolver(SuperNimRules(split_reward=reward)).value(board, left) == exact
    # the mover gets the value, or R more when it moves last, or R less when the other does
    low = value(board, reward) - (0 if left % 2 else reward)
    assert low <= exact <= low + reward


def test_the_cut_off_matters_only_in_the_last_moves():
    """The first mover gets 2 less than the value on (4, 4) with 2 moves left and on (2, 8)
    with 4 left, and the value with more."""
    solver = ExactSolver()
    assert solver.value((4, 4), 2) == -2 and solver.value((2, 8), 4) == 0  # value 0 and 2
    for board in ((4, 4), (2, 8)):
        values = [solver.value(board, k) for k in range(1, 11)]
        assert values[:8] == [exhaustive(board, k) for k in range(1, 9)]
        assert values[-2:] == [value(board)] * 2  # far enough, either side moving last


@given(boards)
def test_a_move_loses_value_exactly_when_it_gives_the_other_side_more(board):
    for move in moves(board, DEFAULT_RULES):
        lost = value_lost(board.count(2), move.after.count(2), int(move.kind == "split"))
        assert 2 * lost == value(board) - (move.points - value(move.after))

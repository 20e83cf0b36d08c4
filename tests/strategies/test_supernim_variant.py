"""Super-Nim's capped-merge variant (`cap_scores`, issue 31): the rule, and its exact solver
against an exhaustive cut-off search over the engine's moves."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.strategies.bots.supernim import make_bot
from mine.strategies.engines import referee
from mine.strategies.engines.supernim import (
    MAX,
    MERGE,
    MIN,
    State,
    SuperNimRules,
    canonical,
    moves,
)
from mine.strategies.players.supernim import canonical_children, cell
from mine.strategies.solvers.supernim import HORIZON, ExactSolver, Unsolved, value

VARIANT = SuperNimRules(cap_scores=True)
boards = st.lists(st.integers(1, 40), min_size=1, max_size=7).map(tuple)
tiny_boards = st.lists(st.integers(1, 10), min_size=1, max_size=3).map(canonical)


def lost_to_cap(board: tuple[int, ...], move, cap: int = 10) -> int:
    """The sticks a merge loses to the cap (0 for any other move)."""
    if move.kind != MERGE:
        return 0
    return max(board[move.i] + board[move.j] - cap, 0)


@given(boards, st.integers(2, 30))
def test_a_merge_scores_the_sticks_it_loses_to_the_cap_and_nothing_else_changes(board, cap):
    default, variant = SuperNimRules(merge_cap=cap), SuperNimRules(merge_cap=cap, cap_scores=True)
    plain, scoring = moves(board, default), moves(board, variant)
    assert [m._replace(points=0) for m in plain] == [m._replace(points=0) for m in scoring]
    for old, new in zip(plain, scoring, strict=True):
        assert new.points == old.points + lost_to_cap(board, new, cap)
        if new.kind == MERGE:  # the points are the sticks that left the board
            assert new.points == sum(board) - sum(new.after)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_scores_under_the_variant_are_the_defaults_plus_the_capped_sticks(seed):
    """A game played under the variant, replayed move by move under the default rules:
    each side's score is its default score plus the sticks its merges lost to the cap."""
    rules = SuperNimRules(cap_scores=True, max_moves=40)
    rng = np.random.default_rng(seed)
    bots = {side: make_bot("random", rules, rng) for side in (MAX, MIN)}
    start = State(MAX, tuple(int(n) for n in rng.integers(1, 11, size=4)), rules=rules)
    final = start.clone()
    referee.play(final, [bots[MAX], bots[MIN]], referee.game_lost)
    replay, capped = start.clone(), {MAX: 0, MIN: 0}
    replay.rules = SuperNimRules(max_moves=40)
    for player, board, move, *_ in final.played:
        capped[player] += lost_to_cap(board, move)
        (default_move,) = [m for m in replay.legal_actions() if m[:4] == move[:4]]
        replay.apply_action(default_move)
    assert final.score_max == replay.score_max + capped[MAX]
    assert final.score_min == replay.score_min + capped[MIN]


@given(boards.map(canonical), st.integers(2, 30))
def test_canonical_children_keep_each_board_s_best_points(board, cap):
    rules = SuperNimRules(merge_cap=cap, cap_scores=True)
    best: dict[tuple[int, ...], int] = {}
    for move in moves(board, rules):
        after = canonical(move.after)
        best[after] = max(best.get(after, move.points), move.points)
    children = canonical_children(board, cap, rules.split_reward, True, True)
    assert {after: points for points, after, _ in children} == best


@cache
def exhaustive(board: tuple[int, ...], left: int) -> int:
    """The mover's best future margin with `left` moves to the cut-off: every engine move."""
    if not board or left == 0:
        return 0
    return max(m.points - exhaustive(canonical(m.after), left - 1) for m in moves(board, VARIANT))


@settings(max_examples=60, deadline=None)
@given(tiny_boards, st.integers(1, 5))
def test_the_variant_s_solver_is_the_exhaustive_cut_off_search(board, left):
    solver = ExactSolver(VARIANT)
    assert solver.value(board, left) == exhaustive(board, left)
    points, after = solver.choose(board, left)
    assert points - (exhaustive(after, left - 1) if after else 0) == exhaustive(board, left)


def test_the_closed_form_is_not_the_variant_s_value():
    """(10, 9): merging 9 onto 10 scores 9, where the default game's value is 0."""
    assert value((9, 10)) == 0 and ExactSolver(VARIANT).value((9, 10), 1) == 9
    assert ExactSolver().value((9, 10), 1) == 0


def test_a_position_beyond_the_node_limit_or_the_horizon_is_unsolved_not_guessed():
    with pytest.raises(Unsolved, match="needs more than 1,000 nodes"):
        ExactSolver(VARIANT, node_limit=1000).value((3, 5, 7, 9, 9, 10), 16)
    with pytest.raises(Unsolved, match="beyond the search's 30 moves"):
        ExactSolver(VARIANT).value((1, 2), HORIZON + 1)


def test_exact_plays_the_variant_only_in_games_it_can_solve():
    make_bot("exact", SuperNimRules(cap_scores=True, max_moves=HORIZON), None)
    with pytest.raises(ValueError, match="at most 30 moves"):
        make_bot("exact", VARIANT, None)


def test_the_variant_s_cell_sees_the_merge_gain_big_heaps_and_sticks():
    assert cell((2, 9, 28), 5, 10, True) == (27, 1, 3, 1, 39, 1, 5)
    assert cell((4,), 40, 10, True) == (0, 0, 1, 0, 4, 0, 12)

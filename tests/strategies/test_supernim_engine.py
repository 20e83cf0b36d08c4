"""Super-Nim's rules: the handout's examples, and properties of every successor."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.strategies.bots.supernim import parse_bot, real_move, search_player
from mine.strategies.bots.supernim_search import canonical_children
from mine.strategies.engines.supernim import (
    MAX,
    MERGE,
    MIN,
    SPLIT,
    ULAM,
    Game,
    State,
    SuperNim,
    SuperNimRules,
    canonical,
    moves,
    play,
    run_match,
)

boards = st.lists(st.integers(1, 12), min_size=1, max_size=7).map(tuple)


def test_the_handouts_examples_from_min_on_2423():
    successors = SuperNim().successors(("min", (2, 4, 2, 3), 6, 2))
    for example in (
        ("max", (6, 2, 3), 6, 2),  # first heap onto the second
        ("max", (4, 2, 5), 6, 2),  # first heap onto the last
        ("max", (2, 4, 3), 6, 4),  # min cashes in the third heap
        # split the second heap: the handout prints (2, 2, 2, 3), one 2 short of the
        # spec's own rule (4 -> 2, 2, as in its (2,4,2,5,7) -> (2,2,2,2,5,7))
        ("max", (2, 2, 2, 2, 3), 6, 2),
        ("max", (2, 4, 2, 10), 6, 2),  # Ulam step on the last, not capped
    ):
        assert example in successors


def test_the_specs_examples_on_24257():
    after = {(m.kind, m.i, m.j): (m.after, m.points) for m in moves((2, 4, 2, 5, 7))}
    assert after[(MERGE, 0, 1)] == ((6, 2, 5, 7), 0)
    assert after[(MERGE, 1, 4)] == ((2, 2, 5, 10), 0)
    assert (MERGE, 0, 2) not in after  # same size
    assert after[(ULAM, 3, None)] == ((2, 4, 2, 16, 7), 0)
    assert after[(ULAM, 1, None)] == ((2, 2, 2, 2, 5, 7), 0)
    assert after[(SPLIT, 0, None)] == ((4, 2, 5, 7), 2)


@given(boards)
def test_every_successor_follows_the_rules(board):
    rules = SuperNimRules()
    for move in moves(board, rules):
        assert 0 not in move.after
        if move.kind == MERGE:
            a, b = board[move.i], board[move.j]
            assert a != b and len(move.after) == len(board) - 1
            assert min(a + b, rules.merge_cap) in move.after
            assert sum(move.after) == sum(board) - (a + b - min(a + b, rules.merge_cap))
            assert move.points == 0
        elif move.kind == SPLIT:
            assert board[move.i] == 2 and move.points == rules.split_reward
            assert move.after == board[: move.i] + board[move.i + 1 :]
        else:
            n = board[move.i]
            assert move.points == 0 and n != 2
            grown = (3 * n + 1,) if n % 2 else (n // 2, n // 2)
            assert move.after == board[: move.i] + grown + board[move.i + 1 :]


@given(boards, st.integers(2, 15), st.integers(0, 5))
def test_caps_and_rewards_are_settings(board, cap, reward):
    rules = SuperNimRules(merge_cap=cap, split_reward=reward)
    for move in moves(board, rules):
        if move.kind == MERGE:
            assert max(move.after) <= max(max(board), cap)
        if move.kind == SPLIT:
            assert move.points == reward


@given(boards, st.randoms(use_true_random=False))
def test_canonical_successors_are_the_sorted_real_ones_whatever_the_heap_order(board, rnd):
    real = {(m.points, canonical(m.after)) for m in moves(board)}
    best = {}
    for points, after in real:
        best[after] = max(best.get(after, 0), points)
    shuffled = list(board)
    rnd.shuffle(shuffled)
    assert canonical(tuple(shuffled)) == canonical(board)
    children = canonical_children(canonical(tuple(shuffled)), 10, 2, True)
    assert {after: points for points, after, _ in children} == best
    assert len(children) == len(best)


def test_state_api_scores_the_mover_and_passes_the_turn():
    game = Game()
    state = game.initial((2, 4), MIN)
    split = next(m for m in game.legal_actions(state) if m.kind == SPLIT)
    after = game.apply_action(state, split)
    assert after == State(MAX, (4,), 0, 2, 1)
    with pytest.raises(ValueError):
        game.apply_action(after, split)
    assert game.returns(after) == (0.0, 0.0)


def test_a_game_that_empties_the_board_ends_without_a_cut_off():
    game = Game()
    final = game.apply_action(State(MAX, (2,)), moves((2,))[0])
    assert game.is_terminal(final) and not game.is_cut_off(final)
    assert game.winner(final) == MAX and game.returns(final) == (1.0, -1.0)


def test_the_move_limit_cuts_a_cycling_game_off():
    game = Game(SuperNimRules(max_moves=7))
    bots = {MAX: parse_bot("random", np.random.default_rng(1)),
            MIN: parse_bot("random", np.random.default_rng(2))}  # fmt: skip
    played = play(game, State(MAX, (5, 7, 9)), bots)
    assert len(played.steps) == 7 and game.is_cut_off(played.final)


def test_the_ulam_limit_stops_growth_and_a_board_without_moves_ends():
    game = Game(SuperNimRules(ulam_limit=1))
    state = State(MAX, (5, 5), growths=1)
    assert game.legal_actions(state) == [] and game.is_cut_off(state)
    assert game.legal_actions(State(MAX, (5, 5)))  # before the limit: 5 → 16


def test_a_repeated_position_ends_the_game_in_the_repeat_variant():
    game = Game(SuperNimRules(repeat_ends=True))
    state = State(MAX, (8,))
    for _ in range(2):  # 8 → 4,4 → (no), so cycle through merges: (3, 5) ↔ (8)…
        state = game.apply_action(state, game.legal_actions(state)[0])
    seen_before = State(state.player, state.board, seen=frozenset({state.key}))
    assert game.is_terminal(seen_before) and game.is_cut_off(seen_before)


def test_alpha_beta_takes_the_points_in_front_of_it():
    game = Game()
    state = State(MAX, (2, 5, 7))
    for depth in (1, 2, 3, 4):
        assert search_player(depth)(game, state).kind == SPLIT


def test_alpha_beta_does_not_hand_over_two_points():
    # (4, 1): splitting the 4 lets the opponent cash first; 1 onto 4 makes (5).
    game = Game()
    move = search_player(2)(game, State(MAX, (4, 3), moves=98))
    assert move.kind != ULAM or (4, 3)[move.i] != 4


def test_real_move_keeps_heap_order():
    game = Game()
    state = State(MAX, (4, 2, 5))
    move = real_move(game, state, 0, (2, 2, 2, 5))
    assert move == next(m for m in game.legal_actions(state) if m.after == (2, 2, 2, 5))


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_random_moves_are_legal(seed):
    game = Game(SuperNimRules(max_moves=30))
    rng = np.random.default_rng(seed)
    bots = {MAX: parse_bot("random", rng), MIN: parse_bot("greedy", rng)}
    played = play(game, State(MAX, (3, 6, 9, 2)), bots)
    for state, move in played.steps:
        assert move in game.legal_actions(state)


def test_same_seed_same_bytes(tmp_path):
    factories = (("random", lambda r: parse_bot("random", r)),
                 ("alphabeta:2", lambda r: parse_bot("alphabeta:2", r)))  # fmt: skip
    rules = SuperNimRules(max_moves=40)
    for folder in ("a", "b"):
        run_match(factories, 6, None, 3, rules, tmp_path / folder)
    for name in ("random-vs-alphabeta_2-s3.csv", "random-vs-alphabeta_2-s3-score.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    other = run_match(factories, 6, None, 4, rules, tmp_path / "c")
    assert other["stem"].endswith("s4")

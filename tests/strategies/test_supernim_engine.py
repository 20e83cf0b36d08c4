"""Super-Nim's rules: the handout's examples, and properties of every successor."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.strategies.bots.supernim import make_bot, real_move, search_player
from mine.strategies.engines import referee
from mine.strategies.engines import supernim as engine
from mine.strategies.engines.simulation import deal, matches, simulate
from mine.strategies.engines.state import IllegalAction
from mine.strategies.engines.supernim import (
    MAX,
    MERGE,
    MIN,
    SPLIT,
    ULAM,
    State,
    SuperNimRules,
    canonical,
    moves,
    new_game,
)
from mine.strategies.players.supernim import SuperNim, canonical_children

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


def played(state: State, bots: dict) -> State:
    """`state` played to its end by the referee between the bots of max and min."""
    referee.play(state, [bots[MAX], bots[MIN]], referee.game_lost)
    return state


def test_state_api_scores_the_mover_and_passes_the_turn():
    state = new_game(SuperNimRules(), None, swapped=True, board=(2, 4))
    split = next(m for m in state.legal_actions() if m.kind == SPLIT)
    state.apply_action(split)
    assert state == State(MAX, (4,), 0, 2, 1)
    with pytest.raises(IllegalAction):
        state.apply_action(split)
    assert state == State(MAX, (4,), 0, 2, 1) and state.returns() == (0.0, 0.0)


def test_a_game_that_empties_the_board_ends_without_a_cut_off():
    final = State(MAX, (2,))
    final.apply_action(moves((2,))[0])
    assert final.is_terminal() and not final.is_cut_off()
    assert final.winner() == MAX and final.returns() == (1.0, -1.0)


def test_the_move_limit_cuts_a_cycling_game_off():
    rules = SuperNimRules(max_moves=7)
    bots = {MAX: make_bot("random", rules, np.random.default_rng(1)),
            MIN: make_bot("random", rules, np.random.default_rng(2))}  # fmt: skip
    final = played(State(MAX, (5, 7, 9), rules=rules), bots)
    assert len(final.played) == 7 and final.is_cut_off()


def test_the_ulam_limit_stops_growth_and_a_board_without_moves_ends():
    rules = SuperNimRules(ulam_limit=1)
    state = State(MAX, (5, 5), growths=1, rules=rules)
    assert state.legal_actions() == [] and state.is_cut_off()
    assert State(MAX, (5, 5), rules=rules).legal_actions()  # before the limit: 5 → 16


def test_a_repeated_position_ends_the_game_in_the_repeat_variant():
    rules = SuperNimRules(repeat_ends=True)
    state = State(MAX, (8,), rules=rules)
    for _ in range(2):  # 8 → 4,4 → (no), so cycle through merges: (3, 5) ↔ (8)…
        state.apply_action(state.legal_actions()[0])
    seen_before = State(state.player, state.board, seen=frozenset({state.key}), rules=rules)
    assert seen_before.is_terminal() and seen_before.is_cut_off()


def test_alpha_beta_takes_the_points_in_front_of_it():
    state = State(MAX, (2, 5, 7))
    for depth in (1, 2, 3, 4):
        assert search_player(depth)(state).kind == SPLIT


def test_alpha_beta_does_not_hand_over_two_points():
    # (4, 1): splitting the 4 lets the opponent cash first; 1 onto 4 makes (5).
    move = search_player(2)(State(MAX, (4, 3), moves=98))
    assert move.kind != ULAM or (4, 3)[move.i] != 4


def test_real_move_keeps_heap_order():
    state = State(MAX, (4, 2, 5))
    move = real_move(state, 0, (2, 2, 2, 5))
    assert move == next(m for m in state.legal_actions() if m.after == (2, 2, 2, 5))


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_random_moves_are_legal(seed):
    rules = SuperNimRules(max_moves=30)
    rng = np.random.default_rng(seed)
    bots = {MAX: make_bot("random", rules, rng), MIN: make_bot("greedy", rules, rng)}
    final = played(State(MAX, (3, 6, 9, 2), rules=rules), bots)
    replay = State(MAX, (3, 6, 9, 2), rules=rules)
    for _, before, move, *_ in final.played:
        assert replay.board == before and move in replay.legal_actions()
        replay.apply_action(move)
    assert replay.is_terminal() and replay == final


def test_new_game_draws_a_random_board_from_the_rng_or_takes_the_one_given():
    rules = SuperNimRules(max_moves=20)
    drawn = [new_game(rules, np.random.default_rng(9)) for _ in range(2)]
    assert drawn[0] == drawn[1] and drawn[0].rules == rules and drawn[0].player == MAX
    assert 3 <= len(drawn[0].board) <= 6 and all(1 <= n <= 10 for n in drawn[0].board)
    assert new_game(rules, None, swapped=True, board=[2, 4]) == State(MIN, (2, 4), rules=rules)
    with pytest.raises(ValueError, match="at least one stick"):
        new_game(rules, None, board=(2, 0))


def test_simulate_plays_every_pair_and_checks_every_bot_before_a_game(tmp_path):
    rules = SuperNimRules(max_moves=20)
    with pytest.raises(ValueError, match="unknown Super-Nim bot"):
        simulate("supernim", rules, ["random", "clever"], 2, 1, tmp_path / "none",
                 make_bot=make_bot)  # fmt: skip
    assert not (tmp_path / "none").exists()
    summary = simulate("supernim", rules, ["random", "greedy", "alphabeta:1"], 4, 7,
                       tmp_path / "logs", make_bot=make_bot, board=(2, 4, 5))  # fmt: skip
    stems = [match["stem"] for match in summary["matches"]]
    assert stems == ["supernim-random-vs-greedy-s7", "supernim-random-vs-alphabeta_1-s7",
                     "supernim-greedy-vs-alphabeta_1-s7"]  # fmt: skip
    assert summary["rules"] == {"max_moves": 20} and summary["seed"] == 7
    assert sorted(p.name for p in (tmp_path / "logs").iterdir()) == sorted(
        name for stem in stems for name in (f"{stem}.csv", f"{stem}-score.csv")
    )


def test_the_two_games_of_a_deal_play_one_board_each_side_moving_first():
    rules = SuperNimRules(max_moves=20)
    (match,) = matches("supernim", ["random", "greedy"], 5)
    first, second, third = (deal(engine, rules, match, 5, g, make_bot, {})[0] for g in range(3))
    assert first.board == second.board != third.board
    assert (first.player, second.player, third.player) == (MAX, MIN, MAX)
    assert first.players == second.players == ("random", "greedy")


@settings(max_examples=200, deadline=None)
@given(boards, st.sampled_from([SuperNimRules(), SuperNimRules(merge_cap=5, cap_scores=True)]))
def test_a_move_named_is_legal_exactly_when_the_state_offers_it(board, rules):
    offered = {(m.kind, m.i, m.j): m for m in moves(board, rules)}
    heaps = range(-1, len(board) + 1)
    for kind in (MERGE, ULAM, SPLIT):
        for i in heaps:
            for j in (None, *heaps):
                assert engine.move(board, kind, i, j, rules) == offered.get((kind, i, j))

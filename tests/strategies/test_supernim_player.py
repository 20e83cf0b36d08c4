"""Super-Nim's player module (`strategies/players/supernim.py`) as code, against the engine:
its handout class and successors are the engine's moves, its plain search is the bots',
its features and leaf values are what the table is keyed by."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mine.strategies.bots.supernim import search_player
from mine.strategies.engines.supernim import MAX, MIN, State, canonical
from mine.strategies.players import supernim as player

boards = st.lists(st.integers(1, 12), min_size=1, max_size=7).map(tuple)
handouts = st.tuples(st.sampled_from([MAX, MIN]), boards, st.integers(0, 30), st.integers(0, 30))


@given(handouts)
def test_the_handout_class_and_the_players_successors_are_the_engines_moves(handout):
    state = State(*handout)
    engine = []
    for move in state.legal_actions():
        after = state.clone()
        after.apply_action(move)
        engine.append(after.handout())
    assert player.SuperNim().successors(handout) == engine
    assert [s for s, _, _ in player.successors(handout)] == engine


@given(handouts)
def test_random_move_is_a_successor_and_the_state_fixes_it(handout):
    answer = player.random_move(handout)
    assert answer in player.SuperNim().successors(handout)
    assert answer == player.random_move(tuple(handout))


@settings(max_examples=40, deadline=None)
@given(handouts, st.integers(1, 100), st.integers(1, 3))
def test_the_plain_player_moves_as_the_plain_bot(handout, left, depth):
    """Its table empty, the module's player is alpha-beta on the score difference: the
    bot's search, to the move."""
    state = State(*handout, moves=100 - left)
    move = search_player(depth)(state)
    state.apply_action(move)
    assert player.ai_move(handout, moves_left=left, depth=depth, budget=5) == state.handout()


def test_the_handout_class_scores_only_the_end():
    game = player.SuperNim()
    assert game.terminal(("max", (), 4, 2)) and not game.terminal(("max", (2,), 4, 2))
    assert [game.utility(("max", (), a, b)) for a, b in ((4, 2), (2, 4), (3, 3))] == [100, -100, 0]
    assert game.heuristic(("min", (2, 4), 6, 2)) == 4 and game.player(("min", (2,), 0, 0)) == MIN


@given(boards, st.integers(1, 100))
def test_a_cell_counts_each_feature_up_to_its_cap(board, left):
    board = canonical(board)
    counts = dict(zip(player.FEATURES, player.cell(board, left), strict=True))
    assert counts["twos"] == min(board.count(2), 5) and counts["left"] == min(left, 12)
    assert counts["odd_twos"] == board.count(2) % 2  # the parity survives the cap
    assert counts["odds"] == min(sum(n % 2 for n in board), 5)
    assert counts["heaps"] == min(len(board), 9)


def test_a_cell_never_seen_is_worth_nothing():
    board = (2, 3, 5)
    cells = {player.cell(board, left): float(left) for left in (5, 12)}
    assert player.leaf_value(board, 40, cells) == 12.0
    assert player.leaf_value(board, 5, cells) == 5.0
    assert player.leaf_value((4, 4), 40, cells) == 0.0

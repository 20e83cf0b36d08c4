"""The State API has teeth: for every game of the registry, random legal playouts from any
seed end, keep the conventions of `strategies/engines/state.py`, and return what they
promise; an illegal action raises IllegalAction and changes nothing."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mine import games
from mine.strategies.engines.state import TERMINAL, GameState, IllegalAction

ENGINES = [game.name for game in games.with_part("engine")]
MAX_ACTIONS = 200_000  # far beyond any game's length: a playout that reaches it never ends


def engine(name: str):
    return games.get(name).module("engine")


def playout(name: str, seed: int) -> tuple[GameState, int]:
    """A game played to its end by uniformly random legal actions; the state and the
    number of actions."""
    module = engine(name)
    rng = np.random.default_rng(seed)
    state = module.new_game(module.DEFAULT_RULES, np.random.default_rng(seed + 1))
    assert isinstance(state, GameState)
    for actions in range(MAX_ACTIONS):
        if state.is_terminal():
            return state, actions
        assert state.returns() == (0.0,) * state.num_players()
        seat = state.current_player()
        assert 0 <= seat < state.num_players()
        legal = list(state.legal_actions())
        assert legal, "a state that is not over offers an action"
        state.apply_action(legal[int(rng.integers(len(legal)))])
    raise AssertionError(f"{name}: a random playout did not end in {MAX_ACTIONS} actions")


@pytest.mark.parametrize("name", ENGINES)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_legal_playouts_end_with_valid_returns(name, seed):
    module = engine(name)
    state, _ = playout(name, seed)
    assert state.current_player() == TERMINAL
    assert list(state.legal_actions()) == []
    returns = state.returns()
    assert isinstance(returns, tuple) and len(returns) == state.num_players()
    assert all(isinstance(r, float) and math.isfinite(r) for r in returns)
    if module.ZERO_SUM:
        assert sum(returns) == 0.0 and set(returns) <= {-1.0, 0.0, 1.0}


@pytest.mark.parametrize("name", ENGINES)
def test_the_seed_fixes_the_game(name):
    first, n = playout(name, 7)
    again, m = playout(name, 7)
    assert n == m and first.returns() == again.returns()


@pytest.mark.parametrize("name", ENGINES)
def test_clone_is_independent(name):
    module = engine(name)
    state = module.new_game(module.DEFAULT_RULES, np.random.default_rng(3))
    copy = state.clone()
    before = pickle.dumps(copy)
    state.apply_action(list(state.legal_actions())[0])
    assert pickle.dumps(copy) == before


@pytest.mark.parametrize("name", ENGINES)
def test_an_illegal_action_raises_and_changes_nothing(name):
    module = engine(name)
    state = module.new_game(module.DEFAULT_RULES, np.random.default_rng(5))
    before = pickle.dumps(state)
    with pytest.raises(IllegalAction):
        state.apply_action(object())  # no game takes this as an action
    assert pickle.dumps(state) == before

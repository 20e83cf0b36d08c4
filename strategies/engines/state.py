"""The State API every engine implements: OpenSpiel's, with one convention for each choice.

A game is played through one object, as in OpenSpiel's Python games
(`open_spiel/python/games/kuhn_poker.py`):

    state = engine.new_game(rules, rng)          # chance is drawn from this seeded rng
    while not state.is_terminal():
        seat = state.current_player()
        state.apply_action(choose(state.legal_actions()))
    state.returns()                              # one float per player, seat order

The conventions, the same in every engine:

- **Mutability**: `apply_action` changes the state in place and returns None;
  `clone()` is an independent copy (search and tests branch from it).
- **Chance** is passed in: `new_game(rules, rng, ...)` takes a seeded
  `numpy.random.Generator` and every chance event (a shuffle, a die, a deal) is drawn from
  it inside the state, so the seed fixes the game and no player sees the rng.
- **An illegal action** raises `IllegalAction` (a ValueError) whose message says why, and
  leaves the state as it was. What it costs the player (the game lost, a disqualification)
  is the referee's decision, not the state's (`referee.py`).
- **Returns** are a tuple of floats, one per player in seat order: all 0.0 until the game
  is over, then what the game pays each player, in the unit the engine's `UTILITY` names.
  A two-player zero-sum game (`ZERO_SUM`) pays +1 / -1 (0 each for a draw).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, Self, runtime_checkable

TERMINAL = -1
"""`current_player()` once the game is over."""


class IllegalAction(ValueError):
    """An action the rules do not allow in this situation; the message says why."""


@runtime_checkable
class GameState(Protocol):
    """What every engine's `State` provides."""

    def current_player(self) -> int:
        """The seat to act (0-based), or TERMINAL."""

    def legal_actions(self) -> Sequence[Any]:
        """Every action the player to act may take (empty once the game is over)."""

    def apply_action(self, action: Any) -> None: ...

    def is_terminal(self) -> bool: ...

    def returns(self) -> tuple[float, ...]: ...

    def num_players(self) -> int: ...

    def clone(self) -> Self: ...

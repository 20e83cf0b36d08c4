"""The referee: a game played out between players, every call of a player checked.

What a course engine does around the players — call each through the course's interface,
time the call, check the memory it hands back, apply its action — and what a fault costs,
in one place for every game. The state only knows the rules (an illegal action raises
`IllegalAction` and changes nothing, `state.py`); the referee decides what breaking them
costs, by the game's forfeit policy.

`play(state, players, limits, forfeit, words=WORDS)` plays `state` (a `GameState`) to its
end and returns each seat's last memory. The game's engine gives it:

- `players`, one per seat, each one of:
  - a `Call`, the game's adapter around a player's functions: `call(state, seat,
    memory) -> (function, arguments, read)` says which function the seat's player is
    asked (a game with phases asks different ones), with what the course's interface
    shows it (its hand, the scores, `memory`: what it returned last time, None at first);
    the referee times `function(*arguments)` alone and hands its result to `read`, which
    returns (action, memory) — or raises `Fault(reason)` for a result of the wrong shape,
    the player's fault; memory `KEEP` for a function that returns none (Gin Rummy's
    `melds`): the seat keeps the memory it had;
  - a `Trusted` player: the engine's own code (a table look-up bot) that plays its seat's
    decision itself, `move(state) -> None | reason` (the reason a fault of its own: an
    action it chose is not legal) — no clock, no memory: the fast path of simulations;
- `limits` (`Limits`): a call must return in less than `seconds` of wall time, and the
  memory it returns must be text of at most `memory_chars` characters;
- `forfeit(state, seat, reason)`: the forfeit policy, what a fault costs. The two the
  courses use: `seat_out` (`state.disqualify(seat, reason)`: the seat leaves the game, its
  stakes forfeited, its points frozen, the others play on — TwentyOne) and `game_lost`
  (`state.forfeit(seat, reason)`: the game ends there and the seat loses it — Gin Rummy);
- `words` (`Words`): how the faults read (each course engine words them its own way).

The faults of a call, in the order they are checked: it raised (`words.raised`); it took
`limits.seconds` or more (`words.slow`); its result was not of the interface's shape
(`read`'s `Fault`); the memory is not text (`words.not_text`) or longer than the limit
(`words.too_long`); the action is not legal (the state's `IllegalAction`, its reason). The
first fault found is forfeited and the game goes on as the policy leaves it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mine.strategies.engines.state import GameState, IllegalAction

Forfeit = Callable[[Any, int, str], None]
Read = Callable[[Any], tuple[Any, Any]]
Call = Callable[[Any, int, str | None], tuple[Callable[..., Any], tuple[Any, ...], Read]]


KEEP = object()  # what a `Read` gives as the memory of a call that returns none


class Fault(Exception):
    """Raised by a `Read` when a player's result is not of the interface's shape."""


class Trusted:
    """A player the engine trusts to play its own seat's decision (no clock, no memory)."""

    def move(self, state: Any) -> str | None:
        """Play the current decision; None, or why the action chosen is not legal."""
        raise NotImplementedError


@dataclass(frozen=True)
class Limits:
    seconds: float = math.inf  # a call must return in less than this (wall clock)
    memory_chars: int = 10_000  # the memory returned: text of at most this many characters


@dataclass(frozen=True)
class Words:
    """How each fault reads; fields are formatted with the names in braces."""

    raised: str = "raised {kind}: {error}"
    slow: str = "took {seconds:.3f} s (limit {limit:g} s)"
    not_text: str = "memory is {kind}, not a string"
    too_long: str = "memory of {length} characters (limit {limit})"


WORDS = Words()


def seat_out(state: Any, seat: int, reason: str) -> None:
    """The seat leaves the game (its stakes forfeited); the others play on."""
    state.disqualify(seat, reason)


def game_lost(state: Any, seat: int, reason: str) -> None:
    """The game ends at the fault, lost by the seat that made it."""
    state.forfeit(seat, reason)


def play(
    state: GameState,
    players: Sequence[Call | Trusted],
    limits: Limits,
    forfeit: Forfeit,
    words: Words = WORDS,
    clock: Callable[[], float] = time.perf_counter,
) -> list[str | None]:
    """Play `state` to its end between `players` (seat order); each seat's last memory."""
    memories: list[str | None] = [None] * len(players)
    moves = [p.move if isinstance(p, Trusted) else None for p in players]
    over, current = state.is_terminal, state.current_player  # bound once: the loop is hot
    while not over():
        seat = current()
        move = moves[seat]
        if move is not None:
            reason = move(state)
        else:
            reason = call(state, seat, players[seat], memories, limits, words, clock)  # type: ignore[arg-type]
        if reason is not None:
            forfeit(state, seat, reason)
    return memories


def call(
    state: GameState,
    seat: int,
    player: Call,
    memories: list[str | None],
    limits: Limits,
    words: Words = WORDS,
    clock: Callable[[], float] = time.perf_counter,
) -> str | None:
    """One checked call of `seat`'s player, its action applied: None, or the fault."""
    function, arguments, read = player(state, seat, memories[seat])
    started = clock()
    try:
        result = function(*arguments)
    except Exception as error:  # a player's crash is its own fault, not the table's
        return words.raised.format(kind=type(error).__name__, error=error)
    elapsed = clock() - started
    if elapsed >= limits.seconds:
        return words.slow.format(seconds=elapsed, limit=limits.seconds)
    try:
        action, memory = read(result)
    except Fault as wrong:
        return str(wrong)
    if memory is KEEP:
        memory = memories[seat]
    elif not isinstance(memory, str):
        return words.not_text.format(kind=type(memory).__name__)
    elif len(memory) > limits.memory_chars:
        return words.too_long.format(length=len(memory), limit=limits.memory_chars)
    try:
        state.apply_action(action)
    except IllegalAction as illegal:
        return str(illegal)
    memories[seat] = memory
    return None

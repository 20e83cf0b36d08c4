"""The referee: a game played out between its seats, every move checked, every fault charged.

One loop for every game and every use (simulation, validation, tournaments): what a course
engine does around its players — ask each in turn, time the call, check the memory it hands
back, apply its action — and what a fault costs, by the game's forfeit policy. The state
only knows the rules (an illegal action raises `IllegalAction` and changes nothing,
`state.py`); the referee decides what breaking them costs.

A seat is one of:

- a **bot**, the engine's own code: any callable `bot(state) -> action` (one of
  `state.legal_actions()`), made by the game's `make_bot`. It is not timed and keeps no
  memory; an action the state refuses is its fault like any other;
- a **course player**, a player file (or any function with the course's interface) behind
  its engine's adapter, a `Course`: `ask(state, seat, memory) -> (function, arguments,
  read)` says which of the player's functions the course calls now (a game with phases
  asks different ones) with what the course's interface shows it; the referee times
  `function(*arguments)` alone and hands its result to `read`, which returns (action,
  memory) — or raises `Fault(reason)` for a result of the wrong shape. Memory `KEEP`: a
  function that returns none (Gin Rummy's `melds`); the seat keeps what it had.

The faults of a call, in the order they are checked: it raised (`words.raised`); it ran
over the time limit (`words.slow`); its result was not of the interface's shape (`read`'s
`Fault`); the memory is not text (`words.not_text`) or longer than the limit
(`words.too_long`); the action is not legal (the state's `IllegalAction`, its reason).
The time limit counts the CPU time the call took, as a player on an idle machine would
spend it, so that a busy machine does not fault a player for its neighbours' work; wall
time ends a call only at `limits.wall_factor` times the limit (a player that sleeps or
blocks). The first fault found is forfeited (`forfeit(state, seat, reason)`) and the game
goes on as the policy leaves it: `seat_out` (TwentyOne: the seat leaves the game, its
stakes forfeited, the others play on) or `game_lost` (the game ends there, lost by the
seat). Each seat's first fault is in the result.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mine import inputs
from mine.strategies.engines.state import GameState, IllegalAction

Bot = Callable[[Any], Any]
Forfeit = Callable[[Any, int, str], None]
Read = Callable[[Any], tuple[Any, Any]]
KEEP = object()  # what a `Read` gives as the memory of a call that returns none


class Fault(Exception):
    """Raised by a `Read` when a player's result is not of the interface's shape."""


Ask = Callable[[Any, int, str | None], tuple[Callable[..., Any], tuple[Any, ...], Read]]


class Course:
    def __init__(self, ask: Ask) -> None:
        self.ask = ask


@dataclass(frozen=True)
class Limits:
    seconds: float = math.inf  # CPU seconds a call may take (it must take less)
    memory_chars: int = 10_000  # the memory returned: text of at most this many characters
    wall_factor: float = 10.0  # a call ends at this many times `seconds` of wall time


@dataclass(frozen=True)
class Words:
    """How each fault reads; fields are formatted with the names in braces."""

    raised: str = "raised {kind}: {error}"
    slow: str = "took {seconds:.3f} s (limit {limit:g} s)"
    not_text: str = "memory is {kind}, not a string"
    too_long: str = "memory of {length} characters (limit {limit})"


WORDS = Words()


PLAIN_DEPTH = 4  # the deepest answer of an interface: Gin Rummy's ((act, card), memory)
_BUILTIN = (bool, int, float, str)
_VALUE = {int: int.__index__, float: float.__float__, str: str.__str__}  # the builtin's reading


def plain(answer: Any, depth: int = PLAIN_DEPTH) -> Any:
    """`answer` rebuilt of builtin values alone (None, bool, int, float, str, and tuples
    and lists of them; a numpy scalar as its Python value) by the builtin types' own
    methods: a player's answer of classes of its own (a `str` whose `__eq__` lies or
    raises, an `int` whose `__rsub__` returns what it likes) runs none of their code in the
    engine, nor reaches the other seat through the state. `Fault` for anything else."""
    if answer is None or type(answer) in _BUILTIN:
        return answer
    for kind, value in _VALUE.items():  # a subclass: its value, as the builtin type reads it
        if isinstance(answer, kind):
            return value(answer)
    if isinstance(answer, np.generic):
        return plain(np.generic.item(answer), 0)
    if depth > 0 and (parts := items(answer)) is not None:
        rebuilt = [plain(item, depth - 1) for item in parts]
        return tuple(rebuilt) if isinstance(answer, tuple) else rebuilt
    name = inputs.type_name(answer)[:60]
    raise Fault(f"answered a {name}, not plain values (None, bool, int, float, str, and "
                f"tuples and lists of them, {PLAIN_DEPTH} deep at most)")  # fmt: skip


def items(answer: Any) -> tuple | None:
    """The items of a tuple or list answer as the builtin type holds them (a subclass's
    `__len__`, `__iter__` or `__getitem__` never runs), or None for anything else."""
    for kind in (tuple, list):
        if isinstance(answer, kind):
            return tuple(kind.__getitem__(answer, slice(None)))
    return None


def raised(error: BaseException, words: Words = WORDS) -> str:
    """The fault of a player whose code raised `error`, in one line: its message is the
    file's code too, and may itself raise or run to megabytes (`inputs.raised`)."""
    kind, text = inputs.raised(error)
    return words.raised.format(kind=kind, error=text)


@dataclass
class Refereed:
    """What the referee saw of a game: each seat's last memory, its first fault (None:
    none) and the seconds of each of its calls (a course player's; a bot's are not timed)."""

    memories: list[str | None]
    faults: list[str | None]
    times: list[list[float]] = field(default_factory=list)


def seat_out(state: Any, seat: int, reason: str) -> None:
    """The seat leaves the game (its stakes forfeited); the others play on."""
    state.disqualify(seat, reason)


def game_lost(state: Any, seat: int, reason: str) -> None:
    """The game ends at the fault, lost by the seat that made it."""
    state.forfeit(seat, reason)


def play(
    state: GameState,
    seats: Sequence[Bot | Course],
    forfeit: Forfeit,
    limits: Limits = Limits(),
    words: Words = WORDS,
) -> Refereed:
    """Play `state` to its end between `seats` (seat order)."""
    seen = Refereed([None] * len(seats), [None] * len(seats), [[] for _ in seats])
    over, current = state.is_terminal, state.current_player  # bound once: the loop is hot
    while not over():
        seat = current()
        player = seats[seat]
        if isinstance(player, Course):
            reason = call(state, seat, player, seen, limits, words)
        else:
            try:
                state.apply_action(player(state))
                continue
            except IllegalAction as illegal:
                reason = str(illegal)
        if reason is not None:
            if seen.faults[seat] is None:
                seen.faults[seat] = reason
            forfeit(state, seat, reason)
    return seen


def refereed(engine: Any, rules: Any, state: GameState, seats: Sequence[Bot | Course]) -> Refereed:
    """`play` on the terms of the game's engine: its forfeit policy (`FORFEIT`), its limits
    for the rules (`limits(rules)`, none where it has no such verb) and its wording
    (`WORDS`)."""
    limits = engine.limits(rules) if hasattr(engine, "limits") else Limits()
    return play(state, seats, engine.FORFEIT, limits, getattr(engine, "WORDS", WORDS))


def call(
    state: GameState, seat: int, player: Course, seen: Refereed, limits: Limits, words: Words
) -> str | None:
    """One checked call of `seat`'s course player, its action applied: None, or the fault."""
    function, arguments, read = player.ask(state, seat, seen.memories[seat])
    started, cpu = time.perf_counter(), time.process_time()
    try:
        result = function(*arguments)
    except Exception as error:  # a player's crash is its own fault, not the table's
        return raised(error, words)
    wall, spent = time.perf_counter() - started, time.process_time() - cpu
    seen.times[seat].append(spent)
    if spent >= limits.seconds or wall >= limits.seconds * limits.wall_factor:
        return words.slow.format(seconds=max(spent, wall / limits.wall_factor),
                                 limit=limits.seconds)  # fmt: skip
    try:
        action, memory = read(result)
    except Fault as wrong:
        return str(wrong)
    if memory is KEEP:
        memory = seen.memories[seat]
    elif not isinstance(memory, str):
        return words.not_text.format(kind=inputs.type_name(memory))
    elif len(memory := str.__str__(memory)) > limits.memory_chars:  # a subclass's __len__ lies
        return words.too_long.format(length=len(memory), limit=limits.memory_chars)
    try:
        state.apply_action(action)
    except IllegalAction as illegal:
        return str(illegal)
    seen.memories[seat] = memory
    return None

"""A Haskell file against the Python file of the same table: the Python file plays whole
games in our engine, every call it gets is recorded with its answer, then the Haskell
program (built by `build`) is asked the same calls in one run and every answer compared.

Feeding the Haskell program the recorded calls is the same as letting it play: each call
carries the memory the engine handed back (the Python file's last answer), and as long
as every answer is equal, memory included, the games it would have played are these.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from mine.strategies.bots.ginrummy import make_bot as gin_bot
from mine.strategies.bots.twentyone import make_bot as table_bot
from mine.strategies.engines import cardguess as guessing
from mine.strategies.engines import ginrummy as gin
from mine.strategies.engines import referee
from mine.strategies.engines import twentyone as table
from mine.strategies.haskell import protocol

SHOWN = 5  # mismatches kept for the message


class Comparison(NamedTuple):
    calls: int
    mismatches: int
    first: tuple[tuple[str, Any, Any], ...]  # (request, Python's answer, Haskell's), a few
    kinds: Counter  # answers by kind (actions, draws, calls, guesses)
    nanoseconds: tuple[int, ...]  # each call's time inside the Haskell program
    python_nanoseconds: tuple[int, ...]  # each call's time in the Python file
    longest_memory: int  # characters, over every memory returned


class Call(NamedTuple):
    request: str  # the line the Haskell program is asked
    expected: Any  # the Python file's answer, as the protocol reads the Haskell one
    kind: str
    memory: int  # length of the memory returned (0 where none is)
    nanoseconds: int  # the Python file's time on it


def timed(function: Callable, *args: Any) -> tuple[Any, int]:
    """The function's answer and the nanoseconds it took."""
    started = time.perf_counter_ns()
    answer = function(*args)
    return answer, time.perf_counter_ns() - started


def compare(program: Path, calls: Sequence[Call], answer: Callable[[str, Any], Any]) -> Comparison:
    """Ask `program` every call's request; `answer(kind, reply)` reads a reply."""
    replies = protocol.ask(program, [call.request for call in calls])
    wrong = []
    for call, reply in zip(calls, replies, strict=True):
        got = answer(call.kind, reply)
        if got != call.expected:
            wrong.append((call.request, call.expected, got))
    return Comparison(
        len(calls),
        len(wrong),
        tuple(wrong[:SHOWN]),
        Counter(call.kind for call in calls),
        tuple(reply.nanoseconds for reply in replies),
        tuple(call.nanoseconds for call in calls),
        max((call.memory for call in calls), default=0),
    )


# --- TwentyOne ----------------------------------------------------------------------------


def twentyone_calls(
    module: ModuleType,
    games: int,
    seed: int,
    seats: int = 3,
    rules: table.TwentyOneRules = table.DEFAULT_RULES,
) -> list[Call]:
    """Every call of `seats` copies of the Python file in full games, beside a textbook
    and a random bot (splits, doubles and insurance all come up)."""
    calls: list[Call] = []

    def recorded(*args):
        (action, memory), ns = timed(module.play, *args)
        name = type(action).__name__
        expected = (name, getattr(action, "amount", 0), memory)
        calls.append(Call(protocol.twentyone_play(*args), expected, name, len(memory), ns))
        return action, memory

    for game in range(games):
        rng = np.random.default_rng([seed, game])
        players: dict[str, Any] = {f"file{k}": recorded for k in range(seats)}
        players["textbook"] = table_bot("textbook", rules, rng)
        players["random"] = table_bot("random", rules, rng)
        state = table.new_game(rules, rng, list(players))
        seated = [table.course_player(p) if p is recorded else p
                  for p in map(players.get, state.players)]  # fmt: skip
        referee.refereed(table, rules, state, seated)
        if any(state.disqualified[state.players.index(f"file{k}")] for k in range(seats)):
            raise AssertionError(f"the Python file was disqualified: {state.disqualified}")
    return calls


def twentyone(program: Path, module: ModuleType, games: int, seed: int) -> Comparison:
    calls = twentyone_calls(module, games, seed)
    return compare(program, calls, lambda _, reply: protocol.twentyone_answer(reply))


# --- Gin Rummy ----------------------------------------------------------------------------

BASELINES = ("simple", "random", "ginhunter")


class _Recorded:
    """The Python file's three functions, each call recorded."""

    def __init__(self, module: ModuleType, calls: list[Call]):
        self.module, self.calls = module, calls

    def pick(self, *args):
        (draw, memory), ns = timed(self.module.pick, *args)
        request = protocol.ginrummy_pick(*args)
        self.calls.append(Call(request, (draw, memory), draw, len(memory), ns))
        return draw, memory

    def play(self, *args):
        ((act, card), memory), ns = timed(self.module.play, *args)
        request = protocol.ginrummy_play(*args)
        self.calls.append(Call(request, ((act, card), memory), act, len(memory), ns))
        return (act, card), memory

    def melds(self, *args):
        melds, ns = timed(self.module.melds, *args)
        expected = [tuple(meld) for meld in melds]
        self.calls.append(Call(protocol.ginrummy_melds(*args), expected, "melds", 0, ns))
        return melds


def ginrummy_calls(
    module: ModuleType, games: int, seed: int, opponents: Sequence[str] = BASELINES
) -> list[Call]:
    """Every call of the Python file in full games against each of `opponents` (the
    baselines by default) in turn, seats alternating."""
    rules = gin.DEFAULT_RULES
    calls: list[Call] = []
    for game in range(games):
        rng = np.random.default_rng([seed, game])
        opponent = gin_bot(opponents[game % len(opponents)], rules, rng)
        me = game % 2
        recorded = gin.course_player(_Recorded(module, calls))
        seats = [recorded, opponent] if me == 0 else [opponent, recorded]
        seen = referee.refereed(gin, rules, gin.new_game(rules, rng), seats)
        if seen.faults[me] is not None:
            raise AssertionError(f"the Python file played invalidly: {seen.faults[me]}")
    return calls


def _gin_answer(kind: str, reply: protocol.Reply) -> Any:
    if kind in ("stock", "discard"):
        return protocol.ginrummy_pick_answer(reply)
    if kind == "melds":
        return [cards for _, cards in protocol.ginrummy_melds_answer(reply)]
    return protocol.ginrummy_play_answer(reply)


def ginrummy(
    program: Path, module: ModuleType, games: int, seed: int, opponents: Sequence[str] = BASELINES
) -> Comparison:
    return compare(program, ginrummy_calls(module, games, seed, opponents), _gin_answer)


# --- card guessing ------------------------------------------------------------------------


def cardguess_calls(module: ModuleType, n: int, answers: Iterable[Sequence[int]]) -> list[Call]:
    """Every guess of the Python file for each answer, game by game: `initial`, then
    `next` with the engine's feedback until the guess is the answer (at most the rules'
    guess limit)."""
    limit = guessing.CardGuessRules(n=n).guess_limit
    calls: list[Call] = []
    kind = f"n={n}"
    for answer in answers:
        (guess, state), ns = timed(module.initial_guess, n)
        calls.append(Call(protocol.cardguess_initial(n), list(guess), kind, 0, ns))
        for _ in range(limit - 1):
            cards = [guessing.parse_card(text) for text in guess]
            if sorted(cards) == sorted(answer):
                break
            numbers = guessing.feedback(answer, cards)
            (guess, state), ns = timed(module.next_guess, (guess, state), numbers)
            calls.append(Call(protocol.cardguess_next(numbers), list(guess), kind, 0, ns))
    return calls


def cardguess(
    program: Path, module: ModuleType, n: int, answers: Iterable[Sequence[int]]
) -> Comparison:
    calls = cardguess_calls(module, n, answers)
    return compare(program, calls, lambda _, reply: protocol.cardguess_guess(reply))

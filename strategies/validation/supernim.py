"""A Super-Nim player file measured on its own functions, in the reference engine.

The file is loaded through `strategies.player_file` in contained worker processes
(`strategies.contained`: time limits on import and calls, memory limit), and only `_ask`
calls into it. Each opponent plays `games` games from random start
boards: every board four times (the file as max and as min, each side moving first once).
An answer that is not one of the handout's successors of the state is an invalid move: it
is counted and the file loses that game. Figures: win / draw / loss with Wilson 95 %
intervals, cut-off rate, mean final margin (the file's side), invalid moves, and the 99th
percentile of the time `ai_move` took.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from mine.models.supernim import Fitted
from mine.strategies import contained
from mine.strategies.bots.supernim import parse_bot
from mine.strategies.codegen import supernim as codegen
from mine.strategies.engines.supernim import (
    DEFAULT_RULES,
    MAX,
    MIN,
    Game,
    State,
    other,
    random_board,
)
from mine.strategies.intervals import wilson
from mine.strategies.player_file import load_module

FUNCTIONS = ("ai_move", "random_move")
CHECK_GAMES = 40  # games per opponent behind the figures `mine generate` writes in
CHECK_OPPONENTS = ("random", "greedy", "alphabeta:2")
# The handout allows a minute a move; generated players take at most 1 s (0.2 s by
# default). 10 s ends a file that loops without calling a busy machine's stall a fault.
LIMITS = contained.Limits(call_seconds=10.0)


def _ask(module: ModuleType, state: State, moves_left: int, depth: int | None):
    """The file's answer to a handout state, and the seconds it took (the one call in)."""
    handout = (state.player, state.board, state.score_max, state.score_min)
    started = time.perf_counter()
    try:
        answer = module.ai_move(handout, moves_left=moves_left, depth=depth)
    except Exception:  # a crashing player is the file's fault: an invalid move
        answer = None
    return answer, time.perf_counter() - started


def _file_move(game: Game, state: State, answer: Any):
    """The legal move whose successor is `answer`, or None."""
    for move in game.legal_actions(state):
        after = game.after(state, move)
        if answer == (after.player, after.board, after.score_max, after.score_min):
            return move
    return None


def play_one(
    module: ModuleType,
    opponent: str | ModuleType,
    seat: str,
    start: State,
    seed: int,
    depth: int | None,
) -> dict[str, Any]:
    """One game: the file in `seat` against `opponent` (a bot's name, or another file's
    module, which searches to its own depth); its result from the file's side."""
    other_seat = other(seat)
    movers = {
        seat: file_mover(module, depth),
        other_seat: file_mover(opponent, None)
        if isinstance(opponent, ModuleType)
        else bot_mover(parse_bot(opponent, np.random.default_rng(seed))),
    }
    played = play_sides(movers, start)
    invalid = played["invalid"][seat]
    margin = played["final"].margin(seat)
    outcome = "loss" if invalid or margin < 0 else "win" if margin > 0 else "draw"
    if played["invalid"][other_seat]:
        outcome = "win"
    return {
        "outcome": outcome,
        "margin": margin,
        "cutoff": played["cutoff"],
        "invalid": invalid,
        "opponent_invalid": bool(played["invalid"][other_seat]),
        "times": played["times"][seat],
    }


Mover = Callable[[Game, State], tuple[Any, float | None]]


def file_mover(module: ModuleType, depth: int | None) -> Mover:
    """A file's side: its `ai_move` answer as a legal move (None: invalid), and its time."""

    def move(game: Game, state: State) -> tuple[Any, float | None]:
        answer, seconds = _ask(module, state, game.moves_left(state), depth)
        return _file_move(game, state, answer), seconds

    return move


def bot_mover(bot: Callable[[Game, State], Any]) -> Mover:
    return lambda game, state: (bot(game, state), None)


def play_sides(movers: dict[str, Mover], start: State) -> dict[str, Any]:
    """One game from `start` between the movers of MAX and MIN; an invalid move ends it
    (the side that made it loses). The final state, cut-off, invalid moves and call times
    by seat."""
    game = Game(DEFAULT_RULES)
    state = start
    times: dict[str, list[float]] = {MAX: [], MIN: []}
    invalid = dict.fromkeys((MAX, MIN), 0)
    while not game.is_terminal(state):
        move, seconds = movers[state.player](game, state)
        if seconds is not None:
            times[state.player].append(seconds)
        if move is None:
            invalid[state.player] += 1
            break
        state = game.after(state, move)
    cutoff = game.is_cut_off(state) and not any(invalid.values())
    return {"final": state, "cutoff": cutoff, "invalid": invalid, "times": times}


def _starts(games: int, seed: int) -> list[tuple[str, State]]:
    """(file's seat, start) for `games` games: each random board four times."""
    rng = np.random.default_rng([seed, 7])
    starts = []
    while len(starts) < games:
        board = random_board(rng)
        for seat in (MAX, MIN):
            for first in (seat, other(seat)):
                starts.append((seat, State(first, board)))
    return starts[:games]


_LOADED: dict[str, ModuleType] = {}


def load(path: str) -> ModuleType:
    """A file's module in this worker, loaded once (loading wraps its calls for the
    harness's clock): the file measured, or another file it plays head to head."""
    if path not in _LOADED:
        _LOADED[path] = load_module(path, "supernim", FUNCTIONS)
    return _LOADED[path]


def _loads(path: str) -> None:
    load(path)


def _work(task: tuple) -> dict[str, Any]:
    path, opponent, seat, start, seed, depth, is_file = task
    against = load(opponent) if is_file else opponent
    return play_one(load(path), against, seat, start, seed, depth)


def rate(successes: int, n: int) -> dict[str, Any]:
    return {
        "mean": successes / n if n else 0.0,
        "count": successes,
        "ci95": list(wilson(successes, n)),
    }


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(results)
    outcomes = [r["outcome"] for r in results]
    times = [t for r in results for t in r["times"]]
    return {
        "games": n,
        "win": rate(outcomes.count("win"), n),
        "draw": rate(outcomes.count("draw"), n),
        "loss": rate(outcomes.count("loss"), n),
        "cutoff_rate": sum(r["cutoff"] for r in results) / n if n else 0.0,
        "mean_margin": float(np.mean([r["margin"] for r in results])) if n else 0.0,
        "invalid_moves": sum(r["invalid"] for r in results),
        # a file opponent's: each is a win the file did not play for
        "opponent_invalid_moves": sum(r["opponent_invalid"] for r in results),
        "moves_timed": len(times),
        "p99_move_seconds": float(np.percentile(times, 99)) if times else 0.0,
        "max_move_seconds": max(times, default=0.0),
    }


def validate_player(
    path: str | Path,
    opponents: list[str],
    games: int,
    seed: int = 0,
    workers: int = 1,
    equal_depth: int = 0,
    progress: Callable[[str, int, int], None] | None = None,
    limits: contained.Limits = LIMITS,
    against: str | Path | None = None,
) -> dict[str, Any]:
    """The file against each opponent (and, with `equal_depth` D, its search at depth D
    against alphabeta:D: its heuristic against the plain one; with `against`, head to head
    against another file, both at their own depth); PlayerFault names the file that fails."""
    files = [path] if against is None else [path, against]
    for file in files:
        contained.run(file, _loads, [str(file)], limits=limits)  # a bad file fails here, once
    for name in opponents:
        parse_bot(name, None)
    runs = [(name, name, None, False) for name in opponents]
    if equal_depth:
        runs.append((f"equal depth {equal_depth} vs alphabeta:{equal_depth}",
                     f"alphabeta:{equal_depth}", equal_depth, False))  # fmt: skip
    if against is not None:
        runs.append((str(against), str(against), None, True))
    starts = _starts(games, seed)
    card: dict[str, Any] = {
        "games_per_opponent": games,
        "seed": seed,
        "rules": DEFAULT_RULES.changes() or "default",
        "rules_text": "default rules: merge cap 10, split of 2 scores 2, cut-off 100 moves",
        "against": {},
    }
    for run, (label, opponent, depth, is_file) in enumerate(runs):
        tasks = [
            (str(path), opponent, seat, start, (seed + run) * 1_000_003 + number, depth, is_file)
            for number, (seat, start) in enumerate(starts)
        ]
        results = contained.run(
            files,
            _work,
            tasks,
            workers=workers,
            limits=limits,
            chunk=max(1, min(16, games // (4 * workers))),
            progress=(lambda done, name=label: progress(name, done, games)) if progress else None,
        )
        card["against"][label] = summarise(results)
    return card


def write_player(
    fitted: Fitted, out: str | Path, budget: float, depth: int, games: int = CHECK_GAMES
) -> dict:
    """Write the player, measure that file briefly, and write it again with the figures
    in its docstring (the code is the same; only the docstring gains the figures)."""
    codegen.write_module(out, fitted, None, budget, depth)
    card = validate_player(out, list(CHECK_OPPONENTS), games)
    codegen.write_module(out, fitted, card, budget, depth)
    return card


def read_card(path: str | Path) -> dict[str, Any]:
    try:
        card = json.loads(Path(path).read_text())
        card["against"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path}: not a validation card ({error})") from None
    return card

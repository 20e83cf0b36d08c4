"""Validating a Gin Rummy player module: full games against the baselines in the engine.

A match is `games` games to 100 (the rules' `game_target`) between the player and one
baseline, seats alternating (game g puts the player in seat g % 2), played by the referee
with the course's adapter (`engine.course_player`); game g's generator (the deal's and
the bot's) is seeded with (seed, g), so a match's result does not depend on how the games
are spread over worker processes. Every call the player makes is timed, in CPU (the
referee's clock) and wall-clock seconds; the engine's own limits (validity, memory, one
second a call, all settings of the rules) apply, and an invalid play ends the game as a
loss for whoever made it.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from mine.strategies import contained
from mine.strategies.bots.ginrummy import BASELINES, make_bot
from mine.strategies.engines import ginrummy as engine
from mine.strategies.engines import referee
from mine.strategies.engines.ginrummy import DEFAULT_RULES, GinRummyRules
from mine.strategies.intervals import wilson
from mine.strategies.player_file import load_module, prepare
from mine.strategies.runners import Runner
from mine.strategies.validation.shipped import per_group, run_on

FUNCTIONS = ("pick", "play", "melds")  # what a player file defines
CHECK_GAMES = 100  # games against simple whose figures a generated file states
GAMES_PER_TASK = 50  # a task of a runner's: seconds of play (loading the file costs ~0.3 s)
LIMITS = contained.LIMITS
TIMED_OUT = ("Took too long",)  # the engine's second a call: a time-out, counted apart
MARGIN = "points per game (A − B, summed over rounds)"

_LOADED: dict[str, Any] = {}


def load(path: str | Path) -> Any:
    """A file's module in this worker, loaded once (loading builds the player's tables,
    too slow to repeat for every game)."""
    if str(path) not in _LOADED:
        _LOADED[str(path)] = load_module(path, "ginrummy", FUNCTIONS)
        # What is loaded by now lives as long as the worker: out of the collector's sight,
        # its full collections stay short and the call times measure the player.
        gc.freeze()
    return _LOADED[str(path)]


def seat(module: Any) -> referee.Course:
    """A file at a tournament's table: asked as the course asks."""
    return engine.course_player(module)


class Walled:
    """A player's functions, each call's wall-clock seconds appended to `wall` (on a
    shared machine they count other processes' work too; the referee counts CPU)."""

    def __init__(self, module: Any) -> None:
        self.module, self.wall = module, []

    def __getattr__(self, name: str) -> Callable:
        function = getattr(self.module, name)

        def timed(*args: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(*args)
            finally:
                self.wall.append(time.perf_counter() - started)

        return timed


class GameResult(NamedTuple):
    won: bool
    invalid: str | None  # the player's invalid play, if any
    opponent_invalid: bool
    rounds: int
    points: int  # the player's points minus the opponent's, summed over rounds
    gins: int  # rounds the player won by gin
    knocks: int  # rounds the player knocked (stock-outs excluded)
    undercut: int  # of those, rounds the opponent undercut
    undercuts_made: int  # rounds the opponent knocked and the player undercut
    stockouts: int
    times: tuple[float, ...]  # wall-clock seconds of each call
    cpu: tuple[float, ...]  # CPU seconds of each call


def play_one(module: Any, opponent: str | Any, seed: int, game: int,
             rules: GinRummyRules = DEFAULT_RULES) -> GameResult:  # fmt: skip
    """One game of the file against `opponent`: a bot's name, or another file's module."""
    rng = np.random.default_rng([seed, game])
    player = Walled(module)
    other = make_bot(opponent, rules, rng) if isinstance(opponent, str) else seat(opponent)
    me = game % 2
    seats = [seat(player), other] if me == 0 else [other, seat(player)]
    state = engine.new_game(rules, rng)
    seen = referee.refereed(engine, rules, state, seats)
    gins = knocks = undercut = made = stockouts = 0
    for played in state.rounds:
        if played.ending == "Drop":
            stockouts += 1
        elif played.caller == me:
            if played.ending == "Gin":
                gins += 1
            else:
                knocks += 1
                undercut += played.points[me] == 0
        elif played.ending == "Knock" and played.points[me] > 0:
            made += 1
    points = engine.points(state)
    return GameResult(state.returns()[me] > 0, seen.faults[me], seen.faults[1 - me] is not None,
                      len(state.rounds), points[me] - points[1 - me], gins, knocks, undercut,
                      made, stockouts, tuple(player.wall), tuple(seen.times[me]))  # fmt: skip


def _loads(path: str) -> None:
    load(path)


def _work(task: tuple[str, GinRummyRules, str, int, int, bool]) -> GameResult:
    path, rules, opponent, seed, game, is_file = task
    return play_one(load(path), load(opponent) if is_file else opponent, seed, game, rules)


def summarise(results: Sequence[GameResult]) -> dict[str, Any]:
    games = len(results)
    wins = sum(r.won for r in results)
    rounds = sum(r.rounds for r in results)
    knocks = sum(r.knocks for r in results)
    times = np.array([t for r in results for t in r.times])
    cpu = np.array([t for r in results for t in r.cpu])
    low, high = wilson(wins, games)
    return {
        "games": games,
        "wins": wins,
        "win_rate": round(wins / games, 4) if games else 0.0,
        "win_ci": [round(low, 4), round(high, 4)],
        "rounds": rounds,
        "points_per_round": round(sum(r.points for r in results) / max(rounds, 1), 3),
        "gin_rate": round(sum(r.gins for r in results) / max(rounds, 1), 4),
        "knock_rate": round(knocks / max(rounds, 1), 4),
        "undercut_rate": round(sum(r.undercut for r in results) / max(knocks, 1), 4),
        "undercuts_made": sum(r.undercuts_made for r in results),
        "stockout_rate": round(sum(r.stockouts for r in results) / max(rounds, 1), 4),
        "invalid": sum(r.invalid is not None for r in results),
        "invalid_reasons": sorted({r.invalid for r in results if r.invalid}),
        "opponent_invalid": sum(r.opponent_invalid for r in results),
        "calls": int(times.size),
        "p99_call_ms": _ms(times, 99),
        "max_call_ms": _ms(times, 100),
        "p99_call_cpu_ms": _ms(cpu, 99),
        "max_call_cpu_ms": _ms(cpu, 100),
    }


def _ms(seconds: np.ndarray, percentile: float) -> float:
    """A percentile of the calls' seconds, in ms; 0 where no call was timed (a file whose
    every game ended at its first call: a call that raises is not timed)."""
    return round(float(np.percentile(seconds, percentile)) * 1000, 3) if seconds.size else 0.0


Settings = GinRummyRules | Iterable[str] | Mapping[str, str] | None


def rules_of(rules: Settings) -> GinRummyRules:
    """The rules themselves, or the defaults with these `KEY=VALUE` settings (a player file
    states no rules of its own)."""
    return rules if isinstance(rules, GinRummyRules) else DEFAULT_RULES.with_settings(rules or ())


def validate(
    path: str | Path,
    rules: Settings = None,
    *,
    against: str | Path | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    opponents: str | Sequence[str] = BASELINES,
    games: int = 200,
    seed: int = 0,
    workers: int = 2,
    limits: contained.Limits = LIMITS,
    runner: Runner | None = None,
) -> dict[str, Any]:
    """The file's report card: the rules played (those not the defaults), the games per
    opponent and the seed, and per opponent (the baselines, comma-separated or listed,
    then the file `against`, head to head) the match's figures (see `summarise`), `progress
    (opponent, games done, games)` as they come; no match without games. The files run
    contained (PlayerFault naming the one that fails), in `workers` processes here, or
    with `runner` in its tasks of GAMES_PER_TASK games (the files shipped to them): game
    g of a match is seeded by (seed, g) wherever it is played, so the figures are the
    same. ValueError for a bot that is none."""
    rules = rules_of(rules)
    if isinstance(opponents, str):  # as `--baselines` gives them
        opponents = [name.strip() for name in opponents.split(",") if name.strip()]
    for name in opponents:
        make_bot(name, rules, np.random.default_rng(0))
    # A file that does not load fails here, once, before any game.
    files = [path] if against is None else [path, against]
    prepare(files, "ginrummy")  # a Haskell file compiled once, for every worker
    for file in files:
        contained.run(file, _loads, [str(file)], limits=limits)
    runs = [(name, False) for name in opponents]
    runs += [] if against is None else [(str(against), True)]
    runs = runs if games else []  # no games, no match (generate --games 0)
    tasks = [(str(path), rules, opponent, seed, game, is_file)
             for opponent, is_file in runs for game in range(games)]  # fmt: skip
    shown = per_group(progress, [(opponent, games) for opponent, _ in runs])
    results = run_on(runner, files, "ginrummy", _work, tasks, size=GAMES_PER_TASK, limits=limits,
                     progress=shown, workers=workers,
                     chunk=max(1, min(16, games // 8)))  # fmt: skip
    figures = {opponent: summarise(results[number * games : (number + 1) * games])
               for number, (opponent, _) in enumerate(runs)}  # fmt: skip
    return {"rules": rules.changes(), "games": games, "seed": seed, "against": figures}


def check(
    path: str | Path, fitted: Any, *, games: int = CHECK_GAMES, seed: int = 0,
    rules: Settings = None, workers: int = 2, opponents: str | Sequence[str] = ("simple",),
) -> dict[str, Any]:  # fmt: skip
    """The card a generated file states in its docstring: its games against simple (none
    with `games` 0), or against `opponents` (a report's page draws all the baselines)."""
    return validate(path, rules, opponents=opponents, games=games, seed=seed, workers=workers)


def failure(card: dict[str, Any]) -> str | None:
    """Why the card does not hold: the file's own invalid plays (each lost its game)."""
    bad = {name: f for name, f in card["against"].items() if f["invalid"]}
    if not bad:
        return None
    count = sum(f["invalid"] for f in bad.values())
    reasons = sorted({reason for f in bad.values() for reason in f["invalid_reasons"]})
    return (f"{card['player']}: {count} invalid plays against {', '.join(bad)}: "
            f"{'; '.join(reasons[:3])}")  # fmt: skip

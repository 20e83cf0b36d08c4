"""Validating a Gin Rummy player module: full games against the baselines in the engine.

A match is `games` games to 100 (the rules' `game_target`) between the player and one
baseline, seats alternating (game g puts the player in seat g % 2); game g's generator is
seeded with (seed, g), so a match's result does not depend on how the games are spread
over worker processes. Every call the player makes is timed; the engine's own limits
(validity, memory, one second a call, all settings of the rules) apply, and an invalid play
ends the game as a loss for whoever made it.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from mine.strategies import contained
from mine.strategies.bots.ginrummy import BASELINES, make_bot
from mine.strategies.engines.ginrummy import DEFAULT_RULES, GameRecord, GinRummyRules, play_game
from mine.strategies.engines.melds import MeldSolver
from mine.strategies.intervals import wilson
from mine.strategies.player_file import load_module, prepare
from mine.strategies.runners import Runner
from mine.strategies.validation.shipped import per_group, run_on

FUNCTIONS = ("pick", "play", "melds")  # what a player file defines
CHECK_GAMES = 100  # games against simple whose figures a generated file states
GAMES_PER_TASK = 50  # a task of a runner's: seconds of play (loading the file costs ~0.3 s)


def load_player(path: str | Path) -> Any:
    return load_module(path, "ginrummy", FUNCTIONS)


@dataclass
class Timed:
    """The player's three functions, each call's wall-clock and CPU durations appended to
    `times` and `cpu` (on a shared machine the wall clock also counts other processes)."""

    module: Any
    times: list[float]
    cpu: list[float]

    def _timed(self, function: Callable, *args: Any) -> Any:
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            return function(*args)
        finally:
            self.times.append(time.perf_counter() - started)
            self.cpu.append(time.thread_time() - cpu)

    def pick(self, *args: Any) -> Any:
        return self._timed(self.module.pick, *args)

    def play(self, *args: Any) -> Any:
        return self._timed(self.module.play, *args)

    def melds(self, *args: Any) -> Any:
        return self._timed(self.module.melds, *args)


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
    times: tuple[float, ...]
    cpu: tuple[float, ...]


# Per worker process: the player module and a solver, loaded on its first game (loading
# builds the player's tables, too slow to repeat for every game).
_WORKER: dict[str, Any] = {}


def _load(path: str, rules: GinRummyRules) -> None:
    _WORKER.update(path=path, module=load_player(path), solver=MeldSolver(rules.meld_sizes))
    # What is loaded by now lives as long as the worker: out of the collector's sight, its
    # full collections stay short and the call times measure the player, not the harness.
    gc.freeze()


def play_one(module: Any, opponent: str | Any, seed: int, game: int, solver: MeldSolver,
             rules: GinRummyRules = DEFAULT_RULES) -> GameResult:  # fmt: skip
    """One game of the file against `opponent`: a bot's name, or another file's module."""
    rng = np.random.default_rng([seed, game])
    times: list[float] = []
    cpu: list[float] = []
    player = Timed(module, times, cpu)
    bot = make_bot(opponent, rules, rng, solver) if isinstance(opponent, str) else opponent
    me = game % 2
    seats = [player, bot] if me == 0 else [bot, player]
    return game_result(play_game(rules, seats, rng, solver), me, times, cpu)


def game_result(record: GameRecord, me: int, times=(), cpu=()) -> GameResult:
    """A played game's figures from seat `me`'s side."""
    invalid = record.invalid
    gins = knocks = undercut = made = stockouts = points = 0
    for game_round in record.rounds:
        points += game_round.points[me] - game_round.points[1 - me]
        if game_round.ending == "Drop":
            stockouts += 1
        elif game_round.caller == me:
            if game_round.ending == "Gin":
                gins += 1
            else:
                knocks += 1
                undercut += game_round.points[me] == 0
        elif game_round.ending == "Knock" and game_round.points[me] > 0:
            made += 1
    won = record.returns()[me] > 0  # an invalid play loses the game for whoever made it
    return GameResult(
        won,
        invalid.reason if invalid is not None and invalid.seat == me else None,
        invalid is not None and invalid.seat != me,
        len(record.rounds),
        points,
        gins,
        knocks,
        undercut,
        made,
        stockouts,
        tuple(times),
        tuple(cpu),
    )


def _loads(path: str) -> None:
    load_player(path)


def _work(task: tuple[str, GinRummyRules, str, int, int, bool]) -> GameResult:
    path, rules, opponent, seed, game, is_file = task
    if _WORKER.get("path") != path:
        _load(path, rules)
    if is_file and _WORKER.get("against") != opponent:
        _WORKER.update(against=opponent, other=load_player(opponent))
    other = _WORKER["other"] if is_file else opponent
    return play_one(_WORKER["module"], other, seed, game, _WORKER["solver"], rules)


def summarise(results: Sequence[GameResult]) -> dict[str, Any]:
    games = len(results)
    wins = sum(r.won for r in results)
    rounds = sum(r.rounds for r in results)
    knocks = sum(r.knocks for r in results)
    times = np.array([t for r in results for t in r.times]) if results else np.zeros(1)
    cpu = np.array([t for r in results for t in r.cpu]) if results else np.zeros(1)
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
        "p99_call_ms": round(float(np.percentile(times, 99)) * 1000, 3),
        "max_call_ms": round(float(times.max()) * 1000, 3),
        "p99_call_cpu_ms": round(float(np.percentile(cpu, 99)) * 1000, 3),
        "max_call_cpu_ms": round(float(cpu.max()) * 1000, 3),
    }


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
    limits: contained.Limits = contained.LIMITS,
    contain: bool = True,
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
    prepare(files, "ginrummy", contain=contain)  # a Haskell file compiled once, for every worker
    for file in files:
        contained.run(file, _loads, [str(file)], limits=limits, contain=contain)
    runs = [(name, False) for name in opponents]
    runs += [] if against is None else [(str(against), True)]
    runs = runs if games else []  # no games, no match (generate --games 0)
    if runner is not None:
        return {"rules": rules.changes(), "games": games, "seed": seed,
                "against": _on_runner(runner, path, files, rules, runs, games, seed, limits,
                                      contain, progress)}  # fmt: skip
    figures = {}
    for opponent, is_file in runs:
        tasks = [(str(path), rules, opponent, seed, game, is_file) for game in range(games)]
        results = contained.run(
            files,
            _work,
            tasks,
            workers=workers,
            limits=limits,
            chunk=max(1, min(16, games // 8)),
            progress=(lambda done, o=opponent: progress(o, done, games)) if progress else None,
            contain=contain,
        )
        figures[opponent] = summarise(results)
    return {"rules": rules.changes(), "games": games, "seed": seed, "against": figures}


def _on_runner(runner, path, files, rules, runs, games, seed, limits, contain, progress
               ) -> dict[str, dict[str, Any]]:  # fmt: skip
    """`validate`'s matches as one batch of the runner's tasks: every match's games."""
    tasks = [(str(path), rules, opponent, seed, game, is_file)
             for opponent, is_file in runs for game in range(games)]  # fmt: skip
    shown = per_group(progress, [(opponent, games) for opponent, _ in runs])
    results = run_on(runner, files, "ginrummy", _work, tasks, size=GAMES_PER_TASK, limits=limits,
                     contain=contain, progress=shown)  # fmt: skip
    return {opponent: summarise(results[number * games : (number + 1) * games])
            for number, (opponent, _) in enumerate(runs)}  # fmt: skip


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
    return f"{count} invalid plays against {', '.join(bad)}: {'; '.join(reasons[:3])}"

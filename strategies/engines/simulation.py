"""Games between bots, written as logs in the game's real format: `mine simulate`, for every game.

Every game is played through its State by the referee, and written by its engine's one log
verb, `log_rows(state, game, me)` (the game's rows as its log format's records):

- **Matches.** The bots named in `players` sit at one table where the game seats that many
  (TwentyOne up to ten, Gin Rummy two, card guessing one); where it seats two and more
  are named, every pair plays a match (or, with `opponent`, each meets that one). A name
  met again plays as `name#2`, `name#3`, … (the ids in the logs).
- **Deals.** In a game of two seats, games 2d and 2d + 1 play deal d from both sides (the
  same cards, board or dice; the engine's `new_game(…, swapped=True)` deals it the other
  way round: the second player first), as a tournament does: luck of the deal cancels
  within each pair. Elsewhere game g is deal g.
- **Seeds.** Deal d of match m draws its chance from child (m, d) of `seed` and each bot
  its choices from (m, d, 1 + k), k its place among the match's bots, so a game's bytes
  depend on the seed, the match and the deal alone: not on how many games there are, nor
  on which of `runner`'s tasks (`GAMES_PER_TASK` games each, the engine's) played it.
  An engine may offer `play_fast` (Hog's vectorised games): it plays a task's games at
  once from the task's child (m, task) and gives the bytes the State path would for the
  same chance (a test holds them equal).
- **Files.** A log pair holds the whole match (`<game>-<ids>-s<seed>.csv` and `-score.csv`)
  or, where the format holds one game (`ONE_GAME_A_FILE`), one game each (`…-<g>.csv`,
  g from 000001), from the point of view of `me` (an index into `players`; in a match
  without that bot, the match's first). The driver writes every file, each under a partial
  name renamed when whole.
"""

from __future__ import annotations

import contextlib
import importlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from mine.parsers.csvlog import line, partial_pair, publish_pair
from mine.strategies.engines import referee
from mine.strategies.runners import SERIAL, Runner, child, spans

MakeBot = Callable[[str, Any, np.random.Generator | None], referee.Bot]
Progress = Callable[[str, int, int], None]  # (match stem, games played, games in all)


@dataclass(frozen=True)
class Match:
    """One match: its number, bots (specs) and their ids, in the seat order of its first
    game, and the stem of its files."""

    number: int
    specs: tuple[str, ...]
    ids: tuple[str, ...]
    stem: str


@dataclass
class Played:
    """A task's games: their logs' bytes (one pair per game, or one for all of them), the
    turn rows written, and each game's seats (ids), returns and faults."""

    logs: list[tuple[bytes, bytes]]
    rows: int
    games: list[tuple[tuple[str, ...], tuple[float, ...], tuple[str | None, ...]]] = field(
        default_factory=list
    )


def engine_of(name: str) -> ModuleType:
    return importlib.import_module(f"mine.strategies.engines.{name}")


def player_ids(specs: Sequence[str]) -> list[str]:
    """The players' ids in the logs: a name met again becomes `name#2`, `name#3`, …"""
    ids: list[str] = []
    for spec in specs:
        unique, n = spec, 2
        while unique in ids:
            unique, n = f"{spec}#{n}", n + 1
        ids.append(unique)
    return ids


def matches(name: str, specs: Sequence[str], seed: int, opponent: str | None = None) -> list[Match]:
    """The matches `specs` play (see the module docstring), `opponent` first where given;
    ValueError where the game cannot seat them."""
    seats = engine_of(name).NUM_PLAYERS
    entrants = [opponent, *specs] if opponent is not None else list(specs)
    ids = player_ids(entrants)
    if opponent is not None:
        if seats != range(2, 3) or not specs:
            raise ValueError("--opponent needs a game of two seats and at least one bot")
        tables = [(0, k) for k in range(1, len(entrants))]
    elif len(entrants) in seats:
        tables = [tuple(range(len(entrants)))]
    elif seats == range(2, 3) and len(entrants) > 2:
        tables = list(combinations(range(len(entrants)), 2))
    else:
        low, high = seats.start, seats.stop - 1
        counted = f"{low} player{'s' * (low != 1)}" if low == high else f"{low} to {high} players"
        raise ValueError(f"a game seats {counted}, not {len(entrants)}")
    return [
        Match(
            number,
            tuple(entrants[k] for k in table),
            tuple(ids[k] for k in table),
            _stem(name, [ids[k] for k in table], seed),
        )  # fmt: skip
        for number, table in enumerate(tables)
    ]


def _stem(name: str, ids: Sequence[str], seed: int) -> str:
    slugs = (re.sub(r"[^A-Za-z0-9_]+", "_", i).strip("_") or "player" for i in ids)
    who = "-vs-".join(slugs) if len(ids) <= 3 else f"table{len(ids)}"
    return f"{name}-{who}-s{seed}"


def deal_of(game: int, seats: int) -> tuple[int, bool]:
    """(deal, swapped) of game `game` (from 0) of a match of `seats` seats."""
    return (game // 2, game % 2 == 1) if seats == 2 else (game, False)


def simulate(
    name: str,
    rules: Any,
    players: Sequence[str],
    games: int,
    seed: int,
    out: str | Path,
    *,
    make_bot: MakeBot,
    me: int = 0,
    opponent: str | None = None,
    runner: Runner = SERIAL,
    progress: Progress | None = None,
    **setup: Any,
) -> dict[str, Any]:
    """Play `games` games of every match of the bots `players` names (each made by
    `make_bot(spec, rules, rng)`; a bad name, or a setup the engine refuses, is a
    ValueError before any file is written) and write their logs into `out`; the summary,
    one shape for every game."""
    engine = engine_of(name)
    if not 0 <= me < len(players):
        raise ValueError(f"--me {me} is not a player (0..{len(players) - 1} of --players)")
    played = matches(name, players, seed, opponent)
    for spec in dict.fromkeys(spec for match in played for spec in match.specs):
        make_bot(spec, rules, np.random.default_rng(0))
    engine.new_game(rules, np.random.default_rng(0), played[0].ids, **setup)
    ids = player_ids([*([opponent] if opponent is not None else []), *players])
    perspective = ids[me + (opponent is not None)]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = []
    for match in played:
        me_id = perspective if perspective in match.ids else match.ids[0]
        summary.append(_play_match(name, rules, match, games, seed, out, me_id, make_bot,
                                   setup, runner, progress))  # fmt: skip
    return {"game": name, "rules": rules.changes(), "seed": seed, "out": str(out),
            "games": games, "matches": summary}  # fmt: skip


def _play_match(name, rules, match, games, seed, out, me, make_bot, setup, runner, progress):
    """A match's games, in tasks, written in game order; what its summary says of it."""
    engine = engine_of(name)
    tasks = [(name, rules, match, seed, span, index, me, make_bot, setup)
             for index, span in enumerate(spans(games, engine.GAMES_PER_TASK))]  # fmt: skip
    tally = {i: {"games": 0, "wins": 0, "draws": 0, "returns": 0.0} for i in match.ids}
    faults, rows, done = [], 0, 0
    if progress:
        progress(match.stem, 0, games)
    with contextlib.nullcontext() if engine.ONE_GAME_A_FILE else _Pair(out, match.stem) as whole:
        for task, part in zip(tasks, runner.map(_play_games, tasks), strict=True):
            if whole is None:
                for game, logs in zip(task[4], part.logs, strict=True):
                    with _Pair(out, f"{match.stem}-{game + 1:06d}") as pair:
                        pair.write(*logs)
            else:
                whole.write(*part.logs[0])
            rows += part.rows
            for ids, returns, seat_faults in part.games:
                done += 1
                _count(tally, ids, returns)
                for i, fault in zip(ids, seat_faults, strict=True):
                    if fault is not None:
                        faults.append({"game": done, "player": i, "reason": fault})
            if progress:
                progress(match.stem, done, games)
    return {
        "stem": match.stem,
        "logs": games if whole is None else 1,
        "games": games,
        "rows": rows,
        "players": [
            _player(i, spec, tally[i], len(match.ids))
            for i, spec in zip(match.ids, match.specs, strict=True)
        ],  # fmt: skip
        "faults": faults,
    }


def _count(tally: dict[str, dict[str, Any]], ids, returns) -> None:
    """A game's returns added to its players' tally: the best return wins (a draw where
    several share it)."""
    best = max(returns)
    tops = [i for i, r in zip(ids, returns, strict=True) if r == best]
    for i, r in zip(ids, returns, strict=True):
        tally[i]["games"] += 1
        tally[i]["returns"] += r
        if i in tops:
            tally[i]["wins" if len(tops) == 1 else "draws"] += 1


def _player(i: str, spec: str, tally: dict[str, Any], seats: int) -> dict[str, Any]:
    games = tally["games"]
    won = {"wins": tally["wins"], "draws": tally["draws"]} if seats > 1 else {}
    return {"id": i, "bot": spec, "games": games, **won,
            "mean_return": tally["returns"] / games if games else 0.0}  # fmt: skip


class _Pair:
    """A log pair being written: partial files, renamed onto the pair when its block ends
    well, removed when it fails (Ctrl-C, a full disk): only a kill leaves them, for the
    next run to remove."""

    def __init__(self, out: Path, stem: str) -> None:
        self.out, self.stem = out, stem
        self.partials = partial_pair(out, stem)
        self.files = tuple(open(path, "wb") for path in self.partials)  # noqa: SIM115 (closed on exit)

    def __enter__(self) -> _Pair:
        return self

    def write(self, turns: bytes, scores: bytes) -> None:
        self.files[0].write(turns)
        self.files[1].write(scores)

    def __exit__(self, failed: type[BaseException] | None, *_) -> None:
        try:
            for file in self.files:
                file.close()
            if failed is None:
                publish_pair(self.out, self.stem)
        finally:
            for partial in self.partials:  # none left once published
                partial.unlink(missing_ok=True)


def _play_games(task: tuple) -> Played:
    """One task of a match: its games in `span`, played and formatted."""
    name, rules, match, seed, span, index, me, make_bot, setup = task
    engine, log_format = engine_of(name), importlib.import_module(f"mine.parsers.{name}")
    if hasattr(engine, "play_fast"):
        bots = [make_bot(spec, rules, None) for spec in match.specs]
        rng = np.random.default_rng(child(seed, match.number, index))
        fast = engine.play_fast(rules, bots, match.ids, span, rng)
        if fast is not None:
            return fast
    played = Played([], 0)
    turn_lines: list[str] = []
    score_lines: list[str] = []
    for game in span:
        state, seated = deal(engine, rules, match, seed, game, make_bot, setup)
        seen = referee.refereed(engine, rules, state, seated)
        number = 1 if engine.ONE_GAME_A_FILE else game + 1
        turns, scores = engine.log_rows(state, number, me)
        turn_lines += map(line, map(log_format.turn_fields, turns))
        score_lines += map(line, map(log_format.score_fields, scores))
        if engine.ONE_GAME_A_FILE:
            played.logs.append(_encoded(turn_lines, score_lines))
            turn_lines, score_lines = [], []
        played.rows += len(turns)
        played.games.append((tuple(state.players), state.returns(), tuple(seen.faults)))
    if not engine.ONE_GAME_A_FILE:
        played.logs.append(_encoded(turn_lines, score_lines))
    return played


def deal(engine, rules, match: Match, seed: int, game: int, make_bot, setup) -> tuple[Any, list]:
    """Game `game` of `match`: its state, dealt, and the bots in its seats."""
    number, swapped = deal_of(game, len(match.ids))
    chance = np.random.default_rng(child(seed, match.number, number))
    bots = {
        i: make_bot(spec, rules, np.random.default_rng(child(seed, match.number, number, 1 + k)))
        for k, (i, spec) in enumerate(zip(match.ids, match.specs, strict=True))
    }
    state = engine.new_game(rules, chance, match.ids, swapped=swapped, **setup)
    return state, [bots[i] for i in state.players]


def _encoded(turns: list[str], scores: list[str]) -> tuple[bytes, bytes]:
    return "".join(turns).encode(), "".join(scores).encode()

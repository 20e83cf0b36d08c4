"""TwentyOne games for the tests: played by the referee, written through `log_rows`."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mine.parsers.csvlog import pair_paths
from mine.parsers.twentyone import write_scores, write_turns
from mine.strategies.bots.twentyone import TableBot
from mine.strategies.engines import referee
from mine.strategies.engines import twentyone as engine


def play(
    rules: engine.TwentyOneRules, players: dict, rng: np.random.Generator, seated: bool = False
) -> engine.State:
    """One game of `players` (id → a bot, or a function with the spec's `play` interface,
    which sits behind the engine's `course_player`, or a `referee.Course`), to its end."""
    state = engine.new_game(rules, rng, list(players), seated=seated)
    seats = [p if isinstance(p, TableBot | referee.Course) else engine.course_player(p)
             for p in map(players.get, state.players)]  # fmt: skip
    referee.refereed(engine, rules, state, seats)
    return state


def write(state: engine.State, me: str, folder: str | Path, stem: str) -> tuple[Path, Path]:
    """`<stem>.csv` and `<stem>-score.csv` from player `me`'s point of view."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    turns, scores = engine.log_rows(state, 1, me)
    paths = pair_paths(folder, stem)
    write_turns(paths[0], turns)
    write_scores(paths[1], scores)
    return paths

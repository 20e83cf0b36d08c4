"""Games played in a runner's tasks, gathered into one log pair's rows in game order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mine.strategies.runners import Runner


def gathered(
    runner: Runner,
    play: Callable[[Any], list[tuple[list[Any], Any]]],
    tasks: Sequence[Any],
    progress: Callable[[str, int, int], None] | None,
    stem: str,
    games: int,
) -> tuple[list[Any], list[Any]]:
    """The turn rows and score rows of every game `play(task)` plays (its games' (turn
    rows, score row), in order) in `tasks`; `progress(stem, games done, games)` after each."""
    turns: list[Any] = []
    scores: list[Any] = []
    for part in runner.map(play, tasks):
        for rows, score in part:
            turns += rows
            scores.append(score)
            if progress:
                progress(stem, len(scores), games)
    return turns, scores

"""Verification of a batch: its well-formed logs replayed through their game's rules (the
game module's `replay`, over the logs its `suspects`, run here over the whole batch, names
where it has one), in tasks of whole logs that a runner runs — both cores of this machine for a large batch, this
process for a small one, and a lake's task on a cluster in its own process."""

from __future__ import annotations

import gc
from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from mine import games
from mine.strategies.runners import SERIAL, Runner
from mine.warehouse.checks import OUT_OF_RANGE, Problem

TASK_ROWS = 100_000
"""Rows of whole logs a task replays (a larger log goes alone): a full batch makes three
or four, so that neither worker waits long for the other."""
PARALLEL_ROWS = 250_000
"""Rows to replay (the suspects' rows) from which a batch's tasks go to the runner's workers. Starting them costs
about a CPU second each, once a command, and sending a task its rows a few hundredths:
below this (Gin Rummy: about a second of replay), one process is as quick."""


@dataclass(frozen=True)
class Task:
    """Whole logs to replay: each frame's rows by log and line (log_id, line, the format's
    columns)."""

    game: str
    rules: object
    turns: pl.DataFrame
    scores: pl.DataFrame


def replayed(
    game: str,
    rules: object,
    turns: pl.DataFrame,
    scores: pl.DataFrame,
    runner: Runner = SERIAL,
    every: bool = False,
) -> dict[int, list[Problem]]:
    """The logs of the frames (rows by log and line) replayed under `rules`: each log's
    broken rules, the one to report first first (a log not replayed, cleared by the game's
    `suspects` unless `every`, is absent)."""
    # The suspects first, here, over the whole batch: a few tenths of a second where
    # starting workers to find them costs a second each, and a valid batch needs none.
    find = getattr(games.get(game).module("schema"), "suspects", None)
    if find is not None and not every:
        named = sorted(find(rules, turns, scores))
        turns = turns.filter(pl.col("log_id").is_in(named))
        scores = scores.filter(pl.col("log_id").is_in(named))
    tasks = _tasks(Task(game, rules, turns, scores))
    if turns.height + scores.height < PARALLEL_ROWS:
        runner = SERIAL
    found: dict[int, list[Problem]] = {}
    for part in runner.map(replay_logs, tasks):
        found.update(part)
    return found


def _tasks(whole: Task) -> list[Task]:
    """The frames cut into tasks of whole logs, about TASK_ROWS rows each: by what the
    work is, never by the number of workers, so the answers never depend on them."""
    ids = pl.concat([whole.turns.select("log_id"), whole.scores.select("log_id")])
    sizes = ids.group_by("log_id").len().sort("log_id")
    if sizes["len"].sum() <= TASK_ROWS:
        return [whole]
    task = ((pl.col("len").cum_sum() - pl.col("len")) // TASK_ROWS).alias("task")
    of_log = dict(sizes.select("log_id", task).rows())
    # a task's rows of each role: slices of the frame, each a log's (a join and partition
    # copied every row, a second's CPU for a full batch)
    parts: dict[str, dict[int, list[pl.DataFrame]]] = {"turns": {}, "scores": {}}
    for role, frame in (("turns", whole.turns), ("scores", whole.scores)):
        for log_id, start, length in _runs(frame):
            parts[role].setdefault(of_log[log_id], []).append(frame.slice(start, length))
    return [
        Task(whole.game, whole.rules, _part(parts["turns"], key, whole.turns),
             _part(parts["scores"], key, whole.scores))
        for key in sorted(parts["turns"].keys() | parts["scores"].keys())
    ]  # fmt: skip


def _runs(frame: pl.DataFrame) -> list[tuple[int, int, int]]:
    """(log_id, first row, rows) of each log in the frame (its rows are in one run)."""
    runs = frame.select(pl.col("log_id").rle().struct.unnest())
    ends = runs["len"].cum_sum()
    return list(zip(runs["value"], ends - runs["len"], runs["len"], strict=True))


def _part(parts: dict[int, list[pl.DataFrame]], key: int, whole: pl.DataFrame) -> pl.DataFrame:
    """A task's rows of one role (none, if its logs have none)."""
    return pl.concat(parts[key]) if key in parts else whole.clear()


def replay_logs(task: Task) -> dict[int, list[Problem]]:
    """One task: the replay of each of its logs. Python's cycle collector is paused for it:
    a replay makes no cycles (what it makes is freed as it goes), only millions of rows and
    hands that the collector would walk again and again (a sixth of a TwentyOne replay)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return _replay_logs(task)
    finally:
        if paused:
            gc.enable()


def _replay_logs(task: Task) -> dict[int, list[Problem]]:
    module = games.get(task.game).module("schema")
    turns, scores = task.turns, task.scores
    logs: dict[int, dict[str, list[tuple]]] = {}
    for role, frame in (("turns", turns), ("scores", scores)):
        # each log's rows a slice of the frame's (a tuple cut a row costs as much again)
        rows = frame.drop("log_id").rows()
        for log_id, start, length in _runs(frame):
            log = logs.setdefault(log_id, {"turns": [], "scores": []})
            log[role] = rows[start : start + length]
    found = {}
    for log_id, rows in logs.items():
        problems = module.replay(task.rules, rows["turns"], rows["scores"])
        found[log_id] = sorted(problems, key=reported_first(rows))
    return found


def reported_first(rows: dict[str, list[tuple]]) -> Callable[[Problem], tuple]:
    """The order a log's broken rules are reported in: unit by unit (round or game: a score
    row before the next round's turns, since a wrong score shows again in its bids), then
    by line, a number out of its sane range before what the rules make of it."""
    units = {role: {row[0]: row[1] for row in rows[role]} for role in rows}

    def key(problem: Problem) -> tuple:
        role, line, reason = problem
        return units[role][line], role == "scores", line, OUT_OF_RANGE not in reason, reason

    return key

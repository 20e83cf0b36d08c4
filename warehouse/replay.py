"""Verification of a batch: its well-formed logs replayed through their game's rules (the
game module's `replay`, over the logs its `suspects`, run here over the whole batch, names
where it has one), in tasks of whole logs that a runner runs — both cores of this machine for a large batch, this
process for a small one, and a lake's task on a cluster in its own process."""

from __future__ import annotations

import itertools
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
    of_log = sizes.select("log_id", task)
    turns, scores = (
        frame.join(of_log, on="log_id").partition_by("task", as_dict=True)
        for frame in (whole.turns, whole.scores)
    )
    return [
        Task(whole.game, whole.rules, _part(turns, key, whole.turns),
             _part(scores, key, whole.scores))
        for key in sorted(turns.keys() | scores.keys())
    ]  # fmt: skip


def _part(parts: dict[tuple, pl.DataFrame], key: tuple, whole: pl.DataFrame) -> pl.DataFrame:
    """A task's rows of one role (none, if its logs have none)."""
    return parts[key].drop("task") if key in parts else whole.clear()


def replay_logs(task: Task) -> dict[int, list[Problem]]:
    """One task: the replay of each of its logs."""
    module = games.get(task.game).module("schema")
    turns, scores = task.turns, task.scores
    logs: dict[int, dict[str, list[tuple]]] = {}
    for role, frame in (("turns", turns), ("scores", scores)):
        for log_id, rows in itertools.groupby(frame.rows(), key=lambda row: row[0]):
            logs.setdefault(log_id, {"turns": [], "scores": []})[role] = [row[1:] for row in rows]
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

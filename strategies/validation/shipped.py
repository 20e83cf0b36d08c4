"""A validation's jobs as tasks of a runner (`strategies/runners.py`): the player files
shipped to each task as data and landed there, its jobs run contained as they are here,
so that a validation's figures and faults are the same wherever its tasks ran."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from mine.strategies import contained
from mine.strategies.player_file import Shipped, landed, prepare
from mine.strategies.runners import Runner, spans


def run_on(
    runner: Runner | None,
    files: Sequence[str | Path],
    game: str,
    job: Callable[[Any], Any],
    tasks: Sequence[tuple],
    *,
    size: int,
    limits: contained.Limits = contained.LIMITS,
    contain: bool = True,
    progress: Callable[[int], None] | None = None,
    workers: int = 1,
    chunk: int = 1,
    name: str = "",
) -> list[Any]:
    """`contained.run(files, job, tasks)` as the `runner`'s tasks of `size` jobs each (sized
    by the work): the files shipped to each as data and landed there, where a string of a
    job's task that names one of `files` names its landed copy; results in job order,
    `progress(jobs done)` as each runner's task ends. A Haskell file is compiled on each
    machine into that machine's cache (where the driver's is, already there). Without a
    runner, `contained.run` here, in `workers` processes taking `chunk` jobs at a time.
    `name`: what a fault of the harness names when no file plays (a pairing of bots)."""
    if runner is None:
        return contained.run(files or [name], job, tasks, workers=workers, limits=limits,
                             chunk=chunk, progress=progress, contain=contain)  # fmt: skip
    shipped = tuple(Shipped.of(file) for file in files)
    parts = [(shipped, game, job, tuple(tasks[span.start : span.stop]), limits, contain, name)
             for span in spans(len(tasks), size)]  # fmt: skip
    results: list[Any] = []
    for part in runner.map(_landed_run, parts):
        results += part
        if progress:
            progress(len(results))
    return results


def _landed_run(part: tuple) -> list[Any]:
    """A runner's task of `run_on`: its files landed in this worker, its jobs contained."""
    shipped, game, job, tasks, limits, contain, name = part
    with landed(shipped) as here:
        prepare(here, game, contain=contain)
        local = {file.path: path for file, path in zip(shipped, here, strict=True)}
        moved = [tuple(_moved(x, local) for x in task) for task in tasks]
        return contained.run(here or [name], job, moved, limits=limits, contain=contain)


def _moved(value: Any, local: dict[str, str]) -> Any:
    """`value`, or its landed copy's where it names a shipped file (a path, or a record's
    `file`: a tournament's entrant)."""
    if isinstance(value, str):
        return local.get(value, value)
    if dataclasses.is_dataclass(value) and getattr(value, "file", None) in local:
        return dataclasses.replace(value, file=local[value.file])
    return value


def per_group(
    progress: Callable[[str, int, int], None] | None, groups: Sequence[tuple[str, int]]
) -> Callable[[int], None] | None:
    """`progress(name, done, count)` of each (name, count) of `groups`, consecutive runs of
    a batch's jobs, from the jobs of the batch done."""
    if progress is None:
        return None

    def shown(done: int) -> None:
        before = 0
        for name, count in groups:
            if done > before:
                progress(name, min(count, done - before), count)
            before += count

    return shown

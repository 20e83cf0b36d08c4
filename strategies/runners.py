"""Where a command's independent tasks run: in this process, in local worker processes, or
(from `pipeline/cluster.py`, the only place that knows Ray) on a Ray cluster.

The layers take a `Runner` and never ask which one they have: `runner.map(function,
tasks)` gives `function(task)` for every task, in task order, whatever ran it and however
many workers there were. So a result never depends on the runner: work is split by what
it is (a shard of logs, a seed of `SeedSequence.spawn`), not by the number of workers.
`function` and every task must pickle (a module-level function, plain data), and a task
must not rely on the driver's memory or working folder: it may run on another machine.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

import numpy as np

from mine.strategies import contained
from mine.strategies.player_file import PlayerFileError

Task = TypeVar("Task")
Result = TypeVar("Result")


class Runner(Protocol):
    @property
    def workers(self) -> int:
        """How many tasks run at once (to size work, never to split it)."""
        ...

    def map(self, function: Callable[[Task], Result], tasks: Iterable[Task]) -> Iterator[Result]:
        """`function(task)` of every task, in task order, each as soon as it and those
        before it are done; a task's exception is raised here, at its turn."""
        ...


class Serial:
    """Every task in this process, one after the other (what a command does without
    `--cluster` where it did its work in one process before)."""

    workers = 1

    def map(self, function: Callable[[Task], Result], tasks: Iterable[Task]) -> Iterator[Result]:
        return map(function, tasks)


SERIAL = Serial()


class LocalProcesses:
    """Tasks in up to `workers` fresh processes of this machine (spawned, not forked: the
    driver may hold DuckDB's threads); one task, or one worker, runs in this process."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)

    def map(self, function: Callable[[Task], Result], tasks: Iterable[Task]) -> Iterator[Result]:
        tasks = list(tasks)
        if self.workers == 1 or len(tasks) <= 1:
            yield from map(function, tasks)
            return
        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(min(self.workers, len(tasks)), mp_context=context)
        try:
            yield from pool.map(function, tasks)
        finally:  # stopped early (an error, ^C): the tasks not started are not wanted
            pool.shutdown(cancel_futures=True)


# --- splitting work by what it is ------------------------------------------------------------


def child(seed: int, index: int) -> np.random.SeedSequence:
    """The `index`-th child of `SeedSequence(seed).spawn(…)`, made without the children
    before it: the seed of one game (or deal) wherever in the work it falls."""
    return np.random.SeedSequence(seed, spawn_key=(index,))


def spans(total: int, size: int) -> list[range]:
    """`range(total)` as consecutive ranges of `size` (the last one shorter): tasks sized
    by the work, never by the number of workers."""
    return [range(first, min(first + size, total)) for first in range(0, total, size)]


# --- player files as data ----------------------------------------------------------------------


@dataclass(frozen=True)
class Shipped:
    """A player file sent to a task as data: its path (what results and faults name) and
    its bytes (a worker on another machine may not see the path; None: no file there, and
    loading it fails as it would here)."""

    path: str
    source: bytes | None

    @classmethod
    def of(cls, path: str | Path) -> Shipped:
        path = Path(path)
        return cls(str(path), path.read_bytes() if path.is_file() else None)


@contextlib.contextmanager
def landed(files: Sequence[Shipped]) -> Iterator[list[str]]:
    """Paths in this worker that hold the files: each file itself where this machine sees
    it with the same bytes (this machine, a shared file system), else a copy under its own
    name in a temporary folder; a fault or load error of a copy names the file it copies."""
    with tempfile.TemporaryDirectory(prefix="mine-shipped-") as folder:
        here, copies = [], {}
        for index, file in enumerate(files):
            path = Path(file.path)
            if file.source is None or (path.is_file() and path.read_bytes() == file.source):
                here.append(file.path)
                continue
            copy = Path(folder, str(index), path.name)
            copy.parent.mkdir()
            copy.write_bytes(file.source)
            here.append(str(copy))
            copies[str(copy)] = file.path
        try:
            yield here
        except contained.PlayerFault as fault:
            if fault.path not in copies:
                raise
            raise contained.PlayerFault(copies[fault.path], fault.reason) from None
        except PlayerFileError as error:
            message = str(error)
            for copy, original in copies.items():
                message = message.replace(copy, original)
            raise PlayerFileError(message) from None

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

import _thread
import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Protocol, TypeVar

import numpy as np

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
        pool = spawned_pool(min(self.workers, len(tasks)))
        try:
            yield from pool.map(function, tasks)
        finally:  # stopped early (an error, ^C): the tasks not started are not wanted
            pool.shutdown(cancel_futures=True)


class KeptProcesses(LocalProcesses):
    """Local processes started at the first map that has tasks for more than one, and kept
    until `close()` (the end of its `with` block): for a command that maps batch after
    batch (ingest's replay), which would otherwise start its workers for every batch."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self._pool: ProcessPoolExecutor | None = None

    def map(self, function: Callable[[Task], Result], tasks: Iterable[Task]) -> Iterator[Result]:
        tasks = list(tasks)
        if self.workers == 1 or len(tasks) <= 1:
            return map(function, tasks)
        if self._pool is None:
            self._pool = spawned_pool(self.workers)
        return self._pool.map(function, tasks)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    def __enter__(self) -> KeptProcesses:
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()


PARENT_POLL_SECONDS = 1.0


def spawned_pool(workers: int) -> ProcessPoolExecutor:
    """Up to `workers` fresh processes of this machine (spawned, not forked: the caller may
    hold DuckDB's threads), each ending itself once the process that started it is gone: a
    parent killed outright (SIGKILL, the OOM killer) cannot stop its pool, whose workers
    would otherwise wait for work, holding their memory, for as long as the machine runs."""
    return _Pool(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_end_with,
        initargs=(os.getpid(),),
    )


STOPS = (signal.SIGINT, signal.SIGTERM)


class _Pool(ProcessPoolExecutor):
    """A pool whose workers never take Ctrl-C or SIGTERM: a terminal sends Ctrl-C to the
    command's whole process group (`timeout` its SIGTERM), and a worker that took it
    would stop wherever it stood, perhaps holding a lock of the pool's queues, for the
    pool to wait on forever. The command's process takes it, unwinds and shuts the pool
    down (its workers finish the tasks they run)."""

    def submit(self, *args, **kwargs):
        # A worker starts in submit: with both blocked, as CPython starts its resource
        # tracker (the mask is inherited: they stay blocked from the worker's first
        # instruction), and neither taken here before the pool has it (one taken sooner
        # would leave it half started, or not joined, to end in a traceback of its own).
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
        try:
            with _deferred_stops():
                return super().submit(*args, **kwargs)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)


@contextlib.contextmanager
def _deferred_stops() -> Iterator[None]:
    """Ctrl-C and SIGTERM taken once the block is over."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread takes them
        return
    taken: list[int] = []
    handlers = {number: signal.signal(number, lambda number, _: taken.append(number))
                for number in STOPS}  # fmt: skip
    try:
        yield
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)
        for number in taken:
            _thread.interrupt_main(number)  # as if it came now, to the handler restored


def _end_with(parent: int) -> None:
    # A thread that polls, not PR_SET_PDEATHSIG: that signal follows the *thread* that
    # spawned the worker, and a pool may be started from a thread that ends before it.
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="ends with its parent", daemon=True).start()


# --- splitting work by what it is ------------------------------------------------------------


def child(seed: int, index: int, *within: int) -> np.random.SeedSequence:
    """The `index`-th child of `SeedSequence(seed).spawn(…)`, made without the children
    before it: the seed of one game (or deal) wherever in the work it falls; with
    `within`, that child's own children in turn (game `within[0]` of match `index`)."""
    return np.random.SeedSequence(seed, spawn_key=(index, *within))


def spans(stop: int, size: int, start: int = 0) -> list[range]:
    """`range(start, stop)` as consecutive ranges of `size` (the last one shorter): tasks
    sized by the work, never by the number of workers."""
    return [range(first, min(first + size, stop)) for first in range(start, stop, size)]

"""Player files run contained: each in worker processes the harness watches from outside.

A user's player file is untrusted input. It may loop at import or in a call, exit
(`sys.exit`, `os._exit`), signal the harness, print into `--json` output or allocate
without end. So a validation runs its jobs in forked worker processes, each in a session
of its own, with stdout and stderr sent to /dev/null, the kill calls refused and an
address-space limit; the player's functions are wrapped to stamp each call's start in
memory shared with the parent, and the parent ends a worker whose import or call runs
over its limit. Whatever goes wrong is a `PlayerFault` naming the file and the reason;
the harness itself never ends with the player. Several files may share a worker (two
players head to head): the watch also stamps whose code runs, so a fault names its file.

The engine runs in the worker next to the player (a round trip per call would cost more
than the games), so the limits are the harness's, not a jail: a file that rewrites the
engine in its own process, or calls the C library directly, is outside what this guards.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import posix
import resource
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from types import ModuleType
from typing import Any

IMPORTING = -1
IDLE = -2
PAGE = os.sysconf("SC_PAGE_SIZE")
NAME_BYTES, MAX_NAMES = 32, 16


@dataclass(frozen=True)
class Limits:
    """What a player file may take: seconds to import, seconds per call (the games' own
    limits), and memory beyond the harness's own, in MB."""

    import_seconds: float = 10.0
    call_seconds: float = 1.0
    memory_mb: int = 2048


LIMITS = Limits()


class PlayerFault(RuntimeError):
    """The player file, not the harness, failed; the message names the file and why."""

    def __init__(self, path: Path | str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = str(path), reason

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        # Raised in a task on another process or machine, it crosses back whole.
        return PlayerFault, (self.path, self.reason)


class _Watch:
    """The worker's side: which of the player's functions runs, since when (shared memory
    the parent reads without asking)."""

    def __init__(self, paths: Sequence[str] = ()) -> None:
        self.paths = tuple(paths)  # the files of this run, in the parent's order
        self.started = multiprocessing.RawValue("d", 0.0)
        self.function = multiprocessing.RawValue("i", IDLE)
        self.owner = multiprocessing.RawValue("i", 0)  # whose code runs (or ran last)
        # The names are wrapped in the worker, after the fork: the parent reads them here.
        self.names = multiprocessing.RawArray("c", NAME_BYTES * MAX_NAMES)
        self.raised: tuple[int, str, BaseException] | None = None

    def owner_of(self, path: Path | str) -> int:
        name = str(Path(path))
        return self.paths.index(name) if name in self.paths else 0

    @contextlib.contextmanager
    def importing(self, path: Path | str = "") -> Iterator[None]:
        self.owner.value = self.owner_of(path)
        self.function.value, self.started.value = IMPORTING, time.monotonic()
        try:
            yield
        finally:
            self.function.value = IDLE

    def name(self, index: int) -> str:
        return self.names[index * NAME_BYTES : (index + 1) * NAME_BYTES].rstrip(b"\0").decode()

    def wrap(self, name: str, function: Callable, owner: int = 0) -> Callable:
        known = [self.name(i) for i in range(MAX_NAMES)]
        index = known.index(name) if name in known else known.index("")
        self.names[index * NAME_BYTES : (index + 1) * NAME_BYTES] = name.encode()[
            :NAME_BYTES
        ].ljust(NAME_BYTES, b"\0")

        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if self.function.value != IDLE:  # the player calling its own function
                return function(*args, **kwargs)
            self.owner.value = owner
            self.function.value, self.started.value = index, time.monotonic()
            try:
                return function(*args, **kwargs)
            except BaseException as error:
                self.raised = (owner, name, error)
                raise
            finally:
                self.function.value = IDLE

        return timed

    def doing(self) -> str:
        index = self.function.value
        if index == IMPORTING:
            return "importing the file"
        return f"{self.name(index)}()" if index >= 0 else "the harness"


_WATCH: _Watch | None = None


def watch() -> _Watch | None:
    """The watch of this worker process, or None outside a contained worker."""
    return _WATCH


def _refused(*_args: Any, **_kwargs: Any) -> None:
    raise PermissionError("a player file may not send signals")


def _seal(memory_mb: int) -> None:
    """What a worker does before any player code runs."""
    os.setsid()  # the player's killpg(0, …) reaches only its own worker
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    sys.stdin = sys.stdout = sys.stderr = open(os.devnull, "r+")  # noqa: SIM115
    for module, name in ((os, "kill"), (os, "killpg"), (posix, "kill"), (posix, "killpg"),
                         (signal, "pthread_kill")):  # fmt: skip
        setattr(module, name, _refused)
    with open("/proc/self/statm") as statm:
        harness = int(statm.read().split()[0]) * PAGE
    limit = harness + memory_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _describe(error: BaseException) -> str:
    if isinstance(error, SystemExit):
        return f"called sys.exit({error.code!r})"
    if isinstance(error, MemoryError):
        return "ran out of memory (MemoryError)"
    text = str(error).splitlines()[0] if str(error) else ""
    return f"raised {type(error).__name__}" + (f": {text}" if text else "")


def _blame(error: BaseException, watch_: _Watch, paths: Sequence[str]) -> tuple[int, str]:
    """Why the job ended, said of the player (its index in `paths`) whose code is to
    blame."""
    if watch_.raised is None:
        owner = watch_.owner.value
        if isinstance(error, ValueError):  # the loader's or the validator's own words
            text = str(error)
            for index, path in enumerate(paths):  # a file's own error names the file
                if text.startswith(f"{path}: "):
                    return index, text.removeprefix(f"{path}: ")
            return owner, text
        return owner, f"{_describe(error)} in the harness"
    owner, name, raised = watch_.raised
    then = "" if raised is error else f" (the harness then failed: {_describe(error)})"
    return owner, f"{_describe(raised)} in {name}(){then}"


def _serve(conn: Connection, job: Callable[[Any], Any], memory_mb: int, paths: tuple) -> None:
    _seal(memory_mb)
    watch_ = _WATCH
    assert watch_ is not None
    while True:
        try:
            chunk = conn.recv()
        except EOFError:
            os._exit(0)
        if chunk is None:
            conn.close()
            os._exit(0)
        for index, task in chunk:
            watch_.raised = None
            try:
                result = job(task)
            except BaseException as error:  # the player's exit or error ends this worker
                conn.send(("fault", *_blame(error, watch_, paths)))
                conn.close()
                os._exit(1)
            conn.send(("done", index, result))


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    watch: _Watch
    busy: list[int]

    def owner(self, paths: Sequence[str]) -> str:
        return paths[self.watch.owner.value] if paths else ""

    def overdue(self, limits: Limits, now: float) -> str | None:
        index, started = self.watch.function.value, self.watch.started.value
        if index == IDLE or not started:
            return None
        limit = limits.import_seconds if index == IMPORTING else limits.call_seconds
        if now - started > limit:
            return f"{self.watch.doing()} ran over its {limit:g} s limit"
        return None

    def end(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.join(timeout=5)
        self.conn.close()


def run(
    path: Path | str | Sequence[Path | str],
    job: Callable[[Any], Any],
    tasks: Sequence[Any],
    *,
    workers: int = 1,
    limits: Limits = LIMITS,
    chunk: int = 1,
    progress: Callable[[int], None] | None = None,
    contain: bool = True,
) -> list[Any]:
    """`job(task)` for every task, in contained workers (fork: `job` and what it loads
    run in the child); results in task order. PlayerFault when the player fails: `path`
    is the player file, or the files that play in the same jobs (the fault names the one
    to blame). `contain=False` runs the jobs here, unguarded: what the benchmark compares
    against."""
    global _WATCH
    paths = tuple(str(Path(p)) for p in ([path] if isinstance(path, str | Path) else path))
    if not contain:
        done = []
        for task in tasks:
            done.append(job(task))
            if progress:
                progress(len(done))
        return done
    context = multiprocessing.get_context("fork")
    queue = [list(enumerate(tasks))[i : i + chunk] for i in range(0, len(tasks), chunk)]
    queue.reverse()
    results: dict[int, Any] = {}
    pool: list[_Worker] = []
    try:
        for _ in range(max(1, min(workers, len(queue)))):
            here, there = context.Pipe()
            _WATCH = _Watch(paths)
            process = context.Process(target=_serve, args=(there, job, limits.memory_mb, paths))
            process.start()
            there.close()
            pool.append(_Worker(process, here, _WATCH, []))
        _WATCH = None
        for worker in pool:
            _give(worker, queue)
        while any(worker.busy for worker in pool):
            ready = wait([w.conn for w in pool if w.busy], timeout=0.05)
            now = time.monotonic()
            for worker in pool:
                if worker.conn in ready:
                    _receive(worker, paths, results, progress, queue)
                elif worker.busy and (reason := worker.overdue(limits, now)):
                    raise PlayerFault(worker.owner(paths), reason)
    finally:
        _WATCH = None
        for worker in pool:
            with contextlib.suppress(OSError, ValueError):
                worker.conn.send(None)
            worker.end()
    return [results[i] for i in range(len(tasks))]


def _give(worker: _Worker, queue: list[list[tuple[int, Any]]]) -> None:
    if queue:
        chunk = queue.pop()
        worker.busy = [index for index, _ in chunk]
        worker.conn.send(chunk)


def _receive(worker, paths, results, progress, queue) -> None:
    try:
        message = worker.conn.recv()
    except EOFError:
        worker.process.join(timeout=5)
        code = worker.process.exitcode
        raise PlayerFault(
            worker.owner(paths), f"ended its process (exit code {code}) in {worker.watch.doing()}"
        ) from None
    if message[0] == "fault":
        raise PlayerFault(paths[message[1]] if paths else "", message[2])
    _, index, result = message
    results[index] = result
    worker.busy.remove(index)
    if progress:
        progress(len(results))
    if not worker.busy:
        _give(worker, queue)


def load_wrapped(module: ModuleType, functions: Iterable[str], path: Path | str = "") -> ModuleType:
    """Inside a contained worker, the module's `functions` (of the file at `path`) stamp
    each call for the parent's time limit; elsewhere the module as it is."""
    if _WATCH is not None:
        owner = _WATCH.owner_of(path)
        for name in functions:
            setattr(module, name, _WATCH.wrap(name, getattr(module, name), owner))
    return module

"""Player files run contained: each in worker processes the harness watches from outside.

A user's player file is untrusted input. It may loop at import or in a call, exit
(`sys.exit`, `os._exit`), signal or write to the harness, send it what it cannot read,
leave processes behind, or allocate without end. So a validation runs its jobs in forked
worker processes kept apart from the harness (`confinement`: a user of their own when
the harness is root, no descriptor but their channel, dead with the harness, only so many
processes, everything they start ended with the run) under an address-space limit. A
worker tells the harness its results as plain data (`plain_messages`), which the harness
checks; it never runs what a worker sends.

The limits count CPU time (the courses' seconds, which a busy machine does not use up) of
the worker and every process it runs, read by the parent from outside (the kernel's
clocks, /proc); each also ends at `Limits.wall_factor` times as long on the parent's own
clock (a file that sleeps or waits), as the engines' referee times a call. The player's
functions are wrapped to say in a page of shared memory which of them runs, and the
parent times each call and the import by what it sees there; the processes a worker
starts (a Haskell program, what a file forks) may spend no more than a call's limit
between calls. Since the player runs in the worker, it can write that page and hide its
calls, but not its job: the parent ends a job that runs over its own limit whatever the
page says, and ends at once the orphans a file leaves. Whatever goes wrong is a
`PlayerFault` naming the file and the reason; the harness itself never ends with the
player. Several files may share a worker (two players head to head): the page also says
whose code runs, so a fault names its file. A worker sees no other worker's page.

The engine runs in the worker next to the player (a round trip per call would cost more
than the games), so the figures are the worker's word: a file that rewrites the engine in
its own process, or the watch, can change what its job reports, or blame the other file
of its job, but not reach the harness.
"""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import functools
import mmap
import os
import pickle
import posix
import re
import select
import signal
import socket
import struct
import sys
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from mine.inputs import exit_code, raised
from mine.strategies import confinement
from mine.strategies.plain_messages import HEADER, Malformed, decode, encode, length

IMPORTING = -1
IDLE = -2
NAME_BYTES, MAX_NAMES = 32, 16
POLL = 0.05  # seconds between the parent's looks at its workers
SEND_SECONDS = 30  # a worker that takes none of its next tasks in this long is stuck
ENDING_SECONDS = 10  # a worker that closed its channel ends in this long (a busy machine's)
REASON_CHARACTERS = 300
LOST_CHANNEL = 71  # a worker's exit code when its channel fails: the file closed or replaced it


@dataclass(frozen=True)
class Limits:
    """What a player file may take, in CPU seconds of its worker and the processes it runs:
    to import, per call (the games' own limits), for a whole job (one chunk of tasks, work
    of seconds: what ends a file that hides its calls from the watch); each ends as well at
    `wall_factor` times as long on the parent's clock; memory beyond the harness's own in
    MB."""

    import_seconds: float = 10.0
    call_seconds: float = 1.0
    memory_mb: int = 2048
    job_seconds: float = 120.0
    wall_factor: float = 10.0  # a busy machine slows a valid file a few times, not ten


LIMITS = Limits()


class PlayerFault(RuntimeError):
    """The player file, not the harness, failed; the message names the file and why."""

    def __init__(self, path: Path | str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = str(path), reason

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        # Raised in a task on another process or machine, it crosses back whole.
        return PlayerFault, (self.path, self.reason)


class Ended(BaseException):
    """A player's code ended in a way its loader words itself (a Haskell player's program
    that ended or ran out of memory): the message is the reason. Not an Exception, so no
    engine takes it for one invalid play."""


class _Page(ctypes.Structure):
    """The shared page: the calls started (the import too), the function that runs (an
    index into `names`, IMPORTING or IDLE) and whose code it is (an index into the run's
    files)."""

    _fields_ = [
        ("calls", ctypes.c_uint64),
        ("function", ctypes.c_int32),
        ("owner", ctypes.c_int32),
        ("names", (ctypes.c_char * NAME_BYTES) * MAX_NAMES),
    ]


class _Watch:
    """The worker's side: which of the player's functions runs, written where the parent
    reads it without asking."""

    def __init__(self, paths: Sequence[str] = ()) -> None:
        self.paths = tuple(paths)  # the files of this run, in the parent's order
        self.memory = mmap.mmap(-1, ctypes.sizeof(_Page))  # shared with the next fork
        self.page = _Page.from_buffer(self.memory)
        self.page.function = IDLE
        self.raised: tuple[int, str, BaseException] | None = None
        self.channel: tuple[int, tuple[int, int] | None] = (-1, None)  # its fd, what it is
        self.lost_by: int | None = None  # the file whose call closed or replaced the channel

    def keep(self, channel: int) -> None:
        self.channel = (channel, _identity(channel))

    def check(self, owner: int) -> None:
        """After a call (or the import) of `owner`'s: if the channel is no longer the
        harness's, that file lost it, whoever's call comes last before the worker finds
        out (in a game of two files, the other's)."""
        if self.lost_by is None and _identity(self.channel[0]) != self.channel[1]:
            self.lost_by = owner

    def owner_of(self, path: Path | str) -> int:
        name = str(Path(path))
        return self.paths.index(name) if name in self.paths else 0

    @contextlib.contextmanager
    def importing(self, path: Path | str = "") -> Iterator[None]:
        page = self.page
        page.owner, page.function = self.owner_of(path), IMPORTING
        page.calls += 1
        try:
            yield
        finally:
            page.function = IDLE
            self.check(page.owner)

    def wrap(self, name: str, function: Callable, owner: int = 0) -> Callable:
        encoded = name.encode()[:NAME_BYTES]
        known = [slot.value for slot in self.page.names]
        index = known.index(encoded) if encoded in known else known.index(b"")
        self.page.names[index].value = encoded
        page = self.page

        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if page.function != IDLE:  # the player calling its own function
                return function(*args, **kwargs)
            page.owner, page.function = owner, index
            page.calls += 1
            try:
                return function(*args, **kwargs)
            except BaseException as error:
                self.raised = (owner, name, error)
                raise
            finally:
                page.function = IDLE
                self.check(owner)

        return timed


def _identity(descriptor: int) -> tuple[int, int] | None:
    """What file `descriptor` is (None: closed), to tell when a file's call replaced it."""
    try:
        found = os.fstat(descriptor)
    except OSError:
        return None
    return found.st_dev, found.st_ino


_WATCH: _Watch | None = None
_PROGRAMS: weakref.WeakSet = weakref.WeakSet()  # the programs this process runs for files


def watch() -> _Watch | None:
    """The watch of this worker process, or None outside a contained worker."""
    return _WATCH


def runs_program(process: Any) -> None:
    """`process` (a `subprocess.Popen`) runs a player file's program for this process (a
    Haskell player): it lives on from task to task, as the module that holds it does (what
    a file starts does not)."""
    _PROGRAMS.add(process)


def _refused(*_args: Any, **_kwargs: Any) -> None:
    raise PermissionError("a player file may not send signals")


def _seal() -> None:
    """The worker's Python side, before any player code runs: its streams lead nowhere and
    the signal calls say why they fail (the worker's user is what stops them)."""
    sys.stdin = sys.stdout = sys.stderr = open(os.devnull, "r+")  # noqa: SIM115
    for module, name in ((os, "kill"), (os, "killpg"), (posix, "kill"), (posix, "killpg"),
                         (signal, "pthread_kill")):  # fmt: skip
        setattr(module, name, _refused)


def _describe(error: BaseException) -> str:
    if isinstance(error, Ended):
        return str(error)
    if isinstance(error, SystemExit):
        return f"called sys.exit({exit_code(error)})"
    if isinstance(error, MemoryError):
        return "ran out of memory (MemoryError)"
    kind, text = raised(error)
    return f"raised {kind}" + (f": {text}" if text else "")


def _blame(error: BaseException, watch_: _Watch, paths: Sequence[str]) -> tuple[int, str]:
    """Why the job ended, said of the player (its index in `paths`) whose code is to
    blame."""
    if watch_.raised is None:
        owner = watch_.page.owner
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


# --- the worker ----------------------------------------------------------------------------


def _work(channel: socket.socket, job: Callable[[Any], Any], watch_: _Watch, paths) -> None:
    """Run the tasks the parent sends (pickles: the parent's own data) and answer each in
    plain data; the first fault ends the worker."""
    while True:
        for index, task in pickle.loads(_exactly(channel, length(_exactly(channel, HEADER.size)))):
            watch_.raised = None
            try:
                result = job(task)
            except BaseException as error:  # the player's exit or error ends this worker
                channel.sendall(encode(["fault", *_blame(error, watch_, paths)]))
                return
            _end_strays()
            try:  # a number of the file's own class runs its code here, and may raise
                message = encode(["done", index, result])
            except Exception as error:  # an int past Python's 4,300 digits: a ValueError
                reason = f"its job returned what the harness cannot read ({_describe(error)})"
                channel.sendall(encode(["fault", watch_.page.owner, reason]))
                return
            channel.sendall(message)


def _end_strays() -> None:
    """After a task, in the worker: every process a file started is ended (the programs it
    runs for files live on; what they started is ended too). Its orphans land with the
    harness, which ends them."""
    programs = {process.pid for process in list(_PROGRAMS)}
    for child in confinement.children(os.getpid()):
        if child in programs:
            for stray in confinement.children(child):
                confinement.kill(stray, child)
        else:
            confinement.kill(child, os.getpid())
            with contextlib.suppress(ChildProcessError):
                os.waitpid(child, 0)


def _exactly(channel: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = channel.recv(size - len(data))
        if not chunk:
            os._exit(0)  # the parent is gone
        data += chunk
    return bytes(data)


def _worker(job, paths, limits: Limits, users: str, guard: confinement.Guard) -> _Worker:
    """Fork a worker, confined before it runs anything of the player's."""
    global _WATCH
    here, there = socket.socketpair()
    trace, traced = os.pipe()
    watch_ = _Watch(paths)
    harness = os.getpid()
    pid = confinement.fork()
    if pid == 0:
        try:
            _WATCH = watch_
            user = confinement.user_of(os.getpid(), users)
            confinement.confine((there.fileno(), traced), harness, user, limits.memory_mb)
            faulthandler.enable(traced)  # where a crash of the harness's code ends it: said
            _seal()
            watch_.keep(there.fileno())
            try:
                _work(there, job, watch_, paths)
            except OSError:  # its jobs' errors are sent: this is the channel's own
                if watch_.lost_by is not None:  # the parent blames the page's owner
                    watch_.page.owner = watch_.lost_by
                os._exit(LOST_CHANNEL)
        except BaseException:  # the parent is gone, or the worker could not be confined
            os._exit(70)
        os._exit(0)
    there.close()
    os.close(traced)
    os.set_blocking(trace, False)
    watch_.memory.madvise(mmap.MADV_DONTFORK)  # no later worker sees this one's page
    guard.tell("+", pid, confinement.user_of(pid, users))
    here.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", SEND_SECONDS, 0))
    return _Worker(pid, os.pidfd_open(pid), here, watch_.page, trace)


# --- the parent ----------------------------------------------------------------------------


def _signal_name(number: int) -> str:
    try:
        return f"killed by {signal.Signals(number).name}"
    except ValueError:
        return f"killed by signal {number}"


def _over(since: _Mark, now: _Mark, limit: float, factor: float) -> str | None:
    """Whether what was spent since `since` is over `limit`: None if not, else what the
    reason adds (nothing for CPU seconds over it, the wall clock's when its seconds are
    over `factor` times it)."""
    if since.cpu(now) > limit:
        return ""
    if now.wall - since.wall > limit * factor:
        return f" ({limit * factor:g} s of wall time)"
    return None


class _Spent:
    """What a worker's processes have spent, read from outside: the worker's CPU seconds,
    and its descendants' (each from its start, as far as seen: they come and go)."""

    def __init__(self, pid: int) -> None:
        self.pid, self.own, self.others = pid, 0.0, 0.0
        self.seen: dict[int, float] = {}

    def now(self) -> tuple[float, float]:
        """(the worker's, its descendants') CPU seconds so far."""
        self.own = confinement.cpu_seconds(self.pid) or self.own
        seen = {}
        for pid in confinement.tree(self.pid)[1:]:
            spent = confinement.cpu_seconds(pid)
            if spent is not None:
                seen[pid] = spent
                self.others += max(0.0, spent - self.seen.get(pid, 0.0))
        self.seen = seen
        return self.own, self.others


@dataclass(frozen=True)
class _Mark:
    """A moment of a worker: the parent's clock, and its processes' CPU seconds."""

    wall: float
    own: float
    others: float

    def cpu(self, now: _Mark) -> float:
        return now.own - self.own + now.others - self.others


@dataclass
class _Worker:
    """The parent's side of a worker: its process, channel and page, what it was given
    and when, what its processes have spent, and what it has sent so far."""

    pid: int
    pidfd: int
    channel: socket.socket
    page: _Page
    trace: int  # what its fault handler wrote, should it crash
    busy: list[int] = field(default_factory=list)
    given: _Mark = _Mark(0.0, 0.0, 0.0)  # when the parent gave it the tasks it is busy with
    seen: tuple[int, int] = (0, IDLE)  # the page's calls and function, as last seen
    since: _Mark = _Mark(0.0, 0.0, 0.0)  # when the parent saw them change
    looked: float = 0.0  # when the parent last read what it spent
    received: bytearray = field(default_factory=bytearray)
    exited: bool = False

    def __post_init__(self) -> None:
        self.spent = _Spent(self.pid)

    def mark(self, now: float) -> _Mark:
        return _Mark(now, *self.spent.now())

    def owner(self, paths: Sequence[str]) -> str:
        owner = self.page.owner
        return paths[owner] if 0 <= owner < len(paths) else paths[0]

    def doing(self) -> str:
        index = self.page.function
        if index == IMPORTING:
            return "importing the file"
        if index == IDLE:
            return "the harness"
        if not 0 <= index < MAX_NAMES:
            return "a function of its own"
        name = self.page.names[index].value.decode(errors="replace")
        return "".join(c if c.isprintable() else "?" for c in name) + "()"

    def overdue(self, limits: Limits, now: float) -> str | None:
        """Why the worker is to end (it ran over a limit), or None; it is looked at once a
        POLL at most (each look reads /proc)."""
        if now - self.looked < POLL:
            return None
        self.looked, mark = now, self.mark(now)
        state = (self.page.calls, self.page.function)
        if state != self.seen:
            self.seen, self.since = state, mark
        if state[1] == IDLE:  # the harness runs: the worker's other processes wait
            if mark.others - self.since.others > limits.call_seconds:
                return (f"its processes ran over the {limits.call_seconds:g} s limit of a call "
                        "between its calls")  # fmt: skip
        else:
            limit = limits.import_seconds if state[1] == IMPORTING else limits.call_seconds
            if (over := _over(self.since, mark, limit, limits.wall_factor)) is not None:
                return f"{self.doing()} ran over its {limit:g} s limit{over}"
        if (over := _over(self.given, mark, limits.job_seconds, limits.wall_factor)) is not None:
            return f"its job ran over the {limits.job_seconds:g} s limit of a job{over}"
        return None

    def give(self, queue: list[list[tuple[int, Any]]], paths: Sequence[str]) -> None:
        if not queue:
            return
        chunk = queue.pop()
        self.busy = [index for index, _ in chunk]
        self.given = self.since = self.mark(time.monotonic())
        data = pickle.dumps(chunk)
        try:
            self.channel.sendall(HEADER.pack(len(data)) + data)
        except OSError:  # it closed its channel, ended, or stopped reading
            self.ended(paths)

    def read(self, paths: Sequence[str], results: dict[int, Any]) -> bytes | None:
        """Take what has arrived: the bytes (b"" once the channel is closed), or None when
        nothing has."""
        try:
            data = self.channel.recv(1 << 16, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return None
        except OSError:
            data = b""
        self.received += data
        try:
            while len(self.received) >= HEADER.size:
                size = length(bytes(self.received[: HEADER.size]))
                if len(self.received) < HEADER.size + size:
                    break
                message = decode(bytes(self.received[HEADER.size : HEADER.size + size]))
                del self.received[: HEADER.size + size]
                self.take(message, paths, results)
        except Malformed as error:
            reason = f"sent the harness a malformed message ({error})"
            raise PlayerFault(self.owner(paths), reason) from None
        return data

    def take(self, message: Any, paths: Sequence[str], results: dict[int, Any]) -> None:
        """A result of a task it was given, or a fault of one of its files (one line)."""
        files = range(len(paths))
        match message:
            case ["done", int(index), result] if type(index) is int and index in self.busy:
                results[index] = result
                self.busy.remove(index)
            case ["fault", int(owner), str(why)] if type(owner) is int and owner in files:
                line = "".join(c if c.isprintable() else " " for c in why)[:REASON_CHARACTERS]
                raise PlayerFault(paths[owner], line)
            case _:
                raise Malformed("not a result it was asked for, nor a fault of its files")

    def ended(self, paths: Sequence[str]) -> None:
        """The worker closed its channel or ended: the fault, after what it sent last."""
        while self.read(paths, {}):  # until nothing more, or the end
            pass
        poll = select.poll()
        poll.register(self.pidfd, select.POLLIN)
        if not poll.poll(ENDING_SECONDS * 1000):  # alive without its channel
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        _, status = os.waitpid(self.pid, 0)
        self.exited = True
        code = os.waitstatus_to_exitcode(status)
        if code == LOST_CHANNEL:  # what the file did to the descriptors it was not given
            reason = "closed or replaced the harness's channel (a descriptor it did not open)"
            raise PlayerFault(self.owner(paths), reason)
        how = f"exit code {code}" if code >= 0 else _signal_name(-code) + self.crashed_at()
        raise PlayerFault(self.owner(paths), f"ended its process ({how}) in {self.doing()}")

    def crashed_at(self) -> str:
        """Where its code was when it crashed (the innermost frame its fault handler wrote:
        the harness's own, or the file's), or nothing."""
        with contextlib.suppress(OSError):
            written = os.read(self.trace, 1 << 16).decode(errors="replace")
            frame = re.search(r'^  File "(.*)", line (\d+) in (\S+)$', written, re.MULTILINE)
            if frame:
                where = f"{frame[1]}:{frame[2]} in {frame[3]}"
                return " at " + "".join(c if c.isprintable() else "?" for c in where)[:200]
        return ""

    def end(self) -> None:
        if not self.exited:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        os.close(self.pidfd)
        os.close(self.trace)
        self.channel.close()


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
    run in the child); results in task order, as plain data (`plain_messages`). PlayerFault
    when the player fails: `path` is the player file, or the files that play in the same
    jobs (the fault names the one to blame). `contain=False` runs the jobs here,
    unguarded: what the benchmark compares against."""
    paths = tuple(str(Path(p)) for p in ([path] if isinstance(path, str | Path) else path))
    if not contain:
        done = []
        for task in tasks:
            done.append(job(task))
            if progress:
                progress(len(done))
        return done
    queue = [list(enumerate(tasks))[i : i + chunk] for i in range(0, len(tasks), chunk)]
    queue.reverse()
    results: dict[int, Any] = {}
    pool: list[_Worker] = []
    users = confinement.player_users()
    with confinement.harness_settings():
        began, guard = confinement.ticks(), confinement.guard()
        try:
            for _ in range(max(1, min(workers, len(queue)))):
                pool.append(_worker(job, paths, limits, users, guard))
            for worker in pool:
                worker.give(queue, paths)
            spare, swept = {guard.pid, *(worker.pid for worker in pool)}, 0.0
            while busy := [worker for worker in pool if worker.busy]:
                _watch(busy, paths, limits, results, progress, queue)
                if time.monotonic() - swept > POLL:  # the orphans a file left, at once
                    confinement.end_started(began, spare)
                    swept = time.monotonic()
        finally:
            for worker in pool:
                worker.end()
                confinement.end_own(worker.pid, users)
            confinement.end_started(began, {guard.pid})
            for worker in pool:
                guard.tell("-", worker.pid, confinement.user_of(worker.pid, users))
    return [results[i] for i in range(len(tasks))]


def _watch(busy: list[_Worker], paths, limits: Limits, results, progress, queue) -> None:
    """One look at the busy workers: what they sent, whether they ended, whether they
    ran over a limit (also while they send: a trickle of bytes is no call's end)."""
    poll = select.poll()
    for worker in busy:
        poll.register(worker.channel, select.POLLIN)
        poll.register(worker.pidfd, select.POLLIN)
    ready = {fd for fd, _ in poll.poll(POLL * 1000)}
    now = time.monotonic()
    for worker in busy:
        if worker.channel.fileno() in ready or worker.pidfd in ready:
            done = len(results)
            if worker.read(paths, results) == b"" or worker.pidfd in ready:
                worker.ended(paths)
            if progress and len(results) > done:
                progress(len(results))
            if not worker.busy:
                worker.give(queue, paths)
        if worker.busy and (reason := worker.overdue(limits, now)):
            raise PlayerFault(worker.owner(paths), reason)


def load_wrapped(module: ModuleType, functions: Iterable[str], path: Path | str = "") -> ModuleType:
    """Inside a contained worker, the module's `functions` (of the file at `path`) stamp
    each call for the parent's time limit; elsewhere the module as it is."""
    if _WATCH is not None:
        owner = _WATCH.owner_of(path)
        for name in functions:
            setattr(module, name, _WATCH.wrap(name, getattr(module, name), owner))
    return module

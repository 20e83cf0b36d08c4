"""What keeps a contained worker's process apart from the harness (Linux).

Right after its fork a worker leaves the harness's session, keeps no descriptor but its
channel (stdin, stdout and stderr on /dev/null) and, when the harness is root, becomes a
user of its own (`UID_BASE` + its pid, ids no system hands out; `nobody` where only that is
mapped) with no groups and one capability, reading any file: it cannot write the harness's
files, signal or trace its processes or open their descriptors. It gains no privilege by
exec, dies with the harness (its parent-death signal, which a player can clear), is the
first to go when memory runs out, and may run only so many processes (a fork bomb stops
there). During a run the harness is a child subreaper (what a worker starts and leaves
becomes the harness's child, so `end_started` finds and ends it) and not dumpable (its
/proc is closed to a worker of its own user). A guard process, one per harness, follows
the workers and, should the harness die, ends all of theirs. The harness reads what a
worker's processes spend from outside (`tree`, `cpu_seconds`): nothing a worker says.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import itertools
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

LIBC = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG, PR_GET_DUMPABLE, PR_SET_DUMPABLE, PR_SET_KEEPCAPS = 1, 3, 4, 8
PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 36, 37, 38
CPUCLOCK_SCHED = 2  # a process's CPU clock id: its pid, complemented, shifted, and this
CAPABILITY_V3, CAP_DAC_READ_SEARCH = 0x20080522, 2
UID_BASE, PID_LIMIT, NOBODY = 0x7000_0000, 1 << 22, 65534  # systemd leaves 0x70000000… unused
# The processes (threads count) a worker's user may run: what a fork bomb gets. A user of its
# own runs the worker alone; a user it shares (yours when not root, nobody) runs others
# that come and go beside it, so it may add this many to what that user runs when it starts.
MAX_PROCESSES, SHARED_PROCESSES = 64, 256
PAGE = os.sysconf("SC_PAGE_SIZE")


def _prctl(option: int, value: int = 0) -> int:
    result = LIBC.prctl(option, ctypes.c_ulong(value), 0, 0, 0)
    if result < 0:
        raise OSError(ctypes.get_errno(), f"prctl({option})")
    return result


def _mapped(first: int, count: int) -> bool:
    """Whether the user namespace maps the ids first … first + count - 1."""
    with open("/proc/self/uid_map") as lines:
        for line in lines:
            inside, _, size = map(int, line.split())
            if inside <= first and first + count <= inside + size:
                return True
    return False


def player_users() -> str:
    """Whom workers run as: 'own' (a user per worker), 'nobody', or 'same' (the harness's
    user: it is not root)."""
    if os.geteuid() != 0:
        return "same"
    if _mapped(UID_BASE, PID_LIMIT):
        return "own"
    return "nobody" if _mapped(NOBODY, 1) else "same"


def user_of(pid: int, users: str) -> int | None:
    """The user a worker of this pid runs as (None: the harness's)."""
    return {"own": UID_BASE + pid, "nobody": NOBODY}.get(users)


@contextlib.contextmanager
def harness_settings() -> Iterator[None]:
    """The harness, for a run: a child subreaper and not dumpable (restored after)."""
    subreaper = ctypes.c_int()
    LIBC.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(subreaper), 0, 0, 0)
    dumpable = _prctl(PR_GET_DUMPABLE)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_DUMPABLE, 0)
    try:
        yield
    finally:
        _prctl(PR_SET_DUMPABLE, dumpable)
        _prctl(PR_SET_CHILD_SUBREAPER, subreaper.value)


def _only(keep: Collection[int]) -> None:
    """Stdin, stdout and stderr on /dev/null, the descriptors `keep` kept, every other
    closed (each keeps its number: objects the fork copied may still name the others')."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    for low, high in itertools.pairwise([2, *sorted(keep), 2**31 - 1]):
        os.closerange(low + 1, high)


def confine(keep: Collection[int], harness: int, user: int | None, memory_mb: int) -> None:
    """What a worker does right after its fork, before any player code runs (`keep`: its
    descriptors to the harness)."""
    os.setsid()
    for number in (signal.SIGINT, signal.SIGTERM):
        # the command's own, which unwinds it: a signal the file sends its group ends the
        # worker as one (`killed by SIGTERM`), not as a KeyboardInterrupt in its call
        signal.signal(number, signal.SIG_DFL)
    _only(keep)
    with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as score:
        score.write("1000")  # when memory runs out, the worker goes first
    with open("/proc/self/statm") as statm:
        limit = int(statm.read().split()[0]) * PAGE + memory_mb * 2**20
    lower(resource.RLIMIT_AS, limit, limit)
    if user is not None:
        _become(user)
        # The harness's temporary folder may be closed to this user (a TMPDIR under
        # /root): the next one is found as Python finds one, the first this user can write.
        tempfile.tempdir = None
    _limit_processes(own=user is not None and user != NOBODY)
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # after the user changes: that clears it
    if os.getppid() != harness:  # the harness died before the signal was set
        os._exit(1)


class _CapabilityHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapabilityData(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint32) for name in ("effective", "permitted", "inheritable")]


def _become(user: int) -> None:
    """Run as `user`, with no groups and one capability left: reading and listing any
    file (the player file and the harness's modules may sit in folders only root reads)."""
    _prctl(PR_SET_KEEPCAPS, 1)
    os.setgroups([])
    os.setresgid(user, user, user)
    os.setresuid(user, user, user)
    data = (_CapabilityData * 2)()
    data[0].effective = data[0].permitted = 1 << CAP_DAC_READ_SEARCH
    LIBC.capset(ctypes.byref(_CapabilityHeader(CAPABILITY_V3, 0)), data)  # best effort


def open_error(path: str | os.PathLike, users: str) -> int:
    """The errno a worker of `users` gets opening `path` to read, 0 if none. Another
    user's rights are not in the file's modes alone (ACLs, the capability `_become` keeps
    only where the system grants it), so a child that becomes that user tries."""
    if users == "same":  # the worker is the harness's user
        return _open_error(path)
    child = fork()
    if child == 0:
        code = 0  # also when it cannot become the user: the worker then says so itself
        try:
            _become(user_of(os.getpid(), users))
            code = _open_error(path)
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    return max(0, os.waitstatus_to_exitcode(status))


def _open_error(path: str | os.PathLike) -> int:
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))  # a FIFO swapped in: no wait
    except OSError as error:
        return error.errno or 0
    return 0


def lower(limit: int, soft: int, hard: int) -> None:
    """The limit at most `soft` and `hard`, and no higher than the hard limit it has (a
    process may only lower that: a user's `ulimit -v` under it stands)."""
    _, now = resource.getrlimit(limit)
    if now != resource.RLIM_INFINITY:
        soft, hard = min(soft, now), min(hard, now)
    resource.setrlimit(limit, (soft, hard))


def _limit_processes(own: bool) -> None:
    """At most MAX_PROCESSES tasks of its own user, or SHARED_PROCESSES more than a user
    it shares runs now (the kernel does not hold root to it: a worker is never root)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    limit = MAX_PROCESSES if own else _tasks(os.getuid()) + SHARED_PROCESSES
    limit = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))


def _tasks(uid: int) -> int:
    """The tasks (processes and their threads: what RLIMIT_NPROC counts) `uid` runs."""
    count = 0
    for name in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError, KeyError, ValueError):
            with open(f"/proc/{name}/status", "rb") as status:
                fields = dict(line.split(b":", 1) for line in status if b":" in line)
            if int(fields[b"Uid"].split()[0]) == uid:
                count += int(fields[b"Threads"])
    return count


# --- the processes of a run -----------------------------------------------------------------


@dataclass(frozen=True)
class Process:
    pid: int
    state: str
    ppid: int
    session: int
    start: int  # clock ticks after boot


def _process(pid: int) -> Process | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
    except OSError:
        return None  # gone
    state, ppid, session, start = fields[0], fields[1], fields[3], fields[19]
    return Process(pid, state.decode(), int(ppid), int(session), int(start))


def processes() -> dict[int, Process]:
    found = (_process(int(name)) for name in os.listdir("/proc") if name.isdigit())
    return {process.pid: process for process in found if process is not None}


def ticks() -> int:
    """Now, in the clock of a process's start."""
    return int(time.clock_gettime(time.CLOCK_BOOTTIME) * os.sysconf("SC_CLK_TCK"))


def cpu_seconds(pid: int) -> float | None:
    """The CPU time `pid` has used (all its threads), read from outside in the kernel's own
    clock of it; None once it is gone."""
    try:
        return time.clock_gettime(((~pid) << 3) | CPUCLOCK_SCHED)
    except OSError:
        return None


def children(pid: int, every_thread: bool = False) -> list[int]:
    """The children of `pid`: those its main thread started, or those of each of its
    threads (where orphans land in a subreaper)."""
    threads = os.listdir(f"/proc/{pid}/task") if every_thread else [pid]
    found = []
    for thread in threads:
        with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{thread}/children") as listed:
            found += map(int, listed.read().split())
    return found


def tree(pid: int) -> list[int]:
    """`pid` and its descendants (as their main threads started them)."""
    found, stack = [pid], [pid]
    while stack:
        below = children(stack.pop())
        found += below
        stack += below
    return found


def _kill(pid: int, still: Callable[[Process], bool]) -> None:
    """SIGKILL `pid` if it is still what `still` says (through a pidfd: the pid cannot
    pass to another process between the look and the signal)."""
    with contextlib.suppress(OSError):
        pidfd = os.pidfd_open(pid)
        try:
            process = _process(pid)
            if process is not None and still(process):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        finally:
            os.close(pidfd)


def end_tree(pid: int) -> None:
    """SIGKILL `pid` and its descendants (those there now: what they start after lands with
    a subreaper). `pid` must not be collected yet, or it may name another process."""
    for each in tree(pid):
        _kill(each, lambda _: True)


def kill(pid: int, parent: int) -> None:
    """SIGKILL `pid` if it is still a child of `parent`."""
    _kill(pid, lambda process: process.ppid == parent)


def end_own(pid: int, users: str) -> None:
    """SIGKILL every process of the worker `pid`'s user when it is a user of its own."""
    if users == "own":
        _end_user(UID_BASE + pid)


def fork() -> int:
    """`os.fork`, the child's collector kept off what this process holds: the parent's
    objects stay frozen there, never finalized (a DuckDB connection left in a garbage
    cycle, finalized in a fork that has none of its threads, crashes the fork)."""
    gc.freeze()
    try:
        pid = os.fork()
    except BaseException:
        gc.unfreeze()
        raise
    if pid != 0:
        gc.unfreeze()
    return pid


def _end_user(user: int) -> None:
    """SIGKILL every process of `user` at once (a fork bomb has no time to refill): a child
    that becomes the user does it, as the kernel lets a user signal all its own processes,
    and no other's, with kill(-1)."""
    child = fork()
    if child == 0:
        try:
            os.setresgid(user, user, user)
            os.setresuid(user, user, user)
            LIBC.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    os.waitpid(child, 0)


def _started_since(pid: int, since: int) -> bool:
    process = _process(pid)
    return process is not None and process.start >= since


def end_started(since: int, spare: Collection[int]) -> None:
    """In the harness: SIGKILL every process the run started (its children since `since`
    but those in `spare`, and their descendants), and collect them, until there is none
    (what they leave lands with the harness). During a run, with the workers spared: the
    orphans a file left; at its end, with only the guard: everything."""
    harness = os.getpid()
    for _ in range(1000):
        started = [pid for pid in children(harness, every_thread=True)
                   if pid not in spare and _started_since(pid, since)]  # fmt: skip
        if not started:
            return
        table = processes()
        below: dict[int, list[int]] = {}
        for process in table.values():
            below.setdefault(process.ppid, []).append(process.pid)
        ours, stack = set(started), list(started)
        while stack:
            for child in below.get(stack.pop(), ()):
                ours.add(child)
                stack.append(child)
        parents = ours | {harness}
        for pid in ours:
            _kill(pid, lambda process: process.ppid in parents)  # noqa: B023 (used here)
        for pid in started:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


class Guard:
    """A process that outlives the harness: told of each worker as it starts and ends, it
    ends every process of the live workers' users and sessions if the harness dies. One
    per harness process, started with its first run (its start costs more than a run).
    The same Python runs it (/proc/self/exe: whatever path it was started by)."""

    def __init__(self) -> None:
        read, self.pipe = os.pipe()
        self.harness = os.getpid()
        try:
            self.process: subprocess.Popen | None = subprocess.Popen(
                ["/proc/self/exe", "-I", "-S", __file__], stdin=read,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        except OSError:  # no guard: the harness still ends what a run leaves
            self.process = None
        os.close(read)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def running(self) -> bool:
        return self.harness == os.getpid() and (self.process is None or self.process.poll() is None)

    def tell(self, sign: str, worker: int, user: int | None) -> None:
        own = user is not None and user != NOBODY  # nobody's other processes are not ours
        with contextlib.suppress(OSError):  # a guard gone: the harness still ends its run
            os.write(self.pipe, f"{sign} {worker} {user if own else -1}\n".encode())


_GUARD: Guard | None = None


def guard() -> Guard:
    """This process's guard (started anew if it is not running)."""
    global _GUARD
    if _GUARD is None or not _GUARD.running():
        _GUARD = Guard()
    return _GUARD


def _guard() -> None:
    """The guard's program: follow the workers until the harness is gone, then SIGKILL
    every process of the live ones' users (each all at once) and sessions until there is
    none."""
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_IGN)
    live: set[tuple[int, int]] = set()
    for line in sys.stdin:
        sign, worker, user = line.split()
        (live.add if sign == "+" else live.discard)((int(worker), int(user)))
    sessions = {worker for worker, _ in live}
    users = {user for _, user in live if user >= 0}
    for user in users:
        _end_user(user)

    def started(process: Process) -> bool:
        return process.session in sessions or _user(process.pid) in users

    for _ in range(1000):
        strays = [pid for pid, p in processes().items() if p.state not in "ZX" and started(p)]
        if not strays:
            return
        for pid in strays:
            _kill(pid, started)
        time.sleep(0.001)


def _user(pid: int) -> int | None:
    with (
        contextlib.suppress(OSError, StopIteration, ValueError),
        open(f"/proc/{pid}/status", "rb") as status,
    ):
        return next(int(line.split()[1]) for line in status if line.startswith(b"Uid:"))
    return None


if __name__ == "__main__":
    _guard()

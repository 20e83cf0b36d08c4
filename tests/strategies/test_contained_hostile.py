"""Player files written to attack the harness, run through `mine validate hog X.py --json`
as a user runs it: whatever the file tries, the harness outlives it, its output stays
clean, nothing the file sends runs in the harness, a hidden loop still ends, and nothing
the file started is left running."""

from __future__ import annotations

import ctypes
import dataclasses
import gc
import itertools
import json
import os
import pwd
import subprocess
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mine.strategies import confinement, contained
from mine.strategies.contained import Limits, PlayerFault
from mine.strategies.player_file import load_module
from mine.strategies.validation import hog as hog_validation
from tests.conftest import hog_table
from tests.mine_cli import MINE, NO_READ_SEARCH, as_root, here_each, mine, one_line_error
from tests.strategies.haskell_files import SMALLEST_PROJ1
from tests.strategies.hostile_files import left_behind, readable_folder

ONCE = """
import ctypes, os, signal, socket, struct, subprocess, sys, time
DONE = []
def final_strategy(score, opponent_score):
    if not DONE:
        DONE.append(1)
        try:
            attack()
        except Exception:
            pass
    return 4
"""


def _player(tmp_path: Path, attack: str, at_import: bool = False) -> Path:
    """A Hog player that returns 4 and runs `attack` (the body of `attack()`) on its
    first call, or when it is imported, its errors swallowed: it plays on whatever the
    harness refuses."""
    path = tmp_path / "hostile.py"
    body = "\n".join("    " + line for line in attack.strip().splitlines())
    then = "DONE.append(1)\ntry:\n    attack()\nexcept Exception:\n    pass\n"
    path.write_text(ONCE + f"TMP = {str(tmp_path)!r}\ndef attack():\n{body}\n"
                    + (then if at_import else ""))  # fmt: skip
    return path


# What these tests look at is the harness, not the figures: a goal of 20 has validate ask the
# file 400 states, not 10,000, and solve a game 25 times smaller (half a CPU second a run).
SMALL = ("--rules", "goal=20")


def _succeeds_with_clean_json(result, path: Path) -> None:
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["player"] == str(path)
    assert "PWNED" not in result.stdout + result.stderr


def _everywhere(data: str) -> str:
    """Code that writes the bytes `data` (an expression) on every descriptor it has but
    stdin, stdout and stderr."""
    return f"""
for fd in map(int, os.listdir("/proc/self/fd")):
    try:
        if fd > 2:
            os.write(fd, {data})
    except OSError:
        pass
"""


KILLS = """
for kill in (
    lambda: subprocess.run(["kill", "-9", str(os.getppid())]),
    lambda: ctypes.CDLL(None).kill(os.getppid(), 9),
    lambda: signal.pidfd_send_signal(os.pidfd_open(os.getppid()), signal.SIGKILL),
    lambda: ctypes.CDLL(None).kill(-os.getpgid(os.getppid()), 9),  # its process group
):
    try:
        kill()
    except OSError:
        pass
"""


def test_a_player_cannot_kill_the_harness(tmp_path, leftovers):
    path = _player(tmp_path, KILLS)
    result = subprocess.run(  # its own session: a group kill must not reach pytest
        [MINE, "validate", "hog", str(path), *SMALL, "--json"], capture_output=True, text=True,
        timeout=120, start_new_session=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    _succeeds_with_clean_json(result, path)
    assert leftovers() == []


def test_a_player_cannot_write_into_the_harness_output(tmp_path, leftovers):
    path = _player(
        tmp_path,
        """
        for fd in (1, 2):
            try:
                with open(f"/proc/{os.getppid()}/fd/{fd}", "w") as out:
                    out.write("PWNED\\n")
            except OSError:
                pass
        """,
    )
    _succeeds_with_clean_json(mine("validate", "hog", path, *SMALL, "--json"), path)
    assert leftovers() == []


def test_bytes_written_to_every_descriptor_are_a_fault_not_a_hang(tmp_path, leftovers):
    path = _player(tmp_path, _everywhere('b"garbage" * 1000'))
    line = one_line_error(mine("validate", "hog", path, "--json", timeout=60), code=1)
    assert line.startswith(f"error: {path}: sent the harness a malformed message")
    assert leftovers() == []


PICKLE = """
import pickle
class Payload:
    def __reduce__(self):
        return (exec, (f"open({TMP!r} + '/ran-in', 'w').write(str(__import__('os').getpid()))",))
message = pickle.dumps(("done", 0, Payload()))
frame = sys._getframe()
while frame is not None:  # a multiprocessing connection on the stack: send it through
    for value in list(frame.f_locals.values()):
        if hasattr(value, "send_bytes"):
            try:
                value.send(("done", 0, Payload()))
            except Exception:
                pass
    frame = frame.f_back
""" + _everywhere('struct.pack("!i", len(message)) + message')  # and raw, length first


def test_a_pickle_sent_to_the_harness_never_runs(tmp_path, leftovers):
    path = _player(tmp_path, PICKLE)
    line = one_line_error(mine("validate", "hog", path, "--json", timeout=60), code=1)
    assert line.startswith(f"error: {path}: sent the harness a malformed message")
    assert not (tmp_path / "ran-in").exists()
    assert leftovers() == []


def _message(text: str) -> str:
    return _everywhere(f'struct.pack(">I", {len(text.encode())}) + {text.encode()!r}')


MALFORMED = {
    "an oversized message": (_everywhere("struct.pack('>I', 2**31) + b'[' * 4096"), "over the"),
    "not JSON": (_message("\x80\x04not json"), "not plain data"),
    "a result it was not asked for": (_message('["done", 12345, 4]'), "not a result"),
    "a class of its choosing": (
        _message('["done", 0, {"\\u0000r": ["subprocess:Popen", {"args": "id"}]}]'),
        "not a record of the harness",
    ),
    "a fault naming another file": (_message('["fault", 7, "not me"]'), "nor a fault of its"),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_a_message_the_harness_cannot_read_is_a_fault_naming_the_file(case, tmp_path, leftovers):
    attack, says = MALFORMED[case]
    path = _player(tmp_path, attack)
    with pytest.raises(PlayerFault) as fault:
        hog_validation.validate(path)
    assert fault.value.path == str(path)
    assert fault.value.reason.startswith("sent the harness a malformed message")
    assert says in fault.value.reason
    assert leftovers() == []


TIGHT = Limits(import_seconds=1.0, call_seconds=0.5, job_seconds=3.0, wall_factor=4.0)
# A hiding file is ended by its job's clock, at any limit: a second of CPU time (or 4 s of
# a busy machine's) ends each as 3 did, in a third of the time (the harness's own work
# before the file's first call, where it hides, is milliseconds).
HIDING = dataclasses.replace(TIGHT, job_seconds=1.0)
PAGE = "__import__('mine.strategies.contained').strategies.contained.watch().page"
JOB = "its job ran over the 1 s limit of a job"  # its CPU time, or 4 s of a busy machine's

HIDES = {  # what the watch's page says, or the channel, hides where the file spends its time
    "says idle on its page and loops": (f"""
{PAGE}.function = -2
while True:
    pass
""", JOB),
    "counts calls on its page without end": (f"""
page = {PAGE}
while True:
    page.calls += 1
""", JOB),
    "makes the harness's own send loop": ("""
def stuck(*args, **kwargs):
    while True:
        pass
socket.socket.sendall = stuck
""", JOB),
    "says idle on its page and sleeps": (f"""
{PAGE}.function = -2
time.sleep(3600)
""", f"{JOB} (4 s of wall time)"),
    "trickles bytes to the harness as it waits": (_everywhere("struct.pack('>I', 2**20)") + """
while True:
""" + textwrap.indent(_everywhere('b" "'), "    ") + """
    time.sleep(0.01)
""", "final_strategy() ran over its 0.5 s limit (2 s of wall time)"),
}  # fmt: skip


@pytest.mark.parametrize("how", HIDES, ids=list(HIDES))
def test_a_player_that_hides_from_the_watch_is_ended_by_the_parents_clock(how, tmp_path, leftovers):
    attack, reason = HIDES[how]
    path = _player(tmp_path, attack)
    started = time.monotonic()
    with pytest.raises(PlayerFault) as fault:
        hog_validation.validate(path, limits=HIDING)
    assert fault.value.path == str(path) and fault.value.reason.startswith(reason)
    assert time.monotonic() - started < 120  # its bound: 1 s of CPU time, 4 s of wall time
    assert leftovers() == []


HUGE = {  # a command and the name of a player file of gigabytes it is given
    "validate twentyone": (("validate", "twentyone"), "big.py"),
    "validate cardguess, a Haskell file": (("validate", "cardguess"), "Proj1.hs"),
    "tournament hog": (("tournament", "hog"), "big.py"),
}


@pytest.fixture(scope="module")
def huge(tmp_path_factory):
    """Each command of HUGE given its file of 3 GB, in one process under a 4 GB address
    space (`here_each`): {case: (the file, the result)}."""
    paths = {}
    for case, (_, name) in HUGE.items():
        paths[case] = tmp_path_factory.mktemp("huge") / name
        with open(paths[case], "wb") as file:
            file.truncate(3 << 30)  # sparse: no disk
    commands = [[*command, paths[case]] for case, (command, _) in HUGE.items()]
    results = here_each(commands, under=("prlimit", f"--as={4 << 30}", "--"))
    return {case: (paths[case], result) for case, result in zip(HUGE, results, strict=True)}


@pytest.mark.parametrize("case", HUGE, ids=list(HUGE))
def test_a_player_file_of_gigabytes_is_refused_before_it_is_read(case, huge):
    """(Read whole, it took 10 GB and two minutes.) Under a 4 GB address space: were the
    file read, the command could not do it."""
    path, result = huge[case]
    line = one_line_error(result, code=1)
    assert line.endswith(f"{path}: 3,221,225,472 bytes, over the 64 MB of a player file"), line


def _call_then_wait(task: tuple[str, float]) -> int:
    """A job: the file's final_strategy once, then the harness's own work for `seconds`."""
    path, seconds = task
    answer = load_module(path, "hog", ("final_strategy",)).final_strategy(0, 0)
    time.sleep(seconds)
    return answer


def test_a_call_that_waits_is_timed_by_its_cpu_not_by_the_busy_machines_clock(tmp_path):
    path = tmp_path / "waits.py"
    path.write_text("import time\ndef final_strategy(score, opponent_score):\n"
                    "    time.sleep(1)\n    return 4\n")  # fmt: skip
    assert contained.run(path, _call_then_wait, [(str(path), 0)], limits=TIGHT) == [4]
    path.write_text(path.read_text().replace("time.sleep(1)", "time.sleep(3600)"))
    with pytest.raises(PlayerFault, match=r"final_strategy\(\) ran over its 0.5 s limit \(2 s"):
        contained.run(path, _call_then_wait, [(str(path), 0)], limits=TIGHT)


def test_a_process_a_player_leaves_spinning_between_its_calls_is_its_call(tmp_path, leftovers):
    """The CPU time of what a file starts is its own: between its calls it may spend no
    more of it than a call's limit."""
    path = _player(tmp_path, "if os.fork() == 0:\n    while True:\n        pass")
    with pytest.raises(PlayerFault) as fault:
        contained.run(path, _call_then_wait, [(str(path), 60)], limits=TIGHT)
    between = "its processes ran over the 0.5 s limit of a call between its calls"
    assert (fault.value.path, fault.value.reason) == (str(path), between)
    assert leftovers() == []


_LEFT: list[int] = []  # in a worker: the process its player left (the answer of its call)


def _leaves_then_looks(task: tuple[str | None, float]) -> int | bool:
    """A job: the file's call, which answers with the pid of a process it left; or, in a
    later job of the same worker, whether that process is gone within `seconds`."""
    path, seconds = task
    if path is not None:
        _LEFT.append(load_module(path, "hog", ("final_strategy",)).final_strategy(0, 0))
        return _LEFT[-1]
    deadline = time.monotonic() + seconds
    while os.path.exists(f"/proc/{_LEFT[-1]}") and time.monotonic() < deadline:
        time.sleep(0.01)
    return not os.path.exists(f"/proc/{_LEFT[-1]}")


LEAVES = {
    "a child": """
def final_strategy(score, opponent_score):
    child = os.fork()
    if child == 0:
        time.sleep(3600)
    return child
""",
    # Its parent says its pid: the harness may end the orphan before it runs at all.
    "an orphan in a session of its own": """
def final_strategy(score, opponent_score):
    read, write = os.pipe()
    if os.fork() == 0:
        os.setsid()
        orphan = os.fork()
        if orphan == 0:
            time.sleep(3600)
        os.write(write, str(orphan).encode())
        os._exit(0)
    os.wait()
    return int(os.read(read, 20))
""",
}


@pytest.mark.parametrize("what", LEAVES, ids=list(LEAVES))
def test_what_a_player_leaves_ends_with_its_task(what, tmp_path):
    path = tmp_path / "leaves.py"
    path.write_text("import os, time\n" + LEAVES[what])
    left, gone = contained.run(path, _leaves_then_looks, [(str(path), 0), (None, 60)])
    assert left > 0 and gone


def _pages_seen(_task: int) -> int:
    """How many of the watches' pages this worker finds in its memory that it can reach
    (the harness's objects are frozen in a worker: a player may thaw them)."""
    gc.unfreeze()
    with open("/proc/self/maps") as maps:
        spans = [[int(x, 16) for x in line.split()[0].split("-")] for line in maps]
    pages = [o for o in gc.get_objects() if type(o).__name__ == "_Page"]
    return sum(any(a <= ctypes.addressof(page) < b for a, b in spans) for page in pages)


def test_a_worker_sees_no_other_workers_page():
    assert contained.run("none", _pages_seen, [0, 1, 2], workers=3) == [1, 1, 1]


ESCAPES = {
    "a grandchild in a session of its own": """
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.chdir(TMP)
        time.sleep(3600)
    os._exit(0)
os.wait()
""",
    "a fork bomb, each in a session of its own": """
for _ in range(100):
    if os.fork() == 0:
        os.setsid()
        os.chdir(TMP)
        time.sleep(3600)
        os._exit(0)
""",
}


def _as(user: str) -> tuple[str, ...]:
    """What runs mine as a harness of `user`: root (its workers run as users of their own)
    or not (they run as it: nobody, when the tests run as root)."""
    if user == "root" and os.geteuid() != 0:
        pytest.skip("the harness runs as root only when the tests do")
    if user == "root" or os.geteuid() != 0:
        return ()
    return ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--")


USERS = ["root", "not root"]


@pytest.mark.parametrize("user", USERS)
@pytest.mark.parametrize("how", ESCAPES, ids=list(ESCAPES))
def test_nothing_a_player_starts_outlives_validate(how, user, readable):
    path = _player(readable, ESCAPES[how], at_import=True)  # the 10 s limit: time to fork
    result = mine("validate", "hog", path, *SMALL, "--json", under=_as(user))
    _succeeds_with_clean_json(result, path)
    assert left_behind(readable) == []


BOMB = """
while True:
    try:
        os.fork()
    except OSError:
        pass
"""


@pytest.mark.parametrize("user", USERS)
def test_a_fork_bomb_stops_at_its_limit_and_ends_with_its_call(user, readable):
    """Every process forks without end: the worker's user may run only so many, their CPU
    time is the call's, and they all end with it."""
    path = _player(readable, BOMB)
    line = one_line_error(mine("validate", "hog", path, "--json", under=_as(user)), code=1)
    assert line.startswith(f"error: {path}: final_strategy() ran over its 1 s limit"), line
    assert left_behind(readable) == []


LINGERS = {  # at import, with no parent-death signal, in the test's folder
    "a child in a session of its own": """
if os.fork() == 0:  # a child (an orphan would be ended at once)
    os.setsid()
    while True:
        pass
while True:
    pass
""",
    "forks without end, each in a session of its own": """
while True:
    try:
        if os.fork() == 0:
            os.setsid()
    except OSError:
        pass
""",
    "processes that fork and exit without end (a new pid each time)": """
for _ in range(16):
    if os.fork() == 0:
        os.setsid()
        while True:
            try:
                if os.fork() > 0:
                    os._exit(0)
            except OSError:
                pass
while True:
    pass
""",
}


@pytest.mark.parametrize("how", LINGERS, ids=list(LINGERS))
def test_nothing_a_player_starts_outlives_a_killed_harness(how, tmp_path, leftovers):
    """As root: the guard ends what the workers' users run (not root, README: a process in
    a session of its own may outlive a harness killed from outside)."""
    if os.geteuid() != 0:
        pytest.skip("the workers run as users of their own only when the harness is root")
    path = tmp_path / "lingers.py"
    path.write_text(f"import ctypes, os\nctypes.CDLL(None).prctl(1, 0, 0, 0, 0)\n"
                    f"os.chdir({str(tmp_path)!r})\n{LINGERS[how]}")  # fmt: skip
    harness = subprocess.Popen(
        [MINE, "validate", "hog", str(path), "--json"], stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    # No clock on the start: a loaded machine may take minutes to get there, and the
    # harness's own per-call limits end it (and fail this) if the player never runs.
    while sum(" (in " + str(tmp_path) in line for line in leftovers()) < 2:
        assert harness.poll() is None, leftovers()
        time.sleep(0.05)
    harness.kill()
    harness.wait()
    deadline = time.monotonic() + 120  # the guard's end, bounded only against a hang
    while leftovers() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert leftovers() == []


def _jobs(task: int) -> int:
    return task + 1


def _children() -> list[int]:
    """This process's children, zombies too."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid():
            found.append(int(pid))
    return found


def test_the_harness_is_as_it_was_after_a_hostile_file(tmp_path):
    """What a run changed in the harness's process (a child subreaper, not dumpable) is
    restored, no child of it is left but its guard, not even a zombie, and the next run
    works."""
    import ctypes

    libc = ctypes.CDLL(None)
    path = _player(tmp_path, _everywhere('b"x" * 64'))
    assert contained.run("none", _jobs, [1]) == [2]  # the guard starts with the first run
    before = _children()
    with pytest.raises(PlayerFault, match="malformed message"):
        hog_validation.validate(path)
    subreaper = ctypes.c_int()
    libc.prctl(37, ctypes.byref(subreaper), 0, 0, 0)  # PR_GET_CHILD_SUBREAPER
    assert (subreaper.value, libc.prctl(3, 0, 0, 0, 0)) == (0, 1)  # PR_GET_DUMPABLE
    assert _children() == before
    assert contained.run("none", _jobs, list(range(10)), workers=2) == list(range(1, 11))
    assert _children() == before


# --- a player file the contained player cannot read ---------------------------------------

FOURS = "def final_strategy(score, opponent_score):\n    return 4\n"
ROOT_WORKER = {  # whom a root harness's workers run as, as the line names it
    "own": "a user of its own (uid 1879048192 + its pid: mine drops root's rights)",
    "nobody": "user 'nobody' (mine drops root's rights)",
}
COMMANDS = {  # each as a user runs it, with --json where it writes its results there
    "validate": ("validate", "hog", "{}", "--json"),
    "validate --against": ("validate", "hog", "{readable}", "--against", "{}", "--json"),
    "check": ("check", "{}", "--json"),
    "tournament": ("tournament", "hog", "{}", "--bots", "random", "--json"),
}


HOWS = ["folder 700", "mode 000", "haskell"]  # how a file is closed to a reader (`_unreadable`)


def _unreadable(folder: Path, how: str) -> Path:
    """A valid player file in `folder` that only its owner can read: in a folder of mode
    700 (as root's pytest folders are), or of mode 000 itself; a Haskell one too (its
    compile reads it as a worker)."""
    name = "Proj1.hs" if how == "haskell" else "closed.py"
    path = folder / "closed" / name
    path.parent.mkdir()
    path.write_text(SMALLEST_PROJ1 if how == "haskell" else FOURS)
    if how == "mode 000":
        path.chmod(0)
    else:
        path.parent.chmod(0o700)
    return path


def _each_unreadable(hows: list[str], under: tuple[str, ...]) -> Iterator[dict]:
    """Every command of COMMANDS given a file of each of `hows`, as a harness run under
    `under` answers (one process for them all: `here_each`): {(command, how): (the file,
    the result)}."""
    with readable_folder() as readable:
        files, commands = {}, []
        for number, (command, how) in enumerate(itertools.product(COMMANDS, hows)):
            folder = readable / str(number)
            folder.mkdir()
            folder.chmod(0o755)
            fine = folder / "fine.py"
            fine.write_text(FOURS)
            files[command, how] = path = _unreadable(folder, how)
            commands.append([a.format(path, readable=fine) for a in COMMANDS[command]])
        results = here_each(commands, under)
        yield {case: (path, result) for (case, path), result in zip(files.items(), results,
                                                                     strict=True)}  # fmt: skip


@pytest.fixture(scope="module")
def workers_cannot_read():
    yield from _each_unreadable(HOWS, NO_READ_SEARCH)


@as_root
@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_file_the_workers_cannot_read_is_one_line_before_any_work(
    command, how, workers_cannot_read
):
    """A root harness's workers run as another user: a file only root may read is refused
    before any work, saying who cannot read it and what to do, not as a fault of mine."""
    path, result = workers_cannot_read[command, how]
    line = one_line_error(result, code=1)
    assert line == (f"error: {path}: the contained player runs as "
                    f"{ROOT_WORKER[confinement.player_users()]}, which cannot read it "
                    "(Permission denied): make it readable by others (chmod o+r, and o+x on "
                    "its folders) or run mine as its owner"), line  # fmt: skip
    assert result.stdout == ""


@as_root
def test_a_file_others_may_read_passes_the_check(readable):
    """The check refuses what the workers cannot read, nothing more: the same harness
    loads a file others may read."""
    path = readable / "fine.py"
    path.write_text(FOURS)
    result = mine("check", path, "--json", under=NO_READ_SEARCH)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"player": str(path), "game": "hog", "ok": True}


@pytest.fixture(scope="module")
def harness_cannot_read():
    yield from _each_unreadable(HOWS[:2], _as("not root"))


@pytest.mark.parametrize("how", HOWS[:2])
@pytest.mark.parametrize("command", COMMANDS)
def test_a_file_the_harness_cannot_read_is_one_line(command, how, harness_cannot_read):
    """A harness that is not root (its workers run as its user) and cannot read the file:
    one line naming the user, not the option parser's words nor a fault of mine."""
    user = "nobody" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
    path, result = harness_cannot_read[command, how]
    line = one_line_error(result, code=1)
    assert line == (f"error: {path}: user '{user}' cannot read it (Permission denied): make "
                    "it readable by that user (r on the file, x on its folders)"), line  # fmt: skip
    assert result.stdout == ""


@as_root
def test_generate_measures_its_draft_where_the_workers_read_it(tmp_path):
    """`mine generate` measures the file it drafts, contained: as root without the right to
    read any file, its workers still read the draft."""
    table = hog_table(tmp_path / "t.parquet")
    out = tmp_path / "player.py"
    result = mine("generate", "hog", "--table", table, "--out", out, under=NO_READ_SEARCH)
    assert result.returncode == 0, result.stderr
    assert "def final_strategy" in out.read_text()

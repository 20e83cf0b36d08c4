"""Player files written to attack the harness, run through `mine validate hog X.py --json`
as a user runs it: whatever the file tries, the harness outlives it, its output stays
clean, nothing the file sends runs in the harness, a hidden loop still ends, and nothing
the file started is left running."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from mine.strategies import contained
from mine.strategies.contained import Limits, PlayerFault
from mine.strategies.validation import hog as hog_validation
from tests.mine_cli import MINE, mine, one_line_error

ONCE = """
import ctypes, os, signal, struct, subprocess, sys, time
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


def _left_behind(tmp_path: Path) -> list[str]:
    """Processes still running whose working folder or command line is the test's: what a
    player started (the hostile ones move into the folder) or the harness itself."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == os.getpid():
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone, or a zombie
            continue
        if cwd.startswith(str(tmp_path)) or str(tmp_path) in command:
            found.append(f"{pid}: {command.strip()} (in {cwd})")
    return found


@pytest.fixture
def leftovers(tmp_path):
    """After the test, end whatever it left (so that a failure does not leave loops
    behind); the test asserts there was nothing."""
    yield lambda: _left_behind(tmp_path)
    for line in _left_behind(tmp_path):
        with contextlib.suppress(OSError):
            os.kill(int(line.split(":")[0]), signal.SIGKILL)


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
        [MINE, "validate", "hog", str(path), "--json"], capture_output=True, text=True,
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
    _succeeds_with_clean_json(mine("validate", "hog", path, "--json"), path)
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


HIDES = """
from mine.strategies import contained
watch = contained.watch()
def final_strategy(score, opponent_score):
    for stamp in ("function", "started"):  # whatever the harness watches, said idle
        value = getattr(watch, stamp, None)
        if hasattr(value, "value"):
            value.value = -2 if stamp == "function" else 0.0
    page = getattr(watch, "page", None)
    if page is not None:
        page.function = -2
    while True:
        pass
"""


def test_a_player_that_hides_its_loop_from_the_watch_is_still_ended(tmp_path):
    path = tmp_path / "hides.py"
    path.write_text(HIDES)
    limits = Limits(import_seconds=1.0, call_seconds=0.5, job_seconds=3.0)
    started = time.monotonic()
    with pytest.raises(PlayerFault) as fault:
        hog_validation.validate(path, limits=limits)
    assert fault.value.path == str(path) and "3 s limit" in fault.value.reason
    assert time.monotonic() - started < 30


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


@pytest.mark.parametrize("how", ESCAPES, ids=list(ESCAPES))
def test_nothing_a_player_starts_outlives_validate(how, tmp_path, leftovers):
    path = _player(tmp_path, ESCAPES[how], at_import=True)  # the 10 s limit: time to fork
    _succeeds_with_clean_json(mine("validate", "hog", path, "--json"), path)
    assert leftovers() == []


LINGERS = """
import ctypes, os, time
ctypes.CDLL(None).prctl(1, 0, 0, 0, 0)  # no parent-death signal
os.chdir({tmp!r})
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:
            pass
    os._exit(0)
os.wait()
while True:
    pass
"""


def test_nothing_a_player_starts_outlives_a_killed_harness(tmp_path, leftovers):
    path = tmp_path / "lingers.py"
    path.write_text(LINGERS.format(tmp=str(tmp_path)))
    harness = subprocess.Popen(
        [MINE, "validate", "hog", str(path), "--json"], stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while sum(" (in " + str(tmp_path) in line for line in leftovers()) < 2:
        assert time.monotonic() < deadline and harness.poll() is None, leftovers()
        time.sleep(0.05)
    harness.kill()
    harness.wait()
    deadline = time.monotonic() + 10
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

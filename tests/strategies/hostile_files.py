"""What the hostile player files' tests look for: the processes a test left running; and
the folder anyone may read that they run files from."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path


def left_behind(folder: Path) -> list[str]:
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
        if cwd.startswith(str(folder)) or str(folder) in command:
            found.append(f"{pid}: {command.strip()} (in {cwd})")
    return found


def end_left_behind(folder: Path) -> None:
    """End what a test left (a failed test leaves no loop running)."""
    for line in left_behind(folder):
        with contextlib.suppress(OSError):
            os.kill(int(line.split(":")[0]), signal.SIGKILL)


@contextlib.contextmanager
def readable_folder() -> Iterator[Path]:
    """A folder anyone may read, and in it `tmp`, one anyone may write (as /tmp): for a
    harness that is not root, or has not root's rights over files, and its workers. What
    was left running there is ended after it."""
    folder = Path(tempfile.mkdtemp(prefix="mine-test-"))
    folder.chmod(0o755)
    (folder / "tmp").mkdir()
    (folder / "tmp").chmod(0o1777)
    try:
        yield folder
    finally:
        end_left_behind(folder)
        shutil.rmtree(folder)

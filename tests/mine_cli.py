"""The `mine` command as a user runs it: a real process, its exit code and its output."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

MINE = str(Path(sys.executable).parent / "mine")
SHOWS_PROGRESS = "\x1b[?25l"  # a live display hides the cursor while it draws


def mine(
    *args,
    stdin: str | None = None,
    cwd: Path | None = None,
    timeout: float = 120,
    under: tuple[str, ...] = (),
):
    """Run mine with a wide console, so that tables show whole values (`under`: a command
    that runs it, such as `setpriv …`)."""
    return subprocess.run(
        [*under, MINE, *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        env={**os.environ, "COLUMNS": "400"},
    )


def here(*args, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`mine` as `mine(...)` runs it, through the same entry point (its exit code and its one
    line for a bad option, a full disk, Ctrl-C), but in this process: no second Python to
    start, for the many checks of what a command answers. A bug's exception is raised here."""
    from typer.testing import CliRunner

    from mine.pipeline import cli, console

    argv = sys.argv
    handlers = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    # The consoles were made at the import, wide as COLUMNS said then, which this process's
    # environment may have held (80 in pytest-xdist's workers, where it is set): as
    # wide as `mine(...)`'s, whatever ran before.
    widths = {printer: printer._width for printer in (console.console, console.errors)}
    runner = CliRunner()
    with (
        contextlib.chdir(cwd or os.getcwd()),
        runner.isolation(input=stdin, env={"COLUMNS": "400"}) as (out, err, _),
    ):
        sys.argv = ["mine", *map(str, args)]
        for printer in widths:
            printer.width = 400
        try:
            cli.run()
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else int(done.code is not None)
        finally:
            sys.argv = argv
            for printer, width in widths.items():
                printer._width = width
            for number, handler in handlers.items():
                signal.signal(number, handler)
            sys.stdout.flush()
            sys.stderr.flush()
        said = out.getvalue().decode(), err.getvalue().decode()
    return subprocess.CompletedProcess(["mine", *map(str, args)], code, *said)


# Each command of stdin's JSON run by `here`; a bug's exception is its traceback and exit
# code 1, as a process of its own would end. The answers are the last line of stdout.
_HERE_EACH = """
import json, sys, traceback
from tests.mine_cli import here
answers = []
for args in json.loads(sys.stdin.read()):
    try:
        done = here(*args)
        answers.append([done.returncode, done.stdout, done.stderr])
    except Exception:
        answers.append([1, "", traceback.format_exc()])
print(json.dumps(answers))
"""


def here_each(commands: list[list], under: tuple[str, ...], timeout: float = 600):
    """What `mine(*args, under=under)` answers for each of `commands`, all run by `here` in
    one Python process started under `under` (such as `setpriv …`, whose rights hold for
    the whole process): one start-up (imports: half a second) for many commands."""
    listed = [[str(a) for a in args] for args in commands]
    repo = Path(__file__).resolve().parent.parent  # where `tests` is imported from
    result = subprocess.run(
        [*under, sys.executable, "-c", _HERE_EACH], input=json.dumps(listed), capture_output=True,
        text=True, timeout=timeout, cwd=repo, env={**os.environ, "PYTHONPATH": str(repo)},
    )  # fmt: skip
    assert result.returncode == 0 and result.stdout, result.stderr
    answers = json.loads(result.stdout.splitlines()[-1])
    return [subprocess.CompletedProcess(["mine", *args], *answer)
            for args, answer in zip(listed, answers, strict=True)]  # fmt: skip


def one_line_error(
    result: subprocess.CompletedProcess, *, code: int | None = None, prefix: str = "error: "
) -> str:
    """The one error line of a failed run (`mine` or `here`), asserting there is exactly
    that and no traceback; its text. Ingest says `rejected …` of each file it leaves out."""
    assert result.returncode != 0, result
    if code is not None:
        assert result.returncode == code, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(prefix), result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    return lines[0]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def invoke(*args, ok: bool = True):
    """Run mine in this process (typer's runner): quicker than a process, for the loops
    the end-to-end tests drive; `ok` asserts it succeeded."""
    from typer.testing import CliRunner

    from mine.pipeline.cli import app

    result = CliRunner().invoke(app, [str(a) for a in args])
    if ok:
        assert result.exit_code == 0, result.output
    return result


def invoke_json(*args) -> dict:
    return json.loads(invoke(*args, "--json").stdout)


# Root without the right to read any file, as in a container that does not grant it: the
# workers, users of their own, then read only what file modes let others read.
NO_READ_SEARCH = ("setpriv", "--bounding-set=-dac_read_search", "--")
# A root harness's workers run as users of their own; any other harness's, as its user.
as_root = pytest.mark.skipif(
    os.geteuid() != 0,
    reason="the workers run as another user than the harness only when it is root",
)


def without_file_rights() -> tuple[str, ...]:
    """What to run mine under so that file modes hold for it: nothing for a user; for root
    (who reads any file), root without the rights to override them."""
    if os.geteuid() != 0:
        return ()
    return ("setpriv", "--bounding-set=-dac_override,-dac_read_search", "--")

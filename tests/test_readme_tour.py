"""The README's tour runs as written: its commands, taken from README.md itself, run top to
bottom in a fresh folder beside the repository's examples, so the README and what the
commands do cannot drift apart."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from tests.mine_cli import here

README = REPO / "README.md"
SHELL = re.compile(r"[<>|;&$`]")  # a line the shell must run (a redirection, a pipe)


def tour() -> list[str]:
    """The command lines of the README's tour: the first `sh` block under its heading."""
    text = README.read_text()
    section = text[text.index("## A tour of the CLI") :]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block, "the tour has no ```sh block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_the_readme_tour_runs_as_written(tmp_path, monkeypatch):
    (tmp_path / "examples").symlink_to(REPO / "examples")
    monkeypatch.delenv("MINE_DB", raising=False)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    commands = tour()
    assert sum(c.startswith("mine ") for c in commands) >= 25
    for command in commands:
        words = shlex.split(command, comments=True)
        if words[0] == "mine" and not SHELL.search(command.split("#")[0]):
            done = here(*words[1:], cwd=tmp_path)  # mine's own entry point, in this process
        else:
            done = subprocess.run(
                ["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True
            )
        said = done.stdout + done.stderr
        assert done.returncode == 0, f"{command}\n{said}"
        assert "Traceback" not in said, command
        if words[0] == "mine" and "--out" in words:
            written = words[words.index("--out") + 1]
            assert (tmp_path / written).exists(), command
            assert written.rstrip("/") in said, f"{command} does not say what it wrote"
    assert (tmp_path / "mine.duckdb").exists()


def test_make_clean_removes_what_the_tour_writes():
    removed = subprocess.run(
        ["make", "-n", "clean"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    for command in tour():
        words = shlex.split(command, comments=True)
        if words[0] == "mine" and "--out" in words:
            written = Path(words[words.index("--out") + 1].rstrip("/"))
            assert str(written.parts[0]) in removed, f"make clean keeps {written}"

"""Tables stay readable at 80 columns (issue 41): no heading or value is cut (`0.…`,
`op…`), in a terminal of 80 columns or a pipe; a table too wide is printed in another
shape (wrapped at spaces, turned, or its columns in groups), never squeezed."""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import re
import struct
import subprocess
import termios
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from mine.pipeline import console as printing
from tests.conftest import REPO
from tests.mine_cli import MINE, here

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")

word = st.text("abcdefghijklmnopqrstuvwxyz0123456789.-+[],%", min_size=1, max_size=14)
heading = st.lists(word, min_size=1, max_size=3).map("_".join)
value = st.lists(word, min_size=0, max_size=3).map(" ".join)


@st.composite
def frames(draw):
    headings = draw(st.lists(heading, min_size=1, max_size=14, unique=True))
    rows = draw(st.lists(st.lists(value, min_size=len(headings), max_size=len(headings)),
                         max_size=6))  # fmt: skip
    return headings, rows


@settings(max_examples=150, deadline=None)
@given(frames(), st.sampled_from([80, 60, 120]))
def test_every_heading_and_value_is_shown_whole(frame, width):
    """Whatever the headings and values, at any width: no ellipsis, no line wider than the
    console, every word of every heading (parts between `_`) and every value present."""
    headings, rows = frame
    with printed_at(width) as out:
        records = [dict(zip(headings, row, strict=True)) for row in rows]
        printing.show(records, "a title", {name: name for name in headings})
    text = out.getvalue()
    assert "…" not in text
    assert all(len(line) <= width for line in text.splitlines())
    shown = set(re.split(r"[\s│┃]+", text.replace("_", " ")))
    for part in [*headings, *(cell for row in rows for cell in row)]:
        for piece in part.replace("_", " ").split():
            assert piece in shown, (piece, text)


@contextlib.contextmanager
def printed_at(width: int) -> Iterator[io.StringIO]:
    """The console's tables printed to a string `width` wide (a real rich Console)."""
    original, out = printing.console, io.StringIO()
    printing.console = Console(file=out, width=width, markup=False, emoji=False,
                               highlight=False, color_system=None)  # fmt: skip
    try:
        yield out
    finally:
        printing.console = original


# --- the real commands, in a terminal of 80 columns and in a pipe -------------------------


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """A warehouse with the example logs of four games and a small Hog simulation."""
    root = tmp_path_factory.mktemp("narrow")
    db = root / "w.duckdb"
    hog = here("simulate", "hog", "--games", "200", "--players", "always_roll:6,random",
               "--out", root / "hog", cwd=root)  # fmt: skip
    assert hog.returncode == 0, hog.stderr
    ingest = here("ingest", REPO / "examples" / "logs", root / "hog", "--db", db, cwd=root)
    assert ingest.returncode == 0, ingest.stderr
    return root, db


def in_terminal(args: list[str], cwd, columns: int = 80) -> str:
    """What `mine args` prints on stdout to a pseudo-terminal `columns` wide (stderr apart)."""
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    process = subprocess.Popen([MINE, *map(str, args)], stdout=follower, stderr=subprocess.DEVNULL,
                               stdin=subprocess.DEVNULL, cwd=cwd, env=env)  # fmt: skip
    os.close(follower)
    said = bytearray()
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal's other side closed: all is read
            break
        if not chunk:
            break
        said += chunk
    os.close(leader)
    assert process.wait(timeout=300) == 0
    return ANSI.sub("", said.decode()).replace("\r\n", "\n")


def in_pipe(args: list[str], cwd) -> str:
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    done = subprocess.run([MINE, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          env=env, stdin=subprocess.DEVNULL, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def readable(text: str) -> None:
    # A fitted table's fingerprint is shown as its first 16 digits and `…` by design.
    assert "…" not in "\n".join(line for line in text.splitlines() if "fingerprint" not in line)
    assert all(len(line) <= 80 for line in text.splitlines()), text


@pytest.mark.parametrize("game", ["twentyone", "ginrummy", "hog", "supernim", "cardguess"])
def test_each_games_statistics_read_whole_in_80_columns(logged, game):
    """Each game's statistics (its widest tables) in a terminal of 80 columns: nothing cut,
    and the same text a pipe gets (a pipe is 80 columns too)."""
    root, db = logged
    shown = in_terminal(["stats", game, "--db", db], root)
    readable(shown)
    assert shown.strip() and in_pipe(["stats", game, "--db", db], root) == shown


def test_a_simulations_matches_are_named_whole(logged):
    """Super-Nim's match names are long (`supernim-random-vs-alphabeta_2`): shown whole."""
    root, _ = logged
    args = ["simulate", "supernim", "--games", "2", "--players", "random,greedy,alphabeta:2",
            "--out", root / "nim"]  # fmt: skip
    shown = in_terminal(args, root)
    readable(shown)
    for stem in ("supernim-random-vs-greedy", "supernim-random-vs-alphabeta_2",
                 "supernim-greedy-vs-alphabeta_2"):  # fmt: skip
        assert stem in shown, shown

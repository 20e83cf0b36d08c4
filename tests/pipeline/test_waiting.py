"""How long a command will take, said while it runs (issue 41): a counted bar gives an
estimate of the time left, from the rate its first parts were measured at, before the
work is done; and the shared commands' tables (`ingest`, `query`, `tables`, `export`)
keep to 80 columns as every table does."""

from __future__ import annotations

import fcntl
import json
import os
import re
import struct
import subprocess
import termios

import pytest
from rich.progress import Progress

from mine.models.cardguess import Logged, fit
from mine.pipeline.progress import COUNTED, duration, left
from mine.strategies.codegen.twentyone import write_module
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.strategies.engines.twentyone_chart import Strategy
from mine.strategies.solvers.twentyone import solve
from tests.conftest import REPO
from tests.mine_cli import MINE, here, mine
from tests.pipeline.test_narrow_tables import ANSI, in_pipe, in_terminal
from tests.shared_warehouse import copy_of, examples_warehouse
from tests.strategies.test_twentyone_codegen import BIDS, METADATA


def test_an_estimate_is_the_rest_at_the_measured_rate():
    """A task that did 2 of 10 parts in the 4 s since its work began has 8 left: 16 s at
    that rate, less the time since its last count."""
    now = [100.0]
    bar = Progress(*COUNTED, get_time=lambda: now[0], disable=True)
    task = bar.add_task("work", total=10, began=96.0)
    assert left(bar.tasks[0]) == "estimating…"  # nothing counted yet
    bar.update(task, completed=2, counted_at=100.0)
    assert left(bar.tasks[0]) == "about 15 s left"  # 16 s, said to the nearest 5
    now[0] = 110.0
    assert left(bar.tasks[0]) == "about 6 s left"
    bar.update(task, completed=10, counted_at=110.0)
    assert left(bar.tasks[0]) == ""  # done


def test_durations_are_said_as_a_person_would():
    assert [duration(s) for s in (0.2, 7.4, 38, 89, 95, 600)] == [
        "1 s", "7 s", "40 s", "90 s", "2 min", "10 min",
    ]  # fmt: skip


# Hands end at 3 cards (Charlie): the exact values, validate's first part, are a shallow
# search (at the default 5 cards, most of this file's CPU seconds); the bar is the same.
CHARLIE = 3


@pytest.fixture(scope="module")
def player(tmp_path_factory):
    path = tmp_path_factory.mktemp("waiting") / "player.py"
    chart = solve(TwentyOneRules(charlie_cards=CHARLIE)).chart
    write_module(path, Strategy(chart, BIDS, (), METADATA))
    return path


def test_validate_shows_its_estimate_before_the_work_is_done(player):
    """`mine validate twentyone` in a terminal: after its first part (the exact values),
    of two, the bar says about how long the rest will take."""
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
    args = ["validate", "twentyone", player, "--hands", "20000", "--shoe-hands", "0",
            "--games", "0", "--rules", f"charlie_cards={CHARLIE}"]  # fmt: skip
    process = subprocess.Popen([MINE, *map(str, args)], stdout=subprocess.PIPE, stderr=follower,
                               stdin=subprocess.DEVNULL, cwd=player.parent)  # fmt: skip
    os.close(follower)
    said = bytearray()
    while chunk := _read(leader):
        said += chunk
    os.close(leader)
    out, _ = process.communicate(timeout=300)
    assert process.returncode == 0
    lines = ANSI.sub("", said.decode()).replace("\r", "\n").splitlines()
    assert any("1/2" in line and "about" in line and " left" in line for line in lines), lines
    assert b"flat-bet return" in out  # and the result came after


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except OSError:  # the terminal's other side closed: all is read
        return b""


# --- the shared commands' tables at 80 columns ----------------------------------------------


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    """A folder with `w.duckdb`: every example log ingested (a copy of the session's)."""
    root = tmp_path_factory.mktemp("data-tables")
    copy_of(examples_warehouse(tmp_path_factory), root / "w.duckdb")
    return root


WIDE = "SELECT * FROM twentyone_hands ORDER BY log_id, round, player, hand_id LIMIT 3"
COMMANDS = {  # each command's table, and the same result as data (every word it must show)
    "query": (["query", "--db", "w.duckdb", WIDE], ["--format", "csv"]),
    "tables": (["tables", "--db", "w.duckdb"], ["--json"]),
    "export": (["export", "--db", "w.duckdb", "{out}"], ["--json"]),
    "ingest": (["ingest", REPO / "examples" / "logs" / "twentyone", "--db", "{out}.duckdb"],
               ["--json"]),
}  # fmt: skip


@pytest.mark.parametrize("command", COMMANDS)
def test_the_shared_commands_tables_read_whole_in_80_columns(warehouse, command):
    """In a terminal of 80 columns and in a pipe: no line wider, and every word of the
    result (its data: CSV, JSON) shown whole: a wide query's rows, each table's name and
    description."""
    args, as_data = COMMANDS[command]
    shown = in_terminal([str(a).format(out="t") for a in args], warehouse)
    piped = in_pipe([str(a).format(out="p") for a in args], warehouse)
    # the result as data, to compare with: from mine's entry point in this process (what is
    # shown in a terminal and a pipe is what the real processes above print), but a query's
    # CSV, which goes to the file descriptor of stdout that only a process has
    run = mine if command == "query" else here
    data = run(*[str(a).format(out="d") for a in args], *as_data, cwd=warehouse)
    assert data.returncode == 0, data.stderr
    if command != "query":  # the names and descriptions, not the JSON's own keys
        found = json.loads(data.stdout)
        data.stdout = " ".join(_texts(found.get("tables", found.get("rows", found))))
    for text in (shown, piped):
        assert all(len(line) <= 80 for line in text.splitlines()), text
        assert set(words(data.stdout)) <= set(words(text)), text


def _texts(value) -> list[str]:
    """The names and texts of a result: its tables' names (keys), their kinds and
    descriptions (strings)."""
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (str(key), *_texts(item))
                if key not in ("partitioned_by", "columns")]  # fmt: skip
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    return [value] if isinstance(value, str) else []


def words(text: str) -> list[str]:
    return re.findall(r"[^\s\[\],\"│┃]+", text)


def test_a_card_guessing_fit_counts_its_search_and_finds_the_same_tree():
    """`mine fit cardguess` draws a bar per n from the answers its search has placed: the
    counts rise to all of them, and counting changes nothing in the tree."""
    logged = Logged(["2H;3C", "KS;AD", "5D;5H"], 3, "f" * 16, 1)
    counts: list[tuple[str, int, int]] = []
    counted = fit(logged, sizes=(2,), quick=True, progress=lambda *c: counts.append(c))
    plain = fit(logged, sizes=(2,), quick=True)
    assert {name for name, _, _ in counts} == {"n = 2"}
    done = [d for _, d, _ in counts]
    assert done == sorted(done) and done[-1] == counts[-1][2] == 1326  # every answer, once
    assert (counted.trees[2].guess == plain.trees[2].guess).all()

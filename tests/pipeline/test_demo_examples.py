"""`mine demo`'s first part: each game's example logs go in, are named for what they are
(real or simulated, as their folder's README says), and the game's demo queries run over
them."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from mine import games
from mine.pipeline import demo
from mine.pipeline.console import console
from tests.mine_cli import MINE

FOLDERS = [g.name for g in games.GAMES if (demo.EXAMPLES / g.name).is_dir()]


@pytest.mark.parametrize("game", FOLDERS)
def test_example_logs_land_and_their_queries_run(tmp_path, game):
    folder = demo.EXAMPLES / game
    queries = games.get(game).module("commands").QUERIES
    with console.capture() as shown:
        ok = demo.show_examples(tmp_path / "w.duckdb", folder, queries)
    text = " ".join(shown.get().split())  # as one line, however the console wrapped it
    assert ok, text
    assert f"({demo.about(folder)}): " in text and " 0 rejected" in text
    for title in queries:
        assert title in text


def test_the_logs_say_whether_they_are_real():
    said = {game: demo.about(demo.EXAMPLES / game) for game in FOLDERS}
    assert "Real" in said["ginrummy"] and "original course engine" in said["twentyone"]
    assert all("simulate" in said[game].lower() for game in ("supernim", "cardguess"))


def test_the_demo_never_writes_into_the_users_warehouse(monkeypatch):
    monkeypatch.setenv("MINE_DB", "mine.duckdb")
    assert demo.warehouse(None) == demo.FOLDER / "mine.duckdb"
    assert demo.warehouse("elsewhere.duckdb").name == "elsewhere.duckdb"


@pytest.mark.parametrize("step", ["stats"])
def test_ctrl_c_stops_the_whole_demo_in_one_line(tmp_path, step):
    """Ctrl-C during the first game's loop ends the demo there, as every command ends at it:
    `error: interrupted`, exit code 130, and no later game's section runs. As a terminal
    sends it, the signal goes to the demo's whole process group (the workers that run a
    player file too), when the loop shows the step's command, whatever the machine's speed."""
    process = subprocess.Popen(
        [MINE, "demo"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "COLUMNS": "200"}, start_new_session=True,
    )  # fmt: skip
    for line in process.stdout:
        if line.startswith(f"$ mine {step} "):
            time.sleep(0.5)  # most likely inside the command's work (anywhere, it must stop)
            os.killpg(process.pid, signal.SIGINT)
            break
    rest, errors = process.communicate(timeout=300)
    assert process.returncode == 130, errors
    assert errors.strip().splitlines()[-1] == "error: interrupted"
    later = [game.name for game in games.GAMES[1:]]
    assert not any(f"{name}: simulate" in rest for name in later), rest
    assert "done in" not in rest

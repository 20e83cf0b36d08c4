"""`mine demo`'s first part: each game's example logs go in, are named for what they are
(real or simulated, as their folder's README says), and the game's demo queries run over
them."""

from __future__ import annotations

import pytest

from mine import games
from mine.pipeline import demo
from mine.pipeline.console import console

FOLDERS = [g.name for g in games.with_part("demo") if (demo.EXAMPLES / g.name).is_dir()]


@pytest.mark.parametrize("game", FOLDERS)
def test_example_logs_land_and_their_queries_run(tmp_path, game):
    folder = demo.EXAMPLES / game
    queries = getattr(games.get(game).module("demo"), "QUERIES", {})
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

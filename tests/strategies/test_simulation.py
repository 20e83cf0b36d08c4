"""One simulation for every game: games played through the State by the referee, written by
the engine's one log verb. The same seed writes the same bytes whoever runs the tasks; a
bad bot is refused before a file is written; what is written reads back with the game's
parser and lands, verified against the rules, in a warehouse."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest

from mine import games
from mine.strategies.engines import simulation
from mine.strategies.runners import SERIAL, KeptProcesses
from mine.warehouse.ingest import ingest

# game: (rules settings, bots, games): small, quick matches of every bot kind
CASES = {
    "supernim": (["max_moves=30"], ["random", "greedy", "alphabeta:1"], 4),
    "twentyone": (["rounds=30"], ["textbook", "dealer", "random", "explorer:cautious:0.2"], 4),
    "ginrummy": (["game_target=40"], ["simple", "random", "explorer:ginhunter:0.2"], 4),
    "cardguess": (["n=3"], ["random-consistent"], 30),
    "hog": (["goal=40"], ["always_roll:4", "square_strategy", "random:1"], 7),
}
SIMULATED = [game.name for game in games.GAMES if hasattr(game.module("engine"), "log_rows")]


def test_every_game_plays_through_the_one_loop():
    assert sorted(CASES) == sorted(SIMULATED)


def _run(name, out, seed=1, runner=SERIAL, **options):
    settings, bots, count = CASES[name]
    engine = games.get(name).module("engine")
    make_bot = games.get(name).module("bots").make_bot
    rules = engine.RULES.from_settings(settings)
    return simulation.simulate(name, rules, bots, count, seed, out, make_bot=make_bot,
                               runner=runner, **options)  # fmt: skip


def _files(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def processes():
    """Two processes of this machine, spawned once for every game's matches: a pool a match
    spawned two Pythons importing mine, more work than the games they played."""
    with KeptProcesses(2) as runner:
        yield runner


@pytest.mark.parametrize("name", SIMULATED)
def test_the_seed_decides_the_bytes_not_the_runner(name, tmp_path, monkeypatch, processes):
    engine = games.get(name).module("engine")
    monkeypatch.setattr(engine, "GAMES_PER_TASK", 3)  # tasks of a match, the last shorter
    serial = _run(name, tmp_path / "serial")
    parallel = _run(name, tmp_path / "processes", runner=processes)
    assert _files(tmp_path / "serial") == _files(tmp_path / "processes")
    assert {**serial, "out": None} == {**parallel, "out": None}
    _run(name, tmp_path / "other", seed=2)
    assert _files(tmp_path / "other") != _files(tmp_path / "serial")


@pytest.mark.parametrize("name", SIMULATED)
def test_a_bad_bot_is_refused_before_a_file_is_written(name, tmp_path):
    settings, bots, count = CASES[name]
    engine = games.get(name).module("engine")
    with pytest.raises(ValueError, match="clever"):
        simulation.simulate(name, engine.DEFAULT_RULES, [*bots[1:], "clever"], count, 1,
                            tmp_path / "none", make_bot=games.get(name).module("bots").make_bot)  # fmt: skip
    assert not (tmp_path / "none").exists()


@pytest.mark.parametrize("name", SIMULATED)
def test_what_is_written_lands_verified_and_counts_as_the_summary_says(name, tmp_path):
    summary = _run(name, tmp_path / "logs")
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    try:
        settings = CASES[name][0]
        rules = {name: games.get(name).module("engine").RULES.from_settings(settings)}
        landed = ingest(con, [tmp_path / "logs"], rules=rules)
        assert landed.ok and landed.count("new") == sum(m["logs"] for m in summary["matches"])
    finally:
        con.close()
    for match in summary["matches"]:
        assert all(player["games"] == match["games"] for player in match["players"])
        if len(match["players"]) == 2 and games.get(name).module("engine").ZERO_SUM:
            a, b = match["players"]
            assert a["wins"] + b["wins"] + a["draws"] == match["games"] and a["draws"] == b["draws"]
            assert a["mean_return"] == pytest.approx(-b["mean_return"])


def test_matches_seat_every_pair_a_table_or_an_opponent():
    assert [m.ids for m in simulation.matches("supernim", ["a", "b", "c"], 1)] == [
        ("a", "b"), ("a", "c"), ("b", "c")]  # fmt: skip
    assert [m.ids for m in simulation.matches("supernim", ["a", "a"], 1, opponent="x")] == [
        ("x", "a"), ("x", "a#2")]  # fmt: skip
    with pytest.raises(ValueError, match="seats 2 players, not 1"):
        simulation.matches("supernim", ["a"], 1)
    assert simulation.deal_of(5, 2) == (2, True) and simulation.deal_of(5, 3) == (5, False)


def test_ids_and_stems_are_safe_names():
    assert simulation.player_ids(["r", "r", "r#2"]) == ["r", "r#2", "r#2#2"]
    (match,) = simulation.matches("supernim", ["explorer:textbook:0.1", "../x"], 9)
    assert match.stem == "supernim-explorer_textbook_0_1-vs-x-s9"
    assert np.all([c.isalnum() or c in "-_" for c in match.stem])

"""Simulation, validation and tournaments fan out: the work split into tasks by what it is (games, each
seeded by its own child of the seed), reduced in task order, so the same seed writes the
same bytes and the same figures on one process, local processes or the cluster; a player
file that fails inside a task is named in one error line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mine.strategies import tournament
from mine.strategies.bots.twentyone import make_bot
from mine.strategies.codegen.twentyone import write_module
from mine.strategies.engines import simulation
from mine.strategies.engines import twentyone as engine
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.strategies.engines.twentyone_chart import Strategy
from mine.strategies.runners import SERIAL, LocalProcesses
from mine.strategies.solvers.twentyone import solve
from mine.strategies.tournament.match import Context, Match
from mine.strategies.validation import twentyone as validation
from tests.mine_cli import invoke
from tests.strategies.test_twentyone_codegen import BIDS, METADATA

RULES = TwentyOneRules()
SEATS = ("textbook", "dealer", "explorer:textbook:0.2")
TIMED = {"seconds", "decision_seconds", "decision_cpu_seconds", "decision_p99_seconds",
         "decision_p99_cpu_seconds"}  # fmt: skip


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_simulated_logs_are_the_same_bytes_on_every_runner(cluster, tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "GAMES_PER_TASK", 3)  # eight games in three tasks
    args, options = ("twentyone", RULES, SEATS, 8, 11), {"make_bot": make_bot, "me": 1}
    summaries = {
        name: simulation.simulate(*args, tmp_path / name, **options, runner=running)
        for name, running in [("serial", SERIAL), ("processes", LocalProcesses(2))]
    }
    summaries["cluster"] = cluster.on_cluster(
        simulation.simulate, *args, tmp_path / "cluster", **options,
        same=[(engine, "GAMES_PER_TASK")],
    )  # fmt: skip
    written = {n: (_files(tmp_path / n), {**s, "out": None}) for n, s in summaries.items()}
    assert len(written["serial"][0]) == 16  # a turn file and a score file per game
    assert written["processes"] == written["serial"]
    assert written["cluster"] == written["serial"]
    other = simulation.simulate("twentyone", RULES, SEATS, 8, 12, tmp_path / "other",
                                make_bot=make_bot, me=1)  # fmt: skip
    assert _files(tmp_path / "other") != written["serial"][0]  # the seed decides
    assert other["matches"] != written["serial"][1]["matches"]


def test_simulate_with_and_without_cluster(cluster, tmp_path):
    args = ["simulate", "twentyone", "--games", "4", "--seed", "3", "--json"]
    here = invoke(*args, "--out", tmp_path / "here")
    there = cluster.invoke(*args, "--out", tmp_path / "there", "--cluster", cluster.address)
    assert {**json.loads(here.stdout), "out": None} == {**json.loads(there.stdout), "out": None}
    assert _files(tmp_path / "here") == _files(tmp_path / "there")


@pytest.fixture(scope="module")
def player(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("player") / "player.py"
    write_module(path, Strategy(solve(RULES).chart, BIDS, (), METADATA))
    return path


def _untimed(value):
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMED}
    return value


def test_validation_figures_do_not_depend_on_where_they_ran(cluster, player, monkeypatch):
    monkeypatch.setattr(validation, "GAMES_PER_TASK", 1)  # three games in three tasks
    sizes = {"hands": 4000, "games": 3, "seed": 9, "exact": False, "shoe_hands": 3000}
    here = validation.validate(player, RULES, **sizes, against=player)
    there = cluster.on_cluster(validation.validate, player, RULES, **sizes, against=player,
                               same=[(validation, "GAMES_PER_TASK")])  # fmt: skip
    assert _untimed(there) == _untimed(here)
    assert list(there) == list(here)  # the same document, key for key
    assert here["games"]["games"] == 3 and len(here["games"]["players"]["player"]) == 4
    assert here["against"]["games"] is not None and "continuous_shoe" in here


def test_a_player_that_fails_inside_a_task_is_named(cluster, player, tmp_path):
    faulty = tmp_path / "faulty.py"
    faulty.write_text(player.read_text() + "\nimport os\nos._exit(3)\n")
    result = cluster.invoke("validate", "twentyone", faulty, "--hands", "1000", "--shoe-hands",
                            "0", "--games", "2", "--cluster", cluster.address, ok=False)  # fmt: skip
    assert result.exit_code == 1
    said = f"error: {faulty}: ended its process (exit code 3) in importing the file"
    assert result.output.strip().splitlines() == [said]


def _round_robin(entrants: list[tournament.Entrant], runner=None) -> dict:
    """Four games of each pairing (a module-level function: the driver runs it too)."""
    match = Match("twentyone")
    return tournament.round_robin(match, entrants, 4, 7, Context(RULES), runner=runner)


def test_a_tournament_plays_the_same_games_on_the_cluster(cluster, player, tmp_path, monkeypatch):
    """Its deals in tasks of one; a file that ends its process in a game, inside a task on
    the cluster, is disqualified by name, as it is here."""
    monkeypatch.setattr(tournament, "DEALS_PER_TASK", 1)
    faulty = tmp_path / "faulty.py"
    faulty.write_text(player.read_text() + "\ndef play(*args):\n    import os\n    os._exit(5)\n")
    match = Match("twentyone")
    entrants = tournament.entrants_of([player, faulty], ["textbook"], match, Context(RULES))
    here = _round_robin(entrants)
    there = cluster.on_cluster(_round_robin, entrants, same=[(tournament, "DEALS_PER_TASK")])
    assert {**there, "timings": None} == {**here, "timings": None}
    assert list(here["disqualified"]) == [str(faulty)]
    assert "exit code 5" in here["disqualified"][str(faulty)]["reason"]
    assert [p.get("void") for p in here["pairings"]] == [
        f"disqualified: {faulty}",
        None,
        f"disqualified: {faulty}",
    ]

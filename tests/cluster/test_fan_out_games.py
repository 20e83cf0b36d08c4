"""Hog, Gin Rummy, Super-Nim and card guessing fan out as TwentyOne does: their simulations'
games and their validations' games (or a Hog card's rows) split into tasks by what they
are, each seeded by its own, so the same seed writes the same bytes and the same figures
in one process, in local processes or on the cluster, and as the command without
`--cluster` does; a player file that fails inside a task is named in one error line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mine.strategies.bots import cardguess as cardguess_bots
from mine.strategies.bots import ginrummy as ginrummy_bots
from mine.strategies.bots import hog as hog_bots
from mine.strategies.bots import supernim as supernim_bots
from mine.strategies.codegen import ginrummy as ginrummy_code
from mine.strategies.codegen.cardguess import module_source
from mine.strategies.engines import cardguess, ginrummy, hog, simulation, supernim
from mine.strategies.players.source import player_code
from mine.strategies.runners import SERIAL, LocalProcesses
from mine.strategies.solvers.cardguess import Plan, Search, Trees, flatten
from mine.strategies.validation import cardguess as cardguess_card
from mine.strategies.validation import ginrummy as ginrummy_card
from mine.strategies.validation import hog as hog_card
from mine.strategies.validation import supernim as supernim_card
from tests.cluster.test_fan_out import _files, _untimed
from tests.mine_cli import invoke
from tests.strategies.test_cardguess_codegen import METADATA as CARDGUESS_METADATA
from tests.strategies.test_ginrummy_codegen import FITTED as GINRUMMY_FITTED

# game: (engine, its simulate's arguments, tasks' size there, the command's own options)
SIMULATIONS = {
    "hog": (hog, ("hog", hog.HogRules(goal=40), ["always_roll:4", "random:1"], 30),
            {"make_bot": hog_bots.make_bot}, 8, ["--players", "always_roll:4,random:1"]),
    "ginrummy": (ginrummy, ("ginrummy", ginrummy.GinRummyRules(), ["simple", "explorer"], 4),
                 {"make_bot": ginrummy_bots.make_bot}, 2, []),
    "supernim": (supernim, ("supernim", supernim.SuperNimRules(max_moves=30),
                            ["random", "greedy"], 6),
                 {"make_bot": supernim_bots.make_bot}, 2, ["--players", "random,greedy"]),
    "cardguess": (cardguess, ("cardguess", cardguess.CardGuessRules(n=2),
                              ["random-consistent"], 30),
                  {"make_bot": cardguess_bots.make_bot}, 8, ["--players", "random-consistent"]),
}  # fmt: skip
GAMES = {"hog": 30, "ginrummy": 4, "supernim": 6, "cardguess": 30}


def _summary(summary: dict[str, Any] | list) -> dict[str, Any] | list:
    """A simulation's summary, without the folder it names (Hog's engine names none)."""
    return {**summary, "out": None} if isinstance(summary, dict) else summary


@pytest.mark.parametrize("game", SIMULATIONS)
def test_simulated_logs_are_the_same_bytes_on_every_runner(cluster, game, tmp_path, monkeypatch):
    engine, args, options, size, _ = SIMULATIONS[game]
    monkeypatch.setattr(engine, "GAMES_PER_TASK", size)  # a few tasks, the last one shorter
    summaries = {
        name: simulation.simulate(*args, 5, tmp_path / name, **options, runner=running)
        for name, running in [("serial", SERIAL), ("processes", LocalProcesses(2))]
    }
    same = [(engine, "GAMES_PER_TASK")]
    summaries["cluster"] = cluster.on_cluster(
        simulation.simulate, *args, 5, tmp_path / "cluster", **options, same=same
    )
    written = {n: (_files(tmp_path / n), _summary(s)) for n, s in summaries.items()}
    assert written["serial"][0] and written["processes"] == written["serial"]
    assert written["cluster"] == written["serial"]
    simulation.simulate(*args, 6, tmp_path / "other", **options)
    assert _files(tmp_path / "other") != written["serial"][0]  # the seed decides


@pytest.mark.parametrize("game", SIMULATIONS)
def test_simulate_with_and_without_cluster(cluster, game, tmp_path):
    own = SIMULATIONS[game][4]
    args = ["simulate", game, *own, "--games", GAMES[game], "--seed", "3", "--json"]
    here = invoke(*args, "--out", tmp_path / "here")
    there = cluster.invoke(*args, "--out", tmp_path / "there", "--cluster", cluster.address)
    assert _summary(json.loads(here.stdout)) == _summary(json.loads(there.stdout))
    assert _files(tmp_path / "here") == _files(tmp_path / "there")


# --- validation ------------------------------------------------------------------------------


def _cardguess_source() -> str:
    tree = flatten(2, Search(2, None, Plan(widths=(1,), members=1326, extras=0)).run())
    return module_source(Trees({2: tree}, CARDGUESS_METADATA), None)


SOURCES = {
    "hog": lambda: "def final_strategy(score, opponent_score):\n    return 4 + score % 3\n",
    "ginrummy": lambda: ginrummy_code.module_source(GINRUMMY_FITTED, None),
    "supernim": lambda: player_code(
        "mine.strategies.players.supernim", {"MAX_MOVES": 30, "DEPTH": 1}
    ),
    "cardguess": _cardguess_source,
}
# game: (module, its validate's sizes, the constant that sizes its tasks there)
MEASURES = {
    "hog": (hog_card, {"rules": ["goal=40"]}, None),
    "ginrummy": (ginrummy_card, {"games": 2, "opponents": ["simple"], "seed": 5},
                 "GAMES_PER_TASK"),
    "supernim": (supernim_card, {"games": 4, "baselines": ["random"], "equal_depth": 0},
                 "GAMES_PER_TASK"),
    "cardguess": (cardguess_card, {"sizes": (2,), "answers": 24, "baselines": ("greedy",)},
                  "ANSWERS_PER_TASK"),
}  # fmt: skip
TIMED = {"p99_call_ms", "max_call_ms", "p99_call_cpu_ms", "max_call_cpu_ms",  # Gin Rummy
         "p99_move_seconds", "max_move_seconds",  # Super-Nim
         "slowest_call_s", "slowest_game_s", "mean_call_s"}  # card guessing  # fmt: skip


def _figures(card: Any) -> Any:
    """The card without its clock readings (all else depends on the seed only)."""
    if isinstance(card, dict):
        return {k: _figures(v) for k, v in card.items() if k not in TIMED}
    return _untimed(card)


@pytest.fixture
def player(request, tmp_path) -> Path:
    path = tmp_path / f"{request.param}_player.py"
    path.write_text(SOURCES[request.param]())
    return path


@pytest.mark.parametrize(("game", "player"), [(g, g) for g in MEASURES], indirect=["player"])
def test_validation_figures_do_not_depend_on_where_they_ran(cluster, game, player, monkeypatch):
    module, sizes, per_task = MEASURES[game]
    if per_task:
        monkeypatch.setattr(module, per_task, 3 if per_task == "GAMES_PER_TASK" else 16)
    here = module.validate(player, against=player, **sizes)  # local contained workers
    same = [(module, per_task)] if per_task else []
    for there in (
        module.validate(player, against=player, **sizes, runner=SERIAL),
        module.validate(player, against=player, **sizes, runner=LocalProcesses(2)),
        cluster.on_cluster(module.validate, player, against=player, **sizes, same=same),
    ):
        assert _figures(there) == _figures(here)
        assert list(there) == list(here)  # the same document, key for key
    assert str(player) in json.dumps(here)  # the file against itself is one of the rows


FAULTS = {  # a call that ends the player's process, inside a task
    "hog": "def final_strategy(score, opponent_score):\n    import os\n    os._exit(4)\n",
    "ginrummy": "def pick(*args):\n    import os\n    os._exit(4)\n",
    "supernim": "def ai_move(*args, **kwargs):\n    import os\n    os._exit(4)\n",
    "cardguess": "def next_guess(*args):\n    import os\n    os._exit(4)\n",
}
FAULT_OPTIONS = {"hog": [], "ginrummy": ["--games", "2", "--baselines", "simple"],
                 "supernim": ["--games", "2", "--baselines", "random", "--equal-depth", "0"],
                 "cardguess": ["--n", "2", "--answers", "10", "--baselines", "greedy"]}  # fmt: skip


@pytest.mark.parametrize(("game", "player"), [(g, g) for g in FAULTS], indirect=["player"])
def test_a_player_that_fails_inside_a_task_is_named(cluster, game, player, tmp_path):
    faulty = tmp_path / "faulty.py"
    faulty.write_text(player.read_text() + "\n" + FAULTS[game])
    result = cluster.invoke("validate", game, faulty, *FAULT_OPTIONS[game], "--cluster",
                            cluster.address, ok=False)  # fmt: skip
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"error: {faulty}: ended its process (exit code 4)"), line

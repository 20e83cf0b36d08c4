"""A player file runs contained: whatever it does, the harness reports it by name, with
the reason, a non-zero exit code and no traceback, and keeps its own output clean."""

from __future__ import annotations

import gc
import json
import re
import textwrap

import duckdb
import pytest

from mine import games
from mine.strategies import contained
from mine.strategies.codegen.twentyone import write_module
from mine.strategies.contained import Limits, PlayerFault
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.strategies.engines.twentyone_chart import Strategy
from mine.strategies.solvers.twentyone import solve
from mine.strategies.validation import hog as hog_validation
from tests.mine_cli import here, one_line_error
from tests.strategies.test_twentyone_codegen import BIDS, METADATA

# A looping file spins until its limit: a quarter second of CPU time ends a loop as surely as
# a second (the parent looks every POLL, 0.05 s), and a file with no loop is done in
# milliseconds.
QUICK = Limits(import_seconds=0.5, call_seconds=0.25)
IMPORT_OVER = f"importing the file ran over its {QUICK.import_seconds:g} s limit"
CALL_OVER = f"ran over its {QUICK.call_seconds:g} s limit"

HOG = {
    "loops at import": ("while True:\n    pass\n", IMPORT_OVER),
    "loops in a call": (
        "def final_strategy(score, opponent_score):\n    while True:\n        pass\n",
        f"final_strategy() {CALL_OVER}",
    ),
    "sys.exit(0) at import": ("import sys\nsys.exit(0)\n", "it called sys.exit(0)"),
    "sys.exit(3) in a call": (
        "import sys\ndef final_strategy(score, opponent_score):\n    sys.exit(3)\n",
        "called sys.exit(3) in final_strategy()",
    ),
    "os._exit(0) in a call": (
        "import os\ndef final_strategy(score, opponent_score):\n    os._exit(0)\n",
        "ended its process (exit code 0) in final_strategy()",
    ),
    "kills the harness": (
        "import os, signal\n"
        "def final_strategy(score, opponent_score):\n"
        "    os.kill(os.getppid(), signal.SIGKILL)\n",
        "may not send signals",
    ),
    "kills its group": (
        "import os, signal\n"
        "def final_strategy(score, opponent_score):\n"
        "    os.killpg(0, signal.SIGKILL)\n",
        "may not send signals",
    ),
    "raises": (
        "def final_strategy(score, opponent_score):\n    raise KeyError('boom')\n",
        "raised KeyError: 'boom' in final_strategy()",
    ),
    "returns garbage": (
        "def final_strategy(score, opponent_score):\n    return 'lots'\n",
        "an invalid play: final_strategy(0, 0) returned 'lots' (the rules allow 0..10 dice)",
    ),
    "allocates without end": (
        "def final_strategy(score, opponent_score):\n    return len(bytearray(10**12))\n",
        "ran out of memory",
    ),
}


@pytest.mark.parametrize("case", HOG, ids=list(HOG))
def test_a_misbehaving_player_is_a_fault_with_its_reason(case, tmp_path):
    source, reason = HOG[case]
    path = tmp_path / "player.py"
    path.write_text(source)
    with pytest.raises(PlayerFault) as fault:
        hog_validation.validate(path, limits=QUICK)
    assert str(fault.value).startswith(f"{path}: ")
    assert reason in fault.value.reason


def test_through_the_command_a_fault_is_one_line_and_a_failure(tmp_path):
    path = tmp_path / "exits.py"
    path.write_text(HOG["sys.exit(0) at import"][0])
    assert f"{path}: cannot load (it called sys.exit(0))" in one_line_error(
        here("validate", "hog", path, "--json")
    )


def test_what_a_player_prints_stays_out_of_the_json(tmp_path):
    path = tmp_path / "chatty.py"
    path.write_text(
        "import sys\nprint('hello')\n"
        "def final_strategy(score, opponent_score):\n"
        "    print('rolling', file=sys.stderr)\n    print(4)\n    return 4\n"
    )
    result = here("validate", "hog", path, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["player"] == str(path)
    assert "hello" not in result.stdout + result.stderr


def _square(task: int) -> int:
    return task * task


def test_jobs_return_in_order_from_several_workers_and_unguarded_alike():
    tasks = list(range(40))
    assert contained.run("none", _square, tasks, workers=3, chunk=4) == [t * t for t in tasks]
    assert contained.run("none", _square, tasks, contain=False) == [t * t for t in tasks]


def _collected(task: int) -> int:
    gc.collect()
    return task


def test_a_connection_left_in_a_garbage_cycle_here_does_not_crash_a_worker(tmp_path):
    """A DuckDB connection in a cycle not yet collected (a command run in this process can
    leave one): finalized by a worker's collector, in a fork that has none of its threads,
    it crashed the worker (SIGSEGV, "in the harness")."""
    gc.disable()
    try:
        cycle: list = [duckdb.connect(str(tmp_path / "w.duckdb"))]
        cycle[0].execute("CREATE TABLE t AS SELECT range AS x FROM range(100000)")
        cycle.append(cycle)
        del cycle
        assert contained.run("none", _collected, [1, 2, 3], workers=2) == [1, 2, 3]
    finally:
        gc.enable()
        gc.collect()


def test_a_twentyone_file_whose_play_raises_reports_no_figures(tmp_path):
    path = tmp_path / "t21.py"
    write_module(path, Strategy(solve(TwentyOneRules()).chart, BIDS, (), METADATA))
    path.write_text(
        path.read_text()
        + textwrap.dedent(
            """
            def play(*args):
                raise RuntimeError("no idea")
            """
        )
    )
    result = here("validate", "twentyone", path, "--hands", "1000", "--shoe-hands", "0",
                  "--games", "1")  # fmt: skip
    line = one_line_error(result)
    assert f"{path}: 1 games lost to invalid actions" in line and "no idea" in line


def test_a_table_whose_numbers_are_out_of_range_writes_no_player(tmp_path):
    huge = {**METADATA, "learned": {**METADATA.get("learned", {}), "max_bid": 1e30}}
    path = tmp_path / "huge.py"
    with pytest.raises(ValueError, match="out of the rules' range"):
        write_module(path, Strategy(solve(TwentyOneRules()).chart, BIDS, (), huge))
    assert not path.exists()


@pytest.mark.parametrize(
    "args, says",
    [
        (("simulate", "twentyone", "--rules", "decks=1000000000"), "decks takes 1 to 16"),
        (("simulate", "hog", "--rules", "goal=1000000000"), "goal takes 1 to 1,000"),
        (("simulate", "hog", "--games", str(10**12)), "less than or equal to 1000000"),
        (("simulate", "hog", "--games", "-1"), "greater than or equal to 1"),
        (("validate", "twentyone", "x.py", "--hands", str(10**12)), "--hands"),
        (("validate", "ginrummy", "x.py", "--workers", "0"), "--workers"),
    ],
)
def test_absurd_numbers_are_one_line_before_anything_runs(args, says, tmp_path):
    result = here(*args, "--out", tmp_path / "out") if args[0] == "simulate" else here(*args)
    assert says in one_line_error(result)
    assert not (tmp_path / "out").exists()


def test_simulate_checks_the_disk_before_it_writes(tmp_path):
    from mine.pipeline.options import room_for

    with pytest.raises(Exception) as refused:  # typer.Exit, after the one line
        room_for(tmp_path / "logs", 10**18)
    assert getattr(refused.value, "exit_code", None) == 1
    room_for(tmp_path / "logs", 10**3)
    assert not (tmp_path / "logs").exists()


LOOP = "def {name}(*args, **kwargs):\n    while True:\n        pass\n"

# The smallest measure of each game's validator, so that the file's functions are soon called.
SMALLEST = {
    "twentyone": {"hands": 1000, "games": 0, "exact": False},
    "ginrummy": {"opponents": ["simple"], "games": 1, "workers": 1},
    "hog": {},
    "supernim": {"baselines": ["random"], "games": 2, "equal_depth": 0},
    "cardguess": {"sizes": [2], "answers": 2, "baselines": []},
}


def test_every_game_of_the_registry_has_its_smallest_measure():
    assert set(SMALLEST) == {game.name for game in games.with_part("validator")}


def _validate(game: str, path):
    validator = games.get(game).module("validator")
    return validator.validate(path, None, limits=QUICK, **SMALLEST[game])


@pytest.mark.parametrize("game", SMALLEST)
def test_every_game_ends_a_file_that_loops_at_import(game, tmp_path):
    path = tmp_path / "loops.py"
    path.write_text("while True:\n    pass\n")
    with pytest.raises(PlayerFault, match=IMPORT_OVER) as fault:
        _validate(game, path)
    assert fault.value.path == str(path)


@pytest.mark.parametrize("game", SMALLEST)
def test_every_game_ends_a_call_that_loops(game, tmp_path):
    path = tmp_path / "loops.py"
    functions = games.get(game).module("validator").FUNCTIONS
    if game == "twentyone":  # its validator reads a generated file's tables first
        write_module(path, Strategy(solve(TwentyOneRules()).chart, BIDS, (), METADATA))
        path.write_text(path.read_text() + LOOP.format(name="action_for"))
    else:
        path.write_text("".join(LOOP.format(name=name) for name in functions))
    with pytest.raises(PlayerFault, match=re.escape(f"() {CALL_OVER}")) as fault:
        _validate(game, path)
    assert fault.value.path == str(path)


def _both_play(task: tuple) -> int:
    """Two files in one job, as a head-to-head game has them: each file's function once."""
    from mine.strategies.player_file import load_module

    first, second = (load_module(path, "hog", ("final_strategy",)) for path in task)
    return first.final_strategy(0, 0) + second.final_strategy(0, 0)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("    os._exit(0)", "ended its process (exit code 0) in final_strategy()"),
        ("    while True:\n        pass", f"final_strategy() {CALL_OVER}"),
        ("    raise KeyError('boom')", "raised KeyError: 'boom' in final_strategy()"),
    ],
    ids=["exits", "loops", "raises"],
)
def test_with_two_files_in_a_worker_the_fault_names_the_file_to_blame(body, reason, tmp_path):
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text("def final_strategy(score, opponent_score):\n    return 4\n")
    bad.write_text(f"import os\n\ndef final_strategy(score, opponent_score):\n{body}\n")
    for order in ((good, bad), (bad, good)):
        with pytest.raises(PlayerFault) as fault:
            contained.run(list(order), _both_play, [order], limits=QUICK)
        assert fault.value.path == str(bad) and reason in fault.value.reason
    assert contained.run([good, good], _both_play, [(good, good)], limits=QUICK) == [8]

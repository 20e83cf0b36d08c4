"""A generated `Player.hs` or `Proj1.hs` is an entrant like the Python file of the same
table: the real `mine validate` and `mine tournament` commands compile it once (kept by
its hash), run it contained, and find the Python file's figures with 0 invalid actions;
a Haskell file that does not compile, crashes, loops or runs out of memory is one plain
line, as a Python file's fault is."""

from __future__ import annotations

import json
import shutil

import pytest

from mine.strategies.codegen import cardguess, ginrummy, twentyone
from mine.strategies.codegen.haskell.cardguess import haskell_source as cardguess_hs
from mine.strategies.codegen.haskell.ginrummy import haskell_source as ginrummy_hs
from mine.strategies.codegen.haskell.twentyone import haskell_source as twentyone_hs
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.strategies.engines.twentyone_chart import Strategy
from mine.strategies.haskell.build import key
from mine.strategies.solvers.cardguess import Plan, Search, Trees, flatten
from mine.strategies.solvers.twentyone import solve
from mine.strategies.validation.twentyone_haskell import stated, with_bids
from tests.mine_cli import here, one_line_error
from tests.shared_warehouse import ginrummy_fitted, haskell_program
from tests.strategies.haskell_files import needs_ghc
from tests.strategies.test_cardguess_codegen import METADATA as CARDGUESS_METADATA
from tests.strategies.test_haskell_twentyone import FIGURES
from tests.strategies.test_twentyone_codegen import BIDS, METADATA
from tests.strategies.test_twentyone_validate import count_charts

pytestmark = needs_ghc
TIMINGS = {"seconds", "p99_call_ms", "max_call_ms", "p99_call_cpu_ms", "max_call_cpu_ms"}


def _pair(folder, python: str, haskell: str, name: str):
    """The Python file and the Haskell file made from it, in `folder`."""
    folder.mkdir()
    (folder / "player.py").write_text(python)
    (folder / name).write_text(haskell(python))
    return folder / "player.py", folder / name


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("entrants")
    chart = solve(TwentyOneRules()).chart
    table = Strategy(chart, BIDS, count_charts(chart), METADATA)
    fitted = ginrummy_fitted(tmp_path_factory)
    quick = Plan(widths=(1,), members=50, extras=0)
    trees = Trees({2: flatten(2, Search(2, None, quick).run())}, CARDGUESS_METADATA)
    return {
        "twentyone": _pair(root / "twentyone", twentyone.module_source(table, FIGURES),
                           twentyone_hs, "Player.hs"),
        "ginrummy": _pair(root / "ginrummy", ginrummy.module_source(fitted, None), ginrummy_hs,
                          "Player.hs"),
        "cardguess": _pair(root / "cardguess", cardguess.module_source(trees, None), cardguess_hs,
                           "Proj1.hs"),
    }  # fmt: skip


def _json(*args) -> dict:
    result = here(*args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _programs(cache) -> dict:
    """The cache's programs and when each was written."""
    return {p: p.stat().st_mtime_ns for p in cache.glob("*") if p.is_file()}


def _figures(value):
    """A result without its timings and the file's name: what the player decided."""
    if isinstance(value, dict):
        return {k: _figures(v) for k, v in value.items() if k not in TIMINGS | {"player"}}
    return value


def _kept_as_a_run_leaves_it(game: str, haskell, cache, factory, stand_ins) -> int:
    """The session's program of `haskell` (the file of test_haskell_<game> is this one; GHC
    takes seconds over it) put in the cache under its hash, as an earlier run leaves it;
    when it was written."""
    built = haskell_program(factory, game, haskell.read_text(), stand_ins)
    kept = cache / key(game, haskell.read_bytes())
    shutil.copyfile(built.program, kept)
    kept.chmod(0o755)
    return kept.stat().st_mtime_ns


def test_twentyone_validate_plays_the_haskell_file_as_its_python_file(
    files, cache, tmp_path_factory, haskell_stand_ins
):
    python, haskell = files["twentyone"]
    # The file's program is found by its hash; its flat twin is compiled through validate
    # (as the card-guessing file is below).
    written = _kept_as_a_run_leaves_it("twentyone", haskell, cache, tmp_path_factory,
                                       haskell_stand_ins)  # fmt: skip
    args = ("--hands", 1000, "--shoe-hands", 0, "--games", 1, "--against", python)
    result = _json("validate", "twentyone", haskell, *args)
    against = result["against"]
    assert result["flat_bet"]["player"] == against["flat_bet"]["return"]
    assert against["flat_bet"]["player_minus_this"]["ci95"] == [0.0, 0.0]  # every hand alike
    assert result["invalid_actions"] == 0 and result["games"]["decisions_timed"] > 1000
    assert against["games"]["invalid"] == [0, 0] and against["games"]["margin"]["mean"] == 0
    source = haskell.read_text()
    tables = stated(source)
    twin = with_bids(source, tuple(tables["MIN_BID"] for _ in tables["BIDS"]))
    kept = {path.name: when for path, when in _programs(cache).items()}
    assert {key("twentyone", s.encode()) for s in (source, twin)} <= set(kept)  # both, by hash
    assert kept[key("twentyone", source.encode())] == written  # found, not compiled again


def test_ginrummy_validate_finds_the_python_files_figures(
    files, cache, tmp_path_factory, haskell_stand_ins
):
    python, haskell = files["ginrummy"]
    # The compile through validate is held by the TwentyOne twin's and card guessing's.
    _kept_as_a_run_leaves_it("ginrummy", haskell, cache, tmp_path_factory, haskell_stand_ins)
    args = ("--games", 6, "--baselines", "simple,random", "--workers", 1)
    hs, py = (
        _json("validate", "ginrummy", haskell, *args),
        _json("validate", "ginrummy", python, *args),
    )
    assert _figures(hs) == _figures(py)
    assert all(row["invalid"] == 0 and row["calls"] > 0 for row in hs["against"].values())


def test_cardguess_validate_guesses_as_the_python_file_on_every_answer(files, cache):
    python, haskell = files["cardguess"]
    result = _json("validate", "cardguess", haskell, "--n", 2, "--against", python)
    two = result["sizes"]["2"]
    assert two["player"]["invalid"] == two["compared"]["invalid"] == 0
    assert two["player"]["mean"] == two["compared"]["mean"]
    assert two["compared"]["paired"]["ci95"] == [0.0, 0.0] and two["feedback_mismatches"] == 0
    built = _programs(cache)
    again = _json("validate", "cardguess", haskell, "--n", 2)
    assert _programs(cache) == built  # found by its hash, not compiled again
    assert again["sizes"]["2"]["player"]["mean"] == two["player"]["mean"]


TOURNAMENTS = {
    "twentyone": ("--bots", "textbook", "--games", 2),
    "ginrummy": ("--bots", "simple", "--games", 4),
    "cardguess": ("--bots", "greedy", "--games", 20),
}


@pytest.mark.parametrize("game", TOURNAMENTS)
def test_a_tournament_takes_the_haskell_file_beside_its_python_file(game, files, cache):
    python, haskell = files[game]
    result = _json("tournament", game, haskell, python, *TOURNAMENTS[game])
    standings = {row["name"]: row for row in result["standings"]}
    hs, py = standings[str(haskell)], standings[str(python)]
    assert hs["invalid"] == py["invalid"] == 0 and hs["disqualified"] is None
    assert (hs["score"], hs["games"]) == (py["score"], py["games"])
    versus_bot = {p["a"]: {k: v for k, v in p.items() if k != "a"}
                  for p in result["pairings"] if p["b"] == TOURNAMENTS[game][1]}  # fmt: skip
    assert versus_bot[str(haskell)] == versus_bot[str(python)]  # the same games, move for move


PROJ1 = """module Proj1 (feedback, initialGuess, nextGuess, GameState) where

import Card
import Data.Array.Unboxed

type GameState = ()

feedback :: [Card] -> [Card] -> (Int, Int, Int, Int, Int)
feedback _ _ = (0, 0, 0, 0, 0)

initialGuess :: Int -> ([Card], GameState)
initialGuess n = case n of
  2 -> error "boom"
  3 -> if length (repeat n) > 0 then ([], ()) else ([], ())
  _ -> if (accumArray (+) 0 (0, 10 ^ (11 :: Int)) [] :: UArray Int Int) ! n > 0
         then ([], ())
         else ([], ())

nextGuess :: ([Card], GameState) -> (Int, Int, Int, Int, Int) -> ([Card], GameState)
nextGuess g _ = g
"""
HOSTILE = {  # one file, compiled once: what it does depends on the answer's size
    "crashes": (2, "its program ended (exit code 1: boom) in initial_guess()"),
    "loops": (3, "initial_guess() ran over its 1 s limit"),
    "runs out of memory": (4, "ran out of memory (its program's heap) in initial_guess()"),
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile") / "Proj1.hs"
    path.write_text(PROJ1)
    return path


@pytest.mark.parametrize("case", HOSTILE)
def test_a_haskell_file_that_fails_is_one_plain_line(case, hostile, cache):
    n, reason = HOSTILE[case]
    line = one_line_error(here("validate", "cardguess", hostile, "--n", n, "--answers", 1))
    assert line.startswith(f"error: {hostile}: {reason}"), line


def test_a_haskell_file_that_does_not_compile_is_one_line_where_ghc_says(tmp_path, cache):
    path = tmp_path / "Proj1.hs"
    path.write_text(PROJ1.replace("nextGuess g _ = g", "nextGuess g _ = g +"))
    line = one_line_error(here("tournament", "cardguess", path, "--games", 2))
    assert f"{path}: disqualified, does not compile (Proj1.hs:21:1: parse error" in line, line


@pytest.mark.parametrize("name", ["missing.hs", "folder.hs"])
def test_a_haskell_file_that_is_not_there_is_one_line(name, tmp_path):
    (tmp_path / "folder.hs").mkdir()
    line = one_line_error(here("validate", "twentyone", tmp_path / name))
    assert line.startswith(f"error: {tmp_path / name}: "), line

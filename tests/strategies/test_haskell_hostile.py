"""Haskell player files written to attack the harness. What GHC runs of a file at compile
time (Template Haskell) is held to the compile's limits, CPU and wall-clock time, memory
and file size, and ends in one line; it leaves no process behind and, run as root, writes
nothing outside its build folder. A cache the harness cannot write (a file, a read-only
folder or home), or its workers cannot read (root's home, as root without the right to read
any file), is replaced for the run, and the work is done. A program's call is timed by its
CPU time, not by a busy machine's clock."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mine.strategies import contained
from mine.strategies.contained import PlayerFault
from mine.strategies.haskell import build, programs
from mine.strategies.haskell.programs import CACHE
from tests.mine_cli import NO_READ_SEARCH, as_root, here, mine, one_line_error, without_file_rights
from tests.strategies.haskell_files import needs_ghc
from tests.strategies.hostile_files import left_behind

pytestmark = needs_ghc

# A valid card-guessing player, small to compile: the first hand consistent with every
# feedback so far.
PROJ1 = """module Proj1 (feedback, initialGuess, nextGuess, GameState) where

import Card
import Data.List (delete)

type GameState = [[Card]]

feedback :: [Card] -> [Card] -> (Int, Int, Int, Int, Int)
feedback answer guess =
  ( length (filter (`elem` guess) answer)
  , length (filter (< minimum guessed) ranks)
  , common ranks guessed
  , length (filter (> maximum guessed) ranks)
  , common (map suit answer) (map suit guess) )
  where
    ranks = map rank answer
    guessed = map rank guess

common :: Eq a => [a] -> [a] -> Int
common [] _ = 0
common (x : xs) ys
  | x `elem` ys = 1 + common xs (delete x ys)
  | otherwise = common xs ys

initialGuess :: Int -> ([Card], GameState)
initialGuess n = next (choose n [minBound .. maxBound])

nextGuess :: ([Card], GameState) -> (Int, Int, Int, Int, Int) -> ([Card], GameState)
nextGuess (guess, hands) said = next [h | h <- hands, h /= guess, feedback h guess == said]

next :: [[Card]] -> ([Card], GameState)
next (hand : hands) = (hand, hand : hands)
next [] = ([], [])

choose :: Int -> [a] -> [[a]]
choose 0 _ = [[]]
choose _ [] = []
choose k (x : xs) = map (x :) (choose (k - 1) xs) ++ choose k xs
"""


def _splicing(imports: str, splice: str) -> str:
    """PROJ1 with a Template Haskell splice that runs `splice` when GHC compiles it."""
    source = PROJ1.replace("import Card\n", f"import Card\nimport Language.Haskell.TH\n{imports}")
    return f"{{-# LANGUAGE TemplateHaskell #-}}\n{source}\nspliced :: Int\nspliced = $({splice})\n"


# Each: the splice, the compile's limits as the test sets them (CPU seconds, wall-clock
# seconds, MB of memory, MB of a file), and how its line ends.
COMPILES = {
    "loops": (
        ("", "litE (integerL (fromIntegral (length [1 :: Int ..])))"),
        (3, 300, 2048, 256),
        "GHC ran over its 3 s limit of CPU time",
    ),
    "sleeps": (
        ("import Control.Concurrent (threadDelay)\n", "runIO (threadDelay 3600000000) >> [| 1 |]"),
        (300, 5, 2048, 256),  # mine's is 900 s; GHC reaches the splice in a second or two
        "GHC ran over its 5 s limit of wall time",
    ),
    "allocates without end": (
        ("", "let xs = [1 ..] :: [Integer] in litE (integerL (sum xs + fromIntegral (length xs)))"),
        (300, 300, 1024, 256),
        "GHC ran out of memory (its 1024 MB)",
    ),
    "writes without end": (
        ("import System.IO (hPutStr, stderr)\n", 'runIO (hPutStr stderr (cycle "x")) >> [| 1 |]'),
        (300, 300, 2048, 1),
        "GHC wrote over its 1 MB limit of a file",
    ),
}


@pytest.mark.parametrize("case", COMPILES, ids=list(COMPILES))
def test_compile_time_code_is_held_to_the_compiles_limits(case, tmp_path, cache, monkeypatch):
    (imports, splice), (cpu, wall, memory, file), reason = COMPILES[case]
    for name, value in zip(("COMPILE_SECONDS", "COMPILE_WALL_SECONDS", "COMPILE_MEMORY_MB"),
                           (cpu, wall, memory), strict=True):  # fmt: skip
        monkeypatch.setattr(build, name, value)  # the workers fork with them
    monkeypatch.setattr(build, "COMPILE_FILE_BYTES", file * 2**20)
    path = tmp_path / "Proj1.hs"
    path.write_text(_splicing(imports, splice))
    with pytest.raises(PlayerFault) as fault:
        programs.prepare_source(path, path.read_bytes(), "cardguess")
    assert (fault.value.path, fault.value.reason) == (str(path), f"does not compile ({reason})")
    assert left_behind(tmp_path) == []


def test_compile_time_code_leaves_nothing_running_and_root_keeps_it_in_its_folder(tmp_path, cache):
    """It starts a process in a session of its own that would run for an hour, then writes
    beside the file and into the cache: as root, its user may not (the compile fails);
    not root, it writes as you (README), and the process still ends with the compile."""
    escaped = [tmp_path / "escaped", cache.parent / "escaped"]
    path = tmp_path / "Proj1.hs"
    daemon = f"setsid sh -c 'sleep 3600' {tmp_path} </dev/null >/dev/null 2>&1 &"
    writes = " >> ".join(f'runIO (writeFile "{target}" "x")' for target in escaped)
    imports = "import System.Process (spawnCommand)\n"
    path.write_text(_splicing(imports, f'runIO (spawnCommand "{daemon}") >> {writes} >> [| 1 |]'))
    if os.geteuid() == 0:
        with pytest.raises(PlayerFault, match="does not compile .*compile-time code"):
            programs.prepare_source(path, path.read_bytes(), "cardguess")
        assert not any(target.exists() for target in escaped)
    else:
        programs.prepare_source(path, path.read_bytes(), "cardguess")
    assert left_behind(tmp_path) == []


def _validates(path: Path, *under: str, cwd: Path | None = None) -> None:
    result = mine("validate", "cardguess", path, "--n", 2, "--answers", 2, "--json",
                  under=under, cwd=cwd, timeout=600)  # fmt: skip
    assert result.returncode == 0 and '"invalid": 0' in result.stdout, result.stderr


UNWRITABLE = {  # the cache's place, as `env` sets it (FOLDER: a new folder)
    "a cache that is a file": "MINE_CACHE=FOLDER/file",
    "a cache folder it may not write": "MINE_CACHE=FOLDER/read-only",
    "a read-only home": "HOME=FOLDER/read-only",
}


@pytest.mark.parametrize("case", UNWRITABLE, ids=list(UNWRITABLE))
def test_a_cache_it_cannot_write_is_replaced_for_the_run(case, readable):
    (readable / "file").write_text("not a folder")
    (readable / "read-only").mkdir(mode=0o555)
    path = readable / "Proj1.hs"
    path.write_text(PROJ1)
    place = UNWRITABLE[case].replace("FOLDER", str(readable))
    env = ("env", "-u", CACHE, "-u", "XDG_CACHE_HOME", f"TMPDIR={readable / 'tmp'}", place)
    _validates(path, *env, *without_file_rights())
    assert list((readable / "tmp").iterdir()) == []  # its own cache went with it
    assert list((readable / "read-only").iterdir()) == []


@as_root
@pytest.mark.parametrize("earlier", [False, True], ids=["an empty cache", "a filled cache"])
def test_a_cache_the_workers_cannot_read_is_replaced_for_the_run(earlier, readable):
    """Root's workers, users of their own, may not read root's home where the system does
    not grant them the right to read any file: the default cache under it, empty or filled
    by an earlier run that had the right, is replaced for the run (it said: its program is
    not in the cache, the harness did not compile it), and left as it was."""
    home = readable / "home"
    home.mkdir(mode=0o700)  # as /root is
    path = readable / "Proj1.hs"
    path.write_text(PROJ1)
    env = ("env", "-u", CACHE, "-u", "XDG_CACHE_HOME", f"TMPDIR={readable / 'tmp'}",
           f"HOME={home}")  # fmt: skip
    kept = home / ".cache" / "mine" / "haskell"
    if earlier:
        _validates(path, *env)
    before = sorted(kept.rglob("*")) if earlier else []
    _validates(path, *env, *NO_READ_SEARCH)
    assert list((readable / "tmp").iterdir()) == []  # its own cache went with it
    assert sorted(kept.rglob("*")) == before


def _cache_seen(_task) -> str:
    return str(programs.cache())


@as_root
def test_without_a_home_the_workers_look_in_the_harness_cache(monkeypatch):
    """Without HOME (cron, `env -i`) Python finds a home in the system's record of the
    user, which a root harness's workers, users of their own, have none of: a worker
    looking for the harness's program raised (`mine check Player.hs` said: raised
    RuntimeError: Could not determine home directory. in the harness). Nothing is
    compiled: the workers' answer is held to the harness's."""
    for name in (CACHE, "XDG_CACHE_HOME", "HOME"):
        monkeypatch.delenv(name, raising=False)
    harness = str(programs.cache())  # as the harness asks before its workers start
    assert contained.run("none", _cache_seen, [0]) == [harness]


@as_root
def test_a_temporary_folder_the_workers_cannot_enter_is_passed_over(readable):
    """A TMPDIR under /root (mode 700): root's workers, users of their own, can neither
    compile in it nor read a run's own cache made in it (it said: raised PermissionError in
    the harness; then: its program is not in the cache). They use the next temporary
    folder, as Python does for a user who cannot write the first; the closed one is left
    as it was."""
    home = readable / "home"
    home.mkdir(mode=0o700)  # as /root is: the default cache under it is closed too
    closed = home / "tmp"
    closed.mkdir(mode=0o700)
    path = readable / "Proj1.hs"
    path.write_text(PROJ1)
    env = ("env", "-u", CACHE, "-u", "XDG_CACHE_HOME", f"TMPDIR={closed}", f"HOME={home}")
    _validates(path, *env, *NO_READ_SEARCH)
    assert list(closed.iterdir()) == []


def test_a_programs_call_that_waits_is_timed_by_its_cpu_not_by_the_busy_machines_clock(
    tmp_path, cache
):
    """Its first call waits 1.5 s (a machine too busy to run it, as far as the wall clock
    can tell), over the second a call has: it plays on, and validates."""
    path = tmp_path / "Proj1.hs"
    waits = "initialGuess n = unsafePerformIO (threadDelay 1500000) `seq` next (choose n"
    imports = "import Control.Concurrent (threadDelay)\nimport System.IO.Unsafe (unsafePerformIO)\n"
    path.write_text(PROJ1.replace("initialGuess n = next (choose n", waits)
                    .replace("import Card\n", f"import Card\n{imports}"))  # fmt: skip
    _validates(path)


# A card-guessing player whose first guess ends its program as $ENDS says.
ENDING = """module Proj1 (feedback, initialGuess, nextGuess, GameState) where

import Card (Card)
import Debug.Trace (trace)
import System.Environment (lookupEnv)
import System.Exit (ExitCode (ExitFailure), exitWith)
import System.IO (hPutStr, stderr)
import System.IO.Unsafe (unsafePerformIO)
import System.Posix.Process (getProcessGroupID)
import System.Posix.Signals (sigTERM, signalProcessGroup)

type GameState = ()

feedback :: [Card] -> [Card] -> (Int, Int, Int, Int, Int)
feedback _ _ = (0, 0, 0, 0, 0)

initialGuess :: Int -> ([Card], GameState)
initialGuess _ = case unsafePerformIO (lookupEnv "ENDS") of
  Just "traces" -> trace "thinking" (error "boom")
  Just "exits" -> unsafePerformIO (exitWith (ExitFailure 251))
  Just "signals" -> unsafePerformIO (getProcessGroupID >>= signalProcessGroup sigTERM) `seq` ([], ())
  _ -> unsafePerformIO (hPutStr stderr (cycle "spam ")) `seq` ([], ())

nextGuess :: ([Card], GameState) -> (Int, Int, Int, Int, Int) -> ([Card], GameState)
nextGuess previous _ = previous
"""
ENDS = {  # how its program ends: why, as the line says it
    "traces": "its program ended (exit code 1: boom)",  # not its trace's line, written first
    "exits": "its program ended (exit code 251)",  # its own exit, not GHC's out of memory
    "floods": "its program wrote over its 1 MB limit of stderr",  # not "killed by signal 25"
    # its worker too (the group's): not "raised KeyboardInterrupt", the command's Ctrl-C
    "signals": "ended its process (killed by SIGTERM)",
}


@pytest.mark.parametrize("ends", ENDS)
def test_a_program_that_ends_is_said_to_end_as_it_did(ends, tmp_path_factory, cache, monkeypatch):
    path = tmp_path_factory.getbasetemp() / "ending" / "Proj1.hs"  # compiled once, for all
    path.parent.mkdir(exist_ok=True)
    path.write_text(ENDING)
    monkeypatch.setenv("ENDS", ends)  # the workers, and the program, fork with it
    line = one_line_error(here("validate", "cardguess", path, "--n", 2, "--answers", 1))
    assert line == f"error: {path}: {ENDS[ends]} in initial_guess()"


@pytest.mark.parametrize("limit", ["--as=1000000000", "--fsize=500000"], ids=["memory", "file"])
def test_a_users_hard_limit_under_a_workers_stands(limit, tmp_path_factory, cache):
    """`ulimit -v 1000000` or `ulimit -f 500`: hard limits, which a process may only lower,
    under the worker's memory (2 GB over the harness's) or its program's file size (its
    stderr, 1 MB), are kept. A good file said: ended its process (exit code 70) in the
    harness; raised SubprocessError: Exception occurred in preexec_fn. in the harness."""
    path = tmp_path_factory.getbasetemp() / "ending" / "Proj1.hs"  # compiled once, for all
    path.parent.mkdir(exist_ok=True)
    path.write_text(ENDING)
    assert here("check", path).returncode == 0  # compiled first: GHC writes larger files
    result = mine("check", path, under=("prlimit", limit, "--"))
    assert result.returncode == 0, result.stderr


def test_a_program_that_traces_every_call_plays_on(tmp_path, cache):
    """Its debugging lines (Debug.Trace, 200 kB a guess) run past its limit of stderr over
    the validation, never within a call: it validates, as a Python file that prints does."""
    path = tmp_path / "Proj1.hs"
    traced = "nextGuess (guess, hands) said = trace (replicate 200000 'z') $ next"
    path.write_text(PROJ1.replace("import Card\n", "import Card\nimport Debug.Trace (trace)\n")
                    .replace("nextGuess (guess, hands) said = next", traced))  # fmt: skip
    result = here("validate", "cardguess", path, "--n", 2, "--answers", 10, "--json")
    assert result.returncode == 0 and '"invalid": 0' in result.stdout, result.stderr


# A TwentyOne player that stands with a memory of $MEMORY: a character, then how many.
LONG_MEMORY = """module Player (playCard) where

import System.Environment (getEnv)
import System.IO.Unsafe (unsafePerformIO)
import TwentyOne.Types

playCard :: PlayFunc
playCard Nothing _ _ _ _ _ = (Bid 10, "")
playCard _ _ _ _ _ _ = case unsafePerformIO (getEnv "MEMORY") of
  c : n -> (Stand, replicate (read n) c)
  [] -> (Stand, "")
"""


@pytest.mark.parametrize(("memory", "disqualified"), [
    ("m2000000", None),  # 2 MB on its line: over the rules' 10,000 characters, an invalid play
    (" 1200000", "its program's reply to play runs over 8 MB in play()"),  # 8.4 MB escaped
], ids=["too long", "over its line"])  # fmt: skip
def test_a_memory_too_long_is_an_invalid_play(memory, disqualified, tmp_path_factory, cache,
                                              monkeypatch):  # fmt: skip
    """As a Python file's: not a protocol fault that quotes what its program said; a line
    no memory the rules allow needs is one, said so."""
    path = tmp_path_factory.getbasetemp() / "memory" / "Player.hs"  # compiled once, for both
    path.parent.mkdir(exist_ok=True)
    path.write_text(LONG_MEMORY)
    monkeypatch.setenv("MEMORY", memory)
    result = here("tournament", "twentyone", path, "--bots", "textbook", "--games", 2, "--json")
    standing = {row["name"]: row for row in json.loads(result.stdout)["standings"]}[str(path)]
    if disqualified:
        assert standing["disqualified"] == f"{disqualified} (playing {path} v textbook)"
    else:
        assert (standing["disqualified"], standing["invalid"]) == (None, 2)  # one a game


def test_a_pragmas_flag_that_fails_past_ghcs_errors_is_said_why(tmp_path, cache):
    """`-prof` in an OPTIONS_GHC pragma fails with no error at a line of the file (GHC finds
    no profiled interface): the line says that, not GHC's first line of progress."""
    path = tmp_path / "Proj1.hs"
    path.write_text("{-# OPTIONS_GHC -prof #-}\n" + PROJ1)
    line = one_line_error(here("check", path))
    assert line.startswith(f"error: {path}: does not compile (Failed to load interface for"), line

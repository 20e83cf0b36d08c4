"""`mine check FILE` (issue 41): a player file checked as the harness loads it, its game
told from the file (a Haskell file's course imports, a Python file's functions), in one
line; and `mine validate` or `mine tournament` of another game's file says whose player it
is."""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
import subprocess
import termios

import pytest

from mine.pipeline.player_games import played_by
from tests.conftest import with_stand_ins
from tests.mine_cli import MINE, here, one_line_error
from tests.strategies.haskell_files import SMALLEST_PROJ1, needs_ghc

# What a check says and its exit code are mine's entry point's, run here in this process
# (`here`): the files are loaded in the harness's own contained processes all the same. A
# terminal's view (below) takes a real process.
GIN = """module Player (pickCard, playCard, makeMelds) where

import Cards
import Rummy.Types
"""
NIM = """def ai_move(board, moves_left=None):
    return random_move(board)


def random_move(board, moves_left=None):
    return ("merge", 0, 1)
"""


@pytest.fixture
def cache(tmp_path, monkeypatch, haskell_stand_ins):
    """A compiled programs' cache of the test's own (each check compiles its file; the
    stand-ins are the session's)."""
    monkeypatch.setenv("MINE_CACHE", str(with_stand_ins(tmp_path / "cache", haskell_stand_ins)))


@pytest.mark.parametrize(
    ("name", "text", "game"),
    [("Proj1.hs", SMALLEST_PROJ1, "cardguess"), ("Player.hs", GIN, "ginrummy"),
     ("Player.hs", "import TwentyOne.Types\nimport Cards\n", "twentyone"),
     ("p.py", NIM, "supernim"), ("p.py", "def final_strategy(a, b):\n    return 1\n", "hog"),
     ("p.py", "def play(x):\n    return 1\n", None), ("Player.hs", "import Cards\n", None),
     ("p.py", "def ai_move(:\n", None)],
)  # fmt: skip
def test_the_game_is_read_from_the_file(tmp_path, name, text, game):
    """A course module only one game's bundle holds, or all of one game's functions;
    neither (`Cards` is two courses'), or a file that does not parse: not told."""
    path = tmp_path / name
    path.write_text(text)
    found = played_by(path)
    assert (found and found.game) == game


def test_a_python_player_is_checked_in_one_line(tmp_path, cache):
    good, bad, unknown = tmp_path / "nim.py", tmp_path / "exits.py", tmp_path / "what.py"
    broken = tmp_path / "broken.py"
    good.write_text(NIM)
    bad.write_text(NIM + "raise SystemExit(3)\n")
    unknown.write_text("def play(x):\n    return 1\n")
    broken.write_text(NIM.replace("return (", "return ((", 1))  # its game is not told
    ok = here("check", good)
    assert ok.returncode == 0 and ok.stdout == f"ok: {good}: a Super-Nim player; it loads\n"
    line = one_line_error(here("check", bad))
    assert line == f"error: {bad}: cannot load (it called sys.exit(3))"
    assert "cannot tell which game" in one_line_error(here("check", unknown))
    line = one_line_error(here("check", broken))  # what keeps it from loading, not --game
    assert line.startswith(f"error: {broken}: cannot load (SyntaxError: "), line
    given = here("check", unknown, "--game", "twentyone")
    assert given.returncode == 0 and "a TwentyOne player" in given.stdout


DEEP = {"MemoryError": "-" * 100_000 + "1", "RecursionError": "1" + "+1" * 100_000}


@pytest.mark.parametrize("error", DEEP)
def test_a_file_nested_past_the_parsers_depth_is_one_line(tmp_path, error):
    """Its game is read from it in mine's own process: an expression nested past the
    parser's depth is not told there (it was a traceback of check and validate), and its
    load, contained, says why it does not load."""
    path = tmp_path / "deep.py"
    path.write_text(f"def final_strategy(score, opponent_score):\n    return {DEEP[error]}\n")
    assert played_by(path) is None
    for command in (("check", path), ("validate", "hog", path)):
        line = one_line_error(here(*command))
        assert line.startswith(f"error: {path}: cannot load ({error}"), line


@needs_ghc
def test_a_haskell_player_is_compiled_with_its_courses_stand_ins(tmp_path, cache):
    good, broken = tmp_path / "ok" / "Proj1.hs", tmp_path / "broken" / "Proj1.hs"
    for path, text in (
        (good, SMALLEST_PROJ1),
        (broken, SMALLEST_PROJ1.replace("nextGuess previous _ = previous", "nextGuess =")),
    ):
        path.parent.mkdir()
        path.write_text(text)
    ok = here("check", good)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout == (f"ok: {good}: a Card guessing player; it compiles with its course's "
                         "flags and stand-ins, and loads\n")  # fmt: skip
    line = one_line_error(here("check", broken))
    assert line.startswith(f"error: {broken}: ") and "Proj1.hs:" in line, line


def test_validate_says_whose_player_another_games_file_is(tmp_path):
    path = tmp_path / "Player.hs"
    path.write_text(GIN)
    line = one_line_error(here("validate", "twentyone", path))
    assert line == (f"error: {path}: this is a Gin Rummy player, not a TwentyOne one (it "
                    f"imports Rummy.Types): mine validate ginrummy {path}")  # fmt: skip


def test_a_tournament_refuses_another_games_file_before_any_game(tmp_path):
    """A Gin Rummy file defines TwentyOne's `play` too: it was seated, lost every game to
    an invalid action, and the tournament ended well (exit 0) without saying why."""
    path = tmp_path / "gin.py"
    path.write_text("".join(f"def {name}(*given):\n    return None\n\n\n"
                            for name in ("pick", "play", "melds")))  # fmt: skip
    result = here("tournament", "twentyone", path, "--bots", "textbook,dealer", "--games", "2")
    line = one_line_error(result, code=1)
    assert line == (f"error: {path}: this is a Gin Rummy player, not a TwentyOne one (it "
                    f"defines pick, play, melds): mine tournament ginrummy {path}")  # fmt: skip
    assert result.stdout == ""  # refused before any game


@needs_ghc
def test_validate_says_it_compiles_while_ghc_runs(tmp_path, cache):
    """On a terminal, a Haskell file's compile is `compiling Proj1.hs`, not `measuring
    Proj1.hs 0/?` (seconds of GHC before the first game is counted)."""
    path = tmp_path / "Proj1.hs"
    path.write_text(SMALLEST_PROJ1)
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    process = subprocess.Popen([MINE, "validate", "cardguess", "Proj1.hs", "--n", "2",
                                "--answers", "1"], stdout=follower, stderr=follower,
                               stdin=subprocess.DEVNULL, cwd=tmp_path)  # fmt: skip
    os.close(follower)
    said = bytearray()
    with contextlib.suppress(OSError):  # the other side closed: all is read
        while chunk := os.read(leader, 65536):
            said += chunk
    os.close(leader)
    process.wait(timeout=300)
    assert b"compiling Proj1.hs" in said, said.decode(errors="replace")

"""Player files whose errors and answers are hostile objects of their own classes (an
exception whose `__str__` raises or says megabytes, a number or text of a subclass with
its own methods), run as a user runs them: one line that blames the file for what it did,
and the other entrants' results as they were."""

from __future__ import annotations

import json
from pathlib import Path

from tests.mine_cli import mine, one_line_error

UNREADABLE = """
class Unreadable(Exception):
    def __str__(self):
        raise RuntimeError("no message")
"""


def _hog(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.write_text(source)
    return path


def test_an_exception_whose_message_raises_is_the_players_fault(tmp_path):
    """(Before: the worker died formatting it, 'ended its process (exit code 70) in the
    harness', and a tournament disqualified the file instead of counting its plays.)"""
    path = _hog(tmp_path, "unreadable.py", UNREADABLE + "def final_strategy(score, opponent_score):\n"
                "    raise Unreadable()\n")  # fmt: skip
    line = one_line_error(mine("validate", "hog", path), code=1)
    assert line == (f"error: {path}: raised Unreadable: (its message raised RuntimeError) in "
                    "final_strategy()")  # fmt: skip
    good = _hog(tmp_path, "good.py", "def final_strategy(score, opponent_score):\n    return 4\n")
    result = mine("tournament", "hog", good, path, "--bots", "", "--games", "2", "--json")
    assert result.returncode == 0, result.stderr
    (pairing,) = json.loads(result.stdout)["pairings"]
    assert (pairing["a"], pairing["a_score_rate"], pairing["invalid"]) == (str(good), 1.0, [0, 2])
    assert pairing["invalid_reasons"][1] == [
        "final_strategy(0, 0) raised Unreadable: (its message raised RuntimeError)"
    ]


def test_an_exception_of_megabytes_reads_as_one_short_line(tmp_path):
    """(Before: its 20 MB message went into the worker's message, over its cap: 'ended its
    process (exit code 70) in the harness'.)"""
    path = _hog(tmp_path, "loud.py", 'LOUD = ValueError("\\x1b[31m" + "x" * 20_000_000)\n'
                "def final_strategy(score, opponent_score):\n    raise LOUD\n")  # fmt: skip
    line = one_line_error(mine("validate", "hog", path), code=1)
    assert line.startswith(f"error: {path}: raised ValueError: \\x1b[31mxxx"), line[:200]
    assert line.endswith("x… in final_strategy()") and len(line) < 400, line[:200]

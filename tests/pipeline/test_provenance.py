"""A generated file says which mine wrote it, on which day and by which command (its
docstring holds the data's fingerprint): the same table, command and SOURCE_DATE_EPOCH give
the same bytes, and no path can break out of those comment lines."""

from __future__ import annotations

import ast

import pytest

from mine import __version__
from mine.models import hog as model
from mine.strategies.engines.hog import HogRules
from mine.strategies.solvers.hog import TurnModel, optimal
from tests.mine_cli import mine


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    strategy = optimal(TurnModel.from_rules(HogRules(goal=30))).table[0]
    metadata = {
        "game": "hog", "kind": "strategy", "fingerprint": "ab" * 32, "rows": 10, "games": 1,
        "logs": 1, "method": "minimax", "settings": {},
        "learned": {"goal": 30, "dice_sides": 6, "max_rolls": 10, "sow_sad": True,
                    "square_swine": True},
    }  # fmt: skip
    return model.write_table(
        tmp_path_factory.mktemp("t") / "t.parquet", model.Fit(strategy, metadata)
    )


def test_the_first_line_names_mine_the_day_and_the_command(table, tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "86400")
    out = tmp_path / "odd\nname.py"
    assert mine("generate", "hog", "--table", table, "--out", out).returncode == 0
    text = out.read_text()
    lines = text.splitlines()
    assert lines[0] == f"# made by mine {__version__} on 1970-01-02:"
    said = lines[: next(i for i, line in enumerate(lines) if not line.startswith("# "))]
    head = "".join(line[2:].replace(" ", "") for line in said[1:])  # long words wrap anywhere
    assert head.startswith("minegeneratehog--table") and "odd?name.py" in head
    assert all(len(line) <= 80 for line in said)
    rest = text[sum(len(line) + 1 for line in said) :]
    assert ast.get_docstring(ast.parse(rest)).startswith("Hog player")
    assert ("ab" * 32) in rest
    again = tmp_path / "again.py"
    assert mine("generate", "hog", "--table", table, "--out", again).returncode == 0
    assert again.read_text().endswith(rest)  # the same table: the same player

"""A player card (`mine validate <game> --json`) edited by hand and drawn by `mine report
--card`: its rules are read as a command line's are, within the rules' bounds, so that a
page never solves a game no `--rules` could ask for."""

from __future__ import annotations

import json

from tests.conftest import hog_table
from tests.mine_cli import here, one_line_error


def test_a_hog_card_whose_goal_is_past_the_rules_is_one_line(tmp_path):
    """The page solved the card's game whatever its goal: 5,000 held 2.6 GB and ended in a
    MemoryError's traceback, 10^9 ran for minutes into one. Just past the bound (1,001,
    solved in a second before) shows the bound is kept."""
    card, out = tmp_path / "card.json", tmp_path / "page.html"
    card.write_text(json.dumps({"rules": {"goal": 1001}, "against": {}}))
    table = hog_table(tmp_path / "t.parquet")
    line = one_line_error(here("report", "hog", "--table", table, "--card", card, "--out", out))
    assert f"{card}: not a card" in line and "goal takes 1 to 1,000" in line, line
    assert not out.exists()


def test_a_hog_card_holding_a_number_past_a_float_is_one_line(tmp_path):
    """JSON's integers go past a float's range: drawing one was OverflowError's traceback."""
    card, out = tmp_path / "card.json", tmp_path / "page.html"
    rates = {"first": 10**400, "second": 0.5, "average": 0.5}
    card.write_text(json.dumps({"rules": {"goal": 30}, "against": {"always_roll:6": rates}}))
    table = hog_table(tmp_path / "t.parquet")
    line = one_line_error(here("report", "hog", "--table", table, "--card", card, "--out", out))
    assert line == (f"error: {card}: not a card of `mine validate hog --json` (int too large "
                    "to convert to float)")  # fmt: skip
    assert not out.exists()

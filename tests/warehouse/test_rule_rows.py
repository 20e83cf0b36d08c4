"""Verification gives, on a fixed corpus of every game, exactly the problem rows and the
error lines recorded in `rule_rows.json` (written by `tests/warehouse/rule_rows.py` when
the rules were SQL): a rule moved into the engines' rulebooks says what it said."""

from __future__ import annotations

import json

import pytest

from mine import games
from tests.warehouse import rule_rows


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(rule_rows.GOLDEN.read_text())


@pytest.fixture(scope="module")
def corpus() -> dict:
    return rule_rows.corpus()


@pytest.mark.parametrize("game", [game.name for game in games.with_part("schema")])
def test_verification_gives_the_recorded_problem_rows(tmp_path, golden, corpus, game):
    found = rule_rows.rows_of(game, corpus[game], tmp_path)

    assert found["rows"] == golden[game]["rows"]
    assert found["errors"] == golden[game]["errors"]
    assert any(found["rows"].values())  # the corpus breaks rules

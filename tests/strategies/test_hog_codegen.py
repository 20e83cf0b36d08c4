"""Generated Hog players: one standard-library file, the table as literals, provenance."""

from __future__ import annotations

import ast
from dataclasses import asdict

import numpy as np
import pytest

from mine.models.hog import Fit
from mine.strategies.bots.hog import BASELINES
from mine.strategies.codegen.hog import module_source
from mine.strategies.engines.hog import HogRules
from mine.strategies.solvers.hog import TurnModel, optimal
from mine.strategies.validation.hog import report_card

RULES = HogRules(goal=40)
TABLE = optimal(TurnModel.from_rules(RULES)).table[0]
METADATA = {
    "game": "hog",
    "fingerprint": "ab" * 32,
    "rows": 1234,
    "games": 56,
    "method": "best-response",
    "settings": {"against": "always_roll:6"},
    "learned": {
        "goal": 40,
        "dice_sides": 6,
        "fair_die": True,
        "sow_sad": True,
        "square_swine": True,
    },
}


def _load(source: str) -> dict:
    namespace: dict = {}
    exec(compile(source, "player.py", "exec"), namespace)
    return namespace


def test_module_embeds_the_table_and_plays_it():
    card = report_card(TABLE, RULES, BASELINES)
    source = module_source(Fit(TABLE, METADATA), card)
    tree = ast.parse(source)
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    player = _load(source)
    assert player["STRATEGY_TABLE"] == tuple(tuple(int(k) for k in row) for row in TABLE)
    assert all(player["final_strategy"](s, o) == TABLE[s, o] for s in range(40) for o in range(40))
    assert player["final_strategy"](250, -3) == TABLE[39, 0]


def test_docstring_states_provenance_and_validation():
    card = report_card(TABLE, RULES, ["always_roll:6"])
    doc = ast.get_docstring(ast.parse(module_source(Fit(TABLE, METADATA), card)))
    assert "games: 56" in doc and "rows: 1234" in doc and "ab" * 32 in doc
    assert "best-response" in doc and "against: always_roll:6" in doc
    figure = f"{card['against']['always_roll:6']['average']:.6f}"
    assert "vs always_roll:6: " in doc and figure in doc
    assert "optimal guaranteed" in doc


@pytest.mark.parametrize("player_id", ['x"""; import os', "a\\nb", "<script>"])
def test_log_text_never_reaches_the_code(player_id):
    metadata = {**METADATA, "settings": {"against": player_id}}
    source = module_source(Fit(TABLE, metadata), None)
    assert player_id not in source
    assert "against: (not shown)" in source
    assert _load(source)["final_strategy"](0, 0) == TABLE[0, 0]


def test_the_table_must_be_whole_numbers():
    bad = np.full((3, 3), 2)
    source = module_source(Fit(bad, {**METADATA, "learned": {"goal": 3}}), None)
    assert _load(source)["STRATEGY_TABLE"] == ((2, 2, 2),) * 3


def test_module_states_its_rules_for_validation():
    """The rules the table was solved in, as its metadata says they were learned."""
    learned = {"goal": 40, "dice_sides": 8, "sow_sad": True}
    player = _load(module_source(Fit(TABLE, {**METADATA, "learned": learned}), None))
    assert player["RULES"] == asdict(HogRules(**learned)) and player["GOAL"] == 40
    assert _load(module_source(Fit(TABLE, METADATA), None))["RULES"] == asdict(RULES)


@pytest.mark.parametrize(
    "learned",
    [{"goal": 50}, {"goal": 40, "dice_sides": "8; import os"}, {"goal": 40.5}],
)
def test_rules_are_checked_literals(learned):
    with pytest.raises(ValueError):
        module_source(Fit(TABLE, {**METADATA, "learned": learned}), None)


def test_no_rule_name_comes_from_the_table_file():
    learned = {"goal": 40, "x y": 1, "__import__('os')": 2}
    rules = _load(module_source(Fit(TABLE, {**METADATA, "learned": learned}), None))["RULES"]
    assert set(rules) == set(asdict(RULES))


def test_a_table_whose_numbers_are_out_of_range_writes_no_player():
    metadata = {"fingerprint": "0" * 64, "method": "test", "rows": 0}
    with pytest.raises(ValueError, match="dice outside 0..10"):
        module_source(Fit(np.full((100, 100), 10**30, dtype=object), metadata), None)
    huge = {**metadata, "learned": {"goal": 100, "dice_sides": 10**6}}
    with pytest.raises(ValueError, match="outside the rules' bounds"):
        module_source(Fit(np.full((100, 100), 4), huge), None)

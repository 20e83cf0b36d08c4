"""Super-Nim's validator keeps its layer's verbs: a file is measured under the rules it
states, `--rules` over them, and a card with the file's own invalid moves is a failure."""

from __future__ import annotations

import pytest

from mine.strategies.engines.supernim import DEFAULT_RULES, SuperNimRules
from mine.strategies.players.source import player_code
from mine.strategies.validation import supernim as validation


@pytest.fixture(scope="module")
def short_game(tmp_path_factory):
    """The plain player (the module's own code) stating a 30-move cut-off."""
    path = tmp_path_factory.mktemp("nim") / "short.py"
    path.write_text(player_code("mine.strategies.players.supernim", {"MAX_MOVES": 30, "DEPTH": 1}))
    return path


def test_a_file_is_measured_under_the_rules_it_states(short_game):
    card = validation.validate(short_game, None, baselines=["random"], games=4, equal_depth=0)
    assert card["rules"] == {"max_moves": 30}
    assert card["rules_text"] == "rules: merge cap 10, split of 2 scores 2, cut-off 30 moves"
    row = card["against"]["random"]
    assert row["games"] == 4 and row["invalid_moves"] == 0
    assert validation.failure(card) is None


def test_rule_settings_go_over_the_files(short_game):
    card = validation.validate(short_game, ["max_moves=12", "repeat_ends=on"],
                               baselines=["greedy"], games=2, equal_depth=0)  # fmt: skip
    assert card["rules"] == {"max_moves": 12, "repeat_ends": True}
    assert card["rules_text"].endswith("cut-off 12 moves, a repeated position ends the game")
    with pytest.raises(ValueError, match="max_moves takes 1 to 10,000"):
        validation.validate(short_game, ["max_moves=0"], baselines=["random"], games=2)


def test_the_default_rules_read_as_before():
    assert validation.rules_text(DEFAULT_RULES) == (
        "default rules: merge cap 10, split of 2 scores 2, cut-off 100 moves"
    )
    assert "at most 3 growth steps" in validation.rules_text(SuperNimRules(ulam_limit=3))


def test_a_card_fails_on_the_files_own_invalid_moves_only():
    row = {"invalid_moves": 0, "opponent_invalid_moves": 3}
    card = {"player": "p.py", "against": {"random": row, "greedy": {**row, "invalid_moves": 2}}}
    assert validation.failure(card) == "p.py: made invalid moves: 2 against greedy"
    assert validation.failure({"against": {"random": row}}) is None


def test_a_file_stating_rules_out_of_bounds_is_named(tmp_path):
    path = tmp_path / "endless.py"
    path.write_text(player_code("mine.strategies.players.supernim", {"MAX_MOVES": 100_000}))
    with pytest.raises(ValueError, match="endless.py: the rules it states: bad rule max_moves"):
        validation.validate(path, None, baselines=["random"], games=2)

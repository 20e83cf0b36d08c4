"""The generated TwentyOne player's own code (`strategies/players/twentyone.py`): it plays
the engine's game as it stands, and a generated file is that code with a table's
constants written in."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mine.parsers.cards import DECK, hand_value
from mine.strategies.bots.twentyone import make_bot
from mine.strategies.codegen.twentyone import module_source
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.strategies.engines.twentyone_chart import Strategy, player_constants
from mine.strategies.players import twentyone as player
from mine.strategies.players.source import player_code
from mine.strategies.solvers.twentyone import solve
from tests.strategies.test_twentyone_codegen import BIDS, METADATA
from tests.strategies.twentyone_games import play


@given(st.lists(st.integers(0, 51), min_size=1, max_size=9))
def test_its_hand_value_is_the_engines(codes):
    total, soft = hand_value([DECK[c] for c in codes])
    assert player.hand_value([(DECK[c].rank, DECK[c].suit) for c in codes]) == (
        total,
        int(soft > 0),
    )


def test_as_it_stands_it_plays_whole_games_without_an_invalid_action():
    rules = TwentyOneRules(rounds=300)
    for game in range(2):
        rng = np.random.default_rng(game)
        players = {"me": player.play}
        for i, bot in enumerate(("random", "textbook", "explorer")):
            players[f"b{i}"] = make_bot(bot, rules, rng)
        state = play(rules, players, rng)
        assert state.disqualified == [None] * 4
        assert state.round == rules.rounds


@pytest.fixture(scope="module")
def table():
    return Strategy(solve(TwentyOneRules()).chart, BIDS, (), METADATA)


def test_a_generated_file_is_the_module_with_the_tables_written_in(table):
    generated = module_source(table, {"flat-bet return": 0.07})
    constants = player_constants(table)
    mine = ast.parse(generated)
    theirs = ast.parse(player_code(player.__name__, {}))
    assigned = {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in mine.body
        if isinstance(node, ast.Assign) and node.targets[0].id in constants
    }
    assert assigned == constants
    code = [n for n in mine.body[1:] if not _sets(n, constants)]
    same = [n for n in theirs.body if not _sets(n, constants)]
    assert [ast.dump(n) for n in code] == [ast.dump(n) for n in same]
    assert "# fmt: skip" in Path(player.__file__).read_text()
    assert "# fmt: skip" not in generated and "noqa" not in generated


def _sets(node: ast.stmt, names) -> bool:
    return isinstance(node, ast.Assign) and node.targets[0].id in names


def test_embedding_refuses_a_constant_the_module_does_not_set():
    with pytest.raises(ValueError, match="assigns no NOT_A_TABLE"):
        player_code(player.__name__, {"NOT_A_TABLE": 1})

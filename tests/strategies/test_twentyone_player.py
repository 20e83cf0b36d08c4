"""The generated TwentyOne player's own code (`strategies/players/twentyone.py`): it plays
the engine's game as it stands, and a generated file is that code with a table's
constants written in."""

from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers.cards import DECK, hand_value
from mine.strategies.bots.twentyone import make_bot
from mine.strategies.codegen.twentyone import module_source
from mine.strategies.engines.twentyone import PlayerPoints, TwentyOneRules
from mine.strategies.engines.twentyone_chart import Strategy, player_constants
from mine.strategies.player_file import load_source
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


def module_of(**literals):
    """The player's code with `literals` in place of its own tables."""
    return load_source(player_code(player.__name__, literals), "twentyone")


TABLE = tuple(PlayerPoints(f"p{k}", 10_000) for k in range(10))  # ten players dealt in
ACE = (1, "S")


def first_decision(module, seats, dealt, tens, hand, **memory):
    """The action on the round's first decision, an ace up, with the memory's shoe."""
    state = module.Memory(dealt, 0, tens, 1, 10, memory.pop("phase", "F"), **memory)
    return module.play(ACE, TABLE[:seats], (), "p0", module.write_memory(state), hand)[0]


@settings(max_examples=200)
@given(
    st.integers(0, 155), st.integers(0, 48), st.sampled_from([(10, 5), (13, 12), (9, 8), (1, 10)])
)
def test_at_a_full_table_the_unseen_shoe_decides_insurance(dealt, tens, ranks):
    """With ten players dealt in the dealer plays unless every hand busts: insurance (two
    back for half a bid) pays when the hole card is ten-valued with a chance above a quarter,
    the chance its unseen cards give (dealt before the round, the hand, the ace up seen). The
    chart's insurance cells, valued for a player alone, insure nothing here, and decide
    alone or with one other player."""
    tens = min(tens, dealt)
    hand = tuple((rank, "H") for rank in ranks)
    unseen = 156 - dealt - 3
    left = 48 - tens - sum(rank >= 10 for rank in ranks)
    if unseen <= 0:  # the shoe ran out in this deal: the hole card is a fresh shoe's
        unseen, left = 153, 48 - sum(rank >= 10 for rank in ranks)
    pays = Fraction(left, unseen) > Fraction(1, 4)
    assert (type(first_decision(player, 10, dealt, tens, hand)).__name__ == "Insurance") == pays
    for seats in (1, 2):
        assert type(first_decision(player, seats, dealt, tens, hand)).__name__ != "Insurance"


def test_at_a_full_table_an_insured_hand_plays_as_a_main_hand():
    """Its insurance no longer hangs on its own bust: a chart that stands on every insured
    hand and hits every main hand hits an insured 16 at ten seats, stands on it alone."""
    rows = ("H" * 32,) * 4
    hand_table = (((rows,) * 2,) * 11, (((("S" * 32,) * 4),) * 2,) * 11, ((rows,) * 2,) * 11)
    module = module_of(HAND=hand_table)
    sixteen = ((10, "H"), (6, "C"))
    for seats, action in ((10, "Hit"), (1, "Stand"), (2, "Stand")):
        played = first_decision(module, seats, 0, 0, sixteen, phase="P", insured=1)
        assert type(played).__name__ == action, seats

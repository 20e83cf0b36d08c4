"""The generated TwentyOne player: one stdlib-only file that parses, embeds its tables,
keeps a strict memory, is deterministic and never plays an invalid action."""

from __future__ import annotations

import ast
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hs

from mine.parsers.cards import DECK
from mine.strategies.bots.twentyone import make_bot
from mine.strategies.codegen.twentyone import module_source, write_module
from mine.strategies.engines.twentyone import PlayerInfo, PlayerPoints, TwentyOneRules
from mine.strategies.engines.twentyone_chart import Strategy, chart_of_tables
from mine.strategies.solvers.twentyone import solve
from mine.strategies.validation.twentyone import load_player, seat
from tests.strategies.twentyone_games import play

BIDS = ((-10, -3, 10), (-2, 2, 50), (3, 10, 100))
METADATA = {
    "game": "twentyone",
    "logs": 12,
    "rows": 3456,
    "hands": 2000,
    "fingerprint": "ab" * 32,
    "method": "learned-model expectimax",
    "model_ev": 0.0769,
    "learned": {
        "decks": 3,
        "min_bid": 10,
        "max_bid": 100,
        "player_card_limit": 5,
        "dealer_rule": {"hits_hard_up_to": 16, "hits_soft_17": False, "card_limit": 5},
        "payoffs": {"two-card 21 vs 20": 2.5},
        "actions": {"insurance": True, "double_on_21": True, "double_after_split": True},
    },
}


@pytest.fixture(scope="module")
def chart():
    return solve(TwentyOneRules()).chart


@pytest.fixture(scope="module")
def player(chart, tmp_path_factory):
    path = tmp_path_factory.mktemp("gen") / "player.py"
    write_module(path, Strategy(chart, BIDS, (), METADATA), {"flat-bet return": 0.0771})
    return path, load_player(path)


def test_module_parses_and_imports_only_the_standard_library(player):
    path, _ = player
    tree = ast.parse(path.read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported and imported <= sys.stdlib_module_names
    doc = ast.get_docstring(tree)
    for fact in ("games (logs): 12", "rows (decisions): 3456", "ab" * 32, "expectimax", "0.07710"):
        assert fact in doc


def test_tables_are_the_chart(player, chart):
    _, module = player
    back = chart_of_tables(module)
    assert (back.hand[:, 1:, 4:22] == chart.hand[:, 1:, 4:22]).all()
    assert (back.split[:, 1:, 1:] == chart.split[:, 1:, 1:]).all()
    assert (back.insure == chart.insure).all()
    assert module.BIDS[0] == 10 and module.BIDS[10] == 50 and module.BIDS[-1] == 100


def test_generation_is_deterministic_and_log_text_cannot_inject_code(chart):
    table = Strategy(chart, BIDS, (), METADATA)
    assert module_source(table, None) == module_source(table, None)
    hostile = {**METADATA, "method": '"""\nimport os; os.system("x")\n"""', "logs": "1; import os"}
    source = module_source(Strategy(chart, BIDS, (), hostile), None)
    tree = ast.parse(source)
    assert "os" not in {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    }
    assert "(not shown)" in ast.get_docstring(tree)
    with pytest.raises(ValueError):
        decks = {**METADATA, "learned": {**METADATA["learned"], "decks": 0}}
        module_source(Strategy(chart, BIDS, (), decks), None)


memories = hs.builds(
    dict,
    dealt=hs.integers(0, 155),
    count=hs.integers(-156, 156),
    active=hs.integers(0, 2**10 - 1),
    bid=hs.integers(0, 10**6),
    phase=hs.sampled_from(["F", "P", "H2", "S3", "S5", "H10", "S19"]),
    insured=hs.integers(0, 1),
    split=hs.integers(0, 1),
)


@given(memories)
def test_memory_round_trips_strictly(player, fields):
    module = player[1]
    memory = module.Memory(**fields)
    text = module.write_memory(memory)
    assert len(text) <= 10_000
    assert module.read_memory(text) == memory


@given(hs.text(max_size=60))
def test_memory_reader_rejects_what_it_did_not_write(player, text):
    module = player[1]
    try:
        memory = module.read_memory(text)
    except ValueError:
        return
    assert module.write_memory(memory) == text  # only its own canonical form is accepted


@pytest.mark.parametrize(
    "text",
    [
        "",
        "t21",
        "t21:1:2:0:3:4:F:0",
        "t21:01:0:0:0:10:F:0:0",
        "t21:0:-0:0:0:10:F:0:0",
        "t21:0:0:0:0a:10:F:0:0",
        "t21:156:0:0:0:10:F:0:0",
        "t21:0:0:0:0:10:X:0:0",
        "t21:0:0:0:0:10:F:2:0",
        "t21:0:0:0:0:10:F:0:0 ",
        "t21:0:0:0:10:F:0:0",  # the memory before the shoe's tens
        "t21:10:0:11:0:10:F:0:0",  # more tens than cards dealt
        "t21:0:0:01:0:10:F:0:0",
        "x" * 10_001,
    ],
)
def test_malformed_memories_are_rejected(player, text):
    with pytest.raises(ValueError):
        player[1].read_memory(text)


def test_play_is_deterministic_and_bids_by_the_count(player):
    module = player[1]
    points = tuple(PlayerPoints(pid, 10_000) for pid in ("me", "other"))
    first = module.play(None, points, (), "me", None, ())
    assert first == module.play(None, points, (), "me", None, ())
    assert type(first[0]).__name__ == "Bid" and first[0].amount == 50  # true count 0
    # a round rich in low cards leaves a shoe rich in tens: the count rises, so does the bid
    low = tuple(c for c in DECK if c.rank in (2, 3, 4, 5, 6))[:20]
    infos = (
        PlayerInfo("me", low[:10]),
        PlayerInfo("other", low[10:18]),
        PlayerInfo("dealer", low[18:]),
    )
    bid, memory = module.play(None, points, infos, "me", first[1], ())
    assert module.read_memory(memory).count == 20
    assert bid.amount == 100
    # a garbled memory starts afresh instead of failing the game
    assert module.play(None, points, (), "me", "garbage", ())[0].amount == 50


def test_never_plays_an_invalid_action_in_the_engine(player, chart, tmp_path):
    # a variant without DoubleDown on a two-card 21: logs of it never show one, so the
    # fitter's metadata says so and the player follows
    learned = {
        **METADATA["learned"],
        "actions": {**METADATA["learned"]["actions"], "double_on_21": False},
    }
    strict = tmp_path / "strict.py"
    write_module(strict, Strategy(chart, BIDS, (), {**METADATA, "learned": learned}))
    cases = (
        (player[1], TwentyOneRules(rounds=300), 2),
        (player[1], TwentyOneRules(starting_points=120, rounds=300), 3),  # poor: all-in bids
        (load_player(strict), TwentyOneRules(rounds=200, double_on_combo=False), 1),
    )
    times: list = []
    for module, rules, games in cases:
        for game in range(games):
            rng = np.random.default_rng(game)
            players = {"gen": seat(module, times)}
            for i, bot in enumerate(("random", "textbook", "random", "explorer")):
                players[f"b{i}"] = make_bot(bot, rules, rng)
            state = play(rules, players, rng)
            assert state.disqualified[state.players.index("gen")] is None
    assert len(times) > 1000

"""The generated Gin Rummy player: parses, standard library only, deterministic, strict
memory, valid melds, and never an invalid play in engine games."""

from __future__ import annotations

import ast
import gc
import importlib.util
import sys
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers.cards import DECK, parse_course, parse_hand
from mine.strategies.bots.ginrummy import make_bot
from mine.strategies.codegen import ginrummy as codegen
from mine.strategies.engines.ginrummy import GinRummyRules, course_player
from mine.strategies.engines.melds import MeldSolver, check_melds
from tests.strategies.ginrummy_replay import refereed

TABLES = {
    "danger": tuple(
        tuple(
            tuple(round(0.1 + 0.2 * p - 0.03 * q + 0.01 * (r % 3), 4) for r in range(13))
            for q in range(3)
        )
        for p in range(4)
    ),  # fmt: skip
    "knock": tuple(
        tuple(
            tuple(tuple(int(d < 9 or t > 2 or mine == 9) for t in range(8)) for d in range(11))
            for _ in range(10)
        )
        for mine in range(10)
    ),  # fmt: skip
    "value": tuple(tuple(round(30.0 - d - 2 * t, 2) for t in range(8)) for d in range(51)),
    "called": tuple(tuple(round(0.5 - 0.1 * d, 2) for _ in range(8)) for d in range(51)),
    "hazard": tuple(round(0.02 + 0.02 * t, 2) for t in range(8)),
    "thrown": tuple(tuple(round(0.002 + 0.005 * r, 4) for r in range(13)) for _ in range(8)),
    "held": tuple(tuple(round(0.01 * (d + 1) * (t + 1), 4) for d in range(11)) for t in range(8)),
    "knock_prior": (3.0, 7.0),
}
METADATA = {
    "games": 12,
    "rounds": 90,
    "rows": 2500,
    "fingerprint": "ab" * 32,
    "method": "logistic regression (danger) + dynamic programming over logged plays",
    "danger": {"discards": 2000, "picked_up": 300, "held_out_auc": 0.71},
    "sources": ["simulated"],
    "settings": {"turn_bucket": 4, "score_bucket": 10},
}
RULES = GinRummyRules()
SOLVER = MeldSolver()


class Fitted(NamedTuple):
    """What codegen reads of a fitted table (`models.ginrummy.Fitted`)."""

    tables: dict[str, tuple]
    metadata: dict


FITTED = Fitted(TABLES, METADATA)


def with_tables(**tables) -> Fitted:
    return Fitted({**TABLES, **tables}, METADATA)


def load(source: str, tmp_path, name: str = "player"):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def source():
    return codegen.module_source(FITTED, None)


@pytest.fixture
def player(source, tmp_path):
    return load(source, tmp_path)


def test_source_parses_imports_only_the_standard_library_and_is_stable(source):
    tree = ast.parse(source)
    imported = {
        alias.name.split(".")[0] if isinstance(node, ast.Import) else node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert imported <= set(sys.stdlib_module_names)
    assert {"pick", "play", "melds"} <= {
        node.name for node in tree.body if isinstance(node, ast.FunctionDef)
    }
    assert codegen.module_source(FITTED, None) == source
    assert "ab" * 32 in ast.get_docstring(tree)


def test_log_text_never_reaches_the_code():
    hostile = {**METADATA, "method": 'x"""\nimport os\nos.system("echo hi")\n"""',
               "sources": ["ok", "bad\"'\n"]}  # fmt: skip
    source = codegen.module_source(Fitted(TABLES, hostile), None)
    tree = ast.parse(source)
    assert "os.system" not in source and "(not shown)" in ast.get_docstring(tree)
    with pytest.raises(ValueError):
        codegen.module_source(with_tables(danger=((("0.5; import os",),),)), None)
    with pytest.raises(ValueError):
        codegen.module_source(with_tables(knock=((((2,) * 8,) * 11,) * 10,) * 10), None)
    with pytest.raises(ValueError):  # a knock table without the scores
        codegen.module_source(with_tables(knock=TABLES["knock"][0][0]), None)
    with pytest.raises(ValueError):  # not square in the scores
        codegen.module_source(with_tables(knock=TABLES["knock"][:9]), None)
    with pytest.raises(ValueError):
        codegen.module_source(with_tables(hazard=(1.5,) * 8), None)
    with pytest.raises(ValueError):
        codegen.module_source(with_tables(value=TABLES["value"][:5]), None)
    with pytest.raises(ValueError):
        codegen.module_source(with_tables(thrown=((1.5,) * 13,) * 8), None)
    with pytest.raises(ValueError):  # a rank short
        codegen.module_source(with_tables(thrown=((0.1,) * 12,) * 8), None)


def test_memory_round_trips_and_malformed_memory_is_rejected(player):
    hand = DECK[:10]
    draw, memory = player.pick(DECK[20], (0, 0), None, None, hand)
    assert draw in ("stock", "discard") and len(memory) <= 10_000
    state = player.parse_memory(memory)
    assert player.parse_memory(state.dump()).dump() == memory
    for bad in ("", "g1", memory + ";", memory.replace("g1", "g2"), memory + "x", "ñ" * 20,
                memory.replace(";p0", ";p-1"), memory.replace(";n", ";n999")):  # fmt: skip
        with pytest.raises(ValueError):
            player.parse_memory(bad)
    with pytest.raises(ValueError):
        player.play(DECK[20], (0, 0), "not a memory", hand)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=10, max_size=10, unique=True))
def test_melds_are_a_least_deadwood_declaration(source_module, cards):
    declared = source_module.melds((0, 0), "", tuple(cards))
    assert check_melds(cards, declared) == SOLVER.deadwood_of(cards)


def test_deadwood_memo_is_bounded_and_invisible_to_the_collector(player):
    # Clearing often must not change an answer; the memo must never hold tracked objects,
    # which would make every full collection of the host process slower.
    player.ABSORBED_LIMIT = 64
    rng = np.random.default_rng(3)
    for _ in range(400):
        cards = [DECK[i] for i in rng.choice(52, size=10, replace=False)]
        assert player.deadwood(player.mask_of(cards)) == SOLVER.deadwood_of(cards)
        assert len(player.ABSORBED) <= 64
    assert player.ABSORBED and not gc.is_tracked(player.ABSORBED)


def test_the_opponents_coming_discards_raise_a_hand_waiting_on_them(player):
    kings = player.mask_of(parse_hand("SK;HK;S2;H4;D6;C8;SA;H9;D3;C5"))
    small = player.mask_of(parse_hand("SA;S2;H4;H6;D3;D8;C5;C7;S9;H9"))
    dead = kings | small | player.mask_of(parse_hand("DQ"))
    unseen = player.bits(((1 << 52) - 1) & ~dead)
    nothing, only_kings = (0.0,) * 13, (0.0,) * 12 + (0.1,)
    for hand in (kings, small):
        stock = player._after_draw(hand, unseen, 2)
        assert player._after_draw(hand, unseen, 2, nothing) == pytest.approx(stock)
        with_kings = player._after_draw(hand, unseen, 2, only_kings)
        if hand == kings:  # DK or CK thrown would make a set of kings
            assert with_kings > stock
        else:  # a king is of no use to a hand without court cards
            assert with_kings == pytest.approx(stock)


@pytest.fixture(scope="module")
def source_module(source, tmp_path_factory):
    return load(source, tmp_path_factory.mktemp("m"), "player_m")


def plays_legally(player, opponent: str, games: int, seed: int) -> None:
    """`games` whole games against `opponent`, seats alternating, without an invalid play."""
    for game in range(games):
        rng = np.random.default_rng([seed, game])
        bot = make_bot(opponent, RULES, rng)
        seats = [course_player(player), bot] if game % 2 == 0 else [bot, course_player(player)]
        state, _ = refereed(RULES, seats, rng)
        assert state.invalid is None, state.invalid
        assert max(state.totals) >= RULES.game_target


@pytest.mark.parametrize("opponent", ["simple", "random", "ginhunter"])
def test_never_an_invalid_play_in_engine_games(source_module, opponent):
    plays_legally(source_module, opponent, 6, 3)


def test_same_seed_same_game(source, tmp_path):
    games = []
    for name in ("a", "b"):
        module = load(source, tmp_path, name)
        rng = np.random.default_rng(11)
        state, _ = refereed(RULES, [course_player(module), make_bot("simple", RULES, rng)], rng)
        games.append((state.rounds, state.totals, state.invalid))
    assert games[0] == games[1]


@pytest.mark.parametrize(
    ("scores", "knocks"), [((0, 0), False), ((95, 40), True), ((40, 95), False), ((89, 0), False)]
)
def test_knocks_when_the_knock_table_says_at_these_scores(scores, knocks, tmp_path):
    # two runs and two loose cards: no gin in reach of the next draw to wait for
    held = ("S7", "S8", "S9", "S10", "H7", "H8", "H9", "H10", "C4", "CK")
    hand = tuple(parse_course(card) for card in held)
    # Knock with deadwood 10 only from 90 points on.
    knock = tuple(
        tuple(tuple(tuple(int(d < 10 or mine == 9) for _ in range(8)) for d in range(11))
              for _ in range(10))
        for mine in range(10)
    )  # fmt: skip
    # No hand feared low (HELD): no undercut stands in the way of what the table says.
    unfeared = tuple((0.0,) * 11 for _ in range(8))
    module = load(codegen.module_source(with_tables(knock=knock, held=unfeared), None), tmp_path)
    _, memory = module.pick(parse_course("DK"), scores, None, None, hand)
    state = module.parse_memory(memory)
    state.plays = 1  # the second turn: calls are allowed
    # Drawing D6 and throwing CK leaves deadwood 10.
    (act, card), _ = module.play(parse_course("D6"), scores, state.dump(), hand)
    assert act == ("knock" if knocks else "drop")
    assert card == parse_course("CK") or not knocks

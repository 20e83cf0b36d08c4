"""The Gin Rummy player's own code (`strategies/players/ginrummy.py`): a real module that
plays as it stands, with its neutral tables, in the engine; and the code every generated
file embeds, deciding exactly as the module does."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers.cards import DECK, parse_course, parse_hand
from mine.strategies.bots.ginrummy import BASELINES, make_bot
from mine.strategies.codegen import ginrummy as codegen
from mine.strategies.engines.ginrummy import DEFAULT_RULES, course_player
from mine.strategies.engines.melds import MeldSolver, check_melds
from mine.strategies.player_file import load_source
from mine.strategies.players import ginrummy as player
from tests.strategies.ginrummy_replay import refereed
from tests.strategies.test_ginrummy_codegen import METADATA, plays_legally

SOLVER = MeldSolver()
TABLES = ("DANGER", "KNOCK", "VALUE", "CALLED", "HAZARD", "THROWN", "HELD", "KNOCK_PRIOR")


class Fitted(NamedTuple):
    tables: dict[str, tuple]
    metadata: dict


def neutral() -> Fitted:
    """The module's own tables, as a fitted table would give them."""
    return Fitted({name.lower(): getattr(player, name) for name in TABLES}, METADATA)


class Twin:
    """Asks two players every question and fails on the first different answer."""

    def __init__(self, one, other):
        self.one, self.other, self.calls = one, other, 0

    def _both(self, name: str, *args):
        answer = getattr(self.one, name)(*args)
        assert getattr(self.other, name)(*args) == answer, (name, args)
        self.calls += 1
        return answer

    def pick(self, *args):
        return self._both("pick", *args)

    def play(self, *args):
        return self._both("play", *args)

    def melds(self, *args):
        return self._both("melds", *args)


@pytest.mark.parametrize("opponent", BASELINES)
def test_the_module_plays_whole_games_legally_as_it_stands(opponent):
    plays_legally(player, opponent, 4, 21)


def test_with_its_neutral_tables_it_knocks_as_soon_as_it_may():
    # two runs and two loose cards: no draw gins, which no feared call would make it wait for
    hand = parse_hand("S7;S8;S9;S10;H7;H8;H9;H10;C4;CK")
    _, memory = player.pick(parse_course("DK"), (0, 0), None, None, hand)
    first = player.parse_memory(memory)
    (act, _), memory = player.play(parse_course("D6"), (0, 0), memory, hand)
    assert act == "drop"  # no call on the first turn
    first.plays = 1
    (act, card), _ = player.play(parse_course("D6"), (0, 0), first.dump(), hand)
    assert (act, card) == ("knock", parse_course("CK"))  # C4 and D6 left: deadwood 10


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=0, max_size=11, unique=True))
def test_its_meld_search_is_the_engines(cards):
    assert player.deadwood(player.mask_of(cards)) == SOLVER.deadwood_of(cards)
    declared = player.melds((0, 0), "", tuple(cards))
    assert check_melds(cards, declared) == SOLVER.deadwood_of(cards)


def _code(tree: ast.Module) -> list[str]:
    """The module's statements but its docstring and its tables' assignments."""
    return [
        ast.dump(node)
        for node in tree.body[1:]
        if not (
            isinstance(node, ast.Assign)
            and any(
                isinstance(t, ast.Name) and t.id in {*TABLES, "TURN_STEP", "SCORE_STEP"}
                for t in node.targets
            )
        )  # fmt: skip
    ]


def test_a_generated_file_is_the_modules_code_with_the_tables_as_literals():
    source = codegen.module_source(neutral(), None)
    generated = ast.parse(source)
    module = ast.parse(Path(player.__file__).read_text(encoding="utf-8"))
    assert _code(generated) == _code(module)
    file = load_source(source, "ginrummy")
    for name in (
        *TABLES,
        "TURN_STEP",
        "SCORE_STEP",
        "DANGER_WEIGHT",
        "PRUNE",
        "LOOKAHEAD",
        "UNDERCUT_WEIGHT",
    ):
        assert getattr(file, name) == getattr(player, name), name


def test_a_file_from_the_modules_tables_decides_as_the_module_call_for_call():
    file = load_source(codegen.module_source(neutral(), None), "ginrummy")
    twin = Twin(player, file)
    for game in range(4):
        rng = np.random.default_rng([8, game])
        bot = make_bot(BASELINES[game % len(BASELINES)], DEFAULT_RULES, rng)
        seats = [course_player(twin), bot] if game % 2 else [bot, course_player(twin)]
        assert refereed(DEFAULT_RULES, seats, rng)[0].invalid is None
    assert twin.calls > 200


def _memory(hand: str, scores, *, called: bool, stock: int, plays: int = 4):
    """My memory after my last play of a round: holding `hand`, at `scores`."""
    mask = player.mask_of(parse_hand(hand))
    return player.Memory(tuple(scores), mask, plays, True, stock, None, 0, 0, 0, called, 2, 3)


KNOCKED_AT_5 = "SA;S2;S3;H4;H5;H6;D7;D8;D9;C5"  # three runs and C5: deadwood 5


@pytest.mark.parametrize(
    ("called", "stock", "scores", "counts"),
    [
        (True, 9, (3, 0), (2, 4)),  # my knock at 5 scored 3: it held 8 and did not knock
        (True, 9, (0, 12), (2, 4)),  # undercut by 12 = 10 + 5 - 3: it held 3
        (True, 9, (20, 0), (2, 3)),  # it held 25: no knock it could have made
        (False, 9, (0, 12), (3, 3)),  # it ended the round with a knock (not 25 + 5)
        (False, 9, (0, 30), (2, 4)),  # 25 + my 5: a gin, a knock declined on its way
        (False, 1, (0, 12), (2, 3)),  # it may have run the stock out
        (False, 0, (0, 12), (2, 4)),  # I ran the stock out: scored as my knock
    ],
)
def test_how_a_round_ended_tells_the_opponents_knocks_and_declines(called, stock, scores, counts):
    state = _memory(KNOCKED_AT_5, (0, 0), called=called, stock=stock)
    assert player._ended(state, scores) == counts
    # a gin before my second play: it had no plays in which to decline a knock
    assert player._ended(_memory(KNOCKED_AT_5, (0, 0), called=False, stock=9, plays=1),
                         (0, 30)) == (2, 3)  # fmt: skip
    # carried into the next round's memory, through the string
    hand = parse_hand("SK;HK;DK;CQ;HQ;DQ;SJ;HJ;DJ;C9")
    _, memory = player.pick(parse_course("C2"), scores, state.dump(), None, hand)
    read = player.parse_memory(memory)
    assert (read.knocked, read.declined) == counts and read.plays == 0


def _file_with(prior):
    """A file whose tables knock wherever allowed, fear low hands (HELD) and expect the
    field to call on one play in five (HAZARD)."""
    tables = neutral().tables | {
        "held": tuple(tuple(0.05 * d for d in range(11)) for _ in range(8)),
        "knock_prior": prior,
        "hazard": (0.2,) * 8,
    }
    return load_source(codegen.module_source(Fitted(tables, METADATA), None), "ginrummy")


def test_a_knock_the_opponent_would_undercut_is_refused_until_it_is_seen_to_knock():
    hand = parse_hand("SA;S2;S3;H4;H5;H6;D7;D8;D9;CK")  # C8 drawn: CK out, deadwood 8
    waiter, knocker = _file_with((0.5, 9.5)), _file_with((9.5, 0.5))
    for file, act in ((waiter, "drop"), (knocker, "knock")):
        state = _memory("SA;S2;S3;H4;H5;H6;D7;D8;D9;C8", (0, 0), called=False, stock=20)
        state.knocked = state.declined = 0
        (chosen, _), _ = file.play(parse_course("C8"), (0, 0), state.dump(), hand)
        assert chosen == act
        after = player.mask_of(hand) ^ 1 << player.index_of(parse_course("CK"))
        risk = file.UNDERCUT_WEIGHT * file.undercut(state, 8, 2)
        risk += file.GIN_WEIGHT * file.gin_chance(after, file._unseen(state, after))
        assert (risk > file.calls(state, 2)) == (act == "drop")
        assert file.calls(state, 2) == pytest.approx(0.2)  # as likely to call as the field
    # the waiter's prior gives way once this game shows an opponent that knocks
    state = _memory("SA;S2;S3;H4;H5;H6;D7;D8;D9;C8", (0, 0), called=False, stock=20)
    state.knocked, state.declined = 60, 0
    (chosen, _), _ = waiter.play(parse_course("C8"), (0, 0), state.dump(), hand)
    assert chosen == "knock"


def test_the_chance_of_gin_on_the_next_draw_counts_the_outs():
    # three runs and C8: a draw of S4, H3, H7, D6 or D10 gins with C8 thrown
    hand = player.mask_of(parse_hand("SA;S2;S3;H4;H5;H6;D7;D8;D9;C8"))
    unseen = player.bits(((1 << 52) - 1) & ~hand)
    assert player.gin_chance(hand, unseen) == 5 / 42
    assert player.gin_chance(hand, []) == 0.0
    # two runs of four and two loose cards: no single draw melds both
    two = player.mask_of(parse_hand("S7;S8;S9;S10;H7;H8;H9;H10;CA;D2"))
    assert player.gin_chance(two, player.bits(((1 << 52) - 1) & ~two)) == 0.0


def test_a_knock_waits_for_a_likely_gin_when_the_opponent_seldom_calls():
    # No hand is feared low (HELD 0: no undercut) and one play in fifty calls: a hand with
    # five outs to gin waits, one with none knocks.
    tables = neutral().tables | {"hazard": (0.02,) * 8}
    file = load_source(codegen.module_source(Fitted(tables, METADATA), None), "ginrummy")
    for held, drawn, act in (("SA;S2;S3;H4;H5;H6;D7;D8;D9;CK", "C8", "drop"),
                             ("S7;S8;S9;S10;H7;H8;H9;H10;CA;CK", "D2", "knock")):  # fmt: skip
        state = _memory(held, (0, 0), called=False, stock=20)
        (chosen, _), _ = file.play(parse_course(drawn), (0, 0), state.dump(), parse_hand(held))
        assert chosen == act
    assert file.calls(state, 2) < file.GIN_WEIGHT * 5 / 41  # 5 outs of 41 unseen cards
    file.GIN_WEIGHT = 0.0  # the gin in reach, not anything else, kept the first one waiting
    state = _memory("SA;S2;S3;H4;H5;H6;D7;D8;D9;CK", (0, 0), called=False, stock=20)
    (chosen, _), _ = file.play(parse_course("C8"), (0, 0), state.dump(),
                               parse_hand("SA;S2;S3;H4;H5;H6;D7;D8;D9;CK"))  # fmt: skip
    assert chosen == "knock"


def test_the_knock_tables_waits_give_way_to_an_opponent_that_knocks_more_than_the_field():
    # The table waits everywhere; no hand is feared low and no gin is in reach of the hand.
    tables = neutral().tables | {
        "knock": tuple(tuple(tuple((0,) * 8 for _ in range(11)) for _ in range(10))
                       for _ in range(10)),
        "hazard": (0.2,) * 8,
    }  # fmt: skip
    file = load_source(codegen.module_source(Fitted(tables, METADATA), None), "ginrummy")
    held = "S7;S8;S9;S10;H7;H8;H9;H10;C4;CK"
    for knocked, act in ((0, "drop"), (1, "knock")):  # the prior alone is the field's rate
        state = _memory(held, (0, 0), called=False, stock=20)
        state.knocked, state.declined = knocked, 0
        assert (file.knock_rate(state) > file.field_rate()) == (act == "knock")
        (chosen, _), _ = file.play(parse_course("D6"), (0, 0), state.dump(), parse_hand(held))
        assert chosen == act

"""Gin Rummy baseline bots and `mine simulate ginrummy`: legal play, determinism, and logs
that parse and hold the real logs' invariants."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mine.parsers.cards import DECK, parse_course
from mine.parsers.ginrummy import read_scores, read_turns
from mine.pipeline.cli import app
from mine.strategies.bots.ginrummy import BOTS, make_bot
from mine.strategies.engines.ginrummy import Deal, GinRummyRules, Play, new_game, round_points
from mine.strategies.engines.melds import MeldSolver
from tests.strategies.ginrummy_replay import refereed

RULES = GinRummyRules()
SOLVER = MeldSolver()


def cards(text: str):
    return tuple(parse_course(part) for part in text.split())


def at_pick(hand, upcard, stock=()):
    """A round where seat 0, holding `hand`, picks first with `upcard` on the pile and
    `stock` on top of the stock."""
    upcard = parse_course(upcard)
    rest = [card for card in DECK if card not in {*hand, upcard, *stock}]
    deal = Deal(0, (hand, tuple(rest[:10])), upcard, (*stock, *rest[10:]))
    return new_game(RULES, np.random.default_rng(0), deals=[deal])


@pytest.mark.parametrize(
    "seats",
    [
        ("simple", "random"),
        ("ginhunter", "explorer"),
        ("explorer:random:0.5", "simple"),
        ("student", "never-knock"),
    ],
)
def test_bots_play_whole_games_legally(seats):
    for seed in range(2):
        rng = np.random.default_rng(seed)
        state, seen = refereed(RULES, [make_bot(spec, RULES, rng) for spec in seats], rng)
        assert seen.faults == [None, None] and state.invalid is None
        assert max(state.totals) >= RULES.game_target


def two_turns(bot):
    """Seat 0 holds three melds and a 4 and draws HA, then C3: the bot's plays."""
    state = at_pick(cards("SA S2 S3 H5 H6 H7 C9 D9 S9 D4"), "CK", cards("HA DK C3"))
    state.apply_action("stock")
    first = bot(state)
    state.apply_action(first)
    state.apply_action("stock")  # seat 1 draws DK and throws its last card
    state.apply_action(Play("drop", state.hands[1][-1]))
    state.apply_action("stock")
    return first, bot(state)


def test_simple_takes_the_discard_only_for_a_meld_and_knocks_when_allowed():
    bot = make_bot("simple", RULES, np.random.default_rng(0))
    hand = cards("S4 S5 H9 D9 CK DQ HJ C2 D6 H10")
    assert bot(at_pick(hand, "S6")) == "discard"
    assert bot(at_pick(hand, "C9")) == "discard"
    assert bot(at_pick(hand, "S8")) == "stock"
    first, second = two_turns(bot)
    assert first == Play("drop", parse_course("D4"))  # first turn: no call
    assert second.act == "knock" and second.card != parse_course("C3")
    hunter = make_bot("ginhunter", RULES, np.random.default_rng(0))
    assert two_turns(hunter)[1].act == "drop"


def test_simple_breaks_discard_ties_with_its_generator():
    hand = cards("CK DK HK SQ CQ DJ HJ S10 C10 D10")  # every discard leaves the same deadwood

    def discard(seed: int):
        state = at_pick(hand, "S2")
        state.apply_action("discard")
        return make_bot("simple", RULES, np.random.default_rng(seed))(state)

    assert len({discard(seed).card for seed in range(8)}) > 1
    assert discard(3) == discard(3)


def test_student_knocks_at_nine_at_most_and_never_knock_only_gins():
    rng = np.random.default_rng(4)
    seats = [make_bot("student", RULES, rng), make_bot("never-knock", RULES, rng)]
    state, seen = refereed(RULES, seats, rng)
    assert seen.faults == [None, None]
    knocks = [r for r in state.rounds if r.ending == "Knock"]
    assert knocks and all(r.caller == 0 and r.deadwood[0] <= 9 for r in knocks)


def test_student_takes_a_discard_that_starts_a_meld_as_simple_does_not():
    """CK, DQ, C2 and D6 match nothing: DK pairs with CK and neighbours DQ, so the student
    takes it (two of them matched, a loose card thrown); S8 matches nothing, nor does it
    make a meld, so neither takes it; C9 makes a meld and both take it."""
    hand = cards("S4 S5 H9 D9 CK DQ HJ C2 D6 H10")
    student, simple = (
        make_bot(name, RULES, np.random.default_rng(0)) for name in ("student", "simple")
    )
    assert student(at_pick(hand, "DK")) == "discard" and simple(at_pick(hand, "DK")) == "stock"
    assert student(at_pick(hand, "S8")) == "stock" == simple(at_pick(hand, "S8"))
    assert student(at_pick(hand, "C9")) == "discard" == simple(at_pick(hand, "C9"))


def test_student_throws_the_card_next_to_one_the_opponent_passed_on():
    """Seat 1 opens by throwing C7; seat 0 draws DJ, completing a run, and holds H8 and C8
    unmatched: the same count and deadwood either way, so it throws C8, beside C7."""
    mine = cards("SA S2 S3 H4 H5 H6 D9 D10 H8 C8")
    theirs = cards("C7 SQ HQ DQ CQ SJ HJ CJ S9 H9")
    rest = [card for card in DECK if card not in {*mine, *theirs, *cards("SK DJ C2")}]
    deal = Deal(1, (mine, theirs), parse_course("SK"), (*cards("C2 DJ"), *rest))
    state = new_game(RULES, np.random.default_rng(0), deals=[deal])
    state.apply_action("stock")
    state.apply_action(Play("drop", parse_course("C7")))
    for seed in range(4):  # whatever its generator draws
        bot = make_bot("student", RULES, np.random.default_rng(seed))
        twin = state.clone()
        assert bot(twin) == "stock"  # C7 melds with nothing it holds
        twin.apply_action("stock")
        assert bot(twin) == Play("drop", parse_course("C8"))


def test_registry_and_bad_specs():
    assert {"simple", "random", "ginhunter", "explorer", "student", "never-knock"} <= set(BOTS)
    for bad in ("nobody", "explorer:2", "explorer:nobody:0.1", "simple:3"):
        with pytest.raises(ValueError):
            make_bot(bad, RULES, np.random.default_rng(0))


def _simulate(out: Path, *extra: str) -> None:
    result = CliRunner().invoke(
        app,
        [
            "simulate",
            "ginrummy",
            "--games",
            "4",
            "--players",
            "simple,explorer",
            "--seed",
            "11",
            "--out",
            str(out),
            *extra,
        ],
    )
    assert result.exit_code == 0, result.output


def test_simulate_is_deterministic_and_writes_parsable_logs(tmp_path):
    _simulate(tmp_path / "a")
    _simulate(tmp_path / "b")
    files = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert len(files) == 8 and files == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in files:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    _simulate(tmp_path / "c", "--seed", "12")
    other = sorted(p.name for p in (tmp_path / "c").iterdir())
    assert other == [name.replace("-s11-", "-s12-") for name in files]
    assert any(
        (tmp_path / "a" / n).read_bytes() != (tmp_path / "c" / m).read_bytes()
        for n, m in zip(files, other, strict=True)
    )
    for turn_path in sorted((tmp_path / "a").glob("*[0-9].csv")):
        assert b"\r\n" in turn_path.read_bytes()
        turns = list(read_turns(turn_path))
        scores = list(read_scores(turn_path.with_name(f"{turn_path.stem}-score.csv")))
        assert [s.round for s in scores] == sorted({t.round for t in turns})
        totals = [0, 0]
        for score in scores:
            rows = [t for t in turns if t.round == score.round]
            for row in rows:
                assert row.hand[0] == row.picked and row.discarded not in row.hand
            for before, after in zip(rows, rows[1:], strict=False):
                assert after.discard_top == before.discarded and after.mine != before.mine
            assert score.last_mine == rows[-1].mine
            caller, other = (SOLVER.deadwood_of(r.hand) for r in (rows[-1], rows[-2]))
            points = round_points(RULES, score.ending.lower(), caller, other)
            assert (score.points, score.opponent_points) == (
                points if score.last_mine else points[::-1]
            )
            totals = [totals[0] + score.points, totals[1] + score.opponent_points]
        assert max(totals) >= 100 and totals[0] != totals[1]


def test_simulate_rejects_bad_options(tmp_path):
    runner = CliRunner()
    for extra in (
        ["--players", "simple"],
        ["--players", "simple,nobody"],
        ["--rules", "knock_limit=ten"],
        ["--rules", "hand_size=9"],
    ):
        result = runner.invoke(
            app, ["simulate", "ginrummy", "--games", "1", "--out", str(tmp_path), *extra]
        )
        assert result.exit_code == 1 and "error" in result.output
    _simulate(tmp_path / "short", "--rules", "game_target=20")
    for score_path in (tmp_path / "short").glob("*-score.csv"):
        assert sum(s.points + s.opponent_points for s in read_scores(score_path)) < 100 + 200


def test_simulate_refuses_a_point_of_view_that_is_not_a_player(tmp_path):
    result = CliRunner().invoke(
        app, ["simulate", "ginrummy", "--games", "1", "--out", str(tmp_path), "--me", "2"]
    )
    assert result.exit_code == 1 and "error" in result.output

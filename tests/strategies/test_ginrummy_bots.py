"""Gin Rummy baseline bots and `mine simulate ginrummy`: legal play, determinism, and logs
that parse and hold the real logs' invariants."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mine.parsers.cards import parse_course
from mine.parsers.ginrummy import read_scores, read_turns
from mine.pipeline.cli import app
from mine.strategies.bots.ginrummy import BOTS, SimpleBot, make_bot
from mine.strategies.engines.ginrummy import GinRummyRules, play_game, round_points
from mine.strategies.engines.melds import MeldSolver

RULES = GinRummyRules()
SOLVER = MeldSolver()


def cards(text: str):
    return tuple(parse_course(part) for part in text.split())


@pytest.mark.parametrize(
    "seats", [("simple", "random"), ("ginhunter", "explorer"), ("explorer:random:0.5", "simple")]
)
def test_bots_play_whole_games_legally(seats):
    for seed in range(2):
        rng = np.random.default_rng(seed)
        record = play_game(
            RULES, [make_bot(spec, RULES, rng, SOLVER) for spec in seats], rng, SOLVER
        )
        assert record.invalid is None
        assert max(record.totals) >= RULES.game_target


def test_simple_takes_the_discard_only_for_a_meld_and_knocks_when_allowed():
    bot = SimpleBot(np.random.default_rng(0), RULES, SOLVER)
    hand = cards("S4 S5 H9 D9 CK DQ HJ C2 D6 H10")
    assert bot.pick(parse_course("S6"), (0, 0), None, None, hand)[0] == "discard"
    assert bot.pick(parse_course("C9"), (0, 0), None, None, hand)[0] == "discard"
    assert bot.pick(parse_course("S8"), (0, 0), None, None, hand)[0] == "stock"
    melded = cards("SA S2 S3 H5 H6 H7 C9 D9 S9 D4")
    _, memory = bot.pick(parse_course("CK"), (0, 0), None, None, melded)
    (act, card), memory = bot.play(parse_course("HA"), (0, 0), memory, melded)
    assert act == "drop" and card == parse_course("D4")  # first turn: no call
    after = (parse_course("HA"), *(c for c in melded if c != card))
    _, memory = bot.pick(parse_course("CK"), (0, 0), memory, "stock", after)
    (act, card), _ = bot.play(parse_course("C3"), (0, 0), memory, after)
    assert act == "knock" and card not in cards("C3")
    hunter = make_bot("ginhunter", RULES, np.random.default_rng(0), SOLVER)
    _, memory = hunter.pick(parse_course("CK"), (0, 0), None, None, melded)
    _, memory = hunter.play(parse_course("HA"), (0, 0), memory, melded)
    _, memory = hunter.pick(parse_course("CK"), (0, 0), memory, "stock", after)
    assert hunter.play(parse_course("C3"), (0, 0), memory, after)[0][0] == "drop"


def test_simple_breaks_discard_ties_with_its_generator():
    hand = cards("CK DK HK SQ CQ DJ HJ S10 C10 D10")  # every discard leaves the same deadwood
    picks = set()
    for seed in range(8):
        bot = SimpleBot(np.random.default_rng(seed), RULES, SOLVER)
        _, memory = bot.pick(parse_course("S2"), (0, 0), None, None, hand)
        picks.add(bot.play(parse_course("S2"), (0, 0), memory, hand)[0][1])
    assert len(picks) > 1
    again = [SimpleBot(np.random.default_rng(3), RULES, SOLVER) for _ in range(2)]
    assert len({bot.play(parse_course("S2"), (0, 0), f"{0:x}:0", hand) for bot in again}) == 1


def test_registry_and_bad_specs():
    assert {"simple", "random", "ginhunter", "explorer"} <= set(BOTS)
    for bad in ("nobody", "explorer:2", "explorer:nobody:0.1", "simple:3"):
        with pytest.raises(ValueError):
            make_bot(bad, RULES, np.random.default_rng(0), SOLVER)


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
    assert other == [name.replace("-11-", "-12-") for name in files]
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
        ["--me", "2"],
        ["--rules", "knock_limit=ten"],
    ):
        result = runner.invoke(
            app, ["simulate", "ginrummy", "--games", "1", "--out", str(tmp_path), *extra]
        )
        assert result.exit_code == 1 and "error" in result.output
    _simulate(tmp_path / "short", "--rules", "game_target=20")
    for score_path in (tmp_path / "short").glob("*-score.csv"):
        assert sum(s.points + s.opponent_points for s in read_scores(score_path)) < 100 + 200

"""Gin Rummy tables fitted from small simulated logs: shapes, sane values, file round trip,
and hand-edited table files refused in one line by the reader and the commands."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable

import duckdb
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.models import ginrummy as model
from mine.models import ginrummy as value_model
from mine.models import tables
from mine.pipeline.stats import ginrummy as ginrummy_stats
from mine.strategies.bots.ginrummy import make_bot
from mine.strategies.engines.ginrummy import GinRummyRules
from mine.strategies.engines.melds import MeldSolver
from mine.strategies.engines.simulation import simulate
from mine.warehouse.ingest import ingest
from tests.mine_cli import mine, one_line_error


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    root = tmp_path_factory.mktemp("gr")
    rules, solver = GinRummyRules(), MeldSolver()
    for index, seats in enumerate((["simple", "explorer:0.3"], ["ginhunter", "simple"])):
        simulate("ginrummy", rules, seats, 25, 5 + index, root / "logs", make_bot=make_bot)
    con = duckdb.connect(str(root / "w.duckdb"))
    assert ingest(con, [root / "logs"]).ok
    turns, rounds = ginrummy_stats.load(con)
    con.close()
    features = ginrummy_stats.turn_features(turns, rounds, solver)
    return model.fit(model.Logged(features, "f" * 64, 50)), root


def test_danger_is_higher_next_to_the_opponents_pickups(fitted):
    danger = model.nested(fitted[0].frame)["danger"]
    for rank in range(13):
        none = danger[0][0][rank]
        assert danger[2][0][rank] > none  # adjacent to a card it picked up
        assert danger[3][0][rank] > none  # same rank as a card it picked up
        assert danger[0][2][rank] < none  # same rank as a card it passed
        assert all(0 < danger[p][q][rank] < 1 for p in range(4) for q in range(3))
    assert 0.5 < fitted[0].metadata["danger"]["held_out_auc"] <= 1


def test_thrown_rates_are_counted_rates_and_follow_the_logged_discards(fitted):
    frame = fitted[0].part("thrown")
    thrown = np.array(model.nested(fitted[0].frame)["thrown"])
    assert thrown.shape == (model.TURN_BUCKETS, 13)
    assert ((thrown >= 0) & (thrown <= 1)).all()
    counted = frame.filter(pl.col("n") > 0)
    np.testing.assert_allclose(counted["value"], counted["extra"] / counted["n"], atol=1e-5)
    # Logged players throw their highest deadwood: early on, an unseen king comes over far
    # more often than an unseen ace.
    assert thrown[0][12] > 5 * thrown[0][0]


def test_knock_table_is_complete_and_sane(fitted):
    knock = np.array(model.nested(fitted[0].frame)["knock"])
    buckets = value_model.SCORE_BUCKETS
    assert knock.shape == (buckets, buckets, 11, model.TURN_BUCKETS)
    assert set(np.unique(knock)) <= {0, 1}
    # Gin is always taken, and knocking at 10 early at level scores beats waiting (the
    # logged players mostly knock at once, so a wait meets their call).
    assert knock[:, :, 0].all() and knock[0, 0, 10, 0] == 1


def test_tables_file_round_trip(fitted, tmp_path):
    fit, _ = fitted
    path = model.write_table(tmp_path / "t.parquet", fit)
    read = model.read_table(path)
    frame, metadata = read.frame, read.metadata
    assert frame.equals(fit.frame)
    assert metadata["rows"] == fit.metadata["rows"] and metadata["games"] == 50
    with pytest.raises(tables.TableError):
        tables.read(path, "hog")


Edit = Callable[[pl.DataFrame, dict], tuple[pl.DataFrame, dict]]


def _cell(table: str, column: str, value) -> Edit:
    """An edit of the frame: `column` of `table`'s first row set to `value`."""

    def edit(frame: pl.DataFrame, metadata: dict) -> tuple[pl.DataFrame, dict]:
        first = frame.with_row_index().filter(pl.col("table") == table)["index"][0]
        changed = pl.when(pl.int_range(pl.len()) == first).then(pl.lit(value)).otherwise(column)
        return frame.with_columns(changed.alias(column)), metadata

    return edit


def _meta(**changes) -> Edit:
    """An edit of the metadata: each key (`danger.discards` inside `danger`) set."""

    def edit(frame: pl.DataFrame, metadata: dict) -> tuple[pl.DataFrame, dict]:
        for key, value in changes.items():
            *outer, name = key.split("__")
            (metadata[outer[0]] if outer else metadata)[name] = value
        return frame, metadata

    return edit


def _rows(keep: pl.Expr) -> Edit:
    return lambda frame, metadata: (frame.filter(keep), metadata)


# Hand-edited tables (issue 27): what is changed, and what the one line says.
TAMPERED = {
    "empty": (_rows(pl.lit(False)), "an empty table"),
    "rows as text": (_meta(rows="many"), "metadata rows is 'many'"),
    "settings a list": (_meta(settings=[4, 10]), "its metadata's settings are not a JSON object"),
    "danger text": (_meta(danger__discards="x"), "metadata danger.discards is 'x'"),
    "auc not a number": (_meta(danger__held_out_auc=float("nan")), "held_out_auc is nan"),
    "sources numbers": (_meta(sources=[1]), "sources is not a list of names"),
    "other buckets": (_meta(settings__turn_bucket=0), "tables in buckets of 0 turns"),
    "NaN danger": (_cell("danger", "value", float("nan")), "'value' has 1 missing values"),
    "inf value": (_cell("value", "value", float("inf")), "'value' holds an infinite value"),
    "huge value": (_cell("value", "value", 1e300), "value table holds a value outside"),
    "NaN margin": (_cell("knock", "extra", float("nan")), "'extra' holds a value that is not"),
    "half a knock": (_cell("knock", "value", 0.5), "knock table holds a value that is not 0"),
    "huge turn": (_cell("knock", "b", 10**9), "the knock table's b is outside 0..7"),
    "negative count": (_cell("danger", "n", -5), "danger table holds a negative count"),
    "no value": (lambda f, m: (f.drop("value"), m), "lacks the column 'value'"),
    "no extra": (lambda f, m: (f.drop("extra"), m), "lacks the column 'extra'"),
    "unknown table": (_cell("hazard", "table", "bogus"), "no table is called 'bogus'"),
    "a cell twice": (
        lambda f, m: (pl.concat([f, f.filter(pl.col("table") == "thrown").head(1)]), m),
        "the thrown table holds a cell twice",
    ),
    "a cell short": (_rows(~((pl.col("table") == "knock") & (pl.col("a") == 3) &
                             (pl.col("b") == 2) & (pl.col("c") == 0))),
                     "the knock table has 8799 of its 8800 cells"),
}  # fmt: skip
# One of each kind through a real `mine` process, the commands that read a table in turn.
THROUGH_MINE = ("empty", "danger text", "NaN danger", "huge value", "no extra", "huge turn",
                "a cell short")  # fmt: skip
COMMANDS = (
    "generate ginrummy --table t.parquet --out p.py --games 0",
    "report ginrummy --table t.parquet --out r.html",
    "stats ginrummy --by player --table t.parquet --db w.duckdb",
)


@pytest.mark.parametrize("case", TAMPERED)
def test_a_hand_edited_table_is_refused_in_one_line(fitted, tmp_path, case):
    fit, root = fitted
    edit, says = TAMPERED[case]
    frame, metadata = edit(fit.frame, json.loads(json.dumps(fit.metadata)))
    frame.write_parquet(tmp_path / "t.parquet")
    (tmp_path / "t.json").write_text(json.dumps(metadata))
    with pytest.raises(tables.TableError, match="t.parquet: ") as refused:
        model.read_table(tmp_path / "t.parquet")
    assert says in str(refused.value)
    if case in THROUGH_MINE:
        (tmp_path / "w.duckdb").symlink_to(root / "w.duckdb")
        command = COMMANDS[THROUGH_MINE.index(case) % len(COMMANDS)]
        before = sorted(tmp_path.iterdir())
        assert says in one_line_error(mine(*shlex.split(command), cwd=tmp_path), code=1)
        assert sorted(tmp_path.iterdir()) == before  # nothing written


def test_fit_refuses_empty_logs(fitted):
    empty = pl.DataFrame(schema=ginrummy_stats.FEATURES)
    with pytest.raises(model.FitError):
        model.fit(model.Logged(empty, "f" * 64, 0))


def test_value_of_waiting_tables_are_sane(fitted):
    nested = model.nested(fitted[0].frame)
    value, called = np.array(nested["value"]), np.array(nested["called"])
    hazard = np.array(nested["hazard"])
    assert value.shape == called.shape == (value_model.DEADWOOD_CAP + 1, model.TURN_BUCKETS)
    # Less deadwood after a play is worth more, and costs less when the opponent calls.
    assert (value[0] > value[10]).all() and (value[10] > value[40]).all()
    assert (called[0] >= called[30]).all()
    # The opponent's hands improve as the round goes on: calls come more often late.
    assert ((hazard >= 0) & (hazard <= 1)).all() and hazard[-1] > hazard[0]


def test_knocking_against_waiting_follows_the_odds():
    size, buckets = value_model.DEADWOOD_CAP + 1, value_model.TURN_BUCKETS
    deadwood = np.arange(size, dtype=float)
    knock = np.tile(20.0 - deadwood, (buckets, 1))  # knocking scores 20 - deadwood
    stay = np.tile(np.eye(size), (buckets, 1, 1))  # deadwood never changes
    to_gin = np.zeros((buckets, size, size))
    to_gin[:, :, 0] = 1  # every hand is gin on the next play
    # The opponent surely calls next, at a cost: knock whenever allowed.
    sure = value_model.solve(knock, np.full((buckets, size), -30.0), np.ones(buckets), stay)
    assert sure["knock"].all()
    # It never calls and gin (worth 20 here) comes next: waiting beats a knock at 5.
    gin = value_model.solve(knock, np.zeros((buckets, size)), np.zeros(buckets), to_gin)
    assert not gin["knock"][5:].any() and gin["knock"][0].all()
    assert gin["value"][5, 0] == pytest.approx(20.0)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-60, 60), min_size=1, max_size=40).filter(any))
def test_game_win_chance_is_fair_and_rises_with_the_score(points):
    chance = value_model.win_chance(np.array(points))
    below = chance[: value_model.GAME_TARGET, : value_model.GAME_TARGET]
    # Rounds drawn both ways: the game is fair from level scores and zero-sum.
    np.testing.assert_allclose(np.diag(below), 0.5, atol=1e-9)
    np.testing.assert_allclose(below + below.T, 1.0, atol=1e-9)
    assert (np.diff(below, axis=0) >= -1e-12).all() and (np.diff(below, axis=1) <= 1e-12).all()


def test_near_the_target_a_sure_knock_beats_waiting_for_gin():
    size, buckets, most = value_model.DEADWOOD_CAP + 1, value_model.TURN_BUCKETS, value_model.MOST
    theirs = np.zeros((buckets, most + 1))
    theirs[:, 30] = 1  # the opponent always holds 30
    to_gin = np.zeros((buckets, size, size))
    to_gin[:, :, 0] = 1  # every hand is gin on the next play; the opponent never calls
    odds = value_model.Odds(theirs, np.zeros((buckets, 2, most + 1)), np.zeros(buckets),
                            to_gin, np.ones(buckets, dtype=int))  # fmt: skip
    chance = value_model.win_chance(np.array([-20, 20]))
    knock, margin = value_model.knock_policy(odds, chance)
    # Gin next (25 + 30) beats a knock at 5 (25 points) in round points and, far from the
    # target, in game-win chance; from 90 points on either ends the game: knock at once.
    assert not knock[:7, :, 5].any() and (margin[:7, :, 5] < 0).all()
    assert knock[9, :, 5].all() and knock[9, :, 10].all()


def test_a_fit_whose_held_out_discards_show_one_outcome_reads_back(fitted, tmp_path):
    """A held-out sample with no pickup (or only pickups) has no AUC: the fit says so with
    null, and its table reads back; a NaN there is still refused (above)."""
    fit, _ = fitted
    metadata = json.loads(json.dumps(fit.metadata))
    metadata["danger"]["held_out_auc"] = None
    fit.frame.write_parquet(tmp_path / "t.parquet")
    (tmp_path / "t.json").write_text(json.dumps(metadata))
    assert model.read_table(tmp_path / "t.parquet").metadata["danger"]["held_out_auc"] is None


def test_priors_are_the_chosen_sides_knock_rate_and_hands_that_fall(fitted):
    """`--against`: the knock rate where a knock was allowed is a plain count over that
    side's plays; `held` rises with the deadwood and, turn by turn, as hands fall."""
    _, root = fitted
    con = duckdb.connect(str(root / "w.duckdb"), read_only=True)
    features = ginrummy_stats.turn_features(*ginrummy_stats.load(con))
    con.close()
    for side in ("me", "opponent"):
        prior = model.fit_priors(features, side).filter(pl.col("table") == "prior")
        plays = features.filter(
            (pl.col("player") == side) & pl.col("may_call") & (pl.col("call") != "Drop")
            & pl.col("deadwood_after").is_between(1, model.KNOCK_LIMIT)
        )  # fmt: skip
        knocked = plays.filter(pl.col("call").is_in(["Knock", "Gin"])).height
        assert (prior["n"][0], prior["extra"][0]) == (plays.height, knocked)
        assert prior["value"][0] == pytest.approx(knocked / plays.height, abs=1e-5)
    held = np.array(model.nested(model.fit_priors(features).pipe(_with_rest, fitted[0]))["held"])
    assert (np.diff(held, axis=1) >= 0).all() and held[-1, -1] > held[0, -1]
    with pytest.raises(model.FitError, match="--against"):
        model.fit_priors(features, "nobody")


def _with_rest(priors: pl.DataFrame, fitted) -> pl.DataFrame:
    """A whole table's frame with these priors in place of its own."""
    others = fitted.frame.filter(~pl.col("table").is_in(["prior", "held"]))
    return pl.concat([others, priors])

"""Fitting Hog tables from logs: learned rules, opponents, and exact win rates."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from mine.models import hog as model
from mine.models import tables
from mine.parsers import hog as log
from mine.strategies.bots.hog import make_bot
from mine.strategies.engines.hog import HogRules, as_table, simulate_tables
from mine.strategies.solvers.hog import TurnModel, best_response, guaranteed, optimal, win_rates


def _logs(rules: HogRules, mine: str, theirs: str, games: int, seed: int = 0):
    tables = (as_table(make_bot(mine, rules), rules), as_table(make_bot(theirs, rules), rules))
    return simulate_tables(tables, ("me", "them"), range(games), np.random.default_rng(seed), rules)


def _through_files(tmp_path, turns: pl.DataFrame, scores: pl.DataFrame):
    """The frames as the log files say them: written, then read with the parser."""
    (tmp_path / "m.csv").write_bytes(log.turn_frame_bytes(turns))
    (tmp_path / "m-score.csv").write_bytes(log.score_frame_bytes(scores))
    return (
        log.turn_frame(log.read_turns(tmp_path / "m.csv")),
        log.score_frame(log.read_scores(tmp_path / "m-score.csv")),
    )


def test_fit_from_parsed_logs_recovers_the_best_response(tmp_path):
    rules = HogRules()
    turns, scores = _through_files(tmp_path, *_logs(rules, "always_roll:6", "always_roll:6", 3000))
    fitted = model.fit(model.Logged(turns, scores), opponent="them")
    truth = TurnModel.from_rules(rules)
    always_6 = as_table(make_bot("always_roll:6"))
    best = best_response(truth, always_6).average
    assert fitted.table.shape == (100, 100)
    assert win_rates(truth, fitted.table, always_6).average > best - 0.001
    learned = fitted.metadata["learned"]
    assert (learned["goal"], learned["dice_sides"], learned["sow_sad"]) == (100, 6, True)
    assert learned["square_swine"] is True
    assert fitted.metadata["games"] == 3000 and fitted.metadata["rows"] == turns.height


def test_minimax_fit_is_guaranteed_what_the_optimum_is():
    rules = HogRules()
    turns, scores = _logs(rules, "square_strategy", "random:3", 3000)
    fitted = model.fit(model.Logged(turns, scores), method="minimax")
    truth = TurnModel.from_rules(rules)
    sure = guaranteed(truth, fitted.table)
    assert sure.average > 0.5 - 0.001
    assert sure.first > optimal(truth).first - 0.001


def test_a_variant_gives_its_own_table():
    rules = HogRules(goal=120, dice_sides=8)
    turns, scores = _logs(rules, "always_roll:6", "square_strategy", 3000)
    fitted = model.fit(model.Logged(turns, scores), opponent="them")
    assert fitted.table.shape == (120, 120)
    assert fitted.rules.goal == 120 and fitted.rules.dice_sides == 8
    truth = TurnModel.from_rules(rules)
    opponent = as_table(make_bot("square_strategy", rules), rules)
    best = best_response(truth, opponent).average
    assert win_rates(truth, fitted.table, opponent).average > best - 0.001
    minimax = model.fit(model.Logged(turns, scores), method="minimax")
    assert guaranteed(truth, minimax.table).average > 0.5 - 0.001


def test_rules_switched_off_are_learned_off():
    rules = HogRules(sow_sad=False, square_swine=False)
    turns, _ = _logs(rules, "always_roll:6", "tail_strategy", 500)
    learned = model.learn_rules(turns)
    assert not learned.sow_sad and not learned.swine_on
    assert learned.sow_sad_evidence[0] == 0 and learned.sow_sad_evidence[1] > 0
    assert (learned.swine == np.arange(100)).all()
    assert learned.tail_observed.any()
    seen = learned.tail_observed
    assert (
        learned.tail[seen]
        == np.array([2 * abs(o // 10 - o % 10) + 1 for o in np.flatnonzero(seen)])
    ).all()


def test_a_loaded_die_is_not_taken_as_fair():
    turns, _ = _logs(HogRules(), "always_roll:6", "always_roll:6", 400)
    loaded = turns.with_columns(
        pl.col("outcomes").list.eval(pl.when(pl.element() == 2).then(6).otherwise(pl.element()))
    )
    learned = model.learn_rules(loaded)
    assert not learned.fair and learned.face[1] == 0 and learned.face[5] > 0.3
    assert model.learn_rules(turns).fair


def test_goal_is_learned_from_where_games_end():
    turns, _ = _logs(HogRules(goal=60), "always_roll:4", "always_roll:6", 500)
    goal, (low, high) = model.learn_goal(turns)
    assert goal == low == 60 and high >= 60
    broken = turns.with_columns(
        pl.when(pl.col("turn") == 1).then(500).otherwise(pl.col("new_score")).alias("new_score")
    )
    with pytest.raises(model.FitError):
        model.learn_goal(broken)


def test_opponent_policy_generalises_a_threshold_rule():
    rules = HogRules()
    turns, _ = _logs(rules, "always_roll:6", "square_strategy", 400)
    learned = model.learn_rules(turns)
    policy, seen = model.opponent_policy(turns, learned, against="them")
    assert np.allclose(policy.sum(axis=-1), 1)
    table = as_table(make_bot("square_strategy"))
    unseen = seen == 0
    assert unseen.sum() > 1000
    guessed = policy.argmax(axis=-1)
    assert (guessed[unseen] == table[unseen]).mean() > 0.99


def test_fit_errors():
    turns, scores = _logs(HogRules(), "always_roll:6", "always_roll:5", 50)
    with pytest.raises(model.FitError):
        model.fit(model.Logged(turns, scores), opponent="nobody")
    with pytest.raises(model.FitError):
        model.fit(model.Logged(turns.clear(), scores))
    with pytest.raises(model.FitError):
        model.fit(model.Logged(turns.drop("outcomes"), scores))
    with pytest.raises(model.FitError):
        model.fit(model.Logged(turns, scores), method="guess")


def test_fingerprint_follows_the_content():
    turns, scores = _logs(HogRules(), "always_roll:6", "always_roll:5", 50)
    assert model.fingerprint(turns, scores) == model.fingerprint(turns.clone(), scores)
    changed = turns.with_columns(pl.col("points").shift(1, fill_value=0))
    assert model.fingerprint(changed, scores) != model.fingerprint(turns, scores)


def test_table_file_round_trip(tmp_path):
    turns, scores = _logs(HogRules(goal=50), "always_roll:6", "always_roll:5", 300)
    fitted = model.fit(model.Logged(turns, scores))
    path = tmp_path / "t.parquet"
    model.write_table(path, fitted)
    read = model.read_table(path)
    table, metadata = read.table, read.metadata
    assert (table == fitted.table).all()
    assert metadata == {**fitted.metadata, "columns": COLUMNS, "n": 2500}
    assert metadata["kind"] == "strategy"
    frame, shared = tables.read(path, "hog", "strategy")  # the format every game shares
    assert frame.columns == COLUMNS and shared == metadata
    (tmp_path / "bad.parquet").write_text("no")
    with pytest.raises(tables.TableError):
        model.read_table(tmp_path / "bad.parquet")
    tables.write(tmp_path / "other.parquet", frame, {**metadata, "kind": "policy"})
    with pytest.raises(tables.TableError, match="policy"):
        model.read_table(tmp_path / "other.parquet")
    tables.write(tmp_path / "holed.parquet", frame.head(2499), metadata)
    with pytest.raises(tables.TableError):
        model.read_table(tmp_path / "holed.parquet")


COLUMNS = ["score", "opponent_score", "num_rolls"]


def test_a_game_cut_short_is_left_out():
    turns, scores = _logs(HogRules(), "always_roll:6", "always_roll:6", 200)
    cut = turns.filter(~((pl.col("game") == 200) & (pl.col("turn") > 3)))
    with pytest.raises(model.FitError):
        model.learn_goal(cut)
    fitted = model.fit(model.Logged(cut, scores.filter(pl.col("game") < 200)))
    assert fitted.rules.goal == 100 and fitted.metadata["games"] == 199

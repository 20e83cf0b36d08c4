"""Card guessing's fit: the answer model (uniform when the logs are) and the table file."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from mine.models import cardguess as model
from mine.models.tables import TableError
from mine.strategies.engines.cardguess import draw_answer, hand_text
from mine.strategies.solvers.cardguess import Plan

CHEAP = Plan(widths=(1,), members=1326, extras=0)


def answers(answerer: str, games: int, seed: int, n: int = 2) -> list[str]:
    rng = np.random.default_rng(seed)
    return [hand_text(draw_answer(n, answerer, rng)) for _ in range(games)]


def logged(answers: list[str]) -> model.Logged:
    """What the warehouse would hand `fit` for these answers (one log, a guess each)."""
    return model.Logged(answers, len(answers), "ab" * 32, 1)


def test_uniform_logs_give_the_uniform_prior():
    fitted = model.answer_model(answers("uniform", 2000, 1))
    assert fitted.uniform and fitted.prior(2) is None
    assert (fitted.card_weights == 1).all()


def test_skewed_logs_give_a_prior_that_favours_their_cards():
    fitted = model.answer_model(answers("faces", 2000, 2))
    assert not fitted.uniform and fitted.p_value < model.UNIFORM_ALPHA
    weights = fitted.summary()["card_weights"]
    assert weights["KH"] > 2 * weights["5H"]
    prior = fitted.prior(2)
    assert prior.shape == (1326,) and prior.max() / prior.min() > 4


def test_the_chi_square_p_value_is_calibrated_at_the_extremes():
    assert model.chi_square_p(np.full(52, 100)) > 0.99
    assert model.chi_square_p(np.r_[np.full(51, 100), 400]) < 1e-6


def test_no_games_is_a_fit_error():
    with pytest.raises(model.FitError, match="no card-guessing games"):
        model.fit(logged([]))


def test_the_table_file_round_trips(tmp_path):
    fitted = model.fit(logged(answers("uniform", 300, 3)), (2,), plans={2: CHEAP})
    path = model.write_table(tmp_path / "t.parquet", fitted)
    read = model.read_table(path)
    trees, metadata = read.trees, read.metadata
    before, after = fitted.trees[2], trees[2]
    for field in ("guess", "parent", "code", "depth", "first", "answers"):
        assert (getattr(before, field) == getattr(after, field)).all(), field
    assert metadata["trees"]["2"]["expected_guesses"] == pytest.approx(before.cost[0], abs=1e-6)
    assert metadata["answerer"]["uniform"] and metadata["method"] == "search"


def test_a_table_out_of_order_is_refused(tmp_path):
    fitted = model.fit(logged(answers("uniform", 300, 3)), (2,), plans={2: CHEAP})
    path = model.write_table(tmp_path / "t.parquet", fitted)
    frame = pl.read_parquet(path)
    frame.with_columns(pl.col("parent").reverse()).write_parquet(path)
    with pytest.raises(TableError, match="tree is broken"):
        model.read_table(path)


def test_a_tree_searched_in_processes_is_the_serial_one_byte_for_byte(tmp_path, monkeypatch):
    # n = 2 in processes (it runs in one below PARALLEL_ANSWERS), a skewed prior (weights
    # travel with each task) and a root of three guesses, the later ones cut off by the
    # bound: the merge must stop where the serial search stops
    monkeypatch.setattr(model, "PARALLEL_ANSWERS", 0)
    inputs = logged(answers("faces", 2000, 2))
    plan = {2: Plan(widths=(3, 2), members=1326, extras=0)}
    counts: list[int] = []
    serial = model.fit(inputs, (2,), plans=plan, workers=1)
    apart = model.fit(
        inputs, (2,), plans=plan, workers=2, progress=lambda _, d, t: counts.append(d)
    )
    assert not serial.metadata["answerer"]["uniform"] and serial.metadata == apart.metadata
    written = [model.write_table(tmp_path / f"{w}.parquet", fitted).read_bytes()
               for w, fitted in ((1, serial), (2, apart))]  # fmt: skip
    assert written[0] == written[1]
    assert counts == sorted(counts) and 1326 <= counts[-1] <= 3 * 1326  # counted as done

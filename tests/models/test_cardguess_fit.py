"""Card guessing's fit: the answer model (uniform when the logs are) and the table file."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from mine.models import cardguess as model
from mine.models.tables import TableError
from mine.strategies.engines.cardguess import draw_answer, hand_text


def answers(answerer: str, games: int, seed: int, n: int = 2) -> list[str]:
    rng = np.random.default_rng(seed)
    return [hand_text(draw_answer(n, answerer, rng)) for _ in range(games)]


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
        model.fit([])


def test_the_table_file_round_trips(tmp_path):
    fitted = model.fit(answers("uniform", 300, 3), (2,), {2: model.QUICK})
    path = model.write_table(tmp_path / "t.parquet", fitted)
    read = model.read_table(path)
    trees, metadata = read.trees, read.metadata
    before, after = fitted.trees[2], trees[2]
    for field in ("guess", "parent", "code", "depth", "first", "answers"):
        assert (getattr(before, field) == getattr(after, field)).all(), field
    assert metadata["trees"]["2"]["expected_guesses"] == pytest.approx(before.cost[0], abs=1e-6)
    assert metadata["answerer"]["uniform"] and metadata["method"] == "search"


def test_a_table_out_of_order_is_refused(tmp_path):
    fitted = model.fit(answers("uniform", 300, 3), (2,), {2: model.QUICK})
    path = model.write_table(tmp_path / "t.parquet", fitted)
    frame = pl.read_parquet(path)
    frame.with_columns(pl.col("parent").reverse()).write_parquet(path)
    with pytest.raises(TableError, match="tree is broken"):
        model.read_table(path)

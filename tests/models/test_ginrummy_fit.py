"""Gin Rummy tables fitted from small simulated logs: shapes, sane values, file round trip."""

from __future__ import annotations

import duckdb
import numpy as np
import polars as pl
import pytest

from models import ginrummy as model
from models import tables
from pipeline import ginrummy_stats
from strategies.bots.ginrummy import make_bot
from strategies.engines.ginrummy import GinRummyRules, play_game, write_game
from strategies.melds import MeldSolver
from warehouse.ingest import ingest


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    root = tmp_path_factory.mktemp("gr")
    rules, solver = GinRummyRules(), MeldSolver()
    (root / "logs").mkdir()
    for index, seats in enumerate((("simple", "explorer:0.3"), ("ginhunter", "simple"))):
        for game in range(25):
            rng = np.random.default_rng([5, index, game])
            players = [make_bot(spec, rng, rules, solver) for spec in seats]
            write_game(play_game(rules, players, rng, solver), 0, root / "logs",
                       f"ginrummy-{index}-{game:06d}")  # fmt: skip
    con = duckdb.connect(str(root / "w.duckdb"))
    assert ingest(con, [root / "logs"]).ok
    turns, rounds = ginrummy_stats.load(con)
    con.close()
    features = ginrummy_stats.turn_features(turns, rounds, solver)
    return model.fit(features, "f" * 64, 50), root


def test_danger_is_higher_next_to_the_opponents_pickups(fitted):
    danger = model.nested(fitted[0].frame)["danger"]
    for rank in range(13):
        none = danger[0][0][rank]
        assert danger[2][0][rank] > none  # adjacent to a card it picked up
        assert danger[3][0][rank] > none  # same rank as a card it picked up
        assert danger[0][2][rank] < none  # same rank as a card it passed
        assert all(0 < danger[p][q][rank] < 1 for p in range(4) for q in range(3))
    assert 0.5 < fitted[0].metadata["danger"]["held_out_auc"] <= 1


def test_draw_and_knock_tables_are_complete_and_sane(fitted):
    nested = model.nested(fitted[0].frame)
    draw = np.array(nested["draw"])
    assert draw.shape == (model.DEADWOOD_BUCKETS, model.TURN_BUCKETS)
    assert np.isfinite(draw).all()
    # A stock draw takes more off a bad hand than off a good one.
    assert draw[4].mean() > draw[0].mean()
    knock = np.array(nested["knock"])
    assert knock.shape == (11, model.TURN_BUCKETS, 2)
    assert set(np.unique(knock)) <= {0, 1}
    # Knocking at 10 beat playing on (simple and its explorer knock at once and win).
    assert knock[10].mean() > 0.5


def test_tables_file_round_trip(fitted, tmp_path):
    fit, _ = fitted
    path = tables.write(tmp_path / "t.parquet", fit.frame, fit.metadata)
    frame, metadata = tables.read(path, "ginrummy", model.KIND)
    assert frame.equals(fit.frame)
    assert metadata["rows"] == fit.metadata["rows"] and metadata["games"] == 50
    with pytest.raises(tables.TableError):
        tables.read(path, "hog")


def test_fit_refuses_empty_logs(fitted):
    empty = pl.DataFrame(schema=ginrummy_stats.FEATURES)
    with pytest.raises(model.FitError):
        model.fit(empty, "f" * 64, 0)

"""A TwentyOne table file is checked on read: hand-edited rows or metadata are refused in
one line by every command that reads a table (generate, report), never a traceback, and
nothing is written; the table as `mine fit` writes it reads back as the same strategy."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from mine.models import tables
from mine.models import twentyone as model
from mine.strategies.engines.twentyone import STAND, TwentyOneRules
from mine.strategies.engines.twentyone_chart import MAIN, Strategy
from mine.strategies.solvers.twentyone import solve
from tests.strategies.test_twentyone_codegen import METADATA
from tests.tampering import refused, table_file


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """The optimal chart with a count chart and two bids, as `mine fit twentyone` writes
    it: (the strategy, its rows, its metadata)."""
    chart = solve(TwentyOneRules()).chart
    low = chart.copy()
    low.hand[MAIN, 10, 16, 0, 1] = STAND
    metadata = {**METADATA, "kind": model.KIND, "settings": {}}
    strategy = Strategy(chart, ((-10, -1, 10), (0, 10, 100)), ((-10, -3, low),), metadata)
    path = model.write_table(tmp_path_factory.mktemp("t") / "t.parquet", strategy)
    return strategy, pl.read_parquet(path), json.loads(tables.metadata_path(path).read_text())


def _column(frame: pl.DataFrame, column: str, values) -> pl.DataFrame:
    return frame.with_columns(pl.Series(column, values))


def _where(frame: pl.DataFrame, section: str, column: str, value) -> pl.DataFrame:
    """`frame` with `column` set to `value` in the first row of `section`."""
    first = frame.with_row_index().filter(pl.col("section") == section)["index"][0]
    values = frame[column].to_list()
    values[first] = value
    return _column(frame, column, values)


def _learned(m: dict, **changes) -> dict:
    return {**m, "learned": {**m["learned"], **changes}}


TAMPERED = {
    "no rows": lambda f, m: (f.head(0), m),
    "a dropped column": lambda f, m: (f.drop("action"), m),
    "a null action": lambda f, m: (_column(f, "action", [None, *f["action"][1:]]), m),
    "NaN actions": lambda f, m: (_column(f, "action", [np.nan] * f.height), m),
    "infinite actions": lambda f, m: (_column(f, "action", [np.inf] * f.height), m),
    "fractions of actions": lambda f, m: (_column(f, "action", [1.5] * f.height), m),
    "huge actions": lambda f, m: (_column(f, "action", [2**62] * f.height), m),
    "actions as words": lambda f, m: (_column(f, "action", ["hit"] * f.height), m),
    "a hand action that is none": lambda f, m: (_where(f, "hand", "action", 7), m),
    "a split that is not yes or no": lambda f, m: (_where(f, "split", "action", 2), m),
    "a count cell's action that is none": lambda f, m: (_where(f, "count_hand", "action", 0), m),
    "an up card past the ten": lambda f, m: (_where(f, "hand", "up", 11), m),
    "a situation left out": lambda f, m: (f.slice(1), m),
    "a situation twice": lambda f, m: (pl.concat([f.head(1), f]), m),
    "an unknown section": lambda f, m: (_where(f, "bid", "section", "bet"), m),
    "a count cell of no situation": lambda f, m: (_where(f, "count_hand", "total", 40), m),
    "a count range upside down": lambda f, m: (_where(f, "count_hand", "tc_low", 5), m),
    "a true count past the range": lambda f, m: (_where(f, "bid", "tc_low", -50), m),
    "no bids": lambda f, m: (f.filter(pl.col("section") != "bid"), m),
    "a bid above the maximum": lambda f, m: (_where(f, "bid", "bid", 1000), m),
    "metadata a list": lambda f, m: (f, [m]),
    "no learned numbers": lambda f, m: (f, {k: v for k, v in m.items() if k != "learned"}),
    "learned decks a word": lambda f, m: (f, _learned(m, decks="three")),
    "learned decks fractional": lambda f, m: (f, _learned(m, decks=2.5)),
    "learned max_bid huge": lambda f, m: (f, _learned(m, max_bid=10**9)),
    "learned decks past a float": lambda f, m: (f, _learned(m, decks=10**400)),
    "learned min_bid above max_bid": lambda f, m: (f, _learned(m, min_bid=200)),
    "learned payoffs a list": lambda f, m: (f, _learned(m, payoffs=[])),
    "learned dealer rule a word": lambda f, m: (f, _learned(m, dealer_rule="hits soft 17")),
    "a learned payoff past a float": lambda f, m: (
        f,
        _learned(m, payoffs={**m["learned"]["payoffs"], "5-card 24 vs 20": 10**400}),
    ),
    "learned insurance a number": lambda f, m: (
        f,
        _learned(m, actions={**m["learned"]["actions"], "insurance": 1}),
    ),
    "a model value that is a word": lambda f, m: (f, {**m, "model_ev": "high"}),
    "a model value past a float": lambda f, m: (f, {**m, "model_ev": 10**400}),
    "another game's": lambda f, m: (f, {**m, "game": "hog"}),
}


@pytest.mark.parametrize("how", TAMPERED)
@pytest.mark.parametrize("verb", ["generate", "report"])
def test_a_tampered_table_is_refused_in_one_line(tmp_path, written, how, verb):
    refused(verb, "twentyone", table_file(*TAMPERED[how](*written[1:]), tmp_path), tmp_path)


def test_the_table_reads_back_as_the_strategy_written(tmp_path, written):
    strategy, frame, metadata = written
    read = model.read_table(table_file(frame, metadata, tmp_path))
    assert (read.chart.hand == strategy.chart.hand).all()
    assert (read.chart.split == strategy.chart.split).all()
    assert (read.chart.insure == strategy.chart.insure).all()
    assert read.bids == strategy.bids
    [(low, high, chart)] = read.count_charts
    assert (low, high) == (-10, -3)
    assert (chart.hand != strategy.chart.hand).sum() == 1
    assert read.metadata["learned"] == strategy.metadata["learned"]

"""Hand-edited Super-Nim tables (issue 27): an empty table, metadata of the wrong types,
NaN, infinite or huge numbers, a dropped column, keys that are not the player's features —
each is refused in one `TableError` line by `read_table`, and by the real
`mine generate` and `mine report` in one error line, nothing written."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

from mine.models import supernim as model
from mine.models.tables import TableError
from tests.strategies.test_supernim_codegen import fitted as fitted_fixture
from tests.tampering import Tamper, refused, rows, setting, tampered


@pytest.fixture(scope="module")
def fitted() -> model.Fitted:
    """The codegen tests' fit."""
    return fitted_fixture.__wrapped__()


@pytest.fixture(scope="module")
def table(tmp_path_factory, fitted) -> Path:
    return model.write_table(tmp_path_factory.mktemp("table") / "t.parquet", fitted)


def _cell(column: str, value, kind: str = "cell") -> Tamper:
    """`value` in `column` of the first row of `kind`."""

    def change(frame: pl.DataFrame) -> pl.DataFrame:
        first = (pl.col("kind") == kind).arg_true().first()
        row = pl.int_range(pl.len()) == first
        return frame.with_columns(pl.when(row).then(pl.lit(value)).otherwise(pl.col(column))
                                  .alias(column))  # fmt: skip

    return rows(change)


def _again(*change, **named) -> Tamper:
    """The first row once more, changed (a row added)."""
    return rows(lambda f: pl.concat([f, f.head(1).with_columns(*change, **named)]))


TAMPERED: dict[str, tuple[Tamper, str]] = {
    "an empty table": (rows(lambda f: f.clear()), "holds no value"),
    "a dropped column": (rows(lambda f: f.drop("value")), "lacks the column 'value'"),
    "a NaN value": (_cell("value", math.nan), "missing values"),
    "an infinite value": (_cell("value", math.inf), "infinite"),
    "a huge value": (_cell("value", 1e300), "is not a margin"),
    "a value as text": (_cell("value", "two"), "wrong type"),
    "a cell of five features": (_cell("key", "1;0;0;1;3"), "is not 7 features"),
    "a cell of a negative count": (_cell("key", "1;1;0;0;-1;3;12"), "is not 7 features"),
    "a count over its cap": (_cell("key", "1;2;0;0;1;3;12"), "is not 7 features"),
    "a cell of words": (_cell("key", "two;four"), "is not 7 features"),
    "a row of no kind": (_cell("kind", "weights"), "a row of kind 'weights'"),
    "a cell twice": (_again(-pl.col("value")), "a second row of the key"),
    "a cell left out": (rows(lambda f: f.slice(1)), "cells, its metadata says"),
    "a cell added": (_again(key=pl.lit("0;0;0;0;0;0;0")), "cells, its metadata says"),
    "a cell twice, one key with a leading zero": (_again(key="0" + pl.col("key")),
                                                  "a second row of the key '0"),
    "caps a number": (setting("settings.caps", 1e308), "settings.caps is not the player's"),
    "a cap changed": (setting("settings.caps.twos", 99), "settings.caps is not the player's"),
    "a merge cap as text": (setting("settings.merge_cap", "ten"), "merge_cap is 'ten'"),
    "a cut-off out of bounds": (setting("settings.max_moves", 10**9), "max_moves 1000000000 is not"),
    "a split reward as a flag": (setting("settings.split_reward", True), "split_reward is True"),
    "games as text": (setting("games", "many"), "games is 'many'"),
    "a NaN held-out error": (setting("holdout.mean_abs_error_with_two", math.nan), "is nan"),
    "no held-out figures": (setting("holdout", None), "lacks 'holdout'"),
    "no yardstick": (setting("yardstick", None), "lacks 'yardstick'"),
    "a yardstick error as text": (setting("yardstick.mean_abs_error", "0.3"), "not a float"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(TAMPERED))
def test_a_tampered_table_is_one_table_error(table, tmp_path, case):
    with pytest.raises(TableError, match=TAMPERED[case][1].replace("(", r"\(")):
        model.read_table(tampered(table, tmp_path, TAMPERED[case][0]))


@pytest.mark.parametrize("case", ["an empty table", "a huge value", "a cell of five features",
                                  "a cut-off out of bounds", "caps a number"])  # fmt: skip
def test_generate_and_report_refuse_a_tampered_table_in_one_line(table, tmp_path, case):
    tamper, says = TAMPERED[case]
    path = tampered(table, tmp_path, tamper)
    refused("generate", "supernim", path, tmp_path, says)
    refused("report", "supernim", path, tmp_path, says)


def test_the_untouched_table_reads_as_it_was_fitted(table, fitted):
    read = model.read_table(table)
    assert read.cells == fitted.cells
    assert read.metadata == {**fitted.metadata, "columns": ["kind", "key", "value"],
                             "n": len(fitted.cells)}  # fmt: skip

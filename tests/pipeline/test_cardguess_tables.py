"""Hand-edited card-guessing tables (issue 27): an empty table, metadata of the wrong
types, NaN, infinite or huge numbers, a dropped column, a tree that is not one — each is
refused in one `TableError` line by `read_table`, and by the real `mine generate` and
`mine report` in one error line, nothing written."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

from mine.models import cardguess as model
from mine.models.tables import TableError
from mine.strategies.solvers.cardguess import Plan
from tests.tampering import refused, rows, setting, tampered

CHEAP = Plan(widths=(1,), members=1326, extras=0)
ANSWERS = ["2C;3D", "AS;KH", "TH;9C", "5D;5S"] * 20


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> Path:
    fitted = model.fit(model.Logged(ANSWERS, 4 * len(ANSWERS), "ab" * 32, 1), (2,),
                       plans={2: CHEAP})  # fmt: skip
    return model.write_table(tmp_path_factory.mktemp("table") / "t.parquet", fitted)


def _cell(column: str, value, dtype=None):
    def change(frame: pl.DataFrame) -> pl.DataFrame:
        changed = frame.with_columns(
            pl.when(pl.int_range(pl.len()) == 3).then(pl.lit(value)).otherwise(pl.col(column))
            .alias(column)
        )  # fmt: skip
        return changed if dtype is None else changed.with_columns(pl.col(column).cast(dtype))

    return change


TAMPERED = {
    "an empty table": (rows(lambda f: f.clear()), "holds no tree"),
    "a dropped column": (rows(lambda f: f.drop("code")), "lacks the column 'code'"),
    "NaN expected guesses": (rows(_cell("expected_guesses", math.nan)), "missing values"),
    "infinite expected guesses": (rows(_cell("expected_guesses", math.inf)), "infinite"),
    "a huge node number": (rows(_cell("node", 2**40, pl.Int64)), "wrong type"),
    "a huge answer count": (rows(_cell("answers", 10**12, pl.Int64)), "wrong type"),
    "a fraction of a node": (rows(_cell("parent", 0.5, pl.Float64)), "whole number"),
    "a guess that is no cards": (rows(_cell("guess", "ZZ;2C")), "tree is broken"),
    "a guess of three cards": (rows(_cell("guess", "2C;3C;4C")), "tree is broken"),
    "a feedback no rule gives": (rows(_cell("code", 9999, pl.Int16)), "tree is broken"),
    "a tree for n = 7": (rows(lambda f: f.with_columns(pl.lit(7, pl.Int8).alias("n"))),
                         "n = 7"),
    "games as text": (setting("games", "many"), "games is 'many'"),
    "uniform as text": (setting("answerer.uniform", "yes"), "uniform is 'yes'"),
    "a p-value as text": (setting("answerer.chi_square_p_value", "0.5"), "not a float"),
    "expected guesses as text": (setting("trees.2.expected_guesses", "3.5"),
                                 "not a float"),
    "expected guesses past a float": (setting("trees.2.expected_guesses", 10**400),
                                      "not a float"),
    "trees as a list": (setting("trees", []), "holds no tree"),
    "a tree the metadata does not state": (setting("trees", {"3": {}}), "lacks '2'"),
    "a node count that is not the table's": (setting("trees.2.nodes", 5), "5"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(TAMPERED))
def test_a_tampered_table_is_one_table_error(table, tmp_path, case):
    with pytest.raises(TableError, match=TAMPERED[case][1]):
        model.read_table(tampered(table, tmp_path, TAMPERED[case][0]))


@pytest.mark.parametrize(
    "case", ["an empty table", "a dropped column", "NaN expected guesses", "games as text"]
)
def test_generate_and_report_refuse_a_tampered_table_in_one_line(table, tmp_path, case):
    tamper, says = TAMPERED[case]
    path = tampered(table, tmp_path, tamper)
    refused("generate", "cardguess", path, tmp_path, says)
    refused("report", "cardguess", path, tmp_path, says)


def test_the_untouched_table_reads(table):
    assert set(model.read_table(table).trees) == {2}

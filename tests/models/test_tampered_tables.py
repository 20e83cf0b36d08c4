"""A table file is checked on read: hand-edited rows or metadata are refused in one line by
every command that reads a table, never a traceback, and nothing is written."""

from __future__ import annotations

import json
import os

import numpy as np
import polars as pl
import pytest

from mine.models import hog as model
from mine.models import tables
from mine.strategies.engines.hog import HogRules
from mine.strategies.solvers.hog import TurnModel, optimal
from tests.mine_cli import here, one_line_error
from tests.tampering import refused, setting, table_file

GOAL = 30


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """A Hog table as `mine fit hog` writes it (goal 30, its optimal strategy)."""
    table = optimal(TurnModel.from_rules(HogRules(goal=GOAL))).table[0]
    metadata = {
        "game": "hog", "kind": "strategy", "fingerprint": "0" * 64, "rows": 10, "games": 1,
        "logs": 1, "method": "minimax", "settings": {},
        "learned": {"goal": GOAL, "dice_sides": 6, "max_rolls": 10, "sow_sad": True,
                    "square_swine": True},
    }  # fmt: skip
    path = model.write_table(tmp_path_factory.mktemp("t") / "t.parquet", model.Fit(table, metadata))
    return pl.read_parquet(path), json.loads(tables.metadata_path(path).read_text())


def _rows(frame: pl.DataFrame, column: str, values) -> pl.DataFrame:
    return frame.with_columns(pl.Series(column, values))


TAMPERED = {
    "no rows": lambda f, m: (f.head(0), m),
    "a dropped column": lambda f, m: (f.drop("num_rolls"), m),
    "a null": lambda f, m: (_rows(f, "num_rolls", [None, *f["num_rolls"][1:]]), m),
    "NaN dice": lambda f, m: (_rows(f, "num_rolls", [np.nan] * f.height), m),
    "infinite dice": lambda f, m: (_rows(f, "num_rolls", [np.inf] * f.height), m),
    "fractions of dice": lambda f, m: (_rows(f, "num_rolls", [2.5] * f.height), m),
    "huge dice": lambda f, m: (_rows(f, "num_rolls", [2**62] * f.height), m),
    "negative dice": lambda f, m: (_rows(f, "num_rolls", [-1] * f.height), m),
    "dice as words": lambda f, m: (_rows(f, "num_rolls", ["six"] * f.height), m),
    "a score past the goal": lambda f, m: (_rows(f, "score", [GOAL + 5] * f.height), m),
    "metadata a list": lambda f, m: (f, [m]),
    "learned goal a word": lambda f, m: (f, {**m, "learned": {**m["learned"], "goal": "x"}}),
    "learned goal huge": lambda f, m: (f, {**m, "learned": {**m["learned"], "goal": 10**9}}),
    "learned goal past a float": lambda f, m: (
        f,
        {**m, "learned": {**m["learned"], "goal": 10**400}},
    ),
    "learned sow_sad a number": lambda f, m: (f, {**m, "learned": {**m["learned"], "sow_sad": 1}}),
    "no learned rules": lambda f, m: (f, {k: v for k, v in m.items() if k != "learned"}),
    "another game's": lambda f, m: (f, {**m, "game": "twentyone"}),
    "settings a list": lambda f, m: (f, {**m, "settings": ["against"]}),
    "settings a word": lambda f, m: (f, {**m, "settings": "best-response"}),
}


@pytest.mark.parametrize("how", TAMPERED)
@pytest.mark.parametrize("verb", ["generate", "report"])
def test_a_tampered_table_is_refused_in_one_line(tmp_path, fitted, how, verb):
    refused(verb, "hog", table_file(*TAMPERED[how](*fitted), tmp_path), tmp_path)


@pytest.mark.parametrize("field", ["game", "kind", "learned.goal"])
def test_a_tampered_value_is_quoted_short(tmp_path, fitted, field):
    """A value of the table's metadata was quoted whole: a word of 100,000 characters made
    an error line of 100,000."""
    frame, metadata = fitted
    path = table_file(*setting(field, "x" * 100_000)(frame, metadata), tmp_path)
    line = one_line_error(here("report", "hog", "--table", path, "--out", tmp_path / "out"))
    assert str(path) in line and "'xxxxxxxx" in line and len(line) < len(str(path)) + 200, line


def test_a_missing_table_says_what_a_table_is(tmp_path):
    line = one_line_error(here("report", "hog", "--table", tmp_path / "gin.parquet"))
    assert "a table is two files, gin.parquet and gin.json" in line and "mine fit" in line


@pytest.mark.parametrize("part", [".parquet", ".json"])
def test_a_table_file_that_is_a_fifo_is_not_said_to_be_missing(tmp_path, fitted, part):
    """A FIFO (or a folder, a device) where a table's file goes was 'missing'."""
    path = table_file(*fitted, tmp_path)
    path.with_suffix(part).unlink()
    os.mkfifo(path.with_suffix(part))
    refused("generate", "hog", path, tmp_path, "is not a regular file (a folder, a FIFO")


@pytest.mark.parametrize("depth", [40, 100_000])  # past any table's; past Python's stack
@pytest.mark.parametrize("verb", ["generate", "report"])
def test_metadata_nested_deeper_than_any_table_is_refused(tmp_path, fitted, depth, verb):
    path = table_file(*fitted, tmp_path)
    written = tables.metadata_path(path).read_text().rstrip().removesuffix("}")
    tables.metadata_path(path).write_text(written + ', "notes": ' + "[" * depth + "]" * depth + "}")
    refused(verb, "hog", path, tmp_path, "nested")


def test_a_table_stating_more_rows_than_any_is_refused_unread(tmp_path, fitted):
    """A few kB of one repeated value may state 300 million rows, which reading held in
    memory (7 GB; under a memory limit the process aborted, Rust's 'memory allocation
    failed' and exit 134): the footer's count is read first. One row past the cap shows it
    (without the check, Hog's own check refused the file, having read it)."""
    frame = pl.select(pl.repeat(0, tables.TABLE_ROWS + 1, dtype=pl.Int8).alias("score"))
    path = table_file(frame, fitted[1], tmp_path)
    refused("generate", "hog", path, tmp_path, "rows, more than any table of mine holds")


@pytest.mark.parametrize("name", ["t[1]", "t*"])
def test_a_table_named_with_glob_characters_is_read_as_itself(tmp_path, fitted, name):
    """Polars took a table's name as a glob: `t[1].parquet`, as `mine fit --out` writes it,
    was 'not a readable table (… expanded paths were empty)', and `t*.parquet` read every
    table beside it as one ('not a square table'). A name is read as itself."""
    frame, metadata = fitted
    table_file(frame, metadata, tmp_path).rename(tmp_path / "tx.parquet")  # a neighbour
    path = tables.write(tmp_path / f"{name}.parquet", frame, metadata)  # as fit writes it
    result = here("generate", "hog", "--table", path, "--out", tmp_path / "p.py")
    assert result.returncode == 0, result.stderr

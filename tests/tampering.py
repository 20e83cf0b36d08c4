"""Hand-edited tables (issue 27), written as `mine fit` would never write them: each case is a
change of the rows or of the metadata, and a table file is made of it beside the test."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

import polars as pl

from mine.models.tables import metadata_path
from tests.mine_cli import here, one_line_error

Tamper = Callable[[pl.DataFrame, dict], tuple[pl.DataFrame, dict]]


def rows(change: Callable[[pl.DataFrame], pl.DataFrame]) -> Tamper:
    return lambda frame, metadata: (change(frame), metadata)


def setting(path: str, value) -> Tamper:
    """The metadata with `value` at `path` (keys joined by dots)."""
    *keys, last = path.split(".")

    def tamper(frame: pl.DataFrame, metadata: dict) -> tuple[pl.DataFrame, dict]:
        metadata = copy.deepcopy(metadata)  # a module's fixture: later tests read it too
        inner = metadata
        for key in keys:
            inner = inner[key]
        inner[last] = value
        return frame, metadata

    return tamper


def table_file(frame: pl.DataFrame, metadata, folder: Path) -> Path:
    """A table of these rows and this metadata, as two files in `folder`."""
    path = folder / "tampered.parquet"
    frame.write_parquet(path)
    metadata_path(path).write_text(json.dumps(metadata))
    return path


def tampered(table: Path, folder: Path, tamper: Tamper) -> Path:
    """A copy of `table` in `folder`, changed by `tamper`."""
    frame, metadata = pl.read_parquet(table), json.loads(metadata_path(table).read_text())
    return table_file(*tamper(frame, metadata), folder)


def refused(verb: str, game: str, path: Path, folder: Path, says: str = "") -> None:
    """`mine <verb> <game> --table path` refuses it in one line naming it (and saying
    `says`), and writes nothing (run in this process: the commands' own check, quick)."""
    out = folder / "out"
    said = one_line_error(here(verb, game, "--table", path, "--out", out))
    assert str(path) in said and says in said
    assert not out.exists()

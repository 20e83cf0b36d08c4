"""The fitted-table file format shared by every game: Parquet rows + JSON metadata.

`<name>.parquet` holds the table as rows (one per situation); `<name>.json` beside it says
what it is: game, kind of table, data fingerprint, rows it was fitted from, method and
settings. Readers check the game and kind before trusting the rows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl

from mine import outputs

REQUIRED = ("game", "kind", "fingerprint", "rows", "method", "settings")


class TableError(ValueError):
    """A table file that is missing, unreadable, or not the table asked for."""


def metadata_path(path: str | Path) -> Path:
    return Path(path).with_suffix(".json")


def write(path: str | Path, frame: pl.DataFrame, metadata: dict[str, Any]) -> Path:
    """Write the table and its metadata; returns the Parquet path."""
    missing = [key for key in REQUIRED if key not in metadata]
    if missing:
        raise TableError(f"table metadata lacks {', '.join(missing)}")
    path = Path(path).with_suffix(".parquet")
    # No timestamp: the same data and settings must give the same files.
    stamped = {**metadata, "columns": frame.columns, "n": frame.height}
    try:
        # The metadata last: a reader finds both files or a table it cannot read, never
        # new rows with old metadata.
        with outputs.replacing(path, metadata_path(path)) as (rows, described):
            frame.write_parquet(rows)
            described.write_text(json.dumps(stamped, indent=2, default=str) + "\n")
    except (OSError, pl.exceptions.PolarsError) as error:  # a full disk, mostly
        reason = getattr(error, "strerror", None) or str(error).strip().splitlines()[0]
        raise TableError(f"{path}: cannot write the table ({reason})") from None
    return path


def read(path: str | Path, game: str, kind: str | None = None) -> tuple[pl.DataFrame, dict]:
    """The table and its metadata, checked to be `game`'s table of `kind`."""
    path = Path(path)
    try:
        metadata = json.loads(metadata_path(path).read_text())
        frame = pl.read_parquet(path.with_suffix(".parquet"))
    except (OSError, json.JSONDecodeError, pl.exceptions.PolarsError) as error:
        raise TableError(f"{path}: not a readable table ({error})") from None
    if metadata.get("game") != game:
        raise TableError(f"{path}: a table of {metadata.get('game')!r}, not of {game!r}")
    if kind is not None and metadata.get("kind") != kind:
        raise TableError(f"{path}: a {metadata.get('kind')!r} table, not a {kind!r} table")
    return frame, metadata

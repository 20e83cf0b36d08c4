"""The fitted-table file format shared by every game: Parquet rows + JSON metadata.

`<name>.parquet` holds the table as rows (one per situation); `<name>.json` beside it says
what it is: game, kind of table, data fingerprint, rows it was fitted from, method and
settings. Readers check the game and kind before trusting the rows.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import polars as pl

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
    partial = path.with_name(f".{path.name}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        frame.write_parquet(partial)
        metadata_path(partial).write_text(json.dumps(stamped, indent=2, default=str) + "\n")
        # The metadata last: a reader finds both files or a table it cannot read, never
        # new rows with old metadata.
        partial.replace(path)
        metadata_path(partial).replace(metadata_path(path))
    except OSError as error:
        raise TableError(f"{path}: cannot write the table ({error.strerror})") from None
    finally:
        for leftover in (partial, metadata_path(partial)):
            with contextlib.suppress(OSError):
                leftover.unlink()
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

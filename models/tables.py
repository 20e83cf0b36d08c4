"""The fitted-table file format shared by every game: Parquet rows + JSON metadata.

`<name>.parquet` holds the table as rows (one per situation); `<name>.json` beside it says
what it is: game, kind of table, data fingerprint, rows it was fitted from, method and
settings. Readers check the game and kind before trusting the rows.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

from mine import inputs, outputs

REQUIRED = ("game", "kind", "fingerprint", "rows", "method", "settings")
METADATA_BYTES = 16_000_000  # a table's metadata: what fit writes is a few kB
TABLE_ROWS = 4_000_000  # the largest table, card guessing's trees for n = 2, 3, 4: < 1 million


class TableError(ValueError):
    """A table file that is missing, unreadable, or not the table asked for."""


def metadata_path(path: str | Path) -> Path:
    return _named(path).with_suffix(".json")


def _named(path: str | Path) -> Path:
    """`path`, a table's: TableError for one that names no file (`.`, `/`, an empty
    path), whose files have no name to take a suffix."""
    path = Path(path)
    if not path.name:
        raise TableError(f"{path}: is a folder; a table is two files that `mine fit` writes")
    return path


def write(path: str | Path, frame: pl.DataFrame, metadata: dict[str, Any]) -> Path:
    """Write the table and its metadata; returns the Parquet path."""
    missing = [key for key in REQUIRED if key not in metadata]
    if missing:
        raise TableError(f"table metadata lacks {', '.join(missing)}")
    path = _named(path).with_suffix(".parquet")
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


def read(
    path: str | Path,
    game: str,
    kind: str | None = None,
    columns: dict[str, pl.DataType] | None = None,
) -> tuple[pl.DataFrame, dict]:
    """The table and its metadata, checked to be `game`'s table of `kind`; with
    `columns`, the frame holds each of them, every value present and of that type (a
    hand-edited file with a dropped column, a null, a NaN or a fraction is refused)."""
    path = _named(path)
    rows, sidecar = path.with_suffix(".parquet"), metadata_path(path)
    for part in (rows, sidecar):  # there, but not to be read as a file: not "missing"
        if part.exists() and not part.is_file():
            which = "it" if part == path else part.name
            raise TableError(f"{path}: {which} is not a regular file (a folder, a FIFO or a "
                             "device); a table is two files that `mine fit` writes")  # fmt: skip
    if not (rows.is_file() and sidecar.is_file()):
        lacking = " and ".join(str(p) for p in (rows, sidecar) if not p.is_file())
        raise TableError(
            f"{path}: no table here ({lacking} missing; a table is two files, {rows.name} "
            f"and {sidecar.name}, that `mine fit` writes: run it first)"
        )
    try:
        metadata = inputs.read_json(sidecar, METADATA_BYTES)
        _within_bounds(path, rows)
        frame = pl.read_parquet(rows, glob=False)  # `t[1].parquet` is a name, not a pattern
    except TableError:
        raise
    except (OSError, ValueError, pl.exceptions.PolarsError) as error:
        raise TableError(f"{path}: not a readable table ({_first_line(error)})") from None
    if not isinstance(metadata, dict):
        raise TableError(f"{path}: its metadata is not a JSON object")
    if metadata.get("game") != game:
        raise TableError(
            f"{path}: a table of {inputs.quoted(metadata.get('game'))}, not of {game!r}"
        )
    if kind is not None and metadata.get("kind") != kind:
        raise TableError(
            f"{path}: a {inputs.quoted(metadata.get('kind'))} table, not a {kind!r} table"
        )
    if not isinstance(metadata.get("settings", {}), dict):
        raise TableError(f"{path}: its metadata's settings are not a JSON object")
    return (frame if columns is None else typed(path, frame, columns)), metadata


def _within_bounds(path: Path, rows: Path) -> None:
    """TableError when the Parquet file's footer states more rows than any table of mine
    holds: a few kB of one repeated value state millions (300 million: 7 GB of a Hog
    table's three columns), which reading the file would hold in memory."""
    stated = pl.scan_parquet(rows, glob=False).select(pl.len()).collect().item()
    if stated > TABLE_ROWS:
        raise TableError(f"{path}: {stated:,} rows, more than any table of mine holds "
                         f"({TABLE_ROWS:,})")  # fmt: skip


def typed(path: Path, frame: pl.DataFrame, columns: dict[str, pl.DataType]) -> pl.DataFrame:
    """`frame`'s `columns`, each cast to its type without loss; TableError otherwise."""
    missing = [name for name in columns if name not in frame.columns]
    if missing:
        raise TableError(f"{path}: the table lacks the column {missing[0]!r}")
    try:
        cast = frame.select(pl.col(name).cast(kind, strict=True) for name, kind in columns.items())
        floats = [n for n, to in columns.items() if to.is_integer() and frame[n].dtype.is_float()]
        exact = frame.select((pl.col(n) == pl.col(n).round()).all() for n in floats)
        if floats and not all(exact.row(0)):
            raise TableError(f"{path}: a whole number expected, a fraction found")
    except pl.exceptions.PolarsError as error:
        raise TableError(f"{path}: a value of the wrong type ({_first_line(error)})") from None
    for name in columns:
        column = cast[name]
        nulls = column.null_count() + (column.is_nan().sum() if column.dtype.is_float() else 0)
        if nulls:
            raise TableError(f"{path}: column {name!r} has {nulls} missing values")
        if column.dtype.is_float() and not column.is_finite().all():
            raise TableError(f"{path}: column {name!r} holds an infinite value")
    return cast


class Optional(NamedTuple):
    """A field that may also be null (a figure the data could not give)."""

    kind: type


def fields(path: str | Path, metadata: dict, key: str | None, types: dict[str, Any]) -> dict:
    """`metadata[key]` (the metadata itself for None), a JSON object whose `types` fields
    are each of that type (an int is not a bool here, a number is finite; an `Optional`
    type is null or that type); TableError otherwise."""
    found = metadata if key is None else metadata.get(key)
    if not isinstance(found, dict):
        raise TableError(f"{path}: its metadata lacks {key!r}")
    for name, kind in types.items():
        value = found.get(name)
        if isinstance(kind, Optional):
            if value is None:
                continue
            kind = kind.kind
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if kind is bool:
            fine = isinstance(value, bool)
        elif kind is int:
            fine = isinstance(value, int) and not isinstance(value, bool)
        elif kind is float:  # finite: not NaN, nor infinite, nor an int past a float's range
            fine = number and abs(value) <= sys.float_info.max
        else:
            fine = isinstance(value, kind)
        if not fine:
            field = name if key is None else f"{key}.{name}"
            raise TableError(
                f"{path}: metadata {field} is {inputs.quoted(value)}, not a {kind.__name__}"
            )
    return found


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]

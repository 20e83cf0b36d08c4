"""What every headerless course log shares: lines, fields, column declarations.

Each format declares its columns once (`Column`: name, warehouse type, the regular
expression its text must match). The Python reader below checks rows against them, and the
warehouse checks the same expressions in SQL, so a format rule lives in one place.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from mine import outputs
from mine.parsers.errors import LogFormatError

UINT = r"0|[1-9][0-9]*"
INTEGER_MAX = 2**31 - 1  # the warehouse's INTEGER: a larger number is no sane log value
SHOWN = 40  # characters of a bad field an error message quotes
MAX_LINE = 1 << 20  # bytes of a line (UTF-8): real lines hold about a hundred
POSITIVE = r"[1-9][0-9]*"
FLAG = r"[01]"
# Python's \s written out: DuckDB's regular expressions (RE2) read \s as ASCII space, tab
# and line breaks only, so an id holding a no-break space failed the Python reader yet
# landed unverified. Both engines read these characters alike.
WHITESPACE = "\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
ID = f"[^,;{WHITESPACE}]+"  # a player's id: no separator, no space of any kind


def at_most(limit: int, least: int = 0) -> str:
    """A regular expression of the whole numbers `least` (0 or 1) to `limit`, written
    without leading zeros: for numbers inside a text column (a board's heaps, an action's
    amount), which the warehouse casts to INTEGER where no typed read checks their range."""
    digits = str(limit)
    parts = ["0"] if least == 0 else []
    if len(digits) > 1:
        parts.append(f"[1-9][0-9]{{0,{len(digits) - 2}}}")  # fewer digits than the limit
    for i, digit in enumerate(digits):  # as many: the first place below the limit's digit
        low, high, rest = int(i == 0), int(digit) - 1, len(digits) - i - 1
        if high >= low:
            below = str(low) if low == high else f"[{low}-{high}]"
            tail = "" if rest == 0 else "[0-9]" if rest == 1 else f"[0-9]{{{rest}}}"
            parts.append(digits[:i] + below + tail)
    return "|".join([*parts, digits])


NUMBER = at_most(INTEGER_MAX)
POSITIVE_NUMBER = at_most(INTEGER_MAX, least=1)  # NUMBER but its "0|", as POSITIVE is UINT's


def unbounded(pattern: str) -> str:
    """`pattern` with its numbers of any size (NUMBER and POSITIVE_NUMBER made UINT and
    POSITIVE): a field that matches this but not `pattern` holds a number out of range."""
    return pattern.replace(POSITIVE_NUMBER, POSITIVE)


class Column(NamedTuple):
    name: str
    sql_type: str  # type DuckDB reads the raw text as ("INTEGER" or "VARCHAR")
    pattern: str  # the whole text of the field must match
    what: str  # how an error message names the expected content


class Format(NamedTuple):
    """A headerless comma-separated file with a fixed list of columns."""

    name: str
    columns: tuple[Column, ...]

    def check(self, path: str | Path, line: int, text: str) -> list[str]:
        """Split one line into its fields, or raise naming the first field that is wrong."""
        # DuckDB's reader skips such a line: say which it is. It counts bytes, so a line of
        # few characters but many bytes each was only "DuckDB could not read every line".
        if len(text) > MAX_LINE // 4 and len(text.encode()) > MAX_LINE:
            raise LogFormatError(
                path,
                line,
                f"a line of {len(text.encode()):,} bytes (a log line has at most {MAX_LINE:,})",
            )
        fields = text.split(",")
        if len(fields) != len(self.columns):
            raise LogFormatError(
                path, line, f"expected {len(self.columns)} columns, found {len(fields)}"
            )
        for number, (field, column) in enumerate(zip(fields, self.columns, strict=True), 1):
            if not _compiled(column.pattern).fullmatch(field):
                wrong = "holds a number out of range"
                if not _compiled(unbounded(column.pattern)).fullmatch(field):
                    wrong = f"is not {column.what}"
                reason = f"{column.name} {shown(field)} {wrong}"
                raise LogFormatError(path, line, reason, column=number)
            if column.sql_type == "INTEGER" and (
                len(field) > len(str(INTEGER_MAX)) or int(field) > INTEGER_MAX
            ):  # a huge number's digits are not even converted
                raise LogFormatError(
                    path, line, f"{column.name} {shown(field)} is out of range", column=number
                )
        return fields


def shown(field: str) -> str:
    """A field as an error message quotes it: its repr, cut short."""
    return repr(field) if len(field) <= SHOWN else f"{field[:SHOWN]!r}… ({len(field):,} characters)"


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    if pattern not in _PATTERNS:
        _PATTERNS[pattern] = re.compile(pattern)
    return _PATTERNS[pattern]


BOM = b"\xef\xbb\xbf"


def file_problem(data: bytes) -> tuple[int | None, str] | None:
    """What makes these bytes unreadable as a log as a whole, as (line, reason), or None.

    These are the checks that do not depend on the format: the ingest runs them on every
    file before DuckDB reads it, with byte-level searches rather than a loop over rows.
    """
    if not data:
        return 1, "empty file"
    if data.startswith(BOM):
        return 1, "file starts with a byte-order mark (BOM); the server writes plain ASCII"
    nul = data.find(b"\x00")
    if nul >= 0:
        return _line_of(data, nul), "binary content (NUL byte); not a CSV log"
    if not data.isascii():  # the server writes ASCII; anything else must at least be UTF-8
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as error:
            return _line_of(data, error.start), f"not UTF-8 text ({error.reason})"
    cr = _LONE_CR.search(data)
    if cr:
        return _line_of(data, cr.start()), "carriage return (CR) inside a line"
    if _BLANK.search(data):  # either kind in one pass, half the CPU of two `find`s
        for blank in (b"\n\n", b"\n\r\n"):
            at = data.find(blank)
            if at >= 0:
                return _line_of(data, at) + 1, "empty line"
    if data.startswith((b"\n", b"\r\n")):
        return 1, "empty line"
    if not data.endswith(b"\n"):
        return _line_of(data, len(data) - 1), "truncated last line (no line ending)"
    return None


_LONE_CR = re.compile(rb"\r(?!\n)")
_BLANK = re.compile(rb"\n\r?\n")


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def read_lines(path: str | Path, data: bytes | None = None) -> Iterator[tuple[int, str]]:
    """(line number, text without its LF or CRLF) for every line of a well-formed file:
    the one at `path`, or `data` read from it."""
    data = Path(path).read_bytes() if data is None else data
    problem = file_problem(data)
    if problem:
        raise LogFormatError(path, *problem)
    text = data.decode("utf-8")
    for number, line in enumerate(text.split("\n")[:-1], 1):
        yield number, line[:-1] if line.endswith("\r") else line


def typed(fmt: Format, fields: list[str], **convert: Callable[[str], object]) -> list:
    """Checked fields as a record's values: a column named in `convert` by its function,
    an INTEGER column as an int, text as it is."""
    return [
        convert[c.name](f) if c.name in convert else int(f) if c.sql_type == "INTEGER" else f
        for f, c in zip(fields, fmt.columns, strict=True)
    ]


def flag(text: str) -> bool:
    """A FLAG field: 1 is true."""
    return text == "1"


def numbers(text: str) -> tuple[int, ...]:
    """A field of numbers joined by `;` (dice, heaps, points); empty: none."""
    return tuple(int(n) for n in text.split(";")) if text else ()


def joined(values: Iterable[object]) -> str:
    """Values as a field joins them: by `;`."""
    return ";".join(map(str, values))


def reader(fmt: Format, build: Callable[[list[str]], Any]) -> Callable[..., Iterator]:
    """`read(path)`: the file's records, built by `build` from each line's checked fields
    (`read(path, data)`: of the bytes `data` read from it)."""

    def read(path: str | Path, data: bytes | None = None) -> Iterator:
        for number, line in read_lines(path, data):
            fields = fmt.check(path, number, line)
            try:
                yield build(fields)
            except ValueError as error:
                raise LogFormatError(path, number, str(error)) from error

    return read


def writer(fields: Callable[[Any], Sequence[object]]) -> Callable[[str | Path, Iterable], None]:
    """`write(path, records)`: each record's `fields` as a line the server would write."""

    def write(path: str | Path, records: Iterable) -> None:
        with open(path, "w", newline="", encoding="utf-8") as out:
            out.writelines(map(line, map(fields, records)))

    return write


def line(row: Sequence[object]) -> str:
    """A row the way the game server writes it: comma-separated, CRLF line ending."""
    return ",".join(map(str, row)) + "\r\n"


SCORE_SUFFIX = "-score"


def pair_paths(directory: str | Path, stem: str) -> tuple[Path, Path]:
    """The turn file and the score file of a game: `<stem>.csv` and `<stem>-score.csv`."""
    directory = Path(directory)
    return directory / f"{stem}.csv", directory / f"{stem}{SCORE_SUFFIX}.csv"


# A log pair appears whole or not at all: its writer writes `partial_pair`'s files and
# `publish_pair` renames them onto the pair's names when both are complete. A run that is
# killed leaves partial files only, which ingest never reads (their names do not end in
# .csv) and the next run writing into that folder removes.


def partial_pair(directory: str | Path, stem: str) -> tuple[Path, Path]:
    """The files to write a pair into (hidden, named for this process), after removing
    the partial files of killed runs from `directory` (once per folder and process)."""
    turns, scores = pair_paths(directory, stem)
    folder = turns.parent.resolve()
    if folder not in _SWEPT:
        outputs.remove_stale_partials(turns, "*.csv")
        _SWEPT.add(folder)
    return outputs.partial_name(turns), outputs.partial_name(scores)


def publish_pair(directory: str | Path, stem: str) -> tuple[Path, Path]:
    """Rename the pair's partial files onto its names; the final paths."""
    final = pair_paths(directory, stem)
    for place in final:
        os.replace(outputs.partial_name(place), place)
    return final


_SWEPT: set[Path] = set()  # folders whose stale partial files this process removed

"""`mine ingest`: log files into the warehouse, whole pairs or nothing, once per content.

How a batch goes in, in one transaction:
1. every file is read once in Python for its hash, its line count and the checks that
   concern the file as a whole (empty, BOM, binary, truncated) — byte searches, no row loop;
2. DuckDB's CSV reader stores each line whole, in file order (so `rowid` gives the line),
   and SQL cuts the fields into typed staging tables, marking each row sound or not (the
   format's patterns, the game's row rules);
3. the game's consistency checks run as SQL over the staging tables, and (unless
   `verify=False`) each well-formed log is replayed through the game's rules: its module's
   `replay`, one ordered pass a log through the engine's rule functions, a large batch's
   logs in tasks a runner runs (`replay.py`);
4. the pairs that passed go into the game's tables; a pair with an unsound row, a line
   DuckDB could not read or a broken rule is read again field by field, and the same
   checks (or the Python parser) name its first bad line and column;
5. every file is recorded in the manifest.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import duckdb

from mine.inputs import shown, size, storable
from mine.parsers.csvlog import (
    MAX_LINE,
    POSITIVE,
    SCORE_SUFFIX,
    SHOWN,
    Format,
    file_problem,
    unbounded,
)
from mine.parsers.errors import LogFormatError
from mine.strategies.runners import SERIAL, Runner
from mine.warehouse import schema
from mine.warehouse.watch import BatchWatch, Progress

if TYPE_CHECKING:  # polars loads when a game's rules are replayed
    import polars as pl

BATCH_BYTES = 16 * 1024 * 1024
"""Bytes of logs staged at once: bounds memory whatever the corpus size (a batch's staged
rows and the frames its replay reads are held whole). Chosen when the rules were SQL, whose
intermediates held about twenty times a batch's bytes; not measured again since the rules
are replayed."""
LOG_BYTES = 4 << 30
"""A log file past this is not one: mine's largest (a Hog match of a million games of
always_roll:1) holds about 1.5 GB, and ingest holds a file's bytes whole."""
NOT_A_FILE = "not a file (a FIFO, a socket, or a link to nothing)"
NO_NULLS = "\\x1fnull"  # empty fields stay empty strings, never NULL
GLOB_CHARACTERS = "*?["
RUNS_SLICED = 10_000
"""Runs of staged rows (a file's lines in a row) up to which they are put in order by
slicing rather than the rows sorted."""
LINE_DELIMITER = "\\x01"  # no log has it: each line is read as one field
QUOTE = "''''"  # a SQL string literal holding one quote mark


MANIFEST_ROW = {
    "path": "VARCHAR",
    "stem": "VARCHAR",
    "game": "VARCHAR",
    "role": "VARCHAR",
    "sha256": "VARCHAR",
    "bytes": "BIGINT",
    "rows": "BIGINT",
    "outcome": "VARCHAR",
    "log_id": "INTEGER",
    "error": "VARCHAR",
}
"""A manifest row's fields as `_manifest_row` gives them, and their types."""


class WarehouseWriteError(RuntimeError):
    """The warehouse could not take a batch (a full disk): the batch did not land, the
    batches before it did."""


@dataclass
class LogFile:
    path: Path
    role: str  # "turns" or "scores"
    sha256: str = ""
    bytes: int = 0
    lines: int = 0
    first_line: str = ""
    problem: LogFormatError | None = None
    source: str = ""  # the path DuckDB's readers are given for this file

    @property
    def text(self) -> str:
        """The path as the warehouse records it (a file name is data: one that is not
        UTF-8 is recorded with its odd bytes as `\\xff`)."""
        return storable(str(self.path))

    def read(self, aside: Path | None = None) -> None:
        """Hash and check the file and, given `aside` (a folder of ours), choose what
        DuckDB's readers are handed for it."""
        try:
            data = _log_bytes(self.path)
        except OSError as error:
            self.problem = LogFormatError(self.path, None, f"cannot read it ({_why(error)})")
            return
        except ValueError as error:
            self.problem = LogFormatError(self.path, None, str(error))
            return
        self.sha256 = hashlib.sha256(data).hexdigest()
        self.bytes = len(data)
        self.lines = data.count(b"\n")
        found = file_problem(data)
        if found:
            self.problem = LogFormatError(self.path, *found)
            return
        end = data.find(b"\n")
        self.first_line = data[:end].rstrip(b"\r").decode("utf-8")
        self.source = str(self.path)
        if aside is None:
            return
        crlf = data.count(b"\r\n")
        if 0 < crlf < self.lines:
            # DuckDB's reader takes one line ending per file; the Python parser (and the
            # server's readers) take either: the same lines with one ending are read.
            data = data.replace(b"\r\n", b"\n")
        # DuckDB reads the bytes hashed and checked here, not the file again: one written
        # to meanwhile landed its new rows under these bytes' hash, and once it held these
        # bytes again, the next ingest found it unchanged and kept the other rows.
        self.source = _aside(aside, self.path, data)


@dataclass
class Pair:
    stem: str
    turns: LogFile
    scores: LogFile
    game: str = ""
    outcome: str = ""  # new, unchanged, replaced, rejected
    error: LogFormatError | None = None
    log_id: int | None = None
    replaces: list[int] = field(default_factory=list)
    copy_of: Pair | None = None  # an earlier pair of the same batch with the same content
    known: bool = False  # its content is in the warehouse already

    @property
    def lands(self) -> bool:
        """Whether its content is new to the warehouse (and not rejected)."""
        return self.outcome in ("new", "replaced") and not self.known and self.copy_of is None

    @property
    def files(self) -> tuple[LogFile, LogFile]:
        return self.turns, self.scores

    @property
    def content_sha256(self) -> str:
        return hashlib.sha256(f"{self.turns.sha256}:{self.scores.sha256}".encode()).hexdigest()

    def reject(self, error: LogFormatError) -> None:
        self.outcome, self.error = "rejected", error


@dataclass
class Summary:
    pairs: list[Pair] = field(default_factory=list)
    unread: list[LogFormatError] = field(default_factory=list)  # paths, folders not read
    orphans: list[LogFormatError] = field(default_factory=list)  # files without their pair
    rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    verified: bool = True  # whether each game's rules were replayed over its logs
    rules: Mapping[str, object] = field(default_factory=dict)  # game → its rules, if not default

    def count(self, outcome: str) -> int:
        return sum(1 for pair in self.pairs if pair.outcome == outcome)

    @property
    def errors(self) -> list[LogFormatError]:
        return self.unread + self.orphans + [pair.error for pair in self.pairs if pair.error]

    @property
    def ok(self) -> bool:
        return not self.errors

    def as_json(self) -> dict:
        return {
            "ok": self.ok,
            "verified": self.verified,
            "seconds": round(self.seconds, 3),
            "pairs": {o: self.count(o) for o in ("new", "unchanged", "replaced", "rejected")},
            "rows": self.rows,
            "errors": [str(error) for error in self.errors],
            "files": [
                {
                    "stem": storable(p.stem),
                    "game": p.game,
                    "outcome": p.outcome,
                    "log_id": p.log_id,
                    "turns": p.turns.text,
                    "scores": p.scores.text,
                    "error": str(p.error) if p.error else None,
                }
                for p in self.pairs
            ],
        }


# --- finding and pairing files ---------------------------------------------------------------


def find_files(paths: Iterable[str | Path]) -> tuple[list[Path], list[LogFormatError]]:
    """Files, folders (recursively, through symlinks) and globs → the CSV files they name,
    in a stable order; a file reached twice counts once."""
    found: dict[Path, Path] = {}
    missing = []
    for given in map(str, paths):
        said = len(missing)
        try:
            matches = _matches(given, missing)
        except OSError as error:  # a name too long, a loop of links
            missing.append(LogFormatError(given, None, f"cannot read it ({_why(error)})"))
            continue
        except RecursionError:  # glob's `**` recurses (Python 3.11), a folder's walk does not
            reason = "its folders nest too deep for a ** pattern: give the folder itself"
            missing.append(LogFormatError(given, None, reason))
            continue
        if not matches and len(missing) == said:  # a folder it could not read is said once
            empty = "no CSV file in this folder" if Path(given).is_dir() else None
            missing.append(
                LogFormatError(given, None, empty or "no such file, folder or matching file")
            )
        for match in sorted(matches):
            found.setdefault(match.resolve(), match.absolute())
    return _recordable(list(found.values()), missing), missing


def _recordable(files: list[Path], refused: list[LogFormatError]) -> list[Path]:
    """The files whose paths the warehouse tells apart: a name that is not UTF-8 is
    recorded with `\\xff` for its odd byte, so it is refused (into `refused`) when
    another file's name reads so."""
    named: dict[str, Path] = {}
    for path in files:
        first = named.setdefault(storable(str(path)), path)
        if first is not path:
            reason = f"its name, not UTF-8, reads as {shown(str(first))}'s: rename one"
            refused.append(LogFormatError(path, None, reason))
    return list(named.values())


def _matches(given: str, unreadable: list[LogFormatError]) -> list[Path]:
    path = Path(given)
    # A name that exists is taken as it is, even if it holds glob characters.
    if path.is_file():
        return [path]
    if path.is_dir():
        return _csv_files_under(path, unreadable)
    if any(ch in given for ch in GLOB_CHARACTERS):
        return [Path(m) for m in glob.glob(given, recursive=True) if Path(m).is_file()]
    return []


def _csv_files_under(folder: Path, unreadable: list[LogFormatError]) -> list[Path]:
    """The CSV files under `folder`, following symlinked folders once each; a folder that
    cannot be listed, or a `.csv` that is not a file, goes to `unreadable`. Walked without
    recursion (Python 3.11's os.walk recurses: a tree a thousand folders deep was a
    RecursionError), each folder known by its inode (a resolve() a folder cost as many
    look-ups as the folder is deep: minutes for a deep tree)."""
    files: list[Path] = []
    seen: set[tuple[int, int]] = set()
    stack = [folder]
    while stack:
        root = stack.pop()
        try:
            held = root.stat()
            with os.scandir(root) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as error:
            where = error.filename or root
            unreadable.append(
                LogFormatError(where, None, f"cannot read this folder ({_why(error)})")
            )
            continue
        if (held.st_dev, held.st_ino) in seen:  # a link back up the tree
            continue
        seen.add((held.st_dev, held.st_ino))
        below = []
        for entry in entries:
            path = root / entry.name
            if _is(entry.is_dir):
                below.append(path)
            elif not entry.name.endswith(".csv"):
                continue
            elif _is(entry.is_file):
                files.append(path)
            else:
                unreadable.append(LogFormatError(path, None, NOT_A_FILE))
        stack.extend(reversed(below))  # the first folder next: the order os.walk gave
    return files


def _is(kind: Callable[[], bool]) -> bool:
    """A folder entry's `is_dir` or `is_file` (through a link), False where it cannot be
    looked at (a name past the length of a path)."""
    try:
        return kind()
    except OSError:
        return False


def _aside(folder: Path, path: Path, data: bytes) -> str:
    """A file in `folder` (ingest's own, removed after it) of `data`, which DuckDB reads as
    `path`'s. Its name is a plain one: DuckDB's readers take a name as a glob pattern (`*`,
    `?`, `[`, with `\\` escaping them), and no escaping reads every name as it is."""
    alias = folder / (hashlib.sha256(os.fsencode(path)).hexdigest()[:32] + ".csv")
    alias.write_bytes(data)
    return str(alias)


def _log_bytes(path: Path) -> bytes:
    """The bytes of a log file, read whole. Refused unread: one past LOG_BYTES (read, it was
    a MemoryError's traceback, or the machine's memory, and no pair of the batch landed),
    and one that is no longer a regular file (swapped for a FIFO since the listing, its read
    waited for a writer: the open does not wait)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(descriptor, "rb") as file:
        held = os.fstat(descriptor)
        if not stat.S_ISREG(held.st_mode):
            raise ValueError(NOT_A_FILE)
        if held.st_size > LOG_BYTES:
            raise ValueError(
                f"{size(held.st_size)}, more than a log holds (mine reads at most {size(LOG_BYTES)})"
            )
        os.set_blocking(descriptor, True)
        return file.read()


def _why(error: OSError) -> str:
    return error.strerror or str(error)


def pair_files(files: Iterable[Path]) -> tuple[list[Pair], list[LogFormatError]]:
    """`<stem>.csv` goes with `<stem>-score.csv` in the same folder."""
    found: dict[str, dict[tuple[Path, str], Path]] = {"turns": {}, "scores": {}}
    for path in files:
        stem, role = _stem_and_role(path)
        found[role][(path.parent, stem)] = path
    turns, scores = found["turns"], found["scores"]
    pairs, orphans = [], []
    for key in sorted(turns.keys() | scores.keys(), key=lambda k: (str(k[0]), k[1])):
        if key in turns and key in scores:
            pairs.append(Pair(key[1], LogFile(turns[key], "turns"), LogFile(scores[key], "scores")))
        elif key in turns:
            orphans.append(LogFormatError(turns[key], None, f"unpaired: no {key[1]}-score.csv"))
        else:
            orphans.append(LogFormatError(scores[key], None, f"unpaired: no {key[1]}.csv"))
    return pairs, orphans


def _stem_and_role(path: Path) -> tuple[str, str]:
    """`<stem>.csv` is a turn file, `<stem>-score.csv` a score file."""
    name = path.name[: -len(path.suffix)] if path.suffix else path.name
    if name.endswith(SCORE_SUFFIX):
        return name[: -len(SCORE_SUFFIX)], "scores"
    return name, "turns"


def detect_game(pair: Pair, formats: dict[str, ModuleType]) -> str | LogFormatError:
    """The one game whose turn format the first line fits."""
    fits, misfits = [], []
    for game, module in formats.items():
        try:
            module.TURNS.check(pair.turns.path, 1, pair.turns.first_line)
            fits.append(game)
        except LogFormatError as error:
            misfits.append(f"{game}: {error.reason}")
    if len(fits) == 1:
        return fits[0]
    if fits:
        return LogFormatError(
            pair.turns.path, 1, f"ambiguous: fits {' and '.join(fits)}; choose with --game"
        )
    return LogFormatError(
        pair.turns.path, 1, "matches no known log format (" + "; ".join(misfits) + ")"
    )


# --- staging -------------------------------------------------------------------------------


def _csv_columns(fmt: Format) -> str:
    return "{" + ", ".join(f"'{c.name}': '{c.sql_type}'" for c in fmt.columns) + "}"


def _stage(
    con: duckdb.DuckDBPyConnection,
    role: str,
    fmt: Format,
    checks: tuple[tuple[str, str], ...],
    pairs: list[Pair],
) -> None:
    """`stage_<role>`: the pairs' `role` files as typed rows with log_id, line, and whether
    the row is sound (fits its format and breaks no row rule).

    DuckDB's reader stores each line whole, in file order, so a row's line is its distance
    from its file's first row; SQL then cuts the fields. One column per line costs much
    less to read and store than one per field."""
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE stage_{role}_lines AS
        SELECT file_index, text
        FROM read_csv($paths, columns = {{'text': 'VARCHAR'}}, header = false,
                      delim = '{LINE_DELIMITER}', quote = '', escape = '', auto_detect = false,
                      ignore_errors = true, strict_mode = true, nullstr = '{NO_NULLS}')
        """,
        {"paths": [getattr(p, role).source for p in pairs]},
    )
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE stage_{role}_files AS
        SELECT ($log_ids)[CAST(file_index AS BIGINT) + 1] AS log_id, file_index,
               min(rowid) AS first_rowid, count(*) AS rows
        FROM stage_{role}_lines GROUP BY file_index
        """,
        {"log_ids": [p.log_id for p in pairs]},
    )
    fields = ", ".join(
        f"fields[{number}] AS {c.name}"
        if c.sql_type == "VARCHAR"
        else f"TRY_CAST(fields[{number}] AS {c.sql_type}) AS {c.name}"
        for number, c in enumerate(fmt.columns, 1)
    )
    line = ",".join(f"(?:{c.pattern})" for c in fmt.columns)
    typed = [f"{c.name} IS NOT NULL" for c in fmt.columns if c.sql_type != "VARCHAR"]
    broken = [f"({condition})" for condition, _ in checks] or ["false"]
    sound = f"well_formed AND {' AND '.join(typed)} AND NOT ({' OR '.join(broken)})"
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE stage_{role} AS
        SELECT * EXCLUDE (well_formed), coalesce({sound}, false) AS sound
        FROM (
            SELECT f.log_id, CAST(r.rowid - f.first_rowid + 1 AS INTEGER) AS line, {fields},
                   strlen(r.text) <= {MAX_LINE} AND regexp_full_match(r.text, '{line}')
                       AS well_formed
            FROM (SELECT rowid, file_index, text, string_split(text, ',') AS fields
                  FROM stage_{role}_lines) r
            JOIN stage_{role}_files f USING (file_index)
        )
        """
    )
    con.execute(f"DROP TABLE stage_{role}_lines")  # its memory is wanted for the load


def _stage_fields(
    con: duckdb.DuckDBPyConnection, role: str, fmt: Format, files: list[LogFile]
) -> None:
    """`stage_<role>` as DuckDB's typed reader gives the rows, to say what is wrong with a
    pair that the line checks flagged: the same checks then name the line and column."""
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE stage_{role}_rows AS
        SELECT * FROM read_csv(?, columns = {_csv_columns(fmt)}, header = false,
                               delim = ',', quote = '', escape = '', filename = true,
                               auto_detect = false, ignore_errors = true,
                               null_padding = false, strict_mode = true,
                               nullstr = '{NO_NULLS}')
        """,
        [[f.source for f in files]],
    )
    # A join inside the read would not keep the files' order, so the numbering comes after.
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE stage_{role}_files AS
        SELECT filename, min(r.rowid) AS first_rowid, count(*) AS rows,
               any_value(b.log_id) AS log_id
        FROM stage_{role}_rows r JOIN batch_files b ON b.path = filename GROUP BY filename
        """
    )
    names = ", ".join(c.name for c in fmt.columns)
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE stage_{role} AS
        SELECT f.log_id, CAST(r.rowid - f.first_rowid + 1 AS INTEGER) AS line, {names}
        FROM stage_{role}_rows r JOIN stage_{role}_files f USING (filename)
        """
    )


def _fields_sound(fmt: Format) -> str:
    """SQL: every field of the row fits its column's declaration."""
    sound = [
        f"{c.name} >= {1 if c.pattern == POSITIVE else 0}"
        for c in fmt.columns
        if c.sql_type != "VARCHAR"
    ]
    # One regular expression over all text fields costs less than one per field; only a
    # row that fails it is taken apart field by field.
    text = [c for c in fmt.columns if c.sql_type == "VARCHAR"]
    joined = "concat_ws(',', " + ", ".join(c.name for c in text) + ")"
    whole = ",".join(f"(?:{c.pattern})" for c in text)
    return " AND ".join([*sound, f"regexp_full_match({joined}, '{whole}')"])


def _row_problem(fmt: Format, checks: tuple[tuple[str, str], ...]) -> str:
    """SQL for the first field of a row that breaks its column's declaration, or else the
    first of the game's row rules it breaks, as {reason, column}; NULL for a good row."""
    fields = []
    for number, column in enumerate(fmt.columns, 1):
        what = column.what.replace("'", "''")
        if column.sql_type == "VARCHAR":
            loose = unbounded(column.pattern)
            wrong = [(f"is not {what}", loose)]
            if loose != column.pattern:  # as Format.check tells them apart
                wrong.append(("holds a number out of range", column.pattern))
            wrong = [(why, f"NOT regexp_full_match({column.name}, '{p}')") for why, p in wrong]
            shown = column.name
        else:
            wrong = [
                (f"is not {what}", f"{column.name} < {1 if column.pattern == POSITIVE else 0}")
            ]
            shown = f"CAST({column.name} AS VARCHAR)"
        shown = (
            f"CASE WHEN length({shown}) <= {SHOWN} THEN {QUOTE} || {shown} || {QUOTE} "
            f"ELSE format({QUOTE} || left({shown}, {SHOWN}) || {QUOTE} || '… ({{:,}} characters)', "
            f"length({shown})) END"
        )
        for why, bad in wrong:
            reason = f"format('{column.name} {{}} {why}', {shown})"
            fields.append(f"WHEN {bad} THEN {{'reason': {reason}, 'column': {number}}}")
    rules = [
        f"WHEN {condition} THEN {{'reason': {reason}, 'column': NULL::INTEGER}}"
        for condition, reason in checks
    ]
    valid_row = f"CASE {' '.join(rules)} END" if rules else "NULL"
    return f"CASE WHEN {_fields_sound(fmt)} THEN {valid_row} ELSE CASE {' '.join(fields)} END END"


def _row_checks(role: str, fmt: Format, checks: tuple[tuple[str, str], ...]) -> str:
    """SQL giving each staged log's first row with a problem."""
    return f"""
        SELECT log_id, '{role}' AS role, min(line) AS line,
               arg_min(problem.reason, line) AS reason, arg_min(problem.column, line) AS "column"
        FROM (SELECT log_id, line, {_row_problem(fmt, checks)} AS problem FROM stage_{role})
        WHERE problem IS NOT NULL
        GROUP BY log_id
    """


def _first_errors(
    con: duckdb.DuckDBPyConnection, module: ModuleType, pairs: dict[int, Pair]
) -> dict[int, LogFormatError]:
    """The first format or consistency problem of every staged pair that has one."""
    errors: dict[int, LogFormatError] = {}
    counts = con.execute(
        """
        SELECT b.log_id, b.role, b.lines, coalesce(s.rows, 0)
        FROM batch_files b LEFT JOIN (
            SELECT log_id, 'turns' AS role, rows FROM stage_turns_files
            UNION ALL
            SELECT log_id, 'scores', rows FROM stage_scores_files
        ) s USING (log_id, role)
        ORDER BY log_id, role = 'scores'
        """
    ).fetchall()
    for log_id, role, lines, rows in counts:
        if rows != lines and log_id in pairs and log_id not in errors:
            # DuckDB dropped rows it could not read: the parser says which and why.
            log = getattr(pairs[log_id], role)
            errors[log_id] = _parse_error(module, log) or LogFormatError(
                log.path, None, "DuckDB could not read every line of this file"
            )
    checks = getattr(module, "ROW_CHECKS", {})
    queries = [
        *(
            _row_checks(role, getattr(module.FORMAT, role.upper()), checks.get(role, ()))
            for role in ("turns", "scores")
        ),
        f'SELECT log_id, role, line, reason, NULL AS "column" FROM ({module.CHECKS})',
    ]
    # A row that breaks its format comes first: what the file-wide checks make of a broken
    # row (a round of -1 out of order) is not the error.
    for tier in (queries[:2], queries[2:]):
        for log_id, error in _problems(con, tier, pairs):
            errors.setdefault(log_id, error)
    return errors


def rule_problems(
    con: duckdb.DuckDBPyConnection, module: ModuleType, log_ids: list[int], rules: object = None
) -> list[tuple]:
    """Every broken rule of these staged logs: (log_id, role, line, reason)."""
    replayed = _replayed(con, module, log_ids, rules, every=True)
    return [(log_id, *problem) for log_id, found in replayed.items() for problem in found]


def _replayed(
    con: duckdb.DuckDBPyConnection,
    module: ModuleType,
    log_ids: list[int],
    rules: object,
    runner: Runner = SERIAL,
    every: bool = False,
) -> dict[int, list[tuple[str, int, str]]]:
    """The staged logs of `log_ids` replayed through their game's rules (`replay.replayed`,
    in tasks `runner` runs): each replayed log's broken rules, the one to report first
    first. Every log of `log_ids` is replayed if `every`, else those the game's
    `suspects` names."""
    # Here: a plain ingest (--no-verify) starts without polars.
    from mine.warehouse import replay

    if not log_ids:
        return {}
    settings = rules if rules is not None else module.RULES()
    turns, scores = (_staged_rows(con, module, role, log_ids) for role in ("turns", "scores"))
    return replay.replayed(module.GAME, settings, turns, scores, runner, every)


def _staged_rows(
    con: duckdb.DuckDBPyConnection, module: ModuleType, role: str, log_ids: list[int]
) -> pl.DataFrame:
    """The staged rows of `role` of these logs (log_id, line, the format's columns), each
    log's after the other in line order."""
    import polars as pl

    names = ", ".join(c.name for c in getattr(module.FORMAT, role.upper()).columns)
    # Read whole, in the order staged, and filtered and ordered here: a third of the CPU of
    # DuckDB's filter and sort.
    rows = pl.from_arrow(
        con.sql(f"SELECT log_id, line, {names} FROM stage_{role}").to_arrow_table()
    )
    return _by_log_and_line(rows.filter(pl.col("log_id").is_in(log_ids)))


def _by_log_and_line(rows: pl.DataFrame) -> pl.DataFrame:
    """The rows each log's after the other, in line order (sorted only if the staged
    order is not that already: each file's lines in a run, in order)."""
    import polars as pl

    log, line = pl.col("log_id"), pl.col("line")
    starts = rows.select(((log != log.shift(1)) | log.shift(1).is_null()).sum()).item()
    stepped = rows.select(((line.diff() == 1) | (log != log.shift(1))).all()).item()
    if stepped and starts == rows["log_id"].n_unique():
        return rows
    # DuckDB's parallel staging splits a few files into runs out of place, each run still
    # lines in a row: the runs put in order are the sorted rows, copied not gathered.
    first = ((log != log.shift(1)) | (line.diff() != 1)).fill_null(True)
    runs = rows.select(
        log.filter(first), line.filter(first), start=pl.int_range(pl.len()).filter(first)
    )
    if runs.height > RUNS_SLICED:  # rows in no order: a sort is quicker than many slices
        return rows.sort("log_id", "line")
    ends = runs["start"].shift(-1, fill_value=rows.height)
    runs = runs.with_columns(length=ends - runs["start"]).sort("log_id", "line")
    # one chunk, as a sort leaves it: the checks over a frame of many run slower
    slices = [rows.slice(start, length) for start, length in runs.select("start", "length").rows()]
    return pl.concat(slices, rechunk=True)


def _problems(
    con: duckdb.DuckDBPyConnection, queries: list[str], pairs: dict[int, Pair]
) -> Iterable[tuple[int, LogFormatError]]:
    """Each query's problems (log_id, role, line, reason, column), first line first."""
    problems = con.execute(
        " UNION ALL ".join(
            f'SELECT log_id, role, line, reason, "column" FROM ({q})' for q in queries
        )
        # the reason breaks a tie: two checks that name one line give the same one each time
        + " ORDER BY log_id, role = 'scores', line, reason"
    ).fetchall()
    for log_id, role, line, reason, column in problems:
        if log_id in pairs:
            yield log_id, LogFormatError(getattr(pairs[log_id], role).path, line, reason, column)


def _parse_error(module: ModuleType, *logs: LogFile) -> LogFormatError | None:
    """The first line the parser refuses in these files, in order (None: it takes them).
    It reads the bytes DuckDB read (their copy), not the file again: one written to since
    was judged by its new lines, and one swapped for a FIFO was waited on."""
    for log in logs:
        read = module.FORMAT.read_turns if log.role == "turns" else module.FORMAT.read_scores
        try:
            for _ in read(log.path, Path(log.source).read_bytes()):
                pass
        except LogFormatError as error:
            return error
    return None


# --- the transaction --------------------------------------------------------------------------


def _known_logs(con: duckdb.DuckDBPyConnection, pairs: list[Pair]) -> None:
    """Mark pairs whose content is already in, and find what changed content replaces."""
    existing, previous = held_logs(con, pairs)
    seen: dict[str, Pair] = {}
    for pair in pairs:
        content = pair.content_sha256
        if content in existing:
            pair.known, pair.log_id = True, existing[content][0]
        elif content in seen:  # lands, or not, as its first copy does
            pair.copy_of = seen[content]
        else:
            seen[content] = pair
        # What its files held before, if that was other content (even content already in
        # under another name): that log goes unless another file still holds it.
        old = {previous[f.text] for f in pair.files if f.text in previous}
        pair.replaces = sorted(old - {pair.log_id})
        if pair.replaces:
            pair.outcome = "replaced"
        else:
            pair.outcome = "unchanged" if pair.known or pair.copy_of else "new"


def held_logs(
    con: duckdb.DuckDBPyConnection, pairs: list[Pair]
) -> tuple[dict[str, tuple[int, str]], dict[str, int]]:
    """What a warehouse (or a lake) holds of these pairs: the log (id, game) of each
    content it holds, by content hash, and the log each file held before, by path."""
    contents = con.execute(
        "SELECT content_sha256, log_id, game FROM logs WHERE content_sha256 IN (SELECT unnest(?))",
        [[p.content_sha256 for p in pairs]],
    ).fetchall()
    files = con.execute(
        "SELECT path, log_id FROM manifest WHERE path IN (SELECT unnest(?)) AND log_id IS NOT NULL",
        [[f.text for p in pairs for f in p.files]],
    ).fetchall()
    return {content: (log_id, game) for content, log_id, game in contents}, dict(files)


def _record(con: duckdb.DuckDBPyConnection, pairs: list[Pair]) -> None:
    """Upsert every file of these pairs into the manifest, in one statement."""
    rows = []
    for pair in pairs:
        landed = pair.outcome != "rejected"
        for log in pair.files:
            log_id = pair.log_id if landed else None
            rows.append(_manifest_row(log, pair.stem, pair.game, pair.outcome, log_id, pair.error))
    _upsert_manifest(con, rows)


def _manifest_row(
    log: LogFile,
    stem: str,
    game: str | None,
    outcome: str,
    log_id: int | None,
    error: LogFormatError | None,
) -> dict:
    return {
        "path": log.text,
        "stem": storable(stem),
        "game": game or None,
        "role": log.role,
        "sha256": log.sha256 or None,
        "bytes": log.bytes,
        "rows": log.lines if log_id is not None else None,
        "outcome": outcome,
        "log_id": log_id,
        "error": str(error) if error else None,
    }


def _upsert_manifest(con: duckdb.DuckDBPyConnection, rows: list[dict]) -> None:
    # a list a column, unnested side by side: no arrow table to build (nor pyarrow to load)
    columns = ", ".join(
        f"unnest(${name}::{kind}[]) AS {name}" for name, kind in MANIFEST_ROW.items()
    )
    con.execute(
        f"""
        INSERT INTO manifest
        SELECT path, stem, game, role, sha256, bytes, rows, now(), outcome, log_id, error
        FROM (SELECT {columns})
        ON CONFLICT (path) DO UPDATE SET
            stem = excluded.stem, game = excluded.game, role = excluded.role,
            sha256 = excluded.sha256, bytes = excluded.bytes, rows = excluded.rows,
            ingested_at = excluded.ingested_at, outcome = excluded.outcome,
            log_id = coalesce(excluded.log_id, manifest.log_id), error = excluded.error
        """,
        {name: [row[name] for row in rows] for name in MANIFEST_ROW},
    )


def _record_unpaired(con: duckdb.DuckDBPyConnection, orphans: list[LogFormatError]) -> None:
    """Unpaired files in the manifest too: rejected, with their hash (a log they were part
    of stays, as its content is still somewhere)."""
    if not orphans:
        return
    rows = []
    for orphan in orphans:
        stem, role = _stem_and_role(Path(orphan.path))
        log = LogFile(Path(orphan.path), role)
        log.read()  # its hash (none if it cannot be read)
        rows.append(_manifest_row(log, stem, None, "rejected", None, orphan))
    _upsert_manifest(con, rows)


def _check_and_load(
    con: duckdb.DuckDBPyConnection,
    module: ModuleType,
    fresh: list[Pair],
    verify: bool,
    watch: BatchWatch,
    rules: object,
    runner: Runner,
) -> None:
    """Stage the pairs, load those that pass every check, reject the others with the
    first problem of each."""
    checks = getattr(module, "ROW_CHECKS", {})
    flagged = set()
    watch.doing("reading")
    for role in ("turns", "scores"):
        fmt = getattr(module.FORMAT, role.upper())
        _stage(con, role, fmt, checks.get(role, ()), fresh)
        unsound = f"SELECT DISTINCT log_id FROM stage_{role} WHERE NOT sound"
        flagged |= {row[0] for row in con.execute(unsound).fetchall()}
        rows = dict(con.execute(f"SELECT log_id, rows FROM stage_{role}_files").fetchall())
        flagged |= {p.log_id for p in fresh if rows.get(p.log_id, 0) != getattr(p, role).lines}
    watch.doing("checking", "checking the rules" if verify else None)
    flagged |= {row[0] for row in con.execute(f"SELECT log_id FROM ({module.CHECKS})").fetchall()}
    replayed = {}
    if verify:  # over the well-formed logs only
        well_formed = [p.log_id for p in fresh if p.log_id not in flagged]
        replayed = _replayed(con, module, well_formed, rules, runner)
        flagged |= {log_id for log_id, problems in replayed.items() if problems}
    suspects = [p for p in fresh if p.log_id in flagged]
    if suspects:  # LOAD takes whatever is staged
        for role in ("turns", "scores"):
            con.execute(
                f"DELETE FROM stage_{role} WHERE log_id IN (SELECT unnest(?))", [sorted(flagged)]
            )
    watch.doing("landing")
    for statement in module.LOAD.values():
        con.execute(statement)
    if suspects:
        _diagnose(con, module, suspects, verify, replayed)


def _diagnose(
    con: duckdb.DuckDBPyConnection,
    module: ModuleType,
    suspects: list[Pair],
    verify: bool,
    replayed: dict[int, list[tuple[str, int, str]]],
) -> None:
    """Reject each flagged pair with its first problem, read field by field; the parser
    speaks for what the typed reader let through."""
    _list_files(con, suspects)
    for role in ("turns", "scores"):
        fmt = getattr(module.FORMAT, role.upper())
        _stage_fields(con, role, fmt, [getattr(p, role) for p in suspects])
    by_id = {p.log_id: p for p in suspects}
    errors = _first_errors(con, module, by_id)
    # The rules are replayed over well-formed logs only: in a log whose rows or order are
    # broken, the first broken row is the error, not what it makes of the rules.
    broken_rules: dict[int, LogFormatError] = {}
    for log_id, problems in replayed.items():
        if problems and log_id in by_id:
            role, line, reason = problems[0]
            broken_rules[log_id] = LogFormatError(getattr(by_id[log_id], role).path, line, reason)
    for pair in suspects:
        error = errors.get(pair.log_id) or _parse_error(module, *pair.files)
        error = error or broken_rules.get(pair.log_id)
        pair.reject(
            error or LogFormatError(pair.turns.path, None, "breaks a rule no check could locate")
        )


def _list_files(con: duckdb.DuckDBPyConnection, pairs: list[Pair]) -> None:
    """`batch_files`: path, log id, role and line count of every file of these pairs."""
    files = [(f, p.log_id) for p in pairs for f in p.files]
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE batch_files AS
        SELECT unnest($paths) AS path, unnest($ids::INTEGER[]) AS log_id,
               unnest($roles) AS role, unnest($lines::BIGINT[]) AS lines
        """,
        {
            "paths": [f.source for f, _ in files],
            "ids": [log_id for _, log_id in files],
            "roles": [f.role for f, _ in files],
            "lines": [f.lines for f, _ in files],
        },
    )


def _drop_replaced(con: duckdb.DuckDBPyConnection, landed: list[Pair]) -> None:
    """What the files of these pairs held before goes, unless another file still holds
    it (from whichever game it was)."""
    stale = sorted({old for p in landed for old in p.replaces} - {p.log_id for p in landed})
    if not stale:
        return
    keep = still_held(con, stale, landed)
    drop = [log_id for log_id in stale if log_id not in keep]
    modules = schema.game_schemas()
    games = con.execute(
        "SELECT DISTINCT game FROM logs WHERE log_id IN (SELECT unnest(?))", [drop]
    ).fetchall()
    for (game,) in games:
        for table in modules[game].TABLES:
            con.execute(f"DELETE FROM {table} WHERE log_id IN (SELECT unnest(?))", [drop])
    con.execute("DELETE FROM logs WHERE log_id IN (SELECT unnest(?))", [drop])


def still_held(con: duckdb.DuckDBPyConnection, logs: list[int], pairs: list[Pair]) -> set[int]:
    """The logs of `logs` a file other than these pairs' still holds (in a warehouse's or
    a lake's manifest)."""
    return {
        log_id
        for (log_id,) in con.execute(
            "SELECT DISTINCT log_id FROM manifest WHERE log_id IN (SELECT unnest(?)) "
            "AND path NOT IN (SELECT unnest(?))",
            [logs, [f.text for p in pairs for f in p.files]],
        ).fetchall()
    }


def _land(
    con: duckdb.DuckDBPyConnection,
    module: ModuleType,
    batch: list[Pair],
    summary: Summary,
    watch: BatchWatch,
    runner: Runner = SERIAL,
) -> None:
    """Check and insert one batch of pairs of one game, in one transaction (its logs
    replayed in tasks `runner` runs)."""
    fresh = [p for p in batch if p.lands]
    drawn = con.execute(f"SELECT nextval('log_ids') FROM range({len(fresh)})").fetchall()
    for pair, (log_id,) in zip(fresh, drawn, strict=True):
        pair.log_id = log_id
    counts = [f"(SELECT count(*) FROM {table})" for table in module.TABLES]
    count_rows = "SELECT " + ", ".join(counts)
    con.execute("BEGIN TRANSACTION")
    try:
        before = con.execute(count_rows).fetchall()[0]
        if fresh:
            rules = summary.rules.get(module.GAME)
            _check_and_load(con, module, fresh, summary.verified, watch, rules, runner)
        good = [p for p in fresh if p.outcome != "rejected"]
        _follow_copies(batch)
        _drop_replaced(con, [p for p in batch if p.outcome != "rejected"])
        if good:
            con.execute(
                """
                INSERT INTO logs
                SELECT unnest($ids::INTEGER[]), $game, unnest($stems), unnest($contents),
                       unnest($turns::BIGINT[]), unnest($scores::BIGINT[]), now()
                """,
                {
                    "ids": [p.log_id for p in good],
                    "game": module.GAME,
                    "stems": [storable(p.stem) for p in good],
                    "contents": [p.content_sha256 for p in good],
                    "turns": [p.turns.lines for p in good],
                    "scores": [p.scores.lines for p in good],
                },
            )
            after = con.execute(count_rows).fetchall()[0]
            for table, old, new in zip(module.TABLES, before, after, strict=True):
                summary.rows[table] = summary.rows.get(table, 0) + new - old
        _record(con, batch)
        con.execute("COMMIT")
    except duckdb.InterruptException:  # Ctrl-C: not the pair's fault
        _rollback(con)
        raise KeyboardInterrupt from None
    except duckdb.Error as error:
        _rollback(con)
        if _cannot_write(error):  # not the pair's fault: no pair is rejected for it
            reason = str(error).strip().splitlines()[0]
            raise WarehouseWriteError(f"cannot write the warehouse ({reason})") from None
        if len(fresh) > 1:  # find the pair DuckDB cannot read by landing them one by one
            for pair in batch:
                _land(con, module, [pair], summary, watch, runner)
            return
        if not fresh:
            raise
        # DuckDB could not read the pair: the project's own reader names the line.
        pair = fresh[0]
        found = _parse_error(module, *pair.files)
        changed = None if found else schema.tampered(con)
        if changed:  # a log the reader takes, refused by a table changed by hand: not its fault
            raise WarehouseWriteError(schema.changed_said(changed)) from None
        pair.reject(found or LogFormatError(pair.turns.path, None, str(error).splitlines()[0]))
        con.execute("BEGIN TRANSACTION")
        _record(con, batch)
        con.execute("COMMIT")
    except BaseException:
        _rollback(con)
        raise


def _rollback(con: duckdb.DuckDBPyConnection) -> None:
    """Undo the open transaction, if DuckDB has not (a failed COMMIT rolls back itself)."""
    with contextlib.suppress(duckdb.TransactionException, duckdb.FatalException):
        con.execute("ROLLBACK")


def _cannot_write(error: duckdb.Error) -> bool:
    """Whether DuckDB failed at writing the warehouse (a full disk, no memory left, a
    commit that failed) rather than at reading a log."""
    kinds = duckdb.TransactionException | duckdb.OutOfMemoryException | duckdb.FatalException
    if isinstance(error, kinds):
        return True
    text = str(error)
    return isinstance(error, duckdb.IOException) and (
        "No space left" in text or "Could not write" in text or "Disk quota" in text
    )


def _follow_copies(batch: list[Pair]) -> None:
    """A pair whose content came earlier in the batch: the same log, or the same error in
    its own file."""
    for pair in batch:
        first = pair.copy_of
        if first is None:
            continue
        if first.error is not None:
            role = "scores" if Path(first.error.path) == first.scores.path else "turns"
            error = first.error
            pair.reject(
                LogFormatError(getattr(pair, role).path, error.line, error.reason, error.column)
            )
        else:
            pair.log_id = first.log_id


def _read(batch: list[Pair], aside: Path) -> None:
    for pair in batch:
        for log in pair.files:
            log.read(aside)


def _batches(pairs: list[Pair]) -> Iterable[list[Pair]]:
    batch: list[Pair] = []
    size = 0
    for pair in pairs:
        batch.append(pair)
        size += sum(_size(log.path) for log in pair.files)
        if size >= BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # gone or unreadable: reading it will say so
        return 0


def ingest(
    con: duckdb.DuckDBPyConnection,
    paths: Iterable[str | Path],
    game: str | None = None,
    progress: Progress | None = None,
    verify: bool = True,
    rules: Mapping[str, object] | None = None,
    runner: Runner = SERIAL,
) -> Summary:
    """Ingest every log pair under `paths`; return what happened to each.

    `verify`: replay each game's rules over its logs, under `rules[game]` (a game's rules
    dataclass) or else the game's default rules, a large batch's logs in tasks `runner`
    runs (a small one's in this process)."""
    started = time.perf_counter()
    schema.ensure(con)
    modules = schema.game_schemas()
    if game is not None and game not in modules:
        raise ValueError(f"unknown game {game!r} (known: {', '.join(modules)})")
    files, missing = find_files(paths)
    pairs, orphans = pair_files(files)
    _record_unpaired(con, orphans)
    summary = Summary(
        pairs=pairs, unread=missing, orphans=orphans, verified=verify, rules=dict(rules or {})
    )
    formats = {name: module.FORMAT for name, module in modules.items()}
    batches = list(_batches(pairs))
    watch = BatchWatch(con, progress)
    with contextlib.ExitStack() as cleanup:
        # Undone in reverse: the reader has stopped writing into `aside` before it goes (a
        # Ctrl-C or SIGTERM mid-read left a copy the removal had not seen, and its folder).
        aside = Path(tempfile.mkdtemp(prefix="mine-ingest-"))
        cleanup.callback(shutil.rmtree, aside, ignore_errors=True)
        # Reading and hashing the next batch overlaps with DuckDB landing this one.
        reader = cleanup.enter_context(ThreadPoolExecutor(max_workers=1))
        cleanup.enter_context(contextlib.closing(watch))
        ahead = reader.submit(_read, batches[0], aside) if batches else None
        for number, batch in enumerate(batches):
            ahead.result()
            if number + 1 < len(batches):
                ahead = reader.submit(_read, batches[number + 1], aside)
            watch.start(2 * len(batch), sum(p.turns.lines + p.scores.lines for p in batch))
            by_game: dict[str, list[Pair]] = {}
            for pair in batch:
                problem = pair.turns.problem or pair.scores.problem
                found = problem or game or detect_game(pair, formats)
                if isinstance(found, LogFormatError):
                    pair.reject(found)
                else:
                    pair.game = found
                    by_game.setdefault(found, []).append(pair)
            rejected = [p for p in batch if p.outcome == "rejected"]
            if rejected:
                con.execute("BEGIN TRANSACTION")
                _record(con, rejected)
                con.execute("COMMIT")
            for name, group in by_game.items():
                _known_logs(con, group)
                _land(con, modules[name], group, summary, watch, runner)
            for log in (log for pair in batch for log in pair.files):
                # a batch's copies (its bytes); a source elsewhere is a user's file
                if Path(log.source).parent == aside:
                    Path(log.source).unlink(missing_ok=True)
            watch.finish()
    summary.seconds = time.perf_counter() - started
    return summary

"""The lake: the warehouse as Parquet files in a folder that many machines write (a shared
file system) and DuckDB reads where they lie.

    LAKE/lake.json                                   what the lake holds (below)
    LAKE/<table>/bucket=<n>/part-<first>-<run>.parquet   one ingest task's rows of the logs
                                                     n·BUCKET_LOGS … (n+1)·BUCKET_LOGS - 1
    LAKE/stats_<game>_<name>/data-<run>.parquet      a statistics table, replaced whole

`lake.json` lists every file of every table, the next free log id and the logs that newer
content replaced; each commit writes it whole and renames it over the old one, so a
reader sees the lake before or after a commit, never between. A file it does not list is
no part of the lake (a killed run's): readers never open it, the next commit removes it
(a statistics table's file a new version replaced: its next store, for the readers that
read `lake.json` before).

Ingest (`ingest`) is today's ingest, in tasks: the driver pairs the files, has their
contents hashed, drops the contents the lake already holds, cuts the rest into shards of
about `SHARD_PAIRS` pairs, each with its own range of log ids, and hands them to a runner;
each task runs `warehouse.ingest` (rule checks and all) into a scratch DuckDB in memory
and writes what landed as Parquet, its ids moved into its range. Reading (`connect`) is
an in-memory DuckDB whose tables are views over the listed files, with every game's
schema (views, macros) made over them as in a warehouse file: the same SQL, the same
answers.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import stat
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from mine import __version__, inputs, outputs
from mine.parsers.errors import LogFormatError
from mine.warehouse import query, schema
from mine.warehouse.connection import MEMORY_LIMIT, in_memory
from mine.warehouse.query import identifier, quoted

if TYPE_CHECKING:  # ingest (and its reader, pyarrow) loads when a lake is written
    from mine.strategies.runners import Runner
    from mine.warehouse.ingest import Pair, Summary

LAKE_VERSION = 1
MANIFEST = "lake.json"
LOCK = ".lock"
SHARD_PAIRS = 1000
"""Pairs per ingest task: enough that a task's start (a DuckDB, the schema) is paid for,
few enough that a batch spreads over the workers and a file per task stays small."""
BUCKET_LOGS = 1000
"""Log ids per bucket folder: 10⁶ logs are a thousand folders per table, not 10⁶."""
HASH_FILES = 2000  # files hashed per task
MANIFEST_BYTES = 64_000_000
"""The most of `lake.json` a reader reads: about 900,000 files listed (10⁸ logs' worth)."""
PART = re.compile(r"part-(\d+)-([0-9a-f]{12})\.parquet")
DATA = re.compile(r"data-[0-9a-f]{12}\.parquet")  # a statistics table's one file
BUCKET = re.compile(r"bucket=\d{6,}")
OWN = ("logs", "manifest")  # the warehouse's own tables every task writes besides the game's


class LakeError(ValueError):
    """A folder that is no lake (of this layout), or one another process is writing."""


# How logs are bucketed (in Python and in SQL): the one place to change it.
def bucket_of(log_id: int) -> int:
    """The bucket folder of a log."""
    return log_id // BUCKET_LOGS


def _bucket_sql(log_id: str) -> str:
    return f"({log_id}) // {BUCKET_LOGS}"


# --- what the lake holds ----------------------------------------------------------------------


def read(lake: Path) -> dict:
    """The lake's `lake.json`, checked to be as mine writes it (a lake on shared storage
    may have been written by anyone); LakeError when `lake` holds none, another layout's,
    or one that is not mine's."""
    path = lake / MANIFEST
    if os.path.lexists(lake) and not lake.is_dir():  # a warehouse file, given as --lake?
        raise LakeError(f"{lake}: is a file, not a lake folder")
    try:
        os.lstat(path)
    except FileNotFoundError:
        raise LakeError(
            f"{lake}: no lake here yet (run `mine ingest LOGS --lake {lake}`)"
        ) from None
    except OSError as error:  # a folder closed to this user: a lake may well be there
        raise LakeError(f"{lake}: cannot read it ({error.strerror})") from None
    try:
        contents = inputs.read_json(path, MANIFEST_BYTES)
    except inputs.InputError as error:
        raise LakeError(f"{error}; not a lake's manifest") from None
    if not isinstance(contents, dict):
        raise LakeError(f"{path}: not a lake's manifest (not a JSON object)")
    if (contents.get("lake"), contents.get("layout_version")) != (LAKE_VERSION, schema.VERSION):
        raise LakeError(
            f"{lake}: a lake of layout {contents.get('layout_version')!r} (lake "
            f"{contents.get('lake')!r}); this mine reads layout {schema.VERSION} (lake "
            f"{LAKE_VERSION}): ingest the same logs into a new lake"
        )
    problem = _shape_problem(contents)
    if problem:
        raise LakeError(f"{path}: {problem}; not a manifest mine wrote (was it edited?)")
    return contents


def _shape_problem(contents: dict) -> str | None:
    """What in a manifest is not as mine writes it (None: nothing): every name a table of
    the warehouse's, every file one of mine's names in its table's folder, listed once,
    every number a count; nothing of it ever reaches SQL but checked so."""
    if not _count(contents.get("next_log_id")):
        return f"next_log_id is {contents.get('next_log_id')!r}, not a log id"
    retired = contents.get("retired")
    if not isinstance(retired, list) or not all(map(_count, retired)):
        return "retired is not a list of log ids"
    tables = contents.get("tables")
    if not isinstance(tables, dict):
        return "tables is not an object of tables"
    listed: set[str] = set()
    for name, entry in tables.items():
        if not _table_name(name):
            return f"{name!r} is no table mine writes"
        if not isinstance(entry, dict) or not isinstance(entry.get("files"), list):
            return f"table {name}: not an object with a list of files"
        if not isinstance(entry.get("comment", ""), str | None):
            return f"table {name}: its comment is not text"
        for file in entry["files"]:
            if not (isinstance(file, str) and _file_name(name, file)):
                return f"table {name} lists {file!r}, not a file mine writes in its folder"
            if file in listed:
                return f"{file} is listed twice"
            listed.add(file)
    return _copied_part(listed, contents["next_log_id"])


def _copied_part(files: Iterable[str], next_log_id: int) -> str | None:
    """A part whose logs another run's part holds too, or none ingest has given out yet: a
    part copied (each run's tasks take log ids no run had), which every reader would count
    twice."""
    runs: dict[int, str] = {}
    for file in sorted(files):
        match = PART.search(file)
        if match is None:
            continue
        first, run = int(match.group(1)), match.group(2)
        if first >= next_log_id:
            return f"{file} holds logs from {first} on, but next_log_id is {next_log_id}"
        other = runs.setdefault(first, run)
        if other != run:
            return f"parts of runs {other} and {run} both hold the logs from {first} on"
    return None


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _part_tables() -> tuple[str, ...]:
    """The tables an ingest task writes: the warehouse's own and every game's."""
    return (*OWN, *(t for module in schema.game_schemas().values() for t in module.TABLES))


def _table_name(name: object) -> bool:
    """Whether `name` is a table mine writes into a lake: an ingest's, or statistics."""
    games = "|".join(schema.game_schemas())
    return isinstance(name, str) and (
        name in _part_tables() or re.fullmatch(f"stats_({games})_[a-z0-9_]+", name) is not None
    )


def _file_name(table: str, file: str) -> bool:
    """Whether `file` is a name mine gives a file of `table` (relative to the lake)."""
    folder, _, rest = file.partition("/")
    if folder != table:
        return False
    if table in _part_tables():
        bucket, _, name = rest.partition("/")
        return BUCKET.fullmatch(bucket) is not None and PART.fullmatch(name) is not None
    return DATA.fullmatch(rest) is not None


def _empty() -> dict:
    return {
        "lake": LAKE_VERSION,
        "layout_version": schema.VERSION,
        "mine": __version__,
        "bucket_logs": BUCKET_LOGS,
        "read_with": "read_parquet(tables.<table>.files) of this manifest: a file it does "
        "not list is not in the lake",
        "next_log_id": 1,
        "retired": [],
        "tables": {},
    }


def _commit(lake: Path, contents: dict, run: str) -> None:
    """Write `lake.json` whole, then rename it over the old one (the commit)."""
    partial = lake / f".{MANIFEST}.{run}.partial"
    with open(partial, "w") as out:
        out.write(json.dumps({**contents, "mine": __version__}, indent=1) + "\n")
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, lake / MANIFEST)


@contextlib.contextmanager
def locked(lake: Path, wait: float = 60.0) -> Iterator[None]:
    """The lake to this process alone (one writer at a time), waiting up to `wait` s."""
    lake.mkdir(parents=True, exist_ok=True)
    path = lake / LOCK
    # Never waits to open (a FIFO put there), never follows a link out of the lake.
    flags = os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        lock = os.open(path, flags, 0o644)
    except OSError as error:
        raise LakeError(f"{path}: cannot open the lake's lock ({error.strerror})") from None
    try:
        if not stat.S_ISREG(os.fstat(lock).st_mode):
            raise LakeError(f"{path}: the lake's lock is not a regular file")
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LakeError(
                        f"{lake} is being written by another process (an ingest?); waited "
                        f"{wait:g} s. Try again when it has finished, or raise --wait."
                    ) from None
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    finally:
        os.close(lock)


def parts(contents: Mapping) -> list[str]:
    """The ingest tasks' parts of the lake (each a set of logs whole), in log order."""
    files = (file for entry in contents["tables"].values() for file in entry["files"])
    return sorted({part for part in map(_part_of, files) if part})


def _part_of(file: str) -> str | None:
    """The part a file belongs to (`part-<first>-<run>`; None: not one ingest task's)."""
    match = PART.search(file)
    return match.group(0)[: -len(".parquet")] if match else None


# --- reading: the lake as a warehouse ----------------------------------------------------------


def connect(
    lake: Path,
    *,
    sealed: bool = False,
    only: Iterable[str] | None = None,
    statistics: bool = True,
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB that reads the lake as the warehouse: each table a view over
    its files (`only` these parts, given), the games' views and macros over them.
    `sealed` for users' SQL: no file outside the lake, no extension, no setting changed;
    `statistics=False` leaves the stats tables out (for the command that writes them)."""
    lake = lake.resolve()
    contents = read(lake)
    chosen = None if only is None else set(only)
    sources = {
        name: [f for f in entry["files"] if chosen is None or _part_of(f) in (None, *chosen)]
        for name, entry in contents["tables"].items()
        if statistics or name in _part_tables()
    }
    for file in (f for files in sources.values() for f in files):
        _check_file(lake, file)
    outputs.reading(lake / MANIFEST, *(lake / f for files in sources.values() for f in files))
    con = in_memory()
    con.execute("SET enable_progress_bar = false")
    schema.ensure(con)  # every table (empty) with its comment, every view and macro
    retired = ", ".join(map(str, contents["retired"]))
    for name, files in sources.items():
        if not files:
            continue
        source = f"read_parquet([{', '.join(quoted(str(lake / f)) for f in files)}])"
        if name in _part_tables():
            _over_files(con, name, source, retired)
        else:
            con.execute(f"CREATE VIEW {identifier(name)} AS SELECT * FROM {source}")
            comment = contents["tables"][name].get("comment")
            if comment:
                con.execute(f"COMMENT ON VIEW {identifier(name)} IS {quoted(comment)}")
    if sealed:
        con.execute(f"SET allowed_directories = [{quoted(f'{lake}/')}]")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    return con


def _check_file(lake: Path, file: str) -> None:
    """LakeError unless the listed `file` is a regular file inside the (resolved) `lake`,
    reached through no link: never a FIFO (a reader would wait on it forever), a device,
    or a link to a file outside the lake."""
    path = lake / file
    try:
        regular = stat.S_ISREG(os.lstat(path).st_mode)
    except OSError as error:
        raise LakeError(
            f"{path}: listed in {MANIFEST}, cannot be read ({error.strerror})"
        ) from None
    if not regular or os.path.realpath(path) != str(path):
        raise LakeError(
            f"{path}: listed in {MANIFEST}, not a regular file of the lake (a link, a FIFO "
            "or a device)"
        )


def tampered(lake: Path) -> str | None:
    """The first file the lake lists that mine would not have written as its table's part
    (a column lacking or of another type, a NULL where the warehouse has NOT NULL, a file
    DuckDB cannot read), said as `file: what`; None when every file is as mine writes it.
    A lake's tables are views over its files, so nothing checks them before a command
    reads them; asked once a read has failed (it reads every file whole)."""
    wanted, _ = schema.made_layout()
    root = lake.resolve()
    contents, con = read(root), in_memory()
    try:
        for table in _part_tables():
            for file in contents["tables"].get(table, {}).get("files", []):
                path = root / file
                said = _file_problem(con, path, wanted[table])
                if said is not None:
                    return f"{path}: {said}"
    finally:
        con.close()
    return None


def _file_problem(con: duckdb.DuckDBPyConnection, path: Path, columns: list[tuple]) -> str | None:
    source = f"read_parquet({quoted(str(path))}, hive_partitioning = false)"
    try:
        found = {
            c: kind for c, kind, *_ in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()
        }
        for column, kind, _ in columns:
            if column not in found:
                return f"no column {column}"
            if found[column] != kind:
                return f"column {column} is {found[column]}, not {kind}"
        required = [column for column, _, nullable in columns if not nullable]
        counts = (
            required
            and con.execute(  # no NOT NULL column: nothing to count
                "SELECT "
                + ", ".join(f"count(*) - count({identifier(c)})" for c in required)
                + f" FROM {source}"
            ).fetchone()
        )
    except duckdb.Error as error:
        said = str(error).strip().splitlines()[0].replace(f" '{path}'", "")
        return f"cannot be read ({said})"
    for column, nulls in zip(required, counts, strict=True):
        if nulls:
            return f"column {column} is NULL in {nulls} rows"
    return None


def _over_files(con: duckdb.DuckDBPyConnection, table: str, source: str, retired: str) -> None:
    """Replace the empty `table` by a view over `source` with its columns and types (the
    games' views over it are bound when they run, so they read the files)."""
    columns = con.execute(f"DESCRIBE {identifier(table)}").fetchall()
    comment = con.execute(
        "SELECT comment FROM duckdb_tables() WHERE table_name = ?", [table]
    ).fetchall()[0][0]
    cast = ", ".join(
        f"CAST({identifier(c)} AS {kind}) AS {identifier(c)}" for c, kind, *_ in columns
    )
    names = {c for c, *_ in columns}
    where = f" WHERE log_id NOT IN ({retired})" if retired and "log_id" in names else ""
    con.execute(f"DROP TABLE {identifier(table)}")
    if table == "manifest":
        # Each commit adds its files' rows: a path's newest row is the manifest's, holding
        # the last log it landed as (as the warehouse's upsert keeps it).
        con.execute(
            f"""
            CREATE VIEW manifest AS
            SELECT * EXCLUDE (held, newest) REPLACE (coalesce(log_id, held) AS log_id)
            FROM (
                SELECT {cast},
                       arg_max(log_id, ingested_at) FILTER (WHERE log_id IS NOT NULL)
                           OVER (PARTITION BY path) AS held,
                       row_number() OVER (PARTITION BY path ORDER BY ingested_at DESC) AS newest
                FROM {source}
            ) WHERE newest = 1
            """
        )
    else:
        con.execute(f"CREATE VIEW {identifier(table)} AS SELECT {cast} FROM {source}{where}")
    if comment:
        con.execute(f"COMMENT ON VIEW {identifier(table)} IS {quoted(comment)}")


def tables(con: duckdb.DuckDBPyConnection, lake: Path) -> Iterator[tuple[str, str, int, str]]:
    """(name, kind, rows, description) of everything a warehouse would list: a table read
    from the lake's files is a table, as it is in the warehouse."""
    stored = read(lake)["tables"]
    for name, kind, rows, comment in query.tables(con):
        yield name, "table" if name in stored else kind, rows, comment


# --- ingest: the driver -----------------------------------------------------------------------


@dataclass(frozen=True)
class Shard:
    """One ingest task: these pairs into the lake, with log ids from `first` on."""

    lake: str
    run: str
    first: int
    pairs: tuple[tuple[str, str], ...]  # (turns, scores) paths
    replacing: frozenset[str]  # the files of the pairs that replace a log of the same files
    game: str | None
    verify: bool
    rules: Mapping[str, object]


@dataclass
class Landed:
    """What a task did: each pair's game, outcome, log id and error (path, line, reason,
    column; an error does not pickle), the rows it added, the files it wrote."""

    pairs: dict[str, tuple[str, str, int | None, tuple | None]]  # by turns path
    rows: dict[str, int]
    files: dict[str, list[str]] = field(default_factory=dict)  # table → lake-relative paths


Progress = Callable[[int, int], None]
"""Called with (pairs done, pairs to ingest) as the tasks finish."""


def ingest(
    lake: Path,
    paths: Iterable[str | Path],
    runner: Runner,
    game: str | None = None,
    verify: bool = True,
    rules: Mapping[str, object] | None = None,
    shard_pairs: int = SHARD_PAIRS,
    progress: Progress | None = None,
    wait: float = 60.0,
) -> Summary:
    """Ingest every log pair under `paths` into the lake, in tasks `runner` runs; what
    happened to each pair, as `warehouse.ingest.ingest` says it."""
    from mine.warehouse import ingest as ingesting

    started = time.perf_counter()
    modules = schema.game_schemas()
    if game is not None and game not in modules:
        raise ValueError(f"unknown game {game!r} (known: {', '.join(modules)})")
    files, missing = ingesting.find_files(paths)
    pairs, orphans = ingesting.pair_files(files)
    summary = ingesting.Summary(
        pairs=pairs, orphans=missing + orphans, verified=verify, rules=dict(rules or {})
    )
    lake = lake.absolute()
    _check_folder(lake)
    with locked(lake, wait):
        contents = read(lake) if (lake / MANIFEST).exists() else _empty()
        _hash(pairs, runner)
        fresh = _known(lake, contents, pairs)
        run = uuid.uuid4().hex[:12]
        shards = _shards(lake, run, contents["next_log_id"], fresh, shard_pairs, game, summary)
        done = 0
        for shard, landed in zip(shards, runner.map(land, shards), strict=True):
            _take(pairs, landed, contents, summary)
            done += len(shard.pairs)
            if progress:
                progress(done, len(fresh))
        if shards:
            _retire(lake, contents, pairs)
            start = contents["next_log_id"]
            contents["next_log_id"] = shards[-1].first + len(shards[-1].pairs)
            _commit(lake, contents, run)
            _sweep(lake, contents, bucket_of(start))
    summary.seconds = time.perf_counter() - started
    return summary


def _check_folder(lake: Path) -> None:
    """LakeError unless `lake` is a lake, a new folder, or what a first ingest killed
    before its commit left: a folder is never filled with a lake's files beside others."""
    if lake.exists() and not lake.is_dir():
        raise LakeError(f"{lake}: is a file, not a lake folder")
    if not lake.exists() or (lake / MANIFEST).exists():
        return
    for entry in lake.iterdir():
        ours = entry.name == LOCK or entry.name.startswith(f".{MANIFEST}.")
        if not ours and not (entry.is_dir() and entry.name in _part_tables()):
            raise LakeError(f"{lake}: a folder that is not a lake (no {MANIFEST}); give a new one")


def _hash(pairs: list[Pair], runner: Runner) -> None:
    """Each file's content hash, read in tasks (where the files are)."""
    files = [log for pair in pairs for log in pair.files]
    chunks = [files[i : i + HASH_FILES] for i in range(0, len(files), HASH_FILES)]
    hashed = runner.map(content_hashes, [[str(log.path) for log in chunk] for chunk in chunks])
    for chunk, hashes in zip(chunks, hashed, strict=True):
        for log, sha256 in zip(chunk, hashes, strict=True):
            log.sha256 = sha256 or ""


def content_hashes(paths: list[str]) -> list[str | None]:
    """The SHA-256 of each file (None: it cannot be read; its task will say why)."""
    hashes: list[str | None] = []
    for path in paths:
        try:
            with open(path, "rb") as file:
                hashes.append(hashlib.file_digest(file, "sha256").hexdigest())
        except OSError:
            hashes.append(None)
    return hashes


def _known(lake: Path, contents: dict, pairs: list[Pair]) -> list[Pair]:
    """Mark the pairs whose content the lake holds (unchanged), and what the others
    replace; the pairs to ingest (copies within the batch stay: a task settles them)."""
    from mine.warehouse import ingest as ingesting

    if not contents["tables"]:
        return list(pairs)
    with contextlib.closing(connect(lake, statistics=False)) as con:
        existing, previous = ingesting.held_logs(con, pairs)
    fresh = []
    for pair in pairs:
        if pair.turns.sha256 and pair.scores.sha256 and pair.content_sha256 in existing:
            pair.outcome = "unchanged"
            pair.log_id, pair.game = existing[pair.content_sha256]
            continue
        pair.replaces = sorted({previous[f.text] for f in pair.files if f.text in previous})
        fresh.append(pair)
    return fresh


def _shards(
    lake: Path,
    run: str,
    first: int,
    pairs: list[Pair],
    size: int,
    game: str | None,
    summary: Summary,
) -> list[Shard]:
    """The tasks: `size` pairs each (a copy of a content goes with its first, so that its
    task settles it as today's ingest does), each with its range of log ids."""
    groups: list[list[Pair]] = []
    home: dict[str, list[Pair]] = {}
    for pair in pairs:
        key = pair.content_sha256 if pair.turns.sha256 and pair.scores.sha256 else None
        if key in home:
            home[key].append(pair)
            continue
        if not groups or len(groups[-1]) >= size:
            groups.append([])
        groups[-1].append(pair)
        if key:
            home[key] = groups[-1]
    shards = []
    for group in groups:
        shards.append(
            Shard(
                lake=str(lake),
                run=run,
                first=first,
                pairs=tuple((str(p.turns.path), str(p.scores.path)) for p in group),
                replacing=frozenset(f.text for p in group if p.replaces for f in p.files),
                game=game,
                verify=summary.verified,
                rules=summary.rules,
            )
        )
        first += len(group)
    return shards


def _take(pairs: list[Pair], landed: Landed, contents: dict, summary: Summary) -> None:
    """A task's outcomes into the batch's pairs, its files and rows into the lake's."""
    for pair in pairs:
        done = landed.pairs.get(str(pair.turns.path))
        if done is None:
            continue
        pair.game, pair.outcome, pair.log_id, error = done
        if error is not None:
            pair.error = LogFormatError(*error)
        if pair.outcome == "new" and pair.replaces:
            pair.outcome = "replaced"
    for table, count in landed.rows.items():
        summary.rows[table] = summary.rows.get(table, 0) + count
    for table, files in landed.files.items():
        contents["tables"].setdefault(table, {"files": []})["files"].extend(files)


def _retire(lake: Path, contents: dict, pairs: list[Pair]) -> None:
    """The logs replaced by new content of their files leave the lake's tables, unless
    another file still holds that content (as they leave the warehouse)."""
    replaced = [p for p in pairs if p.outcome == "replaced"]
    stale = sorted({old for p in replaced for old in p.replaces})
    if not stale:
        return
    from mine.warehouse import ingest as ingesting

    with contextlib.closing(connect(lake, statistics=False)) as con:
        keep = ingesting.still_held(con, stale, replaced)
    contents["retired"] = sorted(set(contents["retired"]) | (set(stale) - keep))


def _sweep(lake: Path, contents: dict, from_bucket: int) -> None:
    """Remove what no commit lists: parts of killed runs (their ids are never below the
    lake's next free id, so only the newest buckets hold them) and partial manifests (a
    statistics table's files are its next store's to remove: see `store`).
    Only files of mine's names in folders of mine's, never through a link: what else is
    in the lake's folder, or a link has it reach, stays."""
    listed = {f for entry in contents["tables"].values() for f in entry["files"]}
    for table in filter(_own_folder, lake.iterdir()):
        buckets = [
            b
            for b in filter(_own_folder, table.iterdir())
            if BUCKET.fullmatch(b.name) and int(b.name.partition("=")[2]) >= from_bucket
        ]
        for file in (f for folder in buckets for f in folder.iterdir()):
            if PART.fullmatch(file.name) and str(file.relative_to(lake)) not in listed:
                file.unlink(missing_ok=True)
    for partial in lake.glob(f".{MANIFEST}.*.partial"):
        partial.unlink(missing_ok=True)


def sweep(lake: Path) -> None:
    """After an ingest that failed (Ctrl-C, a full disk), once its tasks have ended: remove
    the parts it wrote, which no commit lists, now rather than at the next ingest. Nothing
    where no ingest locked the lake, or while another writer holds it (its sweep does it)."""
    lake = lake.absolute()
    if not (lake / LOCK).is_file():  # not a lake ingest began: no folder or lock made now
        return
    with contextlib.suppress(LakeError, OSError), locked(lake, wait=0):
        contents = read(lake) if (lake / MANIFEST).exists() else _empty()
        _sweep(lake, contents, bucket_of(contents["next_log_id"]))


def _own_folder(path: Path) -> bool:
    """Whether `path` is a folder of the lake's layout: a table's or a bucket's, no link."""
    own = _table_name(path.name) or BUCKET.fullmatch(path.name)
    return bool(own) and path.is_dir() and not path.is_symlink()


def _folder(lake: Path, relative: str) -> Path:
    """The lake's folder `relative` (made if missing), LakeError if any part of it is a
    link: what a writer writes stays in the lake."""
    folder = lake / relative
    folder.mkdir(parents=True, exist_ok=True)
    if os.path.realpath(folder) != os.path.join(os.path.realpath(lake), relative):
        raise LakeError(f"{folder}: a link out of the lake, not a folder of it")
    return folder


# --- ingest: one task ---------------------------------------------------------------------------


def land(shard: Shard) -> Landed:
    """Run today's ingest over the shard's pairs into a scratch DuckDB, then write what
    landed into the lake as Parquet, each log id moved into the shard's range."""
    from mine.warehouse import ingest as ingesting

    lake = Path(shard.lake)
    with tempfile.TemporaryDirectory(prefix="mine-shard-") as scratch:
        config = {"memory_limit": MEMORY_LIMIT, "temp_directory": scratch}
        with contextlib.closing(duckdb.connect(config=config)) as con:
            con.execute("SET enable_progress_bar = false")
            paths = [path for pair in shard.pairs for path in pair]
            summary = ingesting.ingest(
                con, paths, game=shard.game, verify=shard.verify, rules=shard.rules
            )
            local = [i for (i,) in con.execute("SELECT log_id FROM logs ORDER BY 1").fetchall()]
            moved = dict(zip(local, range(shard.first, shard.first + len(local)), strict=True))
            if shard.replacing:
                con.execute(
                    "UPDATE manifest SET outcome = 'replaced' WHERE outcome = 'new' "
                    "AND path IN (SELECT unnest(?))",
                    [sorted(shard.replacing)],
                )
            files = _write_part(con, lake, shard, moved)
    return Landed(
        pairs={
            str(p.turns.path): (
                p.game,
                p.outcome,
                moved.get(p.log_id),
                None
                if p.error is None
                else (p.error.path, p.error.line, p.error.reason, p.error.column),
            )
            for p in summary.pairs
        },
        rows=summary.rows,
        files=files,
    )


def _write_part(
    con: duckdb.DuckDBPyConnection, lake: Path, shard: Shard, moved: dict[int, int]
) -> dict[str, list[str]]:
    """Each table's rows of the shard as one Parquet file per bucket, log ids moved."""
    ids: list[int | None] = [None] * (max(moved, default=0))
    for local, global_id in moved.items():
        ids[local - 1] = global_id
    written: dict[str, list[str]] = {}
    moved_id = "CAST($ids AS INTEGER[])[log_id]"
    for table in _part_tables():
        rows = f"SELECT * REPLACE ({moved_id} AS log_id) FROM {table}"
        bucket = _bucket_sql(f"coalesce({moved_id}, {shard.first})")
        buckets = con.execute(
            f"SELECT DISTINCT {bucket} FROM {table} ORDER BY 1", {"ids": ids}
        ).fetchall()
        for (number,) in buckets:
            folder = f"{table}/bucket={number:06d}"
            relative = f"{folder}/part-{shard.first:010d}-{shard.run}.parquet"
            _folder(lake, folder)
            con.execute(
                f"COPY ({rows} WHERE {bucket} = $bucket) TO {quoted(str(lake / relative))} "
                "(FORMAT parquet)",
                {"ids": ids, "bucket": number},
            )
            written.setdefault(table, []).append(relative)
    return written


# --- statistics ---------------------------------------------------------------------------------


def store(lake: Path, con: duckdb.DuckDBPyConnection, names: list[str], wait: float = 60.0) -> None:
    """The tables `names` of `con` into the lake, each replacing its earlier version. The
    file a version replaces stays until the table's next store: a reader that read
    `lake.json` before this commit is still reading it (the next store removes it, and
    what a killed store left)."""
    lake = lake.absolute()
    run = uuid.uuid4().hex[:12]
    with locked(lake, wait):
        contents = read(lake)
        written = []
        try:
            for name in names:
                relative = f"{name}/data-{run}.parquet"
                listed = contents["tables"].get(name, {}).get("files", [])
                for file in _folder(lake, name).iterdir():  # no commit lists them now
                    if DATA.fullmatch(file.name) and f"{name}/{file.name}" not in listed:
                        file.unlink(missing_ok=True)
                written.append(lake / relative)
                con.execute(
                    f"COPY {identifier(name)} TO {quoted(str(lake / relative))} (FORMAT parquet)"
                )
                comment = con.execute(
                    "SELECT comment FROM duckdb_tables() WHERE table_name = ?", [name]
                ).fetchall()[0][0]
                contents["tables"][name] = {"files": [relative], "comment": comment}
            _commit(lake, contents, run)
        except BaseException:  # Ctrl-C, a full disk, a file where a folder goes
            for file in written:  # no commit lists them
                file.unlink(missing_ok=True)
            raise

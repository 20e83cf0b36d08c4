"""The warehouse's own tables (what was ingested, from where) and each game's schema."""

from __future__ import annotations

import contextlib
from types import ModuleType

import duckdb

from mine import games

VERSION = 3
"""Bumped whenever a table's layout changes: a warehouse of another version is left alone."""


class WarehouseVersionError(RuntimeError):
    """The warehouse file was laid out by another version of mine."""


class WarehouseChanged(WarehouseVersionError):
    """A warehouse of this layout whose tables or views were changed by hand."""

    def __init__(self, path: object, changed: str) -> None:
        super().__init__(f"{path}: {changed_said(changed)}")


def changed_said(changed: str) -> str:
    """What a warehouse `tampered` found changed is said to be, and what to do."""
    return (
        f"not as mine lays out a warehouse: {changed}; rebuild it: "
        "`mine ingest LOGS --db NEW.duckdb` from the same logs"
    )


CORE = """
CREATE TABLE IF NOT EXISTS warehouse_version (version INTEGER NOT NULL);
COMMENT ON TABLE warehouse_version IS 'The layout version of this warehouse''s tables';

CREATE SEQUENCE IF NOT EXISTS log_ids START 1;

CREATE TABLE IF NOT EXISTS logs (
    log_id INTEGER PRIMARY KEY,
    game VARCHAR NOT NULL,
    stem VARCHAR NOT NULL,
    content_sha256 VARCHAR NOT NULL UNIQUE,
    turn_rows BIGINT NOT NULL,
    score_rows BIGINT NOT NULL,
    ingested_at TIMESTAMP NOT NULL
);
COMMENT ON TABLE logs IS 'One row per ingested game log (a turn file and its score file, by content)';

CREATE TABLE IF NOT EXISTS manifest (
    path VARCHAR PRIMARY KEY,
    stem VARCHAR,
    game VARCHAR,
    role VARCHAR,
    sha256 VARCHAR,
    bytes BIGINT,
    rows BIGINT,
    ingested_at TIMESTAMP,
    outcome VARCHAR,
    log_id INTEGER,
    error VARCHAR
);
COMMENT ON TABLE manifest IS 'Every file ingest has seen: its content hash, the log it holds, the last outcome (new, unchanged, replaced, rejected) and why';
"""


def game_schemas() -> dict[str, ModuleType]:
    """The warehouse module of every game, by name, in the registry's order."""
    return {game.name: game.module("schema") for game in games.with_part("schema")}


def _tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {row[0] for row in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}


def found_version(con: duckdb.DuckDBPyConnection) -> int | None:
    """The layout version of the open warehouse; None when it holds no mine tables yet."""
    tables = _tables(con)
    if "warehouse_version" in tables:
        return con.execute("SELECT max(version) FROM warehouse_version").fetchall()[0][0]
    return 1 if "logs" in tables else None  # the first layout had no version table


def check(con: duckdb.DuckDBPyConnection, path: object, *, empty_ok: bool = False) -> None:
    """WarehouseVersionError unless the warehouse at `path` is laid out as this mine lays
    it out (or, with `empty_ok`, is a database with no tables yet)."""
    found, tables = found_version(con), _tables(con)  # the catalogue read once for all checks
    if found is None and "warehouse_version" in tables:
        raise WarehouseChanged(path, "its table warehouse_version is empty")
    empty = not tables
    if found is None and empty and not empty_ok:
        raise WarehouseVersionError(
            f"{path}: an empty database, no logs yet (run `mine ingest` first)"
        )
    if found is None and not empty:
        raise WarehouseVersionError(
            f"{path}: a DuckDB file, but not a mine warehouse (no warehouse_version table); "
            "give the warehouse with --db, or ingest logs into a new file"
        )
    if found not in (None, VERSION):
        raise WarehouseVersionError(
            f"{path}: warehouse layout version {found}, this mine reads and writes version "
            f"{VERSION}; rebuild it: `mine ingest LOGS --db NEW.duckdb` from the same logs "
            "(it is left as it is)"
        )
    lacking = found and _lacking(con, tables)
    if lacking:
        raise WarehouseChanged(path, f"its table {lacking} is missing")
    miscounted = found and _miscounted(con, tables)
    if miscounted:
        raise WarehouseChanged(path, miscounted)


def _lacking(con: duckdb.DuckDBPyConnection, tables: set[str]) -> str | None:
    """A table of the layout that a warehouse of it lacks (dropped or renamed by hand), which
    `ensure` would make again empty: ingest would then land the logs it held once more, or
    take them for held while their rows are gone. A game's tables all missing are a game
    added since the warehouse was made, unless the logs hold that game's logs."""
    for name in ("logs", "manifest"):
        if name not in tables:
            return name
    for name, module in game_schemas().items():
        lacking = [table for table in module.TABLES if table not in tables]
        if lacking and (
            len(lacking) < len(module.TABLES)
            or con.execute("SELECT 1 FROM logs WHERE game = ? LIMIT 1", [name]).fetchall()
        ):
            return lacking[0]
    return None


TWICE = "SELECT count(*) > count(DISTINCT row) FROM {} AS row"  # a row held twice


def _miscounted(con: duckdb.DuckDBPyConnection, tables: set[str]) -> str | None:
    """A game's table holding more or fewer rows than `logs` counts in its logs' files (rows
    copied or deleted by hand): its tables have no key, so every read would count a copied
    row twice. Counting costs milliseconds where reading the rows (a key) would cost seconds.
    A game's other tables (TwentyOne's seats: a few rows a log) are not counted in `logs`;
    their rows, each of its own log and place, are held to being distinct. A count that
    fails names the change that broke it."""
    modules = game_schemas().values()
    counted = [
        (module.GAME, table, column)
        for module in modules
        for table, column in zip(module.FILE_ROWS, ("turn_rows", "score_rows"), strict=True)
        if table in tables  # a game added since the warehouse was made (see `_lacking`)
    ]
    others = [t for m in modules for t in m.TABLES if t in tables and t not in m.FILE_ROWS]
    if not counted:
        return None
    try:
        logged = {
            (game, column): rows
            for game, turn_rows, score_rows in con.execute(
                "SELECT game, sum(turn_rows), sum(score_rows) FROM logs GROUP BY game"
            ).fetchall()
            for column, rows in (("turn_rows", turn_rows), ("score_rows", score_rows))
        }
        held = con.execute(
            "SELECT " + ", ".join(f"(SELECT count(*) FROM {t})" for _, t, _ in counted)
        ).fetchall()[0]
        twice = [t for t in others if con.execute(TWICE.format(t)).fetchall()[0][0]]
    except duckdb.Error:
        changed = tampered(con)
        if changed is None:
            raise
        return changed
    for (name, table, column), rows in zip(counted, held, strict=True):
        logs = logged.get((name, column), 0)
        if rows != logs:
            return f"its table {table} holds {rows:,} rows where its logs have {logs:,}"
    return f"its table {twice[0]} holds a row twice" if twice else None


COLUMNS = (
    "SELECT table_name, list((column_name, data_type, is_nullable) ORDER BY column_index) "
    "FROM duckdb_columns() WHERE NOT internal GROUP BY table_name"
)
VIEWS = "SELECT view_name, sql FROM duckdb_views() WHERE NOT internal"


def layout(con: duckdb.DuckDBPyConnection) -> tuple[dict[str, list[tuple]], dict[str, str]]:
    """Each table's and view's columns (name, type, nullable), and each view's SQL."""
    columns = {name: [tuple(c) for c in cols] for name, cols in con.execute(COLUMNS).fetchall()}
    return columns, dict(con.execute(VIEWS).fetchall())


def made_layout() -> tuple[dict[str, list[tuple]], dict[str, str]]:
    """The layout this mine makes (a quarter of a second: the schema built in memory)."""
    made = duckdb.connect()
    try:
        ensure(made, "the layout in memory")
        return layout(made)
    finally:
        made.close()


def _shown(column: tuple) -> str:
    name, kind, nullable = column
    return f"{name} {kind}{'' if nullable else ' NOT NULL'}"


def tampered(con: duckdb.DuckDBPyConnection) -> str | None:
    """How the open warehouse's tables and views differ from those this mine makes (the
    first difference), or None. Asked only once a read has failed: building the layout to
    compare with costs a quarter of a second, and a read that fails on a warehouse laid out
    as ours is a bug of mine, whose traceback is wanted."""
    (wanted, views), (found, found_views) = made_layout(), layout(con)
    for name, columns in sorted(wanted.items()):
        kind = "view" if name in views else "table"
        if name not in found:
            return f"its {kind} {name} is missing"
        if kind == "view" and name not in found_views:
            return f"its view {name} is a table"
        if kind == "view" and found_views.get(name) != views[name]:
            return f"its view {name} is not the one mine makes"
        if found[name] != columns:
            lost = [_shown(c) for c in columns if c not in found[name]]
            extra = [_shown(c) for c in found[name] if c not in columns]
            said = ", ".join([*(f"lacks {c}" for c in lost), *(f"has {c}" for c in extra)])
            return f"its {kind} {name} {said or 'has its columns in another order'}"
    return None


def ensure(con: duckdb.DuckDBPyConnection, path: object = "the warehouse") -> None:
    """Create whatever is missing; views are re-created so they follow the code."""
    check(con, path, empty_ok=True)
    fresh = found_version(con) is None
    con.execute("BEGIN TRANSACTION")  # all of it or none (Ctrl-C, a full disk)
    try:
        con.execute(CORE)
        if fresh:
            con.execute("INSERT INTO warehouse_version VALUES (?)", [VERSION])
        for module in game_schemas().values():
            con.execute(module.SCHEMA)
        con.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(duckdb.Error):
            con.execute("ROLLBACK")
        raise

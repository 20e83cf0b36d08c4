"""The warehouse's own tables (what was ingested, from where) and each game's schema."""

from __future__ import annotations

from types import ModuleType

import duckdb

from mine import games

VERSION = 3
"""Bumped whenever a table's layout changes: a warehouse of another version is left alone."""


class WarehouseVersionError(RuntimeError):
    """The warehouse file was laid out by another version of mine."""


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


def ensure(con: duckdb.DuckDBPyConnection) -> None:
    """Create whatever is missing; views are re-created so they follow the code."""
    tables = {row[0] for row in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    found = None
    if "warehouse_version" in tables:
        found = con.execute("SELECT max(version) FROM warehouse_version").fetchone()[0]
    elif "logs" in tables:
        found = 1  # the first layout had no version table
    if found not in (None, VERSION):
        raise WarehouseVersionError(
            f"this warehouse has layout version {found}, this mine writes version {VERSION}; "
            "ingest the logs into a new warehouse file (--db)"
        )
    con.execute(CORE)
    if found is None:
        con.execute("INSERT INTO warehouse_version VALUES (?)", [VERSION])
    for module in game_schemas().values():
        con.execute(module.SCHEMA)

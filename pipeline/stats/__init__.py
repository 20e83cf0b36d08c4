"""Reading warehouse tables into polars and storing derived statistics back.

Statistics live in the warehouse as tables named `stats_<game>_<name>`, replaced whole on
each run, each with a comment, so SQL reaches them like any other table. Following
PokerTracker, a rate is never stored alone: its count and its number of opportunities
are stored with it, so that any filter re-aggregates correctly.

A game's module (the registry's `stats`) provides `CONTRACT`:
- `derive(con, log_ids, **options)`: the statistics of the chosen logs (all of the game's
  when `log_ids` is None), a NamedTuple of polars frames;
- `store(con, stats)`: each frame as its `stats_<game>_<name>` table; the names stored;
- `headline(stats)`: the figures `--json` prints beside the tables' row counts;
- `fit_inputs(con, log_ids, **options)`: what the game's `fit` reads from the warehouse;
- `by_opponent(con, log_ids)`: each player of the logs against each opponent it met there,
  one frame for every game (`opponents`: counts or values' mean and spread per pairing),
  which each report draws with its intervals;
and, where per-player figures mean something, `by_player(con, log_ids, fitted)` (fitted:
a table read by the game's `read_table`, or None) with the same `store` and `headline`;
where the statistics are counts, `combine(parts)`: the statistics of the union of some
sets of logs from each set's `derive` (counts summed, rates made again), so that a lake's
are derived part by part on a cluster (`--cluster`) and are the same tables.
How each is printed is the game's commands module's (`pipeline/commands/<game>.py`).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import duckdb
import polars as pl

from mine import games, inputs
from mine.warehouse.query import frame  # noqa: F401  (the stats modules read with it)

CONTRACT = {
    "GAME": None,
    "derive": ("con", "log_ids"),
    "store": ("con", "stats"),
    "headline": ("stats",),
    "fit_inputs": ("con", "log_ids"),
    "by_opponent": ("con", "log_ids"),
}
OPTIONAL = {"by_player": ("con", "log_ids", "fitted"), "combine": ("parts",)}


def store(
    con: duckdb.DuckDBPyConnection, game: str, stats: NamedTuple, about: Mapping[str, str]
) -> list[str]:
    """Each frame of `stats` replaces its `stats_<game>_<name>` table, commented with
    `about[name]`; the tables' names (every game's `store`). All in one transaction: a
    failure (Ctrl-C, a full disk, a view or a foreign key of the user's in a table's way)
    leaves the statistics stored before whole, never some tables of the new logs beside
    others of the old."""
    names = [f"stats_{game}_{name}" for name in stats._fields]
    con.execute("BEGIN TRANSACTION")
    try:
        for target, (name, table) in zip(names, stats._asdict().items(), strict=True):
            con.register("stats_frame", table.to_arrow())
            try:
                con.execute(f"CREATE OR REPLACE TABLE {target} AS SELECT * FROM stats_frame")
            finally:
                with contextlib.suppress(duckdb.Error):  # a failed transaction's: rolled back
                    con.unregister("stats_frame")
            description = about[name].replace("'", "''")
            con.execute(f"COMMENT ON TABLE {target} IS '{description}'")
        con.execute("COMMIT")
    except BaseException as error:
        with contextlib.suppress(duckdb.Error):
            con.execute("ROLLBACK")
        if isinstance(error, duckdb.CatalogException):  # what the user made, not a bug
            reason = str(error).splitlines()[0]
            raise ValueError(f"{target}: cannot store the statistics there ({reason})") from None
        raise
    return names


def summed(frames: list[pl.DataFrame], keys: list[str], counts: list[str]) -> pl.DataFrame:
    """The `counts` of `frames` summed by `keys`, in the keys' order (as SQL's ORDER BY)."""
    stacked = pl.concat([part.select(*keys, *counts) for part in frames])
    return (
        stacked.group_by(keys)
        .agg(pl.col(count).sum() for count in counts)
        .sort(keys, nulls_last=True)
    )


def logs_filter(log_ids: list[int] | None, column: str = "log_id") -> str:
    """A WHERE clause restricting rows to the logs `log_ids` (ids are ints, checked here;
    None: every log)."""
    if log_ids is None:
        return "TRUE"
    return f"{column} IN ({', '.join(str(int(i)) for i in log_ids) or 'NULL'})"


def data_fingerprint(
    con: duckdb.DuckDBPyConnection, game: str, log_ids: list[int] | None = None
) -> tuple[str, int]:
    """SHA-256 over the content hashes of the logs of `game` (all, or these), and their count."""
    hashes = [
        row[0]
        for row in con.execute(
            "SELECT content_sha256 FROM logs WHERE game = ? "
            "AND (? IS NULL OR list_contains(?, log_id)) ORDER BY content_sha256",
            [game, log_ids, log_ids],
        ).fetchall()
    ]
    return hashlib.sha256("\n".join(hashes).encode()).hexdigest(), len(hashes)


def chosen_logs(con: duckdb.DuckDBPyConnection, game: str, pattern: str | None) -> list[int] | None:
    """The logs of `game` a command works on: those ingested from files matching the glob
    `pattern`, or every one (None); ValueError when the warehouse holds none of the game's
    logs, or none from such a file."""
    # A warehouse's failing read is its own (a column renamed by hand), said as such by the
    # command, never "no logs" (a file that is not a warehouse of ours is refused on opening).
    held = con.execute("SELECT count(*) FROM logs WHERE game = ?", [game]).fetchall()[0][0]
    if not held:
        title = games.get(game).title
        raise ValueError(f"no {title} logs in the warehouse (run `mine ingest` on them first)")
    return None if pattern is None else logs_matching(con, game, pattern)


def logs_matching(con: duckdb.DuckDBPyConnection, game: str, pattern: str) -> list[int]:
    """The ingested logs of `game` whose files match the glob `pattern` (as given, or
    relative to the working folder), or lie in the folder it names (`mylogs/`: every file
    ingest read there); ValueError when there are none."""
    if pattern.endswith("/") or Path(pattern).is_dir():
        pattern = f"{pattern.rstrip('/')}/*"  # GLOB's `*` crosses `/`: the subfolders too
    here = inputs.working_folder()
    if here is None and not Path(pattern).is_absolute():
        raise ValueError(f"{pattern!r} is relative to the working folder, which was removed")
    absolute = pattern if Path(pattern).is_absolute() else str(here / pattern)
    rows = con.execute(
        "SELECT DISTINCT log_id FROM manifest WHERE game = ? AND log_id IS NOT NULL "
        "AND log_id IN (SELECT log_id FROM logs) AND (path GLOB ? OR path GLOB ?) "
        "ORDER BY log_id",
        [game, absolute, pattern],
    ).fetchall()
    if not rows:
        title = games.get(game).title
        raise ValueError(f"no ingested {title} log comes from a file matching {pattern!r}")
    return [row[0] for row in rows]


def sources(
    con: duckdb.DuckDBPyConnection, game: str, log_ids: list[int] | None
) -> list[tuple[str, int]]:
    """The folders the chosen logs of `game` (all: None) were ingested from, with how many
    logs each gave, most first: what a fit or statistics read, said, so that logs of
    several sources (your own and a tour's simulations) are never mixed unseen."""
    rows = con.execute(
        "SELECT regexp_replace(path, '/[^/]*$', '') AS folder, count(DISTINCT log_id) "
        "FROM manifest WHERE game = ? AND log_id IN (SELECT log_id FROM logs) "
        "AND (? IS NULL OR list_contains(?, log_id)) GROUP BY folder ORDER BY 2 DESC, 1",
        [game, log_ids, log_ids],
    ).fetchall()
    return [(folder or "/", count) for folder, count in rows]


def drop(con: duckdb.DuckDBPyConnection, game: str, name: str) -> None:
    """Remove `stats_<game>_<name>`, so that no table outlives the run that would have
    replaced it."""
    con.execute(f"DROP TABLE IF EXISTS stats_{game}_{name}")

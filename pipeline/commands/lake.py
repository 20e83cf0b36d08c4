"""The lake in the shared commands: `mine ingest … --lake DIR [--cluster …]`, the lake
opened where a command takes `--lake` (query, tables, stats, fit, report), and a game's
statistics derived part by part on a cluster (`mine stats <game> --lake DIR --cluster …`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from mine.games import Game
from mine.pipeline.cluster import runner
from mine.pipeline.commands.data import ingest_rules, show_ingest
from mine.pipeline.console import errors, fail
from mine.pipeline.options import again
from mine.pipeline.progress import per_name
from mine.warehouse import lake as lakes
from mine.warehouse import query as querying


def ingest(
    paths: list[str],
    game: str | None,
    db: Path | None,
    lake: Path | None,
    cluster: str | None,
    as_json: bool,
    wait: float,
    verify: bool,
    settings: list[str],
    shard_pairs: int,
) -> None:
    """`mine ingest PATHS --lake DIR`: today's ingest, in tasks of `shard_pairs` pairs run
    where `--cluster` says, into the lake."""
    if lake is None:
        raise fail("--cluster ingests into a lake: give --lake DIR (a DuckDB file has one writer)")
    if db is not None:
        raise fail("give --db or --lake, not both")
    rules = ingest_rules(settings, game)
    bar, advance = per_name(as_json)
    try:
        with runner(cluster) as running, bar:
            summary = lakes.ingest(
                lake,
                paths,
                running,
                game=game,
                verify=verify,
                rules=rules,
                shard_pairs=shard_pairs,
                progress=lambda done, total: advance(f"ingest into {lake}", done, total),
                wait=wait,
            )
    except ValueError as error:
        raise fail(str(error)) from None
    except (KeyboardInterrupt, OSError, duckdb.Error) as error:
        lakes.sweep(lake)  # the runner's tasks have ended with it
        if isinstance(error, KeyboardInterrupt):
            raise
        raise _cannot(lake, "ingest into it", error) from None
    show_ingest(summary, as_json, again(lake=lake))


def store(lake: Path, con: duckdb.DuckDBPyConnection, names: list[str]) -> None:
    """The tables `names` of `con` (statistics) into the lake, replacing their last."""
    try:
        lakes.store(lake, con, names)
    except lakes.LakeError as error:
        raise fail(str(error)) from None
    except (OSError, duckdb.Error) as error:
        raise _cannot(lake, "store the statistics there", error) from None


def _cannot(lake: Path, doing: str, error: OSError | duckdb.Error) -> BaseException:
    """A failure of the lake's file system (a full disk, a file where a folder must be) as
    the warehouse's are said: the lake named, and the system's reason, which an OSError's
    own words lack the file of and DuckDB's bury in JSON."""
    if isinstance(error, duckdb.InterruptException):
        return KeyboardInterrupt()
    if isinstance(error, OSError):
        reason = error.strerror or str(error)
    else:
        reason = querying.os_reason(error) or querying.one_line(error)
    return fail(f"{lake}: cannot {doing} ({reason})")


@dataclass(frozen=True)
class PartStats:
    """One task: a game's statistics of one part of the lake."""

    game: str
    lake: str
    part: str
    log_ids: list[int] | None
    options: dict[str, Any]


def derived_in_parts(
    game: Game, lake: Path, log_ids: list[int] | None, options: dict[str, Any], cluster: str
) -> Any:
    """The game's statistics of the lake's chosen logs (some part holds them: they were
    chosen from the lake), derived part by part where `--cluster` says and summed
    (`combine`): the same tables as from the whole lake."""
    parts = lakes.parts(lakes.read(lake))
    tasks = [PartStats(game.name, str(lake.absolute()), part, log_ids, options) for part in parts]
    with runner(cluster) as running:
        derived = [found for found in running.map(derive_part, tasks) if found is not None]
    return game.module("stats").combine(derived)


def derive_part(task: PartStats) -> Any:
    """The statistics of one part (None when it holds none of the chosen logs)."""
    from mine import games

    con = lakes.connect(Path(task.lake), only=[task.part], statistics=False)
    try:
        held = con.execute(
            "SELECT count(*) FROM logs WHERE game = ? AND (? IS NULL OR list_contains(?, log_id))",
            [task.game, task.log_ids, task.log_ids],
        ).fetchall()[0][0]
        if not held:
            return None
        return games.get(task.game).module("stats").derive(con, task.log_ids, **task.options)
    finally:
        con.close()


def combined_or_here(game: Game) -> bool:
    """Whether the game's statistics sum over parts; if not, says that they are derived
    here, over the whole lake."""
    if hasattr(game.module("stats"), "combine"):
        return True
    errors.print(
        f"{game.title}'s statistics do not sum over parts yet (no combine): derived here, "
        "over the whole lake",
        style="dim",
    )
    return False

"""The loop's commands, the same for every game: `mine stats|fit|generate|validate|report
<game>`. Each is a few lines over its layers' contract verbs (see each layer's
`CONTRACT`); what differs between games is their own options (the game's `OPTIONS`,
handed to whichever layer call takes them) and how results print (the game's commands module).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import importlib.util
import inspect
import shlex
import sys
import textwrap
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from mine import __version__, inputs, outputs
from mine.games import Game
from mine.pipeline import options
from mine.pipeline.connections import working_on
from mine.pipeline.console import (
    cannot_write,
    console,
    day_written,
    errors,
    fail,
    next_step,
    print_json,
    show,
    will_write,
    write_report,
)
from mine.pipeline.progress import per_name, working
from mine.pipeline.stats import chosen_logs, sources

REQUIRED = inspect.Parameter.empty


def parameters(verb: str, game: Game) -> dict[str, tuple[Any, Any]] | None:
    """The options every game's `verb` command has, name → (annotation, default) as a
    game's `OPTIONS` (None: the game lacks the verb)."""
    needs = {"simulate": "engine", "stats": "stats", "fit": "fitter", "generate": "codegen",
             "validate": "validator", "report": "report"}  # fmt: skip
    if not game.has(needs[verb]):
        return None
    json, cluster = {"as_json": (options.Json, False)}, {"cluster": (options.Cluster, None)}
    warehouse = dict(db=(options.Db, None), lake=(options.Lake, None), logs=(options.Logs, None))
    if verb == "simulate":
        two = range(2, 3) == game.module("engine").NUM_PLAYERS
        return {
            "games": (options.games("Games per match."), 100),
            "players": (options.players("Bots, comma-separated."), "random,random"),
            **({"opponent": (options.Opponent, None)} if two else {}),
            "seed": (options.Seed, 0),
            "out": (options.out("Folder for the log files."), Path(f"logs/{game.name}")),
            "rules": (options.Rules, None),
            **cluster,
            **json,
        }
    if verb == "stats":
        grouping = {"by": (options.By, None), "table": (options.ChartTable, None)}
        by_player = hasattr(game.module("stats"), "by_player")
        return {**warehouse, **cluster, **(grouping if by_player else {}), **json}
    if verb == "fit":
        out = options.out("Table file to write (Parquet; its metadata beside it as .json).")
        return {"out": (out, Path(f"{game.name}-table.parquet")), **warehouse, **json}
    if verb == "generate":
        out = {"out": (options.out("The player module to write."), Path(f"{game.name}_player.py"))}
        lang = {"lang": (options.Lang, options.Language.python)} if course(game) else {}
        return {"table": (options.Table, REQUIRED), **out, **lang, **json}
    if verb == "validate":
        # --cluster where the game's measure is split into tasks (it takes a runner)
        fans_out = "runner" in inspect.signature(game.module("validator").validate).parameters
        player = {"player": (options.PlayerFile, REQUIRED), "rules": (options.Rules, None)}
        against = {"against": (options.Against, None)}
        return {**player, **against, **(cluster if fans_out else {}), **json}
    page = game.module("report")
    out = {"out": (options.out("The file to write."), Path(f"{game.name}-report.html"))}
    drawn = "measured" in inspect.signature(page.html).parameters
    card = {"card": (options.Card, None)} if drawn else {}
    observed = warehouse if hasattr(page, "observed") else {}
    return {"table": (options.Table, REQUIRED), **out, **card, **observed, **json}


def taken(function: Callable[..., Any], own: dict[str, Any]) -> dict[str, Any]:
    """The game's own options `function` takes (by name)."""
    parameters = inspect.signature(function).parameters
    return {name: value for name, value in own.items() if name in parameters}


def call(function: Callable[..., Any], *args: Any, own: dict[str, Any], **kwargs: Any) -> Any:
    """`function(*args, **kwargs)`, handed the game's own options it takes."""
    return function(*args, **kwargs, **taken(function, own))


@contextlib.contextmanager
def refused(prefix: str = "") -> Iterator[None]:
    """What a layer refuses with a ValueError (logs that cannot be fitted, a player file
    that is not one) is one error line."""
    try:
        yield
    except ValueError as error:
        raise fail(f"{prefix}{error}") from None


def read_fitted(game: Game, path: Path) -> Any:
    """The game's fitted table in the file at `path`; a file that is not one is one error
    line."""
    from mine.models.tables import TableError, metadata_path

    try:
        outputs.reading(metadata_path(path), Path(path).with_suffix(".parquet"))  # that first
        return game.module("fitter").read_table(path)
    except TableError as error:
        raise fail(str(error)) from None


def simulate(game: Game, games: int, players: str, seed: int, out: Path, rules=None,
             cluster=None, as_json=False, opponent=None, **own) -> None:  # fmt: skip
    """Play games between bots and write their logs in the game's real format."""
    from mine.pipeline.cluster import runner
    from mine.strategies.engines import simulation

    engine = game.module("engine")
    fields = {f.name for f in dataclasses.fields(engine.RULES)}
    settings = [f"{key}={value}" for key, value in own.items() if key in fields]
    game_rules = options.game_rules(engine.RULES, [*settings, *(rules or [])])
    setup = {key: value for key, value in own.items() if key not in fields}
    specs = options.names(players)
    bar, progress = per_name(as_json)
    try:
        if hasattr(engine, "log_bytes"):  # each match's logs, generously: no disk fills up
            played = simulation.matches(game.name, specs, seed, opponent)
            options.room_for(out, games * sum(engine.log_bytes(game_rules, len(match.ids))
                                              for match in played))  # fmt: skip
        with bar, runner(cluster) as running:
            summary = simulation.simulate(
                game.name, game_rules, specs, games, seed, out,
                make_bot=game.module("bots").make_bot, opponent=opponent, runner=running,
                progress=progress, **setup,
            )  # fmt: skip
    except ValueError as error:
        raise fail(str(error)) from None
    except OSError as error:
        raise fail(f"cannot write the logs into {out}: {error.strerror}") from None
    if as_json:
        print_json(summary)
        return
    shown_simulation(summary, engine.UTILITY)
    next_step(f"mine ingest {shlex.quote(str(out))}")


def shown_simulation(summary: dict[str, Any], utility: str) -> None:
    """Each match's players: games, wins and draws (where several play), mean return."""
    rows = [
        {"match": match["stem"] if k == 0 else "", **player}
        for match in summary["matches"]
        for k, player in enumerate(match["players"])
    ]
    if all(row["bot"] == row["id"] for row in rows):  # a bot met twice has an id of its own
        for row in rows:
            del row["bot"]
    out, matches = summary["out"], len(summary["matches"])
    title = (f"{summary['game']}: {matches} match{'es' * (matches != 1)} of "
             f"{summary['games']:,} games → {out}")  # fmt: skip
    columns = {"match": "match", "id": "player", "bot": "bot", "games": "games", "wins": "wins",
               "draws": "draws", "mean_return": "mean return"}  # fmt: skip
    columns = {key: heading for key, heading in columns.items() if any(key in r for r in rows)}
    show(rows, title, columns, {"mean_return": "{:+.4f}".format}, caption=f"return: {utility}")
    for match in summary["matches"]:
        for fault in match["faults"]:
            errors.print(f"fault: {match['stem']} game {fault['game']}, {fault['player']}: "
                         f"{fault['reason']}")  # fmt: skip


def stats(game: Game, db=None, lake=None, logs=None, cluster=None, as_json=False, by=None,
          table=None, **own) -> None:  # fmt: skip
    """Derive the game's statistics from the warehouse and store them as stats_<game>_*."""
    derived_by, display = game.module("stats"), game.module("commands")
    per_player = options.grouping(by, table) == "player"
    fitted = read_fitted(game, table) if table else None
    label = "reading each player's choices" if per_player else f"deriving {game.title}'s statistics"
    if cluster is not None and lake is None:
        raise fail("--cluster derives a lake's statistics: give --lake DIR")
    from mine.pipeline.commands import lake as lakes

    with working_on(db, read_only=False, lake=lake) as con, working(label, as_json):
        log_ids, read = chosen(con, game, logs)
        if per_player:
            derived = call(derived_by.by_player, con, log_ids, fitted, own=own)
        elif cluster is not None and lakes.combined_or_here(game):
            derived = lakes.derived_in_parts(
                game, lake, log_ids, taken(derived_by.derive, own), cluster
            )
        else:
            derived = call(derived_by.derive, con, log_ids, own=own)
        stored = derived_by.store(con, derived)
        if lake is not None:
            lakes.store(lake, con, stored)
    if as_json:
        rows = {name: frame.height for name, frame in zip(stored, derived, strict=True)}
        extra = {"table": None if table is None else str(table)} if per_player else {}
        print_json({**extra, "sources": read, "tables": rows, **derived_by.headline(derived)})
        return
    said_read(game, read)
    if per_player:
        display.players(derived, table)
    else:
        display.stats(derived)
    console.print(f"stored {', '.join(stored)}")
    if not per_player:
        next_step(f"mine fit {game.name}{options.again(db, logs, lake)}")


def fit(game: Game, out: Path, db=None, lake=None, logs=None, as_json=False, **own) -> None:
    """Fit the game's table from the warehouse's logs."""
    read, fitter = game.module("stats"), game.module("fitter")
    will_write(out)
    day_written()  # scikit-learn's import (numpy.f2py) reads it too, and raised int()'s words
    with working_on(db, lake=lake) as con, working(f"reading the {game.title} logs", as_json):
        log_ids, sources = chosen(con, game, logs)
        inputs = call(read.fit_inputs, con, log_ids, own=own)
    if "progress" in inspect.signature(fitter.fit).parameters:  # a fit that counts its work
        bar, progress = per_name(as_json)
        with refused(), bar:
            fitted = call(fitter.fit, inputs, own=own, progress=progress)
    else:
        with refused(), working(f"fitting the {game.title} table", as_json):
            fitted = call(fitter.fit, inputs, own=own)
    from mine.models.tables import TableError

    try:  # a file that cannot be written is one error line
        path = fitter.write_table(out, fitted)
    except TableError as error:
        raise fail(str(error)) from None
    except OSError as error:
        raise cannot_write(out, error) from None
    if as_json:
        print_json({"table": str(path), "sources": sources, **fitted.metadata})
        return
    said_read(game, sources)
    game.module("commands").fitted(fitted, path)
    next_step(f"mine generate {game.name} --table {path}")


def chosen(con: Any, game: Game, logs: str | None) -> tuple[list[int] | None, list[dict]]:
    """The game's logs `--logs` chooses, and the folders they were ingested from (logs each)."""
    log_ids = chosen_logs(con, game.name, logs)
    read = [{"folder": folder, "logs": n} for folder, n in sources(con, game.name, log_ids)]
    return log_ids, read


def said_read(game: Game, read: list[dict[str, Any]]) -> None:
    """Which folders' logs a command read: logs of several (your own and a tour's
    simulations in one warehouse) are mixed, which `--logs FOLDER` undoes."""
    here = inputs.working_folder()
    parts = []
    for source in read:
        folder = Path(source["folder"])
        shown = folder.relative_to(here) if here and folder.is_relative_to(here) else folder
        parts.append(f"{source['logs']:,} from {shown}/")
    mixed = " (logs of several folders: --logs FOLDER reads one)" if len(read) > 1 else ""
    console.print(f"read {game.title} logs: {', '.join(parts)}{mixed}")


def course(game: Game) -> ModuleType | None:
    """The generator of the course's own Haskell file, where the game's course takes one."""
    name = f"mine.strategies.codegen.haskell.{game.name}"
    return importlib.import_module(name) if importlib.util.find_spec(name) else None


def generate(game: Game, table: Path, out: Path, as_json=False, lang=None, **own) -> None:
    """Generate a single-file, standard-library-only player from a fitted table (or the
    course's Haskell file, deciding as that Python file does)."""
    from mine.strategies.codegen import write_player

    fitted = read_fitted(game, table)
    haskell = course(game) if lang is options.Language.haskell else None
    if haskell and out == Path(f"{game.name}_player.py"):  # --out left at its default
        out = Path(haskell.COURSE_FILE)
    will_write(out)
    header = made_by("-- " if haskell else "# ")  # before the work: it may be refused
    source, validator = game.module("codegen"), game.module("validator")
    with (
        refused(f"cannot generate from {table}: "),
        working("writing and measuring the player", as_json),
    ):
        measure = partial(call, validator.check, fitted=fitted, own=own)
        written = write_player(source, fitted, measure, **taken(source.module_source, own))
        text, hint = written.source, f"mine validate {game.name} {out}"
        if haskell:
            text, hint = haskell.haskell_source(written.source), haskell.SUBMIT.format(out=out)
    write_report(out, header + text, say=False)
    if as_json:
        print_json({"player": str(out), **written.card})
        return
    game.module("commands").generated(out, written.card)
    next_step(hint)


def made_by(comment: str) -> str:
    """The file's first lines: which mine wrote it, on which day (`day_written`), by which
    command (the docstring below it holds the data's fingerprint). The command starts on
    the third line: Python reads a coding declaration in the first two (PEP 263), and a
    path may hold one (`x-*-coding:utf-7-*-.parquet`), which would make the file decode
    as that, or not import."""
    # a path is the user's text: nothing in it may end the comment line
    command = "".join(c if c.isprintable() else "?" for c in shlex.join(["mine", *sys.argv[1:]]))
    said = [f"made by mine {__version__} on {day_written():%Y-%m-%d},", "by the command:"]
    said += textwrap.wrap(command, 76, break_on_hyphens=False, subsequent_indent="  ")
    return "".join(f"{comment}{line}\n" for line in said)


def validate(game: Game, player: Path, rules=None, against=None, cluster=None, as_json=False,
             **own) -> None:  # fmt: skip
    """Measure a player file against the game's baselines in its reference engine."""
    from mine.pipeline.cluster import runner
    from mine.pipeline.player_games import other_game
    from mine.strategies.contained import PlayerFault
    from mine.strategies.player_file import PlayerFileError, is_haskell, readable
    from mine.strategies.runners import SERIAL

    validator = game.module("validator")
    try:
        for path in (player, *([against] if against else [])):
            readable(path)
    except PlayerFileError as error:
        raise fail(str(error)) from None
    other_game(player, game, "validate")
    bar, progress = per_name(as_json)
    try:
        with bar, runner(cluster, SERIAL) as running:
            # A Haskell file is compiled (seconds) before its first game is counted.
            doing = "compiling" if is_haskell(player) else "measuring"
            first = bar.add_task(f"{doing} {player}", total=None)

            def counted(name: str, done: int, total: int) -> None:
                if first in bar.task_ids:  # counting: the count's bar says the rest
                    bar.remove_task(first)
                progress(name, done, total)

            fanned = {"runner": running} if cluster is not None else {}
            card = call(validator.validate, player, rules or [], against=against,
                        progress=counted, own=own, **fanned)  # fmt: skip
    except (ValueError, PlayerFault) as error:
        raise fail(str(error)) from None
    card = {"player": str(player), **card}
    if as_json:
        print_json(card)
    else:
        game.module("commands").validated(card)
    reason = validator.failure(card)
    if reason:
        raise fail(reason)


def report(game: Game, table: Path, out: Path, db=None, lake=None, logs=None, as_json=False,
           **own) -> None:  # fmt: skip
    """Write a fitted table's report: one self-contained HTML page."""
    page_of = game.module("report")
    if hasattr(page_of, "observed") and db is not None and not Path(db).exists():
        raise fail(f"{db}: no warehouse here yet; the report draws its logged games from it "
                   "beside the table (run `mine ingest` first, or leave out --db for the "
                   "table alone)")  # fmt: skip
    fitted = read_fitted(game, table)
    if own.get("card") is not None:  # an input as the table is: the page goes elsewhere
        outputs.reading(own["card"])
    will_write(out)
    day_written()  # the page's day, refused before the work if SOURCE_DATE_EPOCH names none
    observed = read = unlogged = None
    logged = db is not None or lake is not None or options.default_db_exists()
    alone = hasattr(page_of, "table_alone") and page_of.table_alone(**own)
    if hasattr(page_of, "observed") and logged and not alone:
        with working_on(db, lake=lake) as con:
            try:
                log_ids, read = chosen(con, game, logs)
                observed = page_of.observed(con, log_ids)
            except ValueError as error:  # none of the game's logs there, or none --logs names
                unlogged = error
    drawn = {}
    if "measured" in inspect.signature(page_of.html).parameters:
        drawn["measured"] = None if alone else card(game, fitted, table, own, as_json)
    with refused(), working("drawing the page", as_json):
        try:
            page = call(page_of.html, fitted, observed, own=own, **drawn)
        # a card's number past a float's range (JSON's integers go there): ArithmeticError
        except (LookupError, TypeError, AttributeError, ValueError, ArithmeticError) as error:
            if own.get("card") is None:
                raise
            missing = "no " if isinstance(error, LookupError) else ""
            raise fail(f"{own['card']}: not a card of `mine validate {game.name} --json` "
                       f"({missing}{error})") from None  # fmt: skip
    write_report(out, page, say=False)
    # Logs the user named (--db, --lake, --logs) of which none is drawn: their input was bad,
    # so the command fails, after writing what it could, as ingest lands the valid pairs.
    alone_said = "the page draws the table alone, without the logged games"
    if unlogged is not None:
        unlogged = f"{unlogged}: {alone_said}"
    named = unlogged is not None and (db, lake, logs) != (None, None, None)
    if as_json:
        sources = {} if read is None else {"sources": read}
        print_json({"wrote": str(out), "bytes": len(page.encode()), **sources})
    else:
        # Said once the page stands, so that a page that fails is its one error line alone.
        if hasattr(page_of, "observed") and not logged and not alone:
            unlogged = f"no warehouse (--db): {alone_said}"
        if unlogged and not named:
            errors.print(unlogged, style="dim", soft_wrap=True)
        if read is not None:
            said_read(game, read)
        console.print(f"wrote {out}", soft_wrap=True)  # a path, never cut in two
    if named:
        raise fail(unlogged)


CARD_BYTES = 64 << 20  # a card is kilobytes; a larger file is not one


def card(game: Game, fitted: Any, table: Path, own: dict[str, Any], as_json: bool) -> Any:
    """The player card a page draws: the one `--card` names (a `mine validate <game> --json`
    result), or the table's own player measured now as `mine generate` measures it (the
    figures its docstring states; the page's own options handed to that measure)."""
    given = own.get("card")
    if given is not None:
        try:  # never a FIFO, a device or a giant; JSON no deeper than mine writes
            return inputs.read_json(given, CARD_BYTES)
        except inputs.InputError as error:
            raise fail(f"cannot read it as a card: {error}") from None
    from mine.strategies.codegen import write_player

    measure = partial(call, game.module("validator").check, fitted=fitted, own=own)
    with (
        refused(f"cannot measure the player of {table}: "),
        working("measuring the player", as_json),
    ):
        return write_player(game.module("codegen"), fitted, measure).card


VERBS: dict[str, Callable[..., None]] = {
    "simulate": simulate,
    "stats": stats,
    "fit": fit,
    "generate": generate,
    "validate": validate,
    "report": report,
}

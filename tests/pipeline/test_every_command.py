"""Every command that prints a summary, for every game of the registry, on tiny inputs and
on a terminal (rich told it is one): with `--json` stdout is one JSON document and stderr
stays empty (no bar, no spinner, no hint); without it, progress shows on stderr and each
step of the loop names the next.

The cases come from the registry and the commands the CLI mounts, and each command's
options are filled from their names (the warehouse, the files the loop has written so far,
every count at its smallest, a tournament's bots and a measure's baselines the first of their
defaults), so a new game or verb is covered without editing this file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer

from mine import games
from mine.pipeline import cli
from tests.mine_cli import SHOWS_PROGRESS, invoke

CLI = typer.main.get_command(cli.app)
SHARED = [name for name in CLI.commands if name not in cli.VERBS]  # ingest, query, tables, …
COUNTS = {"games", "hands", "shoe_hands", "check_games", "answers", "equal_depth", "workers"}
# Bots a step plays against: the first of its defaults. One bot is as much a tournament or a
# measure, its JSON and its progress, as five (Hog's tournament of every baseline, 15 pairings
# twice, was 9 of this file's CPU seconds; Super-Nim's measure against alphabeta:4 and exact, 8).
FIRST_ONLY = {"bots", "baselines"}
# A game's rules where the defaults make a minimal step slow, for every step that takes them:
# TwentyOne's hands end at 3 cards (Charlie), so the exact optimum its validate solves for
# a 3-deck shoe is a shallow search (6 CPU seconds at 5 cards; the steps print as they do);
# its games are 100 rounds, not 1,000 (simulate, fit and tournament played or read 3,000
# rounds, about 5 CPU seconds; 300 fill every table of the fit all the same).
RULES = {"twentyone": ("charlie_cards=3", "rounds=100")}
SIMULATED_GAMES = 3  # per match: enough for every game's fit, at its smallest
SLOW_DEFAULTS = {"sizes": "2", "n": "2", "quick": True}  # card guessing: n = 4 takes minutes
NEXT = {"simulate": "ingest", "ingest": "stats", "stats": "fit", "fit": "generate",
        "generate": "validate"}  # fmt: skip


def command(verb: str, game: str):
    """`mine <verb> <game>` as the CLI mounts it (or `mine <verb>` for a shared command)."""
    found = CLI.commands[verb]
    return found if verb in SHARED else found.get_command(None, game)


def prints_summary(found) -> bool:
    return found is not None and any(param.name == "as_json" for param in found.params)


def loop_of(game: str) -> list[str]:
    """The game's verbs in the loop's order (ingest after simulate), then the shared ones."""
    verbs = ["simulate", "ingest", *(v for v in cli.VERBS if v != "simulate"), *SHARED]
    ordered = list(dict.fromkeys(verbs))
    return [verb for verb in ordered if prints_summary(command(verb, game))]


CASES = [(game.name, verb) for game in games.with_part("commands") for verb in loop_of(game.name)]


class Loop:
    """The files one game's loop has written, and what each option of a step is given."""

    def __init__(self, root: Path, game: str = "") -> None:
        self.root, self.db, self.game = root, root / "w.duckdb", game
        self.logs, self.table, self.player = root / "logs", root / "t.parquet", root / "p.py"
        self.runs = 0

    def arguments(self, verb: str, found) -> list[str]:
        self.runs += 1
        outs = {"simulate": self.logs, "fit": self.table, "generate": self.player}
        given = {
            "db": self.db,
            "paths": self.logs,
            "player": self.player,
            "files": self.player,  # a tournament's: the loop's player against the bots
            "table": self.table,
            "out": outs.get(verb, self.root / f"{verb}-{self.runs}.out"),
            "folder": self.root / f"{verb}-{self.runs}",  # export wants a new folder
            **SLOW_DEFAULTS,
        }
        words: list[str] = []
        for param in found.params:
            name, flag = param.name, param.opts[0]
            if name == "as_json" or (name == "table" and not param.required):
                continue
            if name == "games" and verb == "simulate":
                value = SIMULATED_GAMES
            elif name in COUNTS:
                value = param.min
            elif name in FIRST_ONLY and isinstance(param.default, str):
                value = param.default.split(",")[0]
            elif name == "rules" and self.game in RULES:
                value = RULES[self.game]
            elif name in given:
                value = given[name]
            else:
                continue  # its default
            if param.param_type_name == "argument":
                words.append(str(value))
            elif value is True:
                words.append(flag)
            elif isinstance(value, tuple):  # a repeatable option, given each value
                words += [word for each in value for word in (flag, each)]
            else:
                words += [flag, str(value)]
        return words


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each game's loop run once as a user runs it and once with --json, step by step, on a
    terminal: {(game, verb): (plain result, JSON result)}."""
    done = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TTY_COMPATIBLE", "1")  # rich: stderr is a terminal, progress would show
        for game in games.with_part("commands"):
            loop = Loop(tmp_path_factory.mktemp(game.name), game.name)
            for verb in loop_of(game.name):
                found = command(verb, game.name)
                args = [verb, *([] if verb in SHARED else [game.name])]
                plain = invoke(*args, *loop.arguments(verb, found))
                done[game.name, verb] = plain, invoke(*args, *loop.arguments(verb, found), "--json")
    return done


@pytest.mark.parametrize("game, verb", CASES)
def test_json_is_one_document_and_nothing_else(runs, game, verb):
    _, as_json = runs[game, verb]
    assert isinstance(json.loads(as_json.stdout), dict | list)
    assert as_json.stderr == "", f"mine {verb} {game} --json wrote to stderr"


@pytest.mark.parametrize("game, verb", CASES)
def test_progress_shows_on_a_terminal(runs, game, verb):
    plain, _ = runs[game, verb]
    assert SHOWS_PROGRESS in plain.stderr, f"mine {verb} {game} shows no progress"


@pytest.mark.parametrize("game", [game.name for game in games.with_part("commands")])
def test_each_step_names_the_next(runs, game):
    for verb, following in NEXT.items():
        plain, _ = runs[game, verb]
        words = ["mine", following] + ([] if following == "ingest" else [game])
        hints = [line for line in plain.stderr.splitlines() if "next: " in line]
        assert any(" ".join(words) in hint for hint in hints), (verb, plain.stderr)


def test_every_command_but_query_and_demo_prints_json():
    """`query` writes JSON with --format json; `demo` shows the loop, it returns nothing."""
    for game in games.with_part("commands"):
        for verb in [*cli.VERBS, *SHARED]:
            found = command(verb, game.name)
            if found is not None and verb not in ("query", "demo"):
                assert prints_summary(found), f"mine {verb} {game.name} has no --json"

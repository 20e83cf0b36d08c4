"""The games mine knows: one frozen record per game, naming its part in every layer (a
module of the game's name in each layer's folder: `parsers/hog.py`, `models/hog.py`, …).

Like RLCard's registry, a record names its parts as module paths and imports nothing: every
layer reads it without pulling in the layers above, and a command loads only the game it
runs. What a game's module provides in each layer is that layer's `CONTRACT`
(`tests/test_contracts.py` holds every game's modules to theirs).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

PARTS = {
    "log_format": "parsers",  # read and write its turn and score files
    "schema": "warehouse",  # its tables, views, ingest checks
    "stats": "pipeline.stats",  # warehouse tables → per-situation statistics (polars)
    "fitter": "models",  # statistics → lookup tables
    "engine": "strategies.engines",  # the rules, the game loop, log writing
    "bots": "strategies.bots",  # the baselines players are measured against
    "solver": "strategies.solvers",  # the exact optimum, where the game allows one
    "codegen": "strategies.codegen",  # table → single-file player
    "validator": "strategies.validation",  # a player file measured in the engine
    "report": "pipeline.reports",  # the HTML page (and other formats) of a table
    "commands": "pipeline.commands",  # `mine <verb> <game>`: options, what it prints, demo
}
EVERY_PART = frozenset(PARTS)


@dataclass(frozen=True)
class Game:
    name: str  # the module name in every layer, and the word on the command line
    title: str
    about: str  # one line for `--help`
    parts: frozenset[str] = EVERY_PART

    def has(self, part: str) -> bool:
        return part in self.parts

    def module_name(self, part: str) -> str:
        return f"mine.{PARTS[part]}.{self.name}"

    def package(self, part: str) -> ModuleType:
        """The layer package of `part` (where its CONTRACT is stated)."""
        return importlib.import_module(f"mine.{PARTS[part]}")

    def module(self, part: str) -> ModuleType:
        """The game's module of `part` (imported now, on first use)."""
        if part not in self.parts:
            raise LookupError(f"{self.title} has no {part}")
        return importlib.import_module(self.module_name(part))


GAMES: tuple[Game, ...] = (
    Game("twentyone", "TwentyOne", "TwentyOne, a blackjack variant (FIT2102 2021)"),
    Game(
        "ginrummy",
        "Gin Rummy",
        "Gin Rummy, the course variant (FIT2102)",
        parts=EVERY_PART - {"solver"},
    ),
    Game("hog", "Hog", "Hog, the dice game (CS 61A)"),
    Game("supernim", "Super-Nim", "Super-Nim, merging and Collatz-splitting heaps"),
    Game("cardguess", "Card guessing", "Card guessing, the deduction game (COMP30020 2016)"),
)
"""In the order commands list them and ingest tries their formats."""


def names() -> tuple[str, ...]:
    return tuple(game.name for game in GAMES)


def get(name: str) -> Game:
    for game in GAMES:
        if game.name == name:
            return game
    raise LookupError(f"unknown game {name!r} (known: {', '.join(names())})")


def with_part(part: str) -> tuple[Game, ...]:
    return tuple(game for game in GAMES if game.has(part))

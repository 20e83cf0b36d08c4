"""One module per game with its `mine <verb> <game>` commands.

Each module defines `COMMANDS`, a mapping from a verb (`simulate`, `stats`, `fit`,
`generate`, `validate`, `report`) to a typer command function; `pipeline.cli` mounts
`COMMANDS[verb]` as `mine <verb> <game>`. Adding a game adds a module to `GAMES`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

GAMES = ("twentyone", "ginrummy", "hog")


def game_commands() -> dict[str, ModuleType]:
    """The command module of every game that has one yet."""
    modules = {}
    for game in GAMES:
        try:
            modules[game] = importlib.import_module(f"pipeline.commands.{game}")
        except ModuleNotFoundError as error:
            if error.name != f"pipeline.commands.{game}":
                raise
    return modules

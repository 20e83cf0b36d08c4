"""`mine check FILE`: whether a player file loads as its game's harness loads it (a
Haskell file compiled with its course's flags beside the course's stand-in modules, a
Python file imported), contained, in one line: ok, or the one error."""

from __future__ import annotations

from pathlib import Path

from mine import games
from mine.pipeline.console import console, fail, print_json
from mine.pipeline.player_games import played_by
from mine.pipeline.progress import working
from mine.strategies import contained
from mine.strategies.player_file import (
    PlayerFileError,
    is_haskell,
    load_module,
    prepare,
    readable,
)


def check(path: Path, game_name: str | None, as_json: bool = False) -> None:
    try:
        readable(path)
        game = games.get(game_name.lower()) if game_name else None
    except PlayerFileError as error:
        raise fail(str(error)) from None
    except LookupError:
        raise fail(f"--game {game_name}: one of {', '.join(games.names())}") from None
    found = played_by(path)
    if game is None and found is None:
        if not is_haskell(path):  # what keeps a file from loading (a SyntaxError) comes first
            try:
                contained.run(path, _load, [(None, str(path))])
            except (PlayerFileError, contained.PlayerFault) as error:
                raise fail(str(error)) from None
        raise fail(f"{path}: cannot tell which game it plays (a Haskell file imports its "
                   "course's modules, a Python file defines a game's functions): give "
                   "--game")  # fmt: skip
    game = game or games.get(found.game)
    validator = game.module("validator")
    haskell = is_haskell(path)
    try:
        with working(f"{'compiling' if haskell else 'loading'} {path}", as_json):
            prepare([path], game.name)  # a Haskell file: compiled, contained
            contained.run(path, _load, [(game.name, str(path))], limits=validator.LIMITS)
    except (PlayerFileError, contained.PlayerFault) as error:
        raise fail(str(error)) from None
    if as_json:
        print_json({"player": str(path), "game": game.name, "ok": True})
        return
    how = "compiles with its course's flags and stand-ins, and loads" if haskell else "loads"
    console.print(f"ok: {path}: a {game.title} player; it {how}", soft_wrap=True)


def _load(task: tuple[str | None, str]) -> None:
    """In a contained worker: the file loaded as the game's validator loads it (no game:
    run as every Python player file is, asked for no function)."""
    game, path = task
    if game is None:
        load_module(path, "unknown", ())
    else:
        games.get(game).module("validator").load(path)

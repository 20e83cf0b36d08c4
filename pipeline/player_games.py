"""Which game a player file plays, read from the file without running it: a Haskell file
by the course modules it imports (those only one game's course bundle holds: `Rummy.Types`
is Gin Rummy's, `TwentyOne.Types` TwentyOne's, `Card` card guessing's), a Python file by
the functions it defines (all of one game's validator's `FUNCTIONS`). One place for
`mine check` and for `mine validate` and `mine tournament`, which say "this is a Gin Rummy
player" of a file given to another game instead of a compile error."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import NamedTuple

from mine import games
from mine.games import Game
from mine.pipeline.console import fail
from mine.strategies.haskell.build import BUNDLES, COURSES
from mine.strategies.player_file import PlayerFileError, is_haskell, there

IMPORT = re.compile(r"^import\s+(?:safe\s+)?(?:qualified\s+)?([A-Z][\w.']*)", re.MULTILINE)


class Played(NamedTuple):
    game: str
    reason: str  # what in the file says so: `it imports Rummy.Types`


def played_by(path: str | Path, unless: Game | None = None) -> Played | None:
    """The game the file at `path` plays, or None when it cannot be told (a file that is
    not there, not text, or says no game's names): the loader then says what is wrong.
    With `unless`, also None for a Python file that defines that game's functions: it plays
    that game, or cannot be told from it, and no other game's validator is imported."""
    try:
        text = there(path).read_bytes().decode("utf-8")
    except (PlayerFileError, OSError, UnicodeDecodeError):
        return None
    return _by_imports(text) if is_haskell(path) else _by_functions(text, unless)


def other_game(player: str | Path, game: Game, verb: str) -> None:
    """One line for a file of another game (`validate twentyone GinPlayer.hs`), which
    would otherwise fail to load or compile against the wrong course's modules, or play
    and lose every game to an invalid action (a Gin Rummy file has TwentyOne's `play`)."""
    found = played_by(player, unless=game)
    if found is not None and found.game != game.name:
        title = games.get(found.game).title
        raise fail(f"{player}: this is a {title} player, not a {game.title} one "
                   f"({found.reason}): mine {verb} {found.game} {player}")  # fmt: skip


def _by_imports(text: str) -> Played | None:
    own = _course_modules()
    found = {own[name] for name in IMPORT.findall(text) if name in own}
    if len(found) != 1:
        return None
    (game,) = found
    named = sorted(name for name in IMPORT.findall(text) if own.get(name) == game)
    return Played(game, f"it imports {', '.join(named)}")


def _course_modules() -> dict[str, str]:
    """Each module a player may import that only one game's course bundle holds (its own
    folder's stand-ins; `Main` is mine's driver), and that game."""
    holders: dict[str, set[str]] = {}
    for game, course in COURSES.items():
        folder = BUNDLES / course.folders[0]
        for source in folder.rglob("*.hs"):
            name = ".".join(source.relative_to(folder).with_suffix("").parts)
            if name != "Main":
                holders.setdefault(name, set()).add(game)
    return {name: next(iter(held)) for name, held in holders.items() if len(held) == 1}


def _by_functions(text: str, unless: Game | None = None) -> Played | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):  # the last two: an
        return None  # expression nested past the parser's depth (`return ---…1`)
    defined = {node.name for node in tree.body
               if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}  # fmt: skip
    # The other games' validators (their engines, bots, solvers) are together a twentieth
    # of a CPU second of imports, which a `validate` or `tournament` of its own game's file
    # need not pay.
    if unless is not None and set(unless.module("validator").FUNCTIONS) <= defined:
        return None
    found = [
        (game.name, functions)
        for game in games.with_part("validator")
        if set(functions := game.module("validator").FUNCTIONS) <= defined
    ]
    if len(found) != 1:
        return None
    game, functions = found[0]
    return Played(game, f"it defines {', '.join(functions)}")

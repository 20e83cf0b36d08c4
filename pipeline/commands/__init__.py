"""`mine <verb> <game>`: the commands, built from the registry.

`simulate`, `stats`, `fit`, `generate`, `validate` and `report` are one command for every
game (`loop.py`); `pipeline.cli` mounts `command(verb, game)` as `mine <verb> <game>`,
importing the game's modules only when the command runs (or its help shows). `data.py`
holds the commands that are not a game's (ingest, query, tables, export).

A game's module (the registry's `commands`) provides `CONTRACT`:
- `OPTIONS`: verb → {name: (annotation, default)}, the game's own options of that verb
  (`options.own`; one may redefine a shared option: its own default or help), each handed
  to every layer call of the verb that takes a parameter of that name (`--bucket` to
  Hog's `derive`, `--method` to its `fit`); `ABOUT`: verb → the command's help;
- what the commands print at a terminal (with `--json`, the same results as JSON), with
  `pipeline.console`'s `show`/`show_pairs`: `stats`, `fitted`, `generated`, `validated`,
  and `players` where the game has per-player statistics;
- its part of `mine demo`: `QUERIES` (title → SQL over its example logs, the temporary
  table `example_logs` naming them) and `LOOP`, the commands of its whole loop (`{db}` the
  demo's warehouse, `{out}` its folder);
and `tournament` where the game plays tournaments.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from mine.games import Game

CONTRACT = {
    "OPTIONS": None,
    "ABOUT": None,
    "stats": ("stats",),
    "fitted": ("fitted", "path"),
    "generated": ("path", "card"),
    "validated": ("card",),
    "QUERIES": None,
    "LOOP": None,
}
OPTIONAL = {"players": ("stats", "table")}
OWN = ("tournament",)  # verbs a game writes itself


def command(verb: str, game: Game) -> Callable[..., None] | None:
    """The function typer mounts as `mine <verb> <game>`, or None where the game has no
    such command."""
    commands = game.module("commands")
    if verb in OWN:
        return getattr(commands, verb, None)
    from mine.pipeline.commands import loop

    run = loop.VERBS[verb]
    shared = loop.parameters(verb, game)
    if shared is None:
        return None
    own = commands.OPTIONS.get(verb, {})
    both = {name: spec for name, spec in shared.items() if name not in own} | own  # own wins

    def mounted(**given):
        run(game, **given)

    mounted.__name__ = verb
    mounted.__doc__ = commands.ABOUT.get(verb, run.__doc__)
    mounted.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=kind, default=default)
        for name, (kind, default) in both.items()
    )
    return mounted

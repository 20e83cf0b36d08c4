"""`mine`: ingest game logs into DuckDB, query them, and turn them into players."""

from __future__ import annotations

import typer

from pipeline.commands import game_commands

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)

VERBS = {
    "simulate": "Play games between engines' bots and write logs in the real format.",
    "stats": "Derive per-situation statistics from the warehouse and store them there.",
    "fit": "Fit lookup tables from the warehouse's statistics.",
    "generate": "Generate a single-file player from a fitted table.",
    "validate": "Measure a generated player against the baselines in the reference engine.",
    "report": "Write a self-contained HTML report.",
}


def _mount_game_commands() -> None:
    verb_apps: dict[str, typer.Typer] = {}
    for game, module in game_commands().items():
        for verb, command in module.COMMANDS.items():
            if verb not in verb_apps:
                verb_apps[verb] = typer.Typer(no_args_is_help=True, help=VERBS[verb])
                app.add_typer(verb_apps[verb], name=verb)
            verb_apps[verb].command(game)(command)


_mount_game_commands()

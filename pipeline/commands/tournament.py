"""`mine tournament <game>`: what every game's command shares once its options are read
(the round robin itself is `strategies.tournament`): progress while it plays, the standings
and pairings as tables (or one JSON document), the HTML page, and the exit code: 1 when an
entrant was disqualified (after everything else is printed) or a player file is refused
before any game (as `validate` and `check` refuse it), 2 when the tournament is asked for
wrongly (too few entrants, an unknown bot, an odd number of games: a usage error, as
typer's).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import typer

from mine import games as registry
from mine import outputs
from mine.pipeline import options
from mine.pipeline.cluster import runner
from mine.pipeline.console import fail, print_json, show, will_write, write_report
from mine.pipeline.player_games import other_game
from mine.pipeline.progress import per_name
from mine.pipeline.reports import tournament as page
from mine.strategies import tournament as core
from mine.strategies.player_file import PlayerFileError
from mine.strategies.tournament.match import Match


def run(
    game: str,
    files: list[Path] | None,
    bots: str,
    games: int,
    seed: int,
    workers: int,
    context: Any,
    as_json: bool,
    html: Path | None,
    cluster: str | None = None,
) -> None:
    """The round robin of `files` and `bots` in `game`, printed. With `cluster`, its games
    are the cluster's tasks (`workers` then does not apply)."""
    match = Match(registry.get(game).name)
    outputs.reading(*(files or []))
    if html is not None:
        will_write(html)  # before the games, not after them
    try:
        entrants = core.entrants_of(files or [], options.names(bots), match, context)
    except PlayerFileError as error:  # exit code 1, as validate and check refuse the file
        raise fail(str(error)) from None
    except core.TournamentError as error:  # how it was asked: a usage error, as typer's
        raise fail(str(error), 2) from None
    for file in files or []:
        other_game(file, registry.get(game), "tournament")
    bar, progress = per_name(as_json)
    try:
        on_cluster = runner(cluster) if cluster else contextlib.nullcontext()
        with bar, on_cluster as running:
            result = core.round_robin(match, entrants, games, seed, context, workers,
                                      progress=progress, runner=running)  # fmt: skip
    except core.TournamentError as error:
        raise fail(str(error), 2) from None
    result = {"game": game, **result}
    if html is not None:
        write_report(html, page.html(result, match.MARGIN), say=not as_json)
        result["html"] = str(html)
    if as_json:
        print_json(result)
    else:
        _print(result, match.MARGIN)
    for name, fault in result["disqualified"].items():  # one line each, after the results
        fail(f"{name}: disqualified, {fault['reason']} ({fault['when']})")
    if result["disqualified"]:
        raise typer.Exit(1)


def _print(result: dict[str, Any], margin: str | None) -> None:
    """The standings, then the pairings (a column only where some row has a value)."""
    show(page.standing_rows(result), page.title(result), caption=page.rating_note(result))
    pairs = page.pairing_rows(result)
    columns = dict.fromkeys(key for row in pairs for key in row)  # in order of appearance
    show(pairs, "pairings, from A's side", {k: k for k in columns}, page.FORMATS,
         caption=f"margin: {margin}, mean per game" if margin else None)  # fmt: skip

"""`mine <verb> ginrummy`: simulate games between Gin Rummy bots in the real log format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from strategies.bots.ginrummy import make_bot
from strategies.engines.ginrummy import GinRummyRules, play_game, write_game
from strategies.melds import MeldSolver

console = Console()
errors = Console(stderr=True)


def _fail(message: str) -> typer.Exit:
    errors.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(1)


def simulate(
    games: Annotated[int, typer.Option(min=1, help="Number of games.")] = 100,
    seats: Annotated[
        str,
        typer.Option(
            help="The two bots, comma-separated: simple, random, ginhunter, explorer, "
            "explorer:<share>, explorer:<policy>:<share>."
        ),
    ] = "simple,explorer",
    seed: Annotated[int, typer.Option(min=0, help="Seed (same seed, same bytes).")] = 0,
    out: Annotated[Path, typer.Option(help="Folder for the log files.")] = Path("logs/ginrummy"),
    view: Annotated[
        int, typer.Option(min=0, max=1, help="Seat whose point of view the logs take.")
    ] = 0,
    rules: Annotated[
        list[str] | None,
        typer.Option(
            "--rules",
            help="A rule setting KEY=VALUE (knock_limit=5, game_target=50, …); repeatable.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Play games between two bots; write <stem>.csv + <stem>-score.csv per game."""
    try:
        game_rules = GinRummyRules.from_settings(rules or [])
    except (ValueError, TypeError) as error:
        raise _fail(str(error)) from None
    if game_rules.hand_size != 10:
        raise _fail("the log format holds 10-card hands; hand_size must stay 10 to write logs")
    specs = [spec.strip() for spec in seats.split(",") if spec.strip()]
    if len(specs) != 2:
        raise _fail(f"--seats needs exactly two bots, not {seats!r}")
    solver = MeldSolver(game_rules.meld_sizes)
    try:
        for spec in specs:
            make_bot(spec, np.random.default_rng(0), game_rules, solver)
    except ValueError as error:
        raise _fail(str(error)) from None
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _fail(f"cannot create {out}: {error.strerror}") from None

    wins, rounds, invalid, endings = [0, 0], 0, 0, {"Gin": 0, "Knock": 0, "Drop": 0}
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=errors, disable=as_json, transient=True) as bar:
        task = bar.add_task(f"{specs[0]} vs {specs[1]}", total=games)
        for index in range(games):
            # One generator per game, from (seed, game): a game's bytes do not depend on --games.
            rng = np.random.default_rng([seed, index])
            players = [make_bot(spec, rng, game_rules, solver) for spec in specs]
            record = play_game(game_rules, players, rng, solver)
            write_game(record, view, out, f"ginrummy-{seed}-{index + 1:06d}")
            if record.invalid is not None:
                invalid += 1
            else:
                wins[0 if record.totals[0] > record.totals[1] else 1] += 1
            rounds += len(record.rounds)
            for game_round in record.rounds:
                endings[game_round.ending] += 1
            bar.advance(task)

    summary = {
        "games": games,
        "seats": specs,
        "seed": seed,
        "out": str(out),
        "wins": wins,
        "invalid": invalid,
        "rounds": rounds,
        "endings": endings,
        "rules": game_rules.__dict__,
    }
    if as_json:
        print(json.dumps(summary, indent=2))
        return
    table = Table(title=f"ginrummy: {games:,} games → {out}")
    for name in ("seat", "bot", "wins"):
        table.add_column(name, justify="right" if name == "wins" else "left")
    for seat, spec in enumerate(specs):
        table.add_row(str(seat), spec, f"{wins[seat]:,}")
    console.print(table)
    console.print(
        f"{rounds:,} rounds: {endings['Gin']:,} gin, {endings['Knock']:,} knock, "
        f"{endings['Drop']:,} stock-out; {invalid:,} games ended by an invalid play"
    )


COMMANDS = {"simulate": simulate}

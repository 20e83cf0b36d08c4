"""`mine <verb> twentyone`: play games between bots and write logs in the server's format."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from strategies.bots.twentyone import BOTS, make_bot
from strategies.engines.twentyone import BID, TwentyOneRules, play_game, write_logs

console = Console()
errors = Console(stderr=True)
EPOCH = datetime(2021, 10, 1)  # stems look like the server's timestamps; game g is EPOCH + g s


def _fail(message: str) -> typer.Exit:
    errors.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(1)


def stem(seed: int, game: int) -> str:
    return f"{EPOCH + timedelta(seconds=game):%Y%m%d-%H%M%S}-s{seed}"


def simulate(
    games: Annotated[int, typer.Option(min=1, help="Games to play (one file pair each).")] = 10,
    seats: Annotated[
        str,
        typer.Option(
            help="Bots, comma-separated, one per seat: "
            f"{', '.join(BOTS)}; explorer:POLICY:SHARE (explorer:textbook:0.1)."
        ),
    ] = "textbook,dealer,cautious,random,explorer",
    seed: Annotated[
        int, typer.Option(help="Seed of shoes, seats and bots (same seed, same bytes).")
    ] = 0,
    out: Annotated[Path, typer.Option(help="Folder for the log files.")] = Path("logs/twentyone"),
    me: Annotated[
        int,
        typer.Option("--me", min=0, help="The seat (index in --seats) the logs are written for."),
    ] = 0,
    rounds: Annotated[
        int | None, typer.Option(min=1, help="Rounds per game (rules' default 1000).")
    ] = None,
    rules: Annotated[
        list[str] | None,
        typer.Option(
            "--rules",
            help="A rule setting KEY=VALUE (decks=6, charlie=off, max_bid=1000, …); repeatable.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Play TwentyOne games and write <stem>.csv + <stem>-score.csv per game."""
    try:
        game_rules = TwentyOneRules.from_settings(rules or [])
        if rounds is not None:
            game_rules = game_rules.replace(rounds=rounds)
    except (ValueError, TypeError) as error:
        raise _fail(str(error)) from None
    specs = [s.strip() for s in seats.split(",") if s.strip()]
    if not 1 <= len(specs) <= game_rules.max_players:
        raise _fail(f"--seats needs 1 to {game_rules.max_players} bots, got {len(specs)}")
    if me >= len(specs):
        raise _fail(f"--me {me} is not a seat (0..{len(specs) - 1})")
    ids = [str(i + 1) for i in range(len(specs))]  # the server's ids are numbers
    try:
        for spec in specs:  # fail on a bad name before any file is written
            make_bot(spec, np.random.default_rng(0), game_rules)
    except ValueError as error:
        raise _fail(str(error)) from None
    out.mkdir(parents=True, exist_ok=True)
    totals = dict.fromkeys(ids, 0)
    wins = dict.fromkeys(ids, 0)
    played = dict.fromkeys(ids, 0)  # hands each player bid on
    disqualified: dict[str, str] = {}
    hands = 0
    columns = (TextColumn("games"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=errors, disable=as_json, transient=True) as bar:
        task = bar.add_task("games", total=games)
        for game, sequence in enumerate(np.random.SeedSequence(seed).spawn(games)):
            table_rng, *bot_rngs = (
                np.random.default_rng(s) for s in sequence.spawn(len(specs) + 1)
            )
            players = {
                pid: make_bot(spec, rng, game_rules)
                for pid, spec, rng in zip(ids, specs, bot_rngs, strict=True)
            }
            state = play_game(game_rules, players, table_rng)
            write_logs(state, ids[me], out, stem(seed, game))
            for pid, points in zip(state.ids, state.points, strict=True):
                totals[pid] += points - game_rules.starting_points
            wins[state.standings()[0]] += 1
            for seat, reason in enumerate(state.disqualified):
                if reason is not None:
                    disqualified[f"game {game} player {state.ids[seat]}"] = reason
            for record in state.records:
                for row in record.rows:
                    if row[3] == BID:
                        played[state.ids[row[1]]] += 1
                        hands += 1
            bar.update(task, advance=1)
    summary = {
        "rules": dataclasses.asdict(game_rules),
        "seed": seed,
        "out": str(out),
        "games": games,
        "player_hands": hands,
        "perspective": ids[me],
        "players": [
            {
                "id": pid,
                "bot": spec,
                "hands": played[pid],
                "net_points": totals[pid],
                "games_won": wins[pid],
            }
            for pid, spec in zip(ids, specs, strict=True)
        ],
        "disqualified": disqualified,
    }
    if as_json:
        print(json.dumps(summary, indent=2))
        return
    table = Table(title=f"twentyone: {games} games, {hands:,} player-hands → {out}")
    for name in ("id", "bot", "hands", "net points", "per hand", "games won"):
        table.add_column(name, justify="left" if name in ("id", "bot") else "right")
    for row in summary["players"]:
        table.add_row(
            row["id"] + (" (me)" if row["id"] == ids[me] else ""),
            row["bot"],
            f"{row['hands']:,}",
            f"{row['net_points']:+,}",
            f"{row['net_points'] / max(row['hands'], 1):+.2f}",
            str(row["games_won"]),
        )
    console.print(table)
    for where, reason in disqualified.items():
        errors.print(f"[yellow]disqualified:[/yellow] {where}: {reason}", highlight=False)


COMMANDS = {"simulate": simulate}

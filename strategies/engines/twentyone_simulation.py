"""TwentyOne simulations: games between bots, logs in the server's format
(`mine simulate twentyone`; the engine module's `simulate` is this one).

The engine module offers `simulate` as its contract asks, and this module plays through
the engine: so it reads the engine (and its log writer) when it runs, not when it loads.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mine.strategies.runners import SERIAL, Runner, child, spans

if TYPE_CHECKING:
    from mine.strategies.engines.twentyone import Player, TwentyOneRules

EPOCH = datetime(2021, 10, 1)  # stems look like the server's timestamps; game g is EPOCH + g s


def stem(seed: int, game: int) -> str:
    return f"{EPOCH + timedelta(seconds=game):%Y%m%d-%H%M%S}-s{seed}"


GAMES_PER_TASK = 50  # a task of `simulate`: a few seconds of play, about 10 MB of logs


def simulate(
    rules: TwentyOneRules,
    players: Sequence[str],
    games: int,
    seed: int,
    out: str | Path,
    *,
    make_bot: Callable[[str, TwentyOneRules, np.random.Generator], Player],
    progress: Callable[[str, int, int], None] | None = None,
    me: int = 0,
    runner: Runner = SERIAL,
) -> dict[str, Any]:
    """Play `games` games between the bots named in `players` (one a seat; `make_bot(spec,
    rules, rng)` makes each from its own generator) and write each game's logs into `out`
    from seat `me`'s point of view; returns the summary (net points, hands and wins per
    player). Game g draws its table's and its players' generators from the g-th child of
    `seed`, so the same seed writes the same bytes, in tasks of GAMES_PER_TASK games run
    by `runner` (`make_bot` then must pickle) and summed in game order."""
    ids = [str(i + 1) for i in range(len(players))]  # the server's ids are numbers
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    chunks = spans(games, GAMES_PER_TASK)
    tasks = [(rules, players, make_bot, span, seed, out.absolute(), me) for span in chunks]
    totals, wins, played = (dict.fromkeys(ids, 0) for _ in range(3))  # played: hands bid on
    disqualified: dict[str, str] = {}
    for span, part in zip(chunks, runner.map(_play_games, tasks), strict=True):
        for summed, counts in zip((totals, wins, played), part[:3], strict=True):
            for pid, count in counts.items():
                summed[pid] += count
        disqualified.update(part[3])
        if progress:
            progress("games", span.stop, games)
    return {
        "rules": dataclasses.asdict(rules),
        "seed": seed,
        "out": str(out),
        "games": games,
        "player_hands": sum(played.values()),
        "perspective": ids[me],
        "players": [
            {
                "id": pid,
                "bot": spec,
                "hands": played[pid],
                "net_points": totals[pid],
                "games_won": wins[pid],
            }
            for pid, spec in zip(ids, players, strict=True)
        ],
        "disqualified": disqualified,
    }


def _play_games(task: tuple) -> tuple[dict[str, int], dict[str, int], dict[str, int], dict]:
    """One task of `simulate`: its games played and written, and what they add up to."""
    from mine.strategies.engines.twentyone import BID, play_game
    from mine.strategies.engines.twentyone_logs import write_logs

    rules, players, make_bot, span, seed, out, me = task
    ids = [str(i + 1) for i in range(len(players))]
    totals, wins, played = (dict.fromkeys(ids, 0) for _ in range(3))
    disqualified: dict[str, str] = {}
    for game in span:
        sequence = child(seed, game)
        table_rng, *rngs = (np.random.default_rng(s) for s in sequence.spawn(len(players) + 1))
        seated = {
            pid: make_bot(spec, rules, rng)
            for pid, spec, rng in zip(ids, players, rngs, strict=True)
        }
        state = play_game(rules, seated, table_rng)
        write_logs(state, ids[me], out, stem(seed, game))
        for pid, points in zip(state.ids, state.points, strict=True):
            totals[pid] += points - rules.starting_points
        wins[state.standings()[0]] += 1
        for seat, reason in enumerate(state.disqualified):
            if reason is not None:
                disqualified[f"game {game} player {state.ids[seat]}"] = reason
        for record in state.records:
            for row in record.rows:
                if row[3] == BID:
                    played[state.ids[row[1]]] += 1
    return totals, wins, played, disqualified

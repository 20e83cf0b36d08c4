"""TwentyOne head to head: both players at one table with the dealer, then seats swapped.

Deal d is one full game (the rules' rounds) from the table generator (seed, d), which
shuffles the seat order and the shoe; it is played twice, the second time with A and B
exchanged under the same ids, so each sits where the other sat on the same shoe (until
their choices make the rounds differ). Optional fixed bots (`table` in the context) sit
at the table in both games. A file plays through its own `play` as the validator runs it
(`validation.twentyone.engine_player`); the engine disqualifies a player for an invalid
action (its points frozen, ranked below every player still in). The result is who ranks
higher in the engine's standings; equal points are a draw. The margin is A's final
points minus B's.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np

from mine.strategies import contained
from mine.strategies.bots.twentyone import make_bot
from mine.strategies.engines.twentyone import TwentyOneRules, play_game
from mine.strategies.player_file import load_module
from mine.strategies.tournament import Entrant, Outcome
from mine.strategies.validation.twentyone import BASELINES, engine_player

BOTS = BASELINES
EXACT = False
LIMITS = contained.LIMITS
TIMED_OUT = ("(limit ",)  # the engine's `decision_seconds`
MARGIN = "final points, A − B"
IDS = ("p1", "p2")  # the two seats' ids: who sits under which is what the swap changes

_WORKER: dict[str, ModuleType] = {}  # this worker's loaded files


@dataclass(frozen=True)
class Table:
    """The rules of every game, and the bots that sit at the table beside the pair."""

    rules: TwentyOneRules = TwentyOneRules()
    bots: tuple[str, ...] = ()


def check_bot(spec: str, table: Table | None = None) -> None:
    make_bot(spec, np.random.default_rng(0), (table or Table()).rules)


def load(path: str) -> ModuleType:
    """The file's module: any file with the spec's `play` plays (validation's tables,
    which only a generated player has, are not needed at a table)."""
    if path not in _WORKER:
        _WORKER[path] = load_module(path, "twentyone", ("play",))
    return _WORKER[path]


def play(
    a: Entrant, b: Entrant, deal: int, swapped: bool, seed: int, table: Table | None
) -> Outcome:
    table = table or Table()
    rules = table.rules
    sides = [
        engine_player(load(e.file).play)
        if e.file
        else make_bot(e.name, np.random.default_rng([seed, deal, k]), rules)
        for k, e in enumerate((a, b))
    ]
    mine, theirs = IDS[::-1] if swapped else IDS  # A's id, B's id
    by_id = {mine: sides[0], theirs: sides[1]}
    players = {pid: by_id[pid] for pid in IDS}  # the same order in both games
    for k, spec in enumerate(table.bots):
        players[f"bot{k + 1}"] = make_bot(spec, np.random.default_rng([seed, deal, 2 + k]), rules)
    state = play_game(rules, players, np.random.default_rng([seed, deal]))
    seat = {pid: k for k, pid in enumerate(state.ids)}
    a_seat, b_seat = seat[mine], seat[theirs]
    invalid = (state.disqualified[a_seat], state.disqualified[b_seat])
    order = state.standings()
    points = state.points[a_seat], state.points[b_seat]
    if points[0] == points[1] and invalid == (None, None):
        score = 0.5
    else:
        score = 1.0 if order.index(mine) < order.index(theirs) else 0.0
    return Outcome(score, a_seat < b_seat, float(points[0] - points[1]), invalid)

"""TwentyOne head to head: both players at one table with the dealer, then seats swapped.

A game is validation's `duel` (`validation/twentyone.py`, which `validate --against`
plays too): deal d is one full game from the table generator (seed, d), played twice,
the second time with A and B exchanged on the same shoe; optional fixed bots (the
context's `Table`) sit at the table in both. A file plays through its own `play` as the
validator runs it; the engine disqualifies a player for an invalid action (its points
frozen, ranked below every player still in). The result is who ranks higher in the
engine's standings (equal points: a draw); the margin is A's final points minus B's.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np

from mine.strategies import contained
from mine.strategies.bots.twentyone import BASELINES, make_bot
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.strategies.player_file import load_module
from mine.strategies.tournament import Entrant, Outcome
from mine.strategies.validation import twentyone as validation

BOTS = BASELINES
EXACT = False
LIMITS = contained.LIMITS
TIMED_OUT = validation.TIMED_OUT
MARGIN = "final points, A − B"

_WORKER: dict[str, ModuleType] = {}  # this worker's loaded files


@dataclass(frozen=True)
class Table:
    """The rules of every game, and the bots that sit at the table beside the pair."""

    rules: TwentyOneRules = TwentyOneRules()
    bots: tuple[str, ...] = ()


def check_bot(spec: str, context: Table | None = None) -> None:
    make_bot(spec, (context or Table()).rules, np.random.default_rng(0))


def load(path: str) -> ModuleType:
    """The file's module: any file with the spec's `play` plays (validation's tables,
    which only a generated player has, are not needed at a table)."""
    if path not in _WORKER:
        _WORKER[path] = load_module(path, "twentyone", ("play",))
    return _WORKER[path]


def play(
    a: Entrant, b: Entrant, deal: int, swapped: bool, seed: int, context: Table | None
) -> Outcome:
    table = context or Table()
    sides = tuple(
        validation.engine_player(load(e.file).play)
        if e.file
        else make_bot(e.name, table.rules, np.random.default_rng([seed, deal, k]))
        for k, e in enumerate((a, b))
    )
    return validation.duel(sides, table.rules, table.bots, deal, swapped, seed)

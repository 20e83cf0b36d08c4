"""Gin Rummy head to head: one game to the rules' target between two sides, in the engine.

Deal d shuffles from the generator seeded (seed, d) and is played twice, the second time
with the seats swapped, so each side holds the other's first hand and deals from the
same stock (until the play diverges); each side's bot, if it is one, draws its choices
from its own generator (seed, d, side), the same in both seats. The validator's game
figures (`validation.ginrummy.game_result`) decide: an invalid play (a crash, an illegal
card, a memory too large, a call over the engine's time limit) loses the game for whoever
made it; equal totals are a draw. The margin is A's points minus B's, over the rounds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mine.strategies import contained
from mine.strategies.bots.ginrummy import BASELINES, make_bot
from mine.strategies.engines.ginrummy import DEFAULT_RULES, GinRummyRules, play_game
from mine.strategies.engines.melds import MeldSolver
from mine.strategies.tournament import Entrant, Outcome
from mine.strategies.validation.ginrummy import game_result, load_player

BOTS = BASELINES
EXACT = False
LIMITS = contained.LIMITS
TIMED_OUT = ("Took too long",)  # the engine's second a call
MARGIN = "points per game (A − B, summed over rounds)"

_WORKER: dict[Any, Any] = {}  # this worker's loaded files and meld solvers


def check_bot(spec: str, context: GinRummyRules | None) -> None:
    make_bot(spec, context or DEFAULT_RULES, np.random.default_rng(0))


def load(path: str) -> Any:
    if ("file", path) not in _WORKER:
        _WORKER["file", path] = load_player(path)
    return _WORKER["file", path]


def _solver(rules: GinRummyRules) -> MeldSolver:
    if ("solver", rules) not in _WORKER:
        _WORKER["solver", rules] = MeldSolver(rules.meld_sizes)
    return _WORKER["solver", rules]


def play(
    a: Entrant, b: Entrant, deal: int, swapped: bool, seed: int, context: GinRummyRules | None
) -> Outcome:
    """`context`: the rules (None: the defaults)."""
    rules = context or DEFAULT_RULES
    solver = _solver(rules)
    sides = [
        load(e.file) if e.file else make_bot(e.name, rules, np.random.default_rng([seed, deal, k]),
                                             solver)
        for k, e in enumerate((a, b))
    ]  # fmt: skip
    me = 1 if swapped else 0  # A's seat; seat 0 plays first
    seats = sides[::-1] if swapped else sides
    record = play_game(rules, seats, np.random.default_rng([seed, deal]), solver)
    result = game_result(record, me)
    bad = record.invalid
    invalid = (result.invalid, bad.reason if bad is not None and bad.seat != me else None)
    if bad is None and record.totals[0] == record.totals[1]:
        score = 0.5
    else:
        score = 1.0 if result.won else 0.0
    margin = None if bad is not None else float(result.points)
    return Outcome(score, a_first=not swapped, margin=margin, invalid=invalid)

"""Super-Nim head to head: two sides from the same random start board, seats swapped.

Deal d is a random start board (generator (seed, d)); A plays it as MAX moving first, then
B does (A as MIN): the same board and the same first mover from both seats. The
validator's game loop (`validation.supernim.play_sides`) plays it: a file answers through
its own `ai_move` (searching to its own depth), and an answer that is not one of the
state's successors — a crash included — is an invalid move that loses the game. The
margin is A's final score minus B's.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from mine.strategies.bots.supernim import BASELINES, make_bot
from mine.strategies.engines.supernim import DEFAULT_RULES, MAX, MIN, State, random_board
from mine.strategies.tournament import Entrant, Outcome
from mine.strategies.validation.supernim import LIMITS, bot_mover, file_mover, play_sides
from mine.strategies.validation.supernim import load as load_file

BOTS = BASELINES
EXACT = False
TIMED_OUT = ()  # only the harness's clock (10 s a move): a disqualification
MARGIN = "final score, A − B"
__all__ = ["LIMITS", "check_bot", "load", "play"]


def check_bot(spec: str, context: object = None) -> None:
    make_bot(spec, DEFAULT_RULES, None)


def load(path: str) -> ModuleType:
    return load_file(path)


def play(a: Entrant, b: Entrant, deal: int, swapped: bool, seed: int, context: object) -> Outcome:
    board = random_board(np.random.default_rng([seed, deal]))
    seats = (MIN, MAX) if swapped else (MAX, MIN)  # A's seat, B's seat; MAX moves first
    movers = {
        seat: file_mover(load(e.file), None)
        if e.file
        else bot_mover(make_bot(e.name, DEFAULT_RULES, np.random.default_rng([seed, deal, k])))
        for k, (e, seat) in enumerate(zip((a, b), seats, strict=True))
    }
    played = play_sides(movers, State(MAX, board))
    bad = [played["invalid"][seat] for seat in seats]
    if any(bad):
        reason = "an answer that is not a successor of the state"
        invalid = tuple(reason if x else None for x in bad)
        return Outcome(0.0 if bad[0] else 1.0, not swapped, None, invalid)  # type: ignore[arg-type]
    margin = played["final"].margin(seats[0])
    score = 1.0 if margin > 0 else 0.0 if margin < 0 else 0.5
    return Outcome(score, not swapped, float(margin))

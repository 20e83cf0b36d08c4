"""Card guessing head to head: two guessers on the same answers; fewer guesses wins.

There is no seat: a game is one answer (drawn uniformly with the generator (seed, game))
that both guessers find, each in its own game in the reference engine
(`validation.cardguess.one_game`, the validator's loop with the handout's limits). The
guesser that needs fewer guesses wins, equal is a draw; a guesser that fails the game (an
invalid guess, the guess limit, the time, a crash) loses it, and both failing is a draw.
Both guessers meet every answer, so the pairing is paired by answer. The margin is B's
guesses minus A's (positive: A needs fewer).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from mine.strategies.bots.cardguess import GUESSERS, make_bot
from mine.strategies.engines.cardguess import DEFAULT_RULES, CardGuessRules, draw_answer
from mine.strategies.tournament import Entrant, Outcome
from mine.strategies.validation.cardguess import LIMITS, FileGuesser, one_game, player_module

BOTS = GUESSERS
EXACT = False
TIMED_OUT = (" s after ",)  # the handout's 10 s a game
MARGIN = "guesses, B − A (positive: A needs fewer)"
__all__ = ["LIMITS", "check_bot", "load", "play"]

_WORKER: dict[str, Any] = {}  # this worker's deterministic guessers (they remember choices)


def check_bot(spec: str, context: CardGuessRules | None = None) -> None:
    if spec not in GUESSERS:
        raise ValueError(f"unknown guesser {spec!r} (known: {', '.join(GUESSERS)})")


def load(path: str) -> ModuleType:
    return player_module(path)


def _guesses(entrant: Entrant, answer, rules: CardGuessRules, rng) -> dict[str, Any]:
    if entrant.file:
        guesser = FileGuesser(load(entrant.file))
        return one_game(guesser, answer, rules, guesser.times)
    if entrant.name == "random-consistent":
        return one_game(make_bot(entrant.name, rules, rng), answer, rules)
    if entrant.name not in _WORKER:
        _WORKER[entrant.name] = make_bot(entrant.name, rules, rng)
    return one_game(_WORKER[entrant.name], answer, rules)


def play(
    a: Entrant, b: Entrant, deal: int, swapped: bool, seed: int, context: CardGuessRules | None
) -> Outcome:
    """One answer found by both guessers; `context`: the rules (n, the limits)."""
    rules = context or DEFAULT_RULES
    game = 2 * deal + swapped  # no seats to swap: each game of a deal is its own answer
    answer = draw_answer(rules.n, "uniform", np.random.default_rng([seed, game]))
    records = [
        _guesses(e, answer, rules, np.random.default_rng([seed, game, k]))
        for k, e in enumerate((a, b))
    ]
    found = [r["guesses"] for r in records]
    invalid = tuple(r["error"] for r in records)
    if found[0] is None or found[1] is None:
        score = 0.5 if found[0] is found[1] else 1.0 if found[1] is None else 0.0
        return Outcome(score, not swapped, None, invalid)  # type: ignore[arg-type]
    score = 1.0 if found[0] < found[1] else 0.0 if found[0] > found[1] else 0.5
    return Outcome(score, not swapped, float(found[1] - found[0]))

"""Hog's baseline bots, as the CS61A handout defines them, and their registry.

Each is a strategy `(score, opponent_score) -> k` as the handout writes it; `make_bot`
turns one into a bot, which plays from its table (`TableBot.table`: the exact solver, the
vectorised games and the validator read it). A spec like `always_roll:6` or
`square_strategy:12:6` names a strategy and its whole-number arguments.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mine.strategies.engines.hog import (
    DEFAULT_RULES,
    HogRules,
    State,
    Strategy,
    as_table,
    square_swine,
    tail_points,
)


def always_roll(n: int = 6) -> Strategy:
    """Always roll `n` dice."""
    return lambda score, opponent_score: n


def tail_strategy(threshold: int = 12, num_rolls: int = 6) -> Strategy:
    """Roll 0 when Pig Tail alone gives at least `threshold` points (Square Swine ignored)."""
    return lambda score, opponent_score: (
        0 if tail_points(opponent_score) >= threshold else num_rolls
    )


def square_strategy(
    threshold: int = 12, num_rolls: int = 6, rules: HogRules = DEFAULT_RULES
) -> Strategy:
    """Roll 0 when the whole turn — Pig Tail, then Square Swine — gains at least
    `threshold` points."""

    def strategy(score: int, opponent_score: int) -> int:
        gain = square_swine(score + tail_points(opponent_score), rules) - score
        return 0 if gain >= threshold else num_rolls

    return strategy


def random_strategy(seed: int = 0, rules: HogRules = DEFAULT_RULES) -> np.ndarray:
    """A random table (dice drawn uniformly per state), fixed by `seed`."""
    return np.random.default_rng(seed).integers(
        rules.min_rolls, rules.max_rolls + 1, size=(rules.goal, rules.goal)
    )


BOTS: dict[str, Callable[..., Strategy | np.ndarray]] = {
    "always_roll": always_roll,
    "tail_strategy": tail_strategy,
    "square_strategy": square_strategy,
    "random": random_strategy,
}
NEEDS_RULES = ("square_strategy", "random")

# The baselines a generated player is measured against.
BASELINES = ("always_roll:6", "always_roll:5", "tail_strategy", "square_strategy", "random")


class TableBot:
    """A bot that plays its table: the dice for the mover's score and its opponent's."""

    def __init__(self, table: np.ndarray) -> None:
        self.table = table

    def __call__(self, state: State) -> int:
        return int(self.table[state.seen(state.mover)])


def make_bot(spec: str, rules: HogRules = DEFAULT_RULES, rng: object = None) -> TableBot:
    """The bot a spec names: `name[:arg[:arg]]`, arguments whole numbers. (Hog's random
    bot carries its own seed, `random:SEED`: `rng` is not used.)"""
    name, *args = spec.split(":")
    if name not in BOTS:
        raise ValueError(f"unknown Hog bot {name!r} (known: {', '.join(BOTS)})")
    try:
        numbers = [int(a) for a in args]
    except ValueError:
        raise ValueError(f"bot arguments are whole numbers: {spec!r}") from None
    if name == "always_roll" and numbers and not rules.min_rolls <= numbers[0] <= rules.max_rolls:
        raise ValueError(f"always_roll takes {rules.min_rolls}..{rules.max_rolls} dice")
    try:
        strategy = BOTS[name](*numbers, **({"rules": rules} if name in NEEDS_RULES else {}))
    except TypeError:
        raise ValueError(f"too many arguments for {name}: {spec!r}") from None
    return TableBot(as_table(strategy, rules))

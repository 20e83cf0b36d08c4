"""Hog's baseline bots, as the CS61A handout defines them, and their registry.

Every bot is a factory returning a strategy `(score, opponent_score) -> k`; a spec like
`always_roll:6` or `square_strategy:12:6` names a factory and its whole-number arguments.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mine.strategies.engines.hog import DEFAULT_RULES, HogRules, Strategy, square_swine, tail_points


def always_roll(n: int = 6) -> Strategy:
    """Always roll `n` dice."""

    def strategy(score: int, opponent_score: int) -> int:
        return n

    return strategy


def tail_strategy(threshold: int = 12, num_rolls: int = 6) -> Strategy:
    """Roll 0 when Pig Tail alone gives at least `threshold` points (Square Swine ignored)."""

    def strategy(score: int, opponent_score: int) -> int:
        return 0 if tail_points(opponent_score) >= threshold else num_rolls

    return strategy


def square_strategy(
    threshold: int = 12, num_rolls: int = 6, rules: HogRules = DEFAULT_RULES
) -> Strategy:
    """Roll 0 when the whole turn — Pig Tail, then Square Swine — gains at least
    `threshold` points."""

    def strategy(score: int, opponent_score: int) -> int:
        gain = square_swine(score + tail_points(opponent_score), rules) - score
        return 0 if gain >= threshold else num_rolls

    return strategy


def random_strategy(seed: int = 0, rules: HogRules = DEFAULT_RULES) -> Strategy:
    """A random table (dice drawn uniformly per state), fixed by `seed`."""
    table = np.random.default_rng(seed).integers(
        rules.min_rolls, rules.max_rolls + 1, size=(rules.goal, rules.goal)
    )

    def strategy(score: int, opponent_score: int) -> int:
        return int(table[min(score, rules.goal - 1), min(opponent_score, rules.goal - 1)])

    return strategy


BOTS: dict[str, Callable[..., Strategy]] = {
    "always_roll": always_roll,
    "tail_strategy": tail_strategy,
    "square_strategy": square_strategy,
    "random": random_strategy,
}
NEEDS_RULES = ("square_strategy", "random")

# The baselines a generated player is measured against.
BASELINES = ("always_roll:6", "always_roll:5", "tail_strategy", "square_strategy", "random")


def make_bot(spec: str, rules: HogRules = DEFAULT_RULES, rng: object = None) -> Strategy:
    """The strategy a spec names: `name[:arg[:arg]]`, arguments whole numbers. (Hog's
    random bot carries its own seed, `random:SEED`: `rng` is not used.)"""
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
        if name in NEEDS_RULES:
            return BOTS[name](*numbers, rules=rules)
        return BOTS[name](*numbers)
    except TypeError:
        raise ValueError(f"too many arguments for {name}: {spec!r}") from None

"""Card-guessing baselines: guessers that always guess a candidate (an answer still
consistent with every feedback so far), chosen four ways.

- `first-consistent`: the first candidate (hands in lexicographic order);
- `random-consistent`: a uniformly random candidate (its own seeded generator);
- `greedy`: the candidate leaving the fewest candidates expected (the handout's hint 3);
- `entropy`: the candidate whose feedback tells the most (maximum entropy).

For the first guess, when every hand is a candidate, greedy and entropy score one hand of
each shape (hands equal up to renaming suits split the answers alike), at most
`FIRST_PAIRS` feedback evaluations' worth (all shapes for n = 2, 3; 2,216 of 20,410 evenly
spaced for n = 4). Later, with more than a few thousand candidates, they score an evenly
spaced subset of them as guesses (every candidate still counts as a possible answer), so
that a decision costs at most `PAIRS` feedback evaluations. Their decisions depend on the
feedback history alone, so a process remembers each (`_CHOSEN`): a validation over many
answers, or a simulation's many games, computes each node once.
"""

from __future__ import annotations

import numpy as np

from mine.strategies.engines.cardguess import (
    CardGuessRules,
    State,
    encode,
    feedback_codes,
    hand_index,
    hands,
)
from mine.strategies.solvers.cardguess import best_candidate, one_of_each_shape, spread

GUESSERS = ("first-consistent", "random-consistent", "greedy", "entropy")
BASELINES = ("greedy", "entropy")  # what `validate` measures a player file against
PAIRS = 30_000_000  # feedback evaluations one greedy or entropy decision may cost
FIRST_PAIRS = 600_000_000  # … the first one (made once per guesser and n, remembered)
FEWEST_SCORED = 100

History = tuple[tuple[int, int], ...]  # (guess number, feedback code), in order
_CHOSEN: dict[tuple[str, int, History], int] = {}  # greedy's and entropy's decisions


class ConsistentGuesser:
    """A bot, `guesser(state) -> guess number`: it keeps the game's candidates (numbers
    into `hands(n)`) and the history it has seen, and starts again at a game's first
    guess (one guesser may play many games)."""

    def __init__(self, name: str, rng: np.random.Generator | None):
        if name not in GUESSERS:
            raise ValueError(f"unknown guesser {name!r} (known: {', '.join(GUESSERS)})")
        self.name, self.rng = name, rng
        self.candidates, self.history = np.arange(0), ()

    def __call__(self, state: State) -> int:
        n = state.rules.n
        if not state.guesses:
            self.candidates, self.history = np.arange(len(hands(n))), ()
        for guess, fb in zip(state.guesses[len(self.history) :],
                             state.feedbacks[len(self.history) :], strict=True):  # fmt: skip
            code = encode(fb)
            self.candidates = self.candidates[
                feedback_codes(hands(n).take(self.candidates), guess) == code
            ]
            self.history = (*self.history, (hand_index(guess), code))
        return self._choose(n)

    def _choose(self, n: int) -> int:
        candidates = self.candidates
        if self.name == "first-consistent":
            return int(candidates[0])
        if self.name == "random-consistent":
            return int(candidates[self.rng.integers(len(candidates))])
        key = (self.name, n, self.history)
        if key not in _CHOSEN:
            limit = max(FEWEST_SCORED, PAIRS // len(candidates))
            considered = None
            if not self.history:  # every hand is a candidate: candidate k is hand k
                shapes = one_of_each_shape(n)
                considered = shapes[spread(len(shapes), FIRST_PAIRS // len(candidates))]
            weights = np.ones(len(candidates))
            position = best_candidate(
                hands(n).take(candidates), weights, self.name, limit, considered
            )
            _CHOSEN[key] = int(candidates[position])
        return _CHOSEN[key]


def make_bot(
    spec: str, rules: CardGuessRules, rng: np.random.Generator | None
) -> ConsistentGuesser:
    """The guesser `spec` names (its own generator `rng`, used by random-consistent); the
    answer's size comes with each game, so any rules do."""
    return ConsistentGuesser(spec, rng)

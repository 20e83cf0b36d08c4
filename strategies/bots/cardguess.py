"""Card-guessing baselines: guessers that always guess a candidate (an answer still
consistent with every feedback so far), chosen four ways: `first-consistent` (the first,
hands in lexicographic order), `random-consistent` (at random, its own seeded generator),
`greedy` (the one leaving the fewest candidates expected: the handout's hint 3) and
`entropy` (the one whose feedback tells the most).

Greedy and entropy score at most `PAIRS` feedback evaluations a decision: with many
candidates, an evenly spaced subset of them as guesses (every candidate still counts as
an answer); at the first guess, one hand of each shape (hands equal up to renaming suits
split the answers alike), `FIRST_PAIRS`' worth (all for n = 2, 3; 2,216 of 20,410 for
n = 4). Their decisions depend on the feedback history alone, so a process remembers each
(`_CHOSEN`): a validation's many answers, or a simulation's games, compute each node once.
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
KEPT = 200_000  # decisions a process keeps (a few hundred bytes each); past it, anew


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
        seen = len(self.history)
        for guess, fb in zip(state.guesses[seen:], state.feedbacks[seen:], strict=True):
            code, left = encode(fb), hands(n).take(self.candidates)
            self.candidates = self.candidates[feedback_codes(left, guess) == code]
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
            if len(_CHOSEN) >= KEPT:
                _CHOSEN.clear()
            limit = max(FEWEST_SCORED, PAIRS // len(candidates))
            considered = None
            if not self.history:  # every hand is a candidate: candidate k is hand k
                shapes = one_of_each_shape(n)
                considered = shapes[spread(len(shapes), FIRST_PAIRS // len(candidates))]
            left, weights = hands(n).take(candidates), np.ones(len(candidates))
            chosen = best_candidate(left, weights, self.name, limit, considered)
            _CHOSEN[key] = int(candidates[chosen])
        return _CHOSEN[key]


def make_bot(spec: str, rules: CardGuessRules, rng: np.random.Generator | None):
    """The guesser `spec` names (its own generator `rng`, used by random-consistent); the
    answer's size comes with each game, so any rules do."""
    return ConsistentGuesser(spec, rng)

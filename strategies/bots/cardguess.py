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
that a decision costs at most `PAIRS` feedback evaluations. The
deterministic guessers remember each decision by its feedback history, so a validation
over many answers computes each node once.
"""

from __future__ import annotations

import numpy as np

from mine.strategies.engines.cardguess import (
    CardGuessRules,
    Feedback,
    Hand,
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

State = tuple[np.ndarray, tuple[tuple[int, int], ...]]  # candidates, (guess, code) history


class ConsistentGuesser:
    """A guesser of the handout's interface over card ints: its state is the candidates
    (numbers into `hands(n)`) and the history of (guess number, feedback code)."""

    def __init__(self, name: str, rng: np.random.Generator):
        if name not in GUESSERS:
            raise ValueError(f"unknown guesser {name!r} (known: {', '.join(GUESSERS)})")
        self.name = name
        self.rng = rng
        self.memory: dict[tuple[int, tuple[tuple[int, int], ...]], int] = {}

    def initial_guess(self, n: int) -> tuple[Hand, State]:
        candidates = np.arange(len(hands(n)))
        return self._guess(n, candidates, ())

    def next_guess(self, previous: tuple[Hand, State], fb: Feedback) -> tuple[Hand, State]:
        guess, (candidates, history) = previous
        n = len(guess)
        code = encode(fb)
        codes = feedback_codes(hands(n).take(candidates), guess)
        kept = candidates[codes == code]
        if len(kept) == 0:
            raise ValueError(f"no answer gives feedback {fb} to every guess so far")
        return self._guess(n, kept, (*history, (hand_index(guess), code)))

    def _guess(
        self, n: int, candidates: np.ndarray, history: tuple[tuple[int, int], ...]
    ) -> tuple[Hand, State]:
        chosen = self._choose(n, candidates, history)
        guess = tuple(int(card) for card in hands(n).cards[chosen])
        return guess, (candidates, history)

    def _choose(self, n: int, candidates: np.ndarray, history: tuple[tuple[int, int], ...]) -> int:
        if self.name == "first-consistent":
            return int(candidates[0])
        if self.name == "random-consistent":
            return int(candidates[self.rng.integers(len(candidates))])
        key = (n, history)
        if key not in self.memory:
            limit = max(FEWEST_SCORED, PAIRS // len(candidates))
            considered = None
            if not history:  # every hand is a candidate: candidate k is hand k
                shapes = one_of_each_shape(n)
                considered = shapes[spread(len(shapes), FIRST_PAIRS // len(candidates))]
            weights = np.ones(len(candidates))
            position = best_candidate(
                hands(n).take(candidates), weights, self.name, limit, considered
            )
            self.memory[key] = int(candidates[position])
        return self.memory[key]


def make_bot(spec: str, rules: CardGuessRules, rng: np.random.Generator) -> ConsistentGuesser:
    """The guesser `spec` names (its own generator `rng`, used by random-consistent); the
    answer's size comes with each game (`initial_guess(n)`), so any rules do."""
    return ConsistentGuesser(spec, rng)

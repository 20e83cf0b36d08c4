"""Card guessing: the feedback rule in one place, answerers, the game and its course player.

Rules: `../shared/spec/cardguess.md` (the COMP30020 2016 handout). Cards are ints 0..51,
`rank * 4 + suit` (ranks 2 … A as 0 … 12, ace high; suits C D H S), the spec's strings
(`TH`) only at the edges. A hand is a sorted tuple of cards; `hands(n)` numbers all
C(52, n) in lexicographic order, and the vectorised feedback works on whole sets of them.

The State API (`state.py`): one player, the guesser; the answer is chance, drawn by
`new_game(rules, rng, answerer=…)`; an action is a guess. A game is won when the answer is
guessed, lost at the guess limit or by a fault. A player file keeps the handout's
interface (`initial_guess(n)`, `next_guess((guess, state), feedback)`) behind
`course_player`."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from itertools import combinations, combinations_with_replacement, permutations
from math import comb
from typing import Any

import numpy as np

from mine.inputs import quoted
from mine.parsers.cardguess import Score, Turn
from mine.parsers.cards import GUESS_RANKS, GUESS_SUITS, CardError, guess_rank, parse_guess
from mine.strategies.engines import referee
from mine.strategies.engines.settings import RuleSettings
from mine.strategies.engines.state import TERMINAL, IllegalAction
from mine.strategies.players import cardguess as player

RANKS = player.RANKS  # ace high, as the spec orders them
SUITS = player.SUITS  # C D H S
DECK = 52
SIZES = (2, 3, 4)  # the handout's answer sizes
BASE = 5  # each feedback number is 0 … 4, so a feedback is one base-5 number
FEEDBACKS = BASE**5

Hand = tuple[int, ...]
Feedback = tuple[int, int, int, int, int]


@dataclass(frozen=True)
class CardGuessRules(RuleSettings):
    n: int = 2  # cards in the answer
    guess_limit: int = 100  # a game that reaches it is lost (the handout's runs are timed)
    seconds: float = 10.0  # the handout's limit per game

    def __post_init__(self) -> None:
        if not 1 <= self.n <= 4:
            raise ValueError(f"n must be 1 … 4 (feedback numbers are 0 … 4), not {self.n}")
        self.at_least(guess_limit=1)
        if self.seconds <= 0:
            raise ValueError(f"seconds must be positive, not {self.seconds}")


DEFAULT_RULES = CardGuessRules()
GAME = "cardguess"
RULES = CardGuessRules
UTILITY = ("minus the number of guesses, the one that finds the answer included; a game lost "
           "(the guess limit, a fault) pays minus one more than the guess limit")  # fmt: skip
ZERO_SUM = False


# --- cards and feedback ----------------------------------------------------------------------

card_text = player.card_text  # 0 … 51 → `2C` … `AS`


def parse_card(text: str) -> int:
    """`TH` → the ten of hearts; CardError for anything else (the parser's message)."""
    card = parse_guess(text)
    return (guess_rank(card) - 2) * 4 + SUITS.index(card.suit)


def hand_text(hand: Sequence[int]) -> str:
    return ";".join(card_text(card) for card in hand)


def parse_hand(text: str, n: int | None = None) -> Hand:
    """`3C;4H` → a sorted hand; ValueError (CardError) naming what is wrong."""
    cards = [parse_card(part) for part in text.split(";")]
    if len(set(cards)) != len(cards):
        raise CardError(f"a card repeats in {text!r}")
    if n is not None and len(cards) != n:
        raise CardError(f"{text!r} has {len(cards)} cards, not {n}")
    return tuple(sorted(cards))


# The parser's cards are the player's: its ranks with the ace moved up, its suits.
assert "".join(GUESS_RANKS[1:]) + GUESS_RANKS[0] == RANKS and GUESS_SUITS == SUITS

feedback: Callable[[Sequence[int], Sequence[int]], Feedback] = player.card_feedback
"""`feedback(answer, guess)` on card numbers, read straight off the spec (the plain
reference): the generated player's own code, so the player and the engine cannot differ."""


encode = player.feedback_code  # a feedback as one number: the player's, as `feedback` is


def decode(code: int) -> Feedback:
    return tuple(int(code) // BASE**place % BASE for place in range(4, -1, -1))  # type: ignore[return-value]


def winning_code(n: int) -> int:
    """The feedback of guessing the answer itself."""
    return encode((n, 0, n, 0, n))


# --- hands as arrays and the vectorised feedback ------------------------------------------


@dataclass(frozen=True, eq=False)
class HandSet:
    """Hands as arrays: their cards (N, n), as 52-bit masks (correct cards are a popcount),
    and the number of their rank multiset and of their suit multiset. The rank numbers
    (lower, correct ranks, higher) depend only on the two rank multisets and the suit
    number only on the two suit multisets, so each is one lookup in a table made once."""

    cards: np.ndarray
    masks: np.ndarray
    rank_ids: np.ndarray
    suit_ids: np.ndarray

    @classmethod
    def of(cls, cards: np.ndarray | Sequence[Sequence[int]]) -> HandSet:
        cards = np.sort(np.asarray(cards, dtype=np.int8), axis=1)
        masks = np.bitwise_or.reduce(np.left_shift(np.uint64(1), cards.astype(np.uint64)), axis=1)
        return cls(cards, masks, _multiset_ids(cards // 4, 13), _multiset_ids(cards % 4, 4))

    n = property(lambda self: self.cards.shape[1])

    def __len__(self) -> int:
        return self.cards.shape[0]

    def take(self, index: np.ndarray) -> HandSet:
        return HandSet(self.cards[index], self.masks[index], self.rank_ids[index],
                       self.suit_ids[index])  # fmt: skip


@cache
def _multisets(n: int, values: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sorted multisets of n values below `values` (M, n), how many of each value each
    holds (M, values), and a lookup from the values (as a base-`values` number) to the
    multiset's number."""
    sets = np.array(list(combinations_with_replacement(range(values), n)), dtype=np.int64)
    lookup = np.full(values**n, -1, np.int32)
    lookup[np.ravel_multi_index(tuple(sets.T), (values,) * n)] = np.arange(len(sets))
    return sets, (sets[:, :, None] == np.arange(values)).sum(axis=1, dtype=np.int8), lookup


def _multiset_ids(values: np.ndarray, size: int) -> np.ndarray:
    ordered = tuple(np.sort(values.astype(np.int64), axis=1).T)
    lookup = _multisets(len(ordered), size)[2]
    return lookup[np.ravel_multi_index(ordered, (size,) * len(ordered))]


@cache
def rank_table(n: int) -> np.ndarray:
    """(lower × 5 + correct ranks) × 5 + higher, for guess rank multiset (rows) and answer
    rank multiset (columns); times 5 it takes the place of those digits in a code."""
    sets, counts, _ = _multisets(n, 13)
    low, high = sets.min(axis=1)[:, None, None], sets.max(axis=1)[:, None, None]
    lower, higher = (sets[None] < low).sum(axis=2), (sets[None] > high).sum(axis=2)
    overlap = np.minimum(counts[:, None], counts[None]).sum(axis=2)
    return ((lower * BASE + overlap) * BASE + higher).astype(np.int16)


@cache
def suit_table(n: int) -> np.ndarray:
    """Correct suits for guess suit multiset (rows) and answer suit multiset (columns)."""
    counts = _multisets(n, 4)[1]
    return np.minimum(counts[:, None], counts[None]).sum(axis=2).astype(np.int16)


@cache
def hands(n: int) -> HandSet:
    """All C(52, n) hands in lexicographic order (the universe of answers and guesses)."""
    return HandSet.of(np.array(list(combinations(range(DECK), n)), dtype=np.int8).reshape(-1, n))


def hand_index(hand: Sequence[int]) -> int:
    """The lexicographic number of a sorted hand among `hands(len(hand))`."""
    n, index, previous = len(hand), 0, -1
    for position, card in enumerate(sorted(hand)):
        for skipped in range(previous + 1, card):
            index += comb(DECK - 1 - skipped, n - 1 - position)
        previous = card
    return index


def feedback_codes(answers: HandSet, guess: Sequence[int]) -> np.ndarray:
    """The encoded feedback of one guess against every answer of the set (int16)."""
    return feedback_matrix(answers, HandSet.of([list(guess)]))[0]


def feedback_matrix(answers: HandSet, guesses: HandSet) -> np.ndarray:
    """Encoded feedback of every guess (rows) against every answer (columns), int16."""
    correct = np.bitwise_count(guesses.masks[:, None] & answers.masks[None]).astype(np.int16)
    ranks = rank_table(answers.n)[guesses.rank_ids[:, None], answers.rank_ids[None]]
    suits = suit_table(answers.n)[guesses.suit_ids[:, None], answers.suit_ids[None]]
    return correct * BASE**4 + ranks * BASE + suits  # the rank digits sit above the suits'


# --- answerers -----------------------------------------------------------------------------

FACE_WEIGHT = 3.0  # `faces` picks a jack, queen or king three times as often as another card
ANSWERERS = ("uniform", "faces")


def card_weights(answerer: str | Sequence[float]) -> np.ndarray:
    """The answerer's weight for each card (an answerer named, or its 52 weights given);
    it draws n distinct cards in proportion."""
    if not isinstance(answerer, str):
        weights = np.asarray(answerer, float)
        if weights.shape != (DECK,) or not (np.isfinite(weights) & (weights > 0)).all():
            raise ValueError("an answerer's card weights are 52 positive numbers")
        return weights
    if answerer not in ANSWERERS:
        raise ValueError(f"unknown answerer {answerer!r} (known: {', '.join(ANSWERERS)})")
    faces = np.isin(np.arange(DECK) // 4, [9, 10, 11]) & (answerer == "faces")  # J, Q, K
    return np.where(faces, FACE_WEIGHT, 1.0)


def draw_answer(n: int, answerer: str | Sequence[float], rng: np.random.Generator) -> Hand:
    weights = card_weights(answerer)
    cards = rng.choice(DECK, size=n, replace=False, p=weights / weights.sum())
    return tuple(sorted(int(card) for card in cards))


def answer_probabilities(n: int, answerer: str | Sequence[float]) -> np.ndarray:
    """The exact chance the answerer picks each hand of `hands(n)`: it draws cards one by
    one in proportion to their weights among those left, so a hand's chance is the sum
    over the orders its cards can come in."""
    weights = card_weights(answerer)
    cards = hands(n).cards.astype(np.int64)
    chance = np.zeros(len(cards))
    for order in permutations(range(n)):
        p, taken = np.ones(len(cards)), np.zeros(len(cards))
        for position in order:
            p *= weights[cards[:, position]] / (weights.sum() - taken)
            taken += weights[cards[:, position]]
        chance += p
    return chance


# --- the game --------------------------------------------------------------------------------


class InvalidGuess(IllegalAction):
    """A guess that is not n distinct cards of the deck."""


def check_guess(guess: Any, n: int) -> Hand:
    """The guess as a sorted hand, or InvalidGuess saying why it is not one."""
    try:
        cards = [int(card) for card in guess]
    except (TypeError, ValueError):
        raise InvalidGuess(f"not a list of cards: {quoted(guess)}") from None
    if len(cards) != n:
        raise InvalidGuess(f"{len(cards)} cards guessed, the answer has {n}")
    if any(not 0 <= card < DECK for card in cards):
        raise InvalidGuess(f"not a card of the deck in {quoted(guess)}")
    if len(set(cards)) != n:
        raise InvalidGuess(f"a card repeats in {hand_text(cards)}")
    return tuple(sorted(cards))


@dataclass
class State:
    """A game: the answer and what has been guessed, with the feedback to each guess. One
    player, the guesser (seat 0); an action is a hand of n cards, by its number in
    `hands(n)` or as its cards. Over when the answer is guessed, or lost (`lost` says why:
    the guess limit, or a fault the referee charged)."""

    rules: CardGuessRules
    answer: Hand
    guesses: tuple[Hand, ...] = ()
    feedbacks: tuple[Feedback, ...] = ()
    players: tuple[str, ...] = ("guesser",)
    lost: str | None = None

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else 0

    def num_players(self) -> int:
        return 1

    def is_terminal(self) -> bool:
        return self.lost is not None or self.solved()

    def solved(self) -> bool:
        return bool(self.guesses) and self.guesses[-1] == self.answer

    def legal_actions(self) -> range:
        """Every hand, by its number in `hands(n)`: any n distinct cards may be guessed."""
        return range(0 if self.is_terminal() else comb(DECK, self.rules.n))

    def apply_action(self, guess: int | Sequence[int]) -> None:
        """Guess `guess`: its cards, or its number among `legal_actions()`."""
        if self.is_terminal():
            raise IllegalAction("the game is over")
        if isinstance(guess, int | np.integer):
            if guess not in self.legal_actions():
                raise InvalidGuess(f"no hand has the number {guess}")
            guess = hands(self.rules.n).cards[guess].tolist()
        hand = check_guess(guess, self.rules.n)
        self.guesses = (*self.guesses, hand)
        self.feedbacks = (*self.feedbacks, feedback(self.answer, hand))
        if not self.solved() and len(self.guesses) >= self.rules.guess_limit:
            self.lost = f"not found in {self.rules.guess_limit} guesses"

    def returns(self) -> tuple[float, ...]:
        if not self.is_terminal():
            return (0.0,)
        return (-float(len(self.guesses) if self.solved() else self.rules.guess_limit + 1),)

    def clone(self) -> State:
        return replace(self)  # its fields are immutable: a shallow copy is independent

    def forfeit(self, seat: int, reason: str) -> None:
        """The game ends here, lost (a fault the referee charged)."""
        self.lost = reason


def new_game(
    rules: CardGuessRules,
    rng: np.random.Generator,
    players: Sequence[str] = ("guesser",),
    swapped: bool = False,
    answerer: str | Sequence[float] = "uniform",
) -> State:
    """A game of the guesser `players` names, whose answer `answerer` draws from `rng` (one
    seat: nothing to swap)."""
    return State(rules, draw_answer(rules.n, answerer, rng), players=tuple(players))


# --- the engine's part in simulations, validation and tournaments ---------------------------

NUM_PLAYERS = range(1, 2)  # the guesser alone: the answerer is chance
ONE_GAME_A_FILE = False  # a guesser's games in one log pair
GAMES_PER_TASK = 1000  # games of a task: milliseconds each
FORFEIT = referee.game_lost  # a fault loses the game
WALL_FACTOR = referee.Limits().wall_factor  # a game's wall time counts at a tenth, as a call's


def log_rows(state: State, game: int, me: str | None = None) -> tuple[list[Turn], list[Score]]:
    """The game's rows in the log format; ValueError for a lost game, which the format
    cannot hold (its last guess is the answer)."""
    if not state.solved():
        raise ValueError(f"game {game} was lost ({state.lost}): a log holds games that are won")
    n, answer, played = state.rules.n, tuple(map(card_text, state.answer)), state.guesses
    pairs = enumerate(zip(played, state.feedbacks, strict=True), 1)
    turns = [Turn(game, n, answer, k, tuple(map(card_text, g)), *fb) for k, (g, fb) in pairs]
    return turns, [Score(game, n, answer, len(played))]


def log_bytes(rules: CardGuessRules, players: int) -> int:
    """A game's logs at most: a turn row of at most 64 bytes a guess, a score row."""
    return 64 * rules.guess_limit + 64


def course_player(module: Any) -> referee.Course:
    """A player of the handout's interface as the referee asks it: `initial_guess(n)`, then
    `next_guess((guess, state), feedback)` with the file's own last answer (any value,
    kept here: the referee keeps no memory), each guess a list or tuple of n card texts
    (nothing else of an answer is iterated: none hangs here). The handout's time limit is
    a game's: the call that takes the game's calls over it loses the game (CPU time, or
    wall time at a tenth, as the referee counts a call)."""
    said: list[Any] = [None, 0.0]  # the file's last (guess, state); its calls' seconds

    def ask(state: State, seat: int, memory: str | None) -> tuple:
        rules = state.rules
        if state.guesses:
            call, arguments = module.next_guess, (said[0], state.feedbacks[-1])
        else:
            call, arguments, said[1] = module.initial_guess, (rules.n,), 0.0

        def timed() -> Any:
            started, cpu = time.perf_counter(), time.process_time()
            try:
                return call(*arguments)
            finally:
                wall = (time.perf_counter() - started) / WALL_FACTOR
                said[1] += max(time.process_time() - cpu, wall)

        def read(result: Any) -> tuple[list[int], Any]:
            if said[1] > rules.seconds:
                guesses = len(state.guesses) + 1
                raise referee.Fault(f"over {rules.seconds:g} s after {guesses} guesses")
            parts = referee.items(result)
            try:  # card texts as plain str: a subclass's methods would run in the engine
                guess = referee.plain(parts[0]) if parts and len(parts) == 2 else None
            except referee.Fault:
                guess = None
            if not isinstance(guess, list | tuple) or not all(isinstance(c, str) for c in guess):
                raise referee.Fault(f"not a (guess, state) of card texts: {quoted(result)}")
            try:
                cards = [parse_card(card) for card in guess]
            except CardError as error:
                raise referee.Fault(f"a guess of what is not a card: {error}") from None
            said[0] = result
            return cards, referee.KEEP

        return timed, (), read

    return referee.Course(ask)

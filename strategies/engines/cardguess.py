"""Card guessing: the feedback rule in one place, answerers, the game and its loop.

Rules (`../shared/spec/cardguess.md`, from the COMP30020 2016 handout): the answerer picks
n distinct cards; the guesser guesses n distinct cards and hears five numbers back —
correct cards, answer cards ranked below the guess's lowest rank, correct ranks (multiset
overlap), answer cards ranked above the guess's highest rank, correct suits (multiset
overlap) — until the guess is the answer. That guess counts; fewer guesses is better.

Cards are ints 0..51, `rank * 4 + suit` with ranks 2 … A (0 … 12, ace high) and suits
C D H S (0 … 3); the spec's strings (`TH`, `AS`) only at the edges. A hand is a sorted
tuple of cards; `hands(n)` numbers all C(52, n) of them in lexicographic order, and the
vectorised feedback works on whole sets of hands at once (numpy).

The State API (`state.py`): one player, the guesser. `new_game(rules, rng, answerer=…)`
draws the answer (chance: the answerer is not a player); an action is a guess; the
feedback is the rules'; `returns()` pays minus the number of guesses. A guesser follows the
handout's interface: `initial_guess(n) -> (guess, state)` and `next_guess((guess, state),
feedback)`; `play_game` referees one (the guess and time limits) and `simulate` writes the
logs of many."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from itertools import combinations, combinations_with_replacement, permutations
from math import comb
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from mine.parsers import cardguess as log_format
from mine.parsers.cardguess import Score, Turn
from mine.parsers.cards import GUESS_RANKS, GUESS_SUITS, CardError, guess_rank, parse_guess
from mine.parsers.csvlog import partial_pair, publish_pair
from mine.strategies.engines.gathered import gathered
from mine.strategies.engines.settings import RuleSettings
from mine.strategies.engines.state import TERMINAL, IllegalAction
from mine.strategies.players import cardguess as player
from mine.strategies.runners import SERIAL, Runner, child, spans

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
        if self.guess_limit < 1:
            raise ValueError(f"guess_limit must be at least 1, not {self.guess_limit}")
        if self.seconds <= 0:
            raise ValueError(f"seconds must be positive, not {self.seconds}")


DEFAULT_RULES = CardGuessRules()
GAME = "cardguess"
RULES = CardGuessRules
UTILITY = (
    "minus the number of guesses, the one that finds the answer included (the guess limit's "
    "number when the limit ends the game first)"
)
ZERO_SUM = False


# --- cards ---------------------------------------------------------------------------------


def rank_of(card: int) -> int:
    return card // 4


def suit_of(card: int) -> int:
    return card % 4


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


# --- feedback ------------------------------------------------------------------------------


feedback: Callable[[Sequence[int], Sequence[int]], Feedback] = player.card_feedback
"""`feedback(answer, guess)` on card numbers, read straight off the spec (the plain
reference): the generated player's own code, so the player and the engine cannot differ."""


def encode(fb: Sequence[int]) -> int:
    """A feedback as one number 0 … 3124 (base 5, correct cards most significant)."""
    code = 0
    for number in fb:
        code = code * BASE + int(number)
    return code


def decode(code: int) -> Feedback:
    digits = []
    for _ in range(5):
        code, digit = divmod(int(code), BASE)
        digits.append(digit)
    return tuple(reversed(digits))  # type: ignore[return-value]


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
        rank_ids = _multiset_ids(cards // 4, 13)
        suit_ids = _multiset_ids(cards % 4, 4)
        return cls(cards, masks, rank_ids, suit_ids)

    @property
    def n(self) -> int:
        return self.cards.shape[1]

    def __len__(self) -> int:
        return self.cards.shape[0]

    def take(self, index: np.ndarray) -> HandSet:
        return HandSet(
            self.cards[index], self.masks[index], self.rank_ids[index], self.suit_ids[index]
        )


@cache
def _multisets(n: int, values: int) -> tuple[np.ndarray, np.ndarray]:
    """The sorted multisets of n values below `values` (M, n), and a lookup from the values
    in base `values` to the multiset's number."""
    sets = np.array(list(combinations_with_replacement(range(values), n)), dtype=np.int64)
    lookup = np.full(values**n, -1, np.int32)
    lookup[_base_number(sets, values)] = np.arange(len(sets))
    return sets, lookup


def _base_number(sorted_values: np.ndarray, values: int) -> np.ndarray:
    number = np.zeros(sorted_values.shape[0], np.int64)
    for column in range(sorted_values.shape[1]):
        number = number * values + sorted_values[:, column]
    return number


def _multiset_ids(values: np.ndarray, size: int) -> np.ndarray:
    ordered = np.sort(values.astype(np.int64), axis=1)
    return _multisets(values.shape[1], size)[1][_base_number(ordered, size)].astype(np.int32)


def _counts(sets: np.ndarray, size: int) -> np.ndarray:
    counts = np.zeros((len(sets), size), np.int16)
    np.add.at(counts, (np.arange(len(sets))[:, None], sets), 1)
    return counts


@cache
def rank_table(n: int) -> np.ndarray:
    """(lower × 5 + correct ranks) × 5 + higher, for guess rank multiset (rows) and answer
    rank multiset (columns); times 5 it takes the place of those digits in a code."""
    sets, _ = _multisets(n, 13)
    counts = _counts(sets, 13)
    low, high = sets.min(axis=1)[:, None, None], sets.max(axis=1)[:, None, None]
    lower = (sets[None] < low).sum(axis=2)
    higher = (sets[None] > high).sum(axis=2)
    overlap = np.minimum(counts[:, None], counts[None]).sum(axis=2)
    return ((lower * BASE + overlap) * BASE + higher).astype(np.int16)


@cache
def suit_table(n: int) -> np.ndarray:
    """Correct suits for guess suit multiset (rows) and answer suit multiset (columns)."""
    sets, _ = _multisets(n, 4)
    counts = _counts(sets, 4)
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


CORRECT = BASE**4  # the place of correct cards in a code
RANKS_PLACE = BASE  # lower, correct ranks, higher sit above the suits digit


def feedback_codes(answers: HandSet, guess: Sequence[int]) -> np.ndarray:
    """The encoded feedback of one guess against every answer of the set (int16)."""
    one = HandSet.of([list(guess)])
    correct = np.bitwise_count(answers.masks & one.masks[0]).astype(np.int16)
    ranks = rank_table(answers.n)[one.rank_ids[0]][answers.rank_ids]
    suits = suit_table(answers.n)[one.suit_ids[0]][answers.suit_ids]
    return correct * CORRECT + ranks * RANKS_PLACE + suits


def feedback_matrix(answers: HandSet, guesses: HandSet) -> np.ndarray:
    """Encoded feedback of every guess (rows) against every answer (columns), int16."""
    correct = np.bitwise_count(guesses.masks[:, None] & answers.masks[None]).astype(np.int16)
    ranks = rank_table(answers.n)[guesses.rank_ids[:, None], answers.rank_ids[None]]
    suits = suit_table(answers.n)[guesses.suit_ids[:, None], answers.suit_ids[None]]
    return correct * CORRECT + ranks * RANKS_PLACE + suits


# --- answerers -----------------------------------------------------------------------------

FACE_WEIGHT = 3.0  # `faces` picks a jack, queen or king three times as often as another card


def card_weights(answerer: str | Sequence[float]) -> np.ndarray:
    """The answerer's weight for each card (an answerer named, or its 52 weights given);
    it draws n distinct cards in proportion."""
    if not isinstance(answerer, str):
        weights = np.asarray(answerer, float)
        if weights.shape != (DECK,) or not (np.isfinite(weights) & (weights > 0)).all():
            raise ValueError("an answerer's card weights are 52 positive numbers")
        return weights
    weights = np.ones(DECK)
    if answerer == "faces":
        weights[[card for card in range(DECK) if RANKS[rank_of(card)] in "JQK"]] = FACE_WEIGHT
    elif answerer != "uniform":
        raise ValueError(f"unknown answerer {answerer!r} (known: {', '.join(ANSWERERS)})")
    return weights


ANSWERERS = ("uniform", "faces")


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


# --- the game: State API, referee, simulation -----------------------------------------------


class InvalidGuess(IllegalAction):
    """A guess that is not n distinct cards of the deck."""


def check_guess(guess: Any, n: int) -> Hand:
    """The guess as a sorted hand, or InvalidGuess saying why it is not one."""
    try:
        cards = [int(card) for card in guess]
    except (TypeError, ValueError):
        raise InvalidGuess(f"not a list of cards: {guess!r}") from None
    if len(cards) != n:
        raise InvalidGuess(f"{len(cards)} cards guessed, the answer has {n}")
    if any(not 0 <= card < DECK for card in cards):
        raise InvalidGuess(f"not a card of the deck in {guess!r}")
    if len(set(cards)) != n:
        raise InvalidGuess(f"a card repeats in {hand_text(cards)}")
    return tuple(sorted(cards))


@dataclass
class State:
    """A game: the answer and what has been guessed, with the feedback to each guess. One
    player, the guesser (seat 0); an action is a hand of n cards, by its number in
    `hands(n)` or as its cards. Over when the answer is guessed or at the guess limit."""

    rules: CardGuessRules
    answer: Hand
    guesses: tuple[Hand, ...] = ()
    feedbacks: tuple[Feedback, ...] = ()

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else 0

    def num_players(self) -> int:
        return 1

    def is_terminal(self) -> bool:
        return self.solved() or len(self.guesses) >= self.rules.guess_limit

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

    def returns(self) -> tuple[float, ...]:
        return (-float(len(self.guesses)),) if self.is_terminal() else (0.0,)

    def clone(self) -> State:
        return replace(self)  # its fields are immutable: a shallow copy is independent


def new_game(rules: CardGuessRules, rng: np.random.Generator, answerer: str = "uniform") -> State:
    """A game whose answer `answerer` draws from `rng`."""
    return State(rules, draw_answer(rules.n, answerer, rng))


class Guesser(Protocol):
    def initial_guess(self, n: int) -> tuple[Any, Any]: ...

    def next_guess(self, previous: tuple[Any, Any], fb: Feedback) -> tuple[Any, Any]: ...


class GameOver(RuntimeError):
    """The guesser broke a limit: an invalid guess, too many guesses, too much time."""


@dataclass(frozen=True)
class Played:
    answer: Hand
    guesses: tuple[Hand, ...]
    feedbacks: tuple[Feedback, ...]
    seconds: float


Clock = Callable[[], float]


def play_game(
    guesser: Guesser,
    answer: Hand,
    rules: CardGuessRules = DEFAULT_RULES,
    clock: Clock = time.perf_counter,
) -> Played:
    """One game: guesses until the answer is found; GameOver for an invalid guess, the
    guess limit or the time limit (the handout's 10 s per game)."""
    state = State(rules, tuple(sorted(answer)))
    started = clock()
    guess, memory = guesser.initial_guess(rules.n)
    while True:
        try:
            state.apply_action(guess)
        except InvalidGuess as error:
            raise GameOver(f"invalid guess {len(state.guesses) + 1}: {error}") from None
        if clock() - started > rules.seconds:
            raise GameOver(f"over {rules.seconds:g} s after {len(state.guesses)} guesses")
        if state.solved():
            break
        if state.is_terminal():
            raise GameOver(f"not found in {rules.guess_limit} guesses")
        guess, memory = guesser.next_guess((guess, memory), state.feedbacks[-1])
    return Played(state.answer, state.guesses, state.feedbacks, clock() - started)


def played_rows(game: int, played: Played) -> tuple[list[Turn], Score]:
    """One played game as the rows of its turn file and its score file."""
    n = len(played.answer)
    answer = tuple(card_text(card) for card in played.answer)
    turns = [
        Turn(game, n, answer, number, tuple(card_text(card) for card in guess), *fb)
        for number, (guess, fb) in enumerate(zip(played.guesses, played.feedbacks, strict=True), 1)
    ]
    return turns, Score(game, n, answer, len(played.guesses))


BotMaker = Callable[[str, CardGuessRules, np.random.Generator], Guesser]


GAMES_PER_TASK = 1000  # a task of `simulate`: its guesser learns anew in each, so not few


def simulate(
    rules: CardGuessRules,
    players: Sequence[str],
    games: int,
    seed: int,
    out: Path,
    *,
    progress: Callable[[str, int, int], None] | None = None,
    make_bot: BotMaker,
    answerer: str = "uniform",
    runner: Runner = SERIAL,
) -> dict[str, Any]:
    """Play `games` games of n = `rules.n` cards between the one guesser named in `players`
    (made by `make_bot`, the bots layer's) and `answerer`, who draws the answers (chance,
    not a player); write `<guesser>-<answerer>-n<N>.csv` and its score file into `out`.
    Game g's answer and the guesser's draws in it come from the g-th child of `seed`, so
    the same seed writes the same bytes, whichever of `runner`'s tasks (GAMES_PER_TASK
    games each; `make_bot` must pickle) played it."""
    if len(players) != 1:
        raise ValueError(
            f"card guessing has one player, the guesser: name one bot, not {len(players)}"
        )
    (name,) = players
    stem = f"{name}-{answerer}-n{rules.n}"
    tasks = [(rules, name, make_bot, answerer, seed, span) for span in spans(games, GAMES_PER_TASK)]
    turns, scores = gathered(runner, _play_games, tasks, progress, stem, games)
    Path(out).mkdir(parents=True, exist_ok=True)
    turn_path, score_path = partial_pair(out, stem)
    log_format.write_turns(turn_path, turns)
    log_format.write_scores(score_path, scores)
    publish_pair(out, stem)
    counts = [score.guesses for score in scores]
    return {
        "stem": stem,
        "games": games,
        "rows": len(turns),
        "mean_guesses": sum(counts) / games,
        "most_guesses": max(counts),
    }


def _play_games(task: tuple) -> list[tuple[list[Turn], Score]]:
    """One task of `simulate`: its games' turn rows and score row. One guesser plays them
    all (what it has worked out serves every game); its generator is reseeded for each."""
    rules, name, make_bot, answerer, seed, span = task
    draws = np.random.default_rng()
    guesser = make_bot(name, rules, draws)
    played = []
    for game in span:
        draws.bit_generator.state = np.random.PCG64(child(seed, game, 1)).state
        answer = new_game(rules, np.random.default_rng(child(seed, game, 0)), answerer).answer
        played.append(played_rows(game + 1, play_game(guesser, answer, rules)))
    return played

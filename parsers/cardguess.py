"""Card-guessing logs: the turn file (one row per guess) and the score file (one per game).

Format: `../shared/spec/cardguess.md`. Cards are written rank first (`TH`, `AS`, the
handout's notation, `parsers/cards.py`) and a hand's cards are joined by `;`. The parser
checks the format (each hand is n distinct cards, feedback numbers at most n), never the
rules: whether a feedback is right for its answer and guess is the warehouse's check.
"""

from __future__ import annotations

from typing import NamedTuple

from mine.parsers.cards import GUESS_CARD_PATTERN
from mine.parsers.csvlog import POSITIVE, Column, Format, reader, writer

GAME = "cardguess"
HAND = rf"{GUESS_CARD_PATTERN}(?:;{GUESS_CARD_PATTERN}){{0,3}}"
SIZE = "[1-4]"  # the handout plays n = 2, 3, 4; feedback numbers are 0 … n
COUNT = "[0-4]"

FEEDBACK = ("correct", "lower", "ranks", "higher", "suits")
GAME_N_ANSWER = (
    Column("game", "INTEGER", POSITIVE, "a game number (1, 2, …)"),
    Column("n", "INTEGER", SIZE, "a number of cards (1 … 4)"),
    Column("answer", "VARCHAR", HAND, "cards like 3C;TH"),
)
TURNS = Format("cardguess turns", (
    *GAME_N_ANSWER,
    Column("guess_no", "INTEGER", POSITIVE, "a guess number (1, 2, …)"),
    Column("guess", "VARCHAR", HAND, "cards like 3C;TH"),
    *(Column(name, "INTEGER", COUNT, "a count 0 … 4") for name in FEEDBACK),
))  # fmt: skip
SCORES = Format("cardguess scores", (
    *GAME_N_ANSWER, Column("guesses", "INTEGER", POSITIVE, "a number of guesses"),
))  # fmt: skip


class Turn(NamedTuple):
    game: int
    n: int
    answer: tuple[str, ...]  # the cards as written, in the file's order
    guess_no: int
    guess: tuple[str, ...]
    correct: int
    lower: int
    ranks: int
    higher: int
    suits: int

    @property
    def feedback(self) -> tuple[int, int, int, int, int]:
        return self.correct, self.lower, self.ranks, self.higher, self.suits


class Score(NamedTuple):
    game: int
    n: int
    answer: tuple[str, ...]
    guesses: int


def _hand(text: str, n: int, what: str) -> tuple[str, ...]:
    cards = tuple(text.split(";"))
    if len(cards) != n:
        raise ValueError(f"{what} has {len(cards)} cards, n is {n}")
    if len(set(cards)) != n:
        raise ValueError(f"{what} repeats a card")
    return cards


def _turn(fields: list[str]) -> Turn:
    n = int(fields[1])
    counts = [int(field) for field in fields[5:]]
    for name, count in zip(FEEDBACK, counts, strict=True):
        if count > n:
            raise ValueError(f"{name} is {count}, more than the {n} cards")
    return Turn(int(fields[0]), n, _hand(fields[2], n, "answer"), int(fields[3]),
                _hand(fields[4], n, "guess"), *counts)  # fmt: skip


def _score(fields: list[str]) -> Score:
    n = int(fields[1])
    return Score(int(fields[0]), n, _hand(fields[2], n, "answer"), int(fields[3]))


read_turns = reader(TURNS, _turn)
read_scores = reader(SCORES, _score)


def turn_fields(turn: Turn) -> tuple[object, ...]:
    answer, guess = ";".join(turn.answer), ";".join(turn.guess)
    return turn.game, turn.n, answer, turn.guess_no, guess, *turn.feedback


def score_fields(score: Score) -> tuple[object, ...]:
    return score.game, score.n, ";".join(score.answer), score.guesses


write_turns = writer(turn_fields)
write_scores = writer(score_fields)

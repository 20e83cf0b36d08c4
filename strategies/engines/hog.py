"""Hog: the rules in one place, its State, and a vectorised simulator of many games.

Rules (`../shared/spec/hog.md`, from the CS61A handout): two players alternate turns; the
first to end a turn with at least `goal` points wins. The mover picks `k` dice:

- k ≥ 1: the turn scores the sum of the dice, or exactly 1 if any die shows 1 (Sow Sad);
- k = 0: the turn scores `2 × |tens − ones| + 1` of the opponent's score (Pig Tail);
- then, if the new score is a perfect square d², it becomes (d + 1)² (Square Swine).

State: both scores, who moves, every turn played (what its logs show). Actions: 0..max_rolls
dice (1..max_rolls without Pig Tail, so that every turn scores and the game stays acyclic).
Chance: the dice, from the state's rng. Payoff: +1 to the winner, -1 to the loser. A
strategy is `(score, opponent_score) -> k`: the course's interface (`final_strategy`), and
what a bot is a table of.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from mine.inputs import quoted
from mine.parsers import hog as log_format
from mine.parsers.hog import Score, Turn
from mine.strategies.engines import referee, simulation
from mine.strategies.engines.settings import RuleSettings
from mine.strategies.engines.state import TERMINAL, IllegalAction

if TYPE_CHECKING:  # polars loads when games are simulated as frames (an ingest needs none)
    import polars as pl

Strategy = Callable[[int, int], int]


@dataclass(frozen=True)
class HogRules(RuleSettings):
    goal: int = 100
    dice_sides: int = 6
    max_rolls: int = 10
    sow_sad: bool = True
    pig_tail: bool = True
    square_swine: bool = True

    BOUNDS: ClassVar[Mapping[str, tuple[float, float]]] = {"goal": (1, 1000), "dice_sides": (2, 20),
                                                           "max_rolls": (1, 20)}  # fmt: skip

    def __post_init__(self) -> None:
        self.at_least(goal=1, dice_sides=2, max_rolls=1)

    # what a fitted table's metadata says of its rules (Pig Tail is its tables' 0 dice)
    LEARNED: ClassVar = ("goal", "dice_sides", "max_rolls", "sow_sad", "square_swine")

    @classmethod
    def learned(cls, learned: Mapping[str, Any]) -> HogRules:
        """The rules a fitted table was solved in: those its metadata says were learned
        (`mine fit hog` stores them), the defaults for what it does not say; ValueError
        for a value of another type than the setting's (a fraction, a word)."""
        values = {name: learned[name] for name in cls.LEARNED if name in learned}
        for name, value in values.items():
            if type(value) is not type(default := getattr(DEFAULT_RULES, name)):
                raise ValueError(f"learned {name} is {value!r}, not a {type(default).__name__}")
        return cls(**values)

    @property
    def min_rolls(self) -> int:
        return 0 if self.pig_tail else 1

    @property
    def max_points(self) -> int:
        """The most one turn can score (Pig Tail gives at most 19)."""
        return max(self.max_rolls * self.dice_sides, 19 if self.pig_tail else 0)


DEFAULT_RULES = HogRules()


# --- the rules -------------------------------------------------------------------------


def roll_points(outcomes: Sequence[int], rules: HogRules) -> int:
    """Sow Sad: the sum of the dice, unless any die shows 1 — then exactly 1."""
    return 1 if rules.sow_sad and 1 in outcomes else sum(outcomes)


def tail_points(opponent_score: int) -> int:
    """Pig Tail: 2 × |tens − ones| + 1 of the opponent's score (which may exceed 99)."""
    tens, ones = opponent_score % 100 // 10, opponent_score % 10
    return 2 * abs(tens - ones) + 1


def square_swine(score: int, rules: HogRules) -> int:
    """Square Swine: a perfect square d² becomes the next one, (d + 1)²."""
    root = math.isqrt(score)
    return (root + 1) ** 2 if rules.square_swine and root * root == score else score


def turn_points(num_rolls: int, outcomes: Sequence[int], opponent: int, rules: HogRules) -> int:
    """Pig Tail for no dice, else the dice (Sow Sad)."""
    return tail_points(opponent) if num_rolls == 0 else roll_points(outcomes, rules)


def roll(num_rolls: int, rules: HogRules, rng: np.random.Generator) -> tuple[int, ...]:
    """All the dice are always rolled, even after a 1 (none for Pig Tail)."""
    if not num_rolls:
        return ()
    return tuple(int(d) for d in rng.integers(1, rules.dice_sides + 1, size=num_rolls))


# --- the State ---------------------------------------------------------------------------

GAME = "hog"
RULES = HogRules
UTILITY = "+1 to the winner, -1 to the loser"
ZERO_SUM = True
NUM_PLAYERS = range(2, 3)  # a game seats two
FORFEIT = referee.game_lost  # a fault loses the game
ONE_GAME_A_FILE = False  # a match's games in one log pair
GAMES_PER_TASK = 10_000  # a task of a match: its games played at once (`play_fast`)
SEATS = ("0", "1")  # the players' ids where none are given
Played = tuple[int, int, int, int, tuple[int, ...], int, int]
"""A turn: the mover's seat, its score and the opponent's before it, the dice chosen and
rolled, the points and the mover's score after it."""


class State:
    """Scores by seat, whose turn it is, the dice (the rng) and each turn played; the first
    mover is seat 0 (seat 1 in a deal played from the other side)."""

    def __init__(self, rules: HogRules, rng: np.random.Generator, scores: tuple[int, int] = (0, 0),
                 mover: int = 0, players: Sequence[str] = SEATS) -> None:  # fmt: skip
        self.rules, self.rng, self.players = rules, rng, tuple(players)
        self.scores, self.mover, self.first = scores, mover, mover
        self.played: list[Played] = []
        self.forfeited: int | None = None  # the seat that lost the game by a fault

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else self.mover

    def num_players(self) -> int:
        return 2

    def legal_actions(self) -> range:
        over = self.is_terminal()
        return range(0) if over else range(self.rules.min_rolls, self.rules.max_rolls + 1)

    def is_terminal(self) -> bool:
        return self.forfeited is not None or max(self.scores) >= self.rules.goal

    def winner(self) -> int | None:
        if self.forfeited is not None:
            return 1 - self.forfeited
        return None if not self.is_terminal() else int(self.scores[0] < self.rules.goal)

    def returns(self) -> tuple[float, float]:
        winner = self.winner()
        return (0.0, 0.0) if winner is None else ((1.0, -1.0), (-1.0, 1.0))[winner]

    def clone(self) -> State:
        return copy.deepcopy(self)

    def seen(self, seat: int) -> tuple[int, int]:
        """What a strategy is told: `seat`'s score and its opponent's."""
        return self.scores[seat], self.scores[1 - seat]

    def forfeit(self, seat: int, reason: str) -> None:
        """The game ends here, lost by `seat` (a fault the referee charged)."""
        self.forfeited = seat

    def apply_action(self, num_rolls: Any) -> None:
        """The mover rolls `num_rolls` dice, drawn from the state's rng; a whole number
        (not a bool) the rules allow."""
        if self.is_terminal():
            raise IllegalAction("the game is over")
        if type(num_rolls) is not int or num_rolls not in self.legal_actions():
            raise IllegalAction(f"cannot roll {quoted(num_rolls)} dice")
        me = self.mover
        score, opponent = self.seen(me)
        outcomes = roll(num_rolls, self.rules, self.rng)
        points = turn_points(num_rolls, outcomes, opponent, self.rules)
        new = square_swine(score + points, self.rules)
        self.played.append((me, score, opponent, num_rolls, outcomes, points, new))
        self.scores = (new, opponent) if me == 0 else (opponent, new)
        self.mover = 1 - me


def new_game(
    rules: HogRules, rng: np.random.Generator, players: Sequence[str] = SEATS,
    swapped: bool = False,
) -> State:  # fmt: skip
    """A game from 0 to 0 between `players` (seat order), seat 0 to move (seat 1 when
    `swapped`: the deal from the other side)."""
    return State(rules, rng, mover=int(swapped), players=players)


def log_rows(state: State, game: int, me: str | None = None) -> tuple[list[Turn], list[Score]]:
    """The game's turn rows and its score row (every row names its player: no point of
    view)."""
    ids, first, winner = state.players, state.first, state.winner()
    turns = [Turn(game, number, ids[seat], *rest)
             for number, (seat, *rest) in enumerate(state.played, 1)]  # fmt: skip
    ended = Score(game, ids[first], state.scores[first], state.scores[1 - first],
                  ids[0 if winner is None else winner])  # fmt: skip
    return turns, [ended]


def log_bytes(rules: HogRules, players: int) -> int:
    """A game's log rows, generously: about 780 bytes a game to 100 measured."""
    return 20 * rules.goal


def course_player(module: Any) -> referee.Course:
    """A player with the course's interface, `final_strategy(score, opponent_score)`, as the
    referee asks it: only a whole number of dice the rules allow (not a bool, a float or a
    string) is an answer."""

    def ask(state: State, seat: int, memory: str | None) -> tuple:
        def read(dice: Any) -> tuple[int, Any]:
            if type(dice) is not int or dice not in state.legal_actions():
                low, high = state.rules.min_rolls, state.rules.max_rolls
                raise referee.Fault(f"returned {quoted(dice)} (the rules allow {low}..{high} dice)")
            return dice, referee.KEEP

        return module.final_strategy, state.seen(seat), read

    return referee.Course(ask)


# --- tables and the vectorised simulator ----------------------------------------------


def as_table(strategy: Any, rules: HogRules = DEFAULT_RULES) -> np.ndarray:
    """A strategy as its goal × goal table (row = my score, column = opponent's score): a
    bot's own table, a table, or a `Strategy` asked in every state; ValueError where it
    does not fit the rules."""
    table = getattr(strategy, "table", strategy)
    if isinstance(table, np.ndarray):
        table = table.astype(np.int64)
    else:
        states = range(rules.goal)
        table = np.array([[table(s, o) for o in states] for s in states], dtype=np.int64)
    if table.shape != (goal := rules.goal, goal):
        raise ValueError(
            f"a table for goal {goal} is {goal}×{goal}, not {'×'.join(map(str, table.shape))}"
        )
    if table.min() < rules.min_rolls or table.max() > rules.max_rolls:
        raise ValueError(f"a table holds {rules.min_rolls}..{rules.max_rolls} dice")
    return table


def swine_map(rules: HogRules, size: int) -> np.ndarray:
    """Square Swine for every score below `size`, as an array."""
    return np.array([square_swine(n, rules) for n in range(size)], dtype=np.int64)


def tail_map(rules: HogRules) -> np.ndarray:
    """Pig Tail points for every opponent score below the goal."""
    return np.array([tail_points(o) for o in range(rules.goal)], dtype=np.int64)


def simulate_tables(tables: Sequence[Any], ids: Sequence[str], span: range,
                    rng: np.random.Generator, rules: HogRules = DEFAULT_RULES,
                    ) -> tuple[pl.DataFrame, pl.DataFrame]:  # fmt: skip
    """Games `span` (from 0) of a match between table strategies A and B (`ids`) at once, A
    moving first in even games: one turn a step, each a single random draw (`_Dice`); the
    games that end drop out, the rest take their next turn together. Their turn and score
    rows, as the columns of the log files."""
    import polars as pl

    goal, games, names = rules.goal, len(span), pl.Series(list(ids), dtype=pl.String)
    flat = np.stack([as_table(t, rules) for t in tables]).reshape(-1)
    swine, tail = swine_map(rules, goal + rules.max_points), tail_map(rules)
    dice = _Dice.for_rules(rules)
    first, final = np.arange(span.start, span.stop) % 2, np.zeros((2, games), dtype=np.int64)
    game, mover, winner = np.arange(games), first.copy(), np.zeros(games, dtype=np.int64)
    score, opponent = np.zeros(games, dtype=np.int64), np.zeros(games, dtype=np.int64)
    steps: list[tuple[np.ndarray, ...]] = []
    while game.size:
        k = flat[(mover * goal + score) * goal + opponent]
        drawn = dice.draw(game.size, rng)
        points = np.where(k == 0, tail[opponent], dice.points(k, drawn))
        new = swine[score + points]
        steps.append((game, np.full(game.size, len(steps) + 1), mover, score, opponent, k, drawn,
                      points, new))  # fmt: skip
        done, keep = new >= goal, new < goal
        ended = game[done]
        final[mover[done], ended], final[1 - mover[done], ended] = new[done], opponent[done]
        winner[ended] = mover[done]
        game, mover, score, opponent = game[keep], 1 - mover[keep], opponent[keep], new[keep]
    every = np.arange(games)
    scores = (every + span.start + 1, names.gather(first), final[first, every],
              final[1 - first, every], names.gather(winner))  # fmt: skip
    scores = pl.DataFrame(dict(zip(log_format.SCORE_COLUMNS, scores, strict=True)))
    return _turn_frame(steps, dice, names, span.start), scores


@dataclass(frozen=True, eq=False)
class _Dice:
    """All of a turn's dice from one random integer, and its points by table look-up.

    One integer uniform below sides**(2h) is two halves uniform below sides**h, and the
    base-`sides` digits of each half are h independent dice (digit 0 is face 1). The
    points of the first j dice of every half are tabulated, so a turn costs one draw and
    two look-ups. Dice too many for that are drawn one by one instead.
    """

    sides: int
    half: int  # h: dice per half; 0 when the dice are drawn one by one
    max_rolls: int
    sow_sad: bool
    table: np.ndarray  # (h + 1) × sides**h: sum of the first j faces, or BUST if one is a 1

    BUST = -(1 << 40)

    @classmethod
    def for_rules(cls, rules: HogRules) -> _Dice:
        half = (rules.max_rolls + 1) // 2
        if rules.dice_sides**half > 1 << 20:
            return cls(rules.dice_sides, 0, rules.max_rolls, rules.sow_sad, np.zeros(0))
        codes = np.arange(rules.dice_sides**half, dtype=np.int64)
        rows = [np.zeros(codes.size, dtype=np.int64)]
        for j in range(half):
            face = codes // rules.dice_sides**j % rules.dice_sides + 1
            bust = (face == 1) & rules.sow_sad
            rows.append(np.where(bust | (rows[-1] < 0), cls.BUST, rows[-1] + face))
        return cls(rules.dice_sides, half, rules.max_rolls, rules.sow_sad, np.stack(rows))

    def draw(self, n: int, rng: np.random.Generator) -> np.ndarray:
        if self.half:
            return rng.integers(0, self.sides ** (2 * self.half), size=n, dtype=np.int64)
        return rng.integers(0, self.sides, size=(n, self.max_rolls), dtype=np.int64)

    def points(self, k: np.ndarray, drawn: np.ndarray) -> np.ndarray:
        if not self.half:
            return self._points_one_by_one(k, drawn)
        size = self.sides**self.half
        low_dice = np.minimum(k, self.half)
        high_dice = k - low_dice
        flat = self.table.reshape(-1)
        total = flat[low_dice * size + drawn % size] + flat[high_dice * size + drawn // size]
        return np.where(total < 0, 1, total)

    def _points_one_by_one(self, k: np.ndarray, drawn: np.ndarray) -> np.ndarray:
        used = np.arange(self.max_rolls) < k[:, None]
        total = np.where(used, drawn + 1, 0).sum(axis=1)
        if self.sow_sad:
            total[(used & (drawn == 0)).any(axis=1)] = 1
        return total

    def faces(self, drawn: np.ndarray) -> np.ndarray:
        """Every drawn number as its max_rolls faces (1..sides), one row per draw."""
        if not self.half:
            return drawn + 1
        powers = self.sides ** np.arange(self.max_rolls, dtype=np.int64)
        return drawn[:, None] // powers % self.sides + 1


def _turn_frame(steps, dice: _Dice, names: pl.Series, start: int) -> pl.DataFrame:
    """The recorded turns in game order, as the columns of `Turn`."""
    import polars as pl

    columns = [np.concatenate(c) for c in zip(*steps, strict=True)]
    order = np.lexsort((columns[1], columns[0]))
    game, turn, mover, score, opponent, k, drawn, points, new = (c[order] for c in columns)
    faces = pl.DataFrame({"dice": dice.faces(drawn), "k": k})
    outcomes = faces.select(pl.col("dice").arr.to_list().list.head(pl.col("k"))).to_series()
    values = (game + start + 1, turn, names.gather(mover), score, opponent, k, outcomes, points,
              new)  # fmt: skip
    return pl.DataFrame(dict(zip(log_format.TURN_COLUMNS, values, strict=True)))


def play_fast(
    rules: HogRules, bots: Sequence[Any], ids: Sequence[str], span: range,
    rng: np.random.Generator,
) -> simulation.Played | None:  # fmt: skip
    """A task's games at once, vectorised (None where a bot is not a table): game g of the
    match (from 0) is deal g // 2, A (`ids[0]`) moving first in even games; the rows the
    State path writes for the same dice (`tests/strategies/test_hog_engine.py`)."""
    tables = [getattr(bot, "table", None) for bot in bots]
    if any(table is None for table in tables):
        return None
    turns, scores = simulate_tables(tables, ids, span, rng, rules)
    logs = (log_format.turn_frame_bytes(turns), log_format.score_frame_bytes(scores))
    games = [(tuple(ids), (1.0, -1.0) if winner == ids[0] else (-1.0, 1.0), (None, None))
             for winner in scores["winner"]]  # fmt: skip
    return simulation.Played([logs], turns.height, games)

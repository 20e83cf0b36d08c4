"""Hog: the rules in one place, a game loop, and a vectorised simulator of many games.

Rules (`../shared/spec/hog.md`, from the CS61A handout): two players alternate turns; the
first to end a turn with at least `goal` points wins. The mover picks `k` dice:

- k ≥ 1: the turn scores the sum of the dice, or exactly 1 if any die shows 1 (Sow Sad);
- k = 0: the turn scores `2 × |tens − ones| + 1` of the opponent's score (Pig Tail);
- then, if the new score is a perfect square d², it becomes (d + 1)² (Square Swine).

State: both scores and who moves. Actions: 0..max_rolls dice (1..max_rolls without Pig
Tail, so that every turn scores and the game stays acyclic). Chance: the dice. Payoff: 1 to
the winner, 0 to the loser. A strategy is `(score, opponent_score) -> k`.

`simulate` plays matches between strategies and writes their logs in the real format
(`parsers/hog.py`): what `mine simulate hog` and the demo write.
"""

from __future__ import annotations

import copy
import math
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import polars as pl

from mine.parsers import hog as log_format
from mine.parsers.csvlog import partial_pair, publish_pair
from mine.parsers.hog import Score, Turn
from mine.strategies.engines.settings import RuleSettings
from mine.strategies.engines.state import TERMINAL, IllegalAction
from mine.strategies.runners import SERIAL, Runner, child, spans

Strategy = Callable[[int, int], int]


@dataclass(frozen=True)
class HogRules(RuleSettings):
    goal: int = 100
    dice_sides: int = 6
    max_rolls: int = 10
    sow_sad: bool = True
    pig_tail: bool = True
    square_swine: bool = True

    BOUNDS: ClassVar[Mapping[str, tuple[float, float]]] = {
        "goal": (1, 1000),
        "dice_sides": (2, 20),
        "max_rolls": (1, 20),
    }

    def __post_init__(self) -> None:
        if self.goal < 1:
            raise ValueError(f"goal must be at least 1, not {self.goal}")
        if self.dice_sides < 2:
            raise ValueError(f"dice_sides must be at least 2, not {self.dice_sides}")
        if self.max_rolls < 1:
            raise ValueError(f"max_rolls must be at least 1, not {self.max_rolls}")

    LEARNED: ClassVar[tuple[str, ...]] = (
        "goal", "dice_sides", "max_rolls", "sow_sad", "square_swine"
    )  # fmt: skip

    @classmethod
    def learned(cls, learned: Mapping[str, Any]) -> HogRules:
        """The rules a fitted table was solved in: those its metadata says were learned
        (`mine fit hog` stores them), the defaults for what it does not say; ValueError
        for a value of another type than the setting's (a fraction, a word)."""
        values = {}
        for name in cls.LEARNED:
            if name not in learned:
                continue
            value, default = learned[name], getattr(DEFAULT_RULES, name)
            if type(value) is not type(default):
                raise ValueError(f"learned {name} is {value!r}, not a {type(default).__name__}")
            values[name] = value
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
    if rules.sow_sad and 1 in outcomes:
        return 1
    return sum(outcomes)


def tail_points(opponent_score: int) -> int:
    """Pig Tail: 2 × |tens − ones| + 1 of the opponent's score (which may exceed 99)."""
    tens, ones = opponent_score % 100 // 10, opponent_score % 10
    return 2 * abs(tens - ones) + 1


def is_perfect_square(score: int) -> bool:
    return math.isqrt(score) ** 2 == score


def square_swine(score: int, rules: HogRules) -> int:
    """Square Swine: a perfect square d² becomes the next one, (d + 1)²."""
    if rules.square_swine and is_perfect_square(score):
        return (math.isqrt(score) + 1) ** 2
    return score


def turn_points(
    num_rolls: int, outcomes: Sequence[int], opponent_score: int, rules: HogRules
) -> int:
    if num_rolls == 0:
        return tail_points(opponent_score)
    return roll_points(outcomes, rules)


def roll(num_rolls: int, rules: HogRules, rng: np.random.Generator) -> tuple[int, ...]:
    """All the dice are always rolled, even after a 1."""
    return tuple(int(d) for d in rng.integers(1, rules.dice_sides + 1, size=num_rolls))


# --- state and game loop ---------------------------------------------------------------

GAME = "hog"
RULES = HogRules
UTILITY = "+1 to the winner, -1 to the loser"
ZERO_SUM = True


class State:
    """Scores by seat (seat 0 moved first), whose turn it is, and the dice (the rng)."""

    def __init__(
        self,
        rules: HogRules,
        rng: np.random.Generator,
        scores: tuple[int, int] = (0, 0),
        mover: int = 0,
        turn: int = 1,
    ) -> None:
        self.rules, self.rng = rules, rng
        self.scores, self.mover, self.turn = scores, mover, turn

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else self.mover

    def num_players(self) -> int:
        return 2

    def legal_actions(self) -> range:
        if self.is_terminal():
            return range(0)
        return range(self.rules.min_rolls, self.rules.max_rolls + 1)

    def is_terminal(self) -> bool:
        return max(self.scores) >= self.rules.goal

    def winner(self) -> int | None:
        if not self.is_terminal():
            return None
        return 0 if self.scores[0] >= self.rules.goal else 1

    def returns(self) -> tuple[float, float]:
        winner = self.winner()
        if winner is None:
            return 0.0, 0.0
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)

    def clone(self) -> State:
        return copy.deepcopy(self)

    def apply_action(self, num_rolls: Any) -> None:
        """The mover rolls `num_rolls` dice, drawn from the state's rng."""
        self._check(num_rolls)
        self.apply_roll(num_rolls, roll(num_rolls, self.rules, self.rng))

    def apply_roll(self, num_rolls: int, outcomes: Sequence[int]) -> int:
        """The mover rolls `num_rolls` dice showing `outcomes` (a logged turn replayed);
        the turn's points."""
        self._check(num_rolls)
        if len(outcomes) != num_rolls:
            raise IllegalAction(f"{num_rolls} dice but {len(outcomes)} outcomes")
        score, opponent = self.scores[self.mover], self.scores[1 - self.mover]
        points = turn_points(num_rolls, outcomes, opponent, self.rules)
        new = square_swine(score + points, self.rules)
        self.scores = (new, opponent) if self.mover == 0 else (opponent, new)
        self.mover, self.turn = 1 - self.mover, self.turn + 1
        return points

    def _check(self, num_rolls: Any) -> None:
        if self.is_terminal():
            raise IllegalAction("the game is over")
        if not isinstance(num_rolls, int) or num_rolls not in self.legal_actions():
            raise IllegalAction(f"cannot roll {num_rolls!r} dice")


def new_game(rules: HogRules, rng: np.random.Generator) -> State:
    """A game from 0 to 0, seat 0 to move."""
    return State(rules, rng)


def play_game(
    strategies: tuple[Strategy, Strategy],
    players: tuple[str, str],
    rng: np.random.Generator,
    rules: HogRules = DEFAULT_RULES,
    game: int = 1,
) -> tuple[list[Turn], Score]:
    """One game; `strategies[0]` (player `players[0]`) moves first."""
    state = State(rules, rng)
    turns = []
    while not state.is_terminal():
        me = state.mover
        score, opponent = state.scores[me], state.scores[1 - me]
        num_rolls = int(strategies[me](score, opponent))
        outcomes = roll(num_rolls, rules, rng) if num_rolls > 0 else ()
        points = state.apply_roll(num_rolls, outcomes)
        turns.append(
            Turn(
                game,
                state.turn - 1,
                players[me],
                score,
                opponent,
                num_rolls,
                outcomes,
                points,
                state.scores[me],
            )
        )
    first, second = state.scores
    return turns, Score(game, players[0], first, second, players[state.winner() or 0])


def play_match(
    strategies: tuple[Strategy, Strategy],
    players: tuple[str, str],
    games: int,
    rng: np.random.Generator,
    rules: HogRules = DEFAULT_RULES,
) -> tuple[list[Turn], list[Score]]:
    """`games` games; the first player alternates, `players[0]` moving first in game 1."""
    turns: list[Turn] = []
    scores: list[Score] = []
    for game in range(1, games + 1):
        order = (0, 1) if game % 2 == 1 else (1, 0)
        game_turns, score = play_game(
            (strategies[order[0]], strategies[order[1]]),
            (players[order[0]], players[order[1]]),
            rng,
            rules,
            game,
        )
        turns += game_turns
        scores.append(score)
    return turns, scores


# --- tables and the vectorised simulator ----------------------------------------------


def as_table(strategy: Strategy | np.ndarray, rules: HogRules = DEFAULT_RULES) -> np.ndarray:
    """A strategy as its goal × goal table (row = my score, column = opponent's score)."""
    if isinstance(strategy, np.ndarray):
        table = strategy.astype(np.int64)
    else:
        goal = rules.goal
        table = np.array(
            [[strategy(s, o) for o in range(goal)] for s in range(goal)], dtype=np.int64
        )
    if table.shape != (rules.goal, rules.goal):
        raise ValueError(
            f"a table for goal {rules.goal} is {rules.goal}×{rules.goal}, "
            f"not {'×'.join(map(str, table.shape))}"
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


@dataclass(frozen=True)
class SimulationResult:
    """Per game: final scores of player A and B, the first mover and the winner (0 = A)."""

    first: np.ndarray
    final_a: np.ndarray
    final_b: np.ndarray
    winner: np.ndarray
    turns: pl.DataFrame | None  # columns of `Turn` (players as 0/1 until named), or None

    @property
    def games(self) -> int:
        return len(self.winner)

    def win_rate_a(self) -> float:
        return float(np.mean(self.winner == 0))


def simulate_tables(
    tables: tuple[np.ndarray, np.ndarray],
    games: int,
    rng: np.random.Generator,
    rules: HogRules = DEFAULT_RULES,
    first: np.ndarray | None = None,
    record: bool = False,
) -> SimulationResult:
    """Play `games` games between table strategies A and B at once, one turn per step.

    `first[g]` is who moves first in game g (0 = A, 1 = B); by default A in even-indexed
    games, so that game numbers 1, 3, … start with A. Games that end drop out; the rest
    take their next turn together. Each turn costs one random draw (see `_Dice`). With
    `record`, the turns come back as a DataFrame with the columns of `Turn`.
    """
    goal = rules.goal
    flat = np.stack([as_table(t, rules) for t in tables]).reshape(-1)
    if first is None:
        first = np.arange(games, dtype=np.int64) % 2
    first = np.asarray(first, dtype=np.int64)
    swine = swine_map(rules, goal + rules.max_points)
    tail = tail_map(rules)
    dice = _Dice.for_rules(rules)
    ids = np.arange(games, dtype=np.int64)
    mover = first.copy()
    score = np.zeros(games, dtype=np.int64)
    opponent = np.zeros(games, dtype=np.int64)
    final = np.zeros((2, games), dtype=np.int64)
    winner = np.zeros(games, dtype=np.int64)
    steps: list[tuple[np.ndarray, ...]] = []
    turn = 0
    while ids.size:
        turn += 1
        k = flat[(mover * goal + score) * goal + opponent]
        drawn = dice.draw(ids.size, rng)
        points = np.where(k == 0, tail[opponent], dice.points(k, drawn))
        new = swine[score + points]
        if record:
            steps.append(
                (ids, np.full(ids.size, turn), mover, score, opponent, k, drawn, points, new)
            )
        done = new >= goal
        if done.any():
            d = ids[done]
            final[mover[done], d] = new[done]
            final[1 - mover[done], d] = opponent[done]
            winner[d] = mover[done]
        keep = ~done
        ids, mover = ids[keep], 1 - mover[keep]
        score, opponent = opponent[keep], new[keep]
    turns = _turn_frame(steps, dice) if record else None
    return SimulationResult(first, final[0], final[1], winner, turns)


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


def _turn_frame(steps, dice: _Dice) -> pl.DataFrame:
    if not steps:
        return pl.DataFrame(schema=TURN_SCHEMA)
    columns = [np.concatenate(c) for c in zip(*steps, strict=True)]
    ids, turn, mover, score, opponent, k, drawn, points, new = columns
    order = np.lexsort((turn, ids))
    k = k[order]
    outcomes = (
        pl.DataFrame({"dice": dice.faces(drawn[order]), "k": k})
        .select(pl.col("dice").arr.to_list().list.head(pl.col("k")))
        .to_series()
    )
    return pl.DataFrame(
        {
            "game": ids[order] + 1,
            "turn": turn[order],
            "player": mover[order],
            "score": score[order],
            "opponent_score": opponent[order],
            "num_rolls": k,
            "outcomes": outcomes,
            "points": points[order],
            "new_score": new[order],
        }
    )


TURN_SCHEMA = {
    "game": pl.Int64,
    "turn": pl.Int64,
    "player": pl.Int64,
    "score": pl.Int64,
    "opponent_score": pl.Int64,
    "num_rolls": pl.Int64,
    "outcomes": pl.List(pl.Int64),
    "points": pl.Int64,
    "new_score": pl.Int64,
}


def match_frames(
    result: SimulationResult, players: tuple[str, str], first_game: int = 1
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The turn and score records of a recorded simulation, with player ids and game
    numbers counted from `first_game` — the columns of the log files."""
    if result.turns is None:
        raise ValueError("the simulation was run without record=True")
    names = pl.Series(list(players), dtype=pl.String)
    turns = result.turns.with_columns(
        pl.col("game") + (first_game - 1),
        names.gather(result.turns["player"]).alias("player"),
    )
    first = result.first
    final_first = np.where(first == 0, result.final_a, result.final_b)
    final_second = np.where(first == 0, result.final_b, result.final_a)
    scores = pl.DataFrame(
        {
            "game": np.arange(first_game, first_game + result.games, dtype=np.int64),
            "first_player": names.gather(first),
            "final_score_first": final_first,
            "final_score_second": final_second,
            "winner": names.gather(result.winner),
        }
    )
    return turns, scores


def turn_records(frame: pl.DataFrame) -> list[Turn]:
    return [
        Turn(g, t, p, s, o, k, tuple(out), pts, n)
        for g, t, p, s, o, k, out, pts, n in frame.select(TURN_SCHEMA.keys()).iter_rows()
    ]


def score_records(frame: pl.DataFrame) -> list[Score]:
    return [Score(*row) for row in frame.iter_rows()]


# --- matches written as logs ------------------------------------------------------------

GAMES_PER_TASK = 10_000  # a match's games simulated at once (one task); a constant: a seed's part
Progress = Callable[[str, int, int], None]  # (match stem, games played, games in all)


def simulate(
    rules: HogRules,
    players: Sequence[str],
    games: int,
    seed: int,
    out: Path,
    *,
    make_bot: Callable[[str, HogRules], Strategy],
    progress: Progress | None = None,
    opponent: str | None = None,
    runner: Runner = SERIAL,
) -> list[dict[str, Any]]:
    """Play the matches between the bots named in `players` (made by `make_bot`) and
    write each one's logs into `out` (<stem>.csv and <stem>-score.csv); one summary per
    match. Every pair of `players` meets, or with `opponent` each of them meets it. Match
    m's games are played GAMES_PER_TASK at a time, chunk c from the child (m, c) of `seed`
    (tasks for `runner`), so the same seed writes the same bytes wherever they ran; a bot
    that is not one here is a ValueError before any file is written."""
    names = [opponent, *players] if opponent is not None else list(players)
    entries = [(name, make_bot(name, rules)) for name in names]
    tables = [as_table(strategy, rules) for _, strategy in entries]
    ids = player_ids([name for name, _ in entries])
    if opponent is None:
        matches = list(combinations(range(len(entries)), 2))
    else:
        matches = [(0, b) for b in range(1, len(entries))]
    out.mkdir(parents=True, exist_ok=True)
    summary = []
    for number, (a, b) in enumerate(matches):
        stem = f"{_slug(ids[a])}-vs-{_slug(ids[b])}"
        match = Match((tables[a], tables[b]), (ids[a], ids[b]), rules, seed, number)
        wins, rows = write_match(match, games, out / stem, progress, runner)
        summary.append(
            {"stem": stem, "players": [ids[a], ids[b]], "games": games, "wins": wins, "rows": rows}
        )
    return summary


def player_ids(names: Sequence[str]) -> list[str]:
    """The players' ids in the logs: a name met again becomes `name#2`, `name#3`, …"""
    ids: list[str] = []
    for name in names:
        unique, n = name, 2
        while unique in ids:
            unique, n = f"{name}#{n}", n + 1
        ids.append(unique)
    return ids


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_") or "player"


@dataclass(frozen=True, eq=False)
class Match:
    """What every task of one match shares: A's and B's tables and ids, the rules, and
    the seed and number that make its chunks' seeds."""

    tables: tuple[np.ndarray, np.ndarray]
    ids: tuple[str, str]
    rules: HogRules
    seed: int
    number: int


def write_match(
    match: Match, games: int, stem: Path, progress: Progress | None = None,
    runner: Runner = SERIAL,
) -> tuple[dict[str, int], int]:  # fmt: skip
    """`games` games between A and B, who take turns to move first (A in game 1), played
    in tasks of GAMES_PER_TASK and written in game order to `<stem>.csv` and
    `<stem>-score.csv`; the wins by id and the turn rows written."""
    turn_path, score_path = partial_pair(stem.parent, stem.name)
    wins = dict.fromkeys(match.ids, 0)
    rows = 0
    if progress:
        progress(stem.name, 0, games)
    chunks = spans(games, GAMES_PER_TASK)
    tasks = [(match, index, chunk) for index, chunk in enumerate(chunks)]
    with open(turn_path, "wb") as turn_file, open(score_path, "wb") as score_file:
        for chunk, part in zip(chunks, runner.map(_play_chunk, tasks), strict=True):
            turn_file.write(part.turns)
            score_file.write(part.scores)
            rows += part.rows
            for player, count in part.wins.items():
                wins[player] += count
            if progress:
                progress(stem.name, chunk.stop, games)
    publish_pair(stem.parent, stem.name)
    return wins, rows


@dataclass(frozen=True)
class Chunk:
    """A task's games, as the bytes of their turn and score rows (formatting them is work
    that fans out: the driver only appends), and what they add up to."""

    turns: bytes
    scores: bytes
    rows: int
    wins: dict[str, int]


def _play_chunk(task: tuple[Match, int, range]) -> Chunk:
    """One task of a match: its `index`-th chunk of games, those in `span`."""
    match, index, span = task
    rng = np.random.default_rng(child(match.seed, match.number, index))
    first = np.arange(span.start, span.stop) % 2
    result = simulate_tables(match.tables, len(span), rng, match.rules, first=first, record=True)
    turns, scores = match_frames(result, match.ids, first_game=span.start + 1)
    with tempfile.TemporaryDirectory(prefix="mine-hog-") as folder:
        turn_path, score_path = Path(folder, "turns.csv"), Path(folder, "scores.csv")
        log_format.write_turn_frame(turn_path, turns)
        log_format.write_score_frame(score_path, scores)
        wins = dict(scores["winner"].value_counts().iter_rows())
        return Chunk(turn_path.read_bytes(), score_path.read_bytes(), turns.height, wins)

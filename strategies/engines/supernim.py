"""Super-Nim: the rules in one place, the handout's game class, a game loop, log writing.

Rules (`../shared/spec/supernim.md`, from the handout): two players, max and min, move in
turn on a board of heaps. A move merges heap i onto heap j of a different size (capped at
`merge_cap`), or makes a Collatz–Ulam step on one heap: odd n → 3n + 1 (never capped),
even n → two heaps of n/2 in its place, where splitting a 2 removes both 1-stick heaps and
scores `split_reward` points for the mover. The game ends on an empty board (or a board
with no legal move, which only a variant can reach); games that cycle are cut off after
`max_moves` moves. The higher score wins; equal scores draw.

Two loop-breaking variants the handout invites (off by default; a result names them):
- `ulam_limit = N`: at most N growth steps (odd n → 3n + 1) in a game. Only growth adds
  sticks, so past the limit every game drains towards its end;
- `repeat_ends = on`: a position (mover and canonical board) seen before ends the game
  (the game manager keeps the history in the state; the search does not look at it).

States are immutable (`State`, a NamedTuple: hashable, a cache key as the handout asks).
Successors keep heap order as the spec's examples do; `canonical` (the sorted board) is
what caches, searches and tables use. Under the handout's `SuperNim` class sits the same
small State API as the other engines (`legal_actions`, `apply_action`, `is_terminal`,
`returns`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, NamedTuple

import numpy as np

from mine.parsers import supernim as log_format
from mine.parsers.csvlog import partial_pair, publish_pair
from mine.parsers.supernim import Game as GameRecord
from mine.parsers.supernim import Move as MoveRecord
from mine.strategies.bots.supernim_search import heap_moves
from mine.strategies.engines.settings import RuleSettings

MAX, MIN = "max", "min"
MERGE, ULAM, SPLIT = "merge", "ulam", "split"
START_HEAPS = (3, 6)  # a random start board: 3–6 heaps …
START_STICKS = (1, 10)  # … of 1–10 sticks each


@dataclass(frozen=True)
class SuperNimRules(RuleSettings):
    # A game of more moves than this is no longer one a manager cuts off; larger caps
    # and rewards would only let the numbers in the logs grow without meaning more.
    BOUNDS: ClassVar[Mapping[str, tuple[float, float]]] = {
        "merge_cap": (2, 1000),
        "split_reward": (0, 1000),
        "max_moves": (1, 10_000),
        "ulam_limit": (0, 10_000),
    }

    merge_cap: int = 10
    split_reward: int = 2
    max_moves: int = 100
    ulam_limit: int = 0  # growth steps (odd n → 3n + 1) allowed per game; 0: no limit
    repeat_ends: bool = False  # a repeated position ends the game

    def __post_init__(self) -> None:
        if self.merge_cap < 2:
            raise ValueError(f"merge_cap must be at least 2, not {self.merge_cap}")
        if self.split_reward < 0:
            raise ValueError(f"split_reward must be at least 0, not {self.split_reward}")
        if self.max_moves < 1:
            raise ValueError(f"max_moves must be at least 1, not {self.max_moves}")
        if self.ulam_limit < 0:
            raise ValueError(f"ulam_limit must be at least 0, not {self.ulam_limit}")

    def growth_allowed(self, growths: int) -> bool:
        return self.ulam_limit == 0 or growths < self.ulam_limit


DEFAULT_RULES = SuperNimRules()


class Move(NamedTuple):
    """One move: its kind, heap positions (0-based; `j` only for a merge), the board it
    leaves and the points it scores for the mover."""

    kind: str
    i: int
    j: int | None
    after: tuple[int, ...]
    points: int


# --- the rules -------------------------------------------------------------------------


def moves(
    board: tuple[int, ...], rules: SuperNimRules = DEFAULT_RULES, growth: bool = True
) -> list[Move]:
    """Every legal move on `board`, in heap order: merges (i onto j) by i then j, then the
    Ulam steps by heap. `growth=False` leaves out odd steps (the Ulam limit is reached)."""
    return [Move(*move) for move in heap_moves(board, rules.merge_cap, rules.split_reward, growth)]


def canonical(board: tuple[int, ...]) -> tuple[int, ...]:
    """The board as a multiset: sorted, so that heap order never splits a cache entry."""
    return tuple(sorted(board))


class State(NamedTuple):
    """A position: the handout's four fields, then what the game manager counts."""

    player: str
    board: tuple[int, ...]
    score_max: int = 0
    score_min: int = 0
    moves: int = 0  # moves made so far (the cut-off counts them)
    growths: int = 0  # odd Ulam steps made so far (the Ulam-limit variant counts them)
    seen: frozenset = frozenset()  # earlier positions (the repeat variant only)

    @property
    def key(self) -> tuple[str, tuple[int, ...]]:
        return self.player, canonical(self.board)

    def margin(self, player: str) -> int:
        """`player`'s score minus the other's."""
        difference = self.score_max - self.score_min
        return difference if player == MAX else -difference


def other(player: str) -> str:
    return MIN if player == MAX else MAX


class Game:
    """The State API (as OpenSpiel's games): every rule of a game under one rules value."""

    def __init__(self, rules: SuperNimRules = DEFAULT_RULES) -> None:
        self.rules = rules

    def initial(self, board: tuple[int, ...], first: str = MAX) -> State:
        if not board or min(board) < 1:
            raise ValueError(f"a start board has heaps of at least one stick, not {board}")
        return State(first, tuple(board))

    def legal_actions(self, state: State) -> list[Move]:
        if self.is_terminal(state):
            return []
        return moves(state.board, self.rules, self.rules.growth_allowed(state.growths))

    def apply_action(self, state: State, move: Move) -> State:
        """The state after `move`, which must be legal in `state`."""
        if move not in self.legal_actions(state):
            raise ValueError(f"illegal move {move} in {state}")
        return self.after(state, move)

    def after(self, state: State, move: Move) -> State:
        """The state after a move already known to be legal (the search's fast path)."""
        score_max, score_min = state.score_max, state.score_min
        if state.player == MAX:
            score_max += move.points
        else:
            score_min += move.points
        seen = state.seen | {state.key} if self.rules.repeat_ends else state.seen
        grew = move.kind == ULAM and state.board[move.i] % 2 == 1
        return State(
            other(state.player),
            move.after,
            score_max,
            score_min,
            state.moves + 1,
            state.growths + grew,
            seen,
        )

    def is_cut_off(self, state: State) -> bool:
        """Over with sticks still left: the move limit, a repeat (variant), or no legal
        move (only the Ulam-limit variant leaves a board like (5, 5) without one)."""
        return bool(state.board) and self.is_terminal(state)

    def is_terminal(self, state: State) -> bool:
        if not state.board or state.moves >= self.rules.max_moves:
            return True
        if self.rules.repeat_ends and state.key in state.seen:
            return True
        growth = self.rules.growth_allowed(state.growths)
        return not moves(state.board, self.rules, growth)

    def winner(self, state: State) -> str:
        """max, min or draw: the higher score, however the game stopped."""
        if state.score_max == state.score_min:
            return "draw"
        return MAX if state.score_max > state.score_min else MIN

    def returns(self, state: State) -> tuple[float, float]:
        """(max, min): 1 to the winner, -1 to the loser, 0 each for a draw or a game going on."""
        if not self.is_terminal(state):
            return 0.0, 0.0
        sign = {MAX: 1.0, MIN: -1.0, "draw": 0.0}[self.winner(state)]
        return sign, -sign

    def moves_left(self, state: State) -> int:
        return self.rules.max_moves - state.moves


class SuperNim:
    """The handout's game class over the handout's states `(player, board, max, min)`.

    It knows no move count: the game manager cuts cycling games off, as the handout says.
    """

    WIN = 100  # utility of a win for max (the handout's "+100 or -100")

    def __init__(self, rules: SuperNimRules = DEFAULT_RULES) -> None:
        self.rules = rules

    def terminal(self, state: tuple) -> bool:
        return not state[1]

    def utility(self, state: tuple) -> int:
        difference = state[2] - state[3]
        return self.WIN if difference > 0 else -self.WIN if difference < 0 else 0

    def heuristic(self, state: tuple) -> int:
        """The score difference for max: what a position is worth if nothing changes."""
        return state[2] - state[3]

    def player(self, state: tuple) -> str:
        return state[0]

    def successors(self, state: tuple) -> list[tuple]:
        player, board, score_max, score_min = state
        found = []
        for move in moves(board, self.rules):
            if player == MAX:
                found.append((MIN, move.after, score_max + move.points, score_min))
            else:
                found.append((MAX, move.after, score_max, score_min + move.points))
        return found


# --- players and the game loop ---------------------------------------------------------

Player = Callable[[Game, State], Move]
"""A player picks one of `game.legal_actions(state)` (a bot carries its own rng)."""


def random_board(rng: np.random.Generator) -> tuple[int, ...]:
    heaps = int(rng.integers(START_HEAPS[0], START_HEAPS[1] + 1))
    return tuple(int(n) for n in rng.integers(START_STICKS[0], START_STICKS[1] + 1, size=heaps))


def parse_board(text: str) -> tuple[int, ...]:
    """`2,4,2,3` (or `2;4;2;3`) as a board; ValueError for anything else."""
    try:
        board = tuple(int(part) for part in text.replace(";", ",").split(","))
    except ValueError:
        raise ValueError(f"a board is heap sizes like 2,4,2,3, not {text!r}") from None
    if not board or min(board) < 1:
        raise ValueError(f"a board's heaps hold at least one stick: {text!r}")
    return board


class Played(NamedTuple):
    """One game: the moves in order (state before each), and the final state."""

    start: State
    steps: list[tuple[State, Move]]
    final: State


def play(game: Game, start: State, players: dict[str, Player]) -> Played:
    state, steps = start, []
    while not game.is_terminal(state):
        move = players[state.player](game, state)
        steps.append((state, move))
        state = game.apply_action(state, move)
    return Played(start, steps, state)


def records(number: int, played: Played, game: Game) -> tuple[list[MoveRecord], GameRecord]:
    """The game's rows in the log format (heaps numbered from 1, as the handout counts)."""
    rows = []
    for index, (state, move) in enumerate(played.steps, 1):
        after = game.after(state, move)
        rows.append(
            MoveRecord(
                number,
                index,
                state.player,
                state.board,
                move.kind,
                move.i + 1,
                None if move.j is None else move.j + 1,
                move.after,
                after.score_max,
                after.score_min,
            )
        )
    final = played.final
    score = GameRecord(
        number,
        played.start.player,
        played.start.board,
        final.score_max,
        final.score_min,
        game.winner(final),
        final.moves,
        "cutoff" if game.is_cut_off(final) else "",
    )
    return rows, score


def starts(count: int, boards: tuple[int, ...] | None, rng: np.random.Generator) -> Iterator[State]:
    """`count` starts, first movers alternating (max, min, …): the fixed board, or a fresh
    random board for each pair of games so each board is played from both sides."""
    board = boards
    for number in range(count):
        if boards is None and number % 2 == 0:
            board = random_board(rng)
        yield State(MAX if number % 2 == 0 else MIN, board)


def write_match(
    out: str | Path,
    stem: str,
    game: Game,
    played: list[Played],
) -> tuple[Path, Path]:
    """Write the games' turn and score files; returns their paths."""
    turns_path, scores_path = partial_pair(out, stem)
    Path(out).mkdir(parents=True, exist_ok=True)
    rows, scores = [], []
    for number, one in enumerate(played, 1):
        moves_of, score = records(number, one, game)
        rows += moves_of
        scores.append(score)
    log_format.write_turns(turns_path, rows)
    log_format.write_scores(scores_path, scores)
    return publish_pair(out, stem)


PlayerFactory = Callable[[np.random.Generator], Player]
Progress = Callable[[str, int, int], None]


def match_stem(max_name: str, min_name: str, seed: int) -> str:
    """`<max bot>-vs-<min bot>-s<seed>`: the pairing is read back from the file name."""
    return f"{slug(max_name)}-vs-{slug(min_name)}-s{seed}"


def slug(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


def run_match(
    players: tuple[tuple[str, PlayerFactory], tuple[str, PlayerFactory]],
    games: int,
    board: tuple[int, ...] | None,
    seed: int,
    rules: SuperNimRules,
    out: str | Path,
    progress: Progress | None = None,
) -> dict:
    """`games` games, the first player as max and the second as min, first movers
    alternating, from `board` (None: a random board per pair of games); written as one
    log pair. The generators are all derived from `seed`: same seed, same bytes."""
    (max_name, max_factory), (min_name, min_factory) = players
    stem = match_stem(max_name, min_name, seed)
    boards_rng, max_rng, min_rng = (np.random.default_rng([seed, k]) for k in range(3))
    game = Game(rules)
    seats = {MAX: max_factory(max_rng), MIN: min_factory(min_rng)}
    played = []
    for number, start in enumerate(starts(games, board, boards_rng), 1):
        played.append(play(game, start, seats))
        if progress:
            progress(stem, number, games)
    write_match(out, stem, game, played)
    winners = [game.winner(one.final) for one in played]
    return {
        "stem": stem,
        "max": max_name,
        "min": min_name,
        "games": games,
        "wins_max": winners.count(MAX),
        "wins_min": winners.count(MIN),
        "draws": winners.count("draw"),
        "cutoffs": sum(game.is_cut_off(one.final) for one in played),
        "moves": sum(len(one.steps) for one in played),
    }

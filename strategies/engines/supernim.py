"""Super-Nim: the rules in one place, the game loop, log writing, the simulation.

Rules (`../shared/spec/supernim.md`, from the handout): two players, max and min, move in
turn on a board of heaps. A move merges heap i onto heap j of a different size (capped at
`merge_cap`), or makes a Collatz–Ulam step on one heap: odd n → 3n + 1 (never capped),
even n → two heaps of n/2 in its place, where splitting a 2 removes both 1-stick heaps and
scores `split_reward` points for the mover. The game ends on an empty board (or a board
with no legal move, which only a variant can reach); games that cycle are cut off after
`max_moves` moves. The higher score wins; equal scores draw.

Rule variants the handout invites (off by default; a result names them), two that break
loops:
- `ulam_limit = N`: at most N growth steps (odd n → 3n + 1) in a game. Only growth adds
  sticks, so past the limit every game drains towards its end;
- `repeat_ends = on`: a position (mover and canonical board) seen before ends the game
  (the state keeps the history; the search does not look at it);
and one where skill pays (the default game's value is a matter of 2-heap parity):
- `cap_scores = on`: the sticks a merge loses to the cap (a + b - merge_cap) score for
  the mover.

A `State` is a position and the rules it is played under, with the State API of
`state.py`: seat 0 is max, seat 1 is min; `apply_action` plays a move in place and
`clone` copies; returns are (max, min). Successors keep heap order as the spec's examples
do; `canonical` (the sorted board) is what caches, searches and tables use. The move
generator, the search and the handout's own game class over immutable tuples
`(player, board, max, min)` are the player's (`strategies/players/supernim.py`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, NamedTuple

import numpy as np

from mine.inputs import quoted
from mine.parsers import csvlog
from mine.parsers.supernim import Score, Turn
from mine.strategies.engines import referee
from mine.strategies.engines.settings import RuleSettings
from mine.strategies.engines.state import TERMINAL, IllegalAction
from mine.strategies.players.supernim import heap_moves, merge_move, step_move, successor

GAME = "supernim"
MAX, MIN = "max", "min"
SEATS = (MAX, MIN)  # seat order: returns are (max, min)
MERGE, ULAM, SPLIT = "merge", "ulam", "split"
START_HEAPS = (3, 6)  # a random start board: 3–6 heaps …
START_STICKS = (1, 10)  # … of 1–10 sticks each
UTILITY = "(max, min): 1 to the higher final score, -1 to the lower, 0 each for a draw"
ZERO_SUM = True


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
    cap_scores: bool = False  # the sticks a merge loses to the cap score for the mover

    def __post_init__(self) -> None:
        self.at_least(merge_cap=2, split_reward=0, max_moves=1, ulam_limit=0)

    def growth_allowed(self, growths: int) -> bool:
        return self.ulam_limit == 0 or growths < self.ulam_limit


RULES = SuperNimRules
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
    found = heap_moves(board, rules.merge_cap, rules.split_reward, growth, rules.cap_scores)
    return [Move(*move) for move in found]


def move(
    board: tuple[int, ...], kind: str, i: int, j: int | None, rules: SuperNimRules = DEFAULT_RULES
) -> Move | None:
    """The move `kind` of heap i (onto heap j, for a merge; heaps from 0) on `board`, or
    None where it is not a legal move (growth allowed: what a log's move must be)."""
    if not 0 <= i < len(board):
        return None
    if kind == MERGE:
        if j is None or not 0 <= j < len(board) or board[j] == board[i]:
            return None
        return Move(*merge_move(board, i, j, rules.merge_cap, rules.cap_scores))
    step = step_move(board, i, rules.split_reward)
    return Move(*step) if step and step[0] == kind and j is None else None


def canonical(board: tuple[int, ...]) -> tuple[int, ...]:
    """The board as a multiset: sorted, so that heap order never splits a cache entry."""
    return tuple(sorted(board))


def other(player: str) -> str:
    return MIN if player == MAX else MAX


@dataclass(slots=True)
class State:
    """A position: the handout's four fields, what the game manager counts, the rules."""

    player: str
    board: tuple[int, ...]
    score_max: int = 0
    score_min: int = 0
    moves: int = 0  # moves made so far (the cut-off counts them)
    growths: int = 0  # odd Ulam steps made so far (the Ulam-limit variant counts them)
    seen: frozenset = frozenset()  # earlier positions (the repeat variant only)
    rules: SuperNimRules = DEFAULT_RULES
    players: tuple[str, str] = SEATS  # who plays max and min (ids)
    played: list[tuple[str, tuple[int, ...], Move, int, int]] = field(
        default_factory=list, repr=False, compare=False
    )
    """Each move made: the mover, the board before it, the move, the scores after it."""
    forfeited: int | None = None  # the seat that lost the game by a fault (the referee's)
    # The legal moves, once a player has asked: the referee checks the move against them.
    _legal: list[Move] | None = field(default=None, init=False, repr=False, compare=False)

    # the State API

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else SEATS.index(self.player)

    def legal_actions(self) -> list[Move]:
        self._legal = self._moves()
        return list(self._legal)

    def _moves(self) -> list[Move]:
        if self._legal is not None:
            return self._legal
        if self.is_terminal():
            return []
        return moves(self.board, self.rules, self.rules.growth_allowed(self.growths))

    def apply_action(self, action: Any) -> None:
        """Play `action`, one of `legal_actions()`; IllegalAction (and no change) if not."""
        if action not in self._moves():
            raise IllegalAction(
                f"{quoted(action)} is not a legal move for {self.player} on {self.board}"
            )
        self.play(action)

    def is_terminal(self) -> bool:
        if self.forfeited is not None or not self.board or self.moves >= self.rules.max_moves:
            return True
        if self.rules.repeat_ends and self.key in self.seen:
            return True
        # With growth allowed every heap has a step (odd: 3n + 1, even: halves or a cash).
        growth = self.rules.growth_allowed(self.growths)
        return not growth and not moves(self.board, self.rules, growth)

    def returns(self) -> tuple[float, float]:
        """(max, min): 1 to the winner, -1 to the loser, 0 each for a draw or a game going on."""
        if not self.is_terminal():
            return 0.0, 0.0
        sign = {MAX: 1.0, MIN: -1.0, "draw": 0.0}[self.winner()]
        return sign, -sign

    def num_players(self) -> int:
        return len(SEATS)

    def clone(self) -> State:
        return replace(self, played=list(self.played))

    def forfeit(self, seat: int, reason: str) -> None:
        """The game ends here, lost by `seat` (a fault the referee charged)."""
        self.forfeited = seat

    # what the game manager and the players read

    def play(self, move: Move) -> None:
        """Play a move already known to be legal (the harness's fast path)."""
        if self.rules.repeat_ends:
            self.seen = self.seen | {self.key}
        before = self.board
        if self.player == MAX:
            self.score_max += move.points
        else:
            self.score_min += move.points
        self.growths += move.kind == ULAM and self.board[move.i] % 2 == 1
        self.moves += 1
        self.played.append((self.player, before, move, self.score_max, self.score_min))
        self.player = other(self.player)
        self.board = move.after
        self._legal = None

    @property
    def key(self) -> tuple[str, tuple[int, ...]]:
        return self.player, canonical(self.board)

    def handout(self) -> tuple[str, tuple[int, ...], int, int]:
        """The state as the handout writes it: (player, board, score max, score min)."""
        return self.player, self.board, self.score_max, self.score_min

    def margin(self, player: str) -> int:
        """`player`'s score minus the other's."""
        difference = self.score_max - self.score_min
        return difference if player == MAX else -difference

    def winner(self) -> str:
        """max, min or draw: the higher score, however the game stopped (a fault's side
        loses)."""
        if self.forfeited is not None:
            return SEATS[1 - self.forfeited]
        if self.score_max == self.score_min:
            return "draw"
        return MAX if self.score_max > self.score_min else MIN

    def is_cut_off(self) -> bool:
        """Over with sticks still left: the move limit, a repeat (variant), or no legal
        move (only the Ulam-limit variant leaves a board like (5, 5) without one)."""
        return bool(self.board) and self.forfeited is None and self.is_terminal()

    def moves_left(self) -> int:
        return self.rules.max_moves - self.moves


def random_board(rng: np.random.Generator) -> tuple[int, ...]:
    heaps = int(rng.integers(START_HEAPS[0], START_HEAPS[1] + 1))
    return tuple(int(n) for n in rng.integers(START_STICKS[0], START_STICKS[1] + 1, size=heaps))


def new_game(
    rules: SuperNimRules,
    rng: np.random.Generator,
    players: Sequence[str] = SEATS,
    swapped: bool = False,
    *,
    board: Sequence[int] | None = None,
) -> State:
    """A game from its start: `players` play max and min, max moving first (min, when
    `swapped`: the deal from the other side), from `board` (a random one, drawn from `rng`,
    if None)."""
    board = random_board(rng) if board is None else tuple(board)
    if not board or min(board) < 1:
        raise ValueError(f"a start board has heaps of at least one stick, not {board}")
    past = beyond_the_logs(rules, board)
    if past:
        raise ValueError(past)
    return State(MIN if swapped else MAX, board, rules=rules, players=tuple(players))


def beyond_the_logs(rules: SuperNimRules, board: Sequence[int]) -> str | None:
    """Why a game from `board` may write a number past the log format's largest (ingest
    would refuse its logs), or None. Known before play: a heap grows only by the rules'
    steps (odd n → 3n + 1, even n → two of n / 2), one a move, and a merge gives at most
    `merge_cap`; so every heap is on the steps of a start heap or of one of at most
    `merge_cap` sticks. A score grows a move by its reward or, with `cap_scores`, by the
    sticks a merge loses (less than two heaps)."""
    top = csvlog.INTEGER_MAX
    largest = _merged_largest(rules)
    walked: dict[int, int] = {}  # a heap met before with as many moves left goes no higher
    for heap in board:
        n, left = heap, rules.max_moves
        while n != 1 and walked.get(n, -1) < left:  # 1 → 4 → 2 → 1 + 1: nothing larger
            if n > top:
                grown = "" if n == heap else f" can grow to {n:,} (odd n → 3n + 1), which"
                return (f"heap {heap} of the start board{grown} is past {top:,}, the "
                        "largest number the log format holds")  # fmt: skip
            walked[n], largest = left, max(largest, n)
            if left == 0:
                break
            n, left = _stepped(n), left - 1
    reward = max(rules.split_reward, 2 * largest if rules.cap_scores else 0)
    if rules.max_moves * reward > top:
        return (
            f"a score may grow past {top:,}, the largest number the log format holds "
            f"({rules.max_moves:,} moves of up to {reward:,} points): start from smaller "
            "heaps, or with fewer max_moves"
        )
    return None


@functools.cache
def _merged_largest(rules: SuperNimRules) -> int:
    """The largest heap one of at most `merge_cap` sticks grows to (250,504 at most: the
    steps of 703), where it may score (`cap_scores`); computed once a game's rules."""
    if not rules.cap_scores:
        return 4  # 1 → 4
    largest = 0
    for n in range(1, rules.merge_cap + 1):
        for _ in range(rules.max_moves):
            largest = max(largest, n)
            if n == 1:
                break
            n = _stepped(n)
    return largest


def _stepped(n: int) -> int:
    """The largest heap a Ulam step leaves of a heap of n sticks (1 where a 2 goes)."""
    return max(step_move((n,), 0, 0)[3], default=1)


def parse_board(text: str) -> tuple[int, ...]:
    """`2,4,2,3` (or `2;4;2;3`) as a board; ValueError for anything else."""
    try:
        board = tuple(int(part) for part in text.replace(";", ",").split(","))
    except ValueError:
        raise ValueError(f"a board is heap sizes like 2,4,2,3, not {text!r}") from None
    if not board or min(board) < 1:
        raise ValueError(f"a board's heaps hold at least one stick: {text!r}")
    return board


# --- the engine's part in simulations ---------------------------------------------------

NUM_PLAYERS = range(2, 3)  # a game seats two
ONE_GAME_A_FILE = False  # a match's games in one log pair
GAMES_PER_TASK = 10  # a task of a match: a few seconds of play against the searchers
FORFEIT = referee.game_lost  # a fault loses the game
Bot = Callable[[State], Move]
"""A bot picks one of `state.legal_actions()` (it carries its own rng)."""


def log_rows(state: State, game: int, me: str | None = None) -> tuple[list[Turn], list[Score]]:
    """The game's rows in the log format (heaps numbered from 1, as the handout counts)."""
    rows = [
        Turn(game, number, player, before, move.kind, move.i + 1,
             None if move.j is None else move.j + 1, move.after, score_max, score_min)
        for number, (player, before, move, score_max, score_min) in enumerate(state.played, 1)
    ]  # fmt: skip
    first, start = state.played[0][:2] if state.played else (state.player, state.board)
    ended = "cutoff" if state.is_cut_off() else ""
    score = Score(game, first, start, state.score_max, state.score_min, state.winner(),
                  state.moves, ended)  # fmt: skip
    return rows, [score]


def log_bytes(rules: SuperNimRules, players: int) -> int:
    """A game's rows at most: a move row of two boards of 10-stick heaps and the scores,
    generously, for each move the cut-off allows, and its score row."""
    return 200 * (rules.max_moves + 1)


def points(state: State) -> tuple[int, int]:
    """Each seat's score (max, min): what a margin counts."""
    return state.score_max, state.score_min


NOT_A_SUCCESSOR = "an answer that is not a successor of the state"


def course_player(
    module: Any, depth: int | None = None, four_fields: bool = False
) -> referee.Course:
    """A player with the handout's interface, `ai_move(state)` answering the state it moves
    to, as the referee asks it: with the handout's four fields only (`four_fields`), or
    also told the moves left (and the search depth, where given)."""

    def ask(state: State, seat: int, memory: str | None) -> tuple:
        handout = state.handout()
        if four_fields:
            arguments: tuple = (handout,)
            function = module.ai_move
        else:
            left = state.moves_left()
            arguments = ()
            function = lambda: module.ai_move(handout, moves_left=left, depth=depth)  # noqa: E731

        def read(answer: Any) -> tuple[Move, Any]:
            try:  # compared as plain values: an __eq__ of its own would say what it likes
                answer = referee.plain(answer)
            except referee.Fault:
                raise referee.Fault(NOT_A_SUCCESSOR) from None
            for move in state.legal_actions():
                if answer == successor(handout, move.after, move.points):
                    return move, referee.KEEP
            raise referee.Fault(NOT_A_SUCCESSOR)

        return function, arguments, read

    return referee.Course(ask)

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

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import numpy as np

from mine.parsers import supernim as log_format
from mine.parsers.csvlog import partial_pair, publish_pair
from mine.parsers.supernim import Score, Turn
from mine.strategies.engines.gathered import gathered
from mine.strategies.engines.settings import RuleSettings
from mine.strategies.engines.state import TERMINAL, IllegalAction
from mine.strategies.players.supernim import heap_moves
from mine.strategies.runners import SERIAL, Runner, child, spans

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
            raise IllegalAction(f"{action!r} is not a legal move for {self.player} on {self.board}")
        self.play(action)

    def is_terminal(self) -> bool:
        if not self.board or self.moves >= self.rules.max_moves:
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
        return State(self.player, self.board, self.score_max, self.score_min, self.moves,
                     self.growths, self.seen, self.rules)  # fmt: skip

    # what the game manager and the players read

    def play(self, move: Move) -> None:
        """Play a move already known to be legal (the harness's fast path)."""
        if self.rules.repeat_ends:
            self.seen = self.seen | {self.key}
        if self.player == MAX:
            self.score_max += move.points
        else:
            self.score_min += move.points
        self.growths += move.kind == ULAM and self.board[move.i] % 2 == 1
        self.moves += 1
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
        """max, min or draw: the higher score, however the game stopped."""
        if self.score_max == self.score_min:
            return "draw"
        return MAX if self.score_max > self.score_min else MIN

    def is_cut_off(self) -> bool:
        """Over with sticks still left: the move limit, a repeat (variant), or no legal
        move (only the Ulam-limit variant leaves a board like (5, 5) without one)."""
        return bool(self.board) and self.is_terminal()

    def moves_left(self) -> int:
        return self.rules.max_moves - self.moves


def random_board(rng: np.random.Generator) -> tuple[int, ...]:
    heaps = int(rng.integers(START_HEAPS[0], START_HEAPS[1] + 1))
    return tuple(int(n) for n in rng.integers(START_STICKS[0], START_STICKS[1] + 1, size=heaps))


def new_game(
    rules: SuperNimRules,
    rng: np.random.Generator,
    *,
    board: Sequence[int] | None = None,
    first: str = MAX,
) -> State:
    """A game from its start: `board` (a random one, drawn from `rng`, if None), `first`
    to move."""
    board = random_board(rng) if board is None else tuple(board)
    if not board or min(board) < 1:
        raise ValueError(f"a start board has heaps of at least one stick, not {board}")
    return State(first, board, rules=rules)


def parse_board(text: str) -> tuple[int, ...]:
    """`2,4,2,3` (or `2;4;2;3`) as a board; ValueError for anything else."""
    try:
        board = tuple(int(part) for part in text.replace(";", ",").split(","))
    except ValueError:
        raise ValueError(f"a board is heap sizes like 2,4,2,3, not {text!r}") from None
    if not board or min(board) < 1:
        raise ValueError(f"a board's heaps hold at least one stick: {text!r}")
    return board


# --- the game loop and its logs ---------------------------------------------------------

Bot = Callable[[State], Move]
"""A player picks one of `state.legal_actions()` (a bot carries its own rng)."""
MakeBot = Callable[[str, SuperNimRules, np.random.Generator | None], Bot]
Progress = Callable[[str, int, int], None]


class Played(NamedTuple):
    """One game: each state a move was made from (a copy) with the move, and the end."""

    steps: list[tuple[State, Move]]
    final: State


def play_game(start: State, players: Mapping[str, Bot]) -> Played:
    """A game from `start` between the players of max and min (by side)."""
    state, steps = start.clone(), []
    while not state.is_terminal():
        move = players[state.player](state)
        steps.append((state.clone(), move))
        state.apply_action(move)
    return Played(steps, state)


def records(number: int, start: State, played: Played) -> tuple[list[Turn], Score]:
    """The game's rows in the log format (heaps numbered from 1, as the handout counts)."""
    afters = [before for before, _ in played.steps[1:]] + [played.final]
    rows = [
        Turn(
            number,
            index,
            before.player,
            before.board,
            move.kind,
            move.i + 1,
            None if move.j is None else move.j + 1,
            move.after,
            after.score_max,
            after.score_min,
        )
        for index, ((before, move), after) in enumerate(zip(played.steps, afters, strict=True), 1)
    ]
    final = played.final
    score = Score(
        number,
        start.player,
        start.board,
        final.score_max,
        final.score_min,
        final.winner(),
        final.moves,
        "cutoff" if final.is_cut_off() else "",
    )
    return rows, score


def start_of(number: int, board: tuple[int, ...] | None, rules: SuperNimRules, seed: int) -> State:
    """Game `number`'s start (from 0): first movers alternate (max, min, …), from the fixed
    board, or a random board for each pair of games (from the pair's first game's seed)
    so that each board is played from both sides."""
    if board is None:
        board = random_board(np.random.default_rng(child(seed, number - number % 2, 2)))
    return State(MAX if number % 2 == 0 else MIN, board, rules=rules)


def write_match(out: str | Path, stem: str, turns: list[Turn], scores: list[Score]) -> None:
    """Write a match's rows as one pair of turn and score files."""
    Path(out).mkdir(parents=True, exist_ok=True)
    turns_path, scores_path = partial_pair(out, stem)
    log_format.write_turns(turns_path, turns)
    log_format.write_scores(scores_path, scores)
    publish_pair(out, stem)


def match_stem(max_name: str, min_name: str, seed: int) -> str:
    """`<max bot>-vs-<min bot>-s<seed>`: the pairing is read back from the file name."""
    return f"{slug(max_name)}-vs-{slug(min_name)}-s{seed}"


def slug(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


GAMES_PER_TASK = 10  # a task of a match: a few seconds of play against the searchers


def run_match(
    specs: tuple[str, str],
    games: int,
    board: tuple[int, ...] | None,
    seed: int,
    rules: SuperNimRules,
    out: str | Path,
    make_bot: MakeBot,
    progress: Progress | None = None,
    runner: Runner = SERIAL,
) -> dict[str, Any]:
    """`games` games, the first bot as max and the second as min, first movers
    alternating, from `board` (None: a random board per pair of games); written as one
    log pair. Game g's start and bots are drawn from the g-th child of `seed`, so the
    same seed writes the same bytes, whichever of `runner`'s tasks (GAMES_PER_TASK games
    each; `make_bot` must pickle) played it."""
    max_name, min_name = specs
    stem = match_stem(max_name, min_name, seed)
    tasks = [(specs, board, seed, rules, make_bot, span) for span in spans(games, GAMES_PER_TASK)]
    turns, scores = gathered(runner, _play_games, tasks, progress, stem, games)
    write_match(out, stem, turns, scores)
    winners = [score.winner for score in scores]
    return {
        "stem": stem,
        "max": max_name,
        "min": min_name,
        "games": games,
        "wins_max": winners.count(MAX),
        "wins_min": winners.count(MIN),
        "draws": winners.count("draw"),
        "cutoffs": sum(score.ended == "cutoff" for score in scores),
        "moves": len(turns),
    }


def _play_games(task: tuple) -> list[tuple[list[Turn], Score]]:
    """One task of a match: its games' turn rows and score row."""
    (max_name, min_name), board, seed, rules, make_bot, span = task
    played = []
    for number in span:
        start = start_of(number, board, rules, seed)
        max_rng, min_rng = (np.random.default_rng(child(seed, number, k)) for k in range(2))
        seats = {MAX: make_bot(max_name, rules, max_rng), MIN: make_bot(min_name, rules, min_rng)}
        played.append(records(number + 1, start, play_game(start, seats)))
    return played


def simulate(
    rules: SuperNimRules,
    players: Sequence[str],
    games: int,
    seed: int,
    out: str | Path,
    *,
    progress: Progress | None = None,
    make_bot: MakeBot,
    start: tuple[int, ...] | None = None,
    runner: Runner = SERIAL,
) -> dict[str, Any]:
    """Every pair of the bots `players` names plays one match of `games` games (the first
    named as max; match k takes seed `seed + k`), from `start` (None: random boards), each
    written into `out` as one log pair. `make_bot(spec, rules, rng)` is the bots' maker;
    every spec is checked before a game is played. The matches' summary."""
    for spec in players:
        make_bot(spec, rules, None)
    pairs = [(a, b) for k, a in enumerate(players) for b in players[k + 1 :]]
    matches = [
        run_match(pair, games, start, seed + number, rules, out, make_bot, progress, runner)
        for number, pair in enumerate(pairs)
    ]
    return {"rules": dataclasses.asdict(rules), "seed": seed, "out": str(out), "matches": matches}

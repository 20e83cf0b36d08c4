"""Super-Nim solved: the exact value of every position, with and without the cut-off.

With c the number of 2-heaps and R the split reward, the position is worth R * [c odd] to
the mover when no cut-off comes (`value`): only a cash scores (R, and c - 1); merging a 2
away makes c - 1 and scores nothing; splitting a 4 makes c + 2; every other move keeps c
(and from c = 0 every move keeps c even). So this value satisfies value(b) = max over moves
(points - value(after)) on every board: cash when c is odd and never merge a 2 away.

With k moves left before the cut-off (`cut_value`) the mover gets that value, or R more
when it makes the last move (k odd), or R less when the other does (k even): an exact
endgame search asks one yes-or-no question per position and needs milliseconds for k up
to about 10 (the player's `Searcher.cut_value`; its proof is there). `value_lost` is what
a move gives up against the value: 0 for every move of a player that keeps it.

None of this holds when merges score (`cap_scores`): there `ExactSolver` searches to the
cut-off instead (short horizons only; see its limits), and `closed_form` says which.
"""

from __future__ import annotations

from mine.strategies.engines.supernim import DEFAULT_RULES, SuperNimRules, canonical
from mine.strategies.players.supernim import INFINITY, OutOfTime, Searcher


def value(board: tuple[int, ...], reward: int = DEFAULT_RULES.split_reward) -> int:
    """The mover's exact future margin with no cut-off: R if the board holds an odd number
    of 2-heaps, else 0."""
    return value_of_twos(list(board).count(2), reward)


def value_of_twos(twos, reward: int = DEFAULT_RULES.split_reward):
    """The same from the number of 2-heaps (an int, or a polars column of them)."""
    return reward * (twos % 2)


def value_lost(twos_before, twos_after, cashed):
    """The value a move gives up, in units of the split reward (0, 1 or 2): the value before
    minus the move's points and the value it leaves the other side. Plain arithmetic, so
    that ints and polars columns (2-heap counts; `cashed` 0/1) both go through."""
    return twos_before % 2 - cashed + twos_after % 2


ENDGAME = 10  # moves left from which `choose` searches to the cut-off
NODE_LIMIT = 2_000_000  # nodes a question to the variant's search may visit (~ 20 s)
HORIZON = 30  # moves left beyond which the variant's search is not tried (it would not end)
TABLE_LIMIT = 2_000_000  # transposition entries kept before the table starts over


class Unsolved(ValueError):
    """A position whose exact value needs more nodes than the solver may visit."""


class ExactSolver:
    """Exact future margins of the mover, one table shared by every question asked.

    The default game (and every setting that keeps its closed form: `closed_form`) is
    solved from `value` and the cut-off search. The capped-merge variant (`cap_scores`)
    has no closed form: its value is what an alpha-beta search to the cut-off (leaves
    worth 0 there) finds, within `node_limit` nodes a question, else `Unsolved`. Its
    limits, measured on random start boards (3-6 heaps of 1-10): with k moves left a
    board takes about 300 nodes at k = 6, 1,400 at 10, 15,000 at 20 and 30,000 at 24,
    doubling every four moves or so: a whole game of 100 moves is out of reach, a game
    cut off at 20 or 24 moves is solved in a fraction of a second; beyond `HORIZON` moves
    left it is not tried. Growth steps are unlimited and repeats end nothing here
    (`ulam_limit`, `repeat_ends` are not solved).
    """

    def __init__(self, rules: SuperNimRules = DEFAULT_RULES, node_limit: int = NODE_LIMIT) -> None:
        reward = rules.split_reward
        self.closed_form = closed_form(rules)
        self.search = Searcher(rules.merge_cap, reward, lambda board, left: 0,
                               lambda board: value(board, reward), rules.cap_scores)  # fmt: skip
        self.node_limit = node_limit
        self.table: dict = {}

    def value(self, board: tuple[int, ...], moves_left: int) -> int:
        """The mover's best future margin on `board` with `moves_left` moves to the cut-off
        (`Unsolved` if the variant's search needs more than `node_limit` nodes)."""
        board = canonical(board)
        if self.closed_form:
            return int(self.search.cut_value(board, moves_left, self.table))
        if moves_left > HORIZON:
            raise Unsolved(f"{board} with {moves_left} moves left is beyond the search's "
                           f"{HORIZON} moves")  # fmt: skip
        if len(self.table) > TABLE_LIMIT:
            self.table.clear()
        search = self.search
        search.nodes, search.node_limit = 0, self.node_limit
        try:
            found = search._value(board, moves_left, moves_left, -1, -INFINITY, INFINITY,
                                  self.table)  # fmt: skip
        except OutOfTime:
            raise Unsolved(f"{board} with {moves_left} moves left needs more than "
                           f"{self.node_limit:,} nodes") from None  # fmt: skip
        return int(found)

    def choose(self, board: tuple[int, ...], moves_left: int) -> tuple[int, tuple[int, ...]]:
        """(points, sorted board after) of a move that keeps the exact value: in the
        default game with more than `ENDGAME` moves left a move that keeps `value`, the
        cash first; else the first move (best points first) that keeps the searched value."""
        board = canonical(board)
        kids = self.search.children(board, True)
        if self.closed_form and moves_left > ENDGAME:
            reward = self.search.reward
            for points, after, _ in kids:
                if points - value(after, reward) == value(board, reward):
                    return points, after
        if self.closed_form:
            _, points, after = self.search.choose_exact(board, moves_left)
            return points, after
        best = self.value(board, moves_left)
        for points, after, _ in kids:
            if points - (self.value(after, moves_left - 1) if after else 0) == best:
                return points, after
        raise AssertionError(f"no move of {board} keeps its value {best}")


def closed_form(rules: SuperNimRules) -> bool:
    """Whether `value` (R for an odd number of 2-heaps) is the game's value: not when
    merges score (`cap_scores`), where the exact value differs from it on most boards."""
    return not rules.cap_scores

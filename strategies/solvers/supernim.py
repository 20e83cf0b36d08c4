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
"""

from __future__ import annotations

from mine.strategies.engines.supernim import DEFAULT_RULES, SuperNimRules, canonical
from mine.strategies.players.supernim import Searcher, canonical_children


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


def reachable(
    board: tuple[int, ...], rules: SuperNimRules = DEFAULT_RULES, limit: int = 5000
) -> set[tuple[int, ...]] | None:
    """Every canonical board reachable from `board`, or None if there are more than `limit`
    (growth steps unlimited, as in the default rules)."""
    start = canonical(board)
    seen, frontier = {start}, [start]
    while frontier:
        current = frontier.pop()
        for _, after, _ in canonical_children(current, rules.merge_cap, rules.split_reward, True):
            if after not in seen:
                seen.add(after)
                if len(seen) > limit:
                    return None
                frontier.append(after)
    return seen


class ExactSolver:
    """Exact future margins of the mover, one table shared by every question asked."""

    def __init__(self, rules: SuperNimRules = DEFAULT_RULES) -> None:
        reward = rules.split_reward
        self.search = Searcher(rules.merge_cap, reward, lambda board, left: 0,
                               lambda board: value(board, reward))  # fmt: skip
        self.table: dict = {}

    def value(self, board: tuple[int, ...], moves_left: int) -> int:
        """The mover's best future margin on `board` with `moves_left` moves to the cut-off."""
        return int(self.search.cut_value(canonical(board), moves_left, self.table))

    def choose(self, board: tuple[int, ...], moves_left: int) -> tuple[int, tuple[int, ...]]:
        """(points, sorted board after) of a move that keeps the exact value: with more than
        `ENDGAME` moves left a move that keeps `value`, the cash first."""
        board = canonical(board)
        if moves_left > ENDGAME:
            reward = self.search.reward
            for points, after, _ in self.search.children(board, True):
                if points - value(after, reward) == value(board, reward):
                    return points, after
        _, points, after = self.search.choose_exact(board, moves_left)
        return points, after


ENDGAME = 10  # moves left from which `choose` searches to the cut-off

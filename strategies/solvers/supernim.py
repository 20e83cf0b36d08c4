"""Super-Nim solved exactly where the reachable state space is small.

The worth of a position to the mover is the margin it gains from here on under best play
by both sides before the board empties or the cut-off comes: with a search as deep as the
moves left, the players' alpha-beta (`strategies/players/supernim.py`) is exact (its
leaves are the cut-off, worth 0), and its table keeps the work to reachable boards × moves
left. `reachable` says first whether a start board is small enough to try.
"""

from __future__ import annotations

from mine.strategies.engines.supernim import DEFAULT_RULES, SuperNimRules, canonical
from mine.strategies.players.supernim import INFINITY, Searcher, canonical_children


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
        self.search = Searcher(rules.merge_cap, rules.split_reward, lambda board, left: 0)
        self.table: dict = {}

    def value(self, board: tuple[int, ...], moves_left: int) -> int:
        """The mover's best future margin on `board` with `moves_left` moves to the cut-off."""
        return int(
            self.search._value(
                canonical(board), moves_left, moves_left, -1, -INFINITY, INFINITY, self.table
            )
        )

"""Super-Nim's move generator and search: depth-limited alpha-beta (negamax) over
canonical boards.

Standard library only: `mine generate supernim` embeds this file's code in every player
it writes, so the engine, the bots and the generated players move and search with the
very same functions.

Points are additive, so a position's worth to the mover is the margin it will still gain
from here: negamax over that future margin needs neither the scores nor whose turn it is,
only the sorted board, the moves left before the cut-off and the growth steps left. That
makes canonical boards the whole key: successors that differ only in heap order merge
into one, and the transposition table sees every permutation as one position. A leaf's
worth is `evaluate(board, moves_left)`: 0 for the plain score-difference heuristic (the
score difference is already counted along the line), a fitted estimate otherwise.
"""

import time
from bisect import insort

INFINITY = float("inf")
EXACT, LOWER, UPPER = 0, 1, 2
CHECK_EVERY = 256  # nodes (leaves included) between two looks at the clock
CACHE_LIMIT = 20_000  # successor lists kept before the cache starts over (a big heap of
# tuples makes every full garbage collection long: a move-time outlier)


def heap_moves(board, cap, reward, growth=True):
    """Every legal move on a board, in heap order, as (kind, i, j, board after, points):
    merges (heap i onto heap j) by i then j, then the Ulam steps by heap. `growth=False`
    leaves out the odd steps (n -> 3n + 1)."""
    found = []
    for i, a in enumerate(board):
        for j, b in enumerate(board):
            if a != b:
                after = list(board)
                after[j] = min(a + b, cap)
                del after[i]
                found.append(("merge", i, j, tuple(after), 0))
    for i, n in enumerate(board):
        head, tail = board[:i], board[i + 1 :]
        if n % 2:
            if growth:
                found.append(("ulam", i, None, (*head, 3 * n + 1, *tail), 0))
        elif n == 2:
            found.append(("split", i, None, head + tail, reward))
        else:
            found.append(("ulam", i, None, (*head, n // 2, n // 2, *tail), 0))
    return found


class OutOfTime(Exception):
    """The time budget ran out in the middle of an iteration."""


def canonical_children(board, cap, reward, growth):
    """The distinct successors of a sorted board as (points, sorted board after, grew),
    best points first; a successor reached two ways keeps its better points."""
    best = {}
    values = sorted(set(board))
    for a in values:
        rest = list(board)
        rest.remove(a)
        if a % 2:
            if growth:
                step = rest[:]
                insort(step, 3 * a + 1)
                best[(tuple(step), 1)] = 0
        elif a == 2:
            key = (tuple(rest), 0)
            best[key] = max(best.get(key, 0), reward)
        else:
            step = rest[:]
            insort(step, a // 2)
            insort(step, a // 2)
            best.setdefault((tuple(step), 0), 0)
        for b in values:
            if b != a:
                merged = rest[:]
                merged.remove(b)
                insort(merged, min(a + b, cap))
                best.setdefault((tuple(merged), 0), 0)
    found = [(points, after, grew) for (after, grew), points in best.items()]
    found.sort(key=lambda child: -child[0])
    return found


class Searcher:
    """Alpha-beta with a transposition table, move ordering (points first, then the best
    move of the last iteration) and iterative deepening under a time budget."""

    def __init__(self, cap, reward, evaluate):
        self.cap = cap
        self.reward = reward
        self.evaluate = evaluate  # (sorted board, moves left) -> the mover's future margin
        self.children_cache = {}
        self.best_child = {}  # (board, moves left) -> the best move found there last time
        self.nodes = 0
        self.deadline = INFINITY

    def children(self, board, growth):
        key = (board, growth)
        found = self.children_cache.get(key)
        if found is None:
            if len(self.children_cache) > CACHE_LIMIT:
                self.children_cache.clear()
            found = canonical_children(board, self.cap, self.reward, growth)
            self.children_cache[key] = found
        return found

    def choose(self, board, moves_left, growths_left, depth, budget=None, order=None):
        """(value, points, child board) of the best move from a sorted board: the deepest
        search up to `depth` that ends within `budget` seconds (depth 1 always ends).
        `growths_left` is -1 when growth steps are not limited.
        `order(children)` may reorder the root's moves; the first best one is chosen."""
        self.deadline = INFINITY if budget is None else time.perf_counter() + budget
        self.nodes = 0
        self.best_child = {}
        chosen = None
        for limit in range(1, max(1, min(depth, moves_left)) + 1):
            try:
                chosen = self._root(board, limit, moves_left, growths_left, order)
            except OutOfTime:
                break
        return chosen

    def _root(self, board, depth, left, growths_left, order):
        kids = self.children(board, growths_left != 0)
        if order is not None:
            kids = order(kids)
        previous = self.best_child.get((board, left))
        if previous is not None and depth > 1:
            kids = [previous] + [kid for kid in kids if kid != previous]
        table = {}
        best, alpha = None, -INFINITY
        for kid in kids:
            points, after, grew = kid
            value = points - self._value(
                after, depth - 1, left - 1, _less(growths_left, grew), -INFINITY, -alpha, table
            )
            if best is None or value > alpha:
                best, alpha = (value, points, after), value
                self.best_child[(board, left)] = kid
        return best

    def _value(self, board, depth, left, growths_left, alpha, beta, table):
        """The future margin of the mover on `board` (negamax, alpha-beta)."""
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0 and time.perf_counter() > self.deadline:
            raise OutOfTime
        if not board or left <= 0:
            return 0
        if depth == 0:
            return self.evaluate(board, left)
        key = (board, depth, left, growths_left)
        entry = table.get(key)
        if entry is not None:
            flag, value = entry
            if flag == EXACT:
                return value
            if flag == LOWER and value >= beta:
                return value
            if flag == UPPER and value <= alpha:
                return value
        kids = self.children(board, growths_left != 0)
        if not kids:
            return 0  # no legal move: the game is over
        hint = self.best_child.get((board, left))
        if hint is not None:
            kids = [hint] + [kid for kid in kids if kid != hint]
        start, best = alpha, -INFINITY
        for kid in kids:
            points, after, grew = kid
            value = points - self._value(
                after, depth - 1, left - 1, _less(growths_left, grew), -beta, -alpha, table
            )
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    self.best_child[(board, left)] = kid
                    if alpha >= beta:
                        break
        flag = UPPER if best <= start else LOWER if best >= beta else EXACT
        table[key] = (flag, best)
        return best


def _less(growths_left, grew):
    """Growth steps left after a move: -1 means no limit."""
    if growths_left < 0 or not grew:
        return growths_left
    return growths_left - 1

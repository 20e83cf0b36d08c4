"""Super-Nim's player: the move generator, the handout's game class, the search and the
generated player's functions (`ai_move`, `random_move`), as one standard-library module.

`mine generate supernim` embeds this module's code in every player it writes, with the
fitted table in place of the plain one below, so the engine, the bots, the solver and the
generated players move and search with the very same functions, and the fitter evaluates
its table on the very features the player looks up (`cell`, `leaf_value`).

Points are additive, so a position's worth to the mover is the margin it will still gain
from here: negamax over that future margin needs neither the scores nor whose turn it is,
only the sorted board, the moves left before the cut-off and the growth steps left. That
makes canonical boards the whole key: successors that differ only in heap order merge
into one, and the transposition table sees every permutation as one position. A leaf's
worth is `evaluate(board, moves_left)`: 0 for the plain score-difference heuristic (the
score difference is already counted along the line), a fitted estimate otherwise.

A generated file (ENDGAME > 0) also searches its last ENDGAME moves exactly to the
cut-off (`Searcher.cut_value`, from the table's value with no cut-off), and within NEAR
moves of it breaks ties towards the move that gives up least should the cut-off come soon
(`steadiest`). Asked with the handout's four fields only, a file counts the moves from
the states it is asked (`Tally`: the board, both scores and its own last answer tell one
game from the next), to within the other side's first move; where it cannot place a
state, it does not know the cut-off and breaks ties as within NEAR. Where merges score
(CAP_SCORES, the variant where skill pays) there is no closed form for that endgame to
start from: the file searches to the cut-off instead once it is within SCORING_ENDGAME
moves, and its table is keyed by the SCORING_FEATURES.
"""

import random
import time
from bisect import insort

# --- the table: a generated file states its rules, search and fitted values here -------

MERGE_CAP = 10
SPLIT_REWARD = 2
CAP_SCORES = False  # the variant where the sticks a merge loses to the cap score for the mover
MAX_MOVES = 100
DEPTH = 3  # plies the search goes to at most
BUDGET = 0.2  # seconds a move may take at most
MAX_BUDGET = 1.0  # … whatever a call asks for

ENDGAME = 0  # moves left from which the search goes to the cut-off exactly (0: never)
SCORING_ENDGAME = 12  # … where merges score (CAP_SCORES): about 2,000 nodes, 0.05 s a move

# CELLS[features]: the mover's future margin the fitted table gives a feature cell.
CELLS = {}

FEATURES = ("twos", "odd_twos", "fours", "ones", "odds", "heaps", "left")
CAPS = (5, 1, 3, 3, 5, 9, 12)  # a feature's counts above its cap count as the cap
LEFT_FAR = CAPS[-1]  # moves left from which the table holds one value (no cut-off in sight)
# Where merges score (CAP_SCORES): the most sticks one merge loses to the cap, heaps at or
# above the cap (merging onto one scores the other heap whole), heaps, odd heaps, sticks,
# whether the 2-heaps are odd, moves left
SCORING_FEATURES = ("gain", "big", "heaps", "odds", "sticks", "odd_twos", "left")
SCORING_CAPS = (30, 3, 9, 5, 80, 1, LEFT_FAR)

# --- the move generator ----------------------------------------------------------------


def merged(a, b, cap, cap_scores):
    """(the heap, the mover's points) of merging heaps of a and b sticks: the heap is
    capped, and the sticks lost to the cap score only in the variant that says so."""
    lost = max(a + b - cap, 0)
    return a + b - lost, lost if cap_scores else 0


def heap_moves(board, cap, reward, growth=True, cap_scores=False):
    """Every legal move on a board, in heap order, as (kind, i, j, board after, points):
    merges (heap i onto heap j) by i then j, then the Ulam steps by heap. `growth=False`
    leaves out the odd steps (n -> 3n + 1); `cap_scores`: the capped-merge variant."""
    found = [
        merge_move(board, i, j, cap, cap_scores)
        for i, a in enumerate(board)
        for j, b in enumerate(board)
        if a != b
    ]
    for i in range(len(board)):
        step = step_move(board, i, reward, growth)
        if step:
            found.append(step)
    return found


def merge_move(board, i, j, cap, cap_scores=False):
    """Heap i merged onto heap j (of another size) as (kind, i, j, board after, points)."""
    after = list(board)
    after[j], points = merged(board[i], board[j], cap, cap_scores)
    del after[i]
    return ("merge", i, j, tuple(after), points)


def step_move(board, i, reward, growth=True):
    """The Collatz-Ulam step of heap i as (kind, i, None, board after, points): odd n ->
    3n + 1 (None when `growth` is off), even n -> two heaps of n/2 in its place, where
    splitting a 2 removes both 1-stick heaps and scores `reward`."""
    n, head, tail = board[i], board[:i], board[i + 1 :]
    if n % 2:
        return ("ulam", i, None, (*head, 3 * n + 1, *tail), 0) if growth else None
    if n == 2:
        return ("split", i, None, head + tail, reward)
    return ("ulam", i, None, (*head, n // 2, n // 2, *tail), 0)


def canonical_children(board, cap, reward, growth, cap_scores=False):
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
                after = rest[:]
                after.remove(b)
                heap, points = merged(a, b, cap, cap_scores)
                insort(after, heap)
                key = (tuple(after), 0)
                best[key] = max(best.get(key, 0), points)
    found = [(points, after, grew) for (after, grew), points in best.items()]
    found.sort(key=lambda child: -child[0])
    return found


# --- the handout's game class ----------------------------------------------------------


class SuperNim:
    """The handout's game class over the handout's states `(player, board, max, min)`.

    It knows no move count: the game manager cuts cycling games off, as the handout says.
    """

    WIN = 100  # utility of a win for max (the handout's "+100 or -100")

    def __init__(self, merge_cap=MERGE_CAP, split_reward=SPLIT_REWARD, cap_scores=CAP_SCORES):
        self.merge_cap = merge_cap
        self.split_reward = split_reward
        self.cap_scores = cap_scores

    def terminal(self, state):
        return not state[1]

    def utility(self, state):
        difference = state[2] - state[3]
        return self.WIN if difference > 0 else -self.WIN if difference < 0 else 0

    def heuristic(self, state):
        """The score difference for max: what a position is worth if nothing changes."""
        return state[2] - state[3]

    def player(self, state):
        return state[0]

    def successors(self, state):
        moves = heap_moves(state[1], self.merge_cap, self.split_reward, True, self.cap_scores)
        return [successor(state, after, points) for *_, after, points in moves]


def successor(state, after, points):
    """The handout's state after the mover leaves the board `after` and scores `points`."""
    player, _, score_max, score_min = state
    if player == "max":
        return ("min", after, score_max + points, score_min)
    return ("max", after, score_max, score_min + points)


# --- the search ------------------------------------------------------------------------

INFINITY = float("inf")
EXACT, LOWER, UPPER = 0, 1, 2
CHECK_EVERY = 256  # nodes (leaves included) between two looks at the clock
CACHE_LIMIT = 20_000  # successor lists kept before the cache starts over (a big heap of
# tuples makes every full garbage collection long: a move-time outlier)


class OutOfTime(Exception):
    """The time budget ran out in the middle of an iteration."""


class Searcher:
    """Alpha-beta with a transposition table, move ordering (points first, then the best
    move of the last iteration) and iterative deepening under a time budget."""

    def __init__(self, cap, reward, evaluate, far=None, cap_scores=False):
        self.cap = cap
        self.cap_scores = cap_scores
        self.reward = reward
        self.evaluate = evaluate  # (sorted board, moves left) -> the mover's future margin
        self.far = far  # sorted board -> its value with no cut-off (the exact endgame's)
        self.exact_table = {}  # (board, moves left) -> exact cut-off value, kept across moves
        self.children_cache = {}
        self.best_child = {}  # (board, moves left) -> the best move found there last time
        self.nodes = 0
        self.deadline = INFINITY
        self.node_limit = INFINITY  # nodes a search may visit (an exact solver's own bound)

    def children(self, board, growth):
        key = (board, growth)
        found = self.children_cache.get(key)
        if found is None:
            if len(self.children_cache) > CACHE_LIMIT:
                self.children_cache.clear()
            found = canonical_children(board, self.cap, self.reward, growth, self.cap_scores)
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
            less = _less(growths_left, grew)
            value = points - self._value(after, depth - 1, left - 1, less, -INFINITY,
                                         points - alpha, table)  # fmt: skip
            if best is None or value > alpha:
                best, alpha = (value, points, after), value
                self.best_child[(board, left)] = kid
        return best

    def _value(self, board, depth, left, growths_left, alpha, beta, table):
        """The future margin of the mover on `board` (negamax, alpha-beta)."""
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0 and (
            self.nodes > self.node_limit or time.perf_counter() > self.deadline
        ):
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
            # the child's window, shifted by the points: value = points - its value
            value = points - self._value(
                after, depth - 1, left - 1, _less(growths_left, grew),
                points - beta, points - alpha, table,
            )  # fmt: skip
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

    def cut_value(self, board, left, table):
        """The mover's exact future margin on a sorted board with `left` moves to the
        cut-off (growth unlimited), given `self.far(board)`: its value with no cut-off.

        `far` must satisfy far(b) = max over moves (points - far(after)) on every board (the
        value R * [odd number of 2-heaps] does). Then, by induction on `left`, the cut-off
        value lies in [far, far + R] when the mover makes the last move (`left` odd) and in
        [far - R, far] otherwise: each position asks one yes-or-no question (does the mover
        reach the top of its range?), and only moves that keep `far` can reach it."""
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0 and time.perf_counter() > self.deadline:
            raise OutOfTime
        if not board or left <= 0:
            return 0
        key = (board, left)
        known = table.get(key)
        if known is not None:
            return known
        top = self.far(board) + (self.reward if left % 2 else 0)
        open_questions = []
        for points, after, _ in self.children(board, True):
            if left == 1 or not after:
                high = low = 0
            else:
                high = self.far(after) + (self.reward if (left - 1) % 2 else 0)
                low = high - self.reward
            if points - high >= top:  # the top whatever the other side does
                table[key] = top
                return top
            if points - low >= top:  # the top if the other side misses its own
                open_questions.append((points, after))
        value = top - self.reward
        for points, after in open_questions:
            if points - self.cut_value(after, left - 1, table) >= top:
                value = top
                break
        table[key] = value
        return value

    def choose_exact(self, board, left, budget=None):
        """(value, points, child board) of the first move that keeps the exact cut-off
        value, or None if the budget runs out first."""
        self.deadline = INFINITY if budget is None else time.perf_counter() + budget
        self.nodes = 0
        if len(self.exact_table) > CACHE_LIMIT:
            self.exact_table.clear()
        try:
            value = self.cut_value(board, left, self.exact_table)
            for points, after, _ in self.children(board, True):
                if points - self.cut_value(after, left - 1, self.exact_table) == value:
                    return value, points, after
        except OutOfTime:
            return None
        return None


def _less(growths_left, grew):
    """Growth steps left after a move: -1 means no limit."""
    if growths_left < 0 or not grew:
        return growths_left
    return growths_left - 1


# --- the player ------------------------------------------------------------------------


def cell(board, left, cap=MERGE_CAP, cap_scores=CAP_SCORES):
    """A position's feature cell: its counts of 2-heaps (and whether they are odd), 4-heaps,
    1-heaps, odd heaps and heaps, and the moves left, each capped (the table's key); where
    merges score, the SCORING_FEATURES instead."""
    if cap_scores:
        sizes = sorted(set(board))
        gain = max(sizes[-1] + sizes[-2] - cap, 0) if len(sizes) > 1 else 0
        counts = (gain, sum(n >= cap for n in board), len(board), sum(n % 2 for n in board),
                  sum(board), board.count(2) % 2, left)  # fmt: skip
        return tuple(map(min, counts, SCORING_CAPS))
    twos = board.count(2)
    counts = (twos, twos % 2, board.count(4), board.count(1),
              sum(n % 2 for n in board), len(board), left)  # fmt: skip
    return tuple(map(min, counts, CAPS))


def leaf_value(board, left, cells, cap=MERGE_CAP, cap_scores=CAP_SCORES):
    """The fitted future margin of the mover on a sorted board (0 for a cell never seen)."""
    return cells.get(cell(board, left, cap, cap_scores), 0.0)


def evaluate(board, left):
    """This player's leaf value: its own table's."""
    return leaf_value(board, left, CELLS)


def far_value(board):
    """The table's value of a board with no cut-off in sight, to a whole cash: what the
    exact endgame search starts from."""
    return SPLIT_REWARD * round(evaluate(board, LEFT_FAR) / SPLIT_REWARD) if SPLIT_REWARD else 0


SEARCH = Searcher(MERGE_CAP, SPLIT_REWARD, evaluate, far_value, CAP_SCORES)


def successors(state):
    """(successor state, board after, points) in heap order, as the handout lists them."""
    moves = heap_moves(tuple(state[1]), MERGE_CAP, SPLIT_REWARD, True, CAP_SCORES)
    return [(successor(state, after, points), after, points) for *_, after, points in moves]


def random_move(state):
    """A uniformly random successor; the same state always gets the same answer."""
    options = successors(state)
    return random.Random(repr(state)).choice(options)[0]


def steadiest(board, chosen, budget):
    """Of the moves that keep the table's value with no cut-off in sight, the one that
    gives up least however soon the cut-off comes (in 1 … STEADY moves), the search's
    `chosen` (value, points, child) first among equals: a player asked without the moves
    left cannot tell the last moves from the others."""
    kids = SEARCH.children(board, True)
    kept = {kid: kid[0] - (far_value(kid[1]) if kid[1] else 0) for kid in kids}
    best = max(kept.values())
    mine = next((kid for kid in kids if kid[:2] == chosen[1:]), None)
    if mine is None or kept[mine] != best:
        return chosen
    SEARCH.deadline = time.perf_counter() + budget
    try:
        steady = {
            kid: sum(kid[0] - SEARCH.cut_value(kid[1], left, SEARCH.exact_table)
                     for left in range(STEADY))
            for kid in [mine] + [kid for kid in kids if kid != mine and kept[kid] == best]
        }  # fmt: skip
    except OutOfTime:
        return chosen
    points, after, _ = max(steady, key=steady.get)
    return chosen[0], points, after


STEADY = 6  # the cut-off horizons a player asked without the moves left weighs
NEAR = 30  # moves left within which a known cut-off may still cost a value-keeping move
# (an exact search finds such moves with 16 left; breaking ties only within 14 ended 4 of
# 1,000 games against alphabeta:3 below the value, within 30 none)


def hedged(board, lefts, budget):
    """(value, points, child board) of the move that gives up least against the exact
    cut-off value under the worse of the horizons `lefts` (the moves played known to
    within one), the larger sum over them among equals; None if the budget runs out."""
    SEARCH.deadline = time.perf_counter() + budget
    SEARCH.nodes = 0
    if len(SEARCH.exact_table) > CACHE_LIMIT:
        SEARCH.exact_table.clear()
    try:
        kids = SEARCH.children(board, True)
        worth = {kid: [kid[0] - SEARCH.cut_value(kid[1], left - 1, SEARCH.exact_table)
                       for left in lefts]
                 for kid in kids}  # fmt: skip
    except OutOfTime:
        return None
    best = [max(values[k] for values in worth.values()) for k in range(len(lefts))]

    def given_up(kid):
        return max(b - w for b, w in zip(best, worth[kid], strict=True)), -sum(worth[kid])

    kid = min(kids, key=given_up)
    return min(worth[kid]), kid[0], kid[1]


def handout_state(state):
    """The state as the handout writes it, its board a tuple (a caller may pass a list)."""
    return state[0], tuple(state[1]), state[2], state[3]


class Tally:
    """The moves played in the game a caller asks about, for a file asked with the four
    fields only (the handout's `ai_move(state)`, no moves left): the game goes on while each
    state asked is a successor of the file's last answer (two moves later), that answer
    itself (the other seat is this file too: one move later) or the state asked last (asked
    again); anything else starts a new game. A new game's count is known only from its
    scores: none yet, 0 or 1 moves (the other side may have moved first without cashing);
    the other side's one cash, 1; any other scores, not known (`()`)."""

    def __init__(self):
        self.asked = self.answer = None
        self.played = ()  # the counts the state asked last may have: one, two or none

    def count(self, state):
        """The counts of moves played before `state` it may have (one, two or none)."""
        state = handout_state(state)
        later = None
        if self.answer is not None:
            if state == self.answer:
                later = 1
            elif any(state == s for s, _, _ in successors(self.answer)):
                later = 2
        if later is None and state == self.asked:
            return self.played
        if later is None:
            self.played = start_counts(state)
        else:
            self.played = tuple(n + later for n in self.played)
        self.asked, self.answer = state, None
        return self.played

    def answered(self, state):
        self.answer = handout_state(state)


def start_counts(state):
    """The moves a game's first state asked may follow: none or one where no one has
    scored, one where only the other side has, as one move scores; else not known."""
    mine, theirs = (state[2], state[3]) if state[0] == "max" else (state[3], state[2])
    if mine == 0 and theirs == 0:
        return (0, 1)
    if mine == 0 and theirs > 0 and (CAP_SCORES or theirs == SPLIT_REWARD):
        return (1,)
    return ()


GAME = Tally()


def ai_move(state, moves_left=None, depth=None, budget=None):
    """The successor the search prefers (first best in heap order). Optional: the moves
    left before the cut-off, the depth and the seconds to take. Not told the moves left,
    it counts them from the states it is asked (`Tally`), or, where it cannot, takes
    MAX_MOVES and never knows the cut-off. With at most ENDGAME moves left it searches to
    the cut-off exactly, while the time lasts (the moves played known to within one: the
    move that gives up least under either); within NEAR (or the cut-off not known), ties
    go to the move that loses least to a near cut-off. Further from a cut-off it knows
    of, ties go to the search's first best: that splits 4s into 2s, which a careless
    opponent leaves to be cashed. Where merges score (CAP_SCORES), a generated file's
    search goes to the cut-off once it is within SCORING_ENDGAME moves."""
    if moves_left is not None:
        lefts = (max(1, int(moves_left)),)
    else:
        lefts = tuple(max(1, MAX_MOVES - n) for n in GAME.count(state))
    known = bool(lefts)
    left = max(lefts) if known else MAX_MOVES
    limit = DEPTH if depth is None else int(depth)
    seconds = min(BUDGET if budget is None else float(budget), MAX_BUDGET)
    board = tuple(sorted(state[1]))
    started = time.perf_counter()
    chosen = None
    if CAP_SCORES:
        # no closed form for an exact endgame to start from: the search goes to the cut-off
        if ENDGAME and left <= SCORING_ENDGAME:
            limit = max(limit, left)
        chosen = SEARCH.choose(board, left, -1, limit, seconds * 0.6)
    elif known and min(lefts) <= ENDGAME:
        if len(lefts) == 1:
            chosen = SEARCH.choose_exact(board, left, seconds / 2)
        else:
            chosen = hedged(board, lefts, seconds / 2)
    if chosen is None:
        spent = time.perf_counter() - started
        chosen = SEARCH.choose(board, left, -1, limit, max(seconds - spent, 0.0) * 0.6)
        if ENDGAME and (not known or left <= NEAR):
            # what the clock checks let through (a few hundred nodes) stays within the budget
            spent = time.perf_counter() - started
            chosen = steadiest(board, chosen, max(seconds * 0.8 - spent, 0.0))
    value, points, target = chosen
    answer = successors(state)[0][0]
    for successor, after, gained in successors(state):
        if gained == points and tuple(sorted(after)) == target:
            answer = successor
            break
    if moves_left is None:
        GAME.answered(answer)
    return answer

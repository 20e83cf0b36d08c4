"""Exact Hog by dynamic programming over (my score, opponent's score): no sampling.

Every turn scores at least one point, so a turn always moves the game to a state whose
score total is larger: solving the states one anti-diagonal (s + o = t) at a time, from
the largest t down to 0, sees every successor before the state itself.

The solver takes a `TurnModel` — the points distribution of rolling k dice, Pig Tail
points by opponent score, the Square Swine map and the goal — so it runs the same on the
true rules (`TurnModel.from_rules`) or on a model learned from logs (`models/hog.py`).

`win[s, o]` is the probability that the player about to move, with s points against o,
wins. A player's policy is either a table (goal × goal, dice per state), a distribution
over dice per state (goal × goal × (K + 1)), or None: choose the dice that maximise the
win probability. Two maximisers give the minimax-optimal strategy (the game is zero-sum
with perfect information); a maximiser against a fixed policy gives the best response.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mine.strategies.engines.hog import DEFAULT_RULES, HogRules, swine_map, tail_map

Policy = np.ndarray | None
TIE = 1e-12  # win probabilities this close count as equal: the fewest dice wins the tie


@dataclass(frozen=True, eq=False)
class TurnModel:
    """What one turn does, as arrays the solver reads.

    roll_points[k, p]: probability that rolling k dice scores p points (row 0 unused).
    tail[o]: Pig Tail points against opponent score o, or None (no rolling 0).
    swine[n]: the score that a total of n < goal becomes (Square Swine).
    """

    goal: int
    roll_points: np.ndarray
    tail: np.ndarray | None
    swine: np.ndarray

    def __post_init__(self) -> None:
        goal = self.goal
        if self.swine.shape != (goal,) or (self.swine < np.arange(goal)).any():
            raise ValueError("the Square Swine map must give every score below goal a score")
        if self.tail is not None and (self.tail.shape != (goal,) or self.tail.min() < 1):
            raise ValueError("Pig Tail must give at least one point for every opponent score")
        if self.roll_points[:, 0].any():
            raise ValueError("rolling dice always scores at least one point")
        sums = self.roll_points[1:].sum(axis=1)
        if not np.allclose(sums, 1.0):
            raise ValueError("each number of dice needs a points distribution summing to 1")

    @property
    def max_rolls(self) -> int:
        return self.roll_points.shape[0] - 1

    @property
    def actions(self) -> np.ndarray:
        return np.arange(0 if self.tail is not None else 1, self.max_rolls + 1)

    @classmethod
    def from_rules(cls, rules: HogRules = DEFAULT_RULES) -> TurnModel:
        face = np.full(rules.dice_sides, 1.0 / rules.dice_sides)
        points = roll_distribution(face, rules.max_rolls, rules.sow_sad)
        tail = tail_map(rules) if rules.pig_tail else None
        return cls(rules.goal, points, tail, swine_map(rules, rules.goal))


def roll_distribution(face: np.ndarray, max_rolls: int, sow_sad: bool = True) -> np.ndarray:
    """P(points = p | k dice) for k = 0..max_rolls, from the probability of each face.

    `face[i]` is the probability of showing i + 1. Under Sow Sad a turn with any 1 scores
    1; otherwise the faces add up.
    """
    sides = len(face)
    width = max_rolls * sides + 1
    out = np.zeros((max_rolls + 1, width))
    one_die = np.concatenate(([0.0, 0.0 if sow_sad else face[0]], face[1:]))  # points 0..sides
    sums = np.eye(width)[0]
    for k in range(1, max_rolls + 1):
        sums = out[k] = np.convolve(sums, one_die)[:width]
        if sow_sad:
            out[k, 1] += 1.0 - (1.0 - face[0]) ** k
    return out


def _policy_array(policy: np.ndarray, model: TurnModel) -> np.ndarray:
    """A table or a per-state distribution as goal × goal × (K + 1) probabilities."""
    goal, width = model.goal, model.max_rolls + 1
    policy = np.asarray(policy)
    if policy.shape == (goal, goal):
        k = policy.astype(np.int64)
        if k.min() < model.actions[0] or k.max() > model.max_rolls:
            raise ValueError(f"a table holds {model.actions[0]}..{model.max_rolls} dice")
        return np.eye(width)[k]
    if policy.shape != (goal, goal, width):
        raise ValueError(f"a policy is {goal}×{goal} or {goal}×{goal}×{width}")
    return policy.astype(float)


@dataclass(frozen=True, eq=False)
class Solution:
    """Both players' win probabilities as mover, and the tables the maximisers chose."""

    win: tuple[np.ndarray, np.ndarray]  # win[x][s, o]: x to move with s against o
    table: tuple[np.ndarray | None, np.ndarray | None]

    @property
    def first(self) -> float:
        """A's win probability when A moves first."""
        return float(self.win[0][0, 0])

    @property
    def second(self) -> float:
        """A's win probability when B moves first."""
        return 1.0 - float(self.win[1][0, 0])

    @property
    def average(self) -> float:
        return (self.first + self.second) / 2


def solve(model: TurnModel, policy_a: Policy, policy_b: Policy) -> Solution:
    """Both players' exact win probabilities in every state; None plays best."""
    goal = model.goal
    policies = [None if p is None else _policy_array(p, model) for p in (policy_a, policy_b)]
    win = [np.zeros((goal, goal)), np.zeros((goal, goal))]
    tables = [np.zeros((goal, goal), dtype=np.int64) if p is None else None for p in policies]
    roll = model.roll_points[1:, 1:].T  # points 1..P × dice 1..K
    points = np.arange(1, roll.shape[0] + 1)
    actions = model.actions
    for total in range(2 * goal - 2, -1, -1):
        s, o = _diagonal(total, goal)
        for x in (0, 1):
            value = _action_values(model, win[1 - x], s, o, roll, points)
            if policies[x] is None:
                chosen = value[:, actions]
                best = chosen.max(axis=1)
                pick = actions[np.argmax(chosen >= best[:, None] - TIE, axis=1)]
                win[x][s, o] = best
                tables[x][s, o] = pick
            else:
                win[x][s, o] = (policies[x][s, o] * value).sum(axis=1)
    return Solution((win[0], win[1]), (tables[0], tables[1]))


def stuck(model: TurnModel, policy_a: np.ndarray, policy_b: np.ndarray) -> np.ndarray:
    """Where a policy's row holds no play (sums to less than 1: an invalid play there),
    the game ends, lost by the side to move (`solve` counts it so). The chance of that
    ending for each side: `stuck[f, x]` for side x (0 A, 1 B) when side f moves first.
    Forwards, one anti-diagonal at a time: the chance of reaching each state."""
    goal = model.goal
    policies = [_policy_array(p, model) for p in (policy_a, policy_b)]
    roll = model.roll_points[1:]  # dice 1..K × points 0..P
    points = np.arange(roll.shape[1])
    ended = np.zeros((2, 2))
    for first in (0, 1):
        reach = np.zeros((2, goal, goal))  # reach[x, s, o]: x to move with s against o
        reach[first, 0, 0] = 1.0
        for total in range(2 * goal - 1):
            s, o = _diagonal(total, goal)
            for x in (0, 1):
                mass, policy = reach[x, s, o], policies[x][s, o]
                ended[first, x] += max(float(mass @ (1.0 - policy.sum(axis=1))), 0.0)
                rolled = (mass[:, None] * policy[:, 1:]) @ roll  # states × points
                _turn_ends(model, reach[1 - x], o, s[:, None] + points, rolled)
                if model.tail is not None:
                    tail = (s + model.tail[o])[:, None]
                    _turn_ends(model, reach[1 - x], o, tail, (mass * policy[:, 0])[:, None])
    return ended


def _diagonal(total: int, goal: int) -> tuple[np.ndarray, np.ndarray]:
    """The states (s, o) below the goal whose scores add up to `total`."""
    s = np.arange(max(0, total - goal + 1), min(total, goal - 1) + 1)
    return s, total - s


def _turn_ends(model, reach, opponent, total, chance) -> None:
    """Add the `chance` of a turn ending with `total` points (before Square Swine) to the
    opponent's states to move, where the game goes on."""
    new = model.swine[np.minimum(total, model.goal - 1)]
    going = (total < model.goal) & (new < model.goal) & (chance > 0)
    rows = np.broadcast_to(opponent[:, None], total.shape)
    np.add.at(reach, (rows[going], new[going]), chance[going])


def _action_values(model, other_win, s, o, roll, points) -> np.ndarray:
    """Win probability of each number of dice (columns 0..K) in the states (s, o)."""
    goal = model.goal
    value = np.zeros((s.size, model.max_rolls + 1))
    value[:, 1:] = _after(goal, model.swine, other_win, s[:, None] + points, o[:, None]) @ roll
    if model.tail is not None:
        value[:, 0] = _after(goal, model.swine, other_win, s + model.tail[o], o)
    return value


def _after(goal, swine, other_win, total, opponent) -> np.ndarray:
    """My win probability once my turn ends with `total` points before Square Swine."""
    new = swine[np.minimum(total, goal - 1)]
    won = (total >= goal) | (new >= goal)
    return np.where(won, 1.0, 1.0 - other_win[opponent, np.minimum(new, goal - 1)])


# --- the questions asked of the solver ------------------------------------------------


def win_rates(model: TurnModel, a: np.ndarray, b: np.ndarray) -> Solution:
    """Exact win probabilities of policy A against policy B (first, second, average)."""
    return solve(model, a, b)


def best_response(model: TurnModel, opponent: np.ndarray) -> Solution:
    """The table that wins most often against `opponent` (a table or per-state
    distribution); `table[0]` is it and `first` / `second` / `average` its win rates."""
    return solve(model, None, opponent)


def optimal(model: TurnModel) -> Solution:
    """The minimax-optimal table (`table[0]`); `first` is the first mover's value."""
    return solve(model, None, None)


def guaranteed(model: TurnModel, table: np.ndarray) -> Solution:
    """`table`'s win rates against the opponent that exploits it best: what it is sure to
    win. In `solve`'s terms A is `table`, B the best response to it."""
    return solve(model, table, None)

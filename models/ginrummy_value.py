"""Gin Rummy's value of waiting: when to knock, and what a deadwood is worth, by dynamic
programming over what the logs say happens after a play.

The logs show both hands after every play, so for each logged play (deadwood `d` after it,
at turn `t`) they tell:

- the opponent's deadwood at that moment (its hand after its last play): knocking with
  `d` would have scored `knock[d][t]` on average (gin, 25 + theirs, at `d` = 0; an undercut
  costs 10 + the difference);
- whether the opponent ended the round on its next play (`hazard[t]`, the chance it
  knocks, gins or runs the stock out first), and with what deadwood, hence `called[d][t]`:
  what that next-play call is worth, on average, to a player holding `d`;
- the same player's deadwood after its next play, `d'`: a transition `d → d'` per turn
  bucket (how fast deadwood falls under the logged players' draws and discards).

Backwards from a late turn, `value[d][t] = max(knock[d][t], wait[d][t])` where knocking is
allowed (`d` ≤ 10, not the first turn) and `wait` otherwise, with
`wait[d][t] = called[d][t] + (1 - hazard[t]) · Σ P(d' | d) value[d'][t + 2]`.
`value` (in round points) is what the generated player's look-ahead maximises.

The knock policy weighs the same recursion in the game's currency: a round's points are
worth the chance of winning the game they leave (`win_chance`, from the logged rounds'
points, the game ending at 100), so knocking or waiting depends on the score too — behind,
a gin's bonus is worth more than a knock's few points; near the target, any win ends the
game. Knock where that is worth more than waiting. Thin transition rows fall back to the
row pooled over turns, then to the nearest deadwood with data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import polars as pl

TURN_BUCKET = 4  # plays (both players') per turn bucket, for every Gin Rummy table
TURN_BUCKETS = 8  # the last bucket holds every later turn
DEADWOOD_CAP = 50  # deadwood after a play; the last row stands for 50 and more
TURN_CAP = 48  # plays valued by the recursion; later ones end as a stock-out would
KNOCK_LIMIT = 10
MOST = 100  # the most deadwood ten cards can hold
SCORE_STEP = 10  # points per score bucket of the knock policy
SCORE_BUCKETS = 10  # the last holds 90 and more
GAME_TARGET = 100
MIN_ROW = 30  # transitions a (deadwood, turn bucket) row needs to stand on its own
GIN_BONUS = 25
UNDERCUT_BONUS = 10
ROUND = ["log_id", "round"]


def _bucket(turn: np.ndarray) -> np.ndarray:
    return np.clip((turn - 1) // TURN_BUCKET, 0, TURN_BUCKETS - 1)


def _points(mine: np.ndarray, theirs: np.ndarray, gin: np.ndarray, caller: bool) -> np.ndarray:
    """The round's points for the player holding `mine` when the caller (me if `caller`)
    gins or knocks; no laying off in this variant, so deadwood alone decides."""
    own, other = (mine, theirs) if caller else (theirs, mine)
    knock = np.where(own < other, other - own, -(UNDERCUT_BONUS + own - other))
    points = np.where(gin, GIN_BONUS + other, knock)
    return points if caller else -points


def _plays(features: pl.DataFrame) -> pl.DataFrame:
    """One row per play: deadwood after it, the opponent's then, the opponent's next play
    (its call and deadwood) and the player's deadwood after its own next play."""
    over = pl.col("deadwood_after").shift
    return (
        features.sort(*ROUND, "turn")
        .with_columns(
            over(1).over(ROUND).alias("theirs"),
            pl.col("call").shift(-1).over(ROUND).alias("next_call"),
            over(-1).over(ROUND).alias("next_theirs"),
            over(-2).over(ROUND).alias("later"),
        )
        .select("turn", "call", "deadwood_after", "theirs", "next_call", "next_theirs", "later")
    )


def _shares(buckets: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    """Per turn bucket, the share of the observations holding each value (0 … size - 1); a
    bucket without observations takes the shares pooled over all."""
    counts = np.zeros((TURN_BUCKETS, size))
    np.add.at(counts, (buckets, values), 1)
    pooled = counts.sum(axis=0)
    counts[counts.sum(axis=1) == 0] = pooled
    return counts / counts.sum(axis=1, keepdims=True)


def _transitions(d: np.ndarray, later: np.ndarray, buckets: np.ndarray) -> np.ndarray:
    """P(d' | d) per turn bucket, as a (buckets, cap + 1, cap + 1) array."""
    size = DEADWOOD_CAP + 1
    counts = np.zeros((TURN_BUCKETS, size, size))
    np.add.at(counts, (buckets, d, later), 1)
    pooled = counts.sum(axis=0)
    seen = np.flatnonzero(pooled.sum(axis=1) >= MIN_ROW)
    if seen.size == 0:
        raise ValueError("too few logged plays to fit how deadwood falls")
    for row in range(size):
        if pooled[row].sum() < MIN_ROW:
            pooled[row] = pooled[seen[np.abs(seen - row).argmin()]]
    thin = counts.sum(axis=2) < MIN_ROW
    counts[thin] = np.broadcast_to(pooled, counts.shape)[thin]
    return counts / counts.sum(axis=2, keepdims=True)


class Odds(NamedTuple):
    """What the logs say happens after a play, per turn bucket."""

    theirs: np.ndarray  # (buckets, MOST + 1): shares of the opponent's deadwood then
    calls: np.ndarray  # (buckets, 2, MOST + 1): shares of a knock / gin on its next play,
    # by its deadwood (rows sum to `hazard`)
    hazard: np.ndarray  # (buckets,): the chance it ends the round on its next play
    move: np.ndarray  # (buckets, cap + 1, cap + 1): P(my next deadwood | this one)
    plays: np.ndarray  # (buckets,): logged plays that went on to another play


def odds(features: pl.DataFrame) -> Odds:
    """The `Odds` of the logged plays (both players')."""
    plays = _plays(features)
    seen = plays.filter(pl.col("theirs").is_not_null())
    theirs = _shares(_bucket(seen["turn"].to_numpy()), seen["theirs"].to_numpy(), MOST + 1)

    going = plays.filter((pl.col("call") == "none") & pl.col("next_call").is_not_null())
    if going.height == 0:
        raise ValueError("no logged round goes on after a play")
    buckets = _bucket(going["turn"].to_numpy())
    # One value per way the opponent's next play goes: not a call, or a knock or gin
    # (kind 0 or 1) at each deadwood.
    kind = (going["next_call"] == "Gin").cast(pl.Int64).to_numpy()
    outcome = np.where(
        (going["next_call"] != "none").to_numpy(),
        kind * (MOST + 1) + going["next_theirs"].to_numpy(),
        2 * (MOST + 1),
    )
    shares = _shares(buckets, outcome, 2 * (MOST + 1) + 1)
    calls = shares[:, :-1].reshape(TURN_BUCKETS, 2, MOST + 1)

    moved = going.filter(pl.col("later").is_not_null())
    move = _transitions(
        np.minimum(moved["deadwood_after"].to_numpy(), DEADWOOD_CAP),
        np.minimum(moved["later"].to_numpy(), DEADWOOD_CAP),
        _bucket(moved["turn"].to_numpy()),
    )
    return Odds(theirs, calls, 1 - shares[:, -1], move,
                np.bincount(buckets, minlength=TURN_BUCKETS))  # fmt: skip


def expected(odds: Odds, worth: Callable[[np.ndarray], np.ndarray]) -> tuple:
    """`knock` and `called` ((buckets, cap + 1)): the mean `worth` of the round's points
    when I knock at each deadwood, and when the opponent's next play is a call (0 if it
    is not)."""
    mine = np.arange(DEADWOOD_CAP + 1)[:, None]
    theirs = np.arange(MOST + 1)[None, :]
    knock = odds.theirs @ worth(_points(mine, theirs, mine == 0, caller=True)).T
    called = sum(
        odds.calls[:, kind] @ worth(_points(mine, theirs, bool(kind), caller=False)).T
        for kind in (0, 1)
    )
    return knock, called


def win_chance(points: np.ndarray) -> np.ndarray:
    """`chance[a][b]`: the chance of winning the game from a round's start at scores `a`
    (mine) and `b` (theirs), if every round's points (signed, mine) are drawn from `points`
    taken both ways; index GAME_TARGET stands for the target reached."""
    values, counts = np.unique(np.concatenate([points, -points]), return_counts=True)
    share = counts / counts.sum()
    stay = share[values == 0].sum()
    if stay == 1:
        raise ValueError("no logged round scored a point")
    gain, loss = values > 0, values < 0
    chance = np.zeros((GAME_TARGET + 1, GAME_TARGET + 1))
    chance[GAME_TARGET, :GAME_TARGET] = 1.0
    for a in range(GAME_TARGET - 1, -1, -1):
        up = np.minimum(a + values[gain], GAME_TARGET)
        for b in range(GAME_TARGET - 1, -1, -1):
            down = np.minimum(b - values[loss], GAME_TARGET)
            won = share[gain] @ chance[up, b] + share[loss] @ chance[a, down]
            chance[a, b] = won / (1 - stay)
    return chance


def _worth_at(chance: np.ndarray, a: int, b: int) -> Callable[[np.ndarray], np.ndarray]:
    """The round's points as the game-win chance they leave from scores `a`, `b`."""

    def worth(points: np.ndarray) -> np.ndarray:
        mine = np.minimum(a + np.maximum(points, 0), GAME_TARGET)
        theirs = np.minimum(b - np.minimum(points, 0), GAME_TARGET)
        return chance[mine, theirs]

    return worth


def knock_policy(odds: Odds, chance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`knock` (0/1) and its knock-minus-wait `margin` in game-win chance, by score bucket
    (mine, theirs), deadwood and turn bucket; each score bucket is valued at its middle."""
    shape = (SCORE_BUCKETS, SCORE_BUCKETS, KNOCK_LIMIT + 1, TURN_BUCKETS)
    knock, margin = np.zeros(shape, dtype=int), np.zeros(shape)
    for mine, theirs in np.ndindex(SCORE_BUCKETS, SCORE_BUCKETS):
        worth = _worth_at(chance, *(SCORE_STEP * s + SCORE_STEP // 2 for s in (mine, theirs)))
        solved = solve(*expected(odds, worth), odds.hazard, odds.move)
        knock[mine, theirs], margin[mine, theirs] = solved["knock"], solved["margin"]
    return knock, margin


def fit_value(features: pl.DataFrame) -> dict[str, np.ndarray]:
    """`value`, `called` ((cap + 1) × buckets, round points) and `hazard` (buckets); the
    knock policy `knock` (0/1) with its knock-minus-wait `margin` (game-win chance), both
    score buckets × score buckets × 11 × turn buckets; and `plays`, the logged plays that
    went on, per bucket."""
    found = odds(features)
    solved = solve(*expected(found, lambda points: points), found.hazard, found.move)
    rounds = features.select(*ROUND, "round_points", "round_opponent_points").unique()
    chance = win_chance((rounds["round_points"] - rounds["round_opponent_points"]).to_numpy())
    knock, margin = knock_policy(found, chance)
    return {"value": solved["value"], "called": solved["called"], "hazard": found.hazard,
            "knock": knock, "margin": margin, "plays": found.plays}  # fmt: skip


def solve(knock, called, hazard, move) -> dict[str, np.ndarray]:
    """The recursion over turns from the fitted `knock`, `called` ((buckets, cap + 1)),
    `hazard` (buckets) and `move` ((buckets, cap + 1, cap + 1)) arrays."""
    size = DEADWOOD_CAP + 1
    callable_rows = np.arange(size) <= KNOCK_LIMIT
    # Past the last valued turn the round ends as a stock-out: scored as a knock.
    after = [knock[-1], knock[-1]]
    value = np.zeros((TURN_CAP, size))
    margin = np.zeros((TURN_CAP, KNOCK_LIMIT + 1))
    for turn in range(TURN_CAP, 0, -1):
        b = _bucket(np.array(turn))
        wait = called[b] + (1 - hazard[b]) * move[b] @ after[turn % 2]
        now = np.where(callable_rows & (turn >= 3), np.maximum(knock[b], wait), wait)
        value[turn - 1] = now
        margin[turn - 1] = knock[b, : KNOCK_LIMIT + 1] - wait[: KNOCK_LIMIT + 1]
        after[turn % 2] = now
    buckets = _bucket(np.arange(1, TURN_CAP + 1))
    counts = np.bincount(buckets, minlength=TURN_BUCKETS)[:, None]

    def by_bucket(per_turn: np.ndarray) -> np.ndarray:
        sums = np.zeros((TURN_BUCKETS, per_turn.shape[1]))
        np.add.at(sums, buckets, per_turn)
        return (sums / counts).T

    # Calls are barred on turns 1-2: the first bucket's margin is that of turns 3-4.
    margin[:2] = margin[2:4]
    mean_margin = by_bucket(margin)
    return {
        "knock": (mean_margin >= 0).astype(int),
        "margin": mean_margin,
        "value": by_bucket(value),
        "called": called.T,
    }

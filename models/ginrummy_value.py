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
Knock where knocking is worth more than waiting; `value` (in round points) is what the
generated player's look-ahead maximises. Thin transition rows fall back to the row pooled
over turns, then to the nearest deadwood with data.
"""

from __future__ import annotations

import numpy as np
import polars as pl

TURN_BUCKET = 4  # plays (both players') per turn bucket, for every Gin Rummy table
TURN_BUCKETS = 8  # the last bucket holds every later turn
DEADWOOD_CAP = 50  # deadwood after a play; the last row stands for 50 and more
TURN_CAP = 48  # plays valued by the recursion; later ones end as a stock-out would
KNOCK_LIMIT = 10
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


def _mean_by_bucket(buckets: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per turn bucket, the mean of each column of `values` (rows: observations)."""
    sums = np.zeros((TURN_BUCKETS, values.shape[1]))
    np.add.at(sums, buckets, values)
    counts = np.bincount(buckets, minlength=TURN_BUCKETS)[:, None]
    pooled = values.mean(axis=0)
    return np.where(counts > 0, sums / np.maximum(counts, 1), pooled)


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


def fit_value(features: pl.DataFrame) -> dict[str, np.ndarray]:
    """`knock` (0/1, 11 × buckets), `value`, `called` ((cap + 1) × buckets) and `hazard`
    (buckets), as numpy arrays; also the knock-minus-wait `margin` (11 × buckets) and the
    number of logged plays that went on to another play, per bucket (`plays`)."""
    plays = _plays(features)
    deadwood = np.arange(DEADWOOD_CAP + 1)

    seen = plays.filter(pl.col("theirs").is_not_null())
    theirs = seen["theirs"].to_numpy()
    knock = _mean_by_bucket(
        _bucket(seen["turn"].to_numpy()),
        _points(deadwood[None, :], theirs[:, None], deadwood[None, :] == 0, caller=True),
    )

    going = plays.filter((pl.col("call") == "none") & pl.col("next_call").is_not_null())
    if going.height == 0:
        raise ValueError("no logged round goes on after a play")
    buckets = _bucket(going["turn"].to_numpy())
    ended = (going["next_call"] != "none").to_numpy()
    gin = (going["next_call"] == "Gin").to_numpy()
    caller = going["next_theirs"].to_numpy()
    called = _mean_by_bucket(
        buckets,
        np.where(
            ended[:, None],
            _points(deadwood[None, :], caller[:, None], gin[:, None], caller=False),
            0.0,
        ),
    )
    hazard = _mean_by_bucket(buckets, ended[:, None].astype(float))[:, 0]

    moved = going.filter(pl.col("later").is_not_null())
    clip = np.minimum
    move = _transitions(
        clip(moved["deadwood_after"].to_numpy(), DEADWOOD_CAP),
        clip(moved["later"].to_numpy(), DEADWOOD_CAP),
        _bucket(moved["turn"].to_numpy()),
    )
    return {**solve(knock, called, hazard, move),
            "plays": np.bincount(buckets, minlength=TURN_BUCKETS)}  # fmt: skip


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
        "hazard": hazard,
    }

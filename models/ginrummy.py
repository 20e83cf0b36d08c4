"""Gin Rummy tables fitted from logs: discard danger, the opponent's discards, knock policy
and the value of a deadwood.

Input is the per-turn frame of `pipeline.stats.ginrummy.turn_features` (both players'
turns: the logs show both hands); the tables are one long frame (column `table` says
which) in the shared table format (`models.tables`):

- `danger[picked][passed][rank]`: the chance that the opponent picks up a discard, a
  logistic regression (scikit-learn) on the discard's relation to the opponent's earlier
  pickups (`PICKED`) and passes (`PASSED`) and its rank; `card` rows hold its mean over
  the logged discards of each card (the report's 4 × 13 grid).
- `thrown[rank][turn bucket]`: the chance that a card of that rank, unseen by a player, is
  its opponent's next discard (a counted rate: `n` unseen cards, `extra` of them thrown).
- `knock[deadwood][turn bucket]` per score bucket (`c` = my score // 10 × 10 + theirs // 10;
  1 to knock, 0 to wait; `extra`: the knock-minus-wait margin in game-win chance),
  `value[deadwood][turn bucket]` (a deadwood after a play, in round points),
  `called[deadwood][turn bucket]` (what the opponent's call on its next play is worth to
  that deadwood) and `hazard[turn bucket]` (the chance that call comes): the value of
  waiting, by dynamic programming over the logged plays.
- `prior` (one cell): the opponents' knock rate where a knock was allowed (`n` such plays,
  `extra` of them knocked), and `held[deadwood][turn bucket]`: the chance a hand that
  never calls holds at most that deadwood after a play at that turn. Fitted from both
  sides, or the one `--against` names (`me`, the logs' writer, or `opponent`); the
  generated player starts from them and reads its opponent.

For each logged play (deadwood `d` after it, at turn `t`) the logs tell the opponent's
deadwood then (its hand after its last play: knocking with `d` would have scored
`knock[d][t]` on average; gin, 25 + theirs, at `d` = 0; an undercut costs 10 + the
difference); whether the opponent ended the round on its next play (`hazard[t]`: it
knocks, gins or runs the stock out first) and with what deadwood, hence `called[d][t]`;
and the player's deadwood after its own next play, `d'`: a transition `d → d'` per turn
bucket (how fast deadwood falls under the logged players' draws and discards).

Backwards from a late turn, `value[d][t] = max(knock[d][t], wait[d][t])` where knocking is
allowed (`d` ≤ 10, not the first turn) and `wait` otherwise, with
`wait[d][t] = called[d][t] + (1 - hazard[t]) · Σ P(d' | d) value[d'][t + 2]`: what the
generated player's look-ahead maximises.

The knock policy weighs the same recursion in the game's currency: a round's points are
worth the chance of winning the game they leave (`win_chance`, from the logged rounds'
points, the game ending at 100), so knocking or waiting depends on the score too — behind,
a gin's bonus is worth more than a knock's few points; near the target, any win ends the
game. Knock where that is worth more than waiting. Thin transition rows fall back to the
row pooled over turns, then to the nearest deadwood with data.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import polars as pl

from mine.models import FitError, tables
from mine.strategies.engines.ginrummy import DEFAULT_RULES
from mine.strategies.engines.melds import SPREAD

# A discard's relation to the opponent's earlier pickups and passes this round (the
# features' `picked_relation` and `passed_relation`, the danger model's inputs), least
# telling first.
PICKED = ("none", "near", "adjacent", "same rank")
PASSED = ("none", "adjacent", "same rank")
TURN_BUCKET = 4  # plays (both players') per turn bucket, for every Gin Rummy table
TURN_BUCKETS = 8  # the last bucket holds every later turn
DEADWOOD_CAP = 50  # deadwood after a play; the last row stands for 50 and more
TURN_CAP = 48  # plays valued by the recursion; later ones end as a stock-out would
# The course's scoring: the tables value its rounds, whatever rules the logs were played in.
KNOCK_LIMIT, GIN_BONUS, UNDERCUT_BONUS, GAME_TARGET = (DEFAULT_RULES.knock_limit,
    DEFAULT_RULES.gin_bonus, DEFAULT_RULES.undercut_bonus, DEFAULT_RULES.game_target)  # fmt: skip
MOST = 100  # the most deadwood ten cards can hold
SCORE_STEP = 10  # points per score bucket of the knock policy
SCORE_BUCKETS = 10  # the last holds 90 and more
MIN_ROW = 30  # transitions a (deadwood, turn bucket) row needs to stand on its own
# Hand-set: the logs' knock rate counts as this many of the opponent's own rounds at most
# (a player reads the one in front of it within a game, from the field's prior): two, so
# that a game's first rounds tell a player that knocks at once from one that only gins.
PRIOR_WEIGHT = 2
AGAINST = ("all", "me", "opponent")  # whose habits the priors are fitted from
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


# --- the tables, fitted ------------------------------------------------------------------

KIND = "player-tables"
GAME = "ginrummy"

SCHEMA = {"a": pl.Int64, "b": pl.Int64, "c": pl.Int64, "value": pl.Float64, "n": pl.Int64,
          "extra": pl.Float64}  # fmt: skip


@dataclass(frozen=True)
class Fitted:
    frame: pl.DataFrame  # columns: table, a, b, c, value, n, extra
    metadata: dict[str, Any]

    def part(self, name: str) -> pl.DataFrame:
        return self.frame.filter(pl.col("table") == name)

    @property
    def tables(self) -> dict[str, tuple]:
        """The tables as the generated player embeds them (`nested`)."""
        return nested(self.frame)


# --- danger ----------------------------------------------------------------------------


def _danger_design(picked: np.ndarray, passed: np.ndarray, rank: np.ndarray) -> np.ndarray:
    columns = [picked == k for k in range(1, len(PICKED))]
    columns += [passed == k for k in range(1, len(PASSED))]
    columns += [rank == r for r in range(2, 14)]
    return np.column_stack(columns).astype(float)


def fit_danger(features: pl.DataFrame) -> tuple[pl.DataFrame, dict[str, Any]]:
    # In an order of the discards' own, not the logs' ids (which follow the order the logs
    # were ingested in): the same logs hold out the same discards and give the same file.
    discards = features.filter(pl.col("picked_up").is_not_null()).sort(
        "picked_relation", "passed_relation", "discard_rank", "discard_suit", "picked_up"
    )
    if discards.height < 100 or discards["picked_up"].sum() < 10:
        raise FitError(
            f"too few discards to fit the danger model ({discards.height}, "
            f"{discards['picked_up'].sum()} picked up; need 100 and 10)"
        )
    picked = discards["picked_relation"].replace_strict(list(PICKED), range(4)).to_numpy()
    passed = discards["passed_relation"].replace_strict(list(PASSED), range(3)).to_numpy()
    rank = discards["discard_rank"].to_numpy()
    target = discards["picked_up"].to_numpy().astype(int)
    design = _danger_design(picked, passed, rank)
    # Every fifth discard is held out to report the model's discrimination honestly.
    held = np.arange(len(target)) % 5 == 0
    from sklearn.linear_model import LogisticRegression  # slow to import; fitting only
    from sklearn.metrics import roc_auc_score

    model = LogisticRegression(C=1.0, max_iter=1000)
    model.fit(design[~held], target[~held])
    # An AUC needs both outcomes among the held-out discards; a small sample may lack one.
    auc = None
    if len(set(target[held].tolist())) == 2:
        auc = float(roc_auc_score(target[held], model.predict_proba(design[held])[:, 1]))
    model.fit(design, target)
    grid = [(p, q, r) for p in range(4) for q in range(3) for r in range(1, 14)]
    cells = np.array(grid)
    probability = model.predict_proba(_danger_design(cells[:, 0], cells[:, 1], cells[:, 2]))[:, 1]
    counts = pl.DataFrame({"a": picked, "b": passed, "c": rank}).group_by("a", "b", "c").len()
    table = (
        pl.DataFrame({"a": cells[:, 0], "b": cells[:, 1], "c": cells[:, 2],
                      "value": probability.round(5)})
        .join(counts, on=["a", "b", "c"], how="left", maintain_order="left")
        .with_columns(pl.col("len").fill_null(0).alias("n"), extra=pl.lit(None, pl.Float64))
        .drop("len")
    )  # fmt: skip
    fitted = model.predict_proba(design)[:, 1]
    suits = discards["discard_suit"].replace_strict(list("SHDC"), range(4)).to_numpy()
    by_card = (
        pl.DataFrame({"a": suits, "c": rank, "p": fitted, "up": target})
        .group_by("a", "c")
        .agg(pl.col("p").mean().round(5).alias("value"), pl.len().alias("n"),
             pl.col("up").mean().alias("extra"))
        .with_columns(pl.lit(0).alias("b"))
        .sort("a", "c")  # group_by's order is not fixed: the same data, the same file
    )  # fmt: skip
    names = [f"picked={p}" for p in PICKED[1:]] + [f"passed={p}" for p in PASSED[1:]]
    names += [f"rank={r}" for r in range(2, 14)]
    info = {
        "discards": discards.height,
        "picked_up": int(target.sum()),
        "held_out_auc": None if auc is None else round(auc, 4),
        "coefficients": {n: round(float(c), 4) for n, c in zip(names, model.coef_[0], strict=True)},
        "intercept": round(float(model.intercept_[0]), 4),
    }
    return _tagged("danger", table), info, _tagged("card", by_card)


# --- the opponent's discards --------------------------------------------------------------

# Each rank's four cards as a mask (ace first).
RANK_MASKS = np.array([SPREAD << rank for rank in range(13)], dtype=np.uint64)


def fit_thrown(features: pl.DataFrame) -> pl.DataFrame:
    """The `thrown` rows (see the module's docstring).

    A player's own stock draws reach each unseen card at the same rate; the opponent's
    discards do not — a player that throws its highest deadwood sends the high cards on."""
    plays = features.filter(pl.col("opponent_unseen").is_not_null())
    unseen = plays["opponent_unseen"].to_numpy().astype(np.uint64)
    bucket = _bucket(plays["turn"].to_numpy())
    rank = plays["discard_rank"].to_numpy() - 1
    suit = plays["discard_suit"].replace_strict(list("SHDC"), range(4)).to_numpy()
    hidden = (unseen >> (13 * suit + rank).astype(np.uint64)) & np.uint64(1) == 1
    counted = np.zeros((13, TURN_BUCKETS))
    thrown = np.zeros((13, TURN_BUCKETS))
    for r in range(13):
        np.add.at(counted[r], bucket, np.bitwise_count(unseen & RANK_MASKS[r]))
    np.add.at(thrown, (rank[hidden], bucket[hidden]), 1)
    rate = np.divide(thrown, counted, out=np.zeros_like(thrown), where=counted > 0)
    rows = [(r + 1, b, 0, round(float(rate[r, b]), 5), int(counted[r, b]), float(thrown[r, b]))
            for r in range(13) for b in range(TURN_BUCKETS)]  # fmt: skip
    return _tagged("thrown", pl.DataFrame(rows, schema=SCHEMA, orient="row"))


# --- knock and value (the value of waiting, above) ---------------------------------------


def fit_knock_value(features: pl.DataFrame) -> pl.DataFrame:
    try:
        fitted = fit_value(features)
    except ValueError as error:
        raise FitError(str(error)) from None
    plays = fitted["plays"]
    parts = []
    for name in ("value", "called", "hazard"):
        grid = np.atleast_2d(fitted[name])
        rows = [(d, t, 0, float(value), int(plays[t]), None)
                for d, row in enumerate(grid) for t, value in enumerate(row)]  # fmt: skip
        parts.append(pl.DataFrame(rows, schema=SCHEMA, orient="row"))
    knock, margin = fitted["knock"], fitted["margin"]
    rows = [
        (d, t, mine * SCORE_BUCKETS + theirs, float(knock[mine, theirs, d, t]), int(plays[t]),
         float(margin[mine, theirs, d, t]))
        for mine, theirs, d, t in np.ndindex(knock.shape)
    ]  # fmt: skip
    parts.append(pl.DataFrame(rows, schema=SCHEMA, orient="row"))
    names = ("value", "called", "hazard", "knock")
    return pl.concat(
        _tagged(name, part.with_columns(pl.col("value").round(4)))
        for name, part in zip(names, parts, strict=True)
    )


def _tagged(name: str, table: pl.DataFrame) -> pl.DataFrame:
    typed = {**COLUMNS, "extra": pl.Float64}
    return table.select(pl.lit(name).alias("table"), *(pl.col(c).cast(typed[c]) for c in SCHEMA))


class Logged(NamedTuple):
    """What a fit reads (`pipeline.stats.ginrummy.fit_inputs`): the per-turn features of
    the chosen logs, their data fingerprint, how many logs, and the source they were
    chosen from (all, simulated or server)."""

    features: pl.DataFrame
    fingerprint: str
    logs: int
    source: str = "all"
    against: str = "all"


def fit(inputs: Logged) -> Fitted:
    """The tables and their metadata (for `write_table`)."""
    features = inputs.features
    if features.height == 0:
        if inputs.source != "all":  # the warehouse may hold logs of the other source
            raise FitError(f"no {inputs.source} Gin Rummy logs among those chosen "
                           "(--source all fits from every log)")  # fmt: skip
        raise FitError("no Gin Rummy turns in the warehouse (run `mine ingest` first)")
    danger, danger_info, cards = fit_danger(features)
    priors = fit_priors(features, inputs.against)
    frame = pl.concat([danger, cards, fit_thrown(features), fit_knock_value(features), priors])
    rounds = features.select("log_id", "round").unique().height
    metadata = {
        "game": GAME,
        "kind": KIND,
        "fingerprint": inputs.fingerprint,
        "rows": features.height,
        "games": inputs.logs,
        "rounds": rounds,
        "method": "logistic regression (danger)"
        " + dynamic programming over logged plays (knock, value)",
        "settings": {
            "turn_bucket": TURN_BUCKET,
            "turn_buckets": TURN_BUCKETS,
            "score_bucket": SCORE_STEP,
            "score_buckets": SCORE_BUCKETS,
            "deadwood_cap": DEADWOOD_CAP,
            "source": inputs.source,
            "against": inputs.against,
            "prior_weight": PRIOR_WEIGHT,
        },
        "danger": danger_info,
        "sources": sorted(features["source"].unique().to_list()),
    }
    return Fitted(frame, metadata)


# --- the opponents' priors --------------------------------------------------------------


def fit_priors(features: pl.DataFrame, against: str = "all") -> pl.DataFrame:
    """The `prior` and `held` rows (see the module's docstring) of the side `against`.

    `held` follows a hand that never calls: its deadwood after its first play as logged,
    then play by play through the logged transitions (`Odds.move`, pooled over both sides:
    how fast a hand's deadwood falls). The logged hands themselves would not do: a knocker
    leaves the round as soon as it holds a low one, so low hands are rare among them."""
    if against not in AGAINST:
        raise FitError(f"--against must be all, me or opponent, not {against!r}")
    plays = features if against == "all" else features.filter(pl.col("player") == against)
    if plays.height == 0:
        raise FitError(f"no turns of {against!r} in the logs chosen")
    allowed = plays.filter(
        pl.col("may_call") & pl.col("deadwood_after").is_between(1, KNOCK_LIMIT)
        & (pl.col("call") != "Drop")
    )  # fmt: skip
    knocks = int(allowed["call"].is_in(["Knock", "Gin"]).sum())
    rate = knocks / allowed.height if allowed.height else 0.5
    rows = [(0, 0, 0, round(rate, 5), allowed.height, float(knocks))]
    try:
        move = odds(features).move
    except ValueError as error:
        raise FitError(str(error)) from None
    first = np.minimum(plays.filter(pl.col("turn") <= 2)["deadwood_after"].to_numpy(),
                       DEADWOOD_CAP)  # fmt: skip
    if first.size == 0:
        raise FitError(f"no first plays of {against!r} in the logs chosen")
    hand = np.bincount(first, minlength=DEADWOOD_CAP + 1) / first.size
    held, counted = np.zeros((TURN_BUCKETS, KNOCK_LIMIT + 1)), np.zeros(TURN_BUCKETS)
    for turn in range(1, TURN_CAP + 1, 2):  # a hand's plays: every other turn
        b = int(_bucket(np.array(turn)))
        held[b] += np.cumsum(hand)[: KNOCK_LIMIT + 1]
        counted[b] += 1
        hand = hand @ move[b]
    held /= counted[:, None]
    rows += [(d, b, 1, round(float(held[b, d]), 5), int(counted[b]), None)
             for b in range(TURN_BUCKETS) for d in range(KNOCK_LIMIT + 1)]  # fmt: skip
    frame = pl.DataFrame(rows, schema=SCHEMA, orient="row")
    held = frame.filter(pl.col("c") == 1).with_columns(c=pl.lit(0))
    return pl.concat([_tagged("prior", frame.filter(pl.col("c") == 0)), _tagged("held", held)])


# --- the tables as nested tuples (what the generated player embeds) -----------------------


def nested(fitted_frame: pl.DataFrame) -> dict[str, tuple]:
    """`danger[p][q][rank-1]`, `knock[my score // 10][theirs // 10][dw][turn bucket]`,
    `value[dw][turn bucket]` and `called[dw][turn bucket]` (dw up to the cap),
    `hazard[turn bucket]`, `thrown[turn bucket][rank - 1]` and `held[turn bucket][dw]`
    (turn first: the player reads one bucket's row at a time), and `knock_prior`, the
    prior's rate as (knocks, declines) pseudo-counts worth at most PRIOR_WEIGHT rounds."""

    # Every table's cells read in one pass: the knock table is read for each of its
    # score pairs (a hundred), and reading its rows each time was most of `generate`.
    cells: defaultdict[str, dict[tuple[int, int, int], float]] = defaultdict(dict)
    for name, a, b, c, v in fitted_frame.select("table", "a", "b", "c", "value").iter_rows():
        cells[name][(a, b, c)] = v

    def grid(name: str, rows: int, cast=float, c: int = 0) -> tuple:
        found = cells[name]
        return tuple(
            tuple(cast(found[(d, t, c)]) for t in range(TURN_BUCKETS)) for d in range(rows)
        )

    def knock(mine: int, theirs: int) -> tuple:
        return grid("knock", KNOCK_LIMIT + 1, int, mine * SCORE_BUCKETS + theirs)

    danger, thrown, held = cells["danger"], cells["thrown"], cells["held"]
    prior = fitted_frame.filter(pl.col("table") == "prior")
    try:
        rate, seen = (prior["value"][0], prior["n"][0]) if prior.height else (None, None)
        if rate is None:
            raise KeyError("prior")
        weight = max(1, min(int(seen), PRIOR_WEIGHT))  # the prior counts at least once
        return {
            "knock_prior": (round(rate * weight, 5), round((1 - rate) * weight, 5)),
            "held": tuple(
                tuple(float(held[(d, t, 0)]) for d in range(KNOCK_LIMIT + 1))
                for t in range(TURN_BUCKETS)
            ),
            "danger": tuple(
                tuple(tuple(float(danger[(p, q, r)]) for r in range(1, 14)) for q in range(3))
                for p in range(4)
            ),
            "knock": tuple(
                tuple(knock(mine, theirs) for theirs in range(SCORE_BUCKETS))
                for mine in range(SCORE_BUCKETS)
            ),
            "value": grid("value", DEADWOOD_CAP + 1),
            "called": grid("called", DEADWOOD_CAP + 1),
            "hazard": grid("hazard", 1)[0],
            "thrown": tuple(
                tuple(float(thrown[(r, t, 0)]) for r in range(1, 14)) for t in range(TURN_BUCKETS)
            ),
        }
    except KeyError as missing:
        raise FitError(f"the table lacks the cell {missing}") from None


# --- the table file ------------------------------------------------------------------------


def write_table(path: str | Path, fitted: Fitted) -> Path:
    """The tables and their metadata in the shared format (`models.tables`)."""
    return tables.write(path, fitted.frame, fitted.metadata)


COLUMNS = {"table": pl.String, "a": pl.Int32, "b": pl.Int32, "c": pl.Int32,
           "value": pl.Float64, "n": pl.Int64}  # fmt: skip
POINTS = GIN_BONUS + MOST  # the most a round pays: no value of a deadwood is worth more
_TURNS = (0, TURN_BUCKETS - 1)
# Each table's cells (inclusive ranges of a, b, c) and the range of its values.
CELLS = {
    "danger": ((0, len(PICKED) - 1), (0, len(PASSED) - 1), (1, 13), (0.0, 1.0)),
    "card": ((0, 3), (0, 0), (1, 13), (0.0, 1.0)),
    "thrown": ((1, 13), _TURNS, (0, 0), (0.0, 1.0)),
    "value": ((0, DEADWOOD_CAP), _TURNS, (0, 0), (-POINTS, POINTS)),
    "called": ((0, DEADWOOD_CAP), _TURNS, (0, 0), (-POINTS, POINTS)),
    "hazard": ((0, 0), _TURNS, (0, 0), (0.0, 1.0)),
    "knock": ((0, KNOCK_LIMIT), _TURNS, (0, SCORE_BUCKETS**2 - 1), (0.0, 1.0)),
    "prior": ((0, 0), (0, 0), (0, 0), (0.0, 1.0)),
    "held": ((0, KNOCK_LIMIT), _TURNS, (0, 0), (0.0, 1.0)),
}
METADATA = {"fingerprint": str, "rows": int, "games": int, "rounds": int, "method": str,
            "sources": list}  # fmt: skip
SETTINGS = {"turn_bucket": int, "score_bucket": int}
DANGER = {"discards": int, "picked_up": int, "held_out_auc": tables.Optional(float)}


def read_table(path: str | Path) -> Fitted:
    """The fitted tables of a file, checked: every cell of every table once (the danger of
    the cards never discarded aside), within its ranges, its values finite and within
    theirs (knock 0 or 1), in the buckets this model lays them out in, with the metadata
    the player and the report read; `tables.TableError` (one line) for anything else."""
    read, metadata = tables.read(path, GAME, KIND)
    tables.fields(path, metadata, None, METADATA)
    if not all(isinstance(source, str) for source in metadata["sources"]):
        raise tables.TableError(f"{path}: metadata sources is not a list of names")
    settings = tables.fields(path, metadata, "settings", SETTINGS)
    if (settings["turn_bucket"], settings["score_bucket"]) != (TURN_BUCKET, SCORE_STEP):
        raise tables.TableError(
            f"{path}: tables in buckets of {settings['turn_bucket']} turns and "
            f"{settings['score_bucket']} points, not of {TURN_BUCKET} and {SCORE_STEP}"
        )
    tables.fields(path, metadata, "danger", DANGER)
    if read.height == 0:
        raise tables.TableError(f"{path}: an empty table")
    frame = tables.typed(Path(path), read, COLUMNS).with_columns(_extra(path, read))
    unknown = sorted(set(frame["table"]) - set(CELLS))
    if unknown:
        raise tables.TableError(f"{path}: no table is called {unknown[0]!r}")
    for name in CELLS:
        _check_cells(path, name, frame.filter(pl.col("table") == name))
    return Fitted(frame, metadata)


def _extra(path: str | Path, frame: pl.DataFrame) -> pl.Series:
    """The `extra` column (a margin, a rate or a count; missing where a table has none),
    checked to be a finite number where present."""
    if "extra" not in frame.columns:
        raise tables.TableError(f"{path}: the table lacks the column 'extra'")
    extra = frame["extra"]
    if not extra.dtype.is_numeric():
        raise tables.TableError(f"{path}: column 'extra' holds {extra.dtype}, not numbers")
    extra = extra.cast(pl.Float64)
    if not extra.drop_nulls().is_finite().all():
        raise tables.TableError(f"{path}: column 'extra' holds a value that is not finite")
    return extra


def _check_cells(path: str | Path, name: str, part: pl.DataFrame) -> None:
    """One table's rows: its cells within range, each once and every one there (a card
    never discarded has no danger row), its values within theirs."""
    *cells, (low, high) = CELLS[name]
    size = 1
    for column, (first, last) in zip("abc", cells, strict=True):
        if not part[column].is_between(first, last).all():
            outside = f"the {name} table's {column} is outside {first}..{last}"
            raise tables.TableError(f"{path}: {outside}")
        size *= last - first + 1
    if part.select("a", "b", "c").is_duplicated().any():
        raise tables.TableError(f"{path}: the {name} table holds a cell twice")
    if part.height < size and name != "card":
        raise tables.TableError(f"{path}: the {name} table has {part.height} of its {size} cells")
    if not part["value"].is_between(low, high).all():
        raise tables.TableError(f"{path}: the {name} table holds a value outside {low}..{high}")
    if name == "knock" and not part["value"].is_in([0.0, 1.0]).all():
        raise tables.TableError(f"{path}: the knock table holds a value that is not 0 or 1")
    if (part["n"] < 0).any():
        raise tables.TableError(f"{path}: the {name} table holds a negative count")

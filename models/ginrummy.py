"""Gin Rummy tables fitted from logs: discard danger, the opponent's discards, knock policy
and the value of a deadwood.

Input is the per-turn frame of `pipeline.ginrummy_stats.turn_features` (both players'
turns: the logs show both hands). The tables are stored as one long frame (column `table`
says which) in the shared table format (`models.tables`):

- `danger[picked][passed][rank]`: the probability that the opponent picks up a discard,
  from a logistic regression (scikit-learn) on the discard's relation to the opponent's
  earlier pickups (`none/near/adjacent/same rank`) and passes (`none/adjacent/same rank`)
  and its rank; `card` rows hold its mean over the logged discards of each card (the
  4 × 13 grid of the report).
- `thrown[rank][turn bucket]`: the chance that a card of that rank, unseen by a player, is
  its opponent's next discard (a counted rate: `n` unseen cards, `extra` of them thrown).
- `knock[deadwood][turn bucket]` per score bucket (`c` = my score // 10 × 10 + theirs // 10;
  1 to knock, 0 to wait; `extra` holds the knock-minus-wait margin in game-win chance),
  `value[deadwood][turn bucket]` (what holding that deadwood after a play is worth, in
  round points), `called[deadwood][turn bucket]` (what the opponent's call on its next
  play is worth to that deadwood, on average) and `hazard[turn bucket]` (the chance that
  call comes): the value of waiting, by dynamic programming over the logged plays
  (`models.ginrummy_value`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from models.ginrummy_value import (
    DEADWOOD_CAP,
    KNOCK_LIMIT,
    SCORE_BUCKETS,
    SCORE_STEP,
    TURN_BUCKET,
    TURN_BUCKETS,
    fit_value,
)
from pipeline.ginrummy_stats import PASSED, PICKED
from strategies.melds import SPREAD

KIND = "player-tables"
GAME = "ginrummy"

SCHEMA = {"a": pl.Int64, "b": pl.Int64, "c": pl.Int64, "value": pl.Float64, "n": pl.Int64,
          "extra": pl.Float64}  # fmt: skip


class FitError(ValueError):
    """The logs cannot support the tables (too few turns, no discards picked up, …)."""


@dataclass(frozen=True)
class Fitted:
    frame: pl.DataFrame  # columns: table, a, b, c, value, n, extra
    metadata: dict[str, Any]

    def part(self, name: str) -> pl.DataFrame:
        return self.frame.filter(pl.col("table") == name)


# --- danger ----------------------------------------------------------------------------


def _danger_design(picked: np.ndarray, passed: np.ndarray, rank: np.ndarray) -> np.ndarray:
    columns = [picked == k for k in range(1, len(PICKED))]
    columns += [passed == k for k in range(1, len(PASSED))]
    columns += [rank == r for r in range(2, 14)]
    return np.column_stack(columns).astype(float)


def fit_danger(features: pl.DataFrame) -> tuple[pl.DataFrame, dict[str, Any]]:
    discards = features.filter(pl.col("picked_up").is_not_null())
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
    auc = float(roc_auc_score(target[held], model.predict_proba(design[held])[:, 1]))
    model.fit(design, target)
    grid = [(p, q, r) for p in range(4) for q in range(3) for r in range(1, 14)]
    cells = np.array(grid)
    probability = model.predict_proba(_danger_design(cells[:, 0], cells[:, 1], cells[:, 2]))[:, 1]
    counts = pl.DataFrame({"a": picked, "b": passed, "c": rank}).group_by("a", "b", "c").len()
    table = (
        pl.DataFrame(
            {
                "a": cells[:, 0],
                "b": cells[:, 1],
                "c": cells[:, 2],
                "value": probability.round(5),
            }
        )
        .join(counts, on=["a", "b", "c"], how="left")
        .with_columns(
            pl.col("len").fill_null(0).alias("n"), pl.lit(None, pl.Float64).alias("extra")
        )
        .drop("len")
    )
    fitted = model.predict_proba(design)[:, 1]
    suits = discards["discard_suit"].replace_strict(list("SHDC"), range(4)).to_numpy()
    by_card = (
        pl.DataFrame({"a": suits, "c": rank, "p": fitted, "up": target})
        .group_by("a", "c")
        .agg(pl.col("p").mean().round(5).alias("value"), pl.len().alias("n"),
             pl.col("up").mean().alias("extra"))
        .with_columns(pl.lit(0).alias("b"))
    )  # fmt: skip
    info = {
        "discards": discards.height,
        "picked_up": int(target.sum()),
        "held_out_auc": round(auc, 4),
        "coefficients": dict(
            zip(
                [f"picked={p}" for p in PICKED[1:]]
                + [f"passed={p}" for p in PASSED[1:]]
                + [f"rank={r}" for r in range(2, 14)],
                (round(float(c), 4) for c in model.coef_[0]),
                strict=True,
            )
        ),
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
    bucket = np.clip((plays["turn"].to_numpy() - 1) // TURN_BUCKET, 0, TURN_BUCKETS - 1)
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


# --- knock and value (the value of waiting, `models.ginrummy_value`) -----------------------


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
    return table.select(
        pl.lit(name).alias("table"),
        pl.col("a").cast(pl.Int32),
        pl.col("b").cast(pl.Int32),
        pl.col("c").cast(pl.Int32),
        pl.col("value").cast(pl.Float64),
        pl.col("n").cast(pl.Int64),
        pl.col("extra").cast(pl.Float64),
    )


def fit(features: pl.DataFrame, fingerprint: str, logs: int) -> Fitted:
    """The three tables and their metadata (for `models.tables.write`)."""
    if features.height == 0:
        raise FitError("no Gin Rummy turns in the warehouse (run `mine ingest` first)")
    danger, danger_info, cards = fit_danger(features)
    frame = pl.concat([danger, cards, fit_thrown(features), fit_knock_value(features)])
    rounds = features.select("log_id", "round").unique().height
    metadata = {
        "game": GAME,
        "kind": KIND,
        "fingerprint": fingerprint,
        "rows": features.height,
        "games": logs,
        "rounds": rounds,
        "method": "logistic regression (danger)"
        " + dynamic programming over logged plays (knock, value)",
        "settings": {
            "turn_bucket": TURN_BUCKET,
            "turn_buckets": TURN_BUCKETS,
            "score_bucket": SCORE_STEP,
            "score_buckets": SCORE_BUCKETS,
            "deadwood_cap": DEADWOOD_CAP,
        },
        "danger": danger_info,
        "sources": sorted(features["source"].unique().to_list()),
    }
    return Fitted(frame, metadata)


# --- the tables as nested tuples (what the generated player embeds) -----------------------


def nested(fitted_frame: pl.DataFrame) -> dict[str, tuple]:
    """`danger[p][q][rank-1]`, `knock[my score // 10][theirs // 10][dw][turn bucket]`,
    `value[dw][turn bucket]` and `called[dw][turn bucket]` (dw up to the cap),
    `hazard[turn bucket]`, and `thrown[turn bucket][rank - 1]` (turn first: the player
    reads one bucket's row at a time)."""

    def cells(name: str) -> dict[tuple[int, int, int], float]:
        part = fitted_frame.filter(pl.col("table") == name)
        return {(a, b, c): v for a, b, c, v in part.select("a", "b", "c", "value").iter_rows()}

    def grid(name: str, rows: int, cast=float, c: int = 0) -> tuple:
        found = cells(name)
        return tuple(
            tuple(cast(found[(d, t, c)]) for t in range(TURN_BUCKETS)) for d in range(rows)
        )

    def knock(mine: int, theirs: int) -> tuple:
        return grid("knock", KNOCK_LIMIT + 1, int, mine * SCORE_BUCKETS + theirs)

    danger, thrown = cells("danger"), cells("thrown")
    try:
        return {
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

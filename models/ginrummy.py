"""Gin Rummy tables fitted from logs: discard danger, draw policy, knock policy.

Input is the per-turn frame of `pipeline.ginrummy_stats.turn_features` (both players'
turns: the logs show both hands). Three tables come out, stored as one long frame (column
`table` says which) in the shared table format (`models.tables`):

- `danger[picked][passed][rank]`: the probability that the opponent picks up a discard,
  from a logistic regression (scikit-learn) on the discard's relation to the opponent's
  earlier pickups (`none/near/adjacent/same rank`) and passes (`none/adjacent/same rank`)
  and its rank; `card` rows hold its mean over the logged discards of each card (the
  4 × 13 grid of the report).
- `draw[deadwood bucket][turn bucket]`: the mean deadwood gain of a stock draw (deadwood
  before the draw minus after the discard) in that situation; a player takes the discard
  when the sure gain of taking it beats what the stock is expected to bring.
- `knock[deadwood][turn bucket][late]`: 1 to knock, 0 to wait, from the mean round points
  of logged knocks against the mean round points of the same situations played on
  (a player that could have knocked and did not); `late` is 1 when either side has 70+
  points. Thin cells fall back to the deadwood/turn margin, then to knocking.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from pipeline.ginrummy_stats import PASSED, PICKED

KIND = "player-tables"
GAME = "ginrummy"
DEADWOOD_BUCKET = 10  # draw table: deadwood before the draw, in steps of 10 (last: 60+)
DEADWOOD_BUCKETS = 7
TURN_BUCKET = 4  # turns (both players' plays) per bucket
TURN_BUCKETS = 8  # the last bucket holds every later turn
LATE_SCORE = 70
MIN_CELL = 30  # observations a knock cell needs to decide on its own
KNOCK_LIMIT = 10


class FitError(ValueError):
    """The logs cannot support the tables (too few turns, no discards picked up, …)."""


@dataclass(frozen=True)
class Fitted:
    frame: pl.DataFrame  # columns: table, a, b, c, value, n, extra
    metadata: dict[str, Any]

    def part(self, name: str) -> pl.DataFrame:
        return self.frame.filter(pl.col("table") == name)


def _buckets(features: pl.DataFrame) -> pl.DataFrame:
    return features.with_columns(
        (pl.col("turn") - 1).floordiv(TURN_BUCKET).clip(0, TURN_BUCKETS - 1).alias("turn_b"),
        pl.col("deadwood_before").floordiv(DEADWOOD_BUCKET).clip(0, DEADWOOD_BUCKETS - 1)
        .alias("dw_b"),
        (pl.max_horizontal("score", "opponent_score") >= LATE_SCORE).cast(pl.Int32)
        .alias("late"),
    )  # fmt: skip


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


# --- draw --------------------------------------------------------------------------------


def fit_draw(features: pl.DataFrame) -> pl.DataFrame:
    stock = _buckets(features).filter(~pl.col("took_discard"))
    gain = (pl.col("deadwood_before") - pl.col("deadwood_after")).cast(pl.Float64)
    cells = stock.group_by("dw_b", "turn_b").agg(gain.mean().alias("value"), pl.len().alias("n"))
    by_dw = stock.group_by("dw_b").agg(gain.mean().alias("dw_value"))
    overall = float(stock.select(gain.mean()).item() or 0.0)
    grid = pl.DataFrame(
        [(d, t) for d in range(DEADWOOD_BUCKETS) for t in range(TURN_BUCKETS)],
        schema={"dw_b": pl.Int64, "turn_b": pl.Int64},
        orient="row",
    )
    table = (
        grid.join(cells.cast({"dw_b": pl.Int64, "turn_b": pl.Int64}), on=["dw_b", "turn_b"],
                  how="left")
        .join(by_dw.cast({"dw_b": pl.Int64}), on="dw_b", how="left")
        .with_columns(
            pl.when(pl.col("n").fill_null(0) >= MIN_CELL).then(pl.col("value"))
            .otherwise(pl.col("dw_value").fill_null(overall)).round(4).alias("value"),
            pl.col("n").fill_null(0),
        )
        .select(pl.col("dw_b").alias("a"), pl.col("turn_b").alias("b"), pl.lit(0).alias("c"),
                "value", "n", pl.lit(None, pl.Float64).alias("extra"))
    )  # fmt: skip
    return _tagged("draw", table)


# --- knock -------------------------------------------------------------------------------


def fit_knock(features: pl.DataFrame) -> pl.DataFrame:
    chances = _buckets(features).filter(
        pl.col("may_call") & pl.col("deadwood_after").is_between(1, KNOCK_LIMIT)
    )
    points = (pl.col("round_points") - pl.col("round_opponent_points")).cast(pl.Float64)
    knocked = pl.col("call") == "Knock"
    keys = ["deadwood_after", "turn_b", "late"]

    def summarise(by: list[str]) -> pl.DataFrame:
        return chances.group_by(by).agg(
            points.filter(knocked).mean().alias("knock"),
            knocked.sum().alias("knocks"),
            points.filter(~knocked).mean().alias("wait"),
            (~knocked).sum().alias("waits"),
        )

    fine, middle, coarse = summarise(keys), summarise(keys[:2]), summarise(keys[:1])
    rows = []
    lookup = {
        name: {tuple(r[:len(by)]): r[len(by):] for r in table.select(*by, "knock", "knocks",
               "wait", "waits").iter_rows()}
        for name, by, table in (("fine", keys, fine), ("middle", keys[:2], middle),
                                ("coarse", keys[:1], coarse))
    }  # fmt: skip
    for deadwood in range(KNOCK_LIMIT + 1):
        for turn in range(TURN_BUCKETS):
            for late in (0, 1):
                decision, margin, n = 1, None, 0
                for name, key in (
                    ("fine", (deadwood, turn, late)),
                    ("middle", (deadwood, turn)),
                    ("coarse", (deadwood,)),
                ):
                    found = lookup[name].get(key)
                    if found and min(found[1], found[3]) >= MIN_CELL:
                        knock, knocks, wait, waits = found
                        margin, n = knock - wait, knocks + waits
                        decision = int(knock >= wait)
                        break
                rows.append((deadwood, turn, late, float(decision), n, margin))
    table = pl.DataFrame(
        rows,
        schema={"a": pl.Int64, "b": pl.Int64, "c": pl.Int64, "value": pl.Float64,
                "n": pl.UInt32, "extra": pl.Float64},
        orient="row",
    )  # fmt: skip
    return _tagged("knock", table)


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
    frame = pl.concat([danger, cards, fit_draw(features), fit_knock(features)])
    rounds = features.select("log_id", "round").unique().height
    metadata = {
        "game": GAME,
        "kind": KIND,
        "fingerprint": fingerprint,
        "rows": features.height,
        "games": logs,
        "rounds": rounds,
        "method": "logistic regression (danger) + situation means (draw, knock)",
        "settings": {
            "turn_bucket": TURN_BUCKET,
            "turn_buckets": TURN_BUCKETS,
            "deadwood_bucket": DEADWOOD_BUCKET,
            "deadwood_buckets": DEADWOOD_BUCKETS,
            "late_score": LATE_SCORE,
            "min_cell": MIN_CELL,
        },
        "danger": danger_info,
        "sources": sorted(features["source"].unique().to_list()),
    }
    return Fitted(frame, metadata)


# --- the tables as nested tuples (what the generated player embeds) -----------------------


def nested(fitted_frame: pl.DataFrame) -> dict[str, tuple]:
    """`danger[p][q][rank-1]`, `draw[dw bucket][turn bucket]`, `knock[dw][turn][late]`."""

    def cells(name: str) -> dict[tuple[int, int, int], float]:
        part = fitted_frame.filter(pl.col("table") == name)
        return {(a, b, c): v for a, b, c, v in part.select("a", "b", "c", "value").iter_rows()}

    danger, draw, knock = cells("danger"), cells("draw"), cells("knock")
    try:
        return {
            "danger": tuple(
                tuple(tuple(float(danger[(p, q, r)]) for r in range(1, 14)) for q in range(3))
                for p in range(4)
            ),
            "draw": tuple(
                tuple(float(draw[(d, t, 0)]) for t in range(TURN_BUCKETS))
                for d in range(DEADWOOD_BUCKETS)
            ),
            "knock": tuple(
                tuple(
                    tuple(int(knock[(d, t, late)]) for late in (0, 1)) for t in range(TURN_BUCKETS)
                )
                for d in range(KNOCK_LIMIT + 1)
            ),  # fmt: skip
        }
    except KeyError as missing:
        raise FitError(f"the table lacks the cell {missing}") from None

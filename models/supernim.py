"""Super-Nim's heuristic, learned from the logs: statistics → a table of position values.

A position's worth to the mover is the margin it will still gain (final margin − margin
now, from the logs). Two sources, one table file:

- `cell` rows: a scikit-learn gradient-boosted regression on position features (2-heaps,
  4-heaps, 1-heaps, odd heaps, heaps, moves left before the cut-off), evaluated on every
  feature cell the logs reached: what the generated player looks up at a search leaf;
- `board` rows: the mean future margin of each canonical board the logs cover well (at
  least `MIN_POSITIONS` times, far from the cut-off), shrunk towards the model's value.

The yardstick: positions close to the cut-off have a small reachable tree, so their exact
value (`strategies/solvers/supernim.py`) is computed and compared with the fitted one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import polars as pl
from sklearn.ensemble import HistGradientBoostingRegressor
from threadpoolctl import threadpool_limits

from mine.models import tables
from mine.strategies.engines.supernim import DEFAULT_RULES, SuperNimRules
from mine.strategies.players import supernim as player
from mine.strategies.players.supernim import FEATURES, cell
from mine.strategies.solvers.supernim import ExactSolver

GAME = "supernim"
KIND = "heuristic"
CAPS = dict(zip(FEATURES, player.CAPS, strict=True))
"""Feature values above these are counted as these (`left` ≥ 12: far from the cut-off):
the player's own features (`cell`), which the table is keyed by."""
MIN_POSITIONS = 40  # a board's own mean is kept only if the logs saw it this often
SHRINK = 20  # … and is pulled towards the model's value as if it had this many more
HORIZON = 8  # moves (even: the same mover) over which a position's gain is counted
YARDSTICK_LEFT = 6  # positions this close to the cut-off are solved exactly
YARDSTICK_SAMPLE = 300


class FitError(ValueError):
    """Logs that cannot give a heuristic (too few positions)."""


def feature_columns(board: str, move: str) -> list[pl.Expr]:
    """The features of a canonical board column, and the moves left before the default
    cut-off at move number `move` (the same as `cell` computes in the player)."""
    heaps = pl.col(board)
    left = DEFAULT_RULES.max_moves - pl.col(move) + 1
    return [
        heaps.list.len().alias("heaps"),
        heaps.list.sum().alias("sticks"),
        heaps.list.eval(pl.element() == 2).list.sum().alias("twos"),
        heaps.list.eval(pl.element() == 4).list.sum().alias("fours"),
        heaps.list.eval(pl.element() == 1).list.sum().alias("ones"),
        heaps.list.eval(pl.element() % 2 == 1).list.sum().alias("odds"),
        left.alias("left"),
    ]


def with_horizon_margin(positions: pl.DataFrame) -> pl.DataFrame:
    """`horizon_margin`: what the mover gains over the next `HORIZON` moves (or until the
    game stops): the final margin carries the noise of a whole game between players of
    any strength; the next few moves carry the position's tactics."""
    ordered = positions.sort("log_id", "game", "move")
    later = pl.col("margin_before").shift(-HORIZON).over("log_id", "game")
    return ordered.with_columns(
        (pl.coalesce(later, pl.col("final_margin")) - pl.col("margin_before")).alias(
            "horizon_margin"
        )
    )


def _capped(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.select(pl.col(name).clip(upper_bound=cap) for name, cap in CAPS.items())


@dataclass(frozen=True)
class Fitted:
    cells: dict[tuple[int, ...], float]  # feature cell → the model's future margin
    boards: dict[tuple[int, ...], float]  # canonical board → its shrunk mean future margin
    metadata: dict[str, Any]

    def value(self, board: tuple[int, ...], left: int) -> float:
        """The mover's fitted future margin (what the generated player's leaves use)."""
        return player.leaf_value(board, left, self.cells, self.boards)


class Logged(NamedTuple):
    """What a fit reads: the logged positions (`stats.positions`), and where they came from."""

    positions: pl.DataFrame
    fingerprint: str
    logs: int
    games: int


def fit(inputs: Logged) -> Fitted:
    """Fit the model and the board table from the logged positions."""
    positions = inputs.positions
    metadata = {"fingerprint": inputs.fingerprint, "logs": inputs.logs, "games": inputs.games,
                "rows": positions.height}  # fmt: skip
    if positions.height < 100:
        raise FitError(f"{positions.height} positions are too few to fit from (at least 100)")
    positions = with_horizon_margin(positions)
    x = _capped(positions).to_numpy()
    y = positions["horizon_margin"].to_numpy().astype(float)
    held_out = np.arange(len(y)) % 5 == 0  # deterministic: every fifth position
    regression = HistGradientBoostingRegressor(max_iter=200, learning_rate=0.1, random_state=0)
    # One thread: on a shared machine OpenMP's threads wait for each other (35 s, not 2 s).
    with threadpool_limits(1):
        regression.fit(x[~held_out], y[~held_out])
        r2 = float(regression.score(x[held_out], y[held_out]))
        regression.fit(x, y)
    seen = np.unique(x, axis=0)
    with threadpool_limits(1):
        predicted = regression.predict(seen)
    cells = {
        tuple(int(v) for v in row): round(float(p), 3)
        for row, p in zip(seen, predicted, strict=True)
    }
    boards = _board_values(positions, cells)
    fitted = Fitted(cells, boards, {})
    yardstick = _yardstick(positions, fitted)
    fitted.metadata.update(
        {
            **metadata,
            "game": GAME,
            "kind": KIND,
            "method": "HistGradientBoostingRegressor on position features + board means",
            "settings": {
                "caps": CAPS,
                "min_positions": MIN_POSITIONS,
                "shrink": SHRINK,
                "max_moves": DEFAULT_RULES.max_moves,
                "merge_cap": DEFAULT_RULES.merge_cap,
                "split_reward": DEFAULT_RULES.split_reward,
            },
            "feature_cells": len(cells),
            "boards": len(boards),
            "r2_holdout": r2,
            "yardstick": yardstick,
        }
    )
    return fitted


def _board_values(
    positions: pl.DataFrame, cells: dict[tuple[int, ...], float]
) -> dict[tuple[int, ...], float]:
    far = positions.filter(pl.col("left") >= CAPS["left"])
    means = (
        far.group_by("canonical_board")
        .agg(pl.len().alias("n"), pl.col("horizon_margin").mean().alias("mean"))
        .filter(pl.col("n") >= MIN_POSITIONS)
        .sort("canonical_board")
    )
    boards = {}
    for board, n, mean in means.iter_rows():
        board = tuple(board)
        prior = cells.get(cell(board, CAPS["left"]), 0.0)
        boards[board] = round((n * mean + SHRINK * prior) / (n + SHRINK), 3)
    return boards


def _yardstick(positions: pl.DataFrame, fitted: Fitted) -> dict[str, Any]:
    """Fitted and plain (0) values against the exact values of positions near the cut-off."""
    near = (
        positions.filter(pl.col("left") <= YARDSTICK_LEFT)
        .unique(["canonical_board", "left"], keep="first", maintain_order=True)
        .head(YARDSTICK_SAMPLE)
    )
    solver = ExactSolver()
    fit_errors, plain_errors = [], []
    for board, left in near.select("canonical_board", "left").iter_rows():
        exact = solver.value(tuple(board), left)
        fit_errors.append(abs(fitted.value(tuple(board), left) - exact))
        plain_errors.append(abs(exact))
    return {
        "boards": len(fit_errors),
        "moves_left_at_most": YARDSTICK_LEFT,
        "mean_abs_error": float(np.mean(fit_errors)) if fit_errors else 0.0,
        "plain_mean_abs_error": float(np.mean(plain_errors)) if plain_errors else 0.0,
    }


def write_table(path: str | Path, fitted: Fitted) -> Path:
    rows = [("cell", ";".join(map(str, key)), value) for key, value in fitted.cells.items()]
    rows += [("board", ";".join(map(str, key)), value) for key, value in fitted.boards.items()]
    frame = pl.DataFrame(rows, schema={"kind": pl.String, "key": pl.String, "value": pl.Float64},
                         orient="row")  # fmt: skip
    return tables.write(path, frame, fitted.metadata)


COLUMNS = {"kind": pl.String, "key": pl.String, "value": pl.Float64}
SETTINGS = {"merge_cap": int, "split_reward": int, "max_moves": int}
NUMBERS = {"logs": int, "games": int, "rows": int, "feature_cells": int, "boards": int,
           "r2_holdout": float}  # fmt: skip
YARDSTICK = {"boards": int, "moves_left_at_most": int, "mean_abs_error": float,
             "plain_mean_abs_error": float}  # fmt: skip
LARGEST = 10_000.0  # no margin of a game within the rules' bounds comes near


def read_table(path: str | Path) -> Fitted:
    """The fitted heuristic of a file, checked: cells keyed by the player's features,
    boards of heaps, finite values of a plausible size, the rules and figures of its
    metadata of their types (the rules within their bounds); `tables.TableError` (one
    line) for anything else."""
    frame, metadata = tables.read(path, GAME, KIND, columns=COLUMNS)
    if frame.is_empty():
        raise tables.TableError(f"{path}: the table holds no value")
    settings = tables.fields(path, metadata, "settings", SETTINGS)
    for name in SETTINGS:
        if not SuperNimRules.within(name, settings[name]):
            low, high = SuperNimRules.BOUNDS[name]
            raise tables.TableError(f"{path}: settings.{name} {settings[name]} is not in "
                                    f"{low:g}..{high:g}")  # fmt: skip
    tables.fields(path, {"figures": metadata}, "figures", NUMBERS)
    tables.fields(path, metadata, "yardstick", YARDSTICK)
    cells, boards = {}, {}
    for kind, key, value in frame.iter_rows():
        if abs(value) > LARGEST:
            raise tables.TableError(f"{path}: the value {value:g} of {key} is not a margin")
        if kind == "cell":
            cells[_key(path, key, len(FEATURES))] = value
        elif kind == "board":
            boards[_key(path, key)] = value
        else:
            raise tables.TableError(f"{path}: a row of kind {kind!r} (cell or board)")
    if not cells:
        raise tables.TableError(f"{path}: the table holds no feature cell")
    return Fitted(cells, boards, metadata)


def _key(path: str | Path, text: str, length: int | None = None) -> tuple[int, ...]:
    """A row's key: `length` feature counts (a cell), or heap sizes (a board)."""
    parts = text.split(";")
    numbers = [int(part) for part in parts if part.isascii() and part.isdigit() and len(part) < 7]
    least = 0 if length else 1  # a feature counts from 0, a heap holds a stick at least
    if len(numbers) != len(parts) or min(numbers) < least or len(numbers) != (length or len(parts)):
        what = f"{length} features" if length else "a board of heaps"
        raise tables.TableError(f"{path}: the key {text[:40]!r} is not {what}")
    return tuple(numbers)

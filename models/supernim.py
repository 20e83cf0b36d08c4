"""Super-Nim's heuristic, learned from the logs: statistics → a table of position values.

A position's worth to the mover is the margin it will still gain before the board empties
or the cut-off comes. The logs give the positions worth knowing (the boards players
reach); the rules give each one's moves. The table holds a value per feature cell (2-heaps
and whether they are odd, 4-heaps, 1-heaps, odd heaps, heaps, moves left: the player's
`cell`; where merges score, `cap_scores`, the largest merge's lost sticks, heaps at the
cap, heaps, odd heaps, sticks, 2-heap parity and moves left), learned by fitted value
iteration over the logged boards under the rules they were played under (`--rules`):
with k moves left a cell is worth the mean over its boards of the best move's points
minus the value of the cell it leaves with k - 1 left (0 at the cut-off); from `LEFT_FAR`
moves left on, the iteration runs on one value per cell until it settles. Nothing here
knows which feature matters: the iteration finds out.

The yardsticks (`strategies/solvers/supernim.py`): on positions held out of the fit, the
fitted value against the exact value far from the cut-off (with and without a 2-heap), and
against the exact cut-off value of positions close to it (the only one where merges
score: that variant's value has no closed form).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import polars as pl

from mine.inputs import quoted
from mine.models import FitError, tables
from mine.strategies.engines.supernim import DEFAULT_RULES, SuperNimRules
from mine.strategies.players import supernim as player
from mine.strategies.players.supernim import FEATURES, LEFT_FAR, canonical_children, cell
from mine.strategies.solvers import supernim as solver

GAME = "supernim"
KIND = "heuristic"
SETTLE_ROUNDS = 60  # value-iteration rounds at most far from the cut-off
HOLD_OUT = 5  # every fifth logged position is held out of the fit
FAR_CHECK = 20  # held-out positions at least this far from the cut-off meet the value …
YARDSTICK_LEFT = 6  # … those this close meet the exact cut-off value
YARDSTICK_SAMPLE = 300


def rules_of(rules: SuperNimRules | Sequence[str] | None) -> SuperNimRules:
    """The rules a fit is made under: given, or `--rules` settings over the defaults."""
    if isinstance(rules, SuperNimRules):
        return rules
    return SuperNimRules.from_settings(rules or [])


def features_of(rules: SuperNimRules) -> dict[str, int]:
    """The player's features (`cell`) a table under `rules` is keyed by, with their caps:
    a value above its cap counts as the cap (`left` ≥ 12: far from the cut-off)."""
    if rules.cap_scores:
        return dict(zip(player.SCORING_FEATURES, player.SCORING_CAPS, strict=True))
    return dict(zip(FEATURES, player.CAPS, strict=True))


def feature_columns(
    board: str, move: str, max_moves: int = DEFAULT_RULES.max_moves
) -> list[pl.Expr]:
    """The features of a canonical board column, and the moves left before the cut-off
    at move number `move` (the same as `cell` computes in the player)."""
    heaps = pl.col(board)
    left = max_moves - pl.col(move) + 1
    twos = heaps.list.eval(pl.element() == 2).list.sum()
    return [
        heaps.list.len().alias("heaps"),
        heaps.list.sum().alias("sticks"),
        twos.alias("twos"),
        (twos % 2).alias("odd_twos"),
        heaps.list.eval(pl.element() == 4).list.sum().alias("fours"),
        heaps.list.eval(pl.element() == 1).list.sum().alias("ones"),
        heaps.list.eval(pl.element() % 2 == 1).list.sum().alias("odds"),
        left.alias("left"),
    ]


@dataclass(frozen=True)
class Fitted:
    cells: dict[tuple[int, ...], float]  # feature cell → the mover's future margin
    metadata: dict[str, Any]

    def value(self, board: tuple[int, ...], left: int) -> float:
        """The mover's fitted future margin (what the generated player's leaves use)."""
        settings = self.metadata["settings"]
        return player.leaf_value(board, left, self.cells, settings["merge_cap"],
                                 settings.get("cap_scores", False))  # fmt: skip


class Logged(NamedTuple):
    """What a fit reads: the logged positions (`stats.positions`), and where they came from."""

    positions: pl.DataFrame
    fingerprint: str
    logs: int
    games: int


def fit(inputs: Logged, rules: SuperNimRules | Sequence[str] | None = None) -> Fitted:
    """Learn the cell values from the logged boards (all but the held-out positions),
    under `rules` (those the logs were played under; `--rules` settings)."""
    rules = rules_of(rules)
    positions = inputs.positions
    if positions.height < 100:
        raise FitError(f"{positions.height} positions are too few to fit from (at least 100)")
    held_out = np.arange(positions.height) % HOLD_OUT == 0  # deterministic
    training = positions.filter(~pl.Series(held_out))
    cells = iterate_values(Boards.of(training, rules), rules.split_reward)
    settings = {
        "caps": features_of(rules),
        "max_moves": rules.max_moves,
        "merge_cap": rules.merge_cap,
        "split_reward": rules.split_reward,
    }
    if rules.cap_scores:  # recorded where set: a default table reads as it always did
        settings["cap_scores"] = True
    fitted = Fitted(cells, {"settings": settings})
    fitted.metadata.update(
        fingerprint=inputs.fingerprint,
        logs=inputs.logs,
        games=inputs.games,
        rows=positions.height,
        game=GAME,
        kind=KIND,
        method="fitted value iteration over the logged boards' feature cells",
        settings=settings,
        feature_cells=len(cells),
        boards=training["canonical_board"].n_unique(),
        holdout=_held_out(positions.filter(pl.Series(held_out)), fitted, rules),
        yardstick=_yardstick(positions.filter(pl.Series(held_out)), fitted, rules),
    )
    return fitted


class Boards(NamedTuple):
    """The distinct logged boards as arrays: each board's cell (without moves left) and
    weight (times logged), and its moves' points and the cells they leave."""

    cells: list[tuple[int, ...]]  # cell index → cell without moves left
    board_cell: np.ndarray
    weight: np.ndarray
    move_start: np.ndarray  # board k's moves are move_start[k]:move_start[k + 1]
    move_points: np.ndarray
    move_cell: np.ndarray  # -1: a board with no sticks (worth 0)

    @classmethod
    def of(cls, positions: pl.DataFrame, rules: SuperNimRules) -> Boards:
        counts = positions.group_by("canonical_board").len().sort("canonical_board")
        index: dict[tuple[int, ...], int] = {}

        def cell_of(board: tuple[int, ...]) -> int:
            key = cell(board, 0, rules.merge_cap, rules.cap_scores)[:-1]
            return index.setdefault(key, len(index))

        board_cell, weight, starts, points, moved = [], [], [0], [], []
        for board, n in counts.iter_rows():
            board = tuple(board)
            board_cell.append(cell_of(board))
            weight.append(n)
            for gained, after, _ in canonical_children(
                board, rules.merge_cap, rules.split_reward, True, rules.cap_scores
            ):
                points.append(gained)
                moved.append(cell_of(after) if after else -1)
            starts.append(len(points))
        return cls(list(index), np.array(board_cell), np.array(weight, dtype=float),
                   np.array(starts), np.array(points, dtype=float), np.array(moved))  # fmt: skip


def iterate_values(boards: Boards, reward: int) -> dict[tuple[int, ...], float]:
    """Cell values for 1 … LEFT_FAR moves left by fitted value iteration (see the module)."""
    count = len(boards.cells)
    seen = np.bincount(boards.board_cell, weights=boards.weight, minlength=count) > 0
    total = np.bincount(boards.board_cell, weights=boards.weight, minlength=count)

    def step(values: np.ndarray) -> np.ndarray:
        # cells no logged board falls in are worth nothing: the iteration cannot learn them
        leave = np.append(np.where(seen, values, 0.0), 0.0)  # index -1: the empty board
        best = np.maximum.reduceat(boards.move_points - leave[boards.move_cell],
                                   boards.move_start[:-1])  # fmt: skip
        summed = np.bincount(boards.board_cell, weights=boards.weight * best, minlength=count)
        return np.divide(summed, total, out=np.zeros(count), where=seen)

    values, table = np.zeros(count), {}
    for left in range(1, LEFT_FAR + SETTLE_ROUNDS + 1):
        settled = values
        values = step(values)
        if left >= LEFT_FAR and np.max(np.abs(values - settled), initial=0.0) < 1e-9:
            break
        if left < LEFT_FAR:
            table.update(_rows(boards.cells, values, seen, left))
    table.update(_rows(boards.cells, values, seen, LEFT_FAR))
    return table


def _rows(cells, values, seen, left) -> dict[tuple[int, ...], float]:
    return {(*key, left): round(float(v), 3) for key, v, s in zip(cells, values, seen, strict=True)
            if s}  # fmt: skip


def _held_out(positions: pl.DataFrame, fitted: Fitted, rules: SuperNimRules) -> dict[str, Any]:
    """Mean |fitted - exact value| on held-out positions far from the cut-off, with and
    without a 2-heap, and the same for the plain heuristic (0); none where the rules have
    no closed form for the value far from the cut-off (the yardstick near it stands)."""
    far = positions.filter(pl.col("left") >= FAR_CHECK)
    if not solver.closed_form(rules):
        far = far.clear()
    errors: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for board, left in far.select("canonical_board", "left").iter_rows():
        board = tuple(board)
        exact = solver.value(board, rules.split_reward)
        errors[2 in board].append((abs(fitted.value(board, left) - exact), abs(exact)))
    figures: dict[str, Any] = {"moves_left_at_least": FAR_CHECK}
    for has_two, name in ((True, "with_two"), (False, "without_two")):
        pairs = np.array(errors[has_two]).reshape(-1, 2)
        figures[f"positions_{name}"] = len(pairs)
        figures[f"mean_abs_error_{name}"] = float(pairs[:, 0].mean()) if len(pairs) else 0.0
        figures[f"plain_mean_abs_error_{name}"] = float(pairs[:, 1].mean()) if len(pairs) else 0.0
    return figures


def _yardstick(positions: pl.DataFrame, fitted: Fitted, rules: SuperNimRules) -> dict[str, Any]:
    """Fitted and plain (0) values against the exact cut-off values of held-out positions
    near the cut-off (nearer than `LEFT_FAR` where merges score: its only yardstick)."""
    horizon = YARDSTICK_LEFT if solver.closed_form(rules) else LEFT_FAR
    near = (
        positions.filter(pl.col("left") <= horizon)
        .unique(["canonical_board", "left"], keep="first", maintain_order=True)
        .head(YARDSTICK_SAMPLE)
    )
    exact_solver = solver.ExactSolver(rules)
    fit_errors, plain_errors = [], []
    for board, left in near.select("canonical_board", "left").iter_rows():
        exact = exact_solver.value(tuple(board), left)
        fit_errors.append(abs(fitted.value(tuple(board), left) - exact))
        plain_errors.append(abs(exact))
    return {
        "boards": len(fit_errors),
        "moves_left_at_most": horizon,
        "mean_abs_error": float(np.mean(fit_errors)) if fit_errors else 0.0,
        "plain_mean_abs_error": float(np.mean(plain_errors)) if plain_errors else 0.0,
    }


def write_table(path: str | Path, fitted: Fitted) -> Path:
    rows = [("cell", ";".join(map(str, key)), value) for key, value in fitted.cells.items()]
    return tables.write(path, pl.DataFrame(rows, schema=COLUMNS, orient="row"), fitted.metadata)


COLUMNS = {"kind": pl.String, "key": pl.String, "value": pl.Float64}
SETTINGS = {"merge_cap": int, "split_reward": int, "max_moves": int}
FLAGS = {"cap_scores": tables.Optional(bool)}  # absent: off
NUMBERS = {"logs": int, "games": int, "rows": int, "feature_cells": int, "boards": int}
FIGURES = (("positions", int), ("mean_abs_error", float), ("plain_mean_abs_error", float))
HOLDOUT = {"moves_left_at_least": int} | {
    f"{figure}_{side}": kind for figure, kind in FIGURES for side in ("with_two", "without_two")
}
YARDSTICK = {"boards": int, "moves_left_at_most": int, "mean_abs_error": float,
             "plain_mean_abs_error": float}  # fmt: skip
LARGEST = 10_000.0  # no margin of a game within the rules' bounds comes near


def read_table(path: str | Path) -> Fitted:
    """The fitted heuristic of a file, checked: cells keyed by the player's features
    (each within its cap, each cell once), finite values of a plausible size, the rules
    and figures of its metadata of their types (the rules within their bounds);
    `tables.TableError` (one line) for anything else."""
    frame, metadata = tables.read(path, GAME, KIND, columns=COLUMNS)
    if frame.is_empty():
        raise tables.TableError(f"{path}: the table holds no value")
    settings = tables.fields(path, metadata, "settings", {**SETTINGS, **FLAGS})
    for name in SETTINGS:
        if not SuperNimRules.within(name, settings[name]):
            low, high = SuperNimRules.BOUNDS[name]
            raise tables.TableError(f"{path}: settings.{name} {settings[name]} is not in "
                                    f"{low:g}..{high:g}")  # fmt: skip
    scoring = SuperNimRules(cap_scores=bool(settings.get("cap_scores")))
    features = features_of(scoring)
    if settings.get("caps") != features:  # the keys' features, which the page names
        raise tables.TableError(f"{path}: settings.caps is not the player's features {features}")
    caps = tuple(features.values())
    tables.fields(path, {"figures": metadata}, "figures", NUMBERS)
    tables.fields(path, metadata, "yardstick", YARDSTICK)
    tables.fields(path, metadata, "holdout", HOLDOUT)
    cells = {}
    for kind, key, value in frame.iter_rows():
        if abs(value) > LARGEST:
            raise tables.TableError(f"{path}: the value {value:g} of {key} is not a margin")
        if kind != "cell":
            raise tables.TableError(f"{path}: a row of kind {quoted(kind)} (cell)")
        cell = _key(path, key, caps)
        if cell in cells:  # fit writes each once: neither of two values is the table's
            raise tables.TableError(f"{path}: a second row of the key {quoted(key)}")
        cells[cell] = value
    if len(cells) != metadata["feature_cells"]:  # a row left out (or added) of the file
        raise tables.TableError(f"{path}: {len(cells)} cells, its metadata says "
                                f"{metadata['feature_cells']}")  # fmt: skip
    return Fitted(cells, metadata)


def _key(path: str | Path, text: str, caps: tuple[int, ...]) -> tuple[int, ...]:
    """A row's key: the player's feature counts, each within its cap."""
    parts = text.split(";")
    numbers = [int(part) for part in parts if part.isascii() and part.isdigit() and len(part) < 7]
    if (
        len(numbers) != len(caps)
        or len(numbers) != len(parts)
        or any(n > cap for n, cap in zip(numbers, caps, strict=True))
    ):
        raise tables.TableError(f"{path}: the key {text[:40]!r} is not {len(caps)} features")
    return tuple(numbers)

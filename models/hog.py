"""Hog: learn the rules and the opponents from logs, then solve for tables exactly.

Input: polars DataFrames with the columns of the warehouse tables `hog_turns` (game, turn,
player, score, opponent_score, num_rolls, outcomes, points, new_score, optionally log_id
and line) and `hog_games` (game, first_player, final scores, winner) — or the same columns
built from records read with `parsers/hog.py`. Nothing about the game is taken as given
except its shape (the mover picks k dice; what k dice and 0 dice score is learned):

- dice: the faces seen give the number of sides and each face's frequency. If a
  chi-square test cannot tell them from a fair die, the die is taken as fair. The points
  of k dice are then derived from the face model (with Sow Sad if the logs show it) rather
  than counted per k, because a population usually plays a few k only (always_roll(6)
  logs show k = 6 alone) while a best response must know every k, and each row holds k
  observations of a face but only one of a k-dice total. The per-k totals the logs do show
  are compared with the derived ones (total variation, in the metadata).
- Sow Sad: rows with a 1 among the dice where the sum is not 1 either score 1 (the rule)
  or the sum (no rule); the majority decides, and the counts are kept.
- Pig Tail: the points of rolling 0 against each opponent score, as observed; opponent
  scores never observed fall back to the spec's formula 2·|tens − ones| + 1.
- Square Swine: the new score each total (score + points) became, as observed; totals
  never observed fall back to the spec's rule if any observed total was moved, else stay.
- goal: every turn that ends a game ends at or above it, every other turn below it; the
  goal is one more than the highest score a game went on from.
- the opponents' policy: per state counts of k, smoothed towards a decision tree
  (scikit-learn) fitted to all their turns over what a player sees in a state — both
  scores, the lead, what rolling 0 would gain under the learned Pig Tail and Square Swine.
  Seen states soon follow their own counts; sparse and unseen states borrow from states
  that look alike to the player (a threshold on the Pig Tail gain generalises; a block of
  nearby scores does not: with a 10 × 10 block back-off the best response to
  square_strategy lost 0.04 of win rate, with the tree it loses nothing).

Tables are written in the shared format of `models/tables.py` (kind "strategy"): Parquet
rows (score, opponent_score, num_rolls) with a JSON sidecar holding the metadata (game,
kind, data fingerprint, rows, games, method, settings, learned model).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
import polars as pl

from mine.inputs import quoted
from mine.models import FitError, chi_square_p, tables
from mine.parsers.hog import SCORE_COLUMNS as GAME_COLUMNS
from mine.parsers.hog import TURN_COLUMNS
from mine.strategies.engines.hog import HogRules, swine_map, tail_map
from mine.strategies.solvers.hog import Solution, TurnModel, roll_distribution, solve

GAME = "hog"
KIND = "strategy"  # a table of dice per (score, opponent score), in `models/tables.py`
METHODS = ("best-response", "minimax")
MAX_ROLLS = 10  # the spec's limit; more if the logs show more
FAIR_ALPHA = 0.001  # significance of the chi-square test that rejects a fair die


@dataclass(frozen=True, eq=False)
class LearnedRules:
    """The rules as the logs show them, with the evidence for each."""

    goal: int
    goal_bounds: tuple[int, int]  # every goal in this range explains the logs
    dice_sides: int
    face_counts: np.ndarray  # face i + 1 seen face_counts[i] times
    fair: bool
    face: np.ndarray  # the face probabilities used
    sow_sad: bool
    sow_sad_evidence: tuple[int, int]  # rows with a 1 (sum ≠ 1) scoring 1, scoring the sum
    max_rolls: int
    tail: np.ndarray  # Pig Tail points per opponent score
    tail_observed: np.ndarray  # bool per opponent score
    swine: np.ndarray  # new score per total below goal
    swine_observed: np.ndarray
    swine_on: bool
    roll_distance: dict[int, float] = field(default_factory=dict)  # k: total variation

    def turn_model(self) -> TurnModel:
        points = roll_distribution(self.face, self.max_rolls, self.sow_sad)
        return TurnModel(self.goal, points, self.tail, self.swine)

    def summary(self) -> dict[str, object]:
        scored_1, scored_sum = self.sow_sad_evidence
        return {
            "goal": self.goal, "goal_bounds": list(self.goal_bounds),
            "dice_sides": self.dice_sides, "face_counts": self.face_counts.tolist(),
            "fair_die": self.fair, "face_probabilities": [round(p, 6) for p in self.face.tolist()],
            "sow_sad": self.sow_sad,
            "sow_sad_evidence": {"scored_1": scored_1, "scored_sum": scored_sum},
            "max_rolls": self.max_rolls,
            "pig_tail_cells_observed": int(self.tail_observed.sum()),
            "pig_tail_cells_from_formula": int((~self.tail_observed).sum()),
            "square_swine": self.swine_on,
            "square_swine_cells_observed": int(self.swine_observed.sum()),
            "square_swine_cells_from_rule": int((~self.swine_observed).sum()),
            "roll_total_variation": {str(k): round(v, 6) for k, v in self.roll_distance.items()},
        }  # fmt: skip


# --- the rules -------------------------------------------------------------------------


def learn_rules(turns: pl.DataFrame, max_rolls: int = MAX_ROLLS) -> LearnedRules:
    _check_columns(turns, TURN_COLUMNS, "turns")
    if turns.is_empty():
        raise FitError("no turns to learn from")
    goal, bounds = learn_goal(turns)
    rows = turns.filter((pl.col("score") < goal) & (pl.col("opponent_score") < goal))
    max_rolls = max(max_rolls, int(rows["num_rolls"].max()))
    counts = _face_counts(rows)
    fair = chi_square_p(counts) >= FAIR_ALPHA  # a chi-square test cannot tell it from fair
    face = np.full(counts.size, 1 / counts.size) if fair else counts / counts.sum()
    sow_sad, evidence = _learn_sow_sad(rows)
    tail, tail_seen = _learn_tail(rows, goal)
    swine, swine_seen, swine_on = _learn_swine(rows, goal)
    distance = _roll_distance(rows, roll_distribution(face, max_rolls, sow_sad))
    return LearnedRules(goal, bounds, counts.size, counts, fair, face, sow_sad, evidence,
                        max_rolls, tail, tail_seen, swine, swine_seen, swine_on,
                        distance)  # fmt: skip


def learn_goal(turns: pl.DataFrame) -> tuple[int, tuple[int, int]]:
    """The goal, and the range of goals the logs allow: (highest non-final score + 1,
    lowest final score)."""
    keys = ["log_id", "game"] if "log_id" in turns.columns else ["game"]
    last = pl.col("turn") == pl.col("turn").max().over(keys)
    score = pl.col("new_score")
    going_on, ended = turns.select(score.filter(~last).max().alias("on"),
                                   score.filter(last).min()).row(0)  # fmt: skip
    low = 1 if going_on is None else going_on + 1
    if ended is None or ended < low:
        raise FitError(
            f"no goal explains the logs: a game went on at {going_on} but one ended at {ended}"
        )
    return low, (low, ended)


def _face_counts(rows: pl.DataFrame) -> np.ndarray:
    faces = rows["outcomes"].explode().drop_nulls()
    if faces.is_empty():
        raise FitError("no dice were rolled in the logs")
    if faces.min() < 1:
        raise FitError(f"a die showed {faces.min()}")
    return np.bincount(faces.to_numpy().astype(np.int64) - 1)


def _learn_sow_sad(rows: pl.DataFrame) -> tuple[bool, tuple[int, int]]:
    rolled = rows.filter(pl.col("num_rolls") > 0).select(
        pl.col("outcomes").list.contains(1).alias("one"),
        pl.col("outcomes").list.sum().alias("total"),
        "points",
    )
    telling = rolled.filter(pl.col("one") & (pl.col("total") != 1))
    scored_one = telling.filter(pl.col("points") == 1).height
    scored_sum = telling.filter(pl.col("points") == pl.col("total")).height
    return scored_one >= scored_sum, (scored_one, scored_sum)


def _mode_by(rows: pl.DataFrame, key: str, value: str) -> pl.DataFrame:
    """The most frequent `value` per `key` (the smallest among equals)."""
    return (
        rows.group_by(key, value)
        .len()
        .sort([key, "len", value], descending=[False, True, False])
        .unique(key, keep="first", maintain_order=True)
    )


def _learn_tail(rows: pl.DataFrame, goal: int) -> tuple[np.ndarray, np.ndarray]:
    tail = tail_map(HogRules(goal=goal))
    seen = np.zeros(goal, dtype=bool)
    zero = rows.filter((pl.col("num_rolls") == 0) & (pl.col("points") > 0))
    for opponent, points, _ in _mode_by(zero, "opponent_score", "points").iter_rows():
        tail[opponent], seen[opponent] = points, True
    return tail, seen


def _learn_swine(rows: pl.DataFrame, goal: int) -> tuple[np.ndarray, np.ndarray, bool]:
    totals = rows.select((pl.col("score") + pl.col("points")).alias("total"), "new_score").filter(
        (pl.col("total") < goal) & (pl.col("new_score") >= pl.col("total"))
    )
    observed = _mode_by(totals, "total", "new_score")
    moved = observed.filter(pl.col("new_score") != pl.col("total")).height > 0
    on = moved or observed.is_empty()
    swine = swine_map(HogRules(goal=goal, square_swine=on), goal)
    seen = np.zeros(goal, dtype=bool)
    for total, new, _ in observed.iter_rows():
        swine[total], seen[total] = new, True
    return swine, seen, on


def _roll_distance(rows: pl.DataFrame, roll_points: np.ndarray) -> dict[int, float]:
    """Total variation between the logged points of k dice and the derived distribution."""
    rolled = rows.filter(pl.col("num_rolls") > 0).group_by("num_rolls", "points").len()
    distance = {}
    for (k,), group in rolled.group_by("num_rolls"):
        logged = np.zeros(roll_points.shape[1])
        points = group["points"].to_numpy()
        inside = points < logged.size
        np.add.at(logged, points[inside], group["len"].to_numpy()[inside])
        logged /= group["len"].sum()
        distance[int(k)] = float(np.abs(logged - roll_points[int(k)]).sum() / 2)
    return dict(sorted(distance.items()))


# --- the opponents ---------------------------------------------------------------------


def opponent_policy(
    turns: pl.DataFrame,
    rules: LearnedRules,
    against: str | None = None,
    strength: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """The population's distribution over k in each state (goal × goal × (K + 1)), its
    counts smoothed towards the tree's prior worth `strength` turns (see the module
    docstring), and the number of turns seen per state."""
    goal, width = rules.goal, rules.max_rolls + 1
    rows = turns if against is None else turns.filter(pl.col("player") == against)
    rows = rows.filter((pl.col("score") < goal) & (pl.col("opponent_score") < goal))
    if rows.is_empty():
        who = "the population" if against is None else f"player {against!r}"
        raise FitError(f"no turns of {who} in the logs")
    counts = np.zeros((goal, goal, width))
    where = [rows[c].to_numpy() for c in ("score", "opponent_score", "num_rolls")]
    np.add.at(counts, tuple(where), 1.0)
    seen = counts.sum(axis=-1)
    prior = _tree_prior(counts, rules)
    policy = (counts + strength * prior) / (seen[..., None] + strength)
    return policy, seen


def state_features(rules: LearnedRules) -> np.ndarray:
    """What the mover sees in every state (s, o), one row per state in row-major order."""
    goal = rules.goal
    s, o = (a.reshape(-1) for a in np.divmod(np.arange(goal * goal), goal))
    tail = rules.tail[o]
    after = s + tail
    gain = np.where(after < goal, rules.swine[np.minimum(after, goal - 1)], after) - s
    return np.column_stack(
        [s, o, s - o, goal - s, tail, gain, gain >= goal - s, o % 10, o // 10 % 10]
    )


def _tree_prior(counts: np.ndarray, rules: LearnedRules) -> np.ndarray:
    from sklearn.tree import DecisionTreeClassifier

    goal, width = rules.goal, counts.shape[-1]
    features = state_features(rules)
    flat = counts.reshape(goal * goal, width)
    state, k = np.nonzero(flat)
    tree = DecisionTreeClassifier(min_samples_leaf=3, random_state=0)
    tree.fit(features[state], k, sample_weight=flat[state, k])
    prior = np.zeros((goal * goal, width))
    prior[:, tree.classes_] = tree.predict_proba(features)
    return prior.reshape(goal, goal, width)


# --- fitting ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Fit:
    """A fitted table: dice per (score, opponent score) and its metadata; a fit made here
    also keeps what it learned and its solution (a table read from a file has neither)."""

    table: np.ndarray  # goal × goal dice
    metadata: dict[str, object]
    rules: LearnedRules | None = None
    solution: Solution | None = None


class Logged(NamedTuple):
    """What a fit reads: the logged turns and games, and where they came from."""

    turns: pl.DataFrame
    games: pl.DataFrame | None = None
    fingerprint: str | None = None  # the warehouse's fingerprint of the logs read
    logs: int | None = None  # how many logs


def fit(
    inputs: Logged | pl.DataFrame,
    method: str = "best-response",
    opponent: str | None = None,
    max_rolls: int = MAX_ROLLS,
) -> Fit:
    """The table `method` asks for: the best response to the logged population (or to
    player `opponent`), or the minimax-optimal table under the learned rules. `inputs`
    are the logged turns and games (or the turns alone); without a fingerprint of the
    logs, the content of the frames is hashed."""
    logged = inputs if isinstance(inputs, Logged) else Logged(inputs)
    turns, games, against = logged.turns, logged.games, opponent
    if method not in METHODS:
        raise FitError(f"unknown method {method!r} (known: {', '.join(METHODS)})")
    if games is not None:
        # Only the games the score file records: a log cut short mid-game would otherwise
        # show a game ending below the goal.
        _check_columns(games, GAME_COLUMNS, "games")
        keys = [c for c in ("log_id", "game") if c in turns.columns and c in games.columns]
        turns = turns.join(games.select(keys).unique(), on=keys, how="semi", maintain_order="left")
    rules = learn_rules(turns, max_rolls)
    model = rules.turn_model()
    settings: dict[str, object] = {"max_rolls": rules.max_rolls}
    if method == "best-response":
        policy, seen = opponent_policy(turns, rules, against)
        solution = solve(model, None, policy)
        settings |= {"against": against, "opponent_prior": "decision tree, worth 1 turn",
                     "states_seen": int((seen > 0).sum())}  # fmt: skip
    else:
        solution = solve(model, None, None)
    table = solution.table[0]
    assert table is not None
    rates = {k: round(getattr(solution, k), 6) for k in ("first", "second", "average")}
    metadata = {
        "game": GAME, "kind": KIND, "fingerprint": logged.fingerprint or fingerprint(turns, games),
        "rows": turns.height, "games": count_games(turns), "method": method,
        "settings": settings, "learned": rules.summary(), "model_win_rate": rates,
    }  # fmt: skip
    if logged.logs is not None:
        metadata["logs"] = logged.logs
    return Fit(table, metadata, rules, solution)


def count_games(turns: pl.DataFrame) -> int:
    keys = ["log_id", "game"] if "log_id" in turns.columns else ["game"]
    return turns.select(keys).unique().height


def fingerprint(turns: pl.DataFrame, games: pl.DataFrame | None = None) -> str:
    """SHA-256 of the logged content, in log order, independent of warehouse ids."""
    digest = hashlib.sha256()
    for frame, columns in ((turns, TURN_COLUMNS), (games, GAME_COLUMNS)):
        if frame is None:
            continue
        order = [c for c in ("log_id", "line") if c in frame.columns] or ["game"]
        frame = frame.sort(order, maintain_order=True).select(columns)
        for name in columns:
            column = frame[name]
            if column.dtype == pl.String:
                digest.update("\x1f".join(column.to_list()).encode())
            elif isinstance(column.dtype, pl.List):
                digest.update(column.list.len().fill_null(0).cast(pl.Int64).to_numpy().tobytes())
                digest.update(column.explode().drop_nulls().cast(pl.Int64).to_numpy().tobytes())
            else:
                digest.update(column.cast(pl.Int64).to_numpy().tobytes())
            digest.update(b"\x1e")
    return digest.hexdigest()


def _check_columns(frame: pl.DataFrame, columns: tuple[str, ...], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise FitError(f"the {what} lack columns {', '.join(missing)}")


# --- the table file --------------------------------------------------------------------


def table_frame(table: np.ndarray) -> pl.DataFrame:
    """A goal × goal table as rows (score, opponent_score, num_rolls)."""
    goal = table.shape[0]
    s, o = np.divmod(np.arange(goal * goal), goal)
    return pl.DataFrame(
        {"score": s, "opponent_score": o, "num_rolls": table.reshape(-1)},
        schema={"score": pl.Int32, "opponent_score": pl.Int32, "num_rolls": pl.Int8},
    )


def write_table(path: str | Path, fitted: Fit) -> Path:
    """The table in the shared format (Parquet rows + JSON metadata); returns its path."""
    return tables.write(path, table_frame(fitted.table), {**fitted.metadata, "kind": KIND})


COLUMNS = {"score": pl.Int64, "opponent_score": pl.Int64, "num_rolls": pl.Int64}
LEARNED = {name: type(getattr(HogRules(), name)) for name in HogRules.LEARNED}


def read_table(path: str | Path) -> Fit:
    """The fitted table of a file, checked: a square table of whole numbers of dice within
    the rules' bounds, and the learned rules it was solved in; `tables.TableError` (one
    line) for anything else. Tables written before the shared format had no `kind`."""
    frame, metadata = tables.read(path, GAME, columns=COLUMNS)
    if metadata.setdefault("kind", KIND) != KIND:
        raise tables.TableError(f"{path}: a {quoted(metadata['kind'])} table, not a {KIND!r} table")
    learned = tables.fields(path, metadata, "learned", LEARNED)
    for name in ("goal", "dice_sides", "max_rolls"):
        if not HogRules.within(name, value := learned[name]):
            low, high = HogRules.BOUNDS[name]
            raise tables.TableError(f"{path}: learned {name} {value} is not in {low}..{high}")
    goal = math.isqrt(frame.height)
    if frame.height == 0 or goal * goal != frame.height:
        raise tables.TableError(f"{path}: not a square table of (score, opponent_score, num_rolls)")
    table = np.full((goal, goal), -1, dtype=np.int64)
    score, opponent = frame["score"].to_numpy(), frame["opponent_score"].to_numpy()
    if score.min() < 0 or opponent.min() < 0 or max(score.max(), opponent.max()) >= goal:
        raise tables.TableError(f"{path}: scores outside 0..{goal - 1}")
    dice = frame["num_rolls"].to_numpy()
    if dice.min() < 0 or dice.max() > learned["max_rolls"]:
        raise tables.TableError(f"{path}: numbers of dice outside 0..{learned['max_rolls']}")
    table[score, opponent] = dice
    if (table < 0).any():
        raise tables.TableError(f"{path}: a state without a number of dice")
    return Fit(table, metadata)

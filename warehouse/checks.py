"""Consistency rules every game's files share: SQL the games' CHECKS include, the
sane-range check their replays share, and what their `suspects` share."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from mine.parsers.csvlog import Format

if TYPE_CHECKING:  # polars loads when a batch's rules are replayed
    import polars as pl

Problem = tuple[str, int, str]
"""A broken rule as a replay gives it: the file's role ("turns" or "scores"), line, reason."""


def numbered_score_rows(unit: str, scores: str | None = None) -> str:
    """A score file has one row per `unit` (round or game), numbered 1, 2, … line by line,
    and ends where the turn file ends. Reads `scores`: the staged score rows with
    `last_line` (the file's last line) and `<unit>s` (the turn file's last unit), by
    default those of every log with turns."""
    count = f"{unit}s"
    of_logs_with_turns = f"""(
    SELECT s.*, t.{count}, max(s.line) OVER (PARTITION BY s.log_id) AS last_line
    FROM stage_scores s
    JOIN (SELECT log_id, max({unit}) AS {count} FROM stage_turns GROUP BY log_id) t USING (log_id)
)"""
    return f"""
SELECT log_id, 'scores', line, CASE
    WHEN {unit} <> line THEN format('expected {unit} {{}}, found {{}}', line, {unit})
    ELSE format('the score file ends at {unit} {{}}, the turn file at {unit} {{}}', {unit}, {count})
  END
FROM {scores or of_logs_with_turns}
WHERE {unit} <> line OR (line = last_line AND {unit} <> {count})
"""


OUT_OF_RANGE = "is outside this game's range"
"""How a sane-range reason reads. It goes first on its line: a number outside anything the
rules could make is the problem, not what replaying the rules over it makes of it."""


def outside_ranges(role: str, rows: Sequence[Sequence], fmt: Format,
                   ranges: Mapping[str, tuple[float, float]]) -> list[Problem]:  # fmt: skip
    """Each row's (line, the format's columns) first number outside its sane range, `ranges`
    mapping a column to its (lowest, highest) value."""
    columns = [c.name for c in fmt.columns]
    bounds = [(column, columns.index(column) + 1, low, high)
              for column, (low, high) in ranges.items()]  # fmt: skip
    problems: list[Problem] = []
    for row in rows:
        for column, at, low, high in bounds:
            value = row[at]
            if not low <= value <= high:
                problems.append((role, row[0], f"{column} {value} {OUT_OF_RANGE} {low}..{high}"))
                break
    return problems


def outside(ranges: Mapping[str, tuple[float, float]]) -> pl.Expr:
    """`outside_ranges` over a batch: whether a row has a number outside its sane range."""
    import polars as pl

    return pl.any_horizontal(~pl.col(c).is_between(low, high) for c, (low, high) in ranges.items())


def flagged_logs(rows: pl.DataFrame) -> set[int]:
    """The logs these rows (flagged by a `suspects`) belong to."""
    return set(rows["log_id"].unique().to_list())

"""Consistency rules every game's files share, as SQL the games' CHECKS include."""

from __future__ import annotations


def numbered_score_rows(unit: str, turns_count: str) -> str:
    """A score file has one row per `unit` (round or game), numbered 1, 2, … line by line,
    and ends where the turn file ends. Reads a `scores` CTE holding the staged score rows
    with `last_line` (the file's last line) and `turns_count` (the turn file's last unit)."""
    return f"""
SELECT log_id, 'scores', line, CASE
    WHEN {unit} <> line THEN format('expected {unit} {{}}, found {{}}', line, {unit})
    ELSE format('the score file ends at {unit} {{}}, the turn file at {unit} {{}}', {unit}, {turns_count})
  END
FROM scores WHERE {unit} <> line OR (line = last_line AND {unit} <> {turns_count})
"""

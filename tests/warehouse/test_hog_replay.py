"""Hog's batch-wide check (`suspects`) never clears a log its replay finds a broken rule
in: over simulated matches with one number changed, under several rule settings."""

from __future__ import annotations

import random

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers import hog as log_format
from mine.strategies.engines.hog import HogRules
from mine.warehouse import hog
from tests.data import synth

MATCHES = [synth.hog_game(random.Random(seed), 2) for seed in range(3)]
RULES = [HogRules(), HogRules(pig_tail=False), HogRules(goal=60, square_swine=False),
         HogRules(dice_sides=4, sow_sad=False)]  # fmt: skip


def _rows(match) -> dict[str, list[tuple]]:
    turns, scores = match
    return {
        "turns": [(n, *log_format.turn_fields(t)) for n, t in enumerate(turns, 1)],
        "scores": [(n, *log_format.score_fields(s)) for n, s in enumerate(scores, 1)],
    }


def _frame(logs: list[dict[str, list[tuple]]], role: str) -> pl.DataFrame:
    columns = [c.name for c in getattr(log_format, role.upper()).columns]
    rows = [(log_id, *row) for log_id, log in enumerate(logs, 1) for row in log[role]]
    return pl.DataFrame(rows, schema=["log_id", "line", *columns], orient="row")


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, len(MATCHES) - 1), st.sampled_from(["turns", "scores"]),
                  st.integers(0, 10_000), st.integers(1, 9), st.integers(-3, 3)),
        min_size=1, max_size=4,
    ),
    st.sampled_from(RULES),
)  # fmt: skip
def test_suspects_name_every_log_the_replay_rejects(changes, rules):
    logs = []
    for match, role, row, column, by in changes:
        log = _rows(MATCHES[match])
        rows = log[role]
        index = row % len(rows)
        fields = list(rows[index])
        numbers = [i for i, f in enumerate(fields) if type(f) is int and i > 1]
        at = numbers[column % len(numbers)]
        fields[at] = max(0, fields[at] + by)
        rows[index] = tuple(fields)
        logs.append(log)

    flagged = hog.suspects(rules, _frame(logs, "turns"), _frame(logs, "scores"))

    for log_id, log in enumerate(logs, 1):
        if hog.replay(rules, log["turns"], log["scores"]):
            assert log_id in flagged, hog.replay(rules, log["turns"], log["scores"])
    assert flagged <= set(range(1, len(logs) + 1))

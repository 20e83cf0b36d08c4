"""Super-Nim's batch-wide check (`suspects`) never clears a log its replay finds a broken
rule in: over logs the engine wrote (random and greedy play, boards emptied and games cut
off) with a few rows changed (a number, a heap, a kind, a side, a row dropped, doubled or
swapped), replayed under several rule settings."""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers import supernim as log_format
from mine.strategies.bots.supernim import make_bot
from mine.strategies.engines.supernim import SuperNimRules, log_rows, new_game
from mine.warehouse import supernim

RULES = [SuperNimRules(), SuperNimRules(cap_scores=True, max_moves=30),
         SuperNimRules(merge_cap=6, split_reward=0, max_moves=40),
         SuperNimRules(merge_cap=25, split_reward=5, cap_scores=True)]  # fmt: skip
STRING = {"player", "board_before", "kind", "j", "board_after", "first_player", "start_board",
          "winner", "ended"}  # fmt: skip


def _log(seed: int, rules: SuperNimRules) -> dict[str, list[list]]:
    """A log the engine writes: games of a random player against a greedy one, from a
    random board and from two that small games empty (or not: a cut-off), min first in
    the second."""
    rng = np.random.default_rng(seed)
    bots = [make_bot(name, rules, rng) for name in ("random", "greedy")]
    log: dict[str, list[list]] = {"turns": [], "scores": []}
    for game, board in enumerate((None, (2, 2, 4), (2, 4)), 1):
        state = new_game(rules, rng, swapped=game == 2, board=board)
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()](state))
        turns, scores = log_rows(state, game)
        log["turns"] += [_staged(log_format.turn_fields(turn), "turns") for turn in turns]
        log["scores"] += [_staged(log_format.score_fields(score), "scores") for score in scores]
    return log


def _staged(fields: tuple, role: str) -> list:
    """A row's fields as ingest stages them: text columns as text (j too)."""
    columns = [c.name for c in getattr(log_format, role.upper()).columns]
    return [str(f) if name in STRING else f for name, f in zip(columns, fields, strict=True)]


LOGS = [(rules, _log(seed, rules)) for seed, rules in enumerate(RULES)]


def _board(text: str, how: int, by: int, empty: bool) -> str:
    """A heap of a board changed, dropped or added (never emptied unless `empty`)."""
    heaps = text.split(";") if text else []
    if by % 3 == 0 and heaps:
        at = by % len(heaps)
        heaps[at] = str(max(1, int(heaps[at]) + (by // 3 or 1) * (1 if how % 2 else -1)))
    elif by % 3 == 1 and (len(heaps) > 1 or (heaps and empty)):
        del heaps[by % len(heaps)]
    else:
        heaps.insert(by % (len(heaps) + 1), str(1 + by % 12))
    return ";".join(heaps)


def _change(log: dict[str, list[list]], role: str, row: int, how: int, by: int) -> None:
    """One change to one row of a log, each field kept to its format."""
    rows = log[role]
    index = row % len(rows)
    fields = rows[index]
    if how == 0:  # a number a little off
        numbers = [i for i, f in enumerate(fields) if type(f) is int]
        at = numbers[by % len(numbers)]
        positive = at in ((0, 1, 5, 6) if role == "turns" else (0,))
        fields[at] = max(1 if positive else 0, fields[at] + by)
    elif how == 1:  # a row dropped, or doubled
        rows[index : index + 1] = [] if by % 2 or len(rows) == 1 else [fields, list(fields)]
    elif how == 2:  # two rows swapped
        other = (index + 1 + by % 3) % len(rows)
        rows[index], rows[other] = rows[other], rows[index]
    elif how == 3:  # a heap of a board
        at = 2 if role == "scores" else (3, 7)[by % 2]
        fields[at] = _board(fields[at], row, by, at == 7)
    elif role == "scores":  # a side, the winner, the ending
        at = (1, 5, 7)[by % 3]
        sides = {1: ("max", "min"), 5: ("max", "min", "draw"), 7: ("", "cutoff")}[at]
        fields[at] = sides[(sides.index(fields[at]) + 1 + by) % len(sides)]
    elif how == 4:  # the mover
        fields[2] = "min" if fields[2] == "max" else "max"
    else:  # another kind of move, or another heap merged onto
        kind = ("merge", "ulam", "split")[by % 3]
        if kind == fields[4] == "merge":
            fields[6] = str(max(1, int(fields[6]) + by))
        fields[4] = kind
        if kind == "merge" and fields[6] == "":
            fields[6] = str(1 + by % 7)
        elif kind != "merge":
            fields[6] = ""


def _frame(logs: list[dict[str, list[list]]], role: str) -> pl.DataFrame:
    """The rows of a batch of logs as ingest stages them: log_id, line, the columns."""
    columns = [c.name for c in getattr(log_format, role.upper()).columns]
    rows = [(log_id, line, *row) for log_id, log in enumerate(logs, 1)
            for line, row in enumerate(log[role], 1)]  # fmt: skip
    schema = {"log_id": pl.Int64, "line": pl.Int64}
    schema |= {name: pl.String if name in STRING else pl.Int32 for name in columns}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _replayed(rules: SuperNimRules, log: dict[str, list[list]]) -> list:
    turns, scores = ([(n, *row) for n, row in enumerate(log[r], 1)] for r in ("turns", "scores"))
    return supernim.replay(rules, turns, scores)


def _copy(log: dict[str, list[list]]) -> dict[str, list[list]]:
    return {role: [list(fields) for fields in rows] for role, rows in log.items()}


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, len(LOGS) - 1),
                  st.lists(st.tuples(st.sampled_from(["turns", "scores"]), st.integers(0, 10_000),
                                     st.integers(0, 5), st.integers(-3, 40)),
                           max_size=2)),
        min_size=1, max_size=4,
    ),
    st.sampled_from(RULES),
)  # fmt: skip
def test_suspects_name_every_log_the_replay_rejects(changes, rules):
    logs = []
    for number, log_changes in changes:
        log = _copy(LOGS[number][1])
        for role, row, how, by in log_changes:
            _change(log, role, row, how, by)
        logs.append(log)

    flagged = supernim.suspects(rules, _frame(logs, "turns"), _frame(logs, "scores"))

    for log_id, log in enumerate(logs, 1):
        if problems := _replayed(rules, log):
            assert log_id in flagged, problems
    assert flagged <= set(range(1, len(logs) + 1))


def test_suspects_clear_the_logs_the_engine_writes():
    """The other half: valid logs are cleared at once, not replayed row by row."""
    for rules, log in LOGS:
        assert not _replayed(rules, log)
        assert supernim.suspects(rules, _frame([log], "turns"), _frame([log], "scores")) == set()


def test_suspects_name_every_single_row_change_the_replay_rejects():
    """Every row of a log changed in every way, each change its own log, one batch."""
    rules, table = LOGS[1]
    logs = []
    for role, rows in table.items():
        for row in range(len(rows)):
            for how in range(6):
                for by in (-1, 1, 2, 3):
                    log = _copy(table)
                    _change(log, role, row, how, by)
                    logs.append(log)

    flagged = supernim.suspects(rules, _frame(logs, "turns"), _frame(logs, "scores"))

    rejected = {log_id for log_id, log in enumerate(logs, 1) if _replayed(rules, log)}
    assert rejected <= flagged
    assert len(rejected) > len(logs) // 2  # the changes break rules
    assert len(flagged - rejected) < len(logs) // 10  # and few valid logs are named

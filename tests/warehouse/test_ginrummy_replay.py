"""Gin Rummy's batch-wide check (`suspects`) never clears a log its replay finds a broken
rule in: over simulated games with one field changed (a number, a card, a side, an
ending), under several rule settings."""

from __future__ import annotations

import random

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers import ginrummy as log_format
from mine.strategies.engines.ginrummy import GinRummyRules
from mine.warehouse import ginrummy
from tests.data import synth

GAMES = [synth.ginrummy_game(random.Random(seed), 1) for seed in range(3)]
RULES = [GinRummyRules(), GinRummyRules(knock_limit=5, gin_bonus=20),
         GinRummyRules(undercut_bonus=0, game_target=30)]  # fmt: skip
CARDS = sorted(ginrummy.BITS)
SWAPS = {"0": "1", "1": "0", "Gin": "Knock", "Knock": "Drop", "Drop": "Gin"}


def _rows(game) -> dict[str, list[tuple]]:
    """A log's rows as ingest stages them (its flags as text)."""
    turns, scores = game
    return {
        "turns": [(n, *_text(log_format.turn_fields(t), 2)) for n, t in enumerate(turns, 1)],
        "scores": [(n, *_text(log_format.score_fields(s), 4)) for n, s in enumerate(scores, 1)],
    }


def _text(fields: tuple, flag: int) -> tuple:
    return (*fields[:flag], str(fields[flag]), *fields[flag + 1 :])


def _frame(logs: list[dict[str, list[tuple]]], role: str) -> pl.DataFrame:
    columns = [c.name for c in getattr(log_format, role.upper()).columns]
    rows = [(log_id, *row) for log_id, log in enumerate(logs, 1) for row in log[role]]
    return pl.DataFrame(rows, schema=["log_id", "line", *columns], orient="row")


def _changed(value, by: int, card: str):
    """One field changed as a log could hold it: a number off, another card, the other side."""
    if type(value) is int:
        return max(0, value + by)
    if value in SWAPS:
        return SWAPS[value]
    if ";" in value:  # a hand: one card exchanged (a hand never holds one twice)
        cards = value.split(";")
        return value if card in cards else ";".join([*cards[:-1], card])
    return card


@settings(max_examples=120, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, len(GAMES) - 1), st.sampled_from(["turns", "scores"]),
                  st.integers(0, 10_000), st.integers(1, 6), st.integers(-3, 3),
                  st.sampled_from(CARDS)),
        min_size=1, max_size=4,
    ),
    st.sampled_from(RULES),
)  # fmt: skip
def test_suspects_name_every_log_the_replay_rejects(changes, rules):
    logs = []
    for game, role, row, column, by, card in changes:
        log = _rows(GAMES[game])
        rows = log[role]
        index = row % len(rows)
        fields = list(rows[index])
        at = 1 + column % (len(fields) - 1)
        fields[at] = _changed(fields[at], by, card)
        rows[index] = tuple(fields)
        logs.append(log)

    flagged = ginrummy.suspects(rules, _frame(logs, "turns"), _frame(logs, "scores"))

    for log_id, log in enumerate(logs, 1):
        if ginrummy.replay(rules, log["turns"], log["scores"]):
            assert log_id in flagged, ginrummy.replay(rules, log["turns"], log["scores"])
    assert flagged <= set(range(1, len(logs) + 1))


def test_the_simulated_games_break_no_rule():
    for game in GAMES:
        log = _rows(game)
        assert ginrummy.replay(GinRummyRules(), log["turns"], log["scores"]) == []

"""TwentyOne's batch-wide check (`suspects`) never clears a log its replay finds a broken
rule in: over simulated tables with a few rows changed (a number, a card, an action, a
player, a row dropped or doubled), under several rule settings."""

from __future__ import annotations

import random

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers import twentyone as log_format
from mine.parsers.cards import DECK, format_course
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.warehouse import twentyone
from tests.data import synth

TABLES = [synth.twentyone_game(random.Random(seed), rounds=12, players=3) for seed in range(4)]
RULES = [TwentyOneRules(), TwentyOneRules(charlie=False, decks=1),
         TwentyOneRules(dealer_hits_soft_17=True, double_on_combo=False, combo_after_split=False),
         TwentyOneRules(insurance_on_side_bet=True, insurance_needs_live_hand=True, min_bid=20,
                        charlie_bust_first=False, dealer_card_limit=4)]  # fmt: skip
CARDS = [format_course(card) for card in DECK]


def _rows(table) -> dict[str, list[list]]:
    turns, scores = table
    return {
        "turns": [[*log_format.turn_fields(t)] for t in turns],
        "scores": [[*log_format.score_fields(s)] for s in scores],
    }


def _change(log: dict[str, list[list]], role: str, row: int, how: int, by: int) -> None:
    """One change to one row of a log, as a fuzzer of the files would make it."""
    rows = log[role]
    index = row % len(rows)
    fields = rows[index]
    if how == 0:  # a number a little off
        numbers = [i for i, f in enumerate(fields) if type(f) is int]
        at = numbers[by % len(numbers)]
        fields[at] = max(0, fields[at] + by)
    elif how == 1:  # a row dropped, or doubled
        rows[index : index + 1] = [] if by % 2 or len(rows) == 1 else [fields, list(fields)]
    elif role == "scores":  # another player's points changed
        others = fields[2].split(";") if fields[2] else []
        if others:
            others[by % len(others)] = str(max(0, int(others[by % len(others)]) + by))
            fields[2] = ";".join(others)
    elif how == 2 and fields[1]:  # a card changed, dropped or added
        cards = fields[1].split(";")
        if by % 3 == 0:
            cards[by % len(cards)] = CARDS[by % 52]
        elif by % 3 == 1 and len(cards) > 1:
            del cards[0]
        else:
            cards.insert(0, CARDS[(7 * by) % 52])
        fields[1] = ";".join(cards)
    elif how == 3 and fields[5] != "Bid":  # another decision
        fields[5] = ("Hit", "Stand", "DoubleDown", "Split", "Insurance")[by % 5]
    elif how == 4:  # another player's row
        players = sorted({r[2] for r in rows})
        fields[2] = players[by % len(players)]


def _frame(logs: list[dict[str, list[list]]], role: str) -> pl.DataFrame:
    columns = [c.name for c in getattr(log_format, role.upper()).columns]
    rows = [
        (
            log_id,
            line,
            *(str(f) if name == "mine" else f for name, f in zip(columns, row, strict=True)),
        )
        for log_id, log in enumerate(logs, 1)
        for line, row in enumerate(log[role], 1)
    ]
    return pl.DataFrame(rows, schema=["log_id", "line", *columns], orient="row")


def _replayed(rules: TwentyOneRules, log: dict[str, list[list]]) -> list:
    turns, scores = (_frame([log], role).drop("log_id").rows() for role in ("turns", "scores"))
    return twentyone.replay(rules, turns, scores)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.lists(
            st.tuples(st.sampled_from(["turns", "scores"]), st.integers(0, 10_000),
                      st.integers(0, 4), st.integers(-3, 60)),
            max_size=3,
        ),
        min_size=1, max_size=len(TABLES),
    ),
    st.sampled_from(RULES),
)  # fmt: skip
def test_suspects_name_every_log_the_replay_rejects(changes, rules):
    logs = []
    for number, log_changes in enumerate(changes):
        log = _rows(TABLES[number % len(TABLES)])
        for role, row, how, by in log_changes:
            _change(log, role, row, how, by)
        logs.append(log)

    flagged = twentyone.suspects(rules, _frame(logs, "turns"), _frame(logs, "scores"))

    for log_id, log in enumerate(logs, 1):
        if problems := _replayed(rules, log):
            assert log_id in flagged, problems
    assert flagged <= set(range(1, len(logs) + 1))


def test_suspects_clear_the_simulated_tables():
    """The other half: valid logs are cleared at once, not replayed row by row."""
    logs = [_rows(table) for table in TABLES]
    rules = TwentyOneRules()

    assert not any(_replayed(rules, log) for log in logs)
    assert twentyone.suspects(rules, _frame(logs, "turns"), _frame(logs, "scores")) == set()


def test_suspects_name_every_single_row_change_the_replay_rejects():
    """Every row of a table changed in every way, each change its own log, one batch: a
    short table whose hands double and split."""
    table = _rows(synth.twentyone_game(random.Random(8), rounds=6, players=3))
    logs = []
    for role, rows in table.items():
        for row in range(len(rows)):
            for how in range(5):
                for by in (-1, 1, 2):
                    log = {r: [list(fields) for fields in table[r]] for r in table}
                    _change(log, role, row, how, by)
                    logs.append(log)
    rules = TwentyOneRules()

    flagged = twentyone.suspects(rules, _frame(logs, "turns"), _frame(logs, "scores"))

    rejected = {log_id for log_id, log in enumerate(logs, 1) if _replayed(rules, log)}
    assert rejected <= flagged
    assert len(rejected) > len(logs) // 2  # the changes break rules

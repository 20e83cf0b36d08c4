"""A number inside a text field (an action's amount, the other players' points, dice, a
board's heaps) past the warehouse's INTEGER is its file's error at that line and column,
verified or not: nothing of that log lands, the rest of the batch does. It was DuckDB's
"Conversion Error" naming no line, and unverified, a Super-Nim merge's heap `j` landed as
NULL."""

from __future__ import annotations

import re
import shutil

import duckdb
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mine.parsers import supernim
from mine.parsers.csvlog import INTEGER_MAX, NUMBER, POSITIVE, UINT, at_most, unbounded
from mine.parsers.errors import LogFormatError
from mine.strategies.bots.cardguess import make_bot as cardguess_bot
from mine.strategies.bots.hog import make_bot as hog_bot
from mine.strategies.bots.supernim import make_bot as supernim_bot
from mine.strategies.bots.twentyone import make_bot as twentyone_bot
from mine.strategies.engines.cardguess import CardGuessRules
from mine.strategies.engines.hog import HogRules
from mine.strategies.engines.simulation import simulate
from mine.strategies.engines.supernim import SuperNimRules
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.warehouse.ingest import ingest


@given(st.integers(0, 10**12), st.integers(1, 10**11), st.sampled_from([0, 1]))
def test_the_bounded_number_matches_exactly_the_numbers_in_range(n, limit, least):
    pattern = re.compile(at_most(limit, least))
    assert bool(pattern.fullmatch(str(n))) == (least <= n <= limit)
    assert not pattern.fullmatch(f"0{n}")  # no leading zeros, as UINT
    assert not pattern.fullmatch(f"+{n}")


def test_a_bounded_pattern_unbounded_is_the_plain_one():
    assert unbounded(NUMBER) == UINT and unbounded(at_most(INTEGER_MAX, 1)) == POSITIVE


GAMES = {  # how each game's logs are made: its rules, players and bots
    "twentyone": (TwentyOneRules(rounds=3), ["textbook", "dealer"], twentyone_bot),
    "hog": (HogRules(), ["always_roll:6", "square_strategy"], hog_bot),
    "supernim": (SuperNimRules(max_moves=30), ["greedy", "random"], supernim_bot),
    "cardguess": (CardGuessRules(n=2), ["greedy"], cardguess_bot),
}

CASES = {  # game, file, column, the field made from what it was ({}: the number), its row
    "an action's amount": ("twentyone", "turns", 6, lambda f: f"{f} {{}}", 2),
    "the other players' points": ("twentyone", "scores", 3, lambda f: f"{f};{{}}", 2),
    "dice": ("hog", "turns", 7, lambda f: f"{{}};{f}" if f else "{}", 2),
    "a heap of the board before": ("supernim", "turns", 4, lambda f: f"{f};{{}}", 2),
    "heap j of a merge": ("supernim", "turns", 7, lambda f: "{}", "merge"),
    "a heap of the starting board": ("supernim", "scores", 3, lambda f: f"{{}};{f}", 1),
}


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """One folder of logs a game, from its engine."""
    folders = {}
    for game, (rules, players, make_bot) in GAMES.items():
        folders[game] = tmp_path_factory.mktemp(game)
        simulate(game, rules, players, 2, 7, folders[game], make_bot=make_bot)
    return folders


def _changed(folder, game, role, column, change, row, value):
    """The log of `folder` whose field is changed (in the row numbered `row`, or the first
    of that kind of move): its path and line."""
    turns = sorted(p for p in folder.glob("*.csv") if not p.name.endswith("-score.csv"))[0]
    path = turns.with_name(turns.stem + "-score.csv") if role == "scores" else turns
    rows = path.read_bytes().decode().splitlines(keepends=True)
    line = row if isinstance(row, int) else next(
        i for i, text in enumerate(rows, 1) if f",{row}," in text
    )  # fmt: skip
    end = "\r\n" if rows[line - 1].endswith("\r\n") else "\n"
    fields = rows[line - 1].removesuffix(end).split(",")
    fields[column - 1] = change(fields[column - 1]).format(value)
    rows[line - 1] = ",".join(fields) + end
    path.write_text("".join(rows))
    return path, line


@pytest.mark.parametrize("verify", [True, False], ids=["verified", "--no-verify"])
@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_number_past_integer_in_a_text_field_is_the_files_error(case, verify, logs, tmp_path):
    game, role, column, change, row = CASES[case]
    folder = tmp_path / "logs"
    shutil.copytree(logs[game], folder)
    pairs = len(list(folder.glob("*-score.csv")))
    path, line = _changed(folder, game, role, column, change, row, INTEGER_MAX + 1)
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    summary = ingest(con, [folder], verify=verify)
    (error,) = summary.errors
    assert str(error).startswith(f"{path}:{line}:{column}: "), str(error)
    assert error.reason.endswith("holds a number out of range")
    assert str(INTEGER_MAX + 1) in error.reason or "…" in error.reason
    stems = [stem for (stem,) in con.execute("SELECT stem FROM logs").fetchall()]
    assert len(stems) == pairs - 1 and path.name.split(".")[0].removesuffix("-score") not in stems


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_the_largest_integer_is_no_such_error(case, logs, tmp_path):
    game, role, column, change, row = CASES[case]
    folder = tmp_path / "logs"
    shutil.copytree(logs[game], folder)
    _changed(folder, game, role, column, change, row, INTEGER_MAX)
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    summary = ingest(con, [folder], verify=False)
    assert all("out of range" not in error.reason for error in summary.errors), summary.errors


@pytest.mark.parametrize(("j", "says"), [("2147483648", "holds a number out of range"),
                                         ("x", "is not a heap number or empty")])  # fmt: skip
def test_the_python_reader_says_what_ingest_says(j, says, logs, tmp_path):
    """The reader other commands use, and ingest uses for the rows DuckDB cannot type."""
    text = f"1,2,min,9;1;9;4;3,merge,5,{j},9;1;9;7,0,0"
    with pytest.raises(LogFormatError) as error:
        supernim.TURNS.check("t.csv", 2, text)
    assert str(error.value) == f"t.csv:2:7: j '{j}' {says}"
    folder = tmp_path / "logs"
    shutil.copytree(logs["supernim"], folder)
    _changed(folder, "supernim", "turns", 7, lambda f: "{}", "merge", j)
    (error,) = ingest(duckdb.connect(str(tmp_path / "w.duckdb")), [folder]).errors
    assert error.reason == f"j '{j}' {says}"


NUMBERED = {  # game, column of a number its checks compare with the previous row's + 1
    "a Hog turn": ("hog", 2),
    "a Super-Nim move": ("supernim", 2),
    "a card-guessing guess": ("cardguess", 4),
}


@pytest.mark.parametrize("verify", [True, False], ids=["verified", "--no-verify"])
@pytest.mark.parametrize("case", NUMBERED, ids=list(NUMBERED))
def test_the_largest_integer_numbering_a_row_is_an_error_at_its_line(case, verify, logs, tmp_path):
    """The checks compared such a number with the previous row's plus one in INTEGER, and
    the pair was DuckDB's 'Overflow in addition of INT32' naming no line."""
    game, column = NUMBERED[case]
    folder = tmp_path / "logs"
    shutil.copytree(logs[game], folder)
    path, line = _changed(folder, game, "turns", column, lambda f: "{}", 2, INTEGER_MAX)
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    summary = ingest(con, [folder], verify=verify)
    (error,) = summary.errors
    assert str(error).startswith(f"{path}:{line}: "), str(error)
    assert str(INTEGER_MAX) in error.reason

"""A player id holding a space of any kind (a no-break space, an ideographic space, a
vertical tab) is its file's error at that line and column, verified or not, as the Python
reader says. DuckDB's regular expressions read `\\s` as ASCII space, tab and line breaks
only, so such an id failed `parsers.<game>.read_turns` yet landed with --no-verify."""

from __future__ import annotations

import re
import shutil

import duckdb
import pytest

from mine.parsers import hog, twentyone
from mine.parsers.csvlog import ID
from mine.parsers.errors import LogFormatError
from mine.strategies.bots.hog import make_bot as hog_bot
from mine.strategies.bots.twentyone import make_bot as twentyone_bot
from mine.strategies.engines.hog import HogRules
from mine.strategies.engines.simulation import simulate
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.warehouse.ingest import ingest

# Every character Python's \s matches, the set the formats were written against.
SPACES = [c for c in map(chr, range(0x3001)) if re.fullmatch(r"\s", c)]


def test_duckdb_and_python_read_the_id_pattern_alike():
    con = duckdb.connect()
    for text in ["a", "7", "always_roll:6", "été", *(f"a{c}b" for c in SPACES), "a,b", "a;b"]:
        in_sql = con.execute("SELECT regexp_full_match(?, ?)", [text, ID]).fetchone()[0]
        assert in_sql == bool(re.fullmatch(ID, text)), repr(text)
        assert in_sql == (text in ("a", "7", "always_roll:6", "été")), repr(text)


GAMES = {  # game: its rules, players, bots, reader, and where a turn's player id sits
    "hog": (HogRules(), ["always_roll:6", "square_strategy"], hog_bot, hog.read_turns, 3),
    "twentyone": (
        TwentyOneRules(rounds=3),
        ["textbook", "dealer"],
        twentyone_bot,
        twentyone.read_turns,
        3,
    ),
}


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    folders = {}
    for game, (rules, players, make_bot, *_) in GAMES.items():
        folders[game] = tmp_path_factory.mktemp(game)
        simulate(game, rules, players, 2, 7, folders[game], make_bot=make_bot)
    return folders


@pytest.mark.parametrize("space", ["\xa0", "\u3000", "\x0b"], ids=["nbsp", "ideographic", "vt"])
@pytest.mark.parametrize("verify", [True, False], ids=["verified", "--no-verify"])
@pytest.mark.parametrize("game", GAMES)
def test_an_id_with_a_space_is_the_files_error(game, verify, space, logs, tmp_path):
    *_, read_turns, column = GAMES[game]
    folder = tmp_path / "logs"
    shutil.copytree(logs[game], folder)
    pairs = len(list(folder.glob("*-score.csv")))
    path = sorted(p for p in folder.glob("*.csv") if not p.name.endswith("-score.csv"))[0]
    rows = path.read_text().splitlines(keepends=True)
    fields = rows[1].split(",")
    fields[column - 1] = f"{fields[column - 1]}{space}x"
    rows[1] = ",".join(fields)
    path.write_text("".join(rows))
    with pytest.raises(LogFormatError, match="is not a player id"):
        list(read_turns(path))
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    summary = ingest(con, [folder], verify=verify)
    (error,) = summary.errors
    assert str(error).startswith(f"{path}:2:{column}: player "), str(error)
    assert error.reason.endswith("is not a player id")
    stems = [stem for (stem,) in con.execute("SELECT stem FROM logs").fetchall()]
    assert len(stems) == pairs - 1 and path.stem not in stems

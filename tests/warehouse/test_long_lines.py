"""A line longer than a log's (MAX_LINE bytes of UTF-8) is its file's error at that line,
verified or not, as the Python reader says. Two holes: a line of few characters but many
bytes each, past DuckDB's reader's limit, was "DuckDB could not read every line of this
file" naming no line; and an ASCII line between MAX_LINE and that limit, which the Python
reader refused, landed with --no-verify (the SQL checks had no length)."""

from __future__ import annotations

import shutil

import duckdb
import pytest

from mine.parsers import hog
from mine.parsers.csvlog import MAX_LINE
from mine.parsers.errors import LogFormatError
from mine.strategies.bots.hog import make_bot
from mine.strategies.engines.hog import HogRules
from mine.strategies.engines.simulation import simulate
from mine.warehouse.ingest import ingest

IDS = {  # a player id that makes its line too long, and that line's bytes
    "ASCII, under DuckDB's limit": "a" * (MAX_LINE + 1),
    "4-byte characters, past DuckDB's limit": "\U0001f600" * (MAX_LINE // 2),
}


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hog")
    simulate("hog", HogRules(), ["always_roll:6", "square_strategy"], 2, 7, folder,
             make_bot=make_bot)  # fmt: skip
    return folder


@pytest.mark.parametrize("verify", [True, False], ids=["verified", "--no-verify"])
@pytest.mark.parametrize("player", IDS.values(), ids=list(IDS))
def test_a_line_too_long_is_the_files_error_at_its_line(player, verify, logs, tmp_path):
    folder = tmp_path / "logs"
    shutil.copytree(logs, folder)
    pairs = len(list(folder.glob("*-score.csv")))
    path = sorted(p for p in folder.glob("*.csv") if not p.name.endswith("-score.csv"))[0]
    rows = path.read_text().splitlines(keepends=True)
    fields = rows[1].split(",")
    fields[2] = player
    rows[1] = ",".join(fields)
    path.write_text("".join(rows))
    bytes_ = len(rows[1].rstrip("\r\n").encode())
    reason = f"a line of {bytes_:,} bytes (a log line has at most {MAX_LINE:,})"
    with pytest.raises(LogFormatError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        list(hog.read_turns(path))
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    (error,) = ingest(con, [folder], verify=verify).errors
    assert str(error) == f"{path}:2: {reason}"
    stems = [stem for (stem,) in con.execute("SELECT stem FROM logs").fetchall()]
    assert len(stems) == pairs - 1 and path.stem not in stems

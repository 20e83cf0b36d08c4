"""Every command meets bad input with one line naming what and why, a non-zero exit code,
no traceback, and nothing half-written: a table of the ways a user gets it wrong."""

from __future__ import annotations

import json
import shlex

import duckdb
import polars as pl
import pytest

from mine.warehouse.ingest import ingest
from tests.conftest import REAL_GINRUMMY, REAL_TWENTYONE
from tests.mine_cli import here, one_line_error


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """A folder with a warehouse of real Gin Rummy logs and every kind of bad file."""
    root = tmp_path_factory.mktemp("bad")
    con = duckdb.connect(str(root / "w.duckdb"))
    ingest(con, [REAL_GINRUMMY])
    con.close()
    (root / "text.duckdb").write_text("not a database\n")
    (root / "afile").write_text("a file where a folder is expected\n")
    (root / "folder").mkdir()
    (root / "lonely.csv").write_text("a,b\n1,2\n")
    (root / "garbage.parquet").write_text("garbage")
    (root / "garbage.json").write_text("{not json")
    pl.DataFrame({"x": [1]}).write_parquet(root / "hogs.parquet")
    metadata = {"game": "hog", "kind": "strategy", "fingerprint": "0", "rows": 0}
    (root / "hogs.json").write_text(json.dumps({**metadata, "method": "x", "settings": {}}))
    (root / "syntax.py").write_text("def play(:\n")
    (root / "empty.py").write_text("X = 1\n")
    return root


CASES = [
    ("tables --db text.duckdb", "not a DuckDB database file"),
    ("query 'SELECT 1' --db folder", "is a folder, not a warehouse file"),
    ("stats twentyone --db missing.duckdb", "no warehouse here yet"),
    ("stats hog --db w.duckdb", "no Hog logs in the warehouse"),
    ("query --file folder --db w.duckdb", "folder"),
    ("query --file missing.sql --db w.duckdb", "missing.sql"),
    ("query '' --db w.duckdb", "no SQL given"),
    ("query 'DROP TABLE logs' --db w.duckdb", "DROP is refused"),
    ("query 'SELECT 1' --out out.txt --db w.duckdb", "give --format"),
    (f"query 'SELECT 1' --limit {2**63} --db w.duckdb", "'--limit': Input should be less"),
    # past the 4,096 bytes of a path: said as every path is, not as "[Errno 36] …: '…'"
    (f"query 'SELECT 1' --db w.duckdb --out {'/'.join(['d' * 200] * 25)}.csv", "d: File name too"),
    ("query 'SELECT 1' --out afile/x.csv --db w.duckdb", "no folder"),
    ("ingest nowhere/ --db w.duckdb", "no such file, folder or matching file"),
    ("ingest lonely.csv --db w.duckdb", "unpaired"),
    # a name past 255 bytes: Python 3.11's Path.is_dir() raises, where it says False of others
    (f"stats ginrummy --db w.duckdb --logs {'a' * 256}", "File name too long"),
    (f"ingest lonely.csv --lake {'a' * 256}", "File name too long"),
    ("generate hog --table missing.parquet --out p.py", "no table here"),
    ("generate twentyone --table garbage.parquet --out p.py", "not a readable table"),
    ("generate hog --table . --out p.py", ".: is a folder; a table is two files"),  # no name
    ("report ginrummy --table '' --out r.html", ".: is a folder; a table is two files"),
    ("report ginrummy --table garbage.parquet --out r.html", "not a readable table"),
    ("generate ginrummy --table hogs.parquet --out p.py", "a table of 'hog'"),
    ("simulate twentyone --games 1 --out afile/sub", "cannot write the logs"),
    ("simulate ginrummy --games 1 --out afile/sub", "cannot write the logs into afile/sub"),
    ("simulate hog --games 1 --out afile/sub", "cannot write the logs"),
    ("fit ginrummy --out afile/sub/g.parquet --db w.duckdb", "afile/sub"),
    ("fit ginrummy --source simulated --db w.duckdb", "no simulated Gin Rummy logs among"),
    ("export afile/x --db w.duckdb", "cannot export there"),
    ("export folder --db w.duckdb", "already exists"),
    ("validate ginrummy folder", "not a file"),
    ("validate hog missing.py", "no such file"),
    ("validate twentyone syntax.py", "cannot load (SyntaxError"),
    ("validate ginrummy empty.py --games 1", "defines no pick, play, melds"),
    ("simulate hog --players always_roll:6 --out sims", "a game seats 2 players, not 1"),
    ("simulate twentyone --players nosuchbot --out sims", "nosuchbot"),
    ("simulate hog --rules bogus=1 --out sims", "bad rule 'bogus'"),
    ("simulate hog --rules goal=abc --out sims", "goal takes a whole number"),
    ("simulate hog --rules goal=0 --out sims", "goal takes 1 to 1,000"),
    (f"simulate hog --rules goal={10**400} --out sims", "goal takes 1 to 1,000"),  # past a float
    ("simulate ginrummy --games 10000000 --out sims", "less than or equal to 1000000"),
    (f"simulate hog --games 1 --seed {10**200} --out sims", "'--seed': Input should be less"),
    (f"generate supernim --table t --check-games {10**30}", "less than or equal to 1000000"),
    ("validate twentyone syntax.py --hands 5", "greater than or equal to 1000"),
    ("nosuch", "unknown command 'nosuch'"),
]


@pytest.mark.parametrize("command, says", CASES, ids=[c for c, _ in CASES])
def test_bad_input_is_one_line_and_writes_nothing(place, command, says):
    before = sorted(p.relative_to(place) for p in place.rglob("*"))
    result = here(*shlex.split(command), cwd=place)  # the binary's own: tests/pipeline/test_cli.py
    prefix = "rejected " if "unpaired" in says else "error: "
    assert says in one_line_error(result, prefix=prefix)
    after = sorted(p.relative_to(place) for p in place.rglob("*"))
    assert after == before, set(after) ^ set(before)


def test_fit_writes_no_table_when_the_logs_learn_an_impossible_setting(tmp_path):
    """A log whose first bid is 5,000,000 (landed unverified) teaches a maximum bid no rules
    allow: fit says so in one line and writes no table."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for path in REAL_TWENTYONE.glob("20211025-120000-001*.csv"):
        (logs / path.name).write_bytes(path.read_bytes())
    turns = logs / "20211025-120000-001.csv"
    turns.write_text(turns.read_text().replace("1,,0,0,0,Bid,50,H8", "1,,0,0,0,Bid,5000000,H8", 1))
    db, out = tmp_path / "w.duckdb", tmp_path / "t.parquet"
    assert here("ingest", logs, "--no-verify", "--db", db).returncode == 0
    line = one_line_error(here("fit", "twentyone", "--db", db, "--out", out))
    assert "max_bid 5,000,000 is out of the rules' range 1..1,000,000" in line
    assert "no table written" in line and not out.exists()

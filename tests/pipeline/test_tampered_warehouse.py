"""A warehouse changed by SQL outside mine (a column dropped or retyped, a NULL let in, a
view dropped or replaced) is one line naming what was changed, for every game's command
that reads it, and the warehouse is left as it was."""

from __future__ import annotations

import json

import duckdb
import pytest

from tests.mine_cli import digest, here, one_line_error
from tests.shared_warehouse import EXAMPLES, copy_of, examples_warehouse, twentyone_table

# (the change, the command, what the line says); each failed deep in the game's reading
# before: DuckDB's Binder or Catalog Error, or polars' and Python's TypeError or KeyError
# on a row the layout would never hold
CASES = [
    ("ALTER TABLE supernim_moves DROP COLUMN kind", ["stats", "supernim"],
     "its table supernim_moves lacks kind VARCHAR NOT NULL"),
    ("ALTER TABLE cardguess_guesses DROP COLUMN suits", ["stats", "cardguess"],
     "its table cardguess_guesses lacks suits INTEGER NOT NULL"),
    ("ALTER TABLE twentyone_turn_rows DROP COLUMN action", ["stats", "twentyone"],
     "its table twentyone_turn_rows lacks action VARCHAR NOT NULL"),
    ("ALTER TABLE ginrummy_turns ALTER COLUMN mine TYPE VARCHAR", ["stats", "ginrummy"],
     "its table ginrummy_turns lacks mine BOOLEAN NOT NULL, has mine VARCHAR NOT NULL"),
    ("ALTER TABLE ginrummy_turns ALTER COLUMN hand DROP NOT NULL; "
     "UPDATE ginrummy_turns SET hand = NULL WHERE line = 3", ["stats", "ginrummy"],
     "its table ginrummy_turns lacks hand VARCHAR[] NOT NULL, has hand VARCHAR[]"),
    ("ALTER TABLE cardguess_guesses ALTER COLUMN guess DROP NOT NULL; "
     "UPDATE cardguess_guesses SET guess = NULL WHERE line = 3", ["stats", "cardguess"],
     "its table cardguess_guesses lacks guess VARCHAR[] NOT NULL, has guess VARCHAR[]"),
    ("DROP VIEW supernim_positions", ["stats", "supernim"],
     "its view supernim_positions is missing"),
    ("CREATE OR REPLACE VIEW twentyone_turns AS SELECT 1 AS log_id", ["stats", "twentyone"],
     "its view twentyone_turns is not the one mine makes"),
    ("DROP TABLE manifest", ["stats", "ginrummy", "--logs", "*"],
     "its table manifest is missing"),
    ("ALTER TABLE twentyone_turn_rows DROP COLUMN upcard", ["report", "twentyone"],
     "its table twentyone_turn_rows lacks upcard VARCHAR NOT NULL"),
    # said "cannot read the Super-Nim tables: Binder Error: …" (a game's words for it)
    ("CREATE OR REPLACE VIEW supernim_positions AS SELECT 1 AS log_id", ["fit", "supernim"],
     "its view supernim_positions is not the one mine makes"),
    # said "no Card guessing logs in the warehouse"
    ("ALTER TABLE logs RENAME COLUMN game TO played", ["fit", "cardguess"],
     "its table logs lacks game VARCHAR NOT NULL, has played VARCHAR NOT NULL"),
    # ingest made the missing table again, empty, and said nothing: the logs it held landed
    # a second time, or its logs' rows were gone while their logs counted as held
    ("ALTER TABLE logs RENAME TO logs_kept", ["ingest", EXAMPLES / "supernim"],
     "its table logs is missing"),
    ("DROP TABLE supernim_moves", ["ingest", EXAMPLES / "supernim"],
     "its table supernim_moves is missing"),
    # said "cannot ingest into it (Binder Error: …)" and "(Catalog Error: …)"
    ("ALTER TABLE logs RENAME COLUMN stem TO name", ["ingest", EXAMPLES / "supernim"],
     "its table logs lacks stem VARCHAR NOT NULL, has name VARCHAR NOT NULL"),
    ("DROP VIEW supernim_positions; CREATE TABLE supernim_positions AS SELECT 1 AS log_id",
     ["ingest", EXAMPLES / "supernim"], "its view supernim_positions is a table"),
    # a game's tables have no key: every command read the copied rows, and counted them twice
    ("INSERT INTO ginrummy_turns SELECT * FROM ginrummy_turns", ["stats", "ginrummy"],
     "its table ginrummy_turns holds 6,900 rows where its logs have 3,450"),
    ("DELETE FROM twentyone_round_points WHERE round = 1", ["fit", "twentyone"],
     "its table twentyone_round_points holds 990 rows where its logs have 1,000"),
    ("INSERT INTO twentyone_seats SELECT * FROM twentyone_seats LIMIT 1", ["report", "twentyone"],
     "its table twentyone_seats holds a row twice"),
    # said "not a mine warehouse (no warehouse_version table)"
    ("DELETE FROM warehouse_version", ["stats", "cardguess"],
     "its table warehouse_version is empty"),
]  # fmt: skip


@pytest.mark.parametrize("change, command, says", CASES, ids=[c[2][4:40] for c in CASES])
def test_a_warehouse_changed_by_hand_is_one_line_naming_the_change(
    change, command, says, tmp_path, tmp_path_factory
):
    db = copy_of(examples_warehouse(tmp_path_factory), tmp_path / "w.duckdb")
    con = duckdb.connect(str(db))
    con.execute(change)
    con.close()
    before = digest(db)
    extra = ["--table", copy_of(twentyone_table(tmp_path_factory), tmp_path / "t.parquet")]
    out = tmp_path / "out.html" if command[0] == "report" else tmp_path / "out"
    args = [*command, *(extra if command[0] == "report" else []), "--db", db]
    if command[0] in ("fit", "report"):
        args += ["--out", out]
    said = one_line_error(here(*args))
    assert f"{db}: not as mine lays out a warehouse: {says};" in said
    assert digest(db) == before
    assert not list(tmp_path.glob("out*"))


def test_statistics_are_stored_whole_or_not_at_all(tmp_path, tmp_path_factory):
    """A view of the user's in the way of mine's last statistics table: one line naming it,
    and the statistics stored before stay as they were (the tables were replaced one by one,
    so those before it were new, the rest old, and the line was DuckDB's traceback)."""
    db = copy_of(examples_warehouse(tmp_path_factory), tmp_path / "w.duckdb")
    first = here("stats", "ginrummy", "--db", db, "--json")
    assert first.returncode == 0, first.stderr
    *names, last = json.loads(first.stdout)["tables"]
    con = duckdb.connect(str(db))
    for name in names:
        con.execute(f"DELETE FROM {name}")  # marks what a second run would replace
    con.execute(f"DROP TABLE {last}")
    con.execute(f"CREATE VIEW {last} AS SELECT 1 AS mine")
    con.close()
    said = one_line_error(here("stats", "ginrummy", "--db", db))
    why = f'Existing object "{last}" is of type View, trying to replace with type Table'
    assert said == f"error: {last}: cannot store the statistics there (Catalog Error: {why})"
    con = duckdb.connect(str(db), read_only=True)
    kept = [con.execute(f"SELECT count(*) FROM {name}").fetchone()[0] for name in names]
    con.close()
    assert kept == [0] * len(names)


def test_a_table_changed_by_hand_rejects_no_log_ingest_lands_in_it(tmp_path, tmp_path_factory):
    """A column added to a game's table: ingest said `rejected FILE: Binder Error: table
    "supernim_games" has 11 columns but 10 values were supplied` of every valid log of the
    game, and recorded them as rejected; now one line naming the change, nothing recorded."""
    db = copy_of(examples_warehouse(tmp_path_factory), tmp_path / "w.duckdb")
    con = duckdb.connect(str(db))
    for change in (  # its logs no longer held, then the column
        "DELETE FROM supernim_moves",
        "DELETE FROM supernim_games",
        "DELETE FROM logs WHERE game = 'supernim'",
        "DELETE FROM manifest WHERE game = 'supernim'",
        "ALTER TABLE supernim_games ADD COLUMN x INTEGER",
    ):
        con.execute(change)
    con.close()
    said = one_line_error(here("ingest", EXAMPLES / "supernim", "--db", db))
    assert said == (
        f"error: {db}: not as mine lays out a warehouse: its table supernim_games has x INTEGER; "
        "rebuild it: `mine ingest LOGS --db NEW.duckdb` from the same logs; the batches before "
        "it landed"
    )
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM manifest WHERE game = 'supernim'").fetchone() == (0,)
    con.close()


def test_a_hog_column_dropped_by_hand_is_named_by_fit(tmp_path):
    """`fit hog` read `SELECT *`, so a dropped column reached the fit: "the games lack
    columns winner", naming neither the warehouse nor the change."""
    db = tmp_path / "w.duckdb"
    for args in (["simulate", "hog", "--games", 20, "--out", tmp_path / "logs"],
                 ["ingest", tmp_path / "logs", "--db", db]):  # fmt: skip
        assert here(*args).returncode == 0
    con = duckdb.connect(str(db))
    con.execute("ALTER TABLE hog_games DROP COLUMN winner")
    con.close()
    said = one_line_error(here("fit", "hog", "--db", db, "--out", tmp_path / "t.parquet"))
    assert said.startswith(
        f"error: {db}: not as mine lays out a warehouse: its table hog_games lacks winner "
        "VARCHAR NOT NULL;"
    )
    assert not list(tmp_path.glob("t.*"))

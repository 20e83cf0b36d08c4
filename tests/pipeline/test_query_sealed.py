"""`mine query` reads and never writes: not the warehouse, not any file it could reach,
whatever the SQL asks; and every DuckDB type prints."""

from __future__ import annotations

import json
import os
import subprocess

import duckdb
import pytest

from mine.warehouse.ingest import ingest
from tests.conftest import REAL_GINRUMMY
from tests.mine_cli import MINE, digest, here, one_line_error


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sealed")
    path = folder / "w.duckdb"
    con = duckdb.connect(str(path))
    ingest(con, [REAL_GINRUMMY])
    con.close()
    other = folder / "other.duckdb"
    duckdb.connect(str(other)).execute("CREATE TABLE t AS SELECT 1 AS a").close()
    os.link(path, folder / "link.duckdb")
    return path


HOSTILE = [
    "COPY (SELECT 1) TO '{db}'",
    "COPY logs TO '{folder}/out.csv'",
    "ATTACH '{folder}/other.duckdb' AS o (READ_ONLY false)",
    "ATTACH '{folder}/link.duckdb' AS l",
    "DELETE FROM logs",
    "DROP TABLE logs",
    "CREATE TABLE x AS SELECT 1",
    "INSERT INTO warehouse_version VALUES (99)",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET threads = 1",
    "EXPORT DATABASE '{folder}/dump'",
    "CHECKPOINT",
    "SELECT 1; DELETE FROM logs",
    "SELECT * FROM read_csv('{db}')",
    "SELECT * FROM glob('{folder}/*')",
    "",
    "   \n  ",
    "SELEC 1",
]


@pytest.mark.parametrize("sql", HOSTILE)
def test_what_is_not_a_read_is_refused_and_changes_no_byte(db, sql):
    files = {p: digest(p) for p in db.parent.glob("*.duckdb")}
    result = here("query", sql.format(db=db, folder=db.parent), "--db", db)
    one_line_error(result, code=1)
    assert {p: digest(p) for p in db.parent.glob("*.duckdb")} == files
    assert not (db.parent / "out.csv").exists() and not (db.parent / "dump").exists()


@pytest.mark.parametrize("target", ["w.duckdb", "link.duckdb", "w.duckdb.wal"])
def test_an_output_in_the_warehouses_place_is_refused(db, target):
    before = digest(db)
    result = here("query", "SELECT 1", "--format", "csv", "--out", db.parent / target, "--db", db)
    assert "this command reads that file" in one_line_error(result)
    assert digest(db) == before
    assert not (db.parent / "w.duckdb.wal").exists()


def test_every_duckdb_type_prints(db, tmp_path):
    sql = (
        "SELECT now() AS tz, INTERVAL 3 DAY AS i, '\\x01'::BLOB AS b, uuid() AS u, "
        "1.5::DECIMAL(10,2) AS d, {'x': 1} AS s, MAP {'k': 2} AS m, [1, NULL] AS l, "
        "170141183460469231731687303715884105727::HUGEINT AS h, NULL AS n, "
        "'[not markup]' AS t"
    )
    result = here("query", sql, "--db", db)
    assert result.returncode == 0, result.stderr
    assert "NULL" in result.stdout and "[not markup]" in result.stdout
    assert "170141183460469231731687303715884105727" in result.stdout
    exported = here("query", sql, "--out", tmp_path / "x.json", "--db", db)
    assert exported.returncode == 0, exported.stderr
    assert json.loads((tmp_path / "x.json").read_text())[0]["h"] == (
        170141183460469231731687303715884105727
    )


def test_the_table_shows_the_first_rows_and_the_count(db):
    con = duckdb.connect(str(db), read_only=True)  # the count the view must say
    try:
        (rows,) = con.execute("SELECT count(*) FROM ginrummy_turns").fetchone()
    finally:
        con.close()
    shown = here("query", "SELECT line FROM ginrummy_turns", "--limit", "5", "--db", db)
    assert f"first 5 of {rows:,} rows" in shown.stdout
    everything = here("query", "SELECT line FROM ginrummy_turns", "--limit", "0", "--db", db)
    assert f"{rows:,} rows" in everything.stdout and "first" not in everything.stdout


def test_the_format_follows_the_outputs_extension(db, tmp_path):
    for ext in ("csv", "json", "parquet"):
        out = tmp_path / f"logs.{ext}"
        result = here("query", "SELECT log_id, stem FROM logs", "--out", out, "--db", db)
        assert result.returncode == 0, result.stderr
        back = duckdb.sql(f"SELECT count(*) FROM '{out}'").fetchall()[0][0]
        assert back == 12
    assert "give --format" in one_line_error(
        here("query", "SELECT 1", "--out", tmp_path / "x.txt", "--db", db)
    )
    assert not (tmp_path / "x.txt").exists()


def test_sql_comes_from_stdin_and_from_a_file(db, tmp_path):
    out = tmp_path / "x.csv"
    piped = here("query", "--out", out, "--db", db, stdin="SELECT 41 + 1 AS x")
    assert piped.returncode == 0 and out.read_text().split() == ["x", "42"], piped.stderr
    script = tmp_path / "q.sql"
    script.write_text("SELECT 6 * 7 AS y;\n")
    from_file = here("query", "--file", script, "--out", out, "--db", db)
    assert from_file.returncode == 0 and out.read_text().split() == ["y", "42"], from_file.stderr
    assert "no-such.sql" in one_line_error(here("query", "--file", tmp_path / "no-such.sql"))


def test_an_unwritable_output_is_one_line_and_leaves_nothing(db, tmp_path):
    result = here("query", "SELECT 1", "--out", tmp_path / "missing" / "x.csv", "--db", db)
    assert "no folder" in one_line_error(result)
    assert not (tmp_path / "missing").exists()


# --- SQL and values that are not ASCII, and SQL that is not text ------------------------------

NON_ASCII = [
    "SELECT 'é' AS x",
    "SELECT 'é' AS x;",
    "SELECT 'é' AS x; -- done",
    "SELECT 'é' AS x -- é",
    "SELECT 'é' AS x /* é */",
    "SELECT 'é' AS x\n-- é\n;",
    "SELECT repeat('é', 300) AS x, '☃' AS y",  # wider than the terminal
]


@pytest.mark.parametrize("sql", NON_ASCII)
def test_sql_and_values_that_are_not_ascii_show_and_export(db, sql):
    view = here("query", sql, "--db", db)
    assert view.returncode == 0, view.stderr
    assert view.stdout.splitlines()[2].startswith("é")
    exported = here("query", sql, "--db", db, "--format", "json", "--out", db.parent / "x.json")
    assert exported.returncode == 0, exported.stderr
    assert json.loads((db.parent / "x.json").read_text())[0]["x"].startswith("é")


@pytest.mark.parametrize("env", [{"LC_ALL": "C"}, {"PYTHONIOENCODING": "ascii"}])
def test_not_ascii_under_an_ascii_locale_is_shown_not_a_traceback(db, env):
    sql = "SELECT 'é' AS x, '☃' AS y;"
    result = subprocess.run(
        [MINE, "query", sql, "--db", db], capture_output=True, env={**os.environ, **env}
    )
    assert result.returncode == 0, result.stderr
    assert "é".encode() in result.stdout and result.stderr == b""
    tables = subprocess.run(
        [MINE, "tables", "--db", db], capture_output=True, env={**os.environ, **env}
    )
    assert tables.returncode == 0, tables.stderr
    assert b"ginrummy_turns" in tables.stdout


def test_sql_that_is_not_utf8_is_one_line(db, tmp_path):
    assert "not UTF-8" in one_line_error(here("query", "SELECT '\udcff'", "--db", db))
    (tmp_path / "q.sql").write_bytes(b"SELECT '\xff'")
    assert "not UTF-8" in one_line_error(here("query", "--file", tmp_path / "q.sql", "--db", db))


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
@pytest.mark.parametrize("how", ["--file", "stdin"])
def test_sql_from_an_endless_device_is_one_line(db, device, how):
    """Read no further than the most SQL mine takes (4 MB), in a process of its own."""
    with open(device, "rb") as endless:
        args = ["--file", device] if how == "--file" else []
        result = subprocess.run(
            [MINE, "query", *args, "--db", db],
            stdin=endless,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert "more than 4 MB" in one_line_error(result)


@pytest.mark.parametrize("via", ["itself", "a symlink", "a hard link"])
def test_an_output_onto_the_file_of_its_own_sql_is_refused(db, tmp_path, via):
    sql = tmp_path / "q.sql"
    sql.write_text("SELECT 1 AS one\n")
    out = {"itself": sql, "a symlink": tmp_path / "l.sql", "a hard link": tmp_path / "h.sql"}[via]
    if via == "a symlink":
        out.symlink_to(sql)
    elif via == "a hard link":
        os.link(sql, out)
    line = one_line_error(here("query", "--file", out, "--format", "csv", "--out", sql, "--db", db))
    assert "this command reads that file" in line
    assert sql.read_text() == "SELECT 1 AS one\n"


def test_a_value_too_long_to_show_is_cut_and_its_length_said(db, tmp_path):
    shown = here("query", "SELECT repeat('ab', 700) AS v, 1 AS n", "--db", db)
    assert shown.returncode == 0, shown.stderr
    row = shown.stdout.splitlines()[2]
    assert row.startswith("ab" * 500 + "… (1,400 characters)")
    assert row.endswith("1")
    whole = here("query", "SELECT repeat('ab', 700) AS v", "--db", db, "--out", tmp_path / "v.csv")
    assert whole.returncode == 0, whole.stderr
    assert (tmp_path / "v.csv").read_text().splitlines()[1] == "ab" * 700

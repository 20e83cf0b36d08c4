"""The CLI: ingest's summary and exit code, query's outputs, tables, errors without tracebacks."""

import json

import duckdb
import pytest
from typer.testing import CliRunner

from mine.pipeline.cli import app
from tests.conftest import REAL_GINRUMMY
from tests.mine_cli import here, mine, one_line_error

runner = CliRunner()


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "w.duckdb"
    result = runner.invoke(app, ["ingest", str(REAL_GINRUMMY), "--db", str(path)])
    assert result.exit_code == 0, result.output
    return path


def test_ingest_json_summary(tmp_path):
    path = tmp_path / "w.duckdb"
    result = runner.invoke(
        app, ["ingest", str(REAL_GINRUMMY / "*.csv"), "--db", str(path), "--json"]
    )
    summary = json.loads(result.stdout)
    assert result.exit_code == 0 and summary["ok"]
    assert summary["pairs"] == {"new": 12, "unchanged": 0, "replaced": 0, "rejected": 0}
    assert summary["rows"] == {"ginrummy_turns": 3450, "ginrummy_rounds": 112}
    again = json.loads(
        runner.invoke(app, ["ingest", str(REAL_GINRUMMY), "--db", str(path), "--json"]).stdout
    )
    assert again["pairs"]["unchanged"] == 12 and again["rows"] == {}


def test_ingest_exit_code_is_one_when_anything_is_rejected(tmp_path, good_logs):
    (good_logs / "twentyone" / "t0-score.csv").write_bytes(b"1,2\r\n")
    result = runner.invoke(app, ["ingest", str(good_logs), "--db", str(tmp_path / "w.duckdb")])
    assert result.exit_code == 1
    assert "t0-score.csv:1" in result.output and "rejected" in result.output
    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    assert con.execute("SELECT count(*) FROM logs").fetchone() == (3,)


def test_ingest_of_nothing_named_fails(tmp_path):
    result = runner.invoke(
        app, ["ingest", str(tmp_path / "nope"), "--db", str(tmp_path / "w.duckdb")]
    )
    assert result.exit_code == 1 and "no such file" in result.output


def test_query_table_csv_json_parquet(db, tmp_path):
    sql = "SELECT ending, count(*) AS n FROM ginrummy_rounds GROUP BY 1 ORDER BY 1"
    table = runner.invoke(app, ["query", sql, "--db", str(db)])
    assert table.exit_code == 0 and "Knock" in table.stdout and "51" in table.stdout
    # DuckDB's writers write to the process's stdout itself: run the command as a user does
    csv = mine("query", sql, "--db", db, "--format", "csv")
    assert csv.stdout.splitlines() == ["ending,n", "Drop,52", "Gin,9", "Knock,51"]
    as_json = mine("query", sql, "--db", db, "--format", "json")
    assert json.loads(as_json.stdout)[1] == {"ending": "Gin", "n": 9}
    out = tmp_path / "r.parquet"
    parquet = runner.invoke(
        app, ["query", sql, "--db", str(db), "--format", "parquet", "-o", str(out)]
    )
    assert parquet.exit_code == 0
    assert duckdb.sql(f"SELECT sum(n) FROM '{out}'").fetchall() == [(112,)]


def test_query_from_file(db, tmp_path):
    sql = tmp_path / "q.sql"
    sql.write_text("SELECT count(*) AS turns FROM ginrummy_turns;\n")
    result = mine("query", "--file", sql, "--db", db, "--format", "csv")
    assert result.stdout.splitlines() == ["turns", "3450"]


def test_sql_errors_are_shown_as_duckdb_reports_them(db):
    result = runner.invoke(app, ["query", "SELECT nope FROM ginrummy_turns", "--db", str(db)])
    assert result.exit_code == 1
    assert "Binder Error" in result.output and "nope" in result.output
    assert "Traceback" not in result.output


def test_queries_are_read_only(db):
    result = runner.invoke(app, ["query", "DELETE FROM ginrummy_turns", "--db", str(db)])
    assert result.exit_code == 1 and "DELETE is refused: mine query only reads" in result.output


def test_tables_lists_counts_and_descriptions(db):
    result = runner.invoke(app, ["tables", "--db", str(db)])
    assert result.exit_code == 0
    for name in (
        "ginrummy_turns",
        "ginrummy_rounds",
        "ginrummy_games",
        "manifest",
        "logs",
        "twentyone_turns",
        "twentyone_hands",
        "twentyone_dealer_hands",
    ):
        assert name in result.stdout
    assert "3,450" in result.stdout


def test_query_on_a_missing_warehouse_says_so(tmp_path):
    result = runner.invoke(app, ["query", "SELECT 1", "--db", str(tmp_path / "none.duckdb")])
    assert result.exit_code == 1 and "mine ingest" in result.output


def test_game_override_skips_detection(tmp_path, good_logs):
    db = str(tmp_path / "w.duckdb")
    result = runner.invoke(
        app, ["ingest", str(good_logs / "twentyone"), "--db", db, "--game", "ginrummy"]
    )
    assert result.exit_code == 1
    assert "expected 6 columns, found 8" in result.output
    unknown = runner.invoke(app, ["ingest", str(good_logs), "--db", db, "--game", "poker"])
    assert unknown.exit_code == 1 and "unknown game 'poker'" in unknown.output


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["stats", "twentynoe"], "unknown game 'twentynoe' (did you mean twentyone?)"),
        (["stat", "hog"], "unknown command 'stat' (did you mean stats?)"),
        (["fit", "zz"], "unknown game 'zz' (one of twentyone, ginrummy, hog, supernim, cardguess)"),
    ],
)
def test_a_misspelt_name_is_answered_with_what_was_meant(args, said):
    line = one_line_error(here(*args), code=2)
    assert said in line


def test_game_names_are_read_in_any_case(tmp_path):
    assert here("simulate", "HOG", "--games", "2", "--out", tmp_path).returncode == 0
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".csv", ".csv"]


def float_options() -> list[tuple[list[str], str]]:
    """(the words of a command, a flag of it) for every option of every command (each
    game's too) that takes a number with a fraction."""
    import typer

    found = []

    def walk(command, words: list[str]) -> None:
        if hasattr(command, "list_commands"):
            for name in command.list_commands(None):
                walk(command.get_command(None, name), [*words, name])
            return
        for param in command.params:
            if getattr(param, "opts", None) and param.type_descriptor.annotation is float:
                found.append((words, param.opts[0]))

    walk(typer.main.get_command(app), [])
    return found


FLOATS = float_options()


def test_the_options_that_take_fractions_are_found():
    flags = {flag for _, flag in FLOATS}
    assert {"--wait", "--timeout", "--budget"} <= flags


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400", "1e300"])
@pytest.mark.parametrize(
    ("words", "flag"), FLOATS, ids=lambda x: " ".join(x) if isinstance(x, list) else x
)
def test_no_option_takes_a_number_that_is_not_finite(tmp_path, words, flag, value):
    """`--wait nan` waited forever, `--timeout inf` ended in a traceback: every number an
    option takes has a range, so one that is not finite is one line (given first, before
    anything the command would do)."""
    line = one_line_error(here(*words, flag, value, cwd=tmp_path), code=2)
    assert flag in line
    assert list(tmp_path.iterdir()) == []

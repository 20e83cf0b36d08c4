"""The smaller things a new user met in the first hour (issue 41, item 8): each is one
line or one word where it was a silent surprise."""

from __future__ import annotations

import shutil

from tests.conftest import REAL_GINRUMMY, REAL_TWENTYONE
from tests.mine_cli import here, one_line_error


def test_a_new_warehouse_not_named_duckdb_is_refused(tmp_path):
    """`--db logs.csv` is a slip for a log file: one line, and no DuckDB file named .csv."""
    line = one_line_error(here("ingest", REAL_GINRUMMY, "--db", tmp_path / "logs.csv"))
    assert "a new warehouse is named *.duckdb or *.db" in line
    assert list(tmp_path.iterdir()) == []
    for name in ("w.duckdb", "w.db"):
        assert here("ingest", REAL_GINRUMMY, "--db", tmp_path / name).returncode == 0


def test_the_db_rule_and_the_games_options_are_in_the_help():
    ingest = " ".join(here("ingest", "--help").stdout.split())  # the help wraps its lines
    assert "a new one is named *.duckdb or *.db" in ingest
    assert "`mine fit GAME --help` lists the options" in here("fit", "--help").stdout


def test_a_report_with_a_missing_warehouse_says_it_reads_it(tmp_path):
    line = one_line_error(here("report", "twentyone", "--table", tmp_path / "t.parquet",
                               "--db", tmp_path / "none.duckdb"))  # fmt: skip
    assert "the report draws its logged games from it beside the table" in line


def test_ingest_names_only_the_games_that_received_new_logs(tmp_path):
    db = tmp_path / "w.duckdb"
    assert here("ingest", REAL_GINRUMMY, "--db", db).returncode == 0
    both = tmp_path / "both"
    shutil.copytree(REAL_GINRUMMY, both / "ginrummy")
    shutil.copytree(REAL_TWENTYONE, both / "twentyone")
    again = here("ingest", both, "--db", db)
    assert again.returncode == 0, again.stderr
    hints = [line for line in again.stderr.splitlines() if line.startswith("next: ")]
    assert hints == [f"next: mine stats twentyone --db {db}"]


def test_the_hard_16_table_writes_the_ace_as_the_dealer_table_does(tmp_path):
    db = tmp_path / "w.duckdb"
    assert here("ingest", REAL_TWENTYONE, "--db", db).returncode == 0
    shown = here("stats", "twentyone", "--db", db)
    assert shown.returncode == 0, shown.stderr
    hard16 = shown.stdout.split("hard 16 (any cards)")[1].split("└")[0]
    ups = [line.split("│")[1].strip() for line in hard16.splitlines() if line.startswith("│")]
    assert ups and "1" not in ups and ups[-1] == "A"
    assert ups.index("A") > ups.index("10")  # the ace last, as the dealer table orders it

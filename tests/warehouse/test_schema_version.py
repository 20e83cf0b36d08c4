"""A warehouse laid out by another version of mine is refused, not altered."""

import duckdb
import pytest

from mine.warehouse import schema
from mine.warehouse.ingest import ingest
from tests.mine_cli import digest, here, one_line_error


def test_a_new_warehouse_records_its_layout_version(warehouse, good_logs):
    _, con = warehouse
    ingest(con, [good_logs])
    assert con.execute("SELECT version FROM warehouse_version").fetchall() == [(schema.VERSION,)]


def test_a_warehouse_of_the_first_layout_is_refused_untouched(warehouse, good_logs):
    _, con = warehouse
    con.execute("CREATE TABLE logs (log_id INTEGER)")  # the first layout had no version table
    with pytest.raises(schema.WarehouseVersionError, match="layout version 1"):
        ingest(con, [good_logs])
    tables = {row[0] for row in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert tables == {"logs"}


def test_a_warehouse_of_a_later_layout_is_refused(warehouse, good_logs):
    _, con = warehouse
    ingest(con, [good_logs])
    con.execute("UPDATE warehouse_version SET version = version + 1")
    with pytest.raises(schema.WarehouseVersionError, match=f"version {schema.VERSION + 1}"):
        ingest(con, [good_logs])


READERS = [
    ("tables",),
    ("query", "SELECT count(*) FROM logs"),
    ("stats", "twentyone"),
    ("stats", "ginrummy"),
    ("fit", "hog", "--out", "{tmp}/hog.parquet"),
    ("fit", "twentyone", "--out", "{tmp}/t21.parquet"),
    ("ingest", "{logs}"),
]


@pytest.fixture
def other_layout(tmp_path, good_logs):
    """A warehouse of the next layout version, and one DuckDB file that is no warehouse."""
    path = tmp_path / "later.duckdb"
    con = duckdb.connect(str(path))
    ingest(con, [good_logs])
    con.execute("UPDATE warehouse_version SET version = version + 1")
    con.close()
    foreign = tmp_path / "foreign.duckdb"
    duckdb.connect(str(foreign)).execute("CREATE TABLE t AS SELECT 1 AS a").close()
    return path, foreign


@pytest.mark.parametrize("command", READERS, ids=lambda c: " ".join(c[:2]))
def test_every_command_refuses_another_layout_and_changes_nothing(
    command, other_layout, tmp_path, good_logs
):
    for db, says in zip(other_layout, ("layout version", "not a mine warehouse"), strict=True):
        before = digest(db)
        args = [a.format(tmp=tmp_path, logs=good_logs) for a in command]
        assert says in one_line_error(here(*args, "--db", db))
        assert digest(db) == before
        assert not list(tmp_path.glob("*.parquet"))


@pytest.mark.parametrize("command", READERS[:-1], ids=lambda c: " ".join(c[:2]))
def test_commands_that_read_never_create_a_warehouse(command, tmp_path):
    missing = tmp_path / "typo.duckdb"
    args = [a.format(tmp=tmp_path, logs="") for a in command]
    assert "no warehouse here yet" in one_line_error(here(*args, "--db", missing))
    assert not missing.exists()

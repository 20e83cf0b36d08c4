"""A warehouse laid out by another version of mine is refused, not altered."""

import pytest

from mine.warehouse import schema
from mine.warehouse.ingest import ingest


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

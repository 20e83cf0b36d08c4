"""The ingest's progress inside a batch: rows move while they are read, files a step at a
time, never backwards, and a landed batch counts whole."""

import duckdb

from mine.warehouse.watch import BatchWatch


def test_a_batch_moves_through_its_steps_and_never_backwards():
    seen: list[tuple[float, int, str]] = []
    con = duckdb.connect()
    watch = BatchWatch(con, lambda files, rows, doing: seen.append((files, rows, doing)))
    watch.close()  # the polling thread stops: the test reports by hand
    watch.start(files=6, rows=900)
    watch.doing("reading")
    watch.report(0.5)
    assert seen[-1] == (1.0, 450, "reading")
    watch.report(0.2)  # the next statement of the step counts from 0 again
    assert seen[-1] == (1.0, 450, "reading")
    watch.doing("checking", "checking the rules")
    watch.report(0.0)
    assert seen[-1] == (2.0, 900, "checking the rules")  # every row is read by now
    watch.doing("landing")
    watch.report(1.0)
    assert seen[-1] == (6.0, 900, "landing")
    watch.finish()
    assert seen[-1] == (6, 900, "")
    watch.start(files=2, rows=100)
    watch.doing("reading")
    watch.report(1.0)
    assert seen[-1] == (6 + 2 / 3, 1000, "reading")


def test_without_a_progress_nothing_is_tracked():
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")  # what a process's earlier tests set may differ
    watch = BatchWatch(con, None)
    watch.start(files=2, rows=10)
    watch.doing("reading")
    watch.report(0.5)
    watch.finish()
    watch.close()
    assert con.execute("SELECT current_setting('enable_progress_bar')").fetchone() == (False,)

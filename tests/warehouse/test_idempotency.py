"""Same content twice changes nothing; changed content replaces the earlier version."""

import random
import shutil

from mine.parsers import ginrummy
from mine.warehouse.ingest import ingest
from tests.data import synth

DATA = ("twentyone_turns", "twentyone_scores", "ginrummy_turns", "ginrummy_rounds", "logs")


def snapshot(con):
    return {
        t: sorted(map(str, con.execute(f"SELECT * EXCLUDE (ingested_at) FROM {t}").fetchall()))
        if t == "logs"
        else sorted(map(str, con.execute(f"SELECT * FROM {t}").fetchall()))
        for t in DATA
    }


def test_ingesting_twice_changes_nothing(warehouse, good_logs):
    _, con = warehouse
    first = ingest(con, [good_logs])
    assert first.count("new") == 4 and first.ok
    before = snapshot(con)
    again = ingest(con, [good_logs])
    assert again.count("unchanged") == 4 and again.count("new") == 0 and again.rows == {}
    assert snapshot(con) == before


def test_a_renamed_copy_elsewhere_is_unchanged(warehouse, good_logs, tmp_path):
    _, con = warehouse
    ingest(con, [good_logs])
    before = snapshot(con)
    elsewhere = tmp_path / "copy"
    elsewhere.mkdir()
    shutil.copy(good_logs / "twentyone" / "t0.csv", elsewhere / "renamed.csv")
    shutil.copy(good_logs / "twentyone" / "t0-score.csv", elsewhere / "renamed-score.csv")
    summary = ingest(con, [elsewhere])
    assert summary.count("unchanged") == 1 and summary.ok
    assert snapshot(con) == before
    (log_id,) = con.execute(
        "SELECT DISTINCT log_id FROM manifest WHERE path LIKE '%/copy/renamed%'"
    ).fetchall()
    assert con.execute("SELECT stem FROM logs WHERE log_id = ?", log_id).fetchone() == ("t0",)


def test_duplicates_within_one_run_land_once(warehouse, good_logs):
    _, con = warehouse
    shutil.copytree(good_logs / "ginrummy", good_logs / "ginrummy-again")
    summary = ingest(con, [good_logs])
    assert summary.count("new") == 4 and summary.count("unchanged") == 2
    assert con.execute("SELECT count(*) FROM logs").fetchone() == (4,)


def test_changed_content_replaces_the_earlier_version(warehouse, good_logs):
    _, con = warehouse
    ingest(con, [good_logs])
    score = good_logs / "ginrummy" / "g0-score.csv"
    old_id = con.execute("SELECT log_id FROM manifest WHERE path = ?", [str(score)]).fetchone()[0]
    # The same names now hold another game (a changed log must still be one that was played).
    turns, scores = synth.ginrummy_game(random.Random(99))
    synth.write_pair(score.parent, "g0", ginrummy, turns, scores)
    summary = ingest(con, [good_logs])
    assert summary.count("replaced") == 1 and summary.count("unchanged") == 3
    assert con.execute("SELECT count(*) FROM logs WHERE log_id = ?", [old_id]).fetchone() == (0,)
    for table in ("ginrummy_turns", "ginrummy_rounds"):
        assert con.execute(
            f"SELECT count(*) FROM {table} WHERE log_id = ?", [old_id]
        ).fetchone() == (0,)
    new_id = con.execute("SELECT log_id FROM manifest WHERE path = ?", [str(score)]).fetchone()[0]
    assert new_id != old_id
    ending = con.execute(
        "SELECT ending FROM ginrummy_rounds WHERE log_id = ? AND round = 1", [new_id]
    ).fetchone()[0]
    assert ending == scores[0].ending
    assert con.execute("SELECT count(*) FROM logs").fetchone() == (4,)

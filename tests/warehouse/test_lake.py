"""The lake without a cluster (its layer, with the runners of `strategies/runners.py`): a
killed ingest leaves it as it was, new content of a file replaces its log as in the
warehouse, the number of workers changes nothing, one writer at a time, and users' SQL
reads the lake and nothing else."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from mine.parsers import hog
from mine.strategies.runners import LocalProcesses, Serial
from mine.warehouse import lake as lakes
from mine.warehouse.ingest import ingest as ingest_warehouse
from tests.conftest import REAL_TWENTYONE
from tests.data import synth

# Ingest into the lake, one pair per task, and die (SIGKILL) after the first task has
# written its files (`task`) or while the manifest is being committed (`commit`).
DYING = """
import os, signal, sys
from pathlib import Path
from mine.warehouse import lake

def die(*args):
    os.kill(os.getpid(), signal.SIGKILL)

class Dying:
    workers = 1
    def map(self, function, tasks):
        for task in tasks:
            yield function(task)
            if sys.argv[3] == "task" and function is lake.land:
                die()

if sys.argv[3] == "commit":
    lake.os.replace = die
lake.ingest(Path(sys.argv[1]), [sys.argv[2]], Dying(), shard_pairs=1)
"""


def _hog_pairs(folder: Path, count: int, seed: int) -> Path:
    rng = random.Random(seed)
    for number in range(count):
        synth.write_pair(folder, f"match{seed}-{number}", hog, *synth.hog_game(rng, 3))
    return folder


def _counts(lake: Path) -> dict[str, int]:
    con = lakes.connect(lake)
    try:
        return {name: rows for name, _, rows, _ in lakes.tables(con, lake)}
    finally:
        con.close()


def _listed(lake: Path) -> set[str]:
    return {f for entry in lakes.read(lake)["tables"].values() for f in entry["files"]}


def _on_disk(lake: Path) -> set[str]:
    return {str(p.relative_to(lake)) for p in lake.rglob("*.parquet")}


@pytest.mark.parametrize("where", ["task", "commit"])
def test_a_killed_ingest_leaves_the_lake_as_it_was(tmp_path, where):
    lake = tmp_path / "lake"
    lakes.ingest(lake, [_hog_pairs(tmp_path / "first", 2, 1)], Serial())
    manifest, counts = (lake / lakes.MANIFEST).read_bytes(), _counts(lake)
    more = _hog_pairs(tmp_path / "more", 2, 2)
    killed = subprocess.run(
        [sys.executable, "-c", DYING, str(lake), str(more), where], capture_output=True
    )
    assert killed.returncode == -9, killed.stderr
    assert (lake / lakes.MANIFEST).read_bytes() == manifest
    assert _counts(lake) == counts
    assert _on_disk(lake) > _listed(lake)  # the killed run's files, listed nowhere
    summary = lakes.ingest(lake, [more], Serial(), shard_pairs=1)
    assert summary.ok and summary.count("new") == 2
    assert _counts(lake)["logs"] == 4
    assert _on_disk(lake) == _listed(lake)  # swept
    assert not list(lake.glob(".*.partial"))


def test_new_content_of_a_file_replaces_its_log_as_in_the_warehouse(tmp_path):
    logs = _hog_pairs(tmp_path / "logs", 2, 3)
    lake, warehouse = tmp_path / "lake", duckdb.connect(str(tmp_path / "w.duckdb"))
    for seed in (3, 4):  # the same names, new content
        _hog_pairs(tmp_path / "logs", 1, seed)
        _rename(tmp_path / "logs", f"match{seed}-0", "match3-0")
        in_lake = lakes.ingest(lake, [logs], Serial())
        in_warehouse = ingest_warehouse(warehouse, [logs])
        assert [p.outcome for p in in_lake.pairs] == [p.outcome for p in in_warehouse.pairs]
    assert "replaced" in [p.outcome for p in in_lake.pairs]
    con = lakes.connect(lake)
    try:
        for sql in (
            "SELECT stem, content_sha256 FROM logs ORDER BY ALL",
            "SELECT count(*), sum(points) FROM hog_turns",
            # the log each file holds now (a pair the lake holds already is not recorded
            # again: the warehouse's manifest says `unchanged` of it)
            "SELECT m.path, l.content_sha256 FROM manifest m JOIN logs l USING (log_id) "
            "ORDER BY ALL",
        ):
            assert con.execute(sql).fetchall() == warehouse.execute(sql).fetchall(), sql
    finally:
        con.close()
        warehouse.close()


def _rename(folder: Path, stem: str, to: str) -> None:
    for suffix in (".csv", "-score.csv"):
        (folder / f"{stem}{suffix}").replace(folder / f"{to}{suffix}")


def _everything(lake: Path) -> list:
    con = lakes.connect(lake)
    try:
        return [
            con.execute(
                f"SELECT COLUMNS(lambda c: c <> 'ingested_at') FROM \"{name}\" ORDER BY ALL"
            ).fetchall()  # a read of many files without ORDER BY has no order
            for name in ("logs", "manifest", "twentyone_turn_rows", "twentyone_round_points")
        ]
    finally:
        con.close()


def test_the_number_of_workers_changes_nothing(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    lakes.ingest(one, [REAL_TWENTYONE], Serial(), shard_pairs=5)
    lakes.ingest(two, [REAL_TWENTYONE], LocalProcesses(2), shard_pairs=5)
    assert _everything(one) == _everything(two)
    assert len(_listed(one)) == len(_listed(two))


def test_one_writer_at_a_time(tmp_path):
    lake = tmp_path / "lake"
    with lakes.locked(lake), pytest.raises(lakes.LakeError, match="being written"):
        lakes.ingest(lake, [REAL_TWENTYONE], Serial(), wait=0.3)


def test_users_sql_reads_the_lake_and_nothing_else(tmp_path):
    lake = tmp_path / "lake"
    lakes.ingest(lake, [REAL_TWENTYONE], Serial())
    outside = tmp_path / "outside.csv"
    outside.write_text("a\n1\n")
    con = lakes.connect(lake, sealed=True)
    try:
        assert con.execute("SELECT count(*) FROM twentyone_turns").fetchall()[0][0] == 14731
        for refused in (
            f"SELECT * FROM read_csv('{outside}')",
            f"SELECT * FROM read_csv('{lake}/../outside.csv')",
            "SET enable_external_access = true",
        ):
            with pytest.raises(duckdb.Error):
                con.execute(refused)
    finally:
        con.close()


def _outside(tmp_path: Path) -> dict[str, bytes]:
    """A folder outside the lake holding what looks like a lake's files, and its bytes."""
    outside = tmp_path / "outside"
    (outside / "bucket=000000").mkdir(parents=True)
    (outside / "bucket=000000" / "part-0000000099-0123456789ab.parquet").write_bytes(b"mine")
    (outside / "data-0123456789ab.parquet").write_bytes(b"mine too")
    return {str(p.relative_to(outside)): p.read_bytes() for p in outside.rglob("*") if p.is_file()}


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("table", ["twentyone_turn_rows", "ginrummy_turns"])
def test_a_link_in_the_lake_takes_no_write_or_removal_out_of_it(tmp_path, table):
    """A table's folder that is a link out of the lake: the TwentyOne logs' rows would be
    written through it (refused), Gin Rummy's folder would be swept (left alone)."""
    lake = tmp_path / "lake"
    lakes.ingest(lake, [_hog_pairs(tmp_path / "first", 2, 1)], Serial())
    mine = _outside(tmp_path)
    (lake / table).symlink_to(tmp_path / "outside")
    if table == "twentyone_turn_rows":
        with pytest.raises(lakes.LakeError, match="a link out of the lake"):
            lakes.ingest(lake, [REAL_TWENTYONE], Serial())
    else:
        assert lakes.ingest(lake, [REAL_TWENTYONE], Serial()).ok
    assert _files(tmp_path / "outside") == mine


def test_statistics_are_stored_in_no_folder_a_link_leads_out(tmp_path):
    lake = tmp_path / "lake"
    lakes.ingest(lake, [_hog_pairs(tmp_path / "first", 2, 1)], Serial())
    mine = _outside(tmp_path)
    (lake / "stats_hog_x").symlink_to(tmp_path / "outside")
    con = duckdb.connect()
    con.execute("CREATE TABLE stats_hog_x AS SELECT 1 AS n")
    with pytest.raises(lakes.LakeError, match="a link out of the lake"):
        lakes.store(lake, con, ["stats_hog_x"])
    assert _files(tmp_path / "outside") == mine


def test_a_reader_reads_on_across_a_store_and_an_ingest(tmp_path):
    """`mine query --lake` or `tables --lake` while `mine stats --lake` stored said
    `…/data-….parquet: listed in lake.json, cannot be read (No such file or directory)`: the
    store, or an ingest's sweep, removed the file a statistics table's new version replaced
    as soon as it committed, while a reader that had read lake.json before read it. It
    stays now until the table's next store, which removes it (no file piles up)."""
    lake = tmp_path / "lake"
    lakes.ingest(lake, [_hog_pairs(tmp_path / "first", 2, 1)], Serial())
    stats = duckdb.connect()
    stats.execute("CREATE TABLE stats_hog_x AS SELECT 1 AS n")
    lakes.store(lake, stats, ["stats_hog_x"])
    reader = lakes.connect(lake)
    stats.execute("CREATE OR REPLACE TABLE stats_hog_x AS SELECT 2 AS n")
    lakes.store(lake, stats, ["stats_hog_x"])
    lakes.ingest(lake, [_hog_pairs(tmp_path / "more", 1, 2)], Serial())
    assert reader.execute("SELECT n FROM stats_hog_x").fetchall() == [(1,)]
    reader.close()
    lakes.store(lake, stats, ["stats_hog_x"])
    assert len(list((lake / "stats_hog_x").iterdir())) == 2


def test_what_the_lake_does_not_name_as_its_own_is_left_where_it_is(tmp_path):
    lake = tmp_path / "lake"
    lakes.ingest(lake, [_hog_pairs(tmp_path / "first", 2, 1)], Serial())
    (lake / "logs" / "bucket=notes").mkdir()
    (lake / "logs" / "bucket=notes" / "part-0000000099-0123456789ab.parquet").write_bytes(b"x")
    (lake / "notes").mkdir()
    (lake / "notes" / "data-0123456789ab.parquet").write_bytes(b"x")
    summary = lakes.ingest(lake, [_hog_pairs(tmp_path / "more", 2, 2)], Serial())
    assert summary.ok and summary.count("new") == 2
    assert (lake / "logs" / "bucket=notes" / "part-0000000099-0123456789ab.parquet").exists()
    assert (lake / "notes" / "data-0123456789ab.parquet").exists()

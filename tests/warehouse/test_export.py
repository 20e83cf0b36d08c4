"""`mine export`: the whole warehouse as hive-partitioned Parquet that DuckDB and polars
read back row for row."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import duckdb
import polars as pl
import pytest

from mine.parsers import hog
from mine.warehouse import export as exporting
from mine.warehouse.ingest import ingest
from tests.conftest import REAL_GINRUMMY, REAL_TWENTYONE
from tests.data import synth
from tests.mine_cli import digest, here, one_line_error


def test_every_table_comes_back_row_for_row(tmp_path):
    db = tmp_path / "w.duckdb"
    con = duckdb.connect(str(db))
    ingest(con, [REAL_GINRUMMY, REAL_TWENTYONE])
    con.close()
    before = digest(db)
    out = tmp_path / "export"
    result = here("export", out, "--db", db, "--json")
    assert result.returncode == 0, result.stderr
    manifest = json.loads(result.stdout)
    assert manifest == json.loads((out / "manifest.json").read_text())
    con = duckdb.connect(str(db), read_only=True)
    for table, figures in manifest["tables"].items():
        files = f"{out}/{table}/**/*.parquet"
        back = duckdb.sql(f"SELECT * FROM read_parquet('{files}', hive_partitioning = true)")
        assert (
            len(back.fetchall())
            == figures["rows"]
            == con.sql(f'SELECT count(*) FROM "{table}"').fetchall()[0][0]
        )
        if figures["partitioned_by"]:
            assert {"log_game", "log_bucket", "log_id"} <= set(back.columns)
    turns = pl.scan_parquet(f"{out}/ginrummy_turns/**/*.parquet", hive_partitioning=True)
    mine_rows = con.sql("SELECT count(*), count(DISTINCT log_id) FROM ginrummy_turns").fetchall()
    polars_rows = turns.select(pl.len(), pl.col("log_id").n_unique()).collect().row(0)
    assert polars_rows == mine_rows[0]
    con.close()
    assert digest(db) == before


def test_an_existing_folder_is_not_exported_over(tmp_path):
    db = tmp_path / "w.duckdb"
    duckdb.connect(str(db)).close()
    here("ingest", REAL_GINRUMMY, "--db", db)
    (tmp_path / "taken").mkdir()
    assert "already exists" in one_line_error(here("export", tmp_path / "taken", "--db", db))
    assert list((tmp_path / "taken").iterdir()) == []


def test_an_earlier_export_is_replaced_but_not_a_folder_holding_more(tmp_path):
    db, out = tmp_path / "w.duckdb", tmp_path / "out"
    assert here("ingest", REAL_GINRUMMY, "--db", db, "--json").returncode == 0
    assert here("export", out, "--db", db, "--json").returncode == 0
    assert here("ingest", REAL_TWENTYONE, "--db", db, "--json").returncode == 0
    again = here("export", out, "--db", db, "--json")  # the README's tour, run twice
    assert again.returncode == 0, again.stderr
    logs = duckdb.sql(f"SELECT count(*) FROM read_parquet('{out}/logs/*.parquet')").fetchall()
    con = duckdb.connect(str(db), read_only=True)
    assert logs == con.execute("SELECT count(*) FROM logs").fetchall()
    con.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "w.duckdb"]  # nothing aside
    (out / "notes.txt").write_text("mine")
    before = {p.relative_to(out): digest(p) for p in out.rglob("*") if p.is_file()}
    assert "no earlier export" in one_line_error(here("export", out, "--db", db))
    assert {p.relative_to(out): digest(p) for p in out.rglob("*") if p.is_file()} == before


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A warehouse of real TwentyOne and Gin Rummy logs and simulated Hog games, its logs
    spread over several buckets of ids, and its export."""
    folder = tmp_path_factory.mktemp("export")
    db = folder / "w.duckdb"
    con = duckdb.connect(str(db))
    rng = random.Random(3)
    for i in range(3):
        synth.write_pair(folder / "hog", f"h{i}", hog, *synth.hog_game(rng, 3))
    assert ingest(con, [REAL_GINRUMMY, REAL_TWENTYONE, folder / "hog"]).ok
    # 2,500 more logs (copies of one Hog log's turns under other ids, counted as their
    # logs' rows): ids up to 3 buckets further
    con.execute(
        "CREATE TEMP TABLE one AS SELECT * FROM hog_turns WHERE log_id = (SELECT min(log_id) FROM logs WHERE game = 'hog')"
    )
    con.execute(
        "INSERT INTO logs SELECT i, 'hog', 'copy-' || i, md5(i::VARCHAR), (SELECT count(*) FROM one), 0, now() FROM range(1000, 3500) r(i)"
    )
    con.execute(
        "INSERT INTO hog_turns SELECT one.* REPLACE (i::INTEGER AS log_id) FROM one, range(1000, 3500) r(i)"
    )
    con.close()
    out = folder / "out"
    result = here("export", out, "--db", db, "--json")
    assert result.returncode == 0, result.stderr
    return db, out, json.loads(result.stdout)


def parquet(out, table: str) -> str:
    return f"read_parquet('{out}/{table}/**/*.parquet', hive_partitioning = true)"


def back(out, table: str):
    return duckdb.sql(f"SELECT * FROM {parquet(out, table)}")


def test_partitions_are_buckets_of_logs_not_one_folder_per_log(exported):
    db, out, manifest = exported
    assert manifest["partitioned_by"] == ["log_game", "log_bucket"]
    folders = sorted(
        p.relative_to(out / "hog_turns").as_posix() for p in (out / "hog_turns").glob("*/*")
    )
    assert folders == [f"log_game=hog/log_bucket={b}" for b in range(4)]
    con = duckdb.connect(str(db), read_only=True)
    logs = con.sql("SELECT count(*) FROM logs").fetchall()[0][0]
    assert logs > 2500
    files = sum(1 for _ in out.rglob("*.parquet"))
    assert files < 100  # one folder per log would be thousands
    con.close()


def test_a_table_with_its_own_game_column_keeps_it_and_the_partition_says_what_it_is(exported):
    db, out, manifest = exported
    read = back(out, "hog_turns")
    assert "game" in read.columns and "game_1" not in read.columns
    con = duckdb.connect(str(db), read_only=True)
    games = con.sql("SELECT list_sort(list(DISTINCT game)) FROM hog_turns").fetchall()[0][0]
    lists = f"SELECT list_sort(list(DISTINCT game)), list(DISTINCT log_game) FROM {parquet(out, 'hog_turns')}"
    assert duckdb.sql(lists).fetchall()[0] == (games, ["hog"])
    assert manifest["tables"]["hog_turns"]["partitioned_by"] == ["log_game", "log_bucket"]
    con.close()


@pytest.mark.parametrize("view", ["twentyone_hands", "twentyone_turns", "ginrummy_games"])
def test_views_are_exported_row_for_row(exported, view):
    db, out, manifest = exported
    assert manifest["tables"][view]["kind"] == "view"
    con = duckdb.connect(str(db), read_only=True)
    columns = ", ".join(f'"{c}"' for c in manifest["tables"][view]["columns"])
    ours = con.sql(f"SELECT {columns} FROM {view} ORDER BY ALL").fetchall()
    again = f"SELECT {columns} FROM {parquet(out, view)} ORDER BY ALL"
    assert duckdb.sql(again).fetchall() == ours
    con.close()


def test_numbers_come_back_as_integers_not_decimals(exported):
    _, out, manifest = exported
    for table in manifest["tables"]:
        read = back(out, table)
        for name, kind in zip(read.columns, read.types, strict=True):
            assert not str(kind).startswith("DECIMAL"), (table, name, kind)
    read = back(out, "ginrummy_games")
    assert dict(zip(read.columns, map(str, read.types), strict=True))["points"] == "BIGINT"


def test_a_killed_exports_partial_folder_is_removed_by_the_next(exported, tmp_path):
    db, _, _ = exported
    dead = subprocess.Popen(["true"])
    dead.wait()
    left = tmp_path / f".out.{dead.pid}.partial"
    (left / "hog_turns").mkdir(parents=True)
    (left / "hog_turns" / "data_0.parquet").write_bytes(b"half")
    result = here("export", tmp_path / "out", "--db", db, "--json")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


# --- what an earlier export is: only what an export wrote, verified ----------------------------


def _user_file_named_in_the_manifest(out):
    (out / "notes.txt").write_text("mine")
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["tables"]["notes.txt"] = manifest["tables"]["logs"]
    (out / "manifest.json").write_text(json.dumps(manifest))


def _manifest_naming(name: str):
    def tamper(out):
        manifest = json.loads((out / "manifest.json").read_text())
        manifest["tables"][name] = manifest["tables"]["logs"]
        (out / "manifest.json").write_text(json.dumps(manifest))

    return tamper


def _table_folder_a_link(out):
    (out.parent / "mine").mkdir()
    (out.parent / "mine" / "notes.txt").write_text("mine")
    shutil.rmtree(out / "logs")
    (out / "logs").symlink_to(out.parent / "mine")


def _manifest_a_link(out):
    (out.parent / "mine.json").write_text((out / "manifest.json").read_text())
    (out / "manifest.json").unlink()
    (out / "manifest.json").symlink_to(out.parent / "mine.json")


USERS = {
    "a file in a table's folder": lambda out: (out / "logs" / "notes.txt").write_text("mine"),
    "a file in a partition": lambda out: (
        next(out.glob("ginrummy_turns/*/*")).joinpath("notes.txt").write_text("mine")
    ),
    "a folder in a table's folder": lambda out: (out / "logs" / "mine").mkdir(),
    "a file the manifest names": _user_file_named_in_the_manifest,
    "a manifest naming /": _manifest_naming("/"),
    "a manifest naming ..": _manifest_naming(".."),
    "a table's folder a link": _table_folder_a_link,
    "the manifest a link": _manifest_a_link,
    "a manifest that is no JSON object": lambda out: (out / "manifest.json").write_text("[1]"),
}


def _tree(folder):
    """Every path under `folder` (links not followed) and the bytes of each file."""
    return {
        p.relative_to(folder): p.readlink() if p.is_symlink() else p.is_file() and digest(p)
        for p in folder.rglob("*")
    }


@pytest.mark.parametrize("user", USERS, ids=str)
def test_an_export_holding_what_no_export_wrote_is_not_replaced(exported, tmp_path, user):
    db, earlier, _ = exported
    out = tmp_path / "out"
    shutil.copytree(earlier, out)
    USERS[user](out)
    before = _tree(tmp_path)
    assert "no earlier export" in one_line_error(here("export", out, "--db", db))
    assert _tree(tmp_path) == before


def test_a_file_put_in_an_earlier_export_while_exporting_is_kept(exported, tmp_path):
    """The earlier export is checked again when it is replaced, not only before the work."""
    db, earlier, _ = exported
    out = tmp_path / "out"
    shutil.copytree(earlier, out)
    con = duckdb.connect(str(db), read_only=True)
    writing = exporting._write

    def meanwhile(*args):  # the user, while the export runs
        (out / "logs" / "notes.txt").write_text("mine")
        return writing(*args)

    try:
        with pytest.MonkeyPatch.context() as patch, pytest.raises(exporting.NotAnExport):
            patch.setattr(exporting, "_write", meanwhile)
            exporting.export(con, out)
    finally:
        con.close()
    assert (out / "logs" / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # nothing aside, no partial

"""A lake ingested on the cluster answers as the warehouse does, on the real logs: the same
outcome of every pair (the fixtures' rejected pair lands nowhere, and says so in the
same line), the same rows in every table and view, the same statistics (derived part by
part on the cluster and summed) and the same fitted tables, byte for byte."""

from __future__ import annotations

import json
import random
from pathlib import Path

import duckdb
import pytest

from mine import games
from mine.parsers import hog
from mine.warehouse import lake as lakes
from tests.conftest import REPO
from tests.data import synth
from tests.mine_cli import invoke

SHARED = next((p for p in (REPO.parent / "shared", Path("/work/shared")) if p.exists()), None)
REAL = [REPO / "examples" / "logs", *([SHARED / "fixtures"] if SHARED else [])]
SHARD_PAIRS = 7  # the hundred pairs in fifteen tasks
LOOP_GAMES = [game.name for game in games.with_part("stats")]
FIT = {"cardguess": ["--n", "2", "--quick"]}  # its default n = 2, 3, 4 searches for minutes


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> list[Path]:
    """The real logs, and Hog's (the games without real logs are simulated), one of them bad."""
    folder = tmp_path_factory.mktemp("hog")
    rng = random.Random(5)
    for number in range(5):
        synth.write_pair(folder, f"match{number}", hog, *synth.hog_game(rng, 12))
    with (folder / "match4.csv").open("a") as turns:  # a rejected pair inside a sharded batch
        turns.write("not,a,turn\n")
    return [*REAL, folder]


@pytest.fixture(scope="module")
def both(cluster, sources, tmp_path_factory):
    """(warehouse file, lake folder, their ingests' results) of the same logs."""
    root = tmp_path_factory.mktemp("both")
    db, lake = root / "w.duckdb", root / "lake"
    warehouse = invoke("ingest", *sources, "--db", db, "--json", ok=False)
    lake_run = cluster.invoke(
        "ingest", *sources, "--lake", lake, "--cluster", cluster.address, "--shard-pairs",
        SHARD_PAIRS, "--json", ok=False,
    )  # fmt: skip
    return db, lake, warehouse, lake_run


def _comparable(result) -> dict:
    """An ingest's JSON without what differs by design (log ids, seconds)."""
    summary = json.loads(result.stdout)
    del summary["seconds"]
    for pair in summary["files"]:
        del pair["log_id"]
    return summary


def test_ingest_says_what_the_warehouse_says(both):
    _, _, warehouse, lake_run = both
    assert lake_run.exit_code == warehouse.exit_code
    assert _comparable(lake_run) == _comparable(warehouse)
    assert warehouse.exit_code == 1  # a rejected pair, inside a sharded batch: its one line
    assert json.loads(warehouse.stdout)["errors"]


def test_nothing_of_a_rejected_pair_lands(both):
    _, lake, _, lake_run = both
    rejected = [p for p in json.loads(lake_run.stdout)["files"] if p["outcome"] == "rejected"]
    con = lakes.connect(lake)
    try:
        for pair in rejected:
            held = con.execute(
                "SELECT count(*) FROM logs WHERE stem = ? AND game = ?",
                [pair["stem"], pair["game"]],
            ).fetchall()[0][0]
            recorded = con.execute(
                "SELECT outcome, error, log_id FROM manifest WHERE path = ?", [pair["turns"]]
            ).fetchall()
            assert held == 0 and recorded == [("rejected", pair["error"], None)]
    finally:
        con.close()


def _rows(con: duckdb.DuckDBPyConnection, name: str) -> tuple[int, int]:
    """How many rows and an order-free digest of them, each log named by its content (its
    id depends on how the batch was cut) and without ingest times."""
    columns = [row[0] for row in con.execute(f'DESCRIBE "{name}"').fetchall()]
    dropped = [c for c in ("log_id", "ingested_at") if c in columns]
    rows = f'SELECT * EXCLUDE ({", ".join(dropped)}) FROM "{name}"' if dropped else f'FROM "{name}"'
    if "log_id" in columns and name != "logs":
        rows = (
            f"SELECT l.content_sha256, t.* EXCLUDE ({', '.join(dropped)}) "
            f'FROM "{name}" t LEFT JOIN logs l USING (log_id)'
        )
    return con.execute(f"SELECT count(*), sum(hash(r)::HUGEINT) FROM ({rows}) r").fetchall()[0]


def test_every_table_and_view_holds_the_same_rows(both):
    db, lake, *_ = both
    warehouse, lake_con = duckdb.connect(str(db), read_only=True), lakes.connect(lake, sealed=True)
    try:
        names = [name for name, *_ in lakes.tables(lake_con, lake)]
        in_warehouse = [
            row[0]
            for row in warehouse.execute(
                "SELECT table_name FROM duckdb_tables() UNION ALL "
                "SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1"
            ).fetchall()
        ]
        assert names == in_warehouse
        for name in names:
            assert _rows(lake_con, name) == _rows(warehouse, name), name
    finally:
        warehouse.close()
        lake_con.close()


def test_the_tables_command_lists_the_same(both):
    db, lake, *_ = both
    listed = [
        json.loads(invoke("tables", *where, "--json").stdout)["tables"]
        for where in (("--db", db), ("--lake", lake))
    ]
    assert listed[0] == listed[1]


@pytest.mark.parametrize("game", LOOP_GAMES)
def test_statistics_and_fitted_tables_are_the_same(both, cluster, game, tmp_path):
    db, lake, *_ = both
    on_warehouse = json.loads(invoke("stats", game, "--db", db, "--json").stdout)
    on_cluster = cluster.invoke("stats", game, "--lake", lake, "--cluster", cluster.address,
                                "--json")  # fmt: skip
    assert json.loads(on_cluster.stdout) == on_warehouse
    warehouse, lake_con = duckdb.connect(str(db), read_only=True), lakes.connect(lake)
    try:
        for name in on_warehouse["tables"]:
            # a lake's log ids are not a warehouse's (by design): the logs are their stems
            ordered = f"SELECT COLUMNS(lambda c: c <> 'log_id') FROM \"{name}\" ORDER BY ALL"
            assert lake_con.execute(ordered).fetchall() == warehouse.execute(ordered).fetchall()
    finally:
        warehouse.close()
        lake_con.close()
    fitted = []
    for where in (("--db", db), ("--lake", lake)):
        out = tmp_path / f"{where[0][2:]}.parquet"
        invoke("fit", game, *where, *FIT.get(game, []), "--out", out)
        fitted.append([path.read_bytes() for path in sorted(tmp_path.glob(f"{out.stem}.*"))])
    assert fitted[0] == fitted[1]


def test_ingesting_again_adds_nothing(both, cluster, sources):
    _, lake, _, first = both
    before = lakes.read(lake)
    again = cluster.invoke(
        "ingest", *sources, "--lake", lake, "--cluster", cluster.address, "--shard-pairs",
        SHARD_PAIRS, "--json", ok=False,
    )  # fmt: skip
    summary = json.loads(again.stdout)
    assert summary["pairs"]["new"] == summary["pairs"]["replaced"] == 0
    assert summary["rows"] == {}
    assert summary["errors"] == json.loads(first.stdout)["errors"]  # checked again, refused again
    after = lakes.read(lake)
    for name, entry in before["tables"].items():
        if name != "manifest":  # a rejected pair is recorded again, as in the warehouse
            assert after["tables"][name] == entry, name


def test_statistics_of_some_logs_are_the_same(both, cluster, sources):
    """`--logs`: each part's share of the chosen logs (parts without any are skipped)."""
    db, lake, *_ = both
    chosen = ["--logs", str(sources[-1] / "match1*")]
    on_warehouse = invoke("stats", "hog", "--db", db, *chosen, "--json").stdout
    on_cluster = cluster.invoke("stats", "hog", "--lake", lake, "--cluster", cluster.address,
                                *chosen, "--json")  # fmt: skip
    assert json.loads(on_cluster.stdout) == json.loads(on_warehouse)
    assert json.loads(on_warehouse)["turns"] < json.loads(invoke(
        "stats", "hog", "--db", db, "--json").stdout)["turns"]  # fmt: skip

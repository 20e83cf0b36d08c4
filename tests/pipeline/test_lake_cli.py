"""`--lake` and `--cluster` as a user meets them: what they cannot mean is one error line
(and no cluster started for it); a lake takes the commands a warehouse takes."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REAL_TWENTYONE
from tests.mine_cli import here, mine, one_line_error


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lake") / "lake"
    done = here("ingest", REAL_TWENTYONE, "--lake", folder, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["pairs"]["new"] == 10
    return folder


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["ingest", REAL_TWENTYONE, "--cluster", "local:1"], "give --lake DIR"),
        (["ingest", REAL_TWENTYONE, "--lake", "x", "--db", "y.duckdb"], "not both"),
        (["ingest", REAL_TWENTYONE, "--lake", "x", "--cluster", "local:0"], "local:N"),
        (["stats", "hog", "--cluster", "local:1"], "give --lake DIR"),
        (["query", "SELECT 1", "--lake", "nowhere"], "no lake here yet"),
        (["tables", "--lake", "nowhere"], "no lake here yet"),
    ],
)
def test_what_cannot_be_done_is_one_line(args, says, tmp_path):
    run = mine if "--cluster" in args else here  # were Ray started, not in this process
    error = one_line_error(run(*args, cwd=tmp_path))
    assert says in error
    assert not (tmp_path / "x").exists()


def test_a_lake_takes_the_warehouse_commands(lake, tmp_path):
    turns = mine("query", "SELECT count(*) AS n FROM twentyone_turns", "--lake", lake,
                 "--format", "csv")  # fmt: skip
    assert turns.stdout.splitlines() == ["n", "14731"]
    listed = json.loads(here("tables", "--lake", lake, "--json").stdout)["tables"]
    assert {t["name"]: t["kind"] for t in listed}["twentyone_turn_rows"] == "table"
    outside = tmp_path / "secret.csv"
    outside.write_text("a\n1\n")
    refused = here("query", f"SELECT * FROM read_csv('{outside}')", "--lake", lake)
    assert "secret" in one_line_error(refused)
    clobber = here("query", "SELECT 1", "--lake", lake, "--out", lake / "lake.json")
    assert "this command reads that file" in one_line_error(clobber)


def test_ingest_says_where_to_go_next(lake):
    again = here("ingest", REAL_TWENTYONE, "--lake", lake)
    assert again.returncode == 0, again.stderr
    assert f"next: mine stats twentyone --lake {lake}" in again.stderr


def test_a_folder_of_other_files_is_not_made_a_lake(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    refused = here("ingest", REAL_TWENTYONE, "--lake", tmp_path)
    assert "not a lake" in one_line_error(refused)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]

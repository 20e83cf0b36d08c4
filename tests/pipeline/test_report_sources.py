"""`mine report` says which folders' logs it read, as `stats` and `fit` do (issue 41):
a page drawn from the warehouse mixes every folder's logs unless `--logs` picks one."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import REPO
from tests.mine_cli import here, one_line_error
from tests.shared_warehouse import copy_of, twentyone_table

# What a report says of its sources is the same whatever it runs in, so the commands run
# in this process (`here`: mine's own entry point). The player is measured on the fewest
# hands `--hands` takes: what is asserted is which logs the page read, not the player.
HANDS = ("--hands", "1000")


@pytest.fixture(scope="module")
def two_folders(tmp_path_factory):
    """A real warehouse with TwentyOne logs of two folders (real example logs copied into
    `mylogs/`, a small simulation in `sims/`) and a table (fitted from the real logs: any
    table does, the page's sources are the warehouse's)."""
    root = tmp_path_factory.mktemp("report-sources")
    shutil.copytree(REPO / "examples" / "logs" / "twentyone", root / "mylogs")
    copy_of(twentyone_table(tmp_path_factory), root / "t.parquet")
    steps = [
        ("simulate", "twentyone", "--games", "2", "--seed", "1", "--out", "sims"),
        ("ingest", "mylogs", "sims", "--db", "w.duckdb"),
    ]
    for step in steps:
        done = here(*step, cwd=root)
        assert done.returncode == 0, (step, done.stderr)
    counts = {
        folder: len(list((root / folder).rglob("*-score.csv"))) for folder in ("mylogs", "sims")
    }
    return root, counts


def test_a_report_names_every_folder_it_read(two_folders):
    root, counts = two_folders
    shown = here("report", "twentyone", "--table", "t.parquet", "--db", "w.duckdb", *HANDS,
                 "--out", "all.html", cwd=root)  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    said = " ".join(shown.stdout.split())
    assert f"{counts['mylogs']} from mylogs/" in said and f"{counts['sims']} from sims/" in said
    assert "--logs FOLDER reads one" in said and "wrote all.html" in said


def test_a_report_of_one_folder_says_so_and_its_json_names_it(two_folders):
    root, counts = two_folders
    shown = here("report", "twentyone", "--table", "t.parquet", "--db", "w.duckdb", "--logs",
                 "mylogs/", *HANDS, "--out", "mine.html", "--json", cwd=root)  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    written = json.loads(shown.stdout)
    assert written["sources"] == [{"folder": str(root / "mylogs"), "logs": counts["mylogs"]}]
    assert (
        written["wrote"] == "mine.html" and written["bytes"] == (root / "mine.html").stat().st_size
    )


@pytest.mark.parametrize("as_json", [False, True])
def test_a_report_whose_logs_are_none_of_the_warehouse_says_why(two_folders, as_json):
    """`--logs` that names no ingested file (a typo) draws the table alone: the page is
    written, but the user is told why the logged games are missing, never left to guess,
    and the command fails, as for any bad input (it wrote the page and exited 0)."""
    root, _ = two_folders
    json_flag = ("--json",) if as_json else ()
    shown = here("report", "twentyone", "--table", "t.parquet", "--db", "w.duckdb", "--logs",
                 "mylgs/", *HANDS, "--out", "typo.html", *json_flag, cwd=root)  # fmt: skip
    line = one_line_error(shown, code=1)
    assert "no ingested TwentyOne log comes from a file matching 'mylgs/*'" in line
    assert "the page draws the table alone, without the logged games" in line
    assert (root / "typo.html").stat().st_size > 0

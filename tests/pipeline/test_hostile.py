"""The commands against what a hostile (or unlucky) user does to them: redirections,
targets that are not plain files, files that are not warehouses, kills and Ctrl-C, full
disks, broken warehouses. Each case ends in the work done or one `error:` line and a
non-zero exit, nothing half-written and nothing of the user's lost. Real processes, real
files."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import time
from pathlib import Path

import duckdb
import pytest

from mine.warehouse.ingest import ingest
from tests.conftest import REAL_GINRUMMY
from tests.mine_cli import MINE, digest, mine, one_line_error


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    """A warehouse of the real Gin Rummy logs (read only by the tests that take it)."""
    path = tmp_path_factory.mktemp("hostile") / "w.duckdb"
    con = duckdb.connect(str(path))
    assert ingest(con, [REAL_GINRUMMY]).ok
    con.close()
    return path


SMALL = "SELECT stem, turn_rows FROM logs ORDER BY log_id LIMIT 3"


def expected(db: Path, fmt: str) -> bytes:
    result = subprocess.run(
        [MINE, "query", SMALL, "--format", fmt, "--db", db], capture_output=True, check=True
    )
    return result.stdout


# --- query to a redirected stdout ----------------------------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_query_appends_to_a_file_opened_for_appending(db, tmp_path, fmt):
    target = tmp_path / "acc"
    target.write_bytes(b"earlier lines\n")
    with open(target, "ab") as sink:
        subprocess.run([MINE, "query", SMALL, "--format", fmt, "--db", db], stdout=sink, check=True)
    assert target.read_bytes() == b"earlier lines\n" + expected(db, fmt)


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_query_writes_where_the_shared_file_stands(db, tmp_path, fmt):
    """`(echo A; mine query …; echo B) > f`: in order, no NUL bytes."""
    target = tmp_path / "f"
    subprocess.run(
        ["sh", "-c", f'(echo A; "$0" query "{SMALL}" --format {fmt} --db "$1"; echo B) > "$2"',
         MINE, db, target],
        check=True,
    )  # fmt: skip
    assert target.read_bytes() == b"A\n" + expected(db, fmt) + b"B\n"


def test_query_to_a_reader_that_leaves_early_ends_quietly(db):
    result = subprocess.run(
        ["sh", "-c", '"$0" query "SELECT * FROM range(3000000)" --format csv --db "$1" | head -2',
         MINE, db],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.stdout == "range\n0\n"
    assert result.stderr == ""


# --- --db that is not a warehouse --------------------------------------------------------


def not_a_warehouse(folder: Path, kind: str) -> Path:
    if kind == "csv":
        path = folder / "t.csv"
        path.write_text("a,b\n1,2\n")
    elif kind == "json":
        path = folder / "t.json"
        path.write_text('[{"a": 1}]\n')
    elif kind == "parquet":
        path = folder / "t.parquet"
        duckdb.sql(f"COPY (SELECT 1 AS a) TO '{path}' (FORMAT parquet)")
    else:  # a FIFO: DuckDB would wait on it forever
        path = folder / "fifo"
        os.mkfifo(path)
    return path


NOT_WAREHOUSES = ["csv", "json", "parquet", "fifo"]


@pytest.mark.parametrize("kind", NOT_WAREHOUSES)
def test_ingest_refuses_a_db_that_is_not_a_warehouse_and_leaves_it_be(tmp_path, kind):
    target = not_a_warehouse(tmp_path, kind)
    before = None if kind == "fifo" else digest(target)
    result = mine("ingest", REAL_GINRUMMY, "--db", target, timeout=30)
    assert "not a" in one_line_error(result)
    assert before is None or digest(target) == before


@pytest.mark.parametrize("command", [["tables"], ["query", "SELECT 1"], ["export", "x"],
                                     ["stats", "ginrummy"]])  # fmt: skip
@pytest.mark.parametrize("kind", ["parquet", "fifo"])
def test_every_command_refuses_a_db_that_is_not_a_warehouse(tmp_path, kind, command):
    target = not_a_warehouse(tmp_path, kind)
    one_line_error(mine(*command, "--db", target, cwd=tmp_path, timeout=30))
    assert not (tmp_path / "x").exists()


def test_a_path_component_too_long_is_one_line(tmp_path):
    long = tmp_path / ("x" * 300) / "w.duckdb"
    assert "too long" in one_line_error(mine("ingest", REAL_GINRUMMY, "--db", long))


# --- outputs: through symlinks, never onto devices or the command's own inputs ------------


@pytest.fixture(scope="module")
def hog_table(tmp_path_factory) -> Path:
    """A fitted Hog table (hog.parquet + hog.json), its warehouse and a player file."""
    folder = tmp_path_factory.mktemp("hog")
    db = folder / "w.duckdb"
    steps = [
        ("simulate", "hog", "--games", 200, "--players", "always_roll:6,random", "--seed", 1,
         "--out", folder / "sims", "--json"),
        ("ingest", folder / "sims", "--db", db, "--json"),
        ("fit", "hog", "--method", "best-response", "--opponent", "always_roll:6",
         "--out", folder / "hog.parquet", "--db", db, "--json"),
        ("generate", "hog", "--table", folder / "hog.parquet", "--out", folder / "p.py", "--json"),
    ]  # fmt: skip
    for step in steps:
        result = mine(*step)
        assert result.returncode == 0, result.stderr
    return folder / "hog.parquet"


def own_copy(hog_table: Path, folder: Path) -> Path:
    for name in ("hog.parquet", "hog.json", "p.py", "w.duckdb"):
        shutil.copyfile(hog_table.parent / name, folder / name)
    return folder / "hog.parquet"


def writing(kind: str, table: Path, out: Path) -> list:
    """The command line that writes `out`, of each kind of output."""
    db = table.parent / "w.duckdb"
    return {
        "query": ["query", "SELECT * FROM logs", "--format", "csv", "--out", out, "--db", db],
        "fit": ["fit", "hog", "--method", "best-response", "--opponent", "always_roll:6",
                "--out", out, "--db", db],
        "generate": ["generate", "hog", "--table", table, "--out", out],
        "report": ["report", "hog", "--table", table, "--out", out],
    }[kind]  # fmt: skip


KINDS = ["query", "fit", "generate", "report"]
SUFFIX = {"query": ".csv", "fit": ".parquet", "generate": ".py", "report": ".html"}


@pytest.mark.parametrize("kind", KINDS)
def test_an_output_through_a_symlink_is_written_to_its_target(hog_table, tmp_path, kind):
    table = own_copy(hog_table, tmp_path)
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / f"out{SUFFIX[kind]}"
    real.write_text("old\n")
    link = tmp_path / f"link{SUFFIX[kind]}"
    link.symlink_to(real)
    result = mine(*writing(kind, table, link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and link.resolve() == real
    assert real.read_bytes() != b"old\n" and real.stat().st_size > 0
    assert [p.name for p in (tmp_path / "real").iterdir()] == [real.name]  # no partial left


def special_file(folder: Path, kind: str, suffix: str = "") -> Path:
    path = folder / f"{kind}{suffix}"
    if kind == "fifo":
        os.mkfifo(path)
    else:  # a character device like /dev/null (made here: replacing it harms nothing)
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return path


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("node", ["fifo", "device"])
def test_an_output_onto_a_fifo_or_device_is_refused_and_the_node_stays(
    hog_table, tmp_path, kind, node
):
    table = own_copy(hog_table, tmp_path)
    special = special_file(tmp_path, node, SUFFIX[kind])
    mode = special.lstat().st_mode
    line = one_line_error(mine(*writing(kind, table, special), timeout=60))
    assert "not a regular file" in line
    assert special.lstat().st_mode == mode


@pytest.mark.parametrize(
    "command",
    [
        ["generate", "hog", "--table", "hog.parquet", "--out", "hog.parquet"],
        ["generate", "hog", "--table", "hog.parquet", "--out", "hog.json"],
        ["report", "hog", "--table", "hog.parquet", "--out", "hog.json"],
        ["report", "hog", "--table", "hog.parquet", "--out", "hog.parquet"],
        ["tournament", "hog", "p.py", "--bots", "always_roll:6", "--html", "p.py"],
        ["query", "SELECT 1", "--format", "csv", "--out", "w.duckdb.wal", "--db", "w.duckdb"],
    ],
    ids=lambda c: " ".join(c[:1] + c[-2:]),
)
def test_no_output_replaces_an_input_of_its_command(hog_table, tmp_path, command):
    own_copy(hog_table, tmp_path)
    (tmp_path / "w.duckdb.wal").write_bytes(b"")  # held as the warehouse's too
    before = {p.name: digest(p) for p in tmp_path.iterdir()}
    line = one_line_error(mine(*command, cwd=tmp_path))
    assert "reads that file" in line or "that is the warehouse" in line
    assert {p.name: digest(p) for p in tmp_path.iterdir()} == before


# --- a killed simulate leaves no log that looks whole -----------------------------------------


def test_a_killed_simulate_leaves_partial_files_only_and_the_next_run_removes_them(tmp_path):
    out = tmp_path / "sims"
    games = ["--players", "always_roll:6,random", "--out", out, "--json"]
    child = subprocess.Popen([MINE, "simulate", "hog", "--games", "200000", *games],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not (out.is_dir() and any(out.iterdir())):  # the first 50,000 games written
            assert child.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        child.kill()
        child.wait()
    left = sorted(p.name for p in out.iterdir())
    assert left and all(name.startswith(".") and name.endswith(".partial") for name in left)
    result = mine("ingest", out, "--db", tmp_path / "w.duckdb")
    assert "no CSV file" in one_line_error(result)
    result = mine("simulate", "hog", "--games", "10", "--seed", "2", *games)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "always_roll_6-vs-random-score.csv",
        "always_roll_6-vs-random.csv",
    ]

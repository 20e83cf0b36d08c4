"""`--lake` and `--cluster` as a user meets them: what they cannot mean is one error line
(and no cluster started for it); a lake takes the commands a warehouse takes."""

from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import subprocess
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import REAL_GINRUMMY, REAL_TWENTYONE
from tests.mine_cli import MINE, digest, here, mine, one_line_error, without_file_rights


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
        # a file (a warehouse?) was "no lake here yet (run `mine ingest LOGS --lake FILE`)"
        (["tables", "--lake", __file__], "test_lake_cli.py: is a file, not a lake folder"),
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


def test_ingest_says_where_to_go_next(lake, tmp_path):
    again = here("ingest", REAL_TWENTYONE, "--lake", lake)
    assert again.returncode == 0, again.stderr
    assert "next:" not in again.stderr  # no new logs: no statistics to make again
    one = tmp_path / "one"
    one.mkdir()
    for name in ("20211024-120000-001.csv", "20211024-120000-001-score.csv"):
        shutil.copy(REAL_TWENTYONE / name, one / name)
    fresh = here("ingest", one, "--lake", tmp_path / "fresh")
    assert fresh.returncode == 0, fresh.stderr
    assert f"next: mine stats twentyone --lake {tmp_path / 'fresh'}" in fresh.stderr


def test_a_lake_in_a_folder_closed_to_the_user_is_said_unreadable(lake, tmp_path):
    """A lake the user may not reach was 'no lake here yet (run `mine ingest …`)', and
    that ingest failed at its lock: now the lake is said unreadable, and why."""
    closed = tmp_path / "closed"
    shutil.copytree(lake, closed / "lake")
    closed.chmod(0)
    try:
        result = mine("tables", "--lake", closed / "lake", under=without_file_rights())
    finally:
        closed.chmod(0o755)
    assert "lake: cannot read it (Permission denied)" in one_line_error(result)


def test_a_lake_where_no_folder_can_be_is_one_line_naming_it(tmp_path):
    (tmp_path / "file").write_text("mine")
    lake = tmp_path / "file" / "lake"
    refused = here("ingest", REAL_TWENTYONE, "--lake", lake)
    assert one_line_error(refused) == f"error: {lake}: cannot ingest into it (Not a directory)"


def test_statistics_that_cannot_all_be_stored_leave_no_file_in_the_lake(tmp_path):
    lake = tmp_path / "lake"
    assert here("ingest", REAL_GINRUMMY, "--lake", lake, "--json").returncode == 0
    (lake / "stats_ginrummy_turn_features").write_text("mine")  # where its folder would go
    said = one_line_error(here("stats", "ginrummy", "--lake", lake))
    assert said == f"error: {lake}: cannot store the statistics there (File exists)"
    assert list(lake.glob("stats_*/*")) == []  # the tables stored before it: not listed, gone


def test_a_folder_of_other_files_is_not_made_a_lake(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    refused = here("ingest", REAL_TWENTYONE, "--lake", tmp_path)
    assert "not a lake" in one_line_error(refused)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


# --- a lake whose files someone else wrote ----------------------------------------------------
# A lake lives on shared storage: whoever can write its manifest must not get to run SQL as
# its reader, make it hang, read or delete files outside it, or crash it. Each case below
# is refused in one line naming the lake, by every command that reads one.

READERS = [
    ["query", "SELECT count(*) FROM logs"],
    ["tables"],
    ["fit", "twentyone", "--out", "t21.parquet"],
    ["stats", "twentyone"],
]


def _part(manifest: dict) -> str:
    return manifest["tables"]["logs"]["files"][0]


def _injected(manifest: dict, folder: Path) -> None:
    """A table name that would end the reader's statement and write a file of its own."""
    name = f"x\" AS SELECT 1; COPY (SELECT 42) TO '{folder / 'written.csv'}'; --"
    manifest["tables"][name] = manifest["tables"]["logs"]


def _copied(manifest: dict, folder: Path) -> None:
    """A part copied under another run's name, and listed: every reader counted its logs
    twice."""
    part = _part(manifest)
    copy = part.replace(part[-20:-8], "0123456789ab")
    shutil.copyfile(folder / "copy" / part, folder / "copy" / copy)
    manifest["tables"]["logs"]["files"].append(copy)


EDITS = {
    "a table name holding SQL": _injected,
    "a stats name holding SQL": lambda m, f: m["tables"].update(
        {"stats_twentyone_x'); SELECT 1 --": {"files": [], "comment": None}}
    ),
    "a file outside the lake": lambda m, f: m["tables"]["logs"].update(files=["/etc/passwd"]),
    "a file up and out": lambda m, f: m["tables"]["logs"].update(
        files=[f"logs/bucket=000000/../../../{_part(m)}"]
    ),
    "a file listed twice": lambda m, f: m["tables"]["logs"]["files"].append(_part(m)),
    "a file in another table's folder": lambda m, f: m["tables"]["manifest"]["files"].append(
        _part(m)
    ),
    "tables a list": lambda m, f: m.update(tables=[m["tables"]]),
    "files an object": lambda m, f: m["tables"]["logs"].update(files={}),
    "a file a number": lambda m, f: m["tables"]["logs"].update(files=[1]),
    "a comment a list": lambda m, f: m["tables"]["logs"].update(comment=["x"]),
    "retired text": lambda m, f: m.update(retired=["1) OR (1=1"]),
    "retired an object": lambda m, f: m.update(retired={}),
    "next_log_id text": lambda m, f: m.update(next_log_id="11"),
    "next_log_id true": lambda m, f: m.update(next_log_id=True),
    "no layout": lambda m, f: m.pop("layout_version"),
    "a part copied": _copied,
    # the next ingest would give out the log ids its parts hold
    "next_log_id behind the parts": lambda m, f: m.update(next_log_id=1),
}


def tampered_copy(lake: Path, folder: Path) -> Path:
    copy = folder / "copy"
    shutil.copytree(lake, copy)
    return copy


@pytest.mark.parametrize("edit", EDITS, ids=str)
@pytest.mark.parametrize("command", READERS, ids=lambda c: c[0])
def test_a_tampered_manifest_is_one_line_and_runs_nothing(lake, tmp_path, edit, command):
    copy = tampered_copy(lake, tmp_path)
    manifest = json.loads((copy / "lake.json").read_text())
    EDITS[edit](manifest, tmp_path)
    (copy / "lake.json").write_text(json.dumps(manifest))
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    line = one_line_error(here(*command, "--lake", copy, cwd=tmp_path))
    assert str(copy) in line
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _link_out(path: Path, lake: Path) -> None:
    """`path` of `lake` moved beside the lake, and a link to it left in its place."""
    outside = lake.parent / f"outside-{path.name}"
    path.rename(outside)
    path.symlink_to(outside)


def _huge(path: Path) -> None:
    """The same manifest, past what a reader reads (as `/dev/zero` would be, but whole)."""
    path.write_text(path.read_text() + " " * 65_000_000)


SWAPS = {
    "the manifest a FIFO": lambda lake, part: _fifo(lake / "lake.json"),
    "the manifest /dev/zero": lambda lake, part: (
        (lake / "lake.json").unlink(),
        (lake / "lake.json").symlink_to("/dev/zero"),
    ),
    "the manifest huge": lambda lake, part: _huge(lake / "lake.json"),
    "a part a FIFO": lambda lake, part: _fifo(part),
    "a part a link out": lambda lake, part: _link_out(part, lake),
    "a folder a link out": lambda lake, part: _link_out(part.parent.parent, lake),
    "a part missing": lambda lake, part: part.unlink(),
}


@pytest.mark.parametrize("swap", SWAPS, ids=str)
def test_a_lakes_file_swapped_for_a_fifo_device_or_link_is_one_line(lake, tmp_path, swap):
    copy = tampered_copy(lake, tmp_path)
    part = copy / _part(json.loads((copy / "lake.json").read_text()))
    SWAPS[swap](copy, part)
    # A FIFO in a process of its own, with a timeout: were it opened, it would wait forever.
    run = functools.partial(mine, timeout=60) if "FIFO" in swap else here
    assert str(copy) in one_line_error(run("query", "SELECT count(*) FROM logs", "--lake", copy))


@pytest.mark.parametrize("kind", ["fifo", "link"])
def test_a_lock_that_is_no_file_is_one_line_and_left_as_it_was(lake, tmp_path, kind):
    copy = tampered_copy(lake, tmp_path)
    lock = copy / ".lock"
    lock.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(lock)
    else:
        lock.symlink_to(tmp_path / "elsewhere")
    manifest = (copy / "lake.json").read_bytes()
    # A FIFO in a process of its own, with a timeout: were it opened, it would wait forever.
    run = functools.partial(mine, timeout=60) if kind == "fifo" else here
    line = one_line_error(run("ingest", REAL_TWENTYONE, "--lake", copy))
    assert str(lock) in line
    assert (copy / "lake.json").read_bytes() == manifest
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.parametrize("target", ["lake.json", "part", "a hard link to a part"])
def test_a_query_writes_onto_no_file_of_the_lake_it_reads(lake, tmp_path, target):
    part = lake / _part(json.loads((lake / "lake.json").read_text()))
    if target == "lake.json":
        out = lake / "lake.json"
    elif target == "part":
        out = part
    else:
        out = tmp_path / "linked.parquet"
        os.link(part, out)
    before = digest(out)
    line = one_line_error(here("query", "SELECT 1 AS x", "--lake", lake, "--out", out))
    assert "this command reads that file" in line
    assert digest(out) == before


# --- a cluster that cannot be joined: one line within seconds, not minutes of retries -----------


@pytest.fixture
def closed_port() -> int:
    """A port on loopback that nothing listens on (bound, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def joining(address: str, tmp_path: Path, **env: str) -> str:
    """The one error line of an ingest into a lake on the cluster at `address` (Ray's
    records of clusters started here in `tmp_path`, none unless `env` puts one there).
    Each try to join is bounded by 1 s, through mine's own MINE_CLUSTER_TIMEOUT: were
    mine's bounds not handed to Ray, Ray's own retries (minutes) would outlast the
    timeout below."""
    environment = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    environment |= {"RAY_TMPDIR": str(tmp_path), "COLUMNS": "400",
                    "MINE_CLUSTER_TIMEOUT": "1", **env}  # fmt: skip
    result = subprocess.run(
        [MINE, "ingest", REAL_TWENTYONE, "--lake", tmp_path / "lake", "--cluster", address],
        capture_output=True,
        text=True,
        env=environment,
        timeout=90,  # Ray's own retries took minutes
    )
    assert not (tmp_path / "lake" / "lake.json").exists()
    return one_line_error(result)


@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_a_cluster_address_nothing_answers_at_is_one_line(tmp_path, closed_port, scheme):
    line = joining(f"{scheme}127.0.0.1:{closed_port}", tmp_path)
    assert f"nothing answers at 127.0.0.1:{closed_port}" in line


def test_auto_with_no_cluster_started_here_is_one_line(tmp_path):
    assert "no cluster started here" in joining("auto", tmp_path)


@pytest.mark.parametrize("record", ["ray_current_cluster", "RAY_ADDRESS"])
def test_auto_whose_cluster_is_gone_is_one_line(tmp_path, closed_port, record):
    """A cluster `ray start` recorded, or RAY_ADDRESS names, that stopped since."""
    if record == "RAY_ADDRESS":
        line = joining("auto", tmp_path, RAY_ADDRESS=f"127.0.0.1:{closed_port}")
    else:
        (tmp_path / "ray").mkdir()
        (tmp_path / "ray" / "ray_current_cluster").write_text(f"127.0.0.1:{closed_port}")
        line = joining("auto", tmp_path)
    assert f"nothing answers at 127.0.0.1:{closed_port}" in line


@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_an_address_that_answers_but_is_no_cluster_is_one_line(tmp_path, scheme):
    """A port that takes connections but speaks no Ray: Ray's attempts, bounded (a ray://
    one's three of MINE_CLUSTER_TIMEOUT)."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        line = joining(f"{scheme}127.0.0.1:{other.getsockname()[1]}", tmp_path)
    assert "cannot join the Ray cluster" in line


@pytest.mark.parametrize("seconds", ["nan", "0", "soon"])
def test_a_join_bound_that_is_no_number_of_seconds_is_one_line(tmp_path, closed_port, seconds):
    line = joining(f"127.0.0.1:{closed_port}", tmp_path, MINE_CLUSTER_TIMEOUT=seconds)
    assert f"MINE_CLUSTER_TIMEOUT={seconds}" in line


@pytest.fixture(scope="module")
def ginrummy_lake(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lake") / "lake"
    assert here("ingest", REAL_GINRUMMY, "--lake", folder).returncode == 0
    return folder


def _no_hand(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(
        pl.when(pl.int_range(pl.len()) == 0).then(None).otherwise(pl.col("hand")).alias("hand")
    )


# A part rewritten by hand: a NULL where the warehouse says NOT NULL was a TypeError's
# traceback from the Gin Rummy statistics; a column dropped, DuckDB's Binder Error naming
# no file.
PARTS = {
    "a NULL hand": (_no_hand, "column hand is NULL in 1 rows"),
    "no hand": (lambda frame: frame.drop("hand"), "no column hand"),
}


@pytest.mark.parametrize("edit", PARTS, ids=str)
def test_a_part_rewritten_by_hand_is_one_line_naming_it(ginrummy_lake, tmp_path, edit):
    copy = tampered_copy(ginrummy_lake, tmp_path)
    manifest = json.loads((copy / "lake.json").read_text())
    part = copy / manifest["tables"]["ginrummy_turns"]["files"][0]
    change, says = PARTS[edit]
    change(pl.read_parquet(part, hive_partitioning=False)).write_parquet(part)
    line = one_line_error(here("stats", "ginrummy", "--lake", copy))
    assert f"{part}: {says}: not as mine writes the lake's files" in line
    assert not list(copy.glob("stats_*"))

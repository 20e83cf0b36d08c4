"""The commands against what a hostile (or unlucky) user does to them: redirections,
targets that are not plain files, files that are not warehouses, kills and Ctrl-C, full
disks, broken warehouses. Each case ends in the work done or one `error:` line and a
non-zero exit, nothing half-written and nothing of the user's lost. Real files; a real
process where the case is the process's (its stdout, a signal, a FIFO it would block on,
the memory it holds, its environment), else mine's entry point in this process (`here`)."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from mine.warehouse.ingest import ingest
from tests.conftest import REAL_GINRUMMY, REAL_TWENTYONE
from tests.mine_cli import (
    MINE,
    SHOWS_PROGRESS,
    digest,
    here,
    mine,
    one_line_error,
)
from tests.process_tree import alive, family
from tests.shared_warehouse import copy_of, examples_warehouse


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    """A warehouse of the real Gin Rummy logs (read only by the tests that take it)."""
    path = tmp_path_factory.mktemp("hostile") / "w.duckdb"
    con = duckdb.connect(str(path))
    assert ingest(con, [REAL_GINRUMMY]).ok
    con.close()
    return path


SMALL = "SELECT stem, turn_rows FROM logs ORDER BY log_id LIMIT 3"


@functools.cache  # the same query of the same warehouse: once for the tests of a format
def expected(db: Path, fmt: str) -> bytes:
    """What the query writes, as its `--out` file holds it (in this process): DuckDB's writer
    writes the same bytes to stdout, and the tests below hold a redirected stdout to them."""
    out = db.parent / f"expected.{fmt}"
    result = here("query", SMALL, "--format", fmt, "--out", out, "--db", db)
    assert result.returncode == 0, result.stderr
    return out.read_bytes()


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


def to_a_reader_that_left(*args) -> subprocess.CompletedProcess:
    """`mine *args` printing to a pipe whose reader is gone (`| true`, `| head -1` that
    ended first): every write to stdout fails, whenever it comes."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([MINE, *map(str, args)], stdout=write, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True, timeout=120)  # fmt: skip
    finally:
        os.close(write)


@pytest.mark.parametrize("json_out", [False, True], ids=["table", "json"])
def test_a_reader_that_left_takes_nothing_from_the_exit_code(db, tmp_path, json_out):
    """The reader leaving ends what is printed, not the command: a command that worked
    exits 0 (rich's console exited 1, silently), one that failed 1 (an ingest that
    rejected a file exited 0 when its JSON could not be printed)."""
    as_json = ["--json"] if json_out else []
    listed = to_a_reader_that_left("tables", *as_json, "--db", db)
    assert listed.returncode == 0 and "error" not in listed.stderr, listed.stderr
    (tmp_path / "logs").mkdir()
    for n in range(100):  # their rejections: more JSON than stdout's buffer holds
        (tmp_path / "logs" / f"{n:0100}.csv").write_text("not,a,log\n")
    rejected = to_a_reader_that_left("ingest", tmp_path / "logs", *as_json, "--db",
                                     tmp_path / "w.duckdb")  # fmt: skip
    assert rejected.returncode == 1
    assert json_out or "rejected" in rejected.stderr, rejected.stderr


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


def against(kind: str):
    """How to run a command against a file of `kind`: in this process, but a FIFO's in a
    process of its own, with a timeout (were it opened, it would wait forever)."""
    return functools.partial(mine, timeout=30) if kind == "fifo" else here


@pytest.mark.parametrize("kind", NOT_WAREHOUSES)
def test_ingest_refuses_a_db_that_is_not_a_warehouse_and_leaves_it_be(tmp_path, kind):
    target = not_a_warehouse(tmp_path, kind)
    before = None if kind == "fifo" else digest(target)
    result = against(kind)("ingest", REAL_GINRUMMY, "--db", target)
    assert "not a" in one_line_error(result)
    assert before is None or digest(target) == before


@pytest.mark.parametrize("command", [["tables"], ["query", "SELECT 1"], ["export", "x"],
                                     ["stats", "ginrummy"], ["demo"]])  # fmt: skip
@pytest.mark.parametrize("kind", ["parquet", "fifo"])
def test_every_command_refuses_a_db_that_is_not_a_warehouse(tmp_path, kind, command):
    target = not_a_warehouse(tmp_path, kind)
    one_line_error(against(kind)(*command, "--db", target, cwd=tmp_path))
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # no export, no demo-out


@pytest.mark.parametrize("command", [["tables"], ["ingest", REAL_TWENTYONE]])
def test_a_warehouse_whose_wal_is_a_fifo_is_one_line_not_a_wait(db, tmp_path, command):
    """DuckDB replays a warehouse's write-ahead log on opening: a FIFO there it would wait on
    forever, where no Ctrl-C reaches (in a process of its own, with a timeout)."""
    own = tmp_path / "w.duckdb"
    shutil.copyfile(db, own)
    os.mkfifo(tmp_path / "w.duckdb.wal")
    line = one_line_error(mine(*command, "--db", own, timeout=30))
    assert (
        line
        == f"error: {own}.wal: the warehouse's log is not a regular file (a FIFO, device or socket?)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.duckdb", "w.duckdb.wal"]


def test_a_path_component_too_long_is_one_line(tmp_path):
    long = tmp_path / ("x" * 300) / "w.duckdb"
    assert "too long" in one_line_error(here("ingest", REAL_GINRUMMY, "--db", long))


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
        result = here(*step)
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
    result = here(*writing(kind, table, link))
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
    hog_table, tmp_path, monkeypatch, kind, node
):
    table = own_copy(hog_table, tmp_path)
    special = special_file(tmp_path, node, SUFFIX[kind])
    mode = special.lstat().st_mode
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # rich: on a terminal, work would show
    monkeypatch.setenv("NO_COLOR", "1")
    # A FIFO in a process of its own, with a timeout (were it opened, it would wait forever);
    # a device in this process (were it written, it would take the bytes and return).
    run = functools.partial(mine, timeout=60) if node == "fifo" else here
    result = run(*writing(kind, table, special))
    assert SHOWS_PROGRESS not in result.stderr, "refused after the work, not before it"
    assert "not a regular file" in one_line_error(result)
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
    line = one_line_error(here(*command, cwd=tmp_path))
    assert "reads that file" in line
    assert {p.name: digest(p) for p in tmp_path.iterdir()} == before


# --- a killed simulate leaves no log that looks whole -----------------------------------------


def test_a_killed_simulate_leaves_partial_files_only_and_the_next_run_removes_them(tmp_path):
    out = tmp_path / "sims"
    games = ["--players", "always_roll:6,random", "--out", out, "--json"]
    child = subprocess.Popen([MINE, "simulate", "hog", "--games", "200000", *games],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        # its partial files opened (before the first games are sent) and its workers started
        while not (out.is_dir() and any(out.iterdir()) and (started := family(child.pid))):
            assert child.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        child.kill()
        child.wait()
    # They end with it, though it could not tell them to (else they wait for work as long as
    # the machine runs); bounded against a hang only: they look for their parent each second
    deadline = time.monotonic() + 120
    while left := alive(started):
        assert time.monotonic() < deadline, f"outlived their killed parent: {left}"
        time.sleep(0.1)
    left = sorted(p.name for p in out.iterdir())
    assert left and all(name.startswith(".") and name.endswith(".partial") for name in left)
    result = here("ingest", out, "--db", tmp_path / "w.duckdb")
    assert "no CSV file" in one_line_error(result)
    result = here("simulate", "hog", "--games", "10", *games)  # the same match again
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "hog-always_roll_6-vs-random-s0-score.csv",
        "hog-always_roll_6-vs-random-s0.csv",
    ]


def test_a_path_with_control_characters_is_printed_escaped(db, tmp_path):
    """`wrote … to PATH` and `next: …` printed a path's ESC and BEL as they are: a name
    could retitle the terminal or recolour it. Each reads escaped, whole on its line (one
    past 80 columns was broken in two, in the path); the file is written."""
    out = tmp_path / ("a-long-folder-name-" * 5) / "q\x1b]0;owned\x07.csv"
    out.parent.mkdir()
    unsized = {k: v for k, v in os.environ.items() if k != "COLUMNS"}  # a pipe: 80 columns
    result = subprocess.run([MINE, "query", "SELECT 1 AS x", "--db", db, "--out", out],
                            capture_output=True, text=True, env=unsized)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    shown = str(out).replace("\x1b", "\\x1b").replace("\x07", "\\x07")
    assert f"wrote 1 row to {shown}\n" in result.stderr.splitlines(keepends=True)
    assert out.read_text() == "x\n1\n"


# --- Ctrl-C: one line, exit 130, nothing half-written ----------------------------------------

SLOW = "SELECT sum(a.range * b.range) FROM range(200000) a, range(200000) b"


def interrupted(
    command: list, started, timeout: float = 60, stop: int = signal.SIGINT, env=None
) -> subprocess.CompletedProcess:
    """Run mine, send it `stop` (SIGINT: Ctrl-C) once `started()` says its work is under
    way, and return how it ended. Its end is bounded against a hang only: a command lets
    its pool's running tasks finish (a lake ingest's shards, all of them queued), which
    took a loaded machine over 30 s; how it ends (one line, its code) is what is asserted."""
    child = subprocess.Popen([MINE, *map(str, command)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             env={**os.environ, **(env or {})})  # fmt: skip
    deadline = time.monotonic() + timeout
    while not started():
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    child.send_signal(stop)
    out, err = child.communicate(timeout=600)
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)


def querying(db: Path):
    """Whether the query is under way: a second after another process opened `db` (a
    clock from the start was no sign: a loaded machine took 1.5 s to start Python, and a
    Ctrl-C before mine's code runs is Python's traceback)."""
    seen: list[float] = []

    def holds() -> bool:
        for pid in filter(str.isdigit, os.listdir("/proc")):
            with contextlib.suppress(OSError):
                fds = f"/proc/{pid}/fd"
                if int(pid) != os.getpid() and any(
                    os.readlink(f"{fds}/{fd}") == os.path.realpath(db) for fd in os.listdir(fds)
                ):
                    return True
        return False

    def started() -> bool:
        if not seen and holds():
            seen.append(time.monotonic())
        return bool(seen) and time.monotonic() - seen[0] > 1

    return started


@pytest.mark.parametrize("extra", [[], ["--format", "csv"], ["--format", "json"]])
def test_ctrl_c_during_a_query_is_one_line(db, extra):
    result = interrupted(["query", SLOW, "--db", db, *extra], querying(db))
    assert one_line_error(result, code=130) == "error: interrupted"


def test_ctrl_c_during_query_out_leaves_no_file(db, tmp_path):
    out = tmp_path / "x.csv"
    result = interrupted(["query", SLOW, "--out", out, "--db", db], querying(db))
    assert one_line_error(result, code=130) == "error: interrupted"
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_during_simulate_leaves_no_partial_log(tmp_path):
    out = tmp_path / "sims"

    def writing() -> bool:  # the match's first games are in its partial files
        return out.is_dir() and any(p.stat().st_size for p in out.iterdir())

    command = ["simulate", "hog", "--games", "1000000", "--players", "always_roll:6,random",
               "--out", out, "--json"]  # fmt: skip
    result = interrupted(command, writing)
    assert one_line_error(result, code=130) == "error: interrupted"
    assert list(out.iterdir()) == []


def test_the_workers_of_a_command_leave_ctrl_c_to_it(tmp_path):
    """A terminal sends Ctrl-C to the whole process group (`timeout` its SIGTERM), so the
    pool's workers took it too, wherever they stood: one starting printed a traceback or a
    line of its own, one at a queue's lock hung the command for good (`mine simulate
    supernim` at Ctrl-C, once in three). The command takes it, and stops its workers; a
    worker takes neither, so sent to the workers alone (as they start, the sure way to
    catch them where it did harm) they change nothing: the games are played."""
    out = tmp_path / "sims"
    command = [MINE, "simulate", "supernim", "--games", "20", "--out", out, "--json"]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)  # fmt: skip

    def workers() -> list[int]:
        found = []
        for pid, _ in family(child.pid):
            with contextlib.suppress(OSError):  # gone since
                if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.append(pid)
        return found

    deadline = time.monotonic() + 60
    while len(workers()) < 2:
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    for pid in workers():
        os.kill(pid, signal.SIGINT)
        os.kill(pid, signal.SIGTERM)
    said, errors = child.communicate(timeout=120)
    assert child.returncode == 0, errors
    assert json.loads(said)["games"] == 20 and len(list(out.iterdir())) == 2


@pytest.fixture(scope="module")
def big_logs(tmp_path_factory) -> Path:
    """Hog matches of 600,000 turns: an ingest or an export of them takes seconds."""
    folder = tmp_path_factory.mktemp("big")
    result = here("simulate", "hog", "--games", "10000", "--players",
                  "always_roll:6,random,always_roll:4", "--out", folder / "logs", "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    return folder / "logs"


def test_ctrl_c_during_ingest_is_one_line_and_lands_whole_logs_only(big_logs, tmp_path):
    db = tmp_path / "w.duckdb"
    seen: list[float] = []

    def landing() -> bool:  # the warehouse made a moment ago: batches are going in
        if db.exists() and not seen:
            seen.append(time.monotonic())
        return bool(seen) and time.monotonic() - seen[0] > 0.3

    result = interrupted(["ingest", big_logs, "--db", db], landing)
    assert one_line_error(result, code=130) == "error: interrupted"
    con = duckdb.connect(str(db), read_only=True)
    tables = {row[0] for row in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert tables == set() or {"logs", "hog_turns"} <= tables  # the schema whole or not at all
    if not tables:
        con.execute("CREATE TEMP TABLE logs (log_id INTEGER, turn_rows BIGINT)")
        con.execute("CREATE TEMP TABLE hog_turns (log_id INTEGER)")
    whole = con.execute(
        """
        SELECT count(*) = count(*) FILTER (WHERE l.turn_rows = t.rows)
        FROM logs l LEFT JOIN (SELECT log_id, count(*) AS rows FROM hog_turns GROUP BY 1) t
        USING (log_id)
        """
    ).fetchone()[0]
    stray = con.execute(
        "SELECT count(*) FROM hog_turns WHERE log_id NOT IN (SELECT log_id FROM logs)"
    ).fetchone()[0]
    con.close()
    assert whole and stray == 0
    again = here("ingest", big_logs, "--db", db, "--json")  # and the same ingest completes
    assert again.returncode == 0, again.stderr


def test_sigterm_during_ingest_unwinds_as_ctrl_c_does(big_logs, tmp_path):
    """`kill`, `timeout`, a CI's cancel: the batches' temporary folder goes, as at Ctrl-C
    (SIGTERM's default ended the process where it stood, leaving it for good)."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    db = tmp_path / "w.duckdb"
    result = interrupted(["ingest", big_logs, "--db", db], lambda: any(scratch.iterdir()),
                         stop=signal.SIGTERM, env={"TMPDIR": str(scratch)})  # fmt: skip
    assert one_line_error(result, code=128 + signal.SIGTERM) == "error: terminated"
    assert list(scratch.iterdir()) == []
    again = here("ingest", big_logs, "--db", db, "--json")  # what landed is whole
    assert again.returncode == 0, again.stderr


def test_ctrl_c_during_a_lake_ingest_leaves_no_part_its_manifest_does_not_list(big_logs, tmp_path):
    lake = tmp_path / "lake"

    def parts() -> set[str]:
        return {str(p.relative_to(lake)) for p in lake.glob("*/bucket=*/part-*.parquet")}

    command = ["ingest", big_logs, "--lake", lake, "--shard-pairs", "1"]
    result = interrupted(command, lambda: bool(parts()))  # a shard landed, the rest to come
    assert one_line_error(result, code=130) == "error: interrupted"
    manifest = lake / "lake.json"
    tables = json.loads(manifest.read_text())["tables"] if manifest.exists() else {}
    assert parts() <= {f for table in tables.values() for f in table["files"]}
    again = here("ingest", big_logs, "--lake", lake, "--json")  # and the same ingest completes
    assert again.returncode == 0, again.stderr


def test_ctrl_c_during_export_leaves_no_folder(big_logs, tmp_path):
    db = tmp_path / "w.duckdb"
    assert here("ingest", big_logs, "--db", db, "--json").returncode == 0
    out = tmp_path / "out"
    result = interrupted(
        ["export", out, "--db", db],
        lambda: any(p.name.startswith(".out.") for p in tmp_path.iterdir()),
    )
    assert one_line_error(result, code=130) == "error: interrupted"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.duckdb"]


# --- a full disk, a damaged warehouse: one line -------------------------------------------


@pytest.fixture
def full_disk(tmp_path):
    """A small file system of our own (tmpfs) with no byte left: needs root."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    mount = tmp_path / "full"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mount]).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", mount], check=False)


def fill(folder: Path) -> None:
    with open(folder / "filler", "wb") as filler:
        try:
            while True:
                filler.write(b"\0" * 65536)
                filler.flush()
        except OSError:
            pass


def test_ingest_onto_a_full_disk_is_one_line_and_the_warehouse_still_opens(full_disk):
    db = full_disk / "w.duckdb"
    assert here("ingest", REAL_GINRUMMY, "--db", db, "--json").returncode == 0
    fill(full_disk)
    result = mine("ingest", REAL_TWENTYONE, "--db", db)  # the process that meets the full disk
    assert "No space left" in one_line_error(result)
    (full_disk / "filler").unlink()
    tables = here("query", "SELECT count(*) AS n FROM logs WHERE game = 'twentyone'", "--db", db)
    assert tables.returncode == 0, tables.stderr
    assert tables.stdout.splitlines()[2].strip() == "0"


def test_a_lake_on_a_full_disk_is_one_line_naming_it_and_keeps_what_committed(full_disk):
    lake = full_disk / "lake"
    assert here("ingest", REAL_GINRUMMY, "--lake", lake, "--json").returncode == 0
    fill(full_disk)
    full = "(No space left on device)"
    result = mine("ingest", REAL_TWENTYONE, "--lake", lake)  # its tasks' processes meet it
    assert one_line_error(result) == f"error: {lake}: cannot ingest into it {full}"
    result = here("stats", "ginrummy", "--lake", lake)
    assert one_line_error(result) == f"error: {lake}: cannot store the statistics there {full}"
    (full_disk / "filler").unlink()
    held = here("query", "SELECT game || ':' || count(*) AS held FROM logs GROUP BY game",
                "--lake", lake)  # fmt: skip
    assert held.returncode == 0, held.stderr
    assert held.stdout.splitlines()[2:-1] == ["ginrummy:12"]  # the first ingest's logs alone


@pytest.mark.parametrize("game", ["ginrummy", "twentyone"])
def test_stats_onto_a_full_disk_is_one_line(full_disk, whole, game):
    db = full_disk / "w.duckdb"
    db.write_bytes(whole)  # the real logs, ingested once for the module
    fill(full_disk)
    assert "No space left" in one_line_error(here("stats", game, "--db", db))


def test_fit_out_onto_a_full_disk_is_one_line_and_leaves_nothing(full_disk, hog_table):
    fill(full_disk)
    out = full_disk / "t.parquet"
    db = hog_table.parent / "w.duckdb"
    line = one_line_error(here(*writing("fit", hog_table, out)[:-2], "--db", db))
    assert "No space left" in line
    assert sorted(p.name for p in full_disk.iterdir()) == ["filler"]


@pytest.mark.parametrize("out", ["x", "q.csv", "q.parquet"])
def test_export_and_query_out_onto_a_full_disk_say_so_and_leave_nothing(full_disk, whole, out):
    db = full_disk / "w.duckdb"
    db.write_bytes(whole)  # the real logs, ingested once for the module
    fill(full_disk)
    if out == "x":
        command = ["export", full_disk / out]
        said = f"error: {full_disk / out}: cannot export there (No space left on device)"
    else:
        command = ["query", "SELECT * FROM ginrummy_turns, range(50)", "--out", full_disk / out]
        said = f"error: {full_disk / out}: cannot write it (No space left on device)"
    assert one_line_error(here(*command, "--db", db)) == said
    assert sorted(p.name for p in full_disk.iterdir()) == ["filler", "w.duckdb"]


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> bytes:
    """The bytes of a warehouse of the real Gin Rummy and TwentyOne logs."""
    path = tmp_path_factory.mktemp("whole") / "w.duckdb"
    con = duckdb.connect(str(path))
    assert ingest(con, [REAL_GINRUMMY, REAL_TWENTYONE]).ok
    con.close()
    return path.read_bytes()


@pytest.mark.parametrize("size", [100_000, 1_000_000])
@pytest.mark.parametrize("command", [["tables"], ["stats", "ginrummy"], ["stats", "twentyone"],
                                     ["ingest", REAL_GINRUMMY], ["export", "x"]])  # fmt: skip
def test_a_truncated_warehouse_is_one_line(whole, tmp_path, size, command):
    cut = tmp_path / "cut.duckdb"
    cut.write_bytes(whole[:size])
    result = here(*command, "--db", cut, cwd=tmp_path)  # a bug's exception is raised here
    if result.returncode:  # what the cut left may still read: then it must work
        one_line_error(result)
    assert "Traceback" not in result.stderr


# --- queries that used to fail or run away -------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    ["SELECT 1 AS one -- note", "SELECT 1 AS one; -- note", "/* head */\nSELECT 1 AS one\n-- tail\n",
     "SELECT 1 AS one /* a block */", "SELECT 1 AS one;;"],
)  # fmt: skip
def test_a_query_that_ends_in_a_comment_runs(db, tmp_path, sql):
    out = tmp_path / "q.csv"  # DuckDB's writer, as on stdout (CSV streams to a process's own)
    result = here("query", sql, "--db", db, "--out", out)
    assert result.returncode == 0, result.stderr
    assert out.read_text() == "one\n1\n"
    view = here("query", sql, "--db", db)
    assert view.returncode == 0 and view.stdout.splitlines()[2].strip() == "1"


def test_a_sql_file_whose_last_line_is_a_comment_runs(db, tmp_path):
    (tmp_path / "q.sql").write_text("SELECT count(*) AS logs FROM logs\n-- how many\n")
    out = tmp_path / "q.csv"
    result = here("query", "--file", tmp_path / "q.sql", "--db", db, "--out", out)
    assert result.returncode == 0 and out.read_text() == "logs\n12\n"
    view = here("query", "--file", tmp_path / "q.sql", "--db", db)
    assert view.returncode == 0, view.stderr
    assert view.stdout.splitlines()[2].strip() == "12"


def test_a_query_past_its_timeout_is_one_line(db):
    started = time.monotonic()
    line = one_line_error(here("query", SLOW, "--timeout", "1", "--db", db))
    assert line == "error: stopped after --timeout 1 s"
    assert time.monotonic() - started < 30


def test_a_query_past_the_memory_limit_is_one_line(db):
    line = one_line_error(here("query", "SELECT length(list(range)) FROM range(150000000)",
                               "--db", db))  # fmt: skip
    assert "Out of Memory" in line


@pytest.mark.parametrize(
    "sql, hint",
    [("SELECT * FROM ginrummy_turn", 'Did you mean "ginrummy_turns"'),
     ("SELECT discrded FROM ginrummy_turns", 'Candidate bindings: "discarded"')],
)  # fmt: skip
def test_duckdbs_hint_stays_on_the_one_line(db, sql, hint):
    assert hint in one_line_error(here("query", sql, "--db", db))


def test_a_newline_in_a_file_name_stays_on_its_line(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a\nb.csv").write_text("not,a,log\n")
    result = here("ingest", logs, "--db", tmp_path / "w.duckdb")
    line = one_line_error(result, prefix="rejected ")
    assert line == f"rejected {logs}/a\\nb.csv: unpaired: no a\\nb-score.csv"


# --- stdout and stdin closed or full: one line ------------------------------------------------


def shell(line: str, *args) -> subprocess.CompletedProcess:
    """`line` run by sh, with mine as $0 and `args` as $1…: for redirections (`>&-`)."""
    return subprocess.run(
        ["sh", "-c", line, MINE, *map(str, args)], capture_output=True, text=True, timeout=120
    )


STDOUT_USERS = [
    ["--version"],
    ["tables", "--db"],
    ["stats", "ginrummy", "--json", "--db"],
    ["query", "SELECT 1", "--db"],
    ["query", "SELECT * FROM range(30000)", "--limit", "0", "--db"],  # the streamed view
    ["query", "SELECT * FROM range(30000)", "--format", "csv", "--db"],
]


@pytest.mark.parametrize("command", STDOUT_USERS, ids=lambda c: " ".join(c[:2]))
@pytest.mark.parametrize("stdout", [">&-", ">/dev/full"])
def test_a_closed_or_full_stdout_is_one_line(db, tmp_path, command, stdout):
    args = [*command, tmp_path / "w.duckdb"] if command[-1] == "--db" else command
    shutil.copyfile(db, tmp_path / "w.duckdb")  # stats writes its tables
    before = digest(tmp_path / "w.duckdb")
    line = one_line_error(shell(f'"$0" "$@" {stdout}', *args))
    assert "stdout" in line
    if stdout == ">&-" and command[0] == "stats":  # refused before the work: nothing stored
        assert digest(tmp_path / "w.duckdb") == before


def test_a_query_from_a_closed_stdin_is_one_line(db):
    assert "no SQL given" in one_line_error(shell('"$0" query --db "$1" <&-', db))


def test_a_working_folder_removed_before_the_command_is_not_a_traceback(db, tmp_path):
    """Started in a folder since removed: `stats` stored its tables, then said a
    traceback (its `read … from` line shows folders relative to the working folder); a
    relative `--logs` is one line, before anything is stored."""
    shutil.copyfile(db, tmp_path / "w.duckdb")
    in_removed = 'mkdir "$1" && cd "$1" && rmdir "$1" && shift && exec "$0" "$@"'
    stats = ["stats", "ginrummy", "--db", tmp_path / "w.duckdb"]
    derived = shell(in_removed, tmp_path / "gone", *stats)
    assert derived.returncode == 0, derived.stderr
    assert f"from {REAL_GINRUMMY}/" in derived.stdout
    before = digest(tmp_path / "w.duckdb")
    relative = shell(in_removed, tmp_path / "gone", *stats, "--logs", "logs/")
    assert "relative to the working folder, which was removed" in one_line_error(relative)
    assert digest(tmp_path / "w.duckdb") == before


def test_a_thread_count_polars_panics_on_is_one_line(db, tmp_path):
    """POLARS_MAX_THREADS=0: polars' async runtime panicked at the first frame collected, a
    traceback ending `PanicException: Worker threads cannot be set to 0`. A process of its
    own: the runtime starts once a process."""
    shutil.copyfile(db, tmp_path / "w.duckdb")
    before = digest(tmp_path / "w.duckdb")
    result = shell(
        'POLARS_MAX_THREADS=" 0" exec "$0" stats ginrummy --db "$1"', tmp_path / "w.duckdb"
    )
    assert "POLARS_MAX_THREADS is 0" in one_line_error(result)
    assert digest(tmp_path / "w.duckdb") == before  # refused before the work


def test_too_little_memory_to_load_a_library_is_one_line(db, tmp_path):
    """`ulimit -v 500000`: DuckDB's library cannot be mapped (the traceback ended
    `ImportError: …_duckdb….so: failed to map segment from shared object`)."""
    shutil.copyfile(db, tmp_path / "w.duckdb")
    before = digest(tmp_path / "w.duckdb")
    result = shell('ulimit -v 500000 && exec "$0" stats ginrummy --db "$1"', tmp_path / "w.duckdb")
    assert "memory or processes ran out" in one_line_error(result)
    assert digest(tmp_path / "w.duckdb") == before


# --- a query's memory: bounded whatever the value or the row -----------------------------------

MEMORY = 2_000_000_000  # the README's bound on what a query holds, resident
PEAK = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
sys.stderr.buffer.write(done.stderr)
"""


def peak(*args) -> int:
    """The most memory `mine *args` held, resident (its output sent nowhere), asserting it
    did its work."""
    result = subprocess.run(
        [sys.executable, "-c", PEAK, MINE, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    code, most = map(int, result.stdout.split())
    assert code == 0, result.stderr
    return most


def test_a_huge_value_in_the_table_view_stays_within_the_bound(db):
    """250 MB of one value: its first characters and its length are shown (it took 11 times
    its size, in Python, when the view held it whole)."""
    assert peak("query", "SELECT repeat('x', 250000000) AS v", "--db", db) < MEMORY


def test_wide_rows_export_within_the_bound(db):
    """800 MB of 20 kB rows to CSV: they travel a DuckDB vector at a time (in batches of
    100,000 rows the writer ran out of memory on the first)."""
    rows = "SELECT repeat('x', 20000) || range AS v FROM range(40000)"
    assert peak("query", rows, "--format", "csv", "--db", db) < MEMORY


ODD = os.fsdecode(b"a\nb\tc\xff")  # a newline, a tab and a byte that is not UTF-8
NAMING = [
    ["ingest", "{odd}/x.csv", "--db", "{tmp}/w.duckdb"],
    ["query", "--file", "{odd}/q.sql", "--db", "{db}"],
    ["query", "SELECT 1", "--db", "{odd}/w.duckdb"],
    ["tables", "--lake", "{odd}"],
    ["export", "{odd}", "--db", "{db}"],
    ["generate", "hog", "--table", "{odd}/t.parquet"],
    ["report", "supernim", "--table", "{odd}/t.parquet"],
    ["validate", "hog", "{odd}/p.py"],
]


@pytest.mark.parametrize("command", NAMING, ids=lambda c: c[0] + " " + c[1])
def test_an_error_naming_an_odd_path_is_one_line(db, tmp_path, command):
    """Every error line shows a path's control characters and odd bytes escaped."""
    odd = tmp_path / ODD
    odd.mkdir()
    (odd / "notes.txt").write_text("mine")  # an export would go over it
    args = [word.format(odd=odd, tmp=tmp_path, db=db) for word in command]
    line = one_line_error(here(*args))
    assert "a\\nb\\tc\\xff" in line


# --- what the tables look like -------------------------------------------------------------


def test_the_table_view_of_every_row_streams_them_all_aligned(db):
    result = here("query", "SELECT log_id, line, picked, 1.0 / line AS share FROM ginrummy_turns "
                  "ORDER BY log_id, line", "--limit", "0", "--db", db)  # fmt: skip
    assert result.returncode == 0, result.stderr
    header, rule, *rows, footer = result.stdout.splitlines()
    con = duckdb.connect(str(db), read_only=True)
    expected = con.execute(
        "SELECT log_id, line, picked, 1.0 / line FROM ginrummy_turns ORDER BY log_id, line"
    ).fetchall()
    con.close()
    assert len(rows) == len(expected) > 1000  # past the rows that set the widths
    assert footer.startswith(f"{len(expected):,} rows (")
    assert header.split() == ["log_id", "line", "picked", "share"]
    widths = [len(dashes) for dashes in rule.split("  ")]
    for row, (log_id, line, picked, share) in zip(rows, expected, strict=True):
        cells = row.split()
        assert cells == [str(log_id), str(line), picked, f"{share:.6g}"]
        assert row[: widths[0]] == str(log_id).rjust(widths[0])  # numbers on the right


def test_tables_show_whole_names_and_numbers_on_the_right_in_80_columns(tmp_path_factory, tmp_path):
    # every example log (`mine ingest examples/logs`), ingested once for the session
    db = copy_of(examples_warehouse(tmp_path_factory), tmp_path / "w.duckdb")
    assert here("stats", "cardguess", "--db", db, "--json").returncode == 0  # long names
    result = subprocess.run([MINE, "tables", "--db", db], capture_output=True, text=True,
                            env={**os.environ, "COLUMNS": "80"})  # fmt: skip
    assert result.returncode == 0, result.stderr
    con = duckdb.connect(str(db), read_only=True)
    names = [row[0] for row in con.execute(
        "SELECT table_name FROM duckdb_tables() UNION ALL "
        "SELECT view_name FROM duckdb_views() WHERE NOT internal"
    ).fetchall()]  # fmt: skip
    con.close()
    for name in names:
        assert f"│ {name} " in result.stdout, name
    row = next(line for line in result.stdout.splitlines() if "│ ginrummy_turns " in line)
    rows_cell = row.split("│")[3]
    assert rows_cell.endswith(" ") and rows_cell.strip()[-1].isdigit()
    assert rows_cell.rstrip() == rows_cell.rstrip().rjust(len(rows_cell) - 1)


def test_ingest_help_names_the_games_and_the_paths():
    result = here("ingest", "--help")
    text = " ".join(result.stdout.split())
    assert "{PATH}..." in text and "{paths}" not in text
    assert "(twentyone, ginrummy, hog, supernim, cardguess)" in text


# --- logs of the same stem in two folders ---------------------------------------------------


def test_card_guessing_logs_of_the_same_stem_in_two_folders_stay_apart(tmp_path):
    db = tmp_path / "w.duckdb"
    for folder, games in (("a", 7), ("b", 5)):
        played = here("simulate", "cardguess", "--games", games, "--seed", 1, "--players",
                      "random-consistent", "--out", tmp_path / folder, "--json")  # fmt: skip
        assert played.returncode == 0, played.stderr
    assert here("ingest", tmp_path, "--db", db, "--json").returncode == 0
    assert here("stats", "cardguess", "--db", db, "--json").returncode == 0
    con = duckdb.connect(str(db), read_only=True)
    ids = [row[0] for row in con.execute("SELECT log_id FROM logs ORDER BY log_id").fetchall()]
    games = con.execute(
        "SELECT log, sum(games) FROM stats_cardguess_guesses GROUP BY log ORDER BY log"
    ).fetchall()
    con.close()
    stem = "cardguess-random_consistent-s1"
    assert len(ids) == 2
    assert sorted(count for _, count in games) == [5, 7]  # not one log of 12 games
    assert [log for log, _ in games] == [f"{stem} (log {i})" for i in ids]


def test_ingest_hints_at_the_stats_of_the_games_it_loaded_only(tmp_path):
    db = tmp_path / "w.duckdb"
    result = here("ingest", REAL_GINRUMMY, "--db", db)
    assert result.returncode == 0, result.stderr
    hints = [line for line in result.stderr.splitlines() if line.startswith("next: ")]
    assert hints == [f"next: mine stats ginrummy --db {db}"]

"""Ingest against files a hostile (or unlucky) user hands it: odd names, mixed line
endings, files that change, files it cannot read. Every case ends in what the README
promises: the valid lands, the invalid is named with its line, nothing else is lost, and
the manifest says what happened to every file."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import threading
from pathlib import Path

import duckdb
import pytest

from mine import games
from mine.parsers import hog
from mine.parsers.csvlog import pair_paths
from mine.warehouse.ingest import LOG_BYTES, LogFile, ingest
from tests.conftest import REAL_GINRUMMY, REAL_TWENTYONE
from tests.data import synth
from tests.mine_cli import digest, here, mine, one_line_error, without_file_rights

GIN_STEMS = sorted(p.stem for p in REAL_GINRUMMY.glob("*.csv") if "-score" not in p.name)
T21_STEMS = sorted(p.stem for p in REAL_TWENTYONE.glob("*.csv") if "-score" not in p.name)


def copy_pair(source: Path, stem: str, folder: Path, name: str) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    turns, scores = pair_paths(source, stem)
    new = pair_paths(folder, name)
    shutil.copyfile(turns, new[0])
    shutil.copyfile(scores, new[1])
    return new


def hog_pair(folder: Path, name: str, seed: int) -> tuple[Path, Path]:
    return synth.write_pair(folder, name, hog, *synth.hog_game(random.Random(seed), 3))


def one_line_lf(path: Path, line: int) -> None:
    """Turn the CRLF ending of `line` into a lone LF: the rest of the file keeps CRLF."""
    rows = path.read_bytes().split(b"\r\n")
    assert len(rows) > line + 1, path
    path.write_bytes(b"\r\n".join(rows[:line]) + b"\n" + b"\r\n".join(rows[line:]))


def counts(con, table: str) -> dict[str, int]:
    """Rows of `table` by the stem of their log."""
    return dict(
        con.execute(
            f"SELECT l.stem, count(*) FROM {table} t JOIN logs l USING (log_id) GROUP BY 1"
        ).fetchall()
    )


def outcomes(summary) -> dict[str, str]:
    return {pair.stem: pair.outcome for pair in summary.pairs}


# --- one odd file never costs another ------------------------------------------------------


ODD_NAMES = ["e\\[", "p\\*q", "x[a]", "e[", "b?", "s*", "new\nline", "q'uote", "tab\there", "ü"]


@pytest.mark.parametrize("name", ODD_NAMES, ids=repr)
def test_an_odd_file_name_is_read_as_named_and_costs_no_other_pair(tmp_path, name):
    logs = tmp_path / "logs"
    for stem in GIN_STEMS[:3]:
        copy_pair(REAL_GINRUMMY, stem, logs, stem)
    copy_pair(REAL_GINRUMMY, GIN_STEMS[3], logs, name)
    if name == "x[a]":  # what the name would match as a pattern is another log
        copy_pair(REAL_GINRUMMY, GIN_STEMS[4], logs, "xa")
    hog_pair(logs, name + "-hog", 1)
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    summary = ingest(con, [logs])
    assert summary.ok, summary.errors
    assert set(outcomes(summary).values()) == {"new"}
    landed = counts(con, "ginrummy_turns")
    expected = pair_paths(logs, name)[0].read_bytes().count(b"\n")
    assert landed[name] == expected
    assert counts(con, "hog_turns")[name + "-hog"] == pair_paths(logs, name + "-hog")[
        0
    ].read_bytes().count(b"\n")
    rows = con.execute("SELECT count(*) FROM manifest WHERE outcome = 'new'").fetchone()[0]
    assert rows == 2 * len(summary.pairs)


NOT_UTF8 = os.fsdecode(b"caf\xe9")  # Latin-1 bytes, as an old system names a file


@pytest.mark.parametrize("where", ["file", "folder"])
def test_a_name_that_is_not_utf8_is_data_too(tmp_path, where):
    """The pair lands beside the others, recorded with `\\xe9` for the odd byte, once."""
    logs = tmp_path / "logs"
    for stem in GIN_STEMS[:2]:
        copy_pair(REAL_GINRUMMY, stem, logs, stem)
    odd = copy_pair(REAL_GINRUMMY, GIN_STEMS[2], logs / NOT_UTF8, "x")
    if where == "file":
        odd = copy_pair(REAL_GINRUMMY, GIN_STEMS[3], logs, NOT_UTF8)
    db = tmp_path / "w.duckdb"
    result = here("ingest", logs, "--db", db, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["pairs"]["new"] == 3 + (where == "file")
    con = duckdb.connect(str(db), read_only=True)
    recorded = {row[0] for row in con.execute("SELECT path FROM manifest").fetchall()}
    con.close()
    assert str(odd[0]).replace(NOT_UTF8, "caf\\xe9") in recorded
    again = here("ingest", logs, "--db", db, "--json")
    assert json.loads(again.stdout)["pairs"]["unchanged"] == 3 + (where == "file")


def test_a_name_that_is_not_utf8_lands_in_a_lake_too(tmp_path):
    logs = tmp_path / "logs"
    copy_pair(REAL_GINRUMMY, GIN_STEMS[0], logs, GIN_STEMS[0])
    copy_pair(REAL_GINRUMMY, GIN_STEMS[1], logs, NOT_UTF8)
    result = here("ingest", logs, "--lake", tmp_path / "lake", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["pairs"]["new"] == 2


def test_a_name_that_reads_as_another_once_recorded_is_refused_alone(tmp_path):
    """`caf\\xe9` written out, and `caf` with the byte 0xe9: one is refused, in one line."""
    logs = tmp_path / "logs"
    copy_pair(REAL_GINRUMMY, GIN_STEMS[0], logs, NOT_UTF8)
    copy_pair(REAL_GINRUMMY, GIN_STEMS[1], logs, "caf\\xe9")
    copy_pair(REAL_GINRUMMY, GIN_STEMS[2], logs, GIN_STEMS[2])
    db = tmp_path / "w.duckdb"
    result = here("ingest", logs, "--db", db)
    assert result.returncode == 1
    refused = said(result)
    assert len(refused) == 2 and all("reads as" in line for line in refused)  # its two files
    assert len(landed_stems(db)) == 2


@pytest.mark.parametrize("game", ["ginrummy", "twentyone", "hog"])
@pytest.mark.parametrize("role", ["turns", "scores"])
def test_mixed_line_endings_are_read_and_cost_no_other_pair(tmp_path, game, role):
    logs = tmp_path / "logs"
    if game == "hog":
        made = [hog_pair(logs, f"h{i}", i) for i in range(4)]
    else:
        source, stems = (
            (REAL_GINRUMMY, GIN_STEMS) if game == "ginrummy" else (REAL_TWENTYONE, T21_STEMS)
        )
        made = [copy_pair(source, stem, logs, stem) for stem in stems[:4]]
    odd = made[1][0 if role == "turns" else 1]
    one_line_lf(odd, 1)
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    summary = ingest(con, [logs])
    assert summary.ok, summary.errors
    assert set(outcomes(summary).values()) == {"new"}
    assert len(summary.pairs) == 4
    for turns, scores in made:
        stem = turns.stem
        got = con.execute(
            "SELECT turn_rows, score_rows FROM logs WHERE stem = ?", [stem]
        ).fetchone()
        assert got == (turns.read_bytes().count(b"\n"), scores.read_bytes().count(b"\n"))


def test_a_mixed_line_ending_log_lands_as_its_crlf_twin_does(tmp_path):
    """The same lines with either ending are the same log's rows, value for value."""
    mixed = copy_pair(REAL_GINRUMMY, GIN_STEMS[0], tmp_path / "a", "mixed")
    copy_pair(REAL_GINRUMMY, GIN_STEMS[0], tmp_path / "b", "plain")
    for line in (1, 5, 9):
        one_line_lf(mixed[0], line)
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    assert ingest(con, [tmp_path / "a", tmp_path / "b"]).ok
    rows = con.execute(
        """
        SELECT l.stem, list(t ORDER BY t.round, t.turn) FROM ginrummy_turns t
        JOIN logs l USING (log_id) GROUP BY 1
        """
    ).fetchall()
    by_stem = {
        stem: [{k: v for k, v in r.items() if k != "log_id"} for r in turns] for stem, turns in rows
    }
    assert by_stem["mixed"] == by_stem["plain"]


# --- what ingest cannot read: said, and the rest lands ------------------------------------


def gin_folder(root: Path, count: int = 3) -> list[tuple[Path, Path]]:
    return [copy_pair(REAL_GINRUMMY, stem, root, stem) for stem in GIN_STEMS[:count]]


def said(result) -> list[str]:
    """What a run that ingested some of its files said on stderr, the next: hints aside."""
    assert "Traceback" not in result.stderr + result.stdout
    return [line for line in result.stderr.splitlines() if not line.startswith("next: ")]


def landed_stems(db: Path) -> set[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {row[0] for row in con.execute("SELECT stem FROM logs").fetchall()}
    finally:
        con.close()


@pytest.mark.parametrize("role", [0, 1])
def test_an_unreadable_log_is_one_line_and_the_rest_lands(tmp_path, role):
    pairs = gin_folder(tmp_path / "logs")
    locked = pairs[1][role]
    locked.chmod(0)
    db = tmp_path / "w.duckdb"
    result = mine("ingest", tmp_path / "logs", "--db", db, under=without_file_rights())
    assert result.returncode == 1
    assert said(result) == [f"rejected {locked}: cannot read it (Permission denied)"]
    assert landed_stems(db) == {pairs[0][0].stem, pairs[2][0].stem}


def test_an_unreadable_folder_is_said_and_the_rest_lands(tmp_path):
    gin_folder(tmp_path / "logs" / "a", 2)
    hidden = tmp_path / "logs" / "b"
    copy_pair(REAL_GINRUMMY, GIN_STEMS[3], hidden, GIN_STEMS[3])
    hidden.chmod(0)
    db = tmp_path / "w.duckdb"
    result = mine("ingest", tmp_path / "logs", "--db", db, under=without_file_rights())
    hidden.chmod(0o755)
    assert result.returncode == 1
    assert said(result) == [f"error: {hidden}: cannot read this folder (Permission denied)"]
    assert landed_stems(db) == set(GIN_STEMS[:2])


def test_a_folder_given_that_cannot_be_read_is_one_line(tmp_path):
    """It was two: "cannot read this folder", then "no CSV file in this folder"."""
    hidden = tmp_path / "logs"
    gin_folder(hidden, 1)
    hidden.chmod(0)
    db = tmp_path / "w.duckdb"
    result = mine("ingest", hidden, "--db", db, under=without_file_rights())
    hidden.chmod(0o755)
    assert one_line_error(result) == f"error: {hidden}: cannot read this folder (Permission denied)"
    assert not db.exists()


def test_a_log_too_large_to_hold_is_refused_unread_and_the_rest_lands(tmp_path):
    pairs = gin_folder(tmp_path / "logs")
    huge = pairs[1][0]
    os.truncate(huge, LOG_BYTES + 1)  # sparse: no disk taken, and read, 4 GB of memory
    db = tmp_path / "w.duckdb"
    result = here("ingest", tmp_path / "logs", "--db", db)
    assert result.returncode == 1
    assert said(result) == [
        f"rejected {huge}: 4 GB, more than a log holds (mine reads at most 4 GB)"
    ]
    assert landed_stems(db) == {pairs[0][0].stem, pairs[2][0].stem}


@pytest.mark.parametrize("kind", ["fifo", "dangling link"])
def test_a_csv_that_is_not_a_file_is_said_and_the_rest_lands(tmp_path, kind):
    pairs = gin_folder(tmp_path / "logs")
    odd = pairs[1][0]
    odd.unlink()
    if kind == "fifo":
        os.mkfifo(odd)
    else:
        odd.symlink_to(tmp_path / "nowhere.csv")
    db = tmp_path / "w.duckdb"
    # A FIFO's ingest runs in a process of its own, ended if it ever waits for a writer;
    # a dangling link cannot block, so its ingest runs here (mine's entry point).
    args = ("ingest", tmp_path / "logs", "--db", db)
    result = mine(*args, timeout=60) if kind == "fifo" else here(*args)
    assert result.returncode == 1
    assert f"error: {odd}: not a file (a FIFO, a socket, or a link to nothing)" in said(result)
    assert landed_stems(db) == {pairs[0][0].stem, pairs[2][0].stem}


def test_a_log_swapped_for_a_fifo_after_the_listing_is_refused_not_waited_on(tmp_path):
    """The listing keeps regular files only; one swapped for a FIFO before it was read had
    the ingest wait for a writer, which only Ctrl-C ended."""
    fifo = tmp_path / "t.csv"
    os.mkfifo(fifo)
    log = LogFile(fifo, "turns")
    reading = threading.Thread(target=log.read, args=(tmp_path,), daemon=True)
    reading.start()
    reading.join(120)  # bounded against a hang only
    if reading.is_alive():  # let the waiting read go before failing
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert not reading.is_alive(), "the read waited for a writer"
    assert log.problem.reason == "not a file (a FIFO, a socket, or a link to nothing)"


def test_unpaired_files_are_in_the_manifest(tmp_path):
    pairs = gin_folder(tmp_path / "logs")
    pairs[0][1].unlink()
    pairs[2][0].unlink()
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    summary = ingest(con, [tmp_path / "logs"])
    assert len(summary.orphans) == 2
    rows = con.execute(
        "SELECT path, role, outcome, sha256, error FROM manifest WHERE log_id IS NULL ORDER BY 1"
    ).fetchall()
    assert rows == [
        (str(pairs[0][0]), "turns", "rejected", hashlib.sha256(pairs[0][0].read_bytes()).hexdigest(),
         f"{pairs[0][0]}: unpaired: no {pairs[0][0].stem}-score.csv"),
        (str(pairs[2][1]), "scores", "rejected", hashlib.sha256(pairs[2][1].read_bytes()).hexdigest(),
         f"{pairs[2][1]}: unpaired: no {pairs[2][0].stem}.csv"),
    ]  # fmt: skip


@pytest.mark.parametrize("given", ["nothing/", "empty", "x" * 300])
def test_ingest_of_nothing_readable_says_error_and_makes_no_warehouse(tmp_path, given):
    (tmp_path / "empty").mkdir()
    db = tmp_path / "w.duckdb"
    result = here("ingest", given, "--db", db, cwd=tmp_path)
    one_line_error(result, code=1)
    assert not db.exists()


# --- a file whose content changed says so, and its old log goes ---------------------------


def overwrite(target: tuple[Path, Path], source: tuple[Path, Path]) -> None:
    for to, of in zip(target, source, strict=True):
        to.write_bytes(of.read_bytes())


def logs_by_path(con) -> dict[str, int]:
    return dict(con.execute("SELECT path, log_id FROM manifest WHERE role = 'turns'").fetchall())


def nothing_stray(con) -> None:
    """Every log is held by a file, and every row of every game table by a log."""
    held = {row[0] for row in con.execute("SELECT log_id FROM manifest").fetchall()}
    logs = {row[0] for row in con.execute("SELECT log_id FROM logs").fetchall()}
    assert logs <= held, logs - held
    for game in ("twentyone", "ginrummy", "hog"):
        for table in games.get(game).module("schema").TABLES:
            stray = con.execute(
                f"SELECT count(*) FROM {table} WHERE log_id NOT IN (SELECT log_id FROM logs)"
            ).fetchone()[0]
            assert stray == 0, table


def two_ingested(tmp_path: Path):
    """Two Gin Rummy pairs, ingested: their paths, the warehouse, the log of each path."""
    a, b = gin_folder(tmp_path / "logs", 2)
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    assert ingest(con, [tmp_path / "logs"]).ok
    return a, b, con, logs_by_path(con)


def test_a_file_overwritten_with_content_already_in_drops_its_old_log(tmp_path):
    a, b, con, before = two_ingested(tmp_path)
    overwrite(a, b)
    summary = ingest(con, [tmp_path / "logs"])
    assert outcomes(summary) == {a[0].stem: "replaced", b[0].stem: "unchanged"}
    after = logs_by_path(con)
    assert after[str(a[0])] == after[str(b[0])] == before[str(b[0])]
    assert con.execute("SELECT list(log_id) FROM logs").fetchone()[0] == [before[str(b[0])]]
    nothing_stray(con)


def test_two_edits_leave_one_log_per_content_on_disk(tmp_path):
    a, b, con, _ = two_ingested(tmp_path)
    spare = copy_pair(REAL_GINRUMMY, GIN_STEMS[4], tmp_path / "spare", "spare")
    overwrite(a, b)
    assert ingest(con, [tmp_path / "logs"]).ok
    overwrite(b, spare)
    assert ingest(con, [tmp_path / "logs"]).ok
    contents = {hashlib.sha256(f"{digest(t)}:{digest(s)}".encode()).hexdigest() for t, s in (a, b)}
    in_logs = {row[0] for row in con.execute("SELECT content_sha256 FROM logs").fetchall()}
    assert in_logs == contents
    nothing_stray(con)


def test_two_files_that_swap_contents_keep_both_logs(tmp_path):
    a, b, con, before = two_ingested(tmp_path)
    overwrite(a, b)
    overwrite(b, pair_paths(REAL_GINRUMMY, GIN_STEMS[0]))  # what a held
    summary = ingest(con, [tmp_path / "logs"])
    assert set(outcomes(summary).values()) == {"replaced"}
    after = logs_by_path(con)
    assert after[str(a[0])] == before[str(b[0])] and after[str(b[0])] == before[str(a[0])]
    assert con.execute("SELECT count(*) FROM logs").fetchone()[0] == 2
    nothing_stray(con)


def test_a_file_that_changes_game_takes_its_old_game_rows_along(tmp_path):
    logs = tmp_path / "logs"
    t21 = copy_pair(REAL_TWENTYONE, T21_STEMS[0], logs, "x")
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    assert ingest(con, [logs]).ok
    overwrite(t21, pair_paths(REAL_GINRUMMY, GIN_STEMS[0]))
    summary = ingest(con, [logs])
    assert outcomes(summary) == {"x": "replaced"}
    assert con.execute("SELECT list(DISTINCT game) FROM logs").fetchone()[0] == ["ginrummy"]
    nothing_stray(con)


def test_a_log_written_to_as_ingest_reads_it_lands_as_read(tmp_path, monkeypatch):
    """DuckDB read the file again after ingest had hashed it, so a file written to
    meanwhile landed its new rows under the old content's hash: once the file held the old
    bytes again, the next ingest found it unchanged and kept the other rows for good."""
    turns, _ = hog_pair(tmp_path / "logs", "match", 1)
    before = turns.read_bytes()
    player = before.split(b",")[2]
    after = before.replace(b"," + player + b",", b"," + player + b"x,")  # as many lines
    read = LogFile.read

    def read_then_written(log, aside=None):  # a writer at the worst moment: just after
        read(log, aside)
        if log.path == turns and turns.read_bytes() == before:
            turns.write_bytes(after)

    monkeypatch.setattr(LogFile, "read", read_then_written)
    con = duckdb.connect(str(tmp_path / "w.duckdb"))

    def landed() -> tuple[str, bool]:
        ((sha256,),) = con.execute(
            "SELECT sha256 FROM manifest WHERE path = ?", [str(turns)]
        ).fetchall()
        renamed = con.execute("SELECT count(*) FROM hog_turns WHERE player = ?", [
            (player + b"x").decode()
        ]).fetchall()  # fmt: skip
        return sha256, renamed[0][0] > 0

    assert ingest(con, [tmp_path / "logs"], verify=False).ok
    assert landed() == (hashlib.sha256(before).hexdigest(), False)
    # The next ingest sees the new content, and it replaces the old.
    assert ingest(con, [tmp_path / "logs"], verify=False).ok
    assert landed() == (hashlib.sha256(after).hexdigest(), True)


def test_a_refused_log_written_to_as_ingest_reads_it_is_judged_as_read(tmp_path, monkeypatch):
    """A line DuckDB could not read was named by the parser reading the file again: one
    written to since was judged by its new lines (here the bad line moved from 4 to 6),
    and one swapped for a FIFO was waited on."""
    turns, _ = hog_pair(tmp_path / "logs", "match", 1)
    lines = turns.read_bytes().split(b"\r\n")
    lines[3] += b",x"  # a column too many, which DuckDB's reader does not take
    turns.write_bytes(b"\r\n".join(lines))
    lines[3], lines[5] = lines[3][: -len(b",x")], lines[5] + b",x"
    read = LogFile.read

    def read_then_written(log, aside=None):
        read(log, aside)
        if log.path == turns:
            turns.write_bytes(b"\r\n".join(lines))

    monkeypatch.setattr(LogFile, "read", read_then_written)
    summary = ingest(duckdb.connect(str(tmp_path / "w.duckdb")), [tmp_path / "logs"])
    (error,) = summary.errors
    assert str(error) == f"{turns}:4: expected 9 columns, found 10"

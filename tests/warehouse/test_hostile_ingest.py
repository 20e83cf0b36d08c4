"""Ingest against files a hostile (or unlucky) user hands it: odd names, mixed line
endings, files that change, files it cannot read. Every case ends in what the README
promises: the valid lands, the invalid is named with its line, nothing else is lost, and
the manifest says what happened to every file."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import duckdb
import pytest

from mine.parsers import hog
from mine.parsers.csvlog import pair_paths
from mine.warehouse.ingest import ingest
from tests.conftest import REAL_GINRUMMY, REAL_TWENTYONE
from tests.data import synth

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

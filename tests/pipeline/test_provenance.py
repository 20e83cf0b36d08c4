"""A generated file says which mine wrote it, on which day and by which command (its
docstring holds the data's fingerprint): the same table, command and SOURCE_DATE_EPOCH give
the same bytes, and no path can break out of those comment lines."""

from __future__ import annotations

import ast
import importlib.util
import shutil

import pytest

from mine import __version__
from tests.conftest import hog_table
from tests.mine_cli import here, mine, one_line_error


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    return hog_table(tmp_path_factory.mktemp("t") / "t.parquet")


def test_the_first_line_names_mine_the_day_and_the_command(table, tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "86400")
    out = tmp_path / "odd\nname.py"
    assert mine("generate", "hog", "--table", table, "--out", out).returncode == 0
    text = out.read_text()
    lines = text.splitlines()
    assert lines[:2] == [f"# made by mine {__version__} on 1970-01-02,", "# by the command:"]
    said = lines[: next(i for i, line in enumerate(lines) if not line.startswith("# "))]
    head = "".join(line[2:].replace(" ", "") for line in said[2:])  # long words wrap anywhere
    assert head.startswith("minegeneratehog--table") and "odd?name.py" in head
    assert all(len(line) <= 80 for line in said)
    rest = text[sum(len(line) + 1 for line in said) :]
    assert ast.get_docstring(ast.parse(rest)).startswith("Hog player")
    assert ("ab" * 32) in rest
    again = tmp_path / "again.py"
    assert mine("generate", "hog", "--table", table, "--out", again).returncode == 0
    assert again.read_text().endswith(rest)  # the same table: the same player


# A path may hold a coding declaration, which Python reads in a file's first two lines
# (PEP 263): the file would decode as that, or not import at all.
COOKIES = ["x-*-coding:utf-7-*-", "# vim: set fileencoding=rot13", "-*- coding: utf-16 -*-",
           "coding=nonesuch"]  # fmt: skip


@pytest.mark.parametrize("cookie", COOKIES)
def test_a_path_holding_a_coding_declaration_leaves_the_file_importable(table, tmp_path, cookie):
    named = tmp_path / f"{cookie}.parquet"
    shutil.copyfile(table, named)
    shutil.copyfile(table.with_suffix(".json"), named.with_suffix(".json"))
    out = tmp_path / f"{cookie}.py"
    # Short paths: the command's first line holds the declaration (a long one wraps it on).
    result = here("generate", "hog", "--table", named.name, "--out", out.name, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    spec = importlib.util.spec_from_file_location("generated", out)
    player = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(player)  # as Python imports it: a declaration is honoured
    assert player.__doc__ == ast.get_docstring(ast.parse(out.read_bytes().decode()), clean=False)


BAD_EPOCHS = ["٣٣٣", "99999999999999999999", "-86400", "1.5", "1e9", "soon", "²"]


@pytest.mark.parametrize("epoch", BAD_EPOCHS)
@pytest.mark.parametrize("verb", ["generate", "report"])
def test_a_source_date_epoch_that_names_no_day_is_one_line(table, tmp_path, monkeypatch, epoch,
                                                           verb):  # fmt: skip
    """Refused (the reproducible-builds rule), before the work: nothing is written."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    out = tmp_path / "out"
    line = one_line_error(here(verb, "hog", "--table", table, "--out", out))
    assert "SOURCE_DATE_EPOCH" in line
    assert not out.exists()


def test_fit_refuses_a_source_date_epoch_that_names_no_day_in_its_words(tmp_path, monkeypatch):
    """Hog's fit imports scikit-learn, whose numpy.f2py reads SOURCE_DATE_EPOCH with
    int(): it said `invalid literal for int() with base 10: 'soon'` after reading the logs.
    A process of its own: the import happens once in a process."""
    assert here("simulate", "hog", "--games", 20, "--out", tmp_path / "logs").returncode == 0
    assert here("ingest", tmp_path / "logs", "--db", tmp_path / "w.duckdb").returncode == 0
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "soon")
    out = tmp_path / "t.parquet"
    line = one_line_error(mine("fit", "hog", "--db", tmp_path / "w.duckdb", "--out", out))
    assert "SOURCE_DATE_EPOCH is 'soon'" in line
    assert not out.exists()

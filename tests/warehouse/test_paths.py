"""What `mine ingest` reads from the paths it is given: symlinked folders, glob characters."""

import os
import random
import subprocess

import pytest

from mine.parsers import twentyone
from mine.warehouse.ingest import find_files, ingest
from tests.data import synth


def write_game(folder, stem, seed, rounds):
    return synth.write_pair(
        folder, stem, twentyone, *synth.twentyone_game(random.Random(seed), rounds=rounds)
    )


def landed(con, stem):
    """The turn rows stored for the log of `stem`, in file order."""
    return con.execute(
        "SELECT t.line, t.round, t.player, t.action FROM twentyone_turn_rows t "
        "JOIN logs USING (log_id) WHERE logs.stem = ? ORDER BY t.line",
        [stem],
    ).fetchall()


def expected(path):
    rows = twentyone.read_turns(path)
    return [(n, r.round, r.player, r.action) for n, r in enumerate(rows, 1)]


def test_a_symlinked_subfolder_is_followed_once(warehouse, tmp_path):
    _, con = warehouse
    elsewhere = tmp_path / "elsewhere"
    write_game(elsewhere, "linked", 1, 3)
    root = tmp_path / "logs"
    write_game(root, "direct", 2, 3)
    (root / "sub").symlink_to(elsewhere, target_is_directory=True)
    (elsewhere / "loop").symlink_to(root, target_is_directory=True)  # must not recurse forever
    summary = ingest(con, [root])
    assert summary.ok and summary.count("new") == 2 and not summary.orphans
    assert {r[0] for r in con.execute("SELECT stem FROM logs").fetchall()} == {"direct", "linked"}


def test_a_tree_deeper_than_pythons_recursion_is_walked(tmp_path):
    """A log 1,200 folders down (Python 3.11's os.walk recursed: a RecursionError's
    traceback, and no pair of the batch landed) is found, and one past the longest path
    the system opens is said, not raised."""
    try:
        root = tmp_path / "logs"
        write_game(root, "top", 1, 1)
        deep = root.joinpath(*["d"] * 1200)
        down = os.open(root, os.O_RDONLY)
        for _ in range(1200):  # not Path.mkdir(parents=True): it recurses too
            os.mkdir("d", dir_fd=down)
            down, up = os.open("d", os.O_RDONLY, dir_fd=down), down
            os.close(up)
        os.close(down)
        write_game(deep, "bottom", 2, 1)
        files, refused = find_files([root])
        assert sorted(path.name for path in files) == [
            "bottom-score.csv", "bottom.csv", "top-score.csv", "top.csv"
        ]  # fmt: skip
        assert refused == []
        files, refused = find_files([f"{root}/**/*.csv"])
        assert "nest too deep for a ** pattern: give the folder itself" in str(*refused)
        past = os.open(deep, os.O_RDONLY)  # 2,500 characters more: past the 4,096 of a path
        try:
            for k in range(1, 11):
                os.mkdir("/".join(["d" * 250] * k), dir_fd=past)
        finally:
            os.close(past)
        files, refused = find_files([root])
        assert len(files) == 4
        assert [
            "cannot read this folder (File name too long)" in str(error) for error in refused
        ] == [True]
    finally:  # shutil.rmtree recurses too: pytest's removal of tmp_path would fail
        subprocess.run(["rm", "-rf", "--", tmp_path / "logs"], check=True)


@pytest.mark.parametrize("stem", ["g[1]", "g*", "g?"])
def test_file_names_with_glob_characters_are_read_as_themselves(warehouse, tmp_path, stem):
    _, con = warehouse
    folder = tmp_path / "logs"
    turns, _ = write_game(folder, stem, 3, 2)
    write_game(folder, "g1", 4, 5)  # what `g[1]`, `g*` or `g?` would match as patterns
    write_game(folder, "gg", 5, 4)
    summary = ingest(con, [turns, turns.with_name(f"{stem}-score.csv")])
    assert summary.ok and summary.count("new") == 1, summary.errors
    assert landed(con, stem) == expected(turns)


def test_a_folder_holding_glob_characters_lands_every_pair_exactly(warehouse, tmp_path):
    _, con = warehouse
    folder = tmp_path / "round[1]"
    stems = {"a[1]": 2, "a1": 5, "b*": 3, "bz": 4}
    paths = {stem: write_game(folder, stem, seed, seed)[0] for stem, seed in stems.items()}
    summary = ingest(con, [folder])
    assert summary.ok and summary.count("new") == 4, summary.errors
    for stem, path in paths.items():
        assert landed(con, stem) == expected(path)


def test_a_pattern_that_names_no_existing_file_is_still_a_glob(tmp_path):
    write_game(tmp_path, "x1", 1, 1)
    files, missing = find_files([str(tmp_path / "x[0-9].csv"), str(tmp_path / "y*.csv")])
    assert [f.name for f in files] == ["x1.csv"]
    assert [str(m.path) for m in missing] == [str(tmp_path / "y*.csv")]

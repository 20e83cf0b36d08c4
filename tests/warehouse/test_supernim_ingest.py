"""Super-Nim at ingest: good logs land, and every move is replayed against the rules."""

from __future__ import annotations

import duckdb
import pytest

from mine.strategies.bots.supernim import make_bot
from mine.strategies.engines.simulation import simulate
from mine.strategies.engines.supernim import SuperNimRules
from mine.warehouse import ingest

STEM = "supernim-greedy-vs-alphabeta_2-s5"


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("supernim")
    simulate(
        "supernim",
        SuperNimRules(max_moves=30),
        ["greedy", "alphabeta:2"],
        6,
        5,
        folder,
        make_bot=make_bot,
    )
    return folder


def _ingest(folder, db):
    con = duckdb.connect(str(db))
    try:
        summary = ingest.ingest(con, [folder])
        moves = con.execute("SELECT count(*) FROM supernim_moves").fetchone()[0]
    finally:
        con.close()
    return summary, moves


def _copy_with(logs, tmp_path, role, line_number, edit):
    """The log pair copied, with one line of one file changed by `edit`."""
    target = tmp_path / "bad"
    target.mkdir()
    for path in logs.glob("*.csv"):
        lines = path.read_bytes().split(b"\r\n")
        scores = path.name.endswith("-score.csv")
        if scores == (role == "scores"):
            fields = lines[line_number - 1].decode().split(",")
            lines[line_number - 1] = ",".join(edit(fields)).encode()
        (target / path.name).write_bytes(b"\r\n".join(lines))
    return target


def test_simulated_logs_land_whole(logs, tmp_path):
    summary, moves = _ingest(logs, tmp_path / "w.duckdb")
    assert summary.ok and summary.count("new") == 1
    assert moves == sum(1 for _ in (logs / f"{STEM}.csv").open("rb"))


def _set(index, value):
    def edit(fields):
        fields[index] = value
        return fields

    return edit


def _first_merge_line(logs):
    for number, line in enumerate((logs / f"{STEM}.csv").read_text().splitlines(), 1):
        if ",merge," in line:
            return number, line.split(",")
    raise AssertionError("no merge in the fixture logs")


@pytest.mark.parametrize(
    ("role", "change", "reason"),
    [
        ("turns", "after", "leaves"),
        ("turns", "score", "scores"),
        ("turns", "player", "moves"),
        ("scores", "winner", "winner"),
        ("scores", "moves", "moves, the turn file has"),
    ],
)
def test_a_broken_rule_rejects_the_pair_with_its_line(logs, tmp_path, role, change, reason):
    if role == "turns":
        line, fields = _first_merge_line(logs)
        edit = {
            "after": _set(7, fields[3]),  # the board unchanged by the merge
            "score": _set(8, str(int(fields[8]) + 2)),
            "player": _set(2, "min" if fields[2] == "max" else "max"),
        }[change]
    else:
        line = 1
        fields = (logs / f"{STEM}-score.csv").read_text().splitlines()[0].split(",")
        edit = {
            "winner": _set(5, {"max": "min", "min": "draw", "draw": "max"}[fields[5]]),
            "moves": _set(6, "99"),
        }[change]
    bad = _copy_with(logs, tmp_path, role, line, edit)
    summary, moves = _ingest(bad, tmp_path / "w.duckdb")
    assert not summary.ok and moves == 0
    (error,) = summary.errors
    name = f"{STEM}-score.csv" if role == "scores" else f"{STEM}.csv"
    assert str(error).startswith(f"{bad / name}:{line}: ") and reason in error.reason


def test_an_illegal_merge_of_equal_heaps_is_rejected(tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "x-vs-y-s1.csv").write_bytes(b"1,1,max,3;3,merge,1,2,6,0,0\r\n")
    (folder / "x-vs-y-s1-score.csv").write_bytes(b"1,max,3;3,0,0,draw,1,cutoff\r\n")
    summary, _ = _ingest(folder, tmp_path / "w.duckdb")
    (error,) = summary.errors
    assert error.line == 1 and "merge 1 onto 2 is not legal on 3;3" in error.reason


def test_valid_data_lands_beside_a_rejected_pair(logs, tmp_path):
    bad = _copy_with(logs, tmp_path, "turns", 1, _set(9, "7"))
    for path in logs.glob("*.csv"):  # the good pair under another name
        (bad / path.name.replace("s5", "s6")).write_bytes(path.read_bytes())
    summary, moves = _ingest(bad, tmp_path / "w.duckdb")
    assert summary.count("new") == 1 and summary.count("rejected") == 1
    assert moves == sum(1 for _ in (logs / f"{STEM}.csv").open("rb"))


@pytest.fixture(scope="module")
def variant_logs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("supernim-variant")
    rules = SuperNimRules(cap_scores=True, max_moves=30)
    simulate("supernim", rules, ["greedy", "alphabeta:2"], 6, 5, folder, make_bot=make_bot)
    return folder


def test_a_variant_log_lands_only_under_the_variant_s_rules(variant_logs, tmp_path):
    """A merge over the cap scores in the variant: under the default rules that is a score
    the move cannot give, named by its line; under `cap_scores=on` every move replays."""
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    try:
        default = ingest.ingest(con, [variant_logs])
        variant = ingest.ingest(
            con, [variant_logs], rules={"supernim": SuperNimRules(cap_scores=True)}
        )
        moves = con.execute("SELECT count(*) FROM supernim_moves").fetchone()[0]
    finally:
        con.close()
    (error,) = default.errors
    assert error.path.endswith(f"{STEM}.csv") and "after a merge by" in error.reason
    assert variant.ok and variant.count("new") == 1
    assert moves == sum(1 for _ in (variant_logs / f"{STEM}.csv").open("rb"))

"""`mine simulate|fit|report hog` through the real CLI (the whole loop: tests/pipeline)."""

from __future__ import annotations

import base64
import json
import re
import struct
import zlib

import duckdb
import pytest
from typer.testing import CliRunner

from mine.models.hog import read_table
from mine.parsers import hog as log
from mine.pipeline.cli import app
from mine.pipeline.reports.hog import CELL, PALETTE
from mine.pipeline.stats import data_fingerprint
from tests.mine_cli import here, one_line_error

runner = CliRunner()


def _simulate(out, *extra):
    result = runner.invoke(
        app,
        [
            "simulate",
            "hog",
            "--games",
            "300",
            "--players",
            "always_roll:6,square_strategy",
            "--out",
            str(out),
            *extra,
        ],
    )
    assert result.exit_code == 0, result.output
    return result


def test_simulate_is_deterministic_and_writes_the_log_format(tmp_path):
    _simulate(tmp_path / "a", "--seed", "5")
    _simulate(tmp_path / "b", "--seed", "5")
    _simulate(tmp_path / "c", "--seed", "6")
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == [
        "hog-always_roll_6-vs-square_strategy-s5-score.csv",
        "hog-always_roll_6-vs-square_strategy-s5.csv",
    ]
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
        other = name.replace("-s5", "-s6")  # the seed names its logs
        assert (tmp_path / "a" / name).read_bytes() != (tmp_path / "c" / other).read_bytes()
    turns = list(log.read_turns(tmp_path / "a" / names[1]))
    scores = list(log.read_scores(tmp_path / "a" / names[0]))
    assert len(scores) == 300 and {t.player for t in turns} == {"always_roll:6", "square_strategy"}
    assert scores[0].first_player == "always_roll:6" and scores[1].first_player != "always_roll:6"


def test_simulate_variant_and_json(tmp_path):
    result = _simulate(
        tmp_path, "--seed", "1", "--rules", "goal=120", "--rules", "dice_sides=8", "--json"
    )
    summary = json.loads(result.stdout)
    assert summary["rules"] == {"goal": 120, "dice_sides": 8}  # the settings over the defaults
    assert summary["matches"][0]["games"] == 300
    turns = list(log.read_turns(tmp_path / "hog-always_roll_6-vs-square_strategy-s1.csv"))
    assert max(d for t in turns for d in t.outcomes) == 8
    assert max(t.new_score for t in turns) >= 120


@pytest.mark.parametrize(
    "args",
    [
        ["--players", "always_roll:6"],
        ["--players", "always_roll:6,nobody"],
        ["--rules", "goal"],
        ["--rules", "colour=red"],
    ],
)
def test_simulate_errors_are_one_line(tmp_path, args):
    one_line_error(here("simulate", "hog", "--out", tmp_path, *args), code=1)


def _ingest(db, logs):
    result = runner.invoke(app, ["ingest", str(logs), "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output


def test_fit_and_report(tmp_path):
    _simulate(tmp_path / "logs", "--seed", "2")
    db = tmp_path / "w.duckdb"
    _ingest(db, tmp_path / "logs")
    table = tmp_path / "t.parquet"
    result = runner.invoke(
        app,
        [
            "fit",
            "hog",
            "--db",
            str(db),
            "--out",
            str(table),
            "--opponent",
            "square_strategy",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    fitted = json.loads(result.stdout)
    assert fitted["learned"]["goal"] == 100
    assert fitted["kind"] == "strategy" and fitted["logs"] == 1
    con = duckdb.connect(str(db), read_only=True)
    assert fitted["fingerprint"] == data_fingerprint(con, "hog")[0]
    con.close()
    # generate and validate: tests/pipeline/test_hog_end_to_end.py
    report = tmp_path / "r.html"
    result = runner.invoke(app, ["report", "hog", "--table", str(table), "--out", str(report)])
    assert result.exit_code == 0, result.output
    text = report.read_text()
    strategy = read_table(table).table
    assert _heat_map(text) == [[PALETTE[k] for k in row] for row in strategy.tolist()]
    assert len(text) < 60_000 and "square_strategy" in text  # provenance: against whom
    assert re.search(r"<td>always_roll:6</td><td class=num>0\.\d{6}</td>", text)
    assert "http" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")


def _heat_map(text: str) -> list[list[str]]:
    """The colour of every cell of the report's inline PNG, decoded with zlib alone."""
    data = base64.b64decode(re.search(r'href="data:image/png;base64,([^"]+)"', text).group(1))
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = {}, 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        assert struct.unpack(">I", data[at + 8 + length : at + 12 + length])[0] == zlib.crc32(
            kind + body
        )
        chunks[kind] = chunks.get(kind, b"") + body
        at += 12 + length
    width, height, depth, colour_type = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert (depth, colour_type) == (8, 3)
    palette = ["#" + chunks[b"PLTE"][i : i + 3].hex() for i in range(0, len(chunks[b"PLTE"]), 3)]
    raw = zlib.decompress(chunks[b"IDAT"])
    rows = [raw[r * (width + 1) : (r + 1) * (width + 1)] for r in range(height)]
    assert all(row[0] == 0 for row in rows)  # no PNG filter: indices as they are
    cell = CELL
    return [
        [
            palette[rows[s * cell + cell // 2][1 + o * cell + cell // 2]]
            for o in range(width // cell)
        ]
        for s in range(height // cell)
    ]


def test_fit_without_a_warehouse_or_tables(tmp_path):
    one_line_error(here("fit", "hog", "--db", tmp_path / "none.duckdb"), code=1)
    duckdb.connect(str(tmp_path / "empty.duckdb")).close()
    result = runner.invoke(app, ["fit", "hog", "--db", str(tmp_path / "empty.duckdb")])
    assert result.exit_code == 1 and "no logs yet (run `mine ingest` first)" in result.output


def test_validate_rejects_a_non_player(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\n")
    result = runner.invoke(app, ["validate", "hog", str(bad)])
    assert result.exit_code == 1 and "final_strategy" in result.output
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def final_strategy(score, opponent_score):\n    return 12\n")
    result = runner.invoke(app, ["validate", "hog", str(wrong)])
    assert result.exit_code == 1 and "error:" in result.output


@pytest.mark.parametrize("answer", ["'3'", "3.0", "True", "11"])
def test_validate_names_an_invalid_play_with_its_state_and_value(tmp_path, answer):
    """Issue 42: a string, a float or a bool is no number of dice, however Python would
    convert it; the file's first invalid answer is its failure, in one line."""
    path = tmp_path / "p.py"
    path.write_text(
        "def final_strategy(score, opponent_score):\n"
        f"    return {answer} if (score, opponent_score) == (7, 3) else 4\n"
    )
    line = one_line_error(here("validate", "hog", path, "--json"), code=1)
    assert f"{path}: an invalid play: final_strategy(7, 3) returned {answer} " in line
    assert line.endswith("(the rules allow 0..10 dice)")

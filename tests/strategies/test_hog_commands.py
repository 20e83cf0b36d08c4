"""`mine simulate|fit|generate|validate|report hog` end to end, through the real CLI."""

from __future__ import annotations

import json

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from parsers import hog as log
from pipeline.cli import app

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
        "always_roll_6-vs-square_strategy-score.csv",
        "always_roll_6-vs-square_strategy.csv",
    ]
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
        assert (tmp_path / "a" / name).read_bytes() != (tmp_path / "c" / name).read_bytes()
    turns = list(log.read_turns(tmp_path / "a" / names[1]))
    scores = list(log.read_scores(tmp_path / "a" / names[0]))
    assert len(scores) == 300 and {t.player for t in turns} == {"always_roll:6", "square_strategy"}
    assert scores[0].first_player == "always_roll:6" and scores[1].first_player != "always_roll:6"


def test_simulate_variant_and_json(tmp_path):
    result = _simulate(
        tmp_path, "--seed", "1", "--rules", "goal=120", "--rules", "dice_sides=8", "--json"
    )
    summary = json.loads(result.stdout)
    assert summary["rules"]["goal"] == 120 and summary["matches"][0]["games"] == 300
    turns = list(log.read_turns(tmp_path / "always_roll_6-vs-square_strategy.csv"))
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
    result = runner.invoke(app, ["simulate", "hog", "--out", str(tmp_path), *args])
    assert result.exit_code == 1
    assert "error:" in result.output and "Traceback" not in result.output


def _warehouse(path, logs):
    """The two Hog tables as the warehouse holds them, loaded from parsed logs."""
    stem = logs / "always_roll_6-vs-square_strategy"
    turns = log.turn_frame(log.read_turns(f"{stem}.csv")).with_row_index("line", 1)
    games = log.score_frame(log.read_scores(f"{stem}-score.csv")).with_row_index("line", 1)
    turns = turns.with_columns(
        pl.lit(1).alias("log_id"), pl.col("outcomes").cast(pl.List(pl.Int32))
    )
    games = games.with_columns(pl.lit(1).alias("log_id"))
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE hog_turns AS SELECT log_id, line, game, turn, player, score, "
        "opponent_score, num_rolls, outcomes, points, new_score FROM turns"
    )
    con.execute(
        "CREATE TABLE hog_games AS SELECT log_id, line, game, first_player, "
        "final_score_first, final_score_second, winner FROM games"
    )
    con.close()


def test_fit_generate_validate_report(tmp_path):
    _simulate(tmp_path / "logs", "--seed", "2")
    db = tmp_path / "w.duckdb"
    _warehouse(db, tmp_path / "logs")
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
            "--against",
            "square_strategy",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["learned"]["goal"] == 100
    player = tmp_path / "player.py"
    result = runner.invoke(app, ["generate", "hog", "--table", str(table), "--out", str(player)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["validate", "hog", str(player), "--json"])
    assert result.exit_code == 0, result.output
    card = json.loads(result.stdout)
    best = card["best_possible_vs_always_roll_6"]["average"]
    assert card["against"]["square_strategy"]["average"] > 0.7
    assert 0.73 < best < 0.74 and card["optimal_guaranteed"]["average"] == pytest.approx(0.5)
    report = tmp_path / "r.html"
    result = runner.invoke(app, ["report", "hog", "--table", str(table), "--out", str(report)])
    assert result.exit_code == 0, result.output
    text = report.read_text()
    assert "<svg" in text and text.count("<rect") == 100 * 100
    assert "http" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_fit_without_a_warehouse_or_tables(tmp_path):
    result = runner.invoke(app, ["fit", "hog", "--db", str(tmp_path / "none.duckdb")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    duckdb.connect(str(tmp_path / "empty.duckdb")).close()
    result = runner.invoke(app, ["fit", "hog", "--db", str(tmp_path / "empty.duckdb")])
    assert result.exit_code == 1 and "hog_turns" in result.output


def test_validate_rejects_a_non_player(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\n")
    result = runner.invoke(app, ["validate", "hog", str(bad)])
    assert result.exit_code == 1 and "final_strategy" in result.output
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def final_strategy(score, opponent_score):\n    return 12\n")
    result = runner.invoke(app, ["validate", "hog", str(wrong)])
    assert result.exit_code == 1 and "error:" in result.output

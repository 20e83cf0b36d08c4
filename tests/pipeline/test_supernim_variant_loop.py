"""Super-Nim's capped-merge variant through the real CLI (issue 31): simulate → ingest →
stats → fit → generate → validate under `--rules cap_scores=on`, in short games whose
start values the exact solver reaches."""

from __future__ import annotations

import json

import duckdb
import pytest

from mine.models import supernim as model
from mine.strategies.player_file import load_module
from tests.mine_cli import here, invoke, invoke_json, one_line_error

RULES = ("--rules", "cap_scores=on", "--rules", "max_moves=12")


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    root = tmp_path_factory.mktemp("supernim-variant")
    db, logs = root / "w.duckdb", root / "logs"
    out = {"root": root, "db": db, "logs": logs}
    out["simulated"] = invoke_json(
        "simulate", "supernim", "--games", 200, "--seed", 4, "--out", logs,
        "--players", "random,alphabeta:1", *RULES,
    )  # fmt: skip
    out["refused"] = here("ingest", logs, "--db", root / "default.duckdb")
    out["ingested"] = invoke_json("ingest", logs, "--db", db, "--rules", "cap_scores=on")
    out["stats"] = invoke_json("stats", "supernim", "--db", db, *RULES)
    out["fit"] = invoke_json("fit", "supernim", "--db", db, "--out", root / "t.parquet", *RULES)
    invoke("generate", "supernim", "--table", root / "t.parquet", "--out", root / "p.py",
           "--check-games", 4)  # fmt: skip
    out["card"] = invoke_json(
        "validate", "supernim", root / "p.py", "--games", 4, "--rules", "cap_scores=on",
        "--baselines", "exact", "--equal-depth", 0,
    )  # fmt: skip
    return out


def test_the_variant_s_logs_are_refused_under_the_default_rules_and_land_under_its_own(loop):
    assert loop["simulated"]["rules"]["cap_scores"] is True
    rejected = one_line_error(loop["refused"], prefix="rejected ")
    assert "random-vs-alphabeta_1-s4.csv:" in rejected and "after a merge by" in rejected
    assert loop["ingested"]["ok"] and loop["ingested"]["pairs"]["new"] == 1
    assert loop["stats"]["games"] == 200


def test_stats_meet_the_exact_value_of_every_start_the_solver_reaches(loop):
    con = duckdb.connect(str(loop["db"]), read_only=True)
    try:
        (row,) = con.execute(
            "SELECT games, games_with_value, max_margin_minus_value, max_value_losing "
            "FROM stats_supernim_value"
        ).fetchall()
    finally:
        con.close()
    games, with_value, gap, losing = row
    # random as max against alphabeta:1: below the value, and no value-losing count (a
    # search per move) where the value has no closed form
    assert games == with_value == 200 and gap < 0 and losing is None


def test_the_table_records_the_rules_it_was_fitted_under(loop):
    fitted = model.read_table(loop["root"] / "t.parquet")
    settings = fitted.metadata["settings"]
    assert settings["cap_scores"] is True and settings["max_moves"] == 12
    assert list(settings["caps"]) == ["gain", "big", "heaps", "odds", "sticks", "odd_twos", "left"]
    yardstick = fitted.metadata["yardstick"]
    assert (
        yardstick["boards"] > 0 and yardstick["mean_abs_error"] < yardstick["plain_mean_abs_error"]
    )
    assert fitted.metadata["holdout"]["positions_with_two"] == 0  # no closed form to meet


def test_the_generated_file_plays_the_variant(loop):
    module = load_module(loop["root"] / "p.py", "supernim", ("ai_move",))
    assert module.CAP_SCORES is True and module.MAX_MOVES == 12
    # merging 28 onto 9 scores 27 sticks: the one move worth anything with one move left
    assert module.ai_move(("max", (9, 28), 0, 0), moves_left=1) == ("min", (10,), 27, 0)


def test_validate_measures_the_file_against_the_exact_value(loop):
    card = loop["card"]
    assert "the sticks a merge loses to the cap score" in card["rules_text"]
    for row in card["against"].values():
        assert row["games"] == 4 and row["invalid_moves"] == 0
        assert row["against_value"]["games_with_value"] == 4
    # the exact opponent keeps the value: the file ends at or below it, never above
    assert card["against"]["exact"]["against_value"]["mean_margin_minus_value"] <= 0


@pytest.mark.parametrize("asked", ["cap_scores=off", "merge_cap=12"])
def test_validate_refuses_rules_other_than_the_file_s_in_one_line(loop, asked):
    result = here("validate", "supernim", loop["root"] / "p.py", "--games", 2,
                  "--rules", asked, "--baselines", "random")  # fmt: skip
    assert "not the " + asked + " asked" in one_line_error(result)


def test_the_report_sets_the_variant_against_its_own_yardstick(loop, tmp_path):
    card = tmp_path / "card.json"
    card.write_text(json.dumps(loop["card"]))
    page = tmp_path / "r.html"
    invoke("report", "supernim", "--table", loop["root"] / "t.parquet", "--card", card,
           "--db", loop["db"], "--out", page)  # fmt: skip
    text = page.read_text()
    assert "Where merges score (cap_scores)" in text and "moves from the cut-off, its mean" in text
    assert "by the sticks the largest merge loses to the cap" in text

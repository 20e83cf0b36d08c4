"""Card guessing end to end through the real CLI: simulate → ingest → stats → fit →
generate → validate → report, with a skewed answerer too; and bad input."""

from __future__ import annotations

import pytest

from tests.mine_cli import invoke, invoke_json, mine


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    root = tmp_path_factory.mktemp("cardguess")
    db, logs = root / "w.duckdb", root / "logs"
    out = {"root": root, "db": db}
    out["simulated"] = invoke_json("simulate", "cardguess", "--n", 2, "--games", 150, "--guesser",
                             "greedy", "--answerer", "uniform", "--seed", 4, "--out", logs)  # fmt: skip
    invoke_json("simulate", "cardguess", "--n", 2, "--games", 150, "--guesser", "random-consistent",
          "--answerer", "faces", "--seed", 5, "--out", logs / "faces")  # fmt: skip
    out["ingested"] = invoke_json("ingest", logs, "--db", db)
    out["stats"] = invoke_json("stats", "cardguess", "--db", db)
    out["fit"] = invoke_json("fit", "cardguess", "--db", db, "--quick", "--n", 2,
                       "--logs", str(logs / "greedy*"), "--out", root / "t.parquet")  # fmt: skip
    invoke("generate", "cardguess", "--table", root / "t.parquet", "--out", root / "p.py",
         "--no-validate")  # fmt: skip
    out["card"] = invoke_json("validate", "cardguess", root / "p.py", "--n", 2, "--answers", 300,
                        "--baselines", "greedy,first-consistent")  # fmt: skip
    return out


def test_simulate_ingest_and_stats(loop):
    assert loop["simulated"]["games"] == 150 and loop["simulated"]["most_guesses"] <= 7
    assert loop["ingested"]["pairs"]["new"] == 2 and loop["ingested"]["ok"]
    stats = loop["stats"]
    assert stats["games"] == 300
    assert stats["answers_uniform_p_value"] < 0.05  # half the answers came from `faces`
    assert set(stats["mean_guesses"]) == {"n2 greedy-uniform-n2", "n2 random-consistent-faces-n2"}


def test_fit_reads_only_the_chosen_logs_and_sees_them_uniform(loop):
    fit = loop["fit"]
    assert fit["games"] == 150 and fit["logs"] == 1
    assert fit["answerer"]["uniform"] is True
    assert fit["trees"]["2"]["nodes"] >= 1326


def test_validate_plays_the_files_own_functions_against_the_baselines(loop):
    entry = loop["card"]["sizes"]["2"]
    mine, greedy = entry["player"], entry["baselines"]["greedy"]
    assert mine["games"] == greedy["games"] == 300 and mine["invalid"] == 0
    assert mine["worst"] <= 7 and entry["feedback_mismatches"] == 0
    assert sum(mine["distribution"].values()) == 300
    assert entry["vs"]["first-consistent"]["fewer_with_95_confidence"]
    assert mine["slowest_call_s"] < 1.0


def test_report_shows_the_tree_and_the_validation(loop):
    root = loop["root"]
    invoke("report", "cardguess", "--table", root / "t.parquet", "--out", root / "r.html",
         "--player", root / "p.py")  # fmt: skip
    page = (root / "r.html").read_text()
    assert "after the first guess" in page and "the generated player and the baselines" in page


def test_stats_tables_are_in_the_warehouse(loop):
    # DuckDB's CSV writer writes to the process's own stdout: run mine as a user does
    result = mine("query", "SELECT sum(games) FROM stats_cardguess_candidates WHERE guess_no = 1",
                  "--db", loop["db"], "--format", "csv")  # fmt: skip
    assert result.stdout.strip().splitlines()[-1] == "300"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("simulate", "cardguess", "--guesser", "oracle"), "unknown guesser 'oracle'"),
        (("simulate", "cardguess", "--answerer", "cheat"), "unknown answerer 'cheat'"),
        (("validate", "cardguess", "missing.py"), "missing.py: no such file"),
        (("fit", "cardguess", "--n", "5"), "--n takes 2, 3 or 4"),
    ],
)
def test_bad_input_is_one_line_and_a_failure(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.duckdb").touch()  # so `fit` gets as far as its options
    result = invoke(*args, ok=False)
    assert result.exit_code != 0
    assert message in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_the_demo_runs_the_loop_and_the_tree_beats_greedy(tmp_path):
    from rich.console import Console

    from mine.pipeline.demos import cardguess as demo

    figures = demo.run(tmp_path / "w.duckdb", tmp_path / "out", Console(quiet=True), games=60)
    assert figures["player_mean"] < figures["greedy_mean"]
    assert figures["player_worst"] <= 7
    assert (tmp_path / "out" / "cardguess-report.html").exists()

"""Card guessing end to end through the real CLI: simulate → ingest → stats → fit →
generate → validate → report, with a skewed answerer too; and bad input."""

from __future__ import annotations

import json

import duckdb
import pytest

from mine.pipeline.cli import app
from mine.pipeline.commands import cardguess as demo
from mine.pipeline.demo import run_loop
from mine.pipeline.stats import cardguess as stats
from mine.warehouse.connection import connect
from mine.warehouse.ingest import ingest
from tests.conftest import REPO
from tests.mine_cli import here, invoke, invoke_json, mine, one_line_error

EXAMPLES = REPO / "examples" / "logs" / "cardguess"


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    root = tmp_path_factory.mktemp("cardguess")
    db, logs = root / "w.duckdb", root / "logs"
    out = {"root": root, "db": db}
    out["simulated"] = invoke_json("simulate", "cardguess", "--n", 2, "--games", 150, "--players",
                             "greedy", "--answerer", "uniform", "--seed", 4, "--out", logs)  # fmt: skip
    invoke_json("simulate", "cardguess", "--n", 2, "--games", 150, "--players", "random-consistent",
          "--answerer", "faces", "--seed", 5, "--out", logs / "faces")  # fmt: skip
    out["ingested"] = invoke_json("ingest", logs, "--db", db)
    out["stats"] = invoke_json("stats", "cardguess", "--db", db)
    out["fit"] = invoke_json("fit", "cardguess", "--db", db, "--quick", "--n", 2,
                       "--logs", str(logs / "cardguess-greedy*"), "--out", root / "t.parquet")  # fmt: skip
    out["generated"] = invoke_json("generate", "cardguess", "--table", root / "t.parquet",
                                   "--out", root / "p.py")  # fmt: skip
    out["card"] = invoke_json("validate", "cardguess", root / "p.py", "--n", 2, "--answers", 300,
                        "--baselines", "greedy,first-consistent")  # fmt: skip
    return out


def test_simulate_ingest_and_stats(loop):
    (match,) = loop["simulated"]["matches"]
    assert loop["simulated"]["games"] == 150 and match["stem"] == "cardguess-greedy-s4"
    assert loop["ingested"]["pairs"]["new"] == 2 and loop["ingested"]["ok"]
    stats = loop["stats"]
    assert stats["games"] == 300
    assert stats["answers_uniform_p_value"] < 0.05  # half the answers came from `faces`
    printed = " ".join(invoke("stats", "cardguess", "--db", loop["db"]).output.split())
    assert (f"under a uniform answerer: {stats['answers_uniform_p_value']:.4g} (cut-off 0.001: "
            "below it, `mine fit cardguess` takes the answerer as skewed)") in printed  # fmt: skip
    assert set(stats["mean_guesses"]) == {"n2 cardguess-greedy-s4",
                                          "n2 cardguess-random_consistent-s5"}  # fmt: skip
    mean = -match["players"][0]["mean_return"]
    assert stats["mean_guesses"]["n2 cardguess-greedy-s4"] == pytest.approx(mean, abs=1e-4)
    with duckdb.connect(str(loop["db"]), read_only=True) as con:
        (most,) = con.execute("SELECT max(guesses) FROM cardguess_games JOIN logs USING (log_id) "
                              "WHERE stem = 'cardguess-greedy-s4'").fetchone()  # fmt: skip
    assert most <= 7


def test_fit_reads_only_the_chosen_logs_and_sees_them_uniform(loop):
    fit = loop["fit"]
    assert fit["games"] == 150 and fit["logs"] == 1
    assert fit["answerer"]["uniform"] is True
    # printed with the test's cut-off and what it decided
    p = fit["answerer"]["chi_square_p_value"]
    assert demo.answerer_line(fit["answerer"]) == (
        f"uniform: chi-square p {p:.4g} ≥ cut-off 0.001, so the test does not reject a uniform "
        "answerer; the trees take every answer as equally likely"
    )
    assert fit["trees"]["2"]["nodes"] >= 1326


def test_generate_measures_the_file_it_writes(loop):
    generated = loop["generated"]
    assert generated["player"] == str(loop["root"] / "p.py")
    assert generated["sizes"]["2"]["player"]["exact"]
    assert generated["sizes"]["2"]["player"]["games"] == 1326
    assert generated["sizes"]["2"]["vs"]["greedy"]["mean_difference"] > 0  # fewer than greedy
    assert "no tree for n = 3" in generated["sizes"]["3"]["refused"]
    assert "no tree for n = 4" in generated["sizes"]["4"]["refused"]


def test_a_tree_fitted_to_a_skewed_answerer_is_measured_as_it_draws(loop):
    root = loop["root"]
    fit = invoke_json("fit", "cardguess", "--db", loop["db"], "--quick", "--n", 2, "--logs",
                      str(root / "logs" / "faces" / "*"), "--out", root / "faces.parquet")  # fmt: skip
    assert fit["answerer"]["uniform"] is False
    p = fit["answerer"]["chi_square_p_value"]
    assert demo.answerer_line(fit["answerer"]).startswith(
        f"skewed: chi-square p {p:.4g} < cut-off 0.001, so the test rejects a uniform answerer"
    )
    generated = invoke_json("generate", "cardguess", "--table", root / "faces.parquet",
                            "--out", root / "faces.py")  # fmt: skip
    assert generated["answerer"] == "fitted" and generated["sizes"]["2"]["player"]["exact"]
    assert generated["sizes"]["2"]["vs"]["greedy"]["mean_difference"] >= 0


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
    (root / "card.json").write_text(json.dumps(loop["card"]))
    invoke("report", "cardguess", "--table", root / "t.parquet", "--out", root / "r.html",
         "--card", root / "card.json")  # fmt: skip
    page = (root / "r.html").read_text()
    assert "after the first guess" in page and "the generated player and the baselines" in page


def test_stats_tables_are_in_the_warehouse(loop):
    # DuckDB's CSV writer writes to the process's own stdout: run mine as a user does
    result = mine("query", "SELECT sum(games) FROM stats_cardguess_candidates WHERE guess_no = 1",
                  "--db", loop["db"], "--format", "csv")  # fmt: skip
    assert result.stdout.strip().splitlines()[-1] == "300"


def test_logs_of_the_same_stem_in_two_folders_stay_apart(tmp_path):
    """Issue 27: a log is its log_id; two folders' `cardguess-first_consistent-s1` are two."""
    db = tmp_path / "w.duckdb"
    for folder, games in (("a", 20), ("b", 30)):
        invoke("simulate", "cardguess", "--players", "first-consistent", "--games", games,
               "--seed", 1, "--out", tmp_path / folder)  # fmt: skip
    invoke("ingest", tmp_path / "a", tmp_path / "b", "--db", db)
    stats = invoke_json("stats", "cardguess", "--db", db)
    assert stats["games"] == 50 and len(stats["mean_guesses"]) == 2
    with duckdb.connect(str(db), read_only=True) as con:
        per_log = con.execute(
            "SELECT log_id, log, sum(games) FROM stats_cardguess_guesses GROUP BY ALL ORDER BY 3"
        ).fetchall()
        first = con.execute(
            "SELECT log_id, games FROM stats_cardguess_first_guess ORDER BY games"
        ).fetchall()
    assert [games for *_, games in per_log] == [20, 30]
    assert per_log[0][0] != per_log[1][0]
    assert all(log.startswith("cardguess-first_consistent-s1 (log ") for _, log, _ in per_log)
    assert first == [(log_id, games) for log_id, _, games in per_log]


def test_the_same_games_in_another_order_give_the_same_statistics(tmp_path):
    """The statistics of a log do not depend on the order of its games: its games reversed
    (renumbered, so that the log is still in order) give the same tables, row for row. The
    first guesses as common as each other came in the order of DuckDB's hash table, which
    follows the rows' order (and changed between runs: a flaky test_narrow_tables)."""
    stem = "random-consistent-faces-n2"  # many first guesses, most of them tied at one game
    derived = []
    for reverse in (False, True):
        folder = tmp_path / str(reverse)
        folder.mkdir()
        for name in (f"{stem}.csv", f"{stem}-score.csv"):
            rows = [line.split(",") for line in (EXAMPLES / name).read_text().splitlines()]
            if reverse:
                last = max(int(game) for game, *_ in rows)
                rows = [[str(last + 1 - int(game)), *rest] for game, *rest in rows]
                rows.sort(key=lambda row: int(row[0]))  # stable: each game's guesses in order
            (folder / name).write_text("".join(",".join(row) + "\n" for row in rows))
        with connect(str(tmp_path / f"{reverse}.duckdb")) as con:
            assert ingest(con, [folder]).ok
            derived.append(stats.derive(con))
    kept, turned = derived
    assert kept.first_guess["games"].n_unique() < kept.first_guess.height  # ties to order
    for name, table in kept._asdict().items():
        assert table.equals(getattr(turned, name)), name


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("simulate", "cardguess", "--players", "oracle"), "unknown guesser 'oracle'"),
        (("simulate", "cardguess", "--players", "greedy,entropy"), "seats 1 player, not 2"),
        (("simulate", "cardguess", "--answerer", "cheat"), "unknown answerer 'cheat'"),
        (("validate", "cardguess", "missing.py"), "missing.py: no such file"),
        (("fit", "cardguess", "--n", "5"), "--n takes 2, 3 or 4"),
        (("validate", "cardguess", "p.py", "--answerer", "cheat"), "unknown answerer 'cheat'"),
    ],
)
def test_bad_input_is_one_line_and_a_failure(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.duckdb").touch()  # so `fit` gets as far as its options
    assert message in one_line_error(here(*args))


def test_the_demo_runs_the_loop_and_the_tree_beats_greedy(tmp_path, capsys):
    out = tmp_path / "out"
    assert run_loop(demo.LOOP, tmp_path / "w.duckdb", out, app)
    assert "$ mine fit cardguess --n 2 --quick" in capsys.readouterr().out
    entry = invoke_json("validate", "cardguess", out / "cardguess_player.py", "--n", "2")
    entry = entry["sizes"]["2"]
    assert entry["player"]["mean"] < entry["baselines"]["greedy"]["mean"]
    assert entry["player"]["worst"] <= 7
    assert (out / "cardguess-report.html").exists()

"""Super-Nim end to end through the real CLI: simulate → ingest → stats → fit → generate →
validate → report, plus what a user gets for bad input."""

from __future__ import annotations

import json

import duckdb
import pytest

from mine.strategies.player_file import load_module
from tests.mine_cli import here, invoke, invoke_json, one_line_error


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    root = tmp_path_factory.mktemp("supernim")
    db, logs = root / "w.duckdb", root / "logs"
    out = {"root": root, "db": db, "logs": logs}
    out["simulated"] = invoke_json(
        "simulate", "supernim", "--games", 24, "--seed", 3, "--out", logs,
        "--players", "random,greedy,alphabeta:1,alphabeta:2",
    )  # fmt: skip
    out["ingested"] = invoke_json("ingest", logs, "--db", db)
    out["stats"] = invoke_json("stats", "supernim", "--db", db)
    out["fit"] = invoke_json("fit", "supernim", "--db", db, "--out", root / "t.parquet")
    invoke("generate", "supernim", "--table", root / "t.parquet", "--out", root / "p.py",
         "--check-games", 8)  # fmt: skip
    out["card"] = invoke_json(
        "validate", "supernim", root / "p.py", "--games", 8,
        "--baselines", "random,alphabeta:1", "--equal-depth", 1,
    )  # fmt: skip
    return out


def test_every_pairing_is_simulated_ingested_and_counted(loop):
    matches = loop["simulated"]["matches"]
    assert len(matches) == 6 and all(m["games"] == 24 for m in matches)
    assert loop["ingested"]["pairs"]["new"] == 6 and loop["ingested"]["ok"]
    con = duckdb.connect(str(loop["db"]), read_only=True)
    try:
        games = con.execute("SELECT count(*) FROM supernim_games").fetchone()[0]
        moves = con.execute("SELECT count(*) FROM supernim_moves").fetchone()[0]
        pairings = con.execute(
            "SELECT max_player, min_player, games, max_wins + min_wins + draws, cutoffs "
            "FROM stats_supernim_pairings ORDER BY ALL"
        ).fetchall()
        kinds = con.execute("SELECT sum(moves) FROM stats_supernim_kinds").fetchone()[0]
        parity = con.execute(
            "SELECT sum(games), sum(first_wins + second_wins + draws), "
            "sum(games) FILTER (odd_twos) FROM stats_supernim_parity"
        ).fetchone()
        odd_starts = con.execute(
            "SELECT count(*) FROM supernim_games "
            "WHERE len(list_filter(start_board, lambda n: n = 2)) % 2 = 1"
        ).fetchone()[0]
    finally:
        con.close()
    assert games == 6 * 24 and moves == sum(m["rows"] for m in matches) == kinds
    assert all(total == n for _, _, n, total, _ in pairings) and len(pairings) == 6
    assert parity == (games, games, odd_starts)
    by_pair = {(a, b): (n, cut) for a, b, n, _, cut in pairings}
    for match in matches:
        max_id, min_id = (p["id"].replace(":", "_") for p in match["players"])
        scores = (loop["logs"] / f"{match['stem']}-score.csv").read_text().splitlines()
        cutoffs = sum(line.endswith(",cutoff") for line in scores)
        assert by_pair[max_id, min_id] == (match["games"], cutoffs)


def test_stats_count_value_losing_moves_per_side(loop):
    """Greedy and alphabeta:1 cash whenever they can, which always keeps the exact value;
    random play gives it up now and then."""
    con = duckdb.connect(str(loop["db"]), read_only=True)
    try:
        rows = con.execute(
            "SELECT max_player, min_player, games, max_moves, max_value_losing, min_moves, "
            "min_value_losing, max_margin_minus_value FROM stats_supernim_value"
        ).fetchall()
        moves = con.execute("SELECT count(*) FROM supernim_moves").fetchone()[0]
    finally:
        con.close()
    assert sum(r[2] for r in rows) == 6 * 24 and sum(r[3] + r[5] for r in rows) == moves
    losing = {}
    for max_player, min_player, _, _, max_lost, _, min_lost, _ in rows:
        losing.setdefault(max_player, []).append(max_lost)
        losing.setdefault(min_player, []).append(min_lost)
    assert sum(losing["random"]) > 0
    assert sum(losing["greedy"]) == sum(losing["alphabeta_1"]) == 0


def test_the_table_and_the_player_say_where_they_come_from(loop):
    fit = loop["fit"]
    assert fit["games"] == 6 * 24 and fit["logs"] == 6 and fit["feature_cells"] > 0
    assert fit["yardstick"]["boards"] > 0
    source = (loop["root"] / "p.py").read_text()
    assert fit["fingerprint"] in source and "vs random" in source
    assert "import numpy" not in source and "import mine" not in source


def test_the_generated_player_moves_legally_and_deterministically(loop):
    player = load_module(loop["root"] / "p.py", "supernim", ("ai_move", "random_move"))
    again = load_module(loop["root"] / "p.py", "supernim", ("ai_move", "random_move"))
    state = ("min", (2, 4, 2, 3), 6, 2)
    successors = {s for s, _, _ in player.successors(state)}
    assert player.ai_move(state) in successors and player.random_move(state) in successors
    assert player.ai_move(state) == again.ai_move(state)
    assert player.random_move(state) == again.random_move(state)
    assert player.ai_move(("max", (2, 5, 7), 0, 0))[2] == 2  # it cashes the 2 in front of it


def test_validation_reports_every_figure(loop):
    card = loop["card"]
    assert set(card["against"]) == {"random", "alphabeta:1", "equal depth 1 vs alphabeta:1"}
    for row in card["against"].values():
        assert row["games"] == 8 and row["invalid_moves"] == 0
        assert row["win"]["count"] + row["draw"]["count"] + row["loss"]["count"] == 8
        low, high = row["win"]["ci95"]
        assert low <= row["win"]["mean"] <= high
        assert 0 < row["p99_move_seconds"] < 1.0
        valued = row["against_value"]
        assert valued["below_value"]["count"] <= 8 and valued["even_losses"]["count"] <= 8
    # the player keeps the value against greedy-like play: it never ends below it there
    assert card["against"]["alphabeta:1"]["against_value"]["below_value"]["count"] == 0


def test_the_report_draws_win_rates_and_trajectories(loop, tmp_path):
    card = tmp_path / "card.json"
    card.write_text(json.dumps(loop["card"]))
    out = tmp_path / "r.html"
    invoke("report", "supernim", "--table", loop["root"] / "t.parquet", "--db", loop["db"],
         "--card", card, "--out", out)  # fmt: skip
    page = out.read_text()
    assert "Outcomes by pairing" in page and "mean scores by move" in page
    assert "The generated player" in page and page.count("<svg") >= 6
    assert "Against the exact value" in page


def test_a_bad_log_is_one_line_and_a_failing_exit_code(loop, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "a-vs-b-s1.csv").write_bytes(b"1,1,max,2;4,split,2,,2;2;2,2,0\r\n")
    (bad / "a-vs-b-s1-score.csv").write_bytes(b"1,max,2;4,2,0,max,1,cutoff\r\n")
    result = here("ingest", bad, "--db", tmp_path / "w.duckdb")
    line = one_line_error(result, prefix="rejected ")
    assert "a-vs-b-s1.csv:1: split of heap 2 is not legal on 2;4" in line


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("simulate", "supernim", "--players", "random,alphabeta:9"), "alphabeta takes a depth"),
        (("simulate", "supernim", "--start", "2,0"), "at least one stick"),
        (("simulate", "supernim", "--rules", "merge_cap=1"), "merge_cap takes 2 to 1,000"),
        (("simulate", "supernim", "--rules", "max_moves=100000"), "max_moves takes 1 to 10,000"),
        (("validate", "supernim", "nowhere.py"), "no such file"),
        (("generate", "supernim", "--table", "nowhere.parquet"), "no table here"),
    ],
)
def test_bad_options_fail_in_one_line(tmp_path, args, message):
    result = here(*args, "--out", tmp_path / "x") if args[0] != "validate" else here(*args)
    assert message in one_line_error(result)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--start", "18446744073709551616,1"),
         "heap 18446744073709551616 of the start board is past 2,147,483,647, the largest "
         "number the log format holds"),
        (("--start", "1431655765,2"),  # in range, but odd: 3n + 1 is past it
         "heap 1431655765 of the start board can grow to 4,294,967,296 (odd n → 3n + 1), "
         "which is past 2,147,483,647, the largest number the log format holds"),
        (("--start", "1000000,3", "--rules", "cap_scores=on", "--rules", "max_moves=10000"),
         "a score may grow past 2,147,483,647, the largest number the log format holds "
         "(10,000 moves of up to 2,000,000 points)"),
    ],
)  # fmt: skip
def test_a_start_whose_logs_ingest_would_refuse_is_refused_before_play(tmp_path, args, message):
    """It played, exited 0 and wrote logs that `mine ingest` then rejected: a number out of
    the log format's range."""
    said = one_line_error(here("simulate", "supernim", *args, "--out", tmp_path / "x"))
    assert said.startswith(f"error: {message}")
    assert not (tmp_path / "x").exists()


def test_the_demo_runs_the_loop_and_again_changes_nothing(tmp_path, capsys, monkeypatch):
    from mine.pipeline.cli import app
    from mine.pipeline.commands import supernim as demo
    from mine.pipeline.console import console
    from mine.pipeline.demo import run_loop

    monkeypatch.setattr(console, "width", 300)  # whole names in the tables

    db, out = tmp_path / "w.duckdb", tmp_path / "demo"
    loop = [line.replace("--games 60", "--games 2").replace("--games 40", "--games 4")
            .replace("--check-games 40", "--check-games 4") for line in demo.LOOP]  # fmt: skip
    loop = [f"{line} --games 4" if line.startswith("report") else line for line in loop]
    assert run_loop(loop, db, out, app)
    first = " ".join(capsys.readouterr().out.split())
    assert run_loop(loop, db, out, app)
    again = " ".join(capsys.readouterr().out.split())
    assert "│ new │ 6 │" in first and "│ new │ 0 │" in again and "│ unchanged │ 6 │" in again
    card = first.split("$ mine validate")[1].split("--equal-depth 0")[1].split("$ mine")[0]
    assert all(f"│ {name} " in card for name in ("random", "greedy", "alphabeta:2"))
    assert (out / "supernim-report.html").read_text().count("<svg") >= 4


def test_a_player_that_answers_garbage_loses_on_invalid_moves(tmp_path):
    path = tmp_path / "garbage.py"
    path.write_text("def ai_move(state, **kw):\n    return state\n\n"
                    "def random_move(state):\n    return state\n")  # fmt: skip
    result = here("validate", "supernim", path, "--games", 4, "--baselines", "random",
                  "--equal-depth", 0, "--json")  # fmt: skip
    assert one_line_error(result) == f"error: {path}: made invalid moves: 4 against random"
    row = json.loads(result.stdout)["against"]["random"]
    assert row["invalid_moves"] == 4 and row["loss"]["count"] == 4


def test_a_player_that_ends_its_process_is_named_in_one_line(tmp_path):
    path = tmp_path / "exits.py"
    path.write_text("import os\n\ndef ai_move(state, **kw):\n    os._exit(3)\n\n"
                    "def random_move(state):\n    return state\n")  # fmt: skip
    line = one_line_error(here("validate", "supernim", path, "--games", 4, "--baselines", "random"))
    assert "exits.py" in line and "ended its process" in line

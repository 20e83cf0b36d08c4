"""`mine stats ginrummy --by player` on the twelve real server games
(`examples/logs/ginrummy/`). The logs name no player: each file holds its writer's turns
(`me`) and its opponent's. Every habit is checked against a plain DuckDB count over the
same rows (deadwood by the engine's meld solver), and each knock-or-wait choice against
the fitted knock policy as the generated player reads it (`models.ginrummy.nested`)."""

from __future__ import annotations

import json

import polars as pl
import pytest

from mine.models import ginrummy as model
from mine.parsers.cards import parse_course
from mine.pipeline.stats import ginrummy as stats_of
from mine.strategies.engines.melds import MeldSolver
from mine.warehouse.connection import connect
from tests.conftest import REAL_GINRUMMY, ingested, read_only_warehouse
from tests.mine_cli import here

WHO = "CASE WHEN {} THEN 'me' ELSE 'opponent' END"


con = read_only_warehouse(REAL_GINRUMMY)


@pytest.fixture(scope="module")
def fitted(con):
    """The tables `mine fit ginrummy` writes from these logs."""
    return model.fit(stats_of.fit_inputs(con, None))


@pytest.fixture(scope="module")
def computed(con, fitted):
    return stats_of.by_player(con, None, fitted)._asdict()


def _sql(con, query: str) -> dict[str, tuple]:
    return {row[0]: row[1:] for row in con.execute(query).fetchall()}


def _players(computed) -> dict[str, dict]:
    return {row["player"]: row for row in computed["players"].iter_rows(named=True)}


def test_draws_from_the_discard_match_a_plain_count(con, computed):
    counted = _sql(
        con,
        f"""SELECT {WHO.format("mine")}, count(*) FILTER (WHERE drawn_from = 'discard'),
                   count(*), count(DISTINCT log_id), count(DISTINCT (log_id, round))
        FROM ginrummy_turns GROUP BY 1""",
    )
    players = _players(computed)
    assert players.keys() == counted.keys() == {"me", "opponent"}
    for who, row in players.items():
        assert (
            row["n_discard_draws"], row["n_draw_opportunities"], row["logs"], row["rounds"]
        ) == counted[who]  # fmt: skip
    assert players["opponent"]["n_discard_draws"] > players["me"]["n_discard_draws"] > 0


def test_gins_knocks_undercuts_and_points_match_the_score_files(con, computed):
    counted = _sql(
        con,
        f"""SELECT {WHO.format("last_mine")},
                   count(*) FILTER (WHERE ending = 'Gin'),
                   count(*) FILTER (WHERE ending = 'Knock'),
                   count(*) FILTER (WHERE ending = 'Knock'
                       AND CASE WHEN last_mine THEN points ELSE opponent_points END = 0)
        FROM ginrummy_rounds GROUP BY 1""",
    )
    points = con.execute(
        "SELECT sum(points), sum(opponent_points), count(*) FILTER (WHERE points > 0), "
        "count(*) FILTER (WHERE opponent_points > 0) FROM ginrummy_rounds"
    ).fetchone()
    players = _players(computed)
    for who, row in players.items():
        assert (row["n_gin"], row["n_knock"], row["n_undercut"]) == counted.get(who, (0, 0, 0))
        assert row["n_call"] == row["n_gin"] + row["n_knock"]
    assert (players["me"]["points"], players["opponent"]["points"]) == points[:2]
    assert (players["me"]["rounds_won"], players["opponent"]["rounds_won"]) == points[2:]
    # what the logs show: the writer never calls; its opponent knocked 51 times, 9 gins
    assert (players["opponent"]["n_knock"], players["opponent"]["n_gin"]) == (51, 9)


def test_knock_deadwood_is_the_meld_solvers_on_the_knocking_hand(con, computed):
    solver = MeldSolver()
    rows = con.execute(
        f"""SELECT {WHO.format("t.mine")}, t.hand FROM ginrummy_turns t
        JOIN ginrummy_rounds r USING (log_id, round)
        WHERE r.ending = 'Knock'
          AND t.line = (SELECT max(line) FROM ginrummy_turns l
                        WHERE l.log_id = t.log_id AND l.round = t.round)"""
    ).fetchall()
    sums: dict[str, int] = {}
    for who, hand in rows:
        sums[who] = sums.get(who, 0) + solver.deadwood_of(parse_course(c) for c in hand)
    for who, row in _players(computed).items():
        assert row["knock_deadwood_sum"] == sums.get(who, 0)
    assert len(rows) == 51 and all(d <= 10 * 51 for d in sums.values())


def test_undercuts_dealt_are_the_other_sides_suffered_and_passes_the_draws_left(con, computed):
    counted = _sql(
        con,
        f"""SELECT {WHO.format("NOT last_mine")}, count(*) FILTER (WHERE ending = 'Knock'),
                   count(*) FILTER (WHERE ending = 'Knock'
                       AND CASE WHEN last_mine THEN points ELSE opponent_points END = 0)
        FROM ginrummy_rounds GROUP BY 1""",
    )
    for who, row in _players(computed).items():
        assert (row["n_opponent_knocks"], row["n_undercut_dealt"]) == counted.get(who, (0, 0))
        assert row["n_discard_passes"] + row["n_discard_draws"] == row["n_draw_opportunities"]
    assert _players(computed)["me"]["n_undercut_dealt"] > 0  # the writer never calls


def test_the_knock_threshold_sums_to_the_calls_and_bounds_the_deadwood(computed):
    knocks = computed["player_knocks"]
    assert knocks["deadwood"].is_between(0, model.KNOCK_LIMIT).all()
    players = _players(computed)
    for who, row in players.items():
        part = knocks.filter(pl.col("player") == who)
        assert part["n_plays"].sum() == row["n_call_opportunities"]
        assert part["n_knock"].sum() == row["n_call"]
        assert part["n_undercut"].sum() == row["n_undercut"]
        knocked = part.filter((pl.col("n_knock") > 0) & (pl.col("deadwood") > 0))
        if row["n_knock"]:
            assert row["knock_deadwood_max"] == knocked["deadwood"].max()
    # the writer never calls: its rate is 0 at every deadwood it could knock at
    assert (knocks.filter(pl.col("player") == "me")["knock_rate"] == 0).all()


def test_every_choice_is_read_from_the_policy_the_player_file_embeds(computed, fitted):
    knock = model.nested(fitted.frame)["knock"]
    deviations = computed["player_deviations"]
    assert deviations["n"].sum() == deviations["measured"].sum()
    for row in deviations.iter_rows(named=True):
        cell = knock[row["score_bucket"]][row["opponent_score_bucket"]]
        chart = "knock" if cell[row["deadwood"]][row["turn_bucket"]] else "wait"
        assert row["chart_call"] == chart
        assert row["deviation"] == (row["call"] != chart)


def test_deviations_are_the_policys_margin_and_never_gain_on_it(computed, fitted):
    deviations = computed["player_deviations"]
    agreed = deviations.filter(~pl.col("deviation"))
    assert (agreed["win_chance_diff_sum"].abs() < 1e-12).all()
    off = deviations.filter(pl.col("deviation"))
    # the policy knocks exactly where knocking's margin over waiting is not negative
    assert off.height > 0 and (off["win_chance_diff_sum"] <= 0).all()
    players = _players(computed)
    assert players["me"]["n_knock_deviations"] == players["me"]["n_waited"] > 0
    summed = deviations.group_by("player").agg(pl.col("n").sum())
    for who, n in summed.iter_rows():
        assert players[who]["knock_decisions"] == players[who]["n_call_opportunities"] == n


def test_the_command_stores_tables_that_re_aggregate(tmp_path, fitted):
    db = ingested(tmp_path / "w.duckdb", REAL_GINRUMMY)
    table = model.write_table(tmp_path / "gin.parquet", fitted)
    result = here("stats", "ginrummy", "--by", "player", "--table", table, "--db", db, "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert "stock draw" in out["not_measured"]
    reader = connect(db, read_only=True)
    try:
        players = _sql(
            reader,
            "SELECT player, knock_decisions, n_knock_deviations, win_chance_diff_sum "
            "FROM stats_ginrummy_players",
        )
        summed = _sql(
            reader,
            """SELECT player, sum(n), sum(n) FILTER (WHERE deviation),
                   sum(win_chance_diff_sum) FILTER (WHERE deviation)
            FROM stats_ginrummy_player_deviations GROUP BY player""",
        )
    finally:
        reader.close()
    assert players.keys() == summed.keys() == {row["player"] for row in out["players"]}
    for who, (decisions, off, diff) in players.items():
        assert summed[who][:2] == (decisions, off)
        assert summed[who][2] == pytest.approx(diff)
    shown = here("stats", "ginrummy", "--by", "player", "--db", db)
    assert shown.returncode == 0, shown.stderr
    assert "not measured" in shown.stdout and "--table" in shown.stdout

"""`mine stats twentyone --by player` on the ten games the original course engine wrote
(`examples/logs/twentyone/`, real player ids 0-8): every habit is checked against a plain
DuckDB count over the same turn rows, the stored tables re-aggregate in SQL, and the
deviations from a chart are measured with exact action values (against the solver's own
optimal chart no logged choice can be worth more than the chart's)."""

from __future__ import annotations

import json

import polars as pl
import pytest

from mine.models import twentyone as model
from mine.pipeline.stats.twentyone import by_player, fit_inputs
from mine.strategies.engines.twentyone import STAND, TwentyOneRules
from mine.strategies.engines.twentyone_chart import MAIN, Chart, Strategy
from mine.strategies.solvers.twentyone import ChartValues, solve
from mine.warehouse.connection import connect
from tests.conftest import REAL_TWENTYONE, ingested, read_only_warehouse
from tests.mine_cli import here, one_line_error

RULES = TwentyOneRules()

# The turn rows a player chose (a DoubleDown forces the Hit and the Stand after it), with
# the hand before the action (a Hit row shows the card it drew first), counted in SQL
# independently of the pipeline's frames.
CHOSEN = """
WITH rows AS (
    SELECT t.*, CASE WHEN action = 'Hit' THEN hand[2:] ELSE hand END AS before,
           EXISTS (SELECT 1 FROM twentyone_turns d
                   WHERE d.log_id = t.log_id AND d.round = t.round AND d.player = t.player
                     AND d.hand_id = t.hand_id AND d.action = 'DoubleDown' AND d.line < t.line)
               AS forced
    FROM twentyone_turns t WHERE player <> 'dealer' AND action <> 'Bid'
)
SELECT * FROM rows WHERE NOT forced
"""


con = read_only_warehouse(REAL_TWENTYONE)


def against(chart: Chart) -> Strategy:
    """A fitted table of this chart (what `--table` reads), for the choices measured."""
    return Strategy(chart, ((-10, 10, RULES.min_bid),))


@pytest.fixture(scope="module")
def optimal(con):
    """The per-player tables against the solver's optimal chart for these rules."""
    return by_player(con, None, against(solve(RULES).chart), RULES)


def _sql(con, query: str) -> dict[str, tuple]:
    return {row[0]: row[1:] for row in con.execute(query).fetchall()}


def _players(computed) -> dict[str, dict]:
    return {row["player"]: row for row in computed.players.iter_rows(named=True)}


def test_every_player_id_of_the_logs_has_a_row(con, optimal):
    ids = {row[0] for row in con.execute("SELECT DISTINCT player FROM twentyone_scores").fetchall()}
    assert set(_players(optimal)) == ids == {str(i) for i in range(9)}


def test_hits_on_hard_16_match_a_plain_count(con, optimal):
    counted = _sql(
        con,
        f"""SELECT player, count(*) FILTER (WHERE action = 'Hit'), count(*)
        FROM ({CHOSEN}) WHERE action <> 'Insurance' AND hand_total(before) = 16
          AND NOT hand_soft(before) GROUP BY player""",
    )
    players = _players(optimal)
    assert {p: (r["n_hit_16"], r["n_16_opportunities"]) for p, r in players.items()} == counted
    assert sum(n for n, _ in counted.values()) > 100  # the logs hold many such choices


def test_hits_on_16_by_up_card_match_a_plain_count_and_sum_to_the_player(con, optimal):
    counted = {
        (player, up): (hits, chances)
        for player, up, hits, chances in con.execute(
            f"""SELECT player, least(CASE substr(upcard, 2) WHEN 'A' THEN 1 WHEN 'J' THEN 10
                   WHEN 'Q' THEN 10 WHEN 'K' THEN 10 ELSE CAST(substr(upcard, 2) AS INT) END, 10),
                   count(*) FILTER (WHERE action = 'Hit'), count(*)
            FROM ({CHOSEN}) WHERE action <> 'Insurance' AND hand_total(before) = 16
              AND NOT hand_soft(before) GROUP BY ALL"""
        ).fetchall()
    }
    ups = optimal.player_ups.filter(pl.col("n_16_opportunities") > 0)
    assert {
        (r["player"], r["up"]): (r["n_hit_16"], r["n_16_opportunities"])
        for r in ups.iter_rows(named=True)
    } == counted
    summed = optimal.player_ups.group_by("player").agg(pl.col("n_double").sum())
    players = _players(optimal)
    assert all(players[p]["n_double"] == n for p, n in summed.iter_rows())


def test_doubles_splits_and_insurance_match_a_plain_count(con, optimal):
    counted = _sql(
        con,
        f"""SELECT player,
            count(*) FILTER (WHERE action = 'DoubleDown'),
            count(*) FILTER (WHERE len(before) = 2 AND action <> 'Insurance'),
            count(*) FILTER (WHERE action = 'Split'),
            count(*) FILTER (WHERE len(before) = 2 AND action <> 'Insurance'
                             AND substr(before[1], 2) = substr(before[2], 2)),
            count(*) FILTER (WHERE action = 'Insurance')
        FROM ({CHOSEN}) GROUP BY player""",
    )
    offered = _sql(
        con,
        """SELECT player, count(DISTINCT (log_id, round)) FROM twentyone_turns
        WHERE player <> 'dealer' AND action <> 'Bid' AND upcard LIKE '_A' GROUP BY player""",
    )
    for player, row in _players(optimal).items():
        assert (
            row["n_double"], row["n_double_opportunities"], row["n_split"],
            row["n_split_opportunities"], row["n_insurance"],
        ) == counted[player]  # fmt: skip
        assert (row["n_insurance_opportunities"],) == offered[player]


def test_bids_and_net_points_match_the_logs(con, optimal):
    bids = _sql(
        con,
        f"""SELECT player, count(*), sum(bid), count(*) FILTER (WHERE bid = {RULES.max_bid}),
                   count(DISTINCT log_id)
        FROM twentyone_turns WHERE action = 'Bid' GROUP BY player""",
    )
    # every player starts with 10,000 points: its net is its last score less that
    final = _sql(
        con,
        f"""SELECT player, sum(final_points - {RULES.starting_points})
        FROM twentyone_players GROUP BY player""",
    )
    for player, row in _players(optimal).items():
        assert (row["n_bids"], row["bid_sum"], row["n_bid_max"], row["logs"]) == bids[player]
        assert row["net_points"] == final[player][0]


def test_no_logged_choice_beats_the_optimal_chart_and_agreements_cost_nothing(optimal):
    deviations = optimal.player_deviations
    assert deviations["n"].sum() == deviations["measured"].sum()  # every choice valued
    agreed = deviations.filter(~pl.col("deviation"))
    assert (agreed["ev_diff_sum"].abs() < 1e-12).all()
    off = deviations.filter(pl.col("deviation"))
    # the chart is the argmax of the very values the deviations are measured with
    assert off.height > 100 and (off["ev_diff_sum"] <= 1e-9).all()
    assert off["ev_diff_sum"].sum() < -10


def test_a_deviation_is_the_difference_of_the_two_actions_values(optimal):
    """Hitting a hard 16 against a 10 where the chart stands (or the other way round) is
    worth exactly the difference the solver gives the two actions there."""
    chart = solve(RULES).chart
    values = ChartValues(RULES, chart)
    row = (
        optimal.player_deviations
        .filter(
            (pl.col("decision") == "hand") & (pl.col("context") == "main")
            & (pl.col("up") == 10) & (pl.col("total") == 16) & ~pl.col("soft")
            & (pl.col("n_cards") == 2) & (pl.col("pair_value") == 0) & pl.col("deviation")
            & pl.col("action").is_in(["Hit", "Stand"])
        )
        .row(0, named=True)
    )  # fmt: skip
    worth = values.hand(10, 16, 0, 2, MAIN)
    names = {"Hit": 1, "Stand": STAND}
    expected = worth[names[row["action"]]] - worth[names[row["chart_action"]]]
    assert row["ev_diff_sum"] == pytest.approx(row["n"] * expected, abs=1e-12)
    assert row["chart_action"] == ("Stand" if worth[STAND] >= worth[1] else "Hit")


def test_a_chart_that_always_stands_is_measured_as_such(con):
    chart = Chart.empty()
    chart.hand[:] = STAND
    computed = by_player(con, None, against(chart), RULES)
    deviations = computed.player_deviations.filter(pl.col("decision") == "hand")
    hits = deviations.filter(pl.col("action") == "Hit")
    assert hits["deviation"].all() and (hits["chart_action"] == "Stand").all()
    # a Hit on a hard 7 to 11 cannot bust and may reach 17 or more (then stands): it is
    # worth more than standing; from 4 or 5 it reaches at most 16, no better than standing
    low = hits.filter(~pl.col("soft"))
    assert (low.filter(pl.col("total").is_between(7, 11))["ev_diff_sum"] > 1e-6).all()
    assert (low.filter(pl.col("total") <= 5)["ev_diff_sum"].abs() < 1e-12).all()
    assert low.filter(pl.col("total") <= 5).height > 0


def test_the_command_stores_tables_that_re_aggregate_and_prints_per_player(tmp_path):
    db = ingested(tmp_path / "w.duckdb", REAL_TWENTYONE)
    reader = connect(db, read_only=True)
    try:
        fitted = model.fit(fit_inputs(reader))  # the chart `mine fit twentyone` writes
    finally:
        reader.close()
    table = model.write_table(tmp_path / "t21.parquet", fitted)
    result = here("stats", "twentyone", "--by", "player", "--table", table, "--db", db, "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert {"stats_twentyone_players", "stats_twentyone_player_deviations"} <= set(out["tables"])
    reader = connect(db, read_only=True)
    try:
        players = _sql(
            reader,
            """SELECT player, decisions, n_insurance_opportunities, n_deviations, ev_diff_sum
            FROM stats_twentyone_players""",
        )
        summed = _sql(
            reader,
            """SELECT player, sum(n) FILTER (WHERE decision = 'hand'),
                   sum(n) FILTER (WHERE decision = 'insurance'),
                   sum(n) FILTER (WHERE deviation), sum(ev_diff_sum) FILTER (WHERE deviation)
            FROM stats_twentyone_player_deviations GROUP BY player""",
        )
        ups = _sql(
            reader,
            "SELECT player, sum(n_hit_16), sum(n_16_opportunities) FROM stats_twentyone_player_ups "
            "GROUP BY player",
        )
        hits = _sql(
            reader, "SELECT player, n_hit_16, n_16_opportunities FROM stats_twentyone_players"
        )
    finally:
        reader.close()
    assert players.keys() == summed.keys() == {row["player"] for row in out["players"]}
    for player, (decisions, offered, off, ev) in players.items():
        assert summed[player][:3] == (decisions, offered, off)
        assert summed[player][3] == pytest.approx(ev)
        assert ups[player] == hits[player]
    assert all(row["deviation"] for row in out["deviations"])

    shown = here("stats", "twentyone", "--by", "player", "--db", db)
    assert shown.returncode == 0, shown.stderr
    assert "hits on hard 16 by up card" in shown.stdout and "--table" in shown.stdout
    reader = connect(db, read_only=True)
    try:  # a run without a chart leaves no deviations of an earlier chart behind
        left = reader.execute(
            "SELECT count(*) FROM duckdb_tables() "
            "WHERE table_name = 'stats_twentyone_player_deviations'"
        ).fetchall()[0][0]
    finally:
        reader.close()
    assert left == 0


def test_bad_grouping_and_a_table_without_it_say_so_in_one_line(tmp_path):
    db = tmp_path / "w.duckdb"  # refused before any warehouse is opened
    assert "player" in one_line_error(here("stats", "twentyone", "--by", "seat", "--db", db))
    missing = tmp_path / "none.parquet"
    assert "--by player" in one_line_error(
        here("stats", "twentyone", "--table", missing, "--db", db)
    )

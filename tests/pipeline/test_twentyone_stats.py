"""TwentyOne statistics on small simulated logs in a temp warehouse, against expectations
computed here from the raw files."""

from __future__ import annotations

import json
import shutil
from collections import Counter, defaultdict

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from mine.parsers import twentyone as log
from mine.parsers.cards import hand_value
from mine.pipeline.cli import app
from mine.pipeline.stats import twentyone_features as st
from mine.pipeline.stats.twentyone import derive
from mine.strategies.bots.twentyone import make_bot
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.warehouse.connection import connect
from mine.warehouse.ingest import ingest
from tests.strategies.twentyone_games import play, write

SEATS = ("textbook", "random", "explorer:dealer:0.5", "cautious", "random", "dealer")


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    """Two 300-round games (one log each) in a fresh warehouse; the engine states too."""
    root = tmp_path_factory.mktemp("t21stats")
    rules = TwentyOneRules(rounds=200)
    (root / "logs").mkdir()
    states = []
    for game in range(2):
        rngs = [np.random.default_rng([game, k]) for k in range(len(SEATS) + 1)]
        players = {str(i + 1): make_bot(s, rules, rngs[i + 1]) for i, s in enumerate(SEATS)}
        state = play(rules, players, rngs[0])
        write(state, "1", root / "logs", f"g{game}")
        states.append(state)
    db = root / "w.duckdb"
    con = connect(db)
    summary = ingest(con, [root / "logs"])
    con.close()
    assert summary.ok
    con = connect(db, read_only=True)
    yield con, root, states, rules, derive(con, None, rules), db
    con.close()


def raw_turns(root):
    return {
        path.stem: list(log.read_turns(path)) for path in sorted((root / "logs").glob("g?.csv"))
    }


def test_settlement_by_the_rules_matches_every_running_total(warehouse):
    con, _, states, rules, tables, _ = warehouse
    check = tables.settlement.row(0, named=True)
    rounds = sum(len(r.points) for s in states for r in s.records)
    assert check["player_rounds"] == rounds  # every player's every round is checked
    assert check["mismatched"] == 0 and check["matched"] == rounds
    # and a wrong rule (Combo paying 3x) is caught by the same check
    wrong = derive(con, None, rules.replace(combo_payout=3.0)).settlement
    assert wrong["mismatched"][0] > 0


def test_decisions_carry_the_state_before_the_action(warehouse):
    con, root, *_ = warehouse
    decisions = st.decisions(con)
    turns = [t for ts in raw_turns(root).values() for t in ts]
    played = [t for t in turns if t.player != "dealer" and t.action != "Bid"]
    assert decisions.height == len(played)
    expected = Counter()
    for t in played:
        before = t.hand[1:] if t.action == "Hit" else t.hand
        total, soft = hand_value(before)
        bid = t.bid // 2 if t.action == "DoubleDown" else t.bid
        expected[(t.action, len(before), total, soft, bid)] += 1
    got = Counter(decisions.select("action", "n_cards", "total", "soft", "bid").iter_rows())
    assert got == expected
    # the forced Hit after every DoubleDown is marked forced, and nothing else is
    forced = decisions.filter(pl.col("forced"))
    assert set(forced["action"].unique()) <= {"Hit", "Stand"}
    doubles = decisions.filter((pl.col("action") == "DoubleDown") & (pl.col("total") != 21))
    assert forced.filter(pl.col("action") == "Hit").height == doubles.height


def test_situation_counts_add_up(warehouse):
    tables = warehouse[4]
    situations = tables.situations
    sums = situations.group_by("up", "total", "soft", "pair", "n_cards").agg(
        pl.col("n").sum(), pl.col("opportunities").first()
    )
    assert (sums["n"] == sums["opportunities"]).all()
    assert situations["rate"].is_between(0, 1).all()
    decided = tables.decisions
    assert decided["net_per_bid"].null_count() == 0
    assert decided["net_per_bid"].is_between(-2, 3).all()


def test_dealer_outcomes_match_the_raw_files(warehouse):
    root, dealer = warehouse[1], warehouse[4].dealer
    expected: dict[int, Counter] = defaultdict(Counter)
    for turns in raw_turns(root).values():
        final = {}
        for t in turns:
            if t.player == "dealer":
                final[t.round] = t
        for t in final.values():
            if len(t.hand) == 1:
                continue  # the dealer did not play
            total, _ = hand_value(t.hand)
            up = min(t.upcard.rank, 10)
            if len(t.hand) == 2 and total == 21:
                outcome = "Combo"
            elif total > 21:
                outcome = "Bust"
            elif total >= 17:
                outcome = str(total)
            else:
                outcome = "other"
            expected[up][outcome] += 1
    for up, outcomes in expected.items():
        rows = dealer.filter(pl.col("up") == up)
        assert dict(zip(rows["outcome"], rows["n"], strict=True)) == dict(outcomes)
        assert rows["opportunities"][0] == sum(outcomes.values())
        assert rows["rate"].sum() == pytest.approx(1.0)


def test_the_shoe_is_rebuilt_from_the_visible_cards(warehouse):
    con, root, states, *_ = warehouse
    cards = st.cards(con)
    assert st.infer_decks(cards)["decks"] == 3
    shoe = st.shoe(cards, 3)
    for log_id, turns in enumerate(raw_turns(root).values(), start=1):
        per_round = Counter()
        final: dict[tuple, tuple] = {}
        for t in turns:
            if t.action != "Bid":
                final[(t.round, t.player, t.hand_id)] = t.hand
        for (rnd, player, _), hand in final.items():
            per_round[rnd] += len(hand) + (1 if player == "dealer" and len(hand) == 1 else 0)
        rows = shoe.filter(pl.col("log_id") == log_id).sort("round")
        dealt = rows["dealt"].to_list()
        for r in range(1, len(dealt)):
            assert dealt[r] == (dealt[r - 1] + per_round[r]) % 156
        # what is left plus what was seen (or hidden) is the whole shoe
        left = rows.select(pl.sum_horizontal([f"left_{v}" for v in range(1, 11)])).to_series()
        assert (left + rows["dealt"] >= 156).all()
        assert (rows["cards_left"] == 156 - rows["dealt"]).all()
    # a fresh shoe shows as `dealt` going down; the engine shuffled once more at the start
    # (and maybe once during the last round, which no later round shows)
    for log_id, state in enumerate(states, start=1):
        rows = shoe.filter(pl.col("log_id") == log_id).sort("round")
        seen = int((rows["dealt"].diff() < 0).sum()) + 1
        assert state.shoe.shuffles - 1 <= seen <= state.shoe.shuffles


def test_mine_stats_stores_the_tables(tmp_path, warehouse):
    db = tmp_path / "s.duckdb"
    shutil.copy(warehouse[5], db)  # the fixture's file is open read-only in this process
    result = CliRunner().invoke(app, ["stats", "twentyone", "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["settlement"]["mismatched"] == 0
    assert payload["decks"] == 3
    check = connect(db, read_only=True)
    names = {r[0] for r in check.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    check.close()
    assert {f"stats_twentyone_{n}" for n in ("decisions", "situations", "dealer", "shoe")} <= names
    missing = CliRunner().invoke(app, ["stats", "twentyone", "--db", str(tmp_path / "none.duckdb")])
    assert missing.exit_code != 0


def test_a_second_run_gives_the_same_figures_to_the_last_digit(warehouse):
    con, *_, rules, tables, _ = warehouse
    for _ in range(3):  # means and deviations sum in one order, whatever the threads do
        again = derive(con, None, rules)
        assert again.count_results.equals(tables.count_results)
        assert again.situations.equals(tables.situations)

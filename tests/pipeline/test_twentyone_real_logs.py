"""The ten games the original course engine wrote (`examples/logs/twentyone/`, copied from
`../shared/fixtures/twentyone-engine-2021/`): the engine's rules must settle every one of
their player-rounds to the points the engine wrote, and the fitter must read the game off
them (3 decks, the dealer's rule). With them, every log of the course engine the project
knows (the twenty games of nine students' players too, `tests/data/`, and any
`../shared/fixtures/twentyone-*` beside the repository) lands with its rules verified and
settles to the engine's points."""

from __future__ import annotations

import json

import polars as pl
import pytest

from mine.models import twentyone as model
from mine.parsers import twentyone as log
from mine.pipeline.stats import twentyone_features as stats_of
from mine.pipeline.stats.twentyone import fit_inputs
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.warehouse.connection import connect
from mine.warehouse.ingest import ingest
from tests.conftest import REAL_TWENTYONE, ingested
from tests.mine_cli import here
from tests.strategies.twentyone_replay import COURSE_ENGINE_LOGS


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    db = tmp_path_factory.mktemp("real21") / "w.duckdb"
    writer = connect(db)
    summary = ingest(writer, [REAL_TWENTYONE])
    writer.close()
    assert summary.ok and summary.count("new") == 10
    reader = connect(db, read_only=True)
    yield reader
    reader.close()


def _check(con, rules: TwentyOneRules) -> pl.DataFrame:
    settled = stats_of.settle(stats_of.hands(con), stats_of.dealers(con), rules)
    return stats_of.settlement_check(settled, stats_of.point_changes(con), rules.starting_points)


def test_every_player_round_of_every_log_settles_to_the_engines_points(con):
    check = _check(con, TwentyOneRules())
    per_log = check.group_by("log_id").agg(pl.len().alias("n"), pl.col("matches").all())
    assert per_log.height == 10 and per_log["matches"].all()
    assert check.height == 5000


def test_insurance_on_a_bust_hand_is_paid(con):
    earlier = _check(con, TwentyOneRules(insurance_needs_live_hand=True))
    assert not earlier["matches"].all()


def test_dealer_hands_past_five_cards_are_plain_totals(con):
    long = stats_of.dealers(con).filter(pl.col("n_cards") >= 6)
    assert long.height == 8 and long["played"].all()
    settled = stats_of.settle(stats_of.hands(con), stats_of.dealers(con), TwentyOneRules())
    level = settled.join(
        long.filter(pl.col("total") <= 21).select("log_id", "round", pl.col("total").alias("d")),
        on=["log_id", "round"],
    ).filter(pl.col("p_class").is_between(pl.col("d"), 21))
    # hands level with or above such a dealer hand were paid a push or a win, which the
    # engine's points confirm (the test above): a dealer Charlie would have beaten them
    assert level.height > 0 and (level["payback"] >= level["final_bid"]).all()
    classes = con.sql(
        "SELECT n_cards, hand_class, count(*) FROM twentyone_dealer_hands "
        "WHERE n_cards >= 5 AND total <= 21 GROUP BY ALL ORDER BY 1"
    ).fetchall()
    assert {c for n, c, _ in classes if n >= 6} == {"Value"}
    assert {c for n, c, _ in classes if n == 5} <= {"Charlie"}


def test_the_real_shoe_holds_three_decks(con):
    cards = stats_of.cards(con)
    inferred = stats_of.infer_decks(cards)
    assert inferred["decks"] == 3 and not inferred.get("uncertain")
    # the shoe runs on across rounds and a fresh one takes over mid-round: with the
    # dealer's cards dealt first, no card turns up a fourth time within a 156-card shoe
    assert stats_of.deck_violations(cards, 3) < 0.001


def test_the_fitter_reads_the_real_game(con):
    fitted = model.fit(fit_inputs(con))
    learned = fitted.metadata["learned"]
    assert learned["decks"] == 3
    assert learned["dealer_rule"]["hits_hard_up_to"] == 16
    assert learned["dealer_rule"]["hits_soft_17"] is False
    assert learned["dealer_rule"]["card_limit"] is None
    assert learned["player_card_limit"] == 5
    assert learned["min_bid"] == 10 and learned["max_bid"] == 100


def test_logs_narrow_stats_and_fit_to_the_files_they_match(tmp_path):
    db = ingested(tmp_path / "w.duckdb", REAL_TWENTYONE)
    chosen = sorted(REAL_TWENTYONE.glob("20211024-*[0-9].csv"))  # one day's five games
    turns = [(k, t) for k, path in enumerate(chosen) for t in log.read_turns(path)]
    rounds = {(k, t.round, t.player) for k, t in turns if t.action == "Bid"}
    played = [(k, t) for k, t in turns if t.player != "dealer" and t.action != "Bid"]
    hands = {(k, t.round, t.player, t.hand_id) for k, t in played}
    stats = here("stats", "twentyone", "--db", db, "--logs", "*/20211024-*", "--json")
    settlement = json.loads(stats.stdout)["settlement"]
    assert (settlement["player_rounds"], settlement["mismatched"]) == (len(rounds), 0)
    out = tmp_path / "t.parquet"
    fit = here("fit", "twentyone", "--db", db, "--logs", "*/20211024-*", "--out", out, "--json")
    metadata = json.loads(fit.stdout)
    assert (metadata["logs"], metadata["hands"]) == (len(chosen), len(hands)) == (5, len(hands))
    assert metadata["rows"] == len(played)  # every decision of those logs, and no other


def test_every_course_engine_log_lands_verified_and_settles_to_its_points(tmp_path):
    writer = connect(tmp_path / "w.duckdb")
    try:
        summary = ingest(writer, COURSE_ENGINE_LOGS)  # the rules verified: the default
        assert summary.count("rejected") == 0 and summary.ok, summary.errors()
        assert summary.count("new") >= 30
        check = _check(writer, TwentyOneRules())
        hits_on_21 = writer.execute(  # the course engine lets a two-card 21 draw
            "SELECT count(*) FROM twentyone_turns WHERE action = 'Hit' AND len(hand) = 3 "
            "AND hand_total(hand[2:]) = 21"
        ).fetchall()[0][0]
    finally:
        writer.close()
    assert check["matches"].all() and check.height >= 23_000
    assert hits_on_21 > 0

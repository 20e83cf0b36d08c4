"""Gin Rummy statistics: on the real server logs (against counts taken with the parser) and
on a small hand-written round whose every figure is worked out below."""

from __future__ import annotations

import polars as pl
import pytest

from mine.models.ginrummy import PASSED, PICKED
from mine.parsers.cards import parse_course, parse_hand
from mine.parsers.ginrummy import Score, Turn, read_scores, read_turns, write_scores, write_turns
from mine.pipeline.stats import ginrummy as ginrummy_stats
from mine.strategies.engines.melds import CARD_BITS
from mine.strategies.players.ginrummy import relation
from mine.warehouse.ingest import ingest
from tests.conftest import REAL_GINRUMMY


def turn(mine: bool, hand: str, top: str, picked: str, discarded: str) -> Turn:
    cards = parse_hand(hand)
    (top_card,) = parse_hand(top)
    (picked_card,) = parse_hand(picked)
    (discarded_card,) = parse_hand(discarded)
    return Turn(1, cards, mine, top_card, picked_card, discarded_card)


# One round. Opponent before: SA S7 H3 H4 C7 C9 D2 D3 SJ HQ; me: S5 S6 H2 H9 D4 D8 CK CQ DJ HJ;
# upcard C5. The opponent knocks at turn 5 with SA (1) against my 2+9+8+10 = 29.
ROUND = [
    turn(False, "H5;SA;H3;H4;C7;C9;D2;D3;SJ;HQ", "C5", "H5", "S7"),  # C5 only lowers
    turn(True, "S7;S5;S6;H2;H9;D4;D8;CQ;DJ;HJ", "S7", "S7", "CK"),  # S7 completes S5-S7
    turn(False, "C8;SA;H3;H4;H5;C7;C9;D2;D3;HQ", "CK", "C8", "SJ"),  # CK does nothing
    turn(True, "SJ;S7;S5;S6;H2;H9;D8;CQ;DJ;HJ", "SJ", "SJ", "D4"),  # SJ completes the jacks
    turn(False, "D4;SA;H3;H4;H5;C7;C8;C9;D2;D3", "D4", "D4", "HQ"),  # D4 completes D2-D4
]


@pytest.fixture
def small(warehouse, tmp_path):
    _, con = warehouse
    folder = tmp_path / "logs"
    folder.mkdir()
    write_turns(folder / "ginrummy-0-000001.csv", ROUND)
    write_scores(folder / "ginrummy-0-000001-score.csv", [Score(1, 0, 28, "Knock", False)])
    summary = ingest(con, [folder])
    assert summary.ok, summary.errors
    turns, rounds = ginrummy_stats.load(con)
    return ginrummy_stats.turn_features(turns, rounds), rounds


def test_turn_features_of_the_hand_written_round(small):
    features, _ = small
    assert features["relation"].to_list() == [
        "lowers",
        "completes",
        "none",
        "completes",
        "completes",
    ]
    assert features["took_discard"].to_list() == [False, True, False, True, True]
    assert features["deadwood_before"].to_list()[:2] == [
        56,
        2 + 9 + 4 + 8 + 10 + 10 + 10 + 10 + 5 + 6,
    ]
    assert features["deadwood_after"].to_list()[-1] == 1
    assert features["picked_up"].to_list() == [True, False, True, True, None]
    assert features["melds_opponent_hand"].to_list() == [True, False, True, True, None]
    assert features["may_call"].to_list() == [False, False, True, True, True]
    assert features["source"].unique().to_list() == ["simulated"]


def test_the_cards_hidden_from_the_opponent_as_each_play_began(small):
    features, _ = small
    unseen = features["opponent_unseen"].to_list()
    # Nothing before the opponent's first hand is logged; then 52 less its hand of 10 less
    # the pile's cards not in that hand: C5 S7 | C5 CK (S7 is mine) | C5 S7 CK SJ |
    # C5 CK D4 (S7, SJ are mine).
    assert unseen[0] is None
    assert [bin(mask).count("1") for mask in unseen[1:]] == [40, 40, 38, 39]
    bit = {card: CARD_BITS[parse_course(card)] for card in ("CK", "SJ", "HQ", "S7", "C5")}
    assert unseen[1] & bit["CK"] and not unseen[1] & bit["HQ"]  # HQ was the opponent's
    assert unseen[2] & bit["SJ"] and not unseen[2] & (bit["S7"] | bit["C5"])


def test_draw_stats_count_takes_per_relation(small):
    draws = ginrummy_stats.draw_stats(small[0])
    got = {
        (p, r): (t, n)
        for p, r, t, n in draws.select("player", "relation", "taken", "opportunities").iter_rows()
    }
    assert got == {
        ("me", "completes"): (2, 2),
        ("opponent", "completes"): (1, 1),
        ("opponent", "lowers"): (0, 1),
        ("opponent", "none"): (0, 1),
    }


def test_danger_relates_discards_to_the_pickers_earlier_choices(small):
    features, _ = small
    # D4 is discarded after I took S7 and SJ; the opponent, who picks it up, took nothing.
    assert features.filter(pl.col("discarded") == "D4")["picked_relation"].item() == "none"
    # My CK lands after the opponent passed C5 and discarded S7: no relation either.
    danger = ginrummy_stats.danger_stats(features)
    assert danger.select(pl.col("discards").sum()).item() == 4
    assert danger.select(pl.col("picked_up").sum()).item() == 3

    def named(index, took, shunned):  # the player's relation, as the statistics name it
        picked, passed = relation(index, took, shunned)
        return PICKED[picked], PASSED[passed]

    assert named(13 * 0 + 7, took=1 << (13 * 1 + 7), shunned=0) == ("same rank", "none")
    assert named(5, took=1 << 6, shunned=1 << (13 + 5)) == ("adjacent", "same rank")
    assert named(5, took=1 << 3, shunned=1 << 4) == ("near", "adjacent")


def test_knock_and_round_stats(small):
    features, rounds = small
    knocks = ginrummy_stats.knock_stats(features)
    assert knocks.select(
        "call", "deadwood", "turn_bucket", "undercuts", "knocks", "points"
    ).rows() == [("Knock", 1, 4, 0, 1, 28)]
    ends = ginrummy_stats.round_stats(rounds)
    assert ends.select("ending", "caller", "rounds", "caller_won", "points", "share").rows() == [
        ("Knock", "opponent", 1, 1, 28, 1.0)
    ]


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    import duckdb

    con = duckdb.connect(str(tmp_path_factory.mktemp("real") / "w.duckdb"))
    assert ingest(con, [REAL_GINRUMMY]).ok
    tables = ginrummy_stats.derive(con)
    names = ginrummy_stats.store(con, tables)
    yield con, tables._asdict(), names
    con.close()


def test_real_logs_rounds_match_the_parser(real):
    _, tables, _ = real
    scores = [s for path in sorted(REAL_GINRUMMY.glob("*-score.csv")) for s in read_scores(path)]
    rounds = tables["rounds"]
    assert rounds["source"].unique().to_list() == ["server"]
    assert rounds["rounds"].sum() == len(scores) == 112
    by_ending = dict(rounds.group_by("ending").agg(pl.col("rounds").sum()).iter_rows())
    assert by_ending == {"Drop": 52, "Knock": 51, "Gin": 9}
    won = sum((s.points > 0) == s.last_mine for s in scores)  # the caller scored
    assert rounds["caller_won"].sum() == won
    assert rounds["points"].sum() == sum(s.points + s.opponent_points for s in scores)


def test_real_logs_draws_and_danger_match_the_parser(real):
    _, tables, _ = real
    files = [list(read_turns(path)) for path in sorted(REAL_GINRUMMY.glob("*[0-9].csv"))]
    turns = [t for rows in files for t in rows]
    draws = tables["draws"]
    assert draws["opportunities"].sum() == len(turns) == 3450
    assert draws["taken"].sum() == sum(t.from_discard for t in turns)
    # Every discard but each round's last is followed by the other player's draw; a
    # round's first draw takes the upcard, nobody's discard.
    later = [
        t for rows in files for a, t in zip(rows, rows[1:], strict=False) if a.round == t.round
    ]
    danger = tables["danger"]
    assert danger["discards"].sum() == len(later) == 3450 - 112
    assert danger["picked_up"].sum() == sum(t.from_discard for t in later)


def test_real_stats_are_stored_with_counts(real):
    con, _, names = real
    assert sorted(names) == [
        "stats_ginrummy_danger",
        "stats_ginrummy_danger_cards",
        "stats_ginrummy_draws",
        "stats_ginrummy_knocks",
        "stats_ginrummy_rounds",
        "stats_ginrummy_turn_features",
    ]
    rows = con.execute("SELECT sum(taken), sum(opportunities) FROM stats_ginrummy_draws").fetchall()
    taken = sum(t.from_discard for p in REAL_GINRUMMY.glob("*[0-9].csv") for t in read_turns(p))
    assert rows == [(taken, 3450)]

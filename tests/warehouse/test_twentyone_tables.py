"""TwentyOne tables hold exactly what the files say; the SQL hand arithmetic matches Python's."""

import functools
import random

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers import twentyone
from mine.parsers.cards import DECK, blackjack_points, format_course, hand_value, parse_hand
from mine.warehouse import schema
from mine.warehouse.ingest import ingest
from tests.data import synth


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**9), rounds=st.integers(1, 12), players=st.integers(1, 6))
def test_files_to_tables_round_trip(tmp_path_factory, seed, rounds, players):
    folder = tmp_path_factory.mktemp("logs")
    turns, scores = synth.twentyone_game(random.Random(seed), rounds, players)
    synth.write_pair(folder, "g", twentyone, turns, scores)
    con = duckdb.connect()
    assert ingest(con, [folder]).ok

    rows = con.execute("""SELECT round, array_to_string(hand, ';'), player, mine, hand_id, action,
                                 bid, upcard FROM twentyone_turns ORDER BY line""").fetchall()
    assert rows == [
        (
            t.round,
            ";".join(map(format_course, t.hand)),
            t.player,
            t.mine,
            t.hand_id,
            t.action,
            t.bid,
            format_course(t.upcard),
        )
        for t in turns
    ]
    ids = sorted({t.player for t in turns if not t.mine and t.player != "dealer"})
    me = next(t.player for t in turns if t.mine)
    expected = {(s.round, me, s.points) for s in scores}
    expected |= {(s.round, pid, p) for s in scores for pid, p in zip(ids, s.others, strict=True)}
    got = set(con.execute("SELECT round, player, points FROM twentyone_scores").fetchall())
    assert got == expected


def test_sql_totals_match_python(tmp_path):
    turns, scores = synth.twentyone_game(random.Random(3), rounds=40, players=5)
    synth.write_pair(tmp_path, "g", twentyone, turns, scores)
    con = duckdb.connect()
    assert ingest(con, [tmp_path]).ok
    rows = con.execute(
        "SELECT array_to_string(hand, ';'), total, soft, n_cards FROM twentyone_turn_totals"
    ).fetchall()
    assert len(rows) == sum(1 for t in turns if t.action != "Bid")
    for hand, total, soft, n in rows:
        cards = parse_hand(hand)
        assert (total, soft, n) == (*hand_value(cards), len(cards))


def test_hands_and_dealer_views(tmp_path):
    turns, scores = synth.twentyone_game(random.Random(5), rounds=20, players=3)
    synth.write_pair(tmp_path, "g", twentyone, turns, scores)
    con = duckdb.connect()
    assert ingest(con, [tmp_path]).ok
    last = {}
    for t in turns:
        if t.action != "Bid":
            last[(t.round, t.player, t.hand_id)] = t
    players = {k: v for k, v in last.items() if k[1] != "dealer"}
    hands = con.execute(
        "SELECT round, player, hand_id, array_to_string(cards, ';'), hand_class "
        "FROM twentyone_hands"
    ).fetchall()
    assert {(r, p, h): c for r, p, h, c, _ in hands} == {
        k: ";".join(map(format_course, t.hand)) for k, t in players.items()
    }
    for *_, cards, cls in hands:
        total, _ = hand_value(parse_hand(cards))
        n = len(cards.split(";"))
        want = (
            "Combo"
            if n == 2 and total == 21
            else "Bust"
            if total > 21
            else "Charlie"
            if n >= 5
            else "Value"
        )
        assert cls == want
    dealer = dict(
        con.execute(
            "SELECT round, array_to_string(cards, ';') FROM twentyone_dealer_hands"
        ).fetchall()
    )
    assert dealer == {
        k[0]: ";".join(map(format_course, t.hand)) for k, t in last.items() if k[1] == "dealer"
    }


def test_many_files_read_in_parallel_keep_their_line_order(tmp_path):
    """DuckDB reads a batch's files on several threads; every row must keep its line."""
    expected = {}
    for i in range(24):
        turns, scores = synth.twentyone_game(random.Random(100 + i), rounds=60, players=8)
        turn_path, _ = synth.write_pair(tmp_path, f"g{i:02d}", twentyone, turns, scores)
        expected[str(turn_path)] = [(t.round, t.player, t.action, t.bid) for t in turns]
    con = duckdb.connect()
    con.execute("SET threads = 4")
    assert ingest(con, [tmp_path]).ok
    for path, rows in expected.items():
        got = con.execute(
            """SELECT round, player, action, bid FROM twentyone_turns
               WHERE log_id = (SELECT log_id FROM manifest WHERE path = ?) ORDER BY line""",
            [path],
        ).fetchall()
        assert got == rows
        assert con.execute(
            "SELECT max(line) FROM twentyone_turns WHERE log_id = "
            "(SELECT log_id FROM manifest WHERE path = ?)",
            [path],
        ).fetchone() == (len(rows),)


@functools.cache
def _macros() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    schema.ensure(con)
    return con


def test_sql_card_points_are_the_spec_points():
    con = _macros()
    for card in DECK:
        text = format_course(card)
        high, low = con.execute(
            "SELECT blackjack_points(?), card_hard_points(?)", [text, text]
        ).fetchone()
        assert high == blackjack_points(card), text
        assert low == (1 if card.rank == 1 else blackjack_points(card)), text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=1, max_size=8))
def test_sql_text_totals_match_python(cards):
    """The totals the rule checks read off a hand as the file writes it (SQ;H3)."""
    text = ";".join(format_course(card) for card in cards)
    con = _macros()
    total, n = con.execute("SELECT text_total(?), text_cards(?)", [text, text]).fetchone()
    assert (total, n) == (hand_value(cards)[0], len(cards))

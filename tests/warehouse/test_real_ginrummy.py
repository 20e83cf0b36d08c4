"""The real server's Gin Rummy logs land whole and keep the spec's invariants."""

import pytest

from mine.parsers import ginrummy
from mine.warehouse.ingest import ingest
from tests.conftest import REAL_GINRUMMY


@pytest.fixture
def con(warehouse):
    _, con = warehouse
    summary = ingest(con, [REAL_GINRUMMY])
    assert summary.ok, summary.errors
    return con


def one(con, sql):
    return con.execute(sql).fetchone()


def test_counts(con):
    assert one(con, "SELECT count(*) FROM logs WHERE game = 'ginrummy'") == (12,)
    assert one(con, "SELECT count(*) FROM ginrummy_rounds") == (112,)
    assert one(con, "SELECT count(*) FROM ginrummy_turns") == (3450,)
    assert one(con, "SELECT count(*) FROM ginrummy_games") == (12,)
    endings = dict(
        con.execute("SELECT ending, count(*) FROM ginrummy_rounds GROUP BY 1").fetchall()
    )
    assert endings == {"Drop": 52, "Knock": 51, "Gin": 9}


def test_the_next_rows_discard_top_is_the_previous_discard(con):
    broken = one(
        con,
        """
        SELECT count(*) FROM (
            SELECT discard_top, lag(discarded) OVER (PARTITION BY log_id, round ORDER BY line) AS before
            FROM ginrummy_turns) WHERE before IS NOT NULL AND discard_top <> before""",
    )
    chained = one(con, "SELECT count(*) FROM ginrummy_turns WHERE turn > 1")
    assert broken == (0,) and chained[0] == 3450 - 112


def test_the_picked_card_leads_the_hand(con):
    assert one(con, "SELECT count(*) FROM ginrummy_turns WHERE hand[1] <> picked") == (0,)
    assert one(con, "SELECT count(*) FROM ginrummy_turns WHERE len(hand) <> 10") == (0,)


def test_draw_source_matches_the_parser(con):
    parsed = sum(
        turn.from_discard
        for path in REAL_GINRUMMY.glob("*.csv")
        if not path.stem.endswith("-score")
        for turn in ginrummy.read_turns(path)
    )
    assert one(con, "SELECT count(*) FROM ginrummy_turns WHERE drawn_from = 'discard'") == (parsed,)


def test_only_the_round_winner_scores(con):
    assert one(
        con, "SELECT count(*) FROM ginrummy_rounds WHERE points > 0 AND opponent_points > 0"
    ) == (0,)


def test_manifest_records_every_file(con):
    rows = con.execute(
        "SELECT role, outcome, count(*) FROM manifest GROUP BY ALL ORDER BY 1"
    ).fetchall()
    assert rows == [("scores", "new", 12), ("turns", "new", 12)]
    assert one(con, "SELECT sum(rows) FROM manifest WHERE role = 'turns'") == (3450,)

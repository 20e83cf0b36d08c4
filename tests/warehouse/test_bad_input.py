"""Each kind of bad file is rejected with file:line: reason; nothing of it lands, the rest does."""

from pathlib import Path

import pytest

from mine.warehouse.ingest import ingest


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\r\n")[:-1]


def write(path: Path, rows: list[bytes], end: bytes = b"\r\n") -> None:
    path.write_bytes(b"".join(row + end for row in rows))


def set_field(path: Path, line: int, column: int, value: bytes) -> None:
    rows = lines(path)
    fields = rows[line - 1].split(b",")
    fields[column - 1] = value
    rows[line - 1] = b",".join(fields)
    write(path, rows)


def first_hit_line(path: Path) -> int:
    return next(
        i for i, row in enumerate(lines(path), 1) if b",Hit," in row and b"dealer" not in row
    )


# Each case corrupts one file under `root` and returns (that file, line or None, reason).
def wrong_column_count(root):
    path = root / "twentyone" / "t0.csv"
    rows = lines(path)
    rows[5] = rows[5].rsplit(b",", 1)[0]
    write(path, rows)
    return path, 6, "expected 8 columns, found 7"


def extra_column(root):
    path = root / "ginrummy" / "g0.csv"
    rows = lines(path)
    rows[2] += b",SA"
    write(path, rows)
    return path, 3, "expected 6 columns, found 7"


def bad_card_x9(root):
    path = root / "twentyone" / "t0.csv"
    line = first_hit_line(path)
    set_field(path, line, 2, b"X9;S2;S3")
    return path, line, "hand 'X9;S2;S3' is not a hand of cards"


def bad_card_s11(root):
    path = root / "twentyone" / "t0.csv"
    line = first_hit_line(path)
    set_field(path, line, 2, b"S11;S2;S3")
    return path, line, "hand 'S11;S2;S3'"


def bad_upcard_s1(root):
    path = root / "twentyone" / "t0.csv"
    set_field(path, 1, 8, b"S1")
    return path, 1, "upcard 'S1' is not a card"


def lower_case_card(root):
    path = root / "ginrummy" / "g0.csv"
    set_field(path, 4, 6, b"s10")
    return path, 4, "discarded 's10' is not a card"


def round_not_a_number(root):
    path = root / "twentyone" / "t0.csv"
    set_field(path, 3, 1, b"x")
    return path, 3, "round 'x' is not a round number"


def negative_bid(root):
    path = root / "twentyone" / "t0.csv"
    set_field(path, 2, 7, b"-5")
    return path, 2, "bid '-5' is not a bid"


def bid_with_a_plus_sign(root):
    path = root / "twentyone" / "t1.csv"
    set_field(path, 4, 7, b"+5")  # an integer to DuckDB, but not the format's
    return path, 4, "bid '+5' is not a bid"


def gin_hand_with_a_field_delimiter(root):
    path = root / "ginrummy" / "g1.csv"
    rows = lines(path)
    rows[6] = rows[6].replace(b";", b"\x01;", 1)
    write(path, rows)
    return path, 7, "is not"


def unknown_action(root):
    path = root / "twentyone" / "t0.csv"
    set_field(path, 2, 6, b"Fold")
    return path, 2, "action 'Fold' is not an action"


def bad_flag(root):
    path = root / "ginrummy" / "g0-score.csv"
    set_field(path, 2, 5, b"2")
    return path, 2, "last_mine '2' is not 1 or 0"


def unpaired(root):
    path = root / "twentyone" / "t0-score.csv"
    path.unlink()
    return root / "twentyone" / "t0.csv", None, "unpaired: no t0-score.csv"


def opponent_count_mismatch(root):
    path = root / "twentyone" / "t0-score.csv"
    rows = lines(path)
    rows[3] = rows[3] + b";10000"
    write(path, rows)
    return path, 4, "4 other players' points, but the turn file has 3 other players"


def empty_file(root):
    path = root / "ginrummy" / "g0.csv"
    path.write_bytes(b"")
    return path, 1, "empty file"


def binary_file(root):
    path = root / "twentyone" / "t0.csv"
    path.write_bytes(b"1,2,3\r\n\x00\x01\x02\xff\xfe\r\n")
    return path, 2, "binary content"


def byte_order_mark(root):
    path = root / "ginrummy" / "g0-score.csv"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    return path, 1, "byte-order mark"


def truncated_last_line(root):
    path = root / "twentyone" / "t0.csv"
    data = path.read_bytes()
    path.write_bytes(data[:-7])
    return path, data.count(b"\n"), "truncated last line"


def blank_line(root):
    path = root / "ginrummy" / "g0.csv"
    rows = lines(path)
    write(path, rows[:3] + [b""] + rows[3:])
    return path, 4, "empty line"


def rounds_go_back(root):
    path = root / "twentyone" / "t0.csv"
    rows = lines(path)
    last = len(rows)
    set_field(path, last, 1, b"1")
    return path, last, "round goes back"


def score_round_skipped(root):
    path = root / "ginrummy" / "g0-score.csv"
    set_field(path, 2, 1, b"3")
    return path, 2, "expected round 2, found 3"


def picked_card_not_first(root):
    path = root / "ginrummy" / "g0.csv"
    rows = lines(path)
    fields = rows[4].split(b",")
    cards = fields[1].split(b";")
    fields[1] = b";".join(cards[1:] + cards[:1])
    rows[4] = b",".join(fields)
    write(path, rows)
    return path, 5, "does not lead the hand"


def broken_discard_chain(root):
    path = root / "ginrummy" / "g1.csv"
    rows = lines(path)
    fields = rows[6].split(b",")
    hand = set(fields[1].split(b";")) | {fields[4], fields[5], fields[3]}
    fields[3] = next(c for c in (b"SA", b"HA", b"DA", b"CA", b"S2", b"H2") if c not in hand)
    rows[6] = b",".join(fields)
    write(path, rows)
    return path, 7, "is not the previous row's discard"


def bid_row_with_a_hand(root):
    path = root / "twentyone" / "t1.csv"
    set_field(path, 1, 2, b"SA;SK")
    return path, 1, "a Bid row must have an empty hand"


def unknown_format(root):
    path = root / "ginrummy" / "g1.csv"
    write(path, [b"1,2,3,4"])
    return path, 1, "matches no known log format"


def not_utf8(root):
    path = root / "twentyone" / "t1-score.csv"
    path.write_bytes(path.read_bytes().replace(b"1,", b"\xe9,", 1))
    return path, 1, "not UTF-8"


def upcard_changes_mid_round(root):
    path = root / "twentyone" / "t1.csv"
    rows = lines(path)
    line = next(i for i, row in enumerate(rows, 1) if row.startswith(b"1,") and b",Stand," in row)
    upcard = rows[line - 1].split(b",")[7]
    set_field(path, line, 8, b"SK" if upcard != b"SK" else b"SQ")
    return path, line, "differs from the round's up card"


def score_file_ends_early(root):
    path = root / "twentyone" / "t1-score.csv"
    rows = lines(path)
    write(path, rows[:-1])
    return path, len(rows) - 1, "the score file ends at round"


def two_perspective_players(root):
    path = root / "twentyone" / "t0.csv"
    rows = lines(path)
    line = next(
        i
        for i, row in enumerate(rows, 1)
        if row.split(b",")[3] == b"0" and row.split(b",")[2] != b"dealer"
    )
    set_field(path, line, 4, b"1")  # one row of an opponent's now says it is yours
    return path, line, "is marked as yours on some rows and not on others"


CASES = [
    upcard_changes_mid_round,
    score_file_ends_early,
    two_perspective_players,
    wrong_column_count,
    extra_column,
    bad_card_x9,
    bad_card_s11,
    bad_upcard_s1,
    lower_case_card,
    round_not_a_number,
    negative_bid,
    bid_with_a_plus_sign,
    gin_hand_with_a_field_delimiter,
    unknown_action,
    bad_flag,
    unpaired,
    opponent_count_mismatch,
    empty_file,
    binary_file,
    byte_order_mark,
    truncated_last_line,
    blank_line,
    rounds_go_back,
    score_round_skipped,
    picked_card_not_first,
    broken_discard_chain,
    bid_row_with_a_hand,
    unknown_format,
    not_utf8,
]


@pytest.mark.parametrize("corrupt", CASES, ids=lambda case: case.__name__)
def test_bad_file_is_rejected_alone(warehouse, good_logs, corrupt):
    _, con = warehouse
    path, line, reason = corrupt(good_logs)
    stem = path.name.removesuffix(".csv").removesuffix("-score")
    summary = ingest(con, [good_logs])

    assert not summary.ok
    (error,) = summary.errors
    where = f"{path}:{line}:" if line is not None else f"{path}:"
    assert str(error).startswith(where), str(error)
    assert reason in error.reason, str(error)

    landed = {row[0] for row in con.execute("SELECT stem FROM logs").fetchall()}
    assert landed == {"t0", "t1", "g0", "g1"} - {stem}
    expected_turns = {
        game: sum(
            len(lines(p))
            for p in (good_logs / game).glob("*.csv")
            if not p.stem.endswith("-score") and p.stem != stem
        )
        for game in ("twentyone", "ginrummy")
    }
    assert (
        con.execute("SELECT count(*) FROM twentyone_turns").fetchone()[0]
        == expected_turns["twentyone"]
    )
    assert (
        con.execute("SELECT count(*) FROM ginrummy_turns").fetchone()[0]
        == expected_turns["ginrummy"]
    )
    if line is not None:
        outcome = con.execute(
            "SELECT outcome, error FROM manifest WHERE path = ?", [str(path)]
        ).fetchone()
        assert outcome[0] == "rejected" and reason in outcome[1]

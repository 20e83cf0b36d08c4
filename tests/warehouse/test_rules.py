"""Ingest replays each game's rules: every class of broken log the issue lists is rejected
with its file, line and the rule; --no-verify skips the rules; --rules says which rules the
logs were played under."""

from __future__ import annotations

import json
import random
from pathlib import Path

import duckdb
import pytest

from mine.parsers import hog
from mine.parsers.cards import parse_course
from mine.strategies.engines.hog import HogRules
from mine.strategies.engines.melds import MeldSolver, hand_mask
from mine.warehouse.ingest import ingest
from tests.conftest import REAL_GINRUMMY, REAL_TWENTYONE
from tests.data import synth
from tests.mine_cli import here, one_line_error

# The real fixtures, as the repository carries them (byte copies of ../shared/fixtures'
# logs), so that a clone anywhere runs these tests.
TWENTYONE = REAL_TWENTYONE / "20211024-120000-001"
GINRUMMY = REAL_GINRUMMY / "1604731633"


def _copy(source: Path) -> tuple[list[str], list[str]]:
    turns = Path(f"{source}.csv").read_text().splitlines()
    scores = Path(f"{source}-score.csv").read_text().splitlines()
    return turns, scores


def _hog() -> tuple[list[str], list[str]]:
    turns, scores = synth.hog_game(random.Random(3), 3)
    return (
        [",".join(map(str, hog.turn_fields(t))) for t in turns],
        [",".join(map(str, hog.score_fields(s))) for s in scores],
    )


def _field(rows: list[str], index: int, column: int, value: str) -> None:
    fields = rows[index].split(",")
    fields[column] = value
    rows[index] = ",".join(fields)


def _find(rows: list[str], test) -> int:
    return next(i for i, row in enumerate(rows) if test(row.split(",")))


# Each case breaks one rule of a valid log; returns (role, line, words of the reason).
def bid_zero(t, s):
    i = _find(t, lambda f: f[5] == "Bid")
    _field(t, i, 6, "0")
    return "turns", i + 1, "the bid must be between 10 and 100"


def bid_five_million(t, s):
    i = _find(t, lambda f: f[5] == "Bid")
    _field(t, i, 6, "5000000")
    return "turns", i + 1, "bid 5000000 is outside this game's range 0..200"


def hit_gains_no_card(t, s):
    i = _find(t, lambda f: f[5] == "Hit" and f[2] != "dealer" and f[1].count(";") == 3)
    _field(t, i, 1, t[i].split(",")[1].split(";", 1)[1])
    return "turns", i + 1, ""  # the Hit adds no card; the hand ends unfinished there too


def insurance_without_ace(t, s):
    i = _find(t, lambda f: f[5] == "Stand" and f[2] != "dealer" and not f[7].endswith("A"))
    _field(t, i, 5, "Insurance")
    return "turns", i + 1, "Insurance"


def split_of_two_ranks(t, s):
    def fits(f):
        cards = f[1].split(";")
        return f[5] == "Stand" and len(cards) == 2 and cards[0][1:] != cards[1][1:]

    i = _find(t, fits)
    _field(t, i, 5, "Split")
    return "turns", i + 1, "Split"


def round_without_dealer(t, s):
    t[:] = [row for row in t if not (row.startswith("2,") and ",dealer," in row)]
    last = max(i for i, row in enumerate(t) if row.startswith("2,"))
    return "turns", last + 1, "round 2 has no dealer rows"


def points_jump(t, s):
    _field(s, 2, 1, str(int(s[2].split(",")[1]) + 10))
    return "scores", 3, "settle to"


def another_logs_scores(t, s):
    other = REAL_TWENTYONE / "20211024-120000-002-score.csv"
    s[:] = other.read_text().splitlines()
    return "scores", None, ""


def duplicated_line(t, s):
    i = _find(t, lambda f: f[5] == "Hit" and f[2] != "dealer")
    t.insert(i, t[i])
    return "turns", i + 2, "a Hit adds one card"


def deleted_line(t, s):
    """A Hit the hand's next row builds on."""
    hand = [row.split(",") for row in t]
    i = next(
        i
        for i, f in enumerate(hand[:-1])
        if f[5] == "Hit"
        and f[2] != "dealer"
        and [f[0], f[2], f[4]] == [*hand[i + 1][:1], hand[i + 1][2], hand[i + 1][4]]
    )
    del t[i]
    return "turns", i + 1, ""


def swapped_bids(t, s):
    t[0], t[1] = t[1], t[0]
    return "turns", 1, "seat order"


def fourth_copy_in_one_shoe(t, s):
    """Ten-point cards of lone Stand hands (two cards, nothing before them) in the first
    rounds become the queen of spades, until the shoe's three decks have shown it four
    times: totals and points stay as they were, only the shoe is broken."""
    rows = [row.split(",") for row in t]

    def shown_in(round_: str) -> int:  # the copies in the round's final hands
        finals = {}
        for f in rows:
            if f[0] == round_ and f[5] != "Bid":
                finals[f[2], f[4]] = f[1].split(";")
        return sum(cards.count("SQ") for cards in finals.values())

    copies = 0
    for round_ in ("1", "2", "3"):  # 3 rounds of 7 players: well inside the first shoe
        for i, f in enumerate(rows):
            alone = rows[i - 1][:1] + rows[i - 1][2:3] != f[:1] + f[2:3]
            cards = f[1].split(";")
            if f[0] != round_ or f[5] != "Stand" or f[2] == "dealer" or not alone:
                continue
            ten = next((k for k, c in enumerate(cards) if c[1:] in ("10", "J", "K", "Q")), None)
            if ten is not None and cards[ten] != "SQ" and copies + shown_in(round_) < 4:
                cards[ten] = "SQ"
                f[1] = ";".join(cards)
        copies += shown_in(round_)
        if copies >= 4:
            t[:] = [",".join(f) for f in rows]
            last = max(i for i, f in enumerate(rows) if f[0] == round_)
            return "turns", last + 1, "SQ appears 4 times in rounds 1 to " + round_
    raise AssertionError("the log has too few lone Stand hands for this case")


def ginrummy_pick_from_opponent(t, s):
    """A stock draw that takes a card the opponent holds."""
    i = next(i for i, row in enumerate(t) if i > 1 and row.split(",")[3] != row.split(",")[4])
    fields = t[i].split(",")
    hand = fields[1].split(";")
    card = next(c for c in t[i - 1].split(",")[1].split(";") if c not in hand)
    hand[0] = fields[4] = card
    fields[1] = ";".join(hand)
    t[i] = ",".join(fields)
    return "turns", i + 1, ""


def ginrummy_one_side(t, s):
    t[:] = [",".join([*row.split(",")[:2], "1", *row.split(",")[3:]]) for row in t]
    return "turns", 2, "same side plays two turns"


def ginrummy_both_score(t, s):
    _field(s, 0, 1, "12")
    _field(s, 0, 2, "12")
    return "scores", 1, "both sides score"


def ginrummy_million(t, s):
    _field(s, 0, 1, "1000000")
    return "scores", 1, "outside this game's range"


def ginrummy_gin_zero(t, s):
    fields = s[0].split(",")
    s[0] = ",".join([fields[0], "0", "0", "Gin", fields[4]])
    return "scores", 1, "nobody scores"


def ginrummy_knock_called_gin(t, s):
    """A Gin whose caller still holds deadwood under every meld declaration."""
    i = _find(s, lambda f: f[3] == "Knock")
    _field(s, i, 3, "Gin")
    return "scores", i + 1, "a Gin, but the caller's hand"


def ginrummy_knock_no_declaration_gives(t, s):
    """A Knock's points inside the old bounds (up to the opponent's most deadwood less the
    caller's least) that no pair of meld declarations of the final hands leaves."""
    solver = MeldSolver()
    for i, score in enumerate(row.split(",") for row in s):
        if score[3] != "Knock":
            continue
        rows = [row.split(",") for row in t if row.split(",")[0] == score[0]]
        caller = rows[-1][2]
        hands = {f[2]: f[1].split(";") for f in rows}  # each side's last hand
        other = "0" if caller == "1" else "1"
        can = {side: solver.deadwoods(hand_mask(map(parse_course, hands[side]))) for side in hands}
        made = {o - c for c in can[caller] if c <= 10 for o in can[other] if o > c}
        unmade = [v for v in range(1, max(can[other]) - can[caller][0]) if v not in made]
        if unmade:
            _field(s, i, 1 if caller == "1" else 2, str(unmade[0]))
            _field(s, i, 2 if caller == "1" else 1, "0")
            return "scores", i + 1, "which no declarations of the two hands leave"
    raise AssertionError("no Knock round with points the hands cannot make")


def hog_die_nine(t, s):
    i = _find(t, lambda f: f[6] != "")
    _field(t, i, 6, ";".join(["9", *t[i].split(",")[6].split(";")[1:]]))
    return "turns", i + 1, "a die shows 9"


def hog_new_score(t, s):
    _field(t, 2, 8, str(int(t[2].split(",")[8]) + 3))
    return "turns", 3, "new_score"


def hog_third_player(t, s):
    _field(t, 4, 2, "carol")
    return "turns", 5, "a third player carol"


def hog_winner_not_a_player(t, s):
    _field(s, 0, 4, "mallory")
    return "scores", 1, "winner mallory"


def hog_final_zero(t, s):
    _field(s, 1, 2, "0")
    _field(s, 1, 3, "0")
    return "scores", 2, "final scores 0 and 0"


CASES = {
    "twentyone": [
        bid_zero,
        bid_five_million,
        hit_gains_no_card,
        insurance_without_ace,
        split_of_two_ranks,
        round_without_dealer,
        points_jump,
        another_logs_scores,
        duplicated_line,
        deleted_line,
        swapped_bids,
        fourth_copy_in_one_shoe,
    ],
    "ginrummy": [
        ginrummy_pick_from_opponent,
        ginrummy_one_side,
        ginrummy_both_score,
        ginrummy_million,
        ginrummy_gin_zero,
        ginrummy_knock_called_gin,
        ginrummy_knock_no_declaration_gives,
    ],
    "hog": [hog_die_nine, hog_new_score, hog_third_player, hog_winner_not_a_player, hog_final_zero],
}
SOURCES = {"twentyone": TWENTYONE, "ginrummy": GINRUMMY}


@pytest.mark.parametrize(
    ("game", "case"),
    [(game, case) for game, cases in CASES.items() for case in cases],
    ids=lambda v: v if isinstance(v, str) else v.__name__,
)
def test_a_log_that_breaks_its_games_rules_is_rejected_at_its_line(tmp_path, game, case):
    turns, scores = _hog() if game == "hog" else _copy(SOURCES[game])
    role, line, words = case(turns, scores)
    folder = tmp_path / "logs"
    folder.mkdir()
    paths = {"turns": folder / "x.csv", "scores": folder / "x-score.csv"}
    for key, rows in (("turns", turns), ("scores", scores)):
        paths[key].write_text("".join(row + "\r\n" for row in rows))
    con = duckdb.connect(str(tmp_path / "w.duckdb"))

    summary = ingest(con, [folder])

    assert summary.count("rejected") == 1 and summary.verified
    (error,) = summary.errors
    assert error.path == str(paths[role]) and words in error.reason, str(error)
    if line is not None:
        assert error.line == line, str(error)
    assert con.execute("SELECT count(*) FROM logs").fetchone() == (0,)


def test_every_real_fixture_log_passes_verification(tmp_path):
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    summary = ingest(con, [REAL_TWENTYONE, REAL_GINRUMMY])
    assert summary.ok and summary.verified and summary.count("new") == 22, summary.errors


def test_logs_of_other_rules_ingest_under_those_rules(tmp_path):
    """A match to 50 points without Square Swine breaks the default rules, not its own."""
    rules = HogRules(goal=50, square_swine=False)
    logs = tmp_path / "logs"
    settings = ["--rules", "goal=50", "--rules", "square_swine=off"]
    simulated = here("simulate", "hog", "--games", "20", "-o", logs, "--seed", "4", *settings)
    assert simulated.returncode == 0, simulated.stderr
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    assert ingest(con, [logs]).count("rejected") == 1
    assert ingest(con, [logs], rules={"hog": rules}).count("new") == 1
    con.close()

    db = tmp_path / "cli.duckdb"
    ingested = here("ingest", logs, "--db", db, "--json", *settings)
    assert ingested.returncode == 0, ingested.stderr
    assert json.loads(ingested.stdout)["verified"] is True
    unknown = here("ingest", logs, "--db", db, "--rules", "decks_of_dice=3")
    assert "no game's rules have it" in one_line_error(unknown, code=1)


def test_no_verify_lands_a_rule_breaking_log_and_says_so(tmp_path):
    turns, scores = _hog()
    hog_die_nine(turns, scores)
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "x.csv").write_text("".join(row + "\r\n" for row in turns))
    (folder / "x-score.csv").write_text("".join(row + "\r\n" for row in scores))
    db = tmp_path / "w.duckdb"
    checked = here("ingest", folder, "--db", db)
    assert checked.returncode == 1 and "a die shows 9" in checked.stderr
    assert "rules verified" in checked.stdout and "yes" in checked.stdout
    skipped = here("ingest", folder, "--db", db, "--no-verify", "--json")
    result = json.loads(skipped.stdout)
    assert skipped.returncode == 0 and result["verified"] is False
    assert result["pairs"]["new"] == 1


def test_user_data_is_printed_as_text_not_markup_or_emoji(tmp_path):
    """A folder and a field holding rich markup and an emoji code, echoed by ingest's
    rejection and by query: printed as they are, with no traceback."""
    folder = tmp_path / "[red]:100:[bold]"
    folder.mkdir()
    turns, scores = _hog()
    _field(turns, 0, 2, "[/]:100:")
    (folder / "x.csv").write_text("".join(row + "\r\n" for row in turns))
    (folder / "x-score.csv").write_text("".join(row + "\r\n" for row in scores))
    db = tmp_path / "w.duckdb"
    ingested = here("ingest", folder, "--db", db)
    assert ingested.returncode == 1 and "Traceback" not in ingested.stderr
    assert f"{folder}/x.csv:1:" in ingested.stderr.replace("\n", "")
    assert "[/]:100:" in ingested.stderr and "💯" not in ingested.stderr

    here("ingest", tmp_path / "none", "--db", db)
    shown = here("query", "SELECT '[/]' AS a, ':100:' AS b, '[bold]x' AS c", "--db", db)
    assert shown.returncode == 0, shown.stderr
    assert "[/]" in shown.stdout and ":100:" in shown.stdout and "[bold]x" in shown.stdout
    assert "💯" not in shown.stdout

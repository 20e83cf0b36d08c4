"""The Gin Rummy reference engine: rule enforcement (the state refuses, the referee rules),
scoring, the 2020 course engine's facts (who plays first, the play cap, the opponent's
draw), and the real logs replayed: the server's, and the course engine's games between
students' players."""

from __future__ import annotations

import pickle
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from mine.parsers.cards import Card, parse_course
from mine.parsers.ginrummy import read_scores, read_turns, write_scores, write_turns
from mine.strategies.engines.ginrummy import (
    Deal,
    GinRummyRules,
    Play,
    State,
    course_player,
    log_rows,
    new_game,
    round_points,
)
from mine.strategies.engines.melds import MeldSolver
from mine.strategies.engines.state import IllegalAction
from mine.warehouse.ingest import ingest
from tests.strategies.ginrummy_replay import (
    Scripted,
    deal_of,
    declarations,
    explain,
    real_pairs,
    refereed,
    rounds_of,
)

REAL = Path(__file__).resolve().parents[2] / "examples" / "logs" / "ginrummy"
# 30 games of the 2020 course engine between real students' players (byte copies of
# ../shared/fixtures/ginrummy-students-2020), all from one student's point of view.
STUDENTS = Path(__file__).resolve().parents[1] / "data" / "ginrummy-students-2020"
PAIRS = [*real_pairs(REAL), *real_pairs(STUDENTS)]
RULES = GinRummyRules()
SOLVER = MeldSolver()


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_course(part) for part in text.split())


# Seat 0 holds three melds and a 4 (deadwood 4 + whatever it draws); seat 1 holds junk.
MELDED = cards("SA S2 S3 H5 H6 H7 C9 D9 S9 D4")
JUNK = cards("CK DQ HJ C2 D6 H10 SQ C8 HK DJ")
UPCARD = parse_course("C4")
STOCK = cards("HA C3 D2 H3 S5 C5 S6 D7 CA DA")


def dealt(stock: tuple[Card, ...] = STOCK, first: int = 0) -> list[Deal]:
    return [Deal(first, (MELDED, JUNK), UPCARD, stock)]


def scripted_state(rules: GinRummyRules = RULES, stock: tuple[Card, ...] = STOCK) -> State:
    return new_game(rules, np.random.default_rng(0), deals=dealt(stock))


def player(pick, play, melds) -> object:
    """A player of the spec's three functions, as the referee seats it."""
    return course_player(SimpleNamespace(pick=pick, play=play, melds=melds))


def refused(state: State, action) -> str:
    """Why the state refuses `action` (IllegalAction), having left the state as it was."""
    before = pickle.dumps(state)
    with pytest.raises(IllegalAction) as error:
        state.apply_action(action)
    assert pickle.dumps(state) == before
    return str(error.value)


def drop_round(state: State) -> None:
    """Both players take the stock and drop their oldest card, once each."""
    for _ in range(2):
        state.apply_action("stock")
        state.apply_action(Play("drop", state.hands[state.player][-1]))


# --- rule enforcement --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plays", "reason"),
    [
        (
            lambda s: [("stock", Play("drop", parse_course("HA")))],
            "Cannot play the last drawn card",
        ),
        (lambda s: [("discard", Play("drop", UPCARD))], "Cannot play the last drawn card"),
        (
            lambda s: [("stock", Play("drop", parse_course("CQ")))],
            "Card played wasn't in player's hand",
        ),
        (lambda s: [("stock", Play("knock", parse_course("D4")))], "Called on first turn"),
        (
            lambda s: [
                ("stock", Play("drop", parse_course("D4"))),
                ("stock", Play("knock", parse_course("CK"))),
            ],
            "Called on first turn",
        ),
        (lambda s: [("stock", ("fold", parse_course("D4")))], "act must be gin, knock or drop"),
        (lambda s: [("heap", None)], "draw must be 'stock' or 'discard'"),
    ],
)
def test_invalid_plays_end_the_game_with_their_reason(plays, reason):
    actions = [action for pair in plays(None) for action in pair if action is not None]
    state = scripted_state()
    for action in actions[:-1]:
        state.apply_action(action)
    assert refused(state, actions[-1]).startswith(reason)
    seat = state.current_player()
    # The referee: the player of the refused action loses the game.
    script = iter(actions)
    scripted = player(
        lambda top, scores, memory, draw, hand: (next(script), "m"),
        lambda picked, scores, memory, hand: (next(script), "m"),
        lambda scores, memory, hand: SOLVER.melds_of(hand),
    )
    state, seen = refereed(RULES, [scripted, scripted], np.random.default_rng(0), dealt())
    assert state.invalid is not None and state.invalid.reason.startswith(reason)
    assert state.invalid.seat == seat and not state.rounds
    assert seen.faults[seat] == state.invalid.reason and seen.faults[1 - seat] is None
    assert state.returns()[state.invalid.seat] == -1.0


def test_knock_over_the_limit_and_gin_with_deadwood_are_rejected():
    over = scripted_state()
    drop_round(over)
    over.apply_action("stock")  # seat 0 draws D2 into SA S2 S3 H5 H6 H7 C9 D9 S9 HA
    assert SOLVER.deadwood_of([*over.hands[0], over.picked]) > 0
    assert refused(over, Play("gin", over.hands[0][-1])) == "Called gin with remaining deadwood"
    junk = scripted_state()
    drop_round(junk)
    junk.apply_action("stock")
    junk.apply_action(Play("drop", junk.hands[0][-1]))
    junk.apply_action("stock")
    assert refused(junk, Play("knock", junk.hands[1][-1])).startswith(
        "Knocked with more than 10 points"
    )
    assert junk.current_player() == 1


def test_legal_actions_only_offer_allowed_calls():
    state = scripted_state()
    state.apply_action("stock")
    assert all(play.act == "drop" for play in state.legal_actions())  # first turn
    assert all(play.card != state.picked for play in state.legal_actions())
    state.apply_action(Play("drop", parse_course("D4")))
    state.apply_action("stock")
    state.apply_action(Play("drop", state.hands[1][-1]))
    state.apply_action("stock")  # seat 0: SA S2 S3 H5 H6 H7 C9 D9 S9 HA + D2 → may knock
    calls = {play for play in state.legal_actions() if play.act != "drop"}
    assert calls, "a 3-deadwood hand may knock"
    for play in calls:
        left = [card for card in (*state.hands[0], state.picked) if card != play.card]
        assert SOLVER.deadwood_of(left) <= 10
        assert play.act != "gin" or SOLVER.deadwood_of(left) == 0


@pytest.mark.parametrize(
    ("declared", "reason"),
    [
        ([cards("SA S2 S3"), cards("H5 H6 H7"), cards("C9 D9 S9")], "did not declare"),
        ([cards("SA S2 S3 H5"), cards("H6 H7 C9"), cards("D9 S9"), cards("H3")], "SA S2 S3 H5"),
        ([cards("SA S2 S3"), cards("S3 S2 SA")], "used twice"),
        ([cards("SA S2 CK")], "not in the hand"),
    ],
)
def test_bad_declarations_are_rejected(declared, reason):
    state = scripted_state()
    state.apply_action("stock")  # HA
    state.apply_action(Play("drop", parse_course("D4")))
    state.apply_action("stock")  # C3, seat 1
    state.apply_action(Play("drop", parse_course("CK")))
    state.apply_action("stock")  # D2: SA S2 S3 H5 H6 H7 C9 D9 S9 D2 knocks with 2
    state.apply_action(Play("knock", parse_course("HA")))
    assert not state.is_terminal() and state.caller == 0
    assert reason in refused(state, declared)


def test_a_declaration_over_the_knock_limit_is_rejected_at_the_melds():
    state = scripted_state()
    state.apply_action("stock")  # HA
    state.apply_action(Play("drop", parse_course("D4")))
    state.apply_action("stock")  # C3
    state.apply_action(Play("drop", parse_course("CK")))
    state.apply_action("stock")  # D2
    state.apply_action(Play("knock", parse_course("HA")))
    hand = state.hands[0]
    everything = [(card,) for card in hand]  # everything as deadwood
    assert refused(state, everything).startswith("Knocked with more than 10")


def _bot(pick=None, play=None):
    def default_pick(top, scores, memory, opponent_draw, hand):
        return "stock", "m"

    def default_play(picked, scores, memory, hand):
        return ("drop", hand[0]), "m"

    return player(
        pick or default_pick, play or default_play, lambda s, m, hand: SOLVER.melds_of(hand)
    )


def test_memory_over_the_limit_and_slow_calls_forfeit():
    big = _bot(pick=lambda top, scores, memory, draw, hand: ("stock", "x" * 10_001))
    state, _ = refereed(RULES, [_bot(), big], np.random.default_rng(1))
    assert state.invalid is not None and state.invalid.seat == 1
    assert state.invalid.reason.startswith("Memory is too large")
    exact = _bot(pick=lambda top, scores, memory, draw, hand: ("stock", "x" * 10_000))
    assert refereed(RULES, [exact, _bot()], np.random.default_rng(1))[0].invalid is None

    def slow(picked, scores, memory, hand):
        started = time.process_time()  # the limit counts CPU time: spend it
        while time.process_time() - started < 0.02:
            pass
        return ("drop", hand[0]), "m"

    quick = GinRummyRules(time_limit=0.005)
    state, _ = refereed(quick, [_bot(play=slow), _bot(play=slow)], np.random.default_rng(1))
    assert state.invalid is not None and state.invalid.reason == "Took too long to play"


def test_player_interface_sees_scores_memory_and_opponent_draws():
    seen = []

    def pick(top, scores, memory, opponent_draw, hand):
        seen.append((scores, memory, opponent_draw, len(hand)))
        return "discard", f"{len(seen)}"

    def play(picked, scores, memory, hand):
        assert picked not in hand and memory == f"{len(seen)}"
        return ("drop", hand[0]), memory

    state, _ = refereed(
        RULES,
        [player(pick, play, lambda s, m, h: SOLVER.melds_of(h)), _bot()],
        np.random.default_rng(5),
    )
    assert state.invalid is None
    assert seen[0][1] is None and seen[0][3] == 10
    assert {draw for _, _, draw, _ in seen[1:]} <= {"stock", None}
    totals = [0, 0]
    starts = {(0, 0)}
    for game_round in state.rounds:
        totals = [totals[0] + game_round.points[0], totals[1] + game_round.points[1]]
        starts.add((totals[0], totals[1]))
    assert {scores for scores, *_ in seen} <= starts


# --- scoring -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("act", "caller", "opponent", "points"),
    [
        ("gin", 0, 17, (42, 0)),
        ("knock", 4, 19, (15, 0)),
        ("knock", 8, 5, (0, 13)),  # undercut
        ("knock", 6, 6, (0, 10)),  # a tie is an undercut
        ("drop", 40, 12, (0, 38)),  # stock-out: the last player counts as having knocked
        ("drop", 3, 30, (27, 0)),
    ],
)
def test_round_points(act, caller, opponent, points):
    assert round_points(RULES, act, caller, opponent) == points


def test_stock_out_makes_the_last_player_the_caller():
    state = scripted_state(stock=cards("HA C3 D2"))
    for _ in range(3):
        state.apply_action("stock")
        state.apply_action(Play("drop", state.hands[state.player][-1]))
    # seat 0 drew HA and D2, seat 1 C3; the stock is empty after seat 0's second play.
    assert state.caller == 0 and state.phase.value == "melds"
    for _ in range(2):
        state.apply_action(state.legal_actions()[0])
    (game_round,) = state.rounds
    zero = SOLVER.deadwood_of(state.hands[0])
    one = SOLVER.deadwood_of(state.hands[1])
    assert game_round.ending == "Drop" and game_round.caller == 0
    assert game_round.points == round_points(RULES, "drop", zero, one)


def _take_the_discard(state: State, plays: int) -> None:
    """`plays` plays, each taking the discard and dropping another card."""
    for _ in range(plays):
        state.apply_action("discard")
        hand = state.hands[state.player]
        state.apply_action(Play("drop", next(card for card in hand if card != state.picked)))


def test_a_round_ends_after_201_plays_with_stock_left():
    # The course engine checks "more than 200 plays" before each play: the 201st is the last.
    state = scripted_state()
    _take_the_discard(state, 200)
    assert state.phase.value == "pick" and len(state.stock) == len(STOCK)
    _take_the_discard(state, 1)
    assert state.phase.value == "melds" and state.caller == 0 and len(state.turns) == 201
    for _ in range(2):
        state.apply_action(state.legal_actions()[0])
    (game_round,) = state.rounds
    assert game_round.ending == "Drop" and game_round.caller == 0
    assert game_round.points == round_points(RULES, "drop", *game_round.deadwood)
    # The spec's 200 is a setting.
    short = new_game(GinRummyRules(play_cap=200), np.random.default_rng(0), deals=dealt())
    _take_the_discard(short, 200)
    assert short.phase.value == "melds" and short.caller == 1


def test_play_cap_ends_the_round_as_a_drop():
    state = new_game(GinRummyRules(play_cap=4), np.random.default_rng(0), deals=dealt())
    _take_the_discard(state, 4)
    assert state.phase.value == "melds" and state.caller == 1 and len(state.stock) == len(STOCK)


def _bots_game(rules: GinRummyRules, seed: int) -> State:
    from mine.strategies.bots.ginrummy import make_bot

    rng = np.random.default_rng(seed)
    return refereed(rules, [make_bot("simple", rules, rng), make_bot("random", rules, rng)], rng)[0]


def test_who_plays_first_is_drawn_for_every_round():
    firsts = [
        [game_round.turns[0].seat for game_round in _bots_game(RULES, seed).rounds]
        for seed in range(12)
    ]
    pairs = [(a, b) for seats in firsts for a, b in zip(seats, seats[1:], strict=False)]
    assert RULES.first_player == "random" and len(pairs) >= 12
    # Each seat starts some rounds; a seat starts again after starting (no dealer turns).
    assert {seat for seats in firsts for seat in seats} == {0, 1}
    assert 0 < sum(a == b for a, b in pairs) < len(pairs)
    # So do the course engine's own games: 73 of 139 rounds begin as the one before did.
    mine_first = [[rows[0].mine for rows in rounds_of(list(read_turns(turns))).values()]
                  for turns, _ in real_pairs(STUDENTS)]  # fmt: skip
    logged = [(a, b) for seats in mine_first for a, b in zip(seats, seats[1:], strict=False)]
    assert (sum(a == b for a, b in logged), len(logged)) == (73, 139)


def test_opponent_draw_is_none_at_the_first_play_of_every_round():
    seen = []

    def pick(top, scores, memory, opponent_draw, hand):
        seen.append(opponent_draw)
        return ("discard" if len(seen) % 3 else "stock"), ""

    def play(picked, scores, memory, hand):
        return ("drop", next(card for card in hand if card != picked)), ""

    both = player(pick, play, lambda s, m, hand: SOLVER.melds_of(hand))
    state, _ = refereed(GinRummyRules(game_target=30), [both, both], np.random.default_rng(4))
    assert state.invalid is None and len(state.rounds) > 1
    expected = [
        None if index == 0 else game_round.turns[index - 1].draw
        for game_round in state.rounds
        for index in range(len(game_round.turns))
    ]
    assert seen == expected and expected.count(None) == len(state.rounds)


def test_games_run_to_the_target_with_differing_totals_and_alternate_dealers():
    alternate = GinRummyRules(first_player="alternate")
    for seed in range(3):
        state = _bots_game(alternate, seed)
        assert state.invalid is None
        assert max(state.totals) >= 100 and state.totals[0] != state.totals[1]
        ahead = 0 if state.totals[0] > state.totals[1] else 1
        assert state.returns()[ahead] == 1.0 and state.returns()[1 - ahead] == -1.0
        before = [sum(r.points[s] for r in state.rounds[:-1]) for s in (0, 1)]
        assert max(before) < 100 or before[0] == before[1]
        firsts = [game_round.turns[0].seat for game_round in state.rounds]
        assert all(a != b for a, b in zip(firsts, firsts[1:], strict=False))


def test_rules_from_settings():
    rules = GinRummyRules.from_settings(
        ["knock_limit=5", "first_player=random", "declare_every_card=false"]
    )
    assert (rules.knock_limit, rules.first_player, rules.declare_every_card) == (5, "random", False)
    for bad in (["knock_limit=x"], ["nope=1"], ["first_player=dealer"], ["knock_limit"]):
        with pytest.raises(ValueError):
            GinRummyRules.from_settings(bad)


# --- the real logs -------------------------------------------------------------------------


def _named(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


@pytest.mark.parametrize(("turn_path", "score_path"), PAIRS, ids=_named)
def test_real_logs_hold_the_invariants(turn_path, score_path):
    turns, scores = list(read_turns(turn_path)), list(read_scores(score_path))
    rounds = rounds_of(turns)
    assert sorted(rounds) == [score.round for score in scores]
    for score in scores:
        rows = rounds[score.round]
        for row in rows:
            assert row.hand[0] == row.picked and row.discarded not in row.hand
        for before, after in zip(rows, rows[1:], strict=False):
            assert after.discard_top == before.discarded and after.mine != before.mine
        for mine in (True, False):
            own = [row for row in rows if row.mine == mine]
            for before, after in zip(own, own[1:], strict=False):
                # the server kept the hand's order: the picked card, then the rest as it was
                assert after.hand == (
                    after.picked,
                    *(c for c in before.hand if c != after.discarded),
                )
        assert score.last_mine == rows[-1].mine
        stock_draws = sum(not row.from_discard for row in rows)
        if score.ending == "Drop":  # the stock ran out, or the play cap ended the round
            assert (stock_draws == 31 and not rows[-1].from_discard) or (
                len(rows) == RULES.play_cap and stock_draws < 31
            )
        else:
            assert stock_draws < 31 and len(rows) > RULES.call_ban_plays
            limit = 0 if score.ending == "Gin" else RULES.knock_limit
            assert SOLVER.deadwood_of(rows[-1].hand) <= limit


@pytest.mark.parametrize(("folder", "count", "least"), [(REAL, 112, 86), (STUDENTS, 169, 157)])
def test_real_scores_follow_the_scoring_rules(folder, count, least):
    optimal = explained = total = 0
    for turn_path, score_path in real_pairs(folder):
        rounds = rounds_of(list(read_turns(turn_path)))
        for score in read_scores(score_path):
            rows = rounds[score.round]
            total += 1
            fit = explain(rows, score)
            if fit is None:
                continue
            explained += 1
            mine = next(row for row in reversed(rows) if row.mine).hand
            theirs = next(row for row in reversed(rows) if not row.mine).hand
            optimal += fit == (SOLVER.deadwood_of(mine), SOLVER.deadwood_of(theirs))
    assert total == count
    assert explained == total  # every score row is what some valid pair of declarations gives
    assert optimal == least  # and so many are what the least-deadwood declarations give


def test_the_students_games_ingest_with_the_rules_verified(warehouse):
    _, con = warehouse
    summary = ingest(con, [STUDENTS])
    assert summary.ok and summary.count("new") == 30, summary.errors
    rounds = con.execute(
        "SELECT r.ending, count(*), count(*) FILTER (WHERE t.drawn_from = 'stock') "
        "FROM ginrummy_rounds r JOIN ginrummy_turns t USING (log_id, round) "
        "GROUP BY r.log_id, r.round, r.ending"
    ).fetchall()
    assert len(rounds) == 169
    capped = [(ending, stock) for ending, plays, stock in rounds if plays == 201]
    assert capped == [("Drop", 4), ("Drop", 4)]  # 201 plays, the discard taken all along


@pytest.mark.parametrize(("turn_path", "score_path"), PAIRS, ids=_named)
def test_engine_replays_real_logs_byte_for_byte(turn_path, score_path, tmp_path):
    turns, scores = list(read_turns(turn_path)), list(read_scores(score_path))
    rounds = rounds_of(turns)
    deals, declared, endings = [], ([], []), {}
    for score in scores:
        rows = rounds[score.round]
        deals.append(deal_of(rows))
        endings[score.round] = (score.ending, rows[-1])
        fit = explain(rows, score)
        assert fit is not None
        for seat, mine, deadwood in ((0, True, fit[0]), (1, False, fit[1])):
            hand = next(row for row in reversed(rows) if row.mine == mine).hand
            declared[seat].append(declarations(hand)[deadwood])
    players = [
        course_player(Scripted([row for row in turns if row.mine], declared[0], endings)),
        course_player(Scripted([row for row in turns if not row.mine], declared[1], endings)),
    ]
    state, _ = refereed(RULES, players, np.random.default_rng(0), deals)
    assert state.invalid is None
    mine, theirs = (log_rows(state, 1, seat) for seat in state.players)
    assert mine == (turns, scores)
    assert len(state.rounds) == len(scores)  # the game ended where the server's did
    write_turns(tmp_path / "replay.csv", mine[0])  # as the one simulate writes them
    write_scores(tmp_path / "replay-score.csv", mine[1])
    assert (tmp_path / "replay.csv").read_bytes() == turn_path.read_bytes()
    assert (tmp_path / "replay-score.csv").read_bytes() == score_path.read_bytes()
    assert [t.mine for t in theirs[0]] == [not t.mine for t in turns]
    assert [(s.points, s.opponent_points) for s in theirs[1]] == [
        (s.opponent_points, s.points) for s in scores
    ]

"""TwentyOne engine: hand values and classes, settlement, legality, the round's flow."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mine.parsers.cards import DECK, hand_value, parse_course
from mine.strategies.bots.twentyone import BOTS, make_bot
from mine.strategies.engines import referee
from mine.strategies.engines import twentyone as engine
from mine.strategies.engines.twentyone import (
    BUST,
    CHARLIE,
    CODE,
    COMBO,
    DOUBLE,
    HIT,
    INSURANCE,
    SPLIT,
    STAND,
    Bid,
    DoubleDown,
    Hit,
    IllegalAction,
    Insurance,
    Split,
    Stand,
    State,
    TwentyOneRules,
    action_kind,
    classify,
    course_player,
    new_game,
    settle,
)
from tests.strategies.twentyone_games import play
from tests.strategies.twentyone_replay import course_engine_games, replay

RULES = TwentyOneRules()
cards_st = st.lists(st.integers(0, 51), min_size=1, max_size=8)


def codes(text: str) -> list[int]:
    return [CODE[parse_course(c)] for c in text.split()]


def stacked(rules: TwentyOneRules, ids: list[str], deal: str, seed: int = 0) -> State:
    """A state whose shoe deals `deal` first: the dealer's two cards (up card first), each
    seat's two, then the draws (seat order is whatever the seed makes it)."""
    state = new_game(rules, np.random.default_rng(seed), ids)
    state.shoe.stack(codes(deal))
    return state


def bid_all(state: State, amount: int = 10) -> None:
    while state.is_bidding():
        state.apply_action(Bid(amount))


# --- values, classes, settlement ------------------------------------------------------------


@given(cards_st)
def test_hand_values_match_the_card_module(hand: list[int]) -> None:
    """The engine's incremental value of a hand in play (up to its first bust)."""
    for k in range(1, len(hand) + 1):
        vs = engine.hand_value(hand[:k])
        assert (vs >> 1, bool(vs & 1)) == hand_value([DECK[c] for c in hand[:k]])
        if vs >> 1 > 21:
            break


@given(st.integers(2, 8), st.integers(2, 31), st.booleans(), st.booleans())
def test_classes_follow_the_spec(n: int, total: int, bust_first: bool, split: bool) -> None:
    rules = RULES.replace(charlie_bust_first=bust_first)
    cls = classify(n, total, rules, split=split)
    if n == 2 and total == 21:
        assert cls == COMBO
    elif n >= 5 and (total <= 21 or not bust_first):
        assert cls == CHARLIE
    elif total > 21:
        assert cls == BUST
    else:
        assert cls == total
    assert BUST < 0 <= 21 < CHARLIE < COMBO
    no_charlie = classify(n, total, RULES.replace(charlie=False))
    assert no_charlie in (COMBO, BUST) or no_charlie == total


def test_split_combo_setting() -> None:
    casino = RULES.replace(combo_after_split=False)
    assert classify(2, 21, casino, split=True) == 21
    assert classify(2, 21, casino, split=False) == COMBO


classes = st.sampled_from([BUST, *range(4, 22), CHARLIE, COMBO])


@given(st.integers(1, 1000), classes, classes)
def test_settlement(bid: int, player: int, dealer: int) -> None:
    paid = settle(bid, player, dealer, RULES)
    if player == BUST:
        assert paid == 0
    elif player == COMBO:
        assert paid == (bid if dealer == COMBO else round(2.5 * bid))
    elif player > dealer:
        assert paid == 2 * bid
    elif player == dealer:
        assert paid == bid
    else:
        assert paid == 0


def test_combo_rounds_like_haskell() -> None:
    assert settle(11, COMBO, 20, RULES) == 28  # 27.5 → 28 (to even)
    assert settle(13, COMBO, 20, RULES) == 32  # 32.5 → 32 (to even)


# --- legality ----------------------------------------------------------------------------------


def test_invalid_bids_are_rejected_with_a_reason() -> None:
    state = new_game(RULES, np.random.default_rng(0), ["a", "b"])
    with pytest.raises(IllegalAction, match="outside 10..100"):
        state.apply_action(Bid(101))
    with pytest.raises(IllegalAction, match="outside 10..100"):
        state.apply_action(Bid(9))
    with pytest.raises(IllegalAction, match="first action of a round is Bid"):
        state.apply_action(Hit())
    with pytest.raises(IllegalAction, match="not an action"):
        state.apply_action("Hit")


def test_poor_player_bids_all_it_has() -> None:
    assert RULES.bid_range(7) == (7, 7)
    assert RULES.bid_range(50) == (10, 50)
    assert RULES.bid_range(5000) == (10, 100)


def test_each_invalid_play_has_its_reason() -> None:
    # player: S7 H7 (a pair), dealer up C5; then cards for the play
    state = stacked(RULES, ["a"], "C5 D9 S7 H7 S2 S3 S4 S5 S6 S8")
    bid_all(state)
    with pytest.raises(IllegalAction, match="up card is not an ace"):
        state.apply_action(Insurance(5))
    with pytest.raises(IllegalAction, match="costs exactly 10"):
        state.apply_action(DoubleDown(20))
    with pytest.raises(IllegalAction, match="costs exactly 10"):
        state.apply_action(Split(5))
    with pytest.raises(IllegalAction, match="Bid after the bidding"):
        state.apply_action(Bid(10))
    state.apply_action(Hit())
    with pytest.raises(IllegalAction, match="DoubleDown on a 3-card hand"):
        state.apply_action(DoubleDown(10))
    with pytest.raises(IllegalAction, match="Split without two cards of the same rank"):
        state.apply_action(Split(10))


def test_split_needs_the_same_rank_not_value() -> None:
    state = stacked(RULES, ["a"], "C5 D9 SJ HK")
    bid_all(state)
    assert state.why_illegal(SPLIT, 10) == "Split without two cards of the same rank"
    assert state.why_illegal(STAND, 0) is None


def test_doubledown_then_exactly_one_hit_and_a_stand() -> None:
    state = stacked(RULES, ["a"], "C5 D9 S5 H6 S2 S10")
    bid_all(state)
    state.apply_action(DoubleDown(10))
    assert state.points[0] == 10000 - 20
    assert state.why_illegal(STAND, 0) == "Stand after DoubleDown: must Hit"
    state.apply_action(Hit())
    assert state.why_illegal(HIT, 0) == "Hit after DoubleDown: must Stand"
    state.apply_action(Stand())
    assert state.is_terminal() or state.round == 2


def test_doubledown_on_a_combo_ends_at_once_and_pays_as_combo() -> None:
    state = stacked(RULES.replace(rounds=1), ["a"], "C5 D9 SA HK S3")
    bid_all(state)
    assert state.why_illegal(HIT, 0) is None  # the course engine lets a two-card 21 draw
    state.apply_action(DoubleDown(10))
    assert state.is_terminal()
    assert state.points[0] == 10000 - 20 + 50  # Combo on the doubled bid: 2.5 × 20


def test_a_hit_on_a_combo_draws_and_is_settled_as_what_it_becomes() -> None:
    """The course engine asks every hand, a two-card 21 too, and a Hit on it is legal (a
    real log holds one on a split hand of an ace and a ten): the hand draws and is then
    a three-card hand, here 18 against the dealer's 19."""
    state = stacked(RULES.replace(rounds=1), ["a"], "C10 D9 SA HK S7")
    bid_all(state)
    assert HIT in [action_kind(a)[0] for a in state.legal_actions()]
    state.apply_action(Hit())
    assert len(state.current_hand().cards) == 3 and state.situation()[1] == 18
    state.apply_action(Stand())
    assert state.is_terminal() and state.points[0] == 10000 - 10  # 18 loses to 19


def test_a_split_hand_of_an_ace_and_a_ten_may_hit() -> None:
    state = stacked(RULES.replace(rounds=1), ["a"], "C10 D9 SA HA CK D5 H2")
    bid_all(state)
    state.apply_action(Split(10))
    assert [DECK[c].rank for c in state.current_hand().cards] == [1, 13]  # A + K: a Combo
    state.apply_action(Hit())  # the Combo draws: A, K, 2 = 13
    state.apply_action(Stand())
    state.apply_action(Stand())  # the second hand: A + 5 = 16
    assert state.is_terminal()
    assert state.points[0] == 10000 - 20  # 13 and 16 both lose to 19


def test_insurance_only_first_and_costs_half_the_bid() -> None:
    rules = RULES.replace(rounds=1)
    state = stacked(rules, ["a"], "CA DK S10 H9")  # dealer: A (up) + K = Combo
    bid_all(state, 21)
    state.apply_action(Insurance(10))
    assert state.points[0] == 10000 - 21 - 10
    assert state.why_illegal(INSURANCE, 10) == "Insurance after the first action of the hand"
    state.apply_action(Stand())
    assert state.points[0] == 10000 - 21 - 10 + 42  # loses 19 v Combo, insurance 2 × bid
    side = stacked(rules.replace(insurance_on_side_bet=True), ["a"], "CA DK S10 H9")
    bid_all(side, 21)
    side.apply_action(Insurance(10))
    side.apply_action(Stand())
    assert side.points[0] == 10000 - 21 - 10 + 20  # the handout's reading: 2 × side bet


def test_insurance_is_lost_when_the_dealer_does_not_play() -> None:
    state = stacked(RULES.replace(rounds=1), ["a"], "CA DK S10 H6 SK")
    bid_all(state, 20)
    state.apply_action(Insurance(10))
    state.apply_action(Hit())  # 26: bust, every hand bust, the dealer does not play
    assert state.is_terminal()
    assert state.points[0] == 10000 - 30
    rows = state.records[0].rows
    assert rows[-1] == ((codes("CA")[0],), -1, 0, STAND, 0)  # only the up card


def test_the_next_bid_gets_the_memory_the_first_hand_ended_with() -> None:
    """As the course engine keeps it: what a player returns while playing split hands
    reaches its later split hands, but its next bid gets the first hand's last memory."""
    seen: list[str | None] = []

    def splitter(upcard, points, infos, player_id, memory, hand):
        seen.append(memory)
        if upcard is None:
            action = Bid(10)
        else:
            action = Split(10) if len(hand) == 2 and hand[0].rank == hand[1].rank else Stand()
        return action, str(len(seen))

    # S8 H8 split: the first hand S8 D2, the second H8 C3 (no pairs left to split)
    state = stacked(RULES.replace(rounds=2), ["a"], "C7 D10 S8 H8 D2 C3")
    referee.play(state, [course_player(splitter)], referee.seat_out)
    assert state.disqualified == [None]
    # bid, Split, Stand (first hand), Stand (split hand), then round 2's bid and play
    assert seen[:6] == [None, "1", "2", "3", "3", "5"]


def test_split_resplit_and_hand_ids() -> None:
    # S8 H8 split: hand 0 = S8 D8, the new hand H8 C2; hand 0 splits again: S8 S3, and its
    # new hand D8 H4 is played next, before H8 C2 (depth first, as the course engine plays)
    deal = "C7 D10 S8 H8 D8 C2 S3 H4 S10 S9"
    state = stacked(RULES.replace(rounds=1), ["a"], deal)
    bid_all(state)
    state.apply_action(Split(10))
    assert [h.cards for h in state._hands[state._seat]] == [codes("S8 D8"), codes("H8 C2")]
    state.apply_action(Split(10))
    hands = state._hands[state._seat]
    assert [h.cards for h in hands] == [codes("S8 S3"), codes("D8 H4"), codes("H8 C2")]
    assert [h.hand_id for h in hands] == [0, 1, 2]
    assert state.points[0] == 10000 - 30
    state.apply_action(Stand())  # hand 0: S8 S3
    state.apply_action(Hit())  # hand 1: D8 H4 + S10 = 22, bust: the hand ends
    state.apply_action(Stand())  # hand 2: H8 C2
    ids = [(row[2], row[3]) for row in state.records[0].rows if row[1] >= 0]
    assert ids[1:] == [(0, SPLIT), (0, SPLIT), (0, STAND), (1, HIT), (2, STAND)]


def test_hit_puts_the_card_in_front_and_no_row_after_a_bust() -> None:
    state = stacked(RULES.replace(rounds=1), ["a"], "C7 D10 S10 H6 SK")
    bid_all(state)
    state.apply_action(Hit())
    rows = state.records[0].rows
    assert rows[1] == (tuple(codes("SK S10 H6")), 0, 0, HIT, 10)
    assert rows[2] == ((codes("C7")[0],), -1, 0, STAND, 0)
    assert len(rows) == 3


def test_charlie_ends_the_hand_and_beats_the_dealer() -> None:
    state = stacked(RULES.replace(rounds=1), ["a"], "C10 DQ S2 H3 S2 H2 D4")
    bid_all(state)
    for _ in range(3):
        state.apply_action(Hit())
    assert state.is_terminal()  # 5 cards, 13: Charlie, no Stand row
    assert state.points[0] == 10000 + 10  # Charlie beats the dealer's 20


def test_dealer_hits_soft_17_only_when_told() -> None:
    deal = "CA D6 S10 H9 S2"  # dealer A + 6 = soft 17
    stands = stacked(RULES.replace(rounds=1), ["a"], deal)
    bid_all(stands)
    stands.apply_action(Stand())
    hits = stacked(RULES.replace(rounds=1, dealer_hits_soft_17=True), ["a"], deal)
    bid_all(hits)
    hits.apply_action(Stand())
    assert len(stands.records[0].rows[-1][0]) == 2
    assert len(hits.records[0].rows[-1][0]) == 3


def test_the_dealer_has_no_card_limit_and_only_five_cards_are_its_charlie() -> None:
    # dealer 2 + 2, then 2 3 2 (11 at five cards: not 17 yet, it hits on) and 7: 18 with
    # six cards, a plain 18 that the player's 20 beats
    deal = "C2 D2 S10 HK H2 S3 D2 C7"
    state = stacked(RULES.replace(rounds=1), ["a"], deal)
    bid_all(state)
    state.apply_action(Stand())
    dealer = state.records[0].rows[-1][0]
    assert len(dealer) == 6 and hand_value([DECK[c] for c in dealer]) == (18, False)
    assert state.points[0] == 10000 + 10
    # the earlier engine stopped its dealer at five cards, a Charlie that beats the 20
    limited = stacked(RULES.replace(rounds=1, dealer_card_limit=5), ["a"], deal)
    bid_all(limited)
    limited.apply_action(Stand())
    assert len(limited.records[0].rows[-1][0]) == 5
    assert limited.points[0] == 10000 - 10


def test_a_five_card_dealer_hand_is_charlie() -> None:
    state = stacked(RULES.replace(rounds=1), ["a"], "C2 D3 S10 HK H2 S3 D10")  # 2 3 2 3 10
    bid_all(state)
    state.apply_action(Stand())
    assert len(state.records[0].rows[-1][0]) == 5
    assert state.points[0] == 10000 - 10  # the dealer's Charlie beats a 20


@given(st.integers(2, 12), st.integers(2, 31), st.booleans())
def test_the_dealer_is_classed_like_a_player_but_for_its_card_count(n, total, bust_first):
    rules = RULES.replace(charlie_bust_first=bust_first)
    dealer = classify(n, total, rules, dealer=True)
    if n == rules.charlie_cards:
        assert dealer == classify(n, total, rules)
    elif n == 2 and total == 21:
        assert dealer == COMBO
    else:
        assert dealer == (BUST if total > 21 else total)


def test_insurance_pays_on_a_bust_hand_when_the_dealer_plays() -> None:
    # a and b each bid 20; the dealer shows an ace over a king (Combo). a insures and busts,
    # b stands: the dealer plays, so a's insurance pays 2 × 20 although its hand is bust.
    for needs_live, paid in ((False, 40), (True, 0)):
        rules = RULES.replace(rounds=1, insurance_needs_live_hand=needs_live)
        state = stacked(rules, ["a", "b"], "CA DK S10 H6 S9 H9 SK")
        bid_all(state, 20)
        first = state.current_player()
        state.apply_action(Insurance(10))
        state.apply_action(Hit())  # 26: bust
        state.apply_action(Stand())  # the other player's 18
        assert state.is_terminal()
        assert state.points[first] == 10000 - 20 - 10 + paid


def test_the_shoe_reshuffles_mid_round() -> None:
    state = new_game(RULES.replace(decks=1, rounds=40), np.random.default_rng(1), ["a", "b"])
    seen = 0
    while not state.is_terminal():
        if state.is_bidding():
            state.apply_action(Bid(10))
        else:
            state.apply_action(Stand())
        seen += 1
    assert state.shoe.shuffles >= 2
    dealt = [c for r in state.records for row in r.rows for c in row[0] if row[1] == -1]
    assert dealt


# --- players, disqualification, standings ------------------------------------------------------


def _game(rules: TwentyOneRules, players: dict, seed: int = 0) -> State:
    return play(rules, players, np.random.default_rng(seed))


def always(action):
    def play(upcard, points, infos, player_id, memory, hand):
        if upcard is None:
            return Bid(10), ""
        return action, ""

    return play


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        (Insurance(5), "Insurance"),
        (Split(10), "Split"),
        (DoubleDown(99), "DoubleDown"),
        ("Stand", "not an action"),
    ],
)
def test_invalid_actions_disqualify_with_a_reason(action, reason) -> None:
    state = _game(RULES.replace(rounds=30), {"bad": always(action), "ok": always(Stand())})
    seat = state.players.index("bad")
    assert reason in state.disqualified[seat]
    assert state.disqualified[state.players.index("ok")] is None
    assert state.standings()[-1] == "bad"


def test_slow_crashing_and_wordy_players_are_disqualified() -> None:
    def slow(upcard, points, infos, player_id, memory, hand):
        started = time.process_time()  # the limit counts CPU time: spend it
        while time.process_time() - started < 0.02:
            pass
        return Bid(10), ""

    def crash(*args):
        raise RuntimeError("boom")

    def wordy(upcard, points, infos, player_id, memory, hand):
        return (Bid(10) if upcard is None else Stand()), "x" * 10001

    rules = RULES.replace(rounds=3, decision_seconds=0.01)
    state = _game(rules, {"slow": slow, "crash": crash, "wordy": wordy, "ok": always(Stand())})
    why = dict(zip(state.players, state.disqualified, strict=True))
    assert "limit 0.01 s" in why["slow"]
    assert why["crash"] == "raised RuntimeError: boom"
    assert "memory of 10001 characters" in why["wordy"]
    assert why["ok"] is None


def test_player_sees_what_the_spec_promises() -> None:
    seen = []

    def spy(upcard, points, infos, player_id, memory, hand):
        seen.append((upcard, points, infos, player_id, memory, hand))
        return (Bid(10), "m") if upcard is None else (Stand(), "m")

    _game(RULES.replace(rounds=2), {"me": spy, "other": always(Stand())})
    upcard, points, infos, player_id, memory, hand = seen[0]
    assert upcard is None and hand == () and memory is None and player_id == "1"  # the first
    assert {p.player_id for p in points} == {"1", "2"}  # numbered as the server numbers them
    upcard, _, _, _, memory, hand = seen[1]
    assert upcard is not None and len(hand) == 2 and memory == "m"
    last_infos = seen[-1][2]
    assert last_infos and last_infos[-1].player_id == "dealer"


def test_points_name_only_the_players_of_the_round_as_the_course_engine_does() -> None:
    """The course engine deals only to players with points, and `points` holds only them."""
    seen = []

    def spy(upcard, points, infos, player_id, memory, hand):
        seen.append({p.player_id for p in points})
        return (Bid(10), "") if upcard is None else (Stand(), "")

    def reckless(upcard, points, infos, player_id, memory, hand):
        return (Bid(10), "") if upcard is None else (Hit(), "")

    state = _game(RULES.replace(rounds=30, starting_points=20), {"me": spy, "gone": reckless})
    out = state.bankrupt_round[state.players.index("gone")]
    assert out is not None and out < 30, "the reckless player never went bankrupt"
    assert seen[0] == {"1", "2"} and seen[-1] == {"1"}  # me: 1, gone: 2


def test_a_swapped_game_exchanges_the_first_two_at_the_same_table() -> None:
    """The second game of a tournament's deal: the same seat draw and the same shoe, the
    first two players in each other's seats, under each other's ids."""
    names = ["A", "B", "c", "d"]
    plain = new_game(RULES, np.random.default_rng(7), names)
    swapped = new_game(RULES, np.random.default_rng(7), names, swapped=True)
    exchange = {"A": "B", "B": "A", "c": "c", "d": "d"}
    assert swapped.players == tuple(exchange[p] for p in plain.players)
    assert swapped.ids == plain.ids and sorted(plain.ids) == ["1", "2", "3", "4"]
    assert [swapped.shoe.draw() for _ in range(60)] == [plain.shoe.draw() for _ in range(60)]
    logged = new_game(RULES, np.random.default_rng(7), ["9", "4"], seated=True)
    assert logged.players == logged.ids == ("9", "4")  # a logged game: its seats and ids


def test_a_disqualified_player_loses_its_game_whatever_its_points() -> None:
    state = _game(RULES.replace(rounds=5), {"bad": always("Stand"), "ok": always(Stand())})
    returns = dict(zip(state.players, state.returns(), strict=True))
    assert state.points[state.players.index("bad")] == 10000 - 10  # frozen, its bid lost
    assert returns["bad"] == -10000 and returns["ok"] > -10000


def test_standings_rank_bankrupt_players_by_when() -> None:
    state = new_game(RULES, np.random.default_rng(0), ["a", "b", "c", "d"])
    points = {"a": 0, "b": 50, "c": 0, "d": 10}
    bankrupt = {"a": 5, "c": 9}
    state.points = [points[i] for i in state.players]
    state.bankrupt_round = [bankrupt.get(i) for i in state.players]
    assert state.standings() == ["b", "d", "c", "a"]


def as_course_player(bot, table: list):
    """The bot's decisions asked through the spec's interface (it reads the live state)."""

    def play(upcard, points, infos, player_id, memory, hand):
        return bot(table[0]), ""

    return course_player(play)


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10_000))
def test_bots_and_course_players_are_refereed_alike(seed: int) -> None:
    """The same decisions through a bot seat and through the course adapter (its action
    read by name, its memory kept, each call timed) make the same game."""
    rules = RULES.replace(rounds=40)
    names = list(BOTS)

    def bots():
        rngs = np.random.default_rng(seed).spawn(len(names))
        return {n: make_bot(n, rules, r) for n, r in zip(names, rngs, strict=True)}

    fast = play(rules, bots(), np.random.default_rng(seed + 1))
    spec = new_game(rules, np.random.default_rng(seed + 1), names)
    seated = bots()
    seen = referee.refereed(engine, rules, spec, [as_course_player(seated[p], [spec])
                                                  for p in spec.players])  # fmt: skip
    assert fast.records == spec.records and len(seen.times[0]) > 40
    assert fast.disqualified == spec.disqualified == [None] * len(names)


def test_points_are_conserved_by_the_rules() -> None:
    """Whatever random players do, points never go negative and bankrupt players stop."""
    rules = RULES.replace(rounds=300, starting_points=3000)
    rngs = np.random.default_rng(3).spawn(4)
    state = play(
        rules,
        {str(i): make_bot("random", rules, r) for i, r in enumerate(rngs)},
        np.random.default_rng(4),
    )
    assert all(p >= 0 for p in state.points)
    for record in state.records:
        assert all(p >= 0 for p in record.points)
    assert all(d is None for d in state.disqualified)
    kinds = {row[3] for r in state.records for row in r.rows}
    assert {HIT, STAND, DOUBLE, SPLIT, INSURANCE} <= kinds


@pytest.mark.parametrize("stem", course_engine_games(), ids=lambda stem: stem.name)
def test_the_engine_replays_every_course_engine_log(stem) -> None:
    """Each logged game, its shoe stacked and its players' actions played: every action is
    legal here, the engine writes the logged rows (a split's hands in the order the
    course engine plays them), and every round settles to the score file's points."""
    state = replay(stem)
    assert state.round == len(state.records) >= 100

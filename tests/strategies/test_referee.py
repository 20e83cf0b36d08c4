"""The referee: every call of a player checked in the documented order, each fault worded
as the game asks and charged by the game's forfeit policy; bots play untimed. The time
limit counts a call's CPU time, so these tests burn CPU rather than wait: a loaded machine
makes them slower, never different."""

from __future__ import annotations

import time

import numpy as np
import pytest

from mine.strategies.engines import referee
from mine.strategies.engines.twentyone import (
    Bid,
    Stand,
    TwentyOneRules,
    course_player,
    new_game,
)
from tests.strategies.twentyone_games import play

RULES = TwentyOneRules(rounds=3)


def player(answer):
    """A spec player answering `answer(upcard)` on every call."""

    def play(upcard, points, infos, player_id, memory, hand):
        return answer(upcard)

    return play


def fine(upcard):
    return (Bid(10) if upcard is None else Stand()), "m"


def crash(upcard):
    raise KeyError("boom")


def burning(seconds: float, then=fine):
    """An answer that first spends `seconds` of CPU time."""

    def answer(upcard):
        started = time.process_time()
        while time.process_time() - started < seconds:
            pass
        return then(upcard)

    return answer


def referee_game(answer, seconds=RULES.decision_seconds, words=referee.WORDS,
                 forfeit=referee.seat_out, wall_factor=referee.Limits.wall_factor):  # fmt: skip
    """A game of `answer`'s player beside a fine one; the state and the first one's fault."""
    state = new_game(RULES, np.random.default_rng(0), ["a", "b"])
    seats = {"a": course_player(player(answer)), "b": course_player(player(fine))}
    seen = referee.play(state, [seats[i] for i in state.players], forfeit,
                        referee.Limits(seconds, 20, wall_factor), words)  # fmt: skip
    fault = state.disqualified[state.players.index("a")]
    assert seen.faults[state.players.index("a")] == fault
    return state, fault


@pytest.mark.parametrize(
    ("answer", "fault"),
    [
        (crash, "raised KeyError: 'boom'"),
        (lambda up: "Stand", "returned 'Stand', not (action, memory)"),
        (lambda up: (Stand(), 7), "memory is int, not a string"),
        (lambda up: (Stand(), "x" * 21), "memory of 21 characters (limit 20)"),
        (lambda up: (Stand(), ""), "Stand while bidding: the first action of a round is Bid"),
        (lambda up: (Bid(10**6), ""), "Bid 1000000 outside 10..100 (points 10000)"),
    ],
)
def test_each_fault_is_named_and_costs_the_seat_only(answer, fault):
    state, reason = referee_game(answer)
    assert reason == fault
    assert state.disqualified[state.players.index("b")] is None
    assert state.is_terminal() and state.round == RULES.rounds  # the others played on


def test_time_is_checked_after_a_crash_and_before_everything_else():
    def slow_crash(upcard):
        burning(0.05, crash)(upcard)

    assert referee_game(slow_crash, 0.01)[1] == "raised KeyError: 'boom'"
    for then in (lambda up: "Stand", lambda up: (Bid(10**6), 7), fine):
        reason = referee_game(burning(0.05, then), 0.01)[1]
        assert reason.startswith("took ") and reason.endswith(" s (limit 0.01 s)")


def test_the_limit_counts_cpu_time_and_wall_time_only_far_beyond_it():
    def sleeping(upcard):
        time.sleep(0.05)  # five times the limit, but no CPU
        return fine(upcard)

    # Its wall time ends it at 1,000 times the limit (10 s), not 10 (0.1 s: a loaded
    # machine woke a 0.05 s sleeper that late, and faulted a call that spent no CPU).
    assert referee_game(sleeping, 0.01, wall_factor=1000)[1] is None
    limits = referee.Limits(0.001, wall_factor=10)  # ends at 0.01 s of wall time
    state = new_game(RULES, np.random.default_rng(0), ["a"])
    seen = referee.play(state, [course_player(player(sleeping))], referee.seat_out, limits)
    assert seen.faults[0].startswith("took ")


def test_the_game_words_its_faults_and_chooses_what_they_cost():
    words = referee.Words(raised="player raised {kind}", slow="Took too long to play")
    charged = []

    def note_and_leave(state, seat, reason):
        charged.append((state.players[seat], reason))
        referee.seat_out(state, seat, reason)

    _, reason = referee_game(crash, words=words, forfeit=note_and_leave)
    assert reason == "player raised KeyError" and charged == [("a", reason)]
    _, reason = referee_game(burning(0.05), 0.01, words, note_and_leave)
    assert reason == "Took too long to play"


def test_bots_are_not_timed_and_keep_no_memory():
    from mine.strategies.bots.twentyone import make_bot

    rules = RULES.replace(decision_seconds=1e-9)  # no call returns in less
    bots = {"t": make_bot("textbook", rules), "d": make_bot("dealer", rules)}
    state = play(rules, bots, np.random.default_rng(1))
    assert state.disqualified == [None, None] and state.round == rules.rounds
    spec = {"t": player(burning(0.001)), "d": make_bot("dealer", rules)}
    state = play(rules, spec, np.random.default_rng(1))
    assert state.disqualified[state.players.index("t")].startswith("took ")
    assert state.disqualified[state.players.index("d")] is None


def test_a_bots_illegal_action_is_its_fault():
    def bids_too_much(state):
        return Bid(10**6)

    state = new_game(RULES, np.random.default_rng(0), ["a", "b"])
    seats = {"a": bids_too_much, "b": course_player(player(fine))}
    seen = referee.play(state, [seats[i] for i in state.players], referee.seat_out)
    assert seen.faults[state.players.index("a")] == "Bid 1000000 outside 10..100 (points 10000)"
    assert seen.faults[state.players.index("b")] is None and state.is_terminal()


def test_memories_come_back_to_the_player_that_wrote_them():
    seen = []

    def counting(upcard, points, infos, player_id, memory, hand):
        seen.append(memory)
        return (Bid(10) if upcard is None else Stand()), str(len(seen))

    state = new_game(RULES, np.random.default_rng(0), ["me"])
    last = referee.play(state, [course_player(counting)], referee.seat_out)
    assert seen[0] is None and seen[1:] == [str(k) for k in range(1, len(seen))]
    assert last.memories == [str(len(seen))] and len(last.times[0]) == len(seen)


def test_a_call_that_returns_no_memory_leaves_the_seats_as_it_was():
    """Gin Rummy's `melds` returns no memory: the seat keeps its own, None before its first."""
    inner, seen = course_player(player(fine)), []

    def keeping(state, seat, memory):
        function, arguments, read = inner.ask(state, seat, memory)
        seen.append(memory)
        return function, arguments, lambda result: (read(result)[0], referee.KEEP)

    state = new_game(RULES, np.random.default_rng(0), ["a", "b"])
    seats = {"a": referee.Course(keeping), "b": course_player(player(fine))}
    limits = referee.Limits(RULES.decision_seconds, 20)
    memories = referee.play(
        state, [seats[i] for i in state.players], referee.seat_out, limits
    ).memories
    assert state.is_terminal() and state.disqualified == [None, None]
    assert len(seen) > RULES.rounds and set(seen) == {None}
    assert memories[state.players.index("a")] is None and memories[state.players.index("b")] == "m"

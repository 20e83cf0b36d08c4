"""Gin Rummy baseline bots: each is `bot(state) -> action`, one of the state's legal actions,
and declares the least-deadwood melds (the state's one offer).

- `simple`: the EAAI Gin Rummy challenge's simple player, adapted to the course rules:
  take the discard only if it completes or extends a meld, else the stock; discard one of
  the cards whose removal leaves the least deadwood (ties broken with the seeded generator);
  knock as soon as allowed, gin when possible.
- `random`: uniformly random legal draws and plays.
- `ginhunter`: `simple`, but never knocks — it only calls Gin.
- `student`: plays as the strongest students of the 2020 course do (their logs and code):
  it keeps the fewest unmatched cards rather than the least deadwood, so it aims at gin;
  takes the discard when that leaves fewer unmatched cards, a card starting a meld with
  another (one of its rank or a suit neighbour) not counted unmatched; among the discards
  keeping the fewest, throws one the opponent has passed on (one of its rank or a suit
  neighbour discarded or left on the pile by the opponent this round), then the one
  leaving the least deadwood; knocks only at deadwood ≤ `STUDENT_KNOCK` (9), gin when
  possible.
- `never-knock`: `student`, but never knocks — it only calls Gin, so a player that knocks
  against it meets its low deadwood (it tests undercuts).
- `explorer:<policy>:<share>`: the policy, with a `share` of its draws and plays replaced
  by random legal ones (to explore situations the policy alone never reaches).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mine.strategies.engines.ginrummy import GinRummyRules, Phase, Play, State
from mine.strategies.engines.melds import BIT_CARDS, CARD_BITS, MeldSolver, hand_mask
from mine.strategies.players.ginrummy import bits, relation

Bot = Callable[[State], object]


def _playing(pick: Callable, play: Callable) -> Bot:
    """A bot of its draw `pick(state, hand, solver, top)` and its play `play(state, hand,
    solver, drawn)` (masks), declaring the least-deadwood melds."""

    def bot(state: State) -> object:
        if state.phase is Phase.MELDS:
            return state.legal_actions()[0]
        hand, solver = hand_mask(state.hands[state.player]), state.solver
        if state.phase is Phase.PICK:
            return pick(state, hand, solver, CARD_BITS[state.discard[-1]])
        return play(state, hand, solver, CARD_BITS[state.picked])

    return bot


def _call(state: State, deadwood: int, knock_at: int) -> str:
    """Gin when possible, a knock at deadwood ≤ `knock_at`, where a call is allowed."""
    if state.may_call() and deadwood == 0:
        return "gin"
    return "knock" if state.may_call() and 0 < deadwood <= knock_at else "drop"


def _drawn(rng: np.random.Generator, bits: list[int]) -> int:
    """One of tied discards, drawn with the seeded generator."""
    return bits[int(rng.integers(len(bits)))] if len(bits) > 1 else bits[0]


def simple(rng: np.random.Generator, knocks: bool = True) -> Bot:
    def pick(state: State, hand: int, solver: MeldSolver, top: int) -> str:
        return "discard" if solver.meldable(hand | top) & top else "stock"

    def play(state: State, hand: int, solver: MeldSolver, drawn: int) -> Play:
        deadwood, bits = solver.best_discards(hand | drawn, drawn)
        bit = _drawn(rng, bits)
        return Play(_call(state, deadwood, state.rules.knock_limit if knocks else -1),
                    BIT_CARDS[bit])  # fmt: skip

    return _playing(pick, play)


STUDENT_KNOCK = 9  # the strongest students' highest knock (mean 6.0 in their logs)


def unmatched(solver: MeldSolver, hand: int, starts: bool = False) -> int:
    """How many cards of `hand` (a mask) a least-deadwood arrangement leaves out of melds;
    with `starts`, not counting those that start a meld with another card left out (one of
    its rank, or its suit neighbour)."""
    melded = 0
    for meld in solver.arrangement(hand):
        melded |= meld
    loose = hand & ~melded
    if not starts:
        return loose.bit_count()
    return sum(not _starts_meld(card.bit_length() - 1, loose) for card in bits(loose))


def _starts_meld(index: int, cards: int) -> bool:
    rank, suit = index % 13, index // 13
    if any(cards >> (13 * other + rank) & 1 for other in range(4) if other != suit):
        return True
    return any(0 <= rank + step < 13 and cards >> (13 * suit + rank + step) & 1 for step in (-1, 1))


def passed_on(state: State) -> tuple[int, int]:
    """(taken, shunned): the cards the opponent of the player to move took from the pile
    this round, and those it discarded or left on top of it."""
    took = shunned = 0
    for turn in state.turns:
        if turn.seat == state.player:
            continue
        top = CARD_BITS[turn.discard_top]
        if turn.draw == "discard":
            took |= top
        else:
            shunned |= top
        took &= ~CARD_BITS[turn.discarded]
        shunned |= CARD_BITS[turn.discarded]
    return took, shunned


def student(rng: np.random.Generator, knocks: bool = True) -> Bot:
    def pick(state: State, hand: int, solver: MeldSolver, top: int) -> str:
        # A discard that starts a meld is taken too: the students' logs take the discard in
        # 52 % of draws (a meld alone: 15 %), knocking at a mean deadwood 6.5 all the same.
        kept = min(unmatched(solver, (hand | top) ^ bit, starts=True) for bit in bits(hand))
        return "discard" if kept < unmatched(solver, hand, starts=True) else "stock"

    def play(state: State, hand: int, solver: MeldSolver, drawn: int) -> Play:
        took, shunned = passed_on(state)

        def key(bit: int) -> tuple[int, int, int]:
            left = (hand | drawn) ^ bit
            passed = relation(bit.bit_length() - 1, took, shunned)[1]
            return unmatched(solver, left), solver.deadwood(left), -passed

        keys = {bit: key(bit) for bit in bits(hand)}
        best = min(keys.values())
        bit = _drawn(rng, [bit for bit, value in keys.items() if value == best])
        knock_at = min(STUDENT_KNOCK, state.rules.knock_limit) if knocks else -1
        return Play(_call(state, best[1], knock_at), BIT_CARDS[bit])

    return _playing(pick, play)


def never_knock(rng: np.random.Generator) -> Bot:
    return student(rng, knocks=False)


def random(rng: np.random.Generator) -> Bot:
    def bot(state: State) -> object:
        actions = state.legal_actions()
        return actions[int(rng.integers(len(actions)))] if len(actions) > 1 else actions[0]

    return bot


def ginhunter(rng: np.random.Generator) -> Bot:
    return simple(rng, knocks=False)


def explorer(rng: np.random.Generator, policy: str = "simple", share: float = 0.1) -> Bot:
    chosen, chance = BOTS[policy](rng), random(rng)

    def bot(state: State) -> object:
        action = chosen(state)  # asked every time: a policy's generator draws as it plays
        if state.phase is not Phase.MELDS and rng.random() < share:
            return chance(state)
        return action

    return bot


BOTS: dict[str, Callable[[np.random.Generator], Bot]] = {
    "simple": simple,
    "random": random,
    "ginhunter": ginhunter,
    "explorer": explorer,
    "student": student,
    "never-knock": never_knock,
}
BASELINES = ("simple", "random", "ginhunter")  # what a generated player is measured against


def make_bot(spec: str, rules: GinRummyRules, rng: np.random.Generator) -> Bot:
    """A bot from its name, or `explorer:<share>` / `explorer:<policy>:<share>`; ValueError
    for a name that is none. The rules are the state's: a bot reads them there."""
    name, *options = spec.split(":")
    if name == "explorer" and options:
        policy = options[0] if len(options) == 2 else "simple"
        if policy not in BOTS or policy == "explorer":
            raise ValueError(
                f"unknown explorer policy {policy!r} "
                f"(known: {', '.join(name for name in BOTS if name != 'explorer')})"
            )
        try:
            share = float(options[-1])
        except ValueError:
            raise ValueError(f"explorer share must be a number, not {options[-1]!r}") from None
        if not 0 <= share <= 1:
            raise ValueError(f"explorer share must be between 0 and 1, not {share}")
        return explorer(rng, policy, share)
    if name not in BOTS or options:
        raise ValueError(
            f"unknown bot {spec!r} (known: {', '.join(BOTS)}, explorer:<policy>:<share>)"
        )
    return BOTS[name](rng)

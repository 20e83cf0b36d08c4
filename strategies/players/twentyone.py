"""The generated TwentyOne player: its code, as every file `mine generate twentyone` writes.

A generated file is this module with its docstring replaced by the file's provenance and
each constant from `DECKS` to `BY_COUNT` by the fitted table's (the defaults here: three
decks, bids 10..100, hit below 12 and stand from 12, flat minimum bids, no count play);
the rest is this code, as it stands. It needs only the standard library, is
deterministic, and follows the spec's interface `play(upcard, points, infos, player_id,
memory, hand) -> (action, memory)`.

Its tables: the action chart (one string of S/H/D per context, up card, soft flag and card
count, indexed by total), the splits (and re-splits), the insurance cells, the bid for
each true count, and `BY_COUNT`: the cells whose action changes with the true count, each
a string with one action per rounded true count. Its memory string (parsed back strictly,
a fresh memory if it does not parse) holds the shoe's count before the round, which sets
both its bid and its play, and where it is in the round (insured, split, owing a Hit or a
Stand after a DoubleDown).

Every decision is one pure function, `action_for(context, up, total, soft, n, pair, tc,
first, …)`; `play` only reads the situation off its arguments and memory. The validation
harness tabulates that same function, so it measures a file as it ships.
"""

import re
from dataclasses import dataclass, replace

DECKS = 3
MIN_BID = 10
MAX_BID = 100
TC_LIMIT = 10
CAN_INSURE = True
DOUBLE_ON_21 = True
DOUBLE_AFTER_SPLIT = True
SHOE = 52 * DECKS
HI_LO = (0, -1, 1, 1, 1, 1, 1, 0, 0, 0, -1, -1, -1, -1)  # by rank 1..13
TENS = 16 * DECKS  # ten-valued cards in a full shoe
MEMORY_CHARS = 10000
# At a table of FULL_TABLE players dealt in or more, the dealer plays unless every hand
# busts (a few in a hundred ace rounds at three seats, almost never at ten): insurance is
# then worth taking when the hole card is ten-valued with a chance above INSURE_ABOVE
# (numerator, denominator), the shoe's unseen cards telling that chance, and an insured
# hand plays as a main hand (its insurance no longer hangs on its own bust). Alone, or with
# one other, the chart's insurance cells, valued for a player alone, decide.
FULL_TABLE = 3
INSURE_ABOVE = (1, 4)

# HAND[context][up][soft][cards - 2 (5 or more: 3)][total]: S stand, H hit, D double.
# Contexts: 0 main hand, 1 insured main hand, 2 split hand; up card 1 (ace) .. 10.
HAND = (((("H" * 12 + "S" * 20,) * 4,) * 2,) * 11,) * 3

# SPLIT[context][up][pair value]: P split (context 2: split a split hand again).
SPLIT = (("-" * 11,) * 11,) * 3

# INSURE[2 * soft + pair][total]: 1 take insurance.
INSURE = ("0" * 32,) * 4

# BIDS[true count + TC_LIMIT]: the bid at each (rounded, clipped) true count.
BIDS = (MIN_BID,) * (2 * TC_LIMIT + 1)

# BY_COUNT[cell][true count + TC_LIMIT]: the cells whose action changes with the count,
# ("H", context, up, soft, cards - 2, total), ("P", context, up, pair value) and
# ("I", soft, pair, total); every other cell plays the tables above at any count.
BY_COUNT = {}


@dataclass(frozen=True)
class Bid:
    amount: int


@dataclass(frozen=True)
class Hit:
    pass


@dataclass(frozen=True)
class Stand:
    pass


@dataclass(frozen=True)
class DoubleDown:
    amount: int


@dataclass(frozen=True)
class Split:
    amount: int


@dataclass(frozen=True)
class Insurance:
    amount: int


@dataclass(frozen=True)
class Memory:
    """dealt: cards dealt from the current shoe before this round; count: their Hi-Lo
    running count; tens: the ten-valued ones among them; active: bit i set if player i (in
    `points` order) bid this round; bid: this round's bid; phase: F first decision, P
    playing, H<n> / S<n> owe a Hit / a Stand at n cards after a DoubleDown; insured, split:
    this round's main hand was."""

    dealt: int = 0
    count: int = 0
    tens: int = 0
    active: int = 0
    bid: int = 0
    phase: str = "P"
    insured: int = 0
    split: int = 0


FRESH = Memory()
_MEMORY = (
    r"t21:(0|[1-9][0-9]{0,3}):(0|-?[1-9][0-9]{0,3}):(0|[1-9][0-9]{0,3})"
    r":(0|[1-9a-f][0-9a-f]{0,63})"
    r":(0|[1-9][0-9]{0,8}):(F|P|[HS](?:[2-9]|1[0-9])):([01]):([01])"
)


def write_memory(memory):
    return (
        f"t21:{memory.dealt}:{memory.count}:{memory.tens}:{memory.active:x}:{memory.bid}"
        f":{memory.phase}:{memory.insured}:{memory.split}"
    )


def read_memory(text):
    """The memory written by `write_memory`; ValueError for anything else."""
    if not isinstance(text, str) or len(text) > MEMORY_CHARS:
        raise ValueError(f"memory is not a string of at most {MEMORY_CHARS} characters")
    found = re.fullmatch(_MEMORY, text)
    if found is None:
        raise ValueError(f"not a memory of this player: {text[:40]!r}")
    dealt, count, tens, active, bid, phase, insured, split = found.groups()
    memory = Memory(
        int(dealt), int(count), int(tens), int(active, 16), int(bid), phase, int(insured),
        int(split),
    )  # fmt: skip
    if memory.dealt >= SHOE or abs(memory.count) > SHOE or memory.tens > min(memory.dealt, TENS):
        raise ValueError(f"memory's shoe is out of range: {text[:40]!r}")
    return memory


def hand_value(cards):
    """(total, soft): aces count 11 while the total stays at most 21."""
    total = soft = 0
    for card in cards:
        rank = card[0]
        total += 11 if rank == 1 else min(rank, 10)
        soft += rank == 1
        while total > 21 and soft:
            total -= 10
            soft -= 1
    return total, 1 if soft else 0


def count_round(memory, points, infos):
    """The shoe after the last round: every card of the players who bid in it and of the
    dealer (a hole card never shown still leaves the shoe), in the order the engine deals:
    the dealer's two, each player's two, the players' draws, the dealer's draws."""
    if memory is None:
        return FRESH
    ids = [p[0] for p in points]
    played = set(ids[i] for i in range(len(ids)) if memory.active >> i & 1)
    first, later, dealer_later = [], [], []
    for info in infos:
        cards = tuple(info[1])
        if info[0] == "dealer":
            first = list(cards[-2:] if len(cards) > 1 else (cards[0], None)) + first
            dealer_later = list(reversed(cards[:-2]))
        elif info[0] in played:
            first += cards[-2:]
            later += reversed(cards[:-2])
    dealt = first + later + dealer_later
    total = memory.dealt + len(dealt)
    count = memory.count + sum(HI_LO[c[0]] for c in dealt if c is not None)
    tens = memory.tens + sum(c[0] >= 10 for c in dealt if c is not None)
    if total >= SHOE:  # a fresh shoe started during the round: it holds the last cards
        total %= SHOE
        fresh = dealt[len(dealt) - total:] if total else []  # fmt: skip
        count = sum(HI_LO[c[0]] for c in fresh if c is not None)
        tens = sum(c[0] >= 10 for c in fresh if c is not None)
    return Memory(total, count, min(tens, TENS), memory.active)


def count_bucket(dealt, count):
    """The true count (running count per deck left) rounded and clipped to ±TC_LIMIT."""
    left = SHOE - dealt
    tc = count * 52.0 / left if left > 0 else 0.0
    return min(max(int(round(tc)), -TC_LIMIT), TC_LIMIT)


def choose_bid(memory, mine):
    low, high = min(MIN_BID, mine), min(MAX_BID, mine)
    return max(low, min(high, BIDS[count_bucket(memory.dealt, memory.count) + TC_LIMIT]))


def _cell(key, at, plain):
    row = BY_COUNT.get(key)
    return plain if row is None else row[at]


def action_for(context, up, total, soft, n, pair, tc, first, can_bid=True, can_insure=True):
    """The action for a hand: I insure, P split, D double down, H hit, S stand.

    context: 0 main hand, 1 insured main hand, 2 split hand; up: the up card's value (1 an
    ace .. 10); pair: the rank of a two-card pair (0: not a pair); tc: the true count
    before the round, as `count_bucket` gives it; first: the round's first decision;
    can_bid: points for another bid (Split, DoubleDown); can_insure: for half of one."""
    at = tc + TC_LIMIT
    two = n == 2
    combo = two and total == 21
    if first and two and up == 1 and CAN_INSURE and can_insure:
        key = ("I", soft, 1 if pair else 0, total)
        if _cell(key, at, INSURE[2 * soft + (1 if pair else 0)][total]) == "1":
            return "I"
    if pair and can_bid:
        value = min(pair, 10)
        if _cell(("P", context, up, value), at, SPLIT[context][up][value]) == "P":
            return "P"
    k = min(n, 5) - 2
    letter = _cell(("H", context, up, soft, k, total), at, HAND[context][up][soft][k][total])
    if letter == "D" and two and can_bid and (context < 2 or DOUBLE_AFTER_SPLIT):  # noqa: SIM102
        if DOUBLE_ON_21 or not combo:
            return "D"
    if letter != "S":  # a two-card 21 may Hit too: the course engine asks every hand
        return "H"
    return "S"


def play(upcard, points, infos, player_id, memory, hand):
    """Bid on the bidding call (no up card), else play the hand by the tables, for the
    number of players dealt in (`points` lists them)."""
    try:
        state = None if memory is None else read_memory(memory)
    except ValueError:
        state = None  # not ours: start afresh rather than fail the game
    mine = next(p[1] for p in points if p[0] == player_id)
    if upcard is None:
        state = count_round(state, points, infos)
        active = 0
        for i, p in enumerate(points):
            if p[1] > 0:
                active |= 1 << i
        bid = choose_bid(state, mine)
        state = replace(state, active=active, bid=bid, phase="F", insured=0, split=0)
        return Bid(bid), write_memory(state)
    state = state or Memory(phase="F")
    action, state = decide(state, upcard[0], mine, tuple(hand), len(points))
    return action, write_memory(state)


def hole_ten_pays(state, hand):
    """Whether the dealer's hole card is ten-valued with a chance above INSURE_ABOVE: the
    shoe's cards not seen (dealt before the round, in the hand, the ace up) tell it."""
    held = sum(card[0] >= 10 for card in hand)
    unseen = SHOE - state.dealt - len(hand) - 1
    tens = TENS - state.tens - held
    if unseen <= 0:  # the shoe ran out in this deal: a fresh one holds the hole card
        unseen, tens = SHOE - len(hand) - 1, TENS - held
    numerator, denominator = INSURE_ABOVE
    return tens * denominator > unseen * numerator


def decide(state, up_rank, mine, hand, seats=1):
    """The action on `hand` and the memory after it; `seats`: the players dealt in."""
    n = len(hand)
    phase = state.phase
    if phase[0] == "H" and int(phase[1:]) == n:
        return Hit(), replace(state, phase=f"S{n + 1}")
    if phase[0] == "S" and int(phase[1:]) == n:
        return Stand(), replace(state, phase="P")
    total, soft = hand_value(hand)
    bid = state.bid
    full = seats >= FULL_TABLE
    context = 2 if state.split else (1 if state.insured and not full else 0)
    pair = hand[0][0] if n == 2 and hand[0][0] == hand[1][0] else 0
    tc = count_bucket(state.dealt, state.count)
    first = phase == "F"
    if first and full and n == 2 and up_rank == 1 and CAN_INSURE and mine >= bid // 2:
        if hole_ten_pays(state, hand):
            return Insurance(bid // 2), replace(state, phase="P", insured=1)
        first = False  # the chart's insurance cells are a lone player's
    letter = action_for(
        context, min(up_rank, 10), total, soft, n, pair, tc, first, mine >= bid, mine >= bid // 2
    )
    if letter == "I":
        return Insurance(bid // 2), replace(state, phase="P", insured=1)
    if letter == "P":
        return Split(bid), replace(state, phase="P", split=1)
    if letter == "D":
        return DoubleDown(bid), replace(state, phase="P" if total == 21 else "H2")
    return (Hit() if letter == "H" else Stand()), replace(state, phase="P")

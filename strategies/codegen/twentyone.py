"""Generate a single-file TwentyOne player from a fitted table (`mine generate twentyone`).

The module needs only the standard library, is deterministic, and follows the spec's
interface `play(upcard, points, infos, player_id, memory, hand) -> (action, memory)`. Its
tables are literals: the action chart (one string of S/H/D per context, up card, soft
flag and card count, indexed by total), the splits (and re-splits), the insurance cells,
the bid for each true count, and `BY_COUNT`: the cells whose action changes with the true
count, each a string with one action per rounded true count. Its memory string (parsed back
strictly, a fresh memory if it does not parse) holds the shoe's count before the round,
which sets both its bid and its play, and where it is in the round (insured, split, owing a
Hit or a Stand after a DoubleDown).

Every decision is one pure function of the module, `action_for(context, up, total, soft,
n, pair, tc, first, …)`; `play` only reads the situation off its arguments and memory. The
validation harness tabulates that same function, so it measures the file as it ships.

Everything written into the module is a number, a hex fingerprint, text from a fixed
vocabulary, or the `repr` of a validated literal; the source is parsed with `ast` and its
docstring and tables are compared with what was meant before it is written.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from mine import outputs
from mine.strategies.codegen import check_source, safe_text
from mine.strategies.engines.twentyone import TwentyOneRules

_text = partial(safe_text, number="{:+.5f}")


def _letters(chart: Any, ctx: int, up: int, soft: int, n: int) -> str:
    return "".join(LETTERS.get(int(chart.hand[ctx, up, t, soft, n]), "S") for t in range(32))


LETTERS = {1: "H", 2: "S", 3: "D"}  # the engine's codes of Hit, Stand, DoubleDown


def chart_at(tc: int, chart: Any, count_charts: list[tuple[int, int, Any]]) -> Any:
    """The chart played at true count `tc`: the count chart whose range holds it, else
    the static one."""
    return next((c for low, high, c in count_charts if low <= tc <= high), chart)


def tables(
    chart: Any,
    bids: list[tuple[int, int, int]],
    count_charts: list[tuple[int, int, Any]] = (),
    limit: int = 10,
) -> dict[str, Any]:
    """The literals the module embeds, from a `Chart`, bid rows (tc_low, tc_high, bid) and
    count charts (tc_low, tc_high, Chart)."""
    hand = tuple(
        tuple(
            tuple(tuple(_letters(chart, ctx, up, soft, n) for n in range(4)) for soft in (0, 1))
            for up in range(11)
        )
        for ctx in range(3)
    )
    split = tuple(
        tuple(
            "".join("P" if chart.split[ctx, up, x] else "-" for x in range(11)) for up in range(11)
        )
        for ctx in range(3)
    )
    insure = tuple(
        "".join("1" if chart.insure[t, soft, pair] else "0" for t in range(32))
        for soft in (0, 1)
        for pair in (0, 1)
    )
    by_tc = []
    for tc in range(-limit, limit + 1):
        row = min(
            bids, key=lambda b: 0 if b[0] <= tc <= b[1] else min(abs(tc - b[0]), abs(tc - b[1]))
        )
        by_tc.append(int(row[2]))
    charts = [chart_at(tc, chart, list(count_charts)) for tc in range(-limit, limit + 1)]
    by_count: dict[tuple, str] = {}
    for ctx in range(3):
        for up in range(1, 11):
            for soft in (0, 1):
                for n in range(4):
                    for total in range(32):
                        row = "".join(
                            LETTERS.get(int(c.hand[ctx, up, total, soft, n]), "S") for c in charts
                        )
                        if len(set(row)) > 1:
                            by_count[("H", ctx, up, soft, n, total)] = row
            for x in range(1, 11):
                row = "".join("P" if c.split[ctx, up, x] else "-" for c in charts)
                if len(set(row)) > 1:
                    by_count[("P", ctx, up, x)] = row
    for soft in (0, 1):
        for pair in (0, 1):
            for total in range(32):
                row = "".join("1" if c.insure[total, soft, pair] else "0" for c in charts)
                if len(set(row)) > 1:
                    by_count[("I", soft, pair, total)] = row
    return {
        "HAND": hand,
        "SPLIT": split,
        "INSURE": insure,
        "BIDS": tuple(by_tc),
        "BY_COUNT": by_count,
    }


def _check_tables(literals: dict[str, Any]) -> None:
    hand = literals["HAND"]
    width = len(literals["BIDS"])
    ok = (
        len(hand) == 3
        and all(len(u) == 11 for u in hand)
        and all(len(s) == 2 and all(len(n) == 4 for n in s) for u in hand for s in u)
        and all(re.fullmatch(r"[SHD]{32}", row) for u in hand for s in u for n in s for row in n)
        and len(literals["SPLIT"]) == 3
        and all(re.fullmatch(r"[P-]{11}", row) for ctx in literals["SPLIT"] for row in ctx)
        and all(re.fullmatch(r"[01]{32}", row) for row in literals["INSURE"])
        and all(type(b) is int and b > 0 for b in literals["BIDS"])
        and all(_count_cell(key, row, width) for key, row in literals["BY_COUNT"].items())
    )
    if not ok:
        raise ValueError("tables do not have the shape of a TwentyOne chart")


def _count_cell(key: tuple, row: str, width: int) -> bool:
    kinds = {"H": ("[SHD]", 5), "P": ("[P-]", 3), "I": ("[01]", 3)}
    if not key or key[0] not in kinds or len(key) != kinds[key[0]][1] + 1:
        return False
    return all(type(k) is int and 0 <= k < 32 for k in key[1:]) and bool(
        re.fullmatch(kinds[key[0]][0] + f"{{{width}}}", row)
    )


def docstring(metadata: dict[str, Any], validation: dict[str, Any] | None) -> str:
    learned = metadata.get("learned", {})
    dealer = learned.get("dealer_rule", {})
    lines = [
        "TwentyOne player generated by `mine generate twentyone` from a fitted table.",
        "",
        "Interface: play(upcard, points, infos, player_id, memory, hand) -> (action, memory).",
        "Standard library only; deterministic; the memory string tracks the shoe for bids.",
        "",
        "Provenance:",
        f"    games (logs): {_text(metadata.get('logs'))}",
        f"    rows (decisions): {_text(metadata.get('rows'))},"
        f" hands: {_text(metadata.get('hands'))}",
        f"    data fingerprint (SHA-256): {_text(metadata.get('fingerprint'))}",
        f"    model: {_text(metadata.get('method'))}: the game learned from the logs",
        f"        decks {_text(learned.get('decks'))},"
        f" dealer hits hard totals up to {_text(dealer.get('hits_hard_up_to'))},"
        f" hits soft 17 {_text(dealer.get('hits_soft_17'))},",
        f"        dealer card limit {_text(dealer.get('card_limit'))},"
        f" player card limit {_text(learned.get('player_card_limit'))}",
        f"        bids {_text(learned.get('min_bid'))}..{_text(learned.get('max_bid'))};"
        f" model value per hand {_text(metadata.get('model_ev'))} (infinite deck)",
    ]
    payoffs = learned.get("payoffs", {})
    for name, value in payoffs.items():
        if isinstance(value, (int, float)):
            lines.append(f"        payoff {_text(name)}: {_text(float(value))}")
    if validation:
        lines += ["", "Validation (`mine validate twentyone`, reference engine):"]
        for name, value in validation.items():
            lines.append(f"    {_text(name)}: {_text(value)}")
    return "\n".join(lines) + "\n"


TEMPLATE = '''"""{doc}"""

import re
from dataclasses import dataclass

DECKS = {decks}
MIN_BID = {min_bid}
MAX_BID = {max_bid}
TC_LIMIT = {tc_limit}
CAN_INSURE = {can_insure}
DOUBLE_ON_21 = {double_on_21}
DOUBLE_AFTER_SPLIT = {double_after_split}
SHOE = 52 * DECKS
HI_LO = (0, -1, 1, 1, 1, 1, 1, 0, 0, 0, -1, -1, -1, -1)  # by rank 1..13
MEMORY_CHARS = 10000

# HAND[context][up][soft][cards - 2 (5 or more: 3)][total]: S stand, H hit, D double.
# Contexts: 0 main hand, 1 insured main hand, 2 split hand; up card 1 (ace) .. 10.
HAND = {hand}

# SPLIT[context][up][pair value]: P split (context 2: split a split hand again).
SPLIT = {split}

# INSURE[2 * soft + pair][total]: 1 take insurance.
INSURE = {insure}

# BIDS[true count + TC_LIMIT]: the bid at each (rounded, clipped) true count.
BIDS = {bids}

# BY_COUNT[cell][true count + TC_LIMIT]: the cells whose action changes with the count,
# ("H", context, up, soft, cards - 2, total), ("P", context, up, pair value) and
# ("I", soft, pair, total); every other cell plays the tables above at any count.
BY_COUNT = {by_count}


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
    running count; active: bit i set if player i (in `points` order) bid this round; bid:
    this round's bid; phase: F first decision, P playing, H<n> / S<n> owe a Hit / a Stand
    at n cards after a DoubleDown; insured, split: this round's main hand was."""

    dealt: int = 0
    count: int = 0
    active: int = 0
    bid: int = 0
    phase: str = "P"
    insured: int = 0
    split: int = 0


FRESH = Memory()
_MEMORY = (
    r"t21:(0|[1-9][0-9]{{0,3}}):(0|-?[1-9][0-9]{{0,3}}):(0|[1-9a-f][0-9a-f]{{0,63}})"
    r":(0|[1-9][0-9]{{0,8}}):(F|P|[HS](?:[2-9]|1[0-9])):([01]):([01])"
)


def write_memory(memory):
    return (
        f"t21:{{memory.dealt}}:{{memory.count}}:{{memory.active:x}}:{{memory.bid}}"
        f":{{memory.phase}}:{{memory.insured}}:{{memory.split}}"
    )


def read_memory(text):
    """The memory written by `write_memory`; ValueError for anything else."""
    if not isinstance(text, str) or len(text) > MEMORY_CHARS:
        raise ValueError(f"memory is not a string of at most {{MEMORY_CHARS}} characters")
    found = re.fullmatch(_MEMORY, text)
    if found is None:
        raise ValueError(f"not a memory of this player: {{text[:40]!r}}")
    dealt, count, active, bid, phase, insured, split = found.groups()
    memory = Memory(
        int(dealt), int(count), int(active, 16), int(bid), phase, int(insured), int(split)
    )
    if memory.dealt >= SHOE or abs(memory.count) > SHOE:
        raise ValueError(f"memory's shoe is out of range: {{text[:40]!r}}")
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
    if total >= SHOE:  # a fresh shoe started during the round: it holds the last cards
        total %= SHOE
        fresh = dealt[len(dealt) - total:] if total else []
        count = sum(HI_LO[c[0]] for c in fresh if c is not None)
    return Memory(total, count, memory.active)


def true_count(memory):
    left = SHOE - memory.dealt
    return memory.count * 52.0 / left if left > 0 else 0.0


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
    if letter == "D" and two and can_bid and (context < 2 or DOUBLE_AFTER_SPLIT):
        if DOUBLE_ON_21 or not combo:
            return "D"
    if letter != "S" and not combo:
        return "H"
    return "S"


def play(upcard, points, infos, player_id, memory, hand):
    """Bid on the bidding call (no up card), else play the hand by the tables."""
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
        state = Memory(state.dealt, state.count, active, bid, "F", 0, 0)
        return Bid(bid), write_memory(state)
    state = state or Memory(phase="F")
    action, state = decide(state, upcard[0], mine, tuple(hand))
    return action, write_memory(state)


def decide(state, up_rank, mine, hand):
    n = len(hand)
    phase = state.phase
    if phase[0] == "H" and int(phase[1:]) == n:
        return Hit(), _with(state, f"S{{n + 1}}")
    if phase[0] == "S" and int(phase[1:]) == n:
        return Stand(), _with(state, "P")
    total, soft = hand_value(hand)
    bid = state.bid
    context = 2 if state.split else (1 if state.insured else 0)
    pair = hand[0][0] if n == 2 and hand[0][0] == hand[1][0] else 0
    tc = count_bucket(state.dealt, state.count)
    letter = action_for(
        context, min(up_rank, 10), total, soft, n, pair, tc, phase == "F",
        mine >= bid, mine >= bid // 2,
    )
    if letter == "I":
        return Insurance(bid // 2), Memory(
            state.dealt, state.count, state.active, bid, "P", 1, state.split
        )
    if letter == "P":
        return Split(bid), Memory(
            state.dealt, state.count, state.active, bid, "P", state.insured, 1
        )
    if letter == "D":
        return DoubleDown(bid), _with(state, "P" if total == 21 else "H2")
    if letter == "H":
        return Hit(), _with(state, "P")
    return Stand(), _with(state, "P")


def _with(state, phase):
    return Memory(
        state.dealt, state.count, state.active, state.bid, phase, state.insured, state.split
    )
'''


def module_source(
    chart: Any,
    bids: list[tuple[int, int, int]],
    metadata: dict[str, Any],
    validation: dict[str, Any] | None = None,
    count_charts: list[tuple[int, int, Any]] = (),
) -> str:
    learned = metadata.get("learned", {})
    actions = learned.get("actions", {})
    literals = tables(chart, bids, count_charts)
    _check_tables(literals)
    numbers = {
        "decks": float(learned.get("decks", 3)),
        "min_bid": float(learned.get("min_bid", 10)),
        "max_bid": float(learned.get("max_bid", 10)),
    }
    if not all(TwentyOneRules.within(k, v) and v == int(v) for k, v in numbers.items()):
        raise ValueError(f"table metadata out of the rules' range: {numbers}")
    numbers = {k: int(v) for k, v in numbers.items()}
    if numbers["min_bid"] > numbers["max_bid"]:
        raise ValueError(f"table metadata: min_bid above max_bid: {numbers}")
    if any(not numbers["min_bid"] <= bid <= numbers["max_bid"] for bid in literals["BIDS"]):
        raise ValueError("a bid of the table lies outside the table's min_bid..max_bid")
    flags = {
        k: bool(actions.get(k, False)) for k in ("insurance", "double_on_21", "double_after_split")
    }
    doc = docstring(metadata, validation)
    source = TEMPLATE.format(
        doc=doc,
        **numbers,
        tc_limit=(len(literals["BIDS"]) - 1) // 2,
        can_insure=flags["insurance"],
        double_on_21=flags["double_on_21"],
        double_after_split=flags["double_after_split"],
        hand=_wrap(repr(literals["HAND"])),
        split=_wrap(repr(literals["SPLIT"])),
        insure=_wrap(repr(literals["INSURE"])),
        bids=repr(literals["BIDS"]),
        by_count=_wrap(repr(literals["BY_COUNT"])),
    )
    check_source(source, doc, literals, frozenset({"dataclasses", "re"}))
    return source


def _wrap(text: str, width: int = 96) -> str:
    """Break a long literal after commas (inside the brackets, so it stays one literal)."""
    out, line = [], ""
    for part in text.split(", "):
        piece = part if not line else ", " + part
        if len(line) + len(piece) > width:
            out.append(line + ",")
            line = "    " + part
        else:
            line += piece
    out.append(line)
    return "\n".join(out)


def write_module(path: str | Path, *args: Any, **kwargs: Any) -> str:
    """Write the module `module_source(*args, **kwargs)` makes to `path`; its source."""
    source = module_source(*args, **kwargs)
    outputs.write_text(path, source)
    return source


def chart_of_module(module: Any) -> Any:
    """The `Chart` a generated module plays (its HAND, SPLIT and INSURE literals)."""
    from mine.strategies.solvers.twentyone import Chart

    codes = {"H": 1, "S": 2, "D": 3}
    chart = Chart.empty()
    for ctx in range(3):
        for up in range(1, 11):
            for soft in (0, 1):
                for n in range(4):
                    row = module.HAND[ctx][up][soft][n]
                    chart.hand[ctx, up, :, soft, n] = np.array([codes[c] for c in row])
    for ctx in range(len(module.SPLIT)):
        for up in range(1, 11):
            chart.split[ctx, up, :] = np.array([c == "P" for c in module.SPLIT[ctx][up]])
    for soft in (0, 1):
        for pair in (0, 1):
            chart.insure[:, soft, pair] = np.array(
                [c == "1" for c in module.INSURE[2 * soft + pair]]
            )
    return chart

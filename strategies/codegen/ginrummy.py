"""Generate a single-file Gin Rummy player from fitted tables (`mine generate ginrummy`).

The player needs only the standard library: it carries a compact exact meld solver (the
same bit-mask search as `strategies.melds`), the spec's `pick`, `play` and `melds`, the
three fitted tables as literals, and a memory string (strictly parsed, a few hundred
characters) that follows the round: the discard pile, the cards the opponent picked up
and the ones it discarded or let pass, the stock's size and its own hand.

How it plays:
- draw: take the discard when the deadwood it surely takes off beats the stock-draw gain
  the fitted `DRAW` table expects in this situation, and when its value (deadwood after
  the discard, less `KNOCK_BONUS` if that allows a knock) beats the exact expectation of a
  stock draw over the live cards (those neither in the discard pile nor known to be in
  the opponent's hand);
- discard: among the `LOOKAHEAD` discards leaving the least deadwood, the one with the
  least expected deadwood after the next draw (over the live cards), less `KNOCK_BONUS`
  times the chance of a knockable hand then, plus `DANGER_WEIGHT` times the fitted
  `DANGER` of the opponent picking the card up given what it picked and passed;
- knock: gin whenever possible; knock when the fitted `KNOCK` table says knocking beat
  playing on at this deadwood, turn and score.
The weights (`KNOCK_BONUS`, `DANGER_WEIGHT`, …) are fixed here, chosen by validation
against the baselines; the tables come from the logs.

Everything written into the module is a validated number, a hex fingerprint, or text from
a fixed vocabulary; the source is parsed with `ast` and read back before it is written.
"""

from __future__ import annotations

import ast
import math
import re
import sys
from pathlib import Path
from typing import Any

SAFE_TEXT = re.compile(r"[\w.:+\-=/ ()%,]*")
DANGER_WEIGHT = 2.0  # deadwood points a certain pickup by the opponent is worth avoiding
DRAW_MARGIN = 0.0
PRUNE = 10  # discards leaving more than the least deadwood + PRUNE are not looked ahead
LOOKAHEAD = 5  # nor are more than this many discards (the best ones by deadwood left)
KNOCK_BONUS = 10.0  # deadwood points the chance of a knockable hand next turn is worth
HORIZON = 1.0  # draws over which a discard's one-draw expected gain is counted
ALLOWED_IMPORTS = frozenset({"re", "functools"})

TEMPLATE = r'''
import re
from functools import lru_cache

SUITS = "SHDC"
BLOCK = (1 << 13) - 1
START3 = 0
for _suit in range(4):
    START3 |= ((1 << 11) - 1) << (13 * _suit)
SPREAD = 1 | 1 << 13 | 1 << 26 | 1 << 39
VALUES = tuple(min(index % 13 + 1, 10) for index in range(52))
BLOCK_VALUE = tuple(
    sum(min(rank + 1, 10) for rank in range(13) if block >> rank & 1) for block in range(1 << 13)
)
HAND_SIZE = 10
KNOCK_LIMIT = 10
STOCK_SIZE = 31

# --- tables ---


def _melds_by_lowest():
    melds = []
    for rank in range(13):
        bits = [1 << (13 * suit + rank) for suit in range(4)]
        for size in (3, 4):
            for group in _combinations(bits, size):
                melds.append(sum(group))
    for suit in range(4):
        for size in (3, 4, 5):
            for low in range(14 - size):
                melds.append(sum(1 << (13 * suit + low + k) for k in range(size)))
    by_lowest = [[] for _ in range(52)]
    for meld in melds:
        value = sum(VALUES[i] for i in range(52) if meld >> i & 1)
        by_lowest[(meld & -meld).bit_length() - 1].append((meld, value))
    return tuple(tuple(group) for group in by_lowest)


def _combinations(items, size):
    if size == 0:
        return [()]
    return [
        (items[i], *rest)
        for i in range(len(items))
        for rest in _combinations(items[i + 1 :], size - 1)
    ]


BY_LOWEST = _melds_by_lowest()


def meldable(hand):
    """The cards of `hand` that belong to at least one meld inside it."""
    run = hand & hand >> 1 & hand >> 2 & START3
    a, b, c, d = hand & BLOCK, hand >> 13 & BLOCK, hand >> 26 & BLOCK, hand >> 39
    ranks = a & b & (c | d) | c & d & (a | b)
    covered = run | run << 1 | run << 2
    if ranks:
        covered |= ranks * SPREAD & hand
    return covered


@lru_cache(maxsize=1 << 16)
def _absorbed(mask):
    # The most deadwood points the melds inside `mask` can absorb.
    low = mask & -mask
    rest = mask ^ low
    value = _absorbed(rest) if rest else 0
    for meld, points in BY_LOWEST[low.bit_length() - 1]:
        if meld & mask == meld:
            rest = mask ^ meld
            candidate = points + (_absorbed(rest) if rest else 0)
            if candidate > value:
                value = candidate
    return value


@lru_cache(maxsize=1 << 15)
def deadwood(hand):
    total = (
        BLOCK_VALUE[hand & BLOCK]
        + BLOCK_VALUE[hand >> 13 & BLOCK]
        + BLOCK_VALUE[hand >> 26 & BLOCK]
        + BLOCK_VALUE[hand >> 39]
    )
    cover = meldable(hand)
    return total - _absorbed(cover) if cover else total


def arrangement(hand):
    mask = meldable(hand)
    chosen = []
    while mask:
        target = _absorbed(mask)
        low = mask & -mask
        rest = mask ^ low
        if (_absorbed(rest) if rest else 0) == target:
            mask = rest
            continue
        for meld, points in BY_LOWEST[low.bit_length() - 1]:
            rest = mask ^ meld
            if meld & mask == meld and points + (_absorbed(rest) if rest else 0) == target:
                chosen.append(meld)
                mask = rest
                break
    return chosen


def bits(mask):
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def index_of(card):
    return SUITS.index(card.suit) * 13 + int(card.rank) - 1


def mask_of(cards):
    mask = 0
    for card in cards:
        mask |= 1 << index_of(card)
    return mask


# --- memory ------------------------------------------------------------------------------

MEMORY = re.compile(
    r"g1"
    r";s(\d{1,3}),(\d{1,3})"  # scores at the start of this round
    r";h([0-9a-f]{1,13})"  # my hand after my last play
    r";p(\d{1,3})"  # my plays this round
    r";f([01])"  # 1 if I played first this round
    r";n(\d{1,2})"  # cards left in the stock
    r";l(\d{1,2}|-)"  # my last discard (card index) or -
    r";d([0-9a-f]{1,13})"  # cards gone into the discard pile (dead)
    r";k([0-9a-f]{1,13})"  # cards the opponent picked up from the discard pile
    r";x([0-9a-f]{1,13})"  # cards the opponent discarded or passed
)


class Memory:
    __slots__ = ("scores", "hand", "plays", "first", "stock", "last", "dead", "took", "shunned")

    def __init__(self, scores, hand, plays, first, stock, last, dead, took, shunned):
        self.scores = scores
        self.hand = hand
        self.plays = plays
        self.first = first
        self.stock = stock
        self.last = last
        self.dead = dead
        self.took = took
        self.shunned = shunned

    def dump(self):
        last = "-" if self.last is None else str(self.last)
        return (
            f"g1;s{self.scores[0]},{self.scores[1]};h{self.hand:x};p{self.plays};"
            f"f{int(self.first)};n{self.stock};l{last};d{self.dead:x};k{self.took:x};"
            f"x{self.shunned:x}"
        )


def parse_memory(text):
    """The memory string back as a Memory; ValueError if it is not one this player wrote."""
    if not isinstance(text, str) or len(text) > 10_000:
        raise ValueError("memory must be a string of at most 10,000 characters")
    found = MEMORY.fullmatch(text)
    if found is None:
        raise ValueError(f"malformed memory {text[:40]!r}")
    s0, s1, hand, plays, first, stock, last, dead, took, shunned = found.groups()
    full = (1 << 52) - 1
    masks = [int(hand, 16), int(dead, 16), int(took, 16), int(shunned, 16)]
    if any(mask > full for mask in masks) or int(stock) > STOCK_SIZE:
        raise ValueError("memory holds cards or counts out of range")
    if last != "-" and int(last) >= 52:
        raise ValueError("memory holds a card out of range")
    return Memory(
        (int(s0), int(s1)),
        masks[0],
        int(plays),
        first == "1",
        int(stock),
        None if last == "-" else int(last),
        masks[1],
        masks[2],
        masks[3],
    )


def _observe(memory, discard_top, scores, opponent_draw, hand):
    """The memory brought up to date with what happened since my last play."""
    mask = mask_of(hand)
    top = 1 << index_of(discard_top)
    scores = (int(scores[0]), int(scores[1]))
    state = None if memory is None else parse_memory(memory)
    if state is None or state.hand != mask or state.scores != scores:
        # A new round: nothing known yet but the discard pile's top.
        first = opponent_draw is None
        stock = STOCK_SIZE - (0 if first else int(opponent_draw == "stock"))
        return Memory(scores, mask, 0, first, stock, None, top, 0, top if not first else 0)
    took, shunned, dead, stock = state.took, state.shunned, state.dead, state.stock
    if opponent_draw == "stock":
        stock -= 1
    if state.last is not None:
        last = 1 << state.last
        if opponent_draw == "discard":
            took |= last
            dead &= ~last
        else:
            shunned |= last
    took &= ~top
    return Memory(
        scores, mask, state.plays, state.first, max(stock, 0), state.last, dead | top, took,
        shunned | top,
    )


# --- decisions ---------------------------------------------------------------------------


def _unseen(state, hand):
    return bits(((1 << 52) - 1) & ~hand & ~state.dead & ~state.took)


def _after_draw(hand10, unseen):
    """Over the draw of one of `unseen` into `hand10` (uniformly) and the best discard of
    another card than the one drawn: the expected least deadwood, and the chance that it
    is low enough to knock."""
    if not unseen:
        left = deadwood(hand10)
        return float(left), float(left <= KNOCK_LIMIT)
    cards = bits(hand10)
    base = min(deadwood(hand10 ^ card) for card in cards)
    total = knockable = 0
    for new in unseen:
        grown = hand10 | new
        if meldable(grown) & new:
            left = min(deadwood(grown ^ card) for card in cards)
        else:
            left = VALUES[new.bit_length() - 1] + base
        total += left
        knockable += left <= KNOCK_LIMIT
    return total / len(unseen), knockable / len(unseen)


def _danger(state, card):
    index = card.bit_length() - 1
    rank, suit = index % 13, index // 13
    took, shunned = state.took, state.shunned
    same = adjacent = near = 0
    for other in range(4):
        if other != suit and took >> (13 * other + rank) & 1:
            same = 1
    for step in (-2, -1, 1, 2):
        neighbour = rank + step
        if 0 <= neighbour < 13 and took >> (13 * suit + neighbour) & 1:
            if abs(step) == 1:
                adjacent = 1
            else:
                near = 1
    picked = 3 if same else 2 if adjacent else 1 if near else 0
    passed = 0
    for other in range(4):
        if other != suit and shunned >> (13 * other + rank) & 1:
            passed = 2
    if not passed:
        for step in (-1, 1):
            neighbour = rank + step
            if 0 <= neighbour < 13 and shunned >> (13 * suit + neighbour) & 1:
                passed = 1
    return DANGER[picked][passed][rank]


def _turn(state):
    return 2 * state.plays + (0 if state.first else 1)


def _knock(state, left):
    turn = min(_turn(state) // TURN_STEP, len(KNOCK[0]) - 1)
    late = int(max(state.scores) >= LATE_SCORE)
    return KNOCK[left][turn][late]


def _stock_gain(state, now):
    """What a stock draw is expected to take off the deadwood here (the fitted table)."""
    if not USE_DRAW:
        return -100.0
    row = DRAW[min(now // DEADWOOD_STEP, len(DRAW) - 1)]
    return row[min(_turn(state) // TURN_STEP, len(row) - 1)]


def pick(discard_top, scores, memory, opponent_draw, hand):
    """("stock" | "discard", memory): the draw, after updating what is known."""
    state = _observe(memory, discard_top, scores, opponent_draw, hand)
    mask = state.hand
    top = 1 << index_of(discard_top)
    grown = mask | top
    take = min(deadwood(grown ^ card) for card in bits(mask))
    now = deadwood(mask)
    draw = "stock"
    if now - take > _stock_gain(state, now):
        # Both draws valued alike: deadwood after the discard, less the knock chance's worth.
        expected, knockable = _after_draw(mask, _unseen(state, mask))
        sure = take - KNOCK_BONUS * (take <= KNOCK_LIMIT)
        if sure < expected - KNOCK_BONUS * knockable - DRAW_MARGIN:
            draw = "discard"
    if draw == "stock":
        state.stock -= 1
    return draw, state.dump()


def play(picked, scores, memory, hand):
    """(("gin" | "knock" | "drop", card), memory): the discard and the call."""
    state = parse_memory(memory)
    drawn = 1 << index_of(picked)
    mask = mask_of(hand)
    full = mask | drawn
    options = []
    for card in bits(mask):
        options.append((deadwood(full ^ card), card))
    options.sort()
    least = options[0][0]
    may_call = state.plays >= 1
    choice = None
    act = "drop"
    if may_call and least == 0:
        act, choice = "gin", options[0][1]
    elif may_call and least <= KNOCK_LIMIT and _knock(state, least):
        act, choice = "knock", options[0][1]
    elif state.stock == 0:
        choice = options[0][1]
    else:
        unseen = _unseen(state, full)
        best = None
        for left, card in options[:LOOKAHEAD]:
            if left > least + PRUNE:
                break
            expected, knockable = _after_draw(full ^ card, unseen)
            # The one-draw gain, counted over HORIZON draws: partial melds with live outs
            # are worth more than a single draw shows.
            value = left + HORIZON * (expected - left) - KNOCK_BONUS * knockable
            value += DANGER_WEIGHT * _danger(state, card)
            key = (value, left, card)
            if best is None or key < best:
                best = key
        choice = best[2]
    after = full ^ choice
    state.hand = after
    state.plays += 1
    state.last = choice.bit_length() - 1
    state.dead |= choice
    played = next(card for card in hand if 1 << index_of(card) == choice)
    return (act, played), state.dump()


def melds(scores, memory, hand):
    """A least-deadwood declaration: the melds, then each deadwood card on its own."""
    by_bit = {1 << index_of(card): card for card in hand}
    mask = mask_of(hand)
    chosen = arrangement(mask)
    used = 0
    out = []
    for meld in chosen:
        used |= meld
        out.append(tuple(by_bit[card] for card in bits(meld)))
    out.extend((by_bit[card],) for card in bits(mask & ~used))
    return out

'''


def _text(value: object) -> str:
    """A value fit for the docstring: numbers as they are, text only if plainly safe."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.4f}" if math.isfinite(value) else "(not finite)"
    text = str(value)
    return text if SAFE_TEXT.fullmatch(text) and len(text) <= 120 else "(not shown)"


def docstring(metadata: dict[str, Any], validation: dict[str, Any] | None) -> str:
    danger = metadata.get("danger", {})
    lines = [
        "Gin Rummy player generated by `mine generate ginrummy` from fitted tables.",
        "",
        "Functions: pick, play, melds (the course interface); standard library only.",
        "",
        "Provenance:",
        f"    games (logs): {_text(metadata.get('games'))}",
        f"    rounds: {_text(metadata.get('rounds'))}",
        f"    rows (turns): {_text(metadata.get('rows'))}",
        f"    data fingerprint (SHA-256): {_text(metadata.get('fingerprint'))}",
        f"    model: {_text(metadata.get('method'))}",
        f"    danger model: {_text(danger.get('discards'))} discards,"
        f" {_text(danger.get('picked_up'))} picked up, held-out AUC"
        f" {_text(danger.get('held_out_auc'))}",
        "    sources: " + ", ".join(_text(s) for s in metadata.get("sources", [])),
    ]
    if validation:
        lines += ["", "Validation (reference engine, full games to 100, seats alternating):"]
        for name, figures in validation.items():
            lines.append(
                f"    vs {_text(name)}: win {_text(float(figures['win_rate']))}"
                f" (95% CI {_text(float(figures['win_ci'][0]))}"
                f"-{_text(float(figures['win_ci'][1]))}),"
                f" {_text(int(figures['games']))} games, {_text(int(figures['invalid']))} invalid,"
                f" {_text(float(figures['points_per_round']))} points per round"
            )
    return "\n".join(lines) + "\n"


def _checked(tables: dict[str, tuple]) -> dict[str, tuple]:
    """The tables as plain nested tuples of numbers of the expected shapes."""
    try:
        return _shaped(tables)
    except (TypeError, KeyError) as error:
        raise ValueError(f"the tables are not nested tuples of numbers ({error})") from None


def _shaped(tables: dict[str, tuple]) -> dict[str, tuple]:
    danger, draw, knock = tables["danger"], tables["draw"], tables["knock"]
    danger = tuple(tuple(tuple(_probability(v) for v in row) for row in block) for block in danger)
    if len(danger) != 4 or any(len(b) != 3 or any(len(r) != 13 for r in b) for b in danger):
        raise ValueError("the danger table must be 4 x 3 x 13")
    draw = tuple(tuple(_finite(v) for v in row) for row in draw)
    if not draw or len({len(row) for row in draw}) != 1:
        raise ValueError("the draw table must be a non-empty rectangle")
    knock = tuple(tuple(tuple(_flag(v) for v in cell) for cell in row) for row in knock)
    if len(knock) != 11 or any(len(c) != 2 for row in knock for c in row):
        raise ValueError("the knock table must be 11 x turns x 2")
    return {"danger": danger, "draw": draw, "knock": knock}


def _probability(value: Any) -> float:
    value = _finite(value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{value} is not a probability")
    return value


def _finite(value: Any) -> float:
    value = round(float(value), 5)
    if not math.isfinite(value):
        raise ValueError("a table value is not finite")
    return value


def _flag(value: Any) -> int:
    if int(value) not in (0, 1) or int(value) != value:
        raise ValueError(f"{value!r} is not 0 or 1")
    return int(value)


def module_source(
    tables: dict[str, tuple],
    metadata: dict[str, Any],
    validation: dict[str, Any] | None = None,
    *,
    use_draw_table: bool = True,
) -> str:
    tables = _checked(tables)
    doc = docstring(metadata, validation)
    settings = metadata.get("settings", {})
    literals = "\n".join(
        [
            f"TURN_STEP = {int(settings.get('turn_bucket', 4))!r}",
            f"DEADWOOD_STEP = {int(settings.get('deadwood_bucket', 10))!r}",
            f"LATE_SCORE = {int(settings.get('late_score', 70))!r}",
            f"DANGER_WEIGHT = {float(DANGER_WEIGHT)!r}",
            f"DRAW_MARGIN = {float(DRAW_MARGIN)!r}",
            f"PRUNE = {int(PRUNE)!r}",
            f"LOOKAHEAD = {int(LOOKAHEAD)!r}",
            f"KNOCK_BONUS = {float(KNOCK_BONUS)!r}",
            f"HORIZON = {float(HORIZON)!r}",
            f"USE_DRAW = {bool(use_draw_table)!r}",
            "# DANGER[picked][passed][rank - 1]: chance the opponent picks the discard up.",
            f"DANGER = {tables['danger']!r}",
            "# DRAW[deadwood // DEADWOOD_STEP][turn // TURN_STEP]: expected stock-draw gain.",
            f"DRAW = {tables['draw']!r}",
            "# KNOCK[deadwood][turn // TURN_STEP][late]: 1 = knock, 0 = play on.",
            f"KNOCK = {tables['knock']!r}",
        ]
    )
    body = TEMPLATE.replace("# --- tables ---", literals)
    source = f'"""{doc}"""\n{body}'
    _check(source, doc, tables)
    return source


def _check(source: str, doc: str, tables: dict[str, tuple]) -> None:
    """The source parses, says what was meant, and imports only the standard library."""
    tree = ast.parse(source)
    if ast.get_docstring(tree, clean=False) != doc:
        raise ValueError("generated docstring does not read back as written")
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in ("DANGER", "DRAW", "KNOCK"):
                found[target.id.lower()] = ast.literal_eval(node.value)
    if found != tables:
        raise ValueError("generated tables do not read back as the fitted tables")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            for name in names:
                root = (name or "").split(".")[0]
                if root not in ALLOWED_IMPORTS or root not in sys.stdlib_module_names:
                    raise ValueError(f"generated code imports {name!r}")


def write_module(
    path: str | Path,
    tables: dict[str, tuple],
    metadata: dict[str, Any],
    validation: dict[str, Any] | None = None,
) -> str:
    source = module_source(tables, metadata, validation)
    Path(path).write_text(source, encoding="utf-8")
    return source

"""A Gin Rummy player over fitted tables: the code of every generated Gin Rummy file.

`mine generate ginrummy` copies this module's code (all but this docstring) into the
file it writes, with the fitted tables in place of the block between `# --- tables` and
`# --- end of tables ---`; standard library only. Here the block holds neutral tables
(a deadwood is worth minus its points, no call or pickup is feared, knock whenever
allowed but for a gin in reach), so the module plays as it stands.

The player carries a compact exact meld solver (the same bit-mask search as
`strategies.engines.melds`), the spec's `pick`, `play` and `melds`, and a memory string
(strictly parsed, a few hundred characters) that follows the round: the discard pile, the
cards the opponent picked up and the ones it discarded or let pass, the stock's size and
its own hand.

How it plays (every value in round points, from the fitted `VALUE` of holding a deadwood
after a play at a turn, `models.ginrummy`):
- draw: take the discard if the worth of the deadwood it leaves beats the exact
  expectation, over the live cards (neither in the discard pile nor known to be in the
  opponent's hand), of the worth a stock draw leaves;
- discard: among the `LOOKAHEAD` discards leaving the least deadwood, the one worth most:
  what the opponent's call on its next play costs that deadwood (fitted `CALLED`), plus,
  if it does not call (fitted `HAZARD`), the expected worth after my next draw — from the
  stock over the live cards, or the opponent's discard where it is worth more, each live
  card being that discard at the fitted `THROWN` rate of its rank (an opponent throwing its
  highest deadwood sends high cards on: a pair of kings fills more often than the stock
  alone says) — less `DANGER_WEIGHT` times the fitted `DANGER` of the opponent picking
  the card up given what it picked and passed (none when the cards it would need to meld
  it are mine or dead);
- knock: gin whenever possible; knock when the fitted `KNOCK` table says knocking is
  worth more than waiting at this score, deadwood and turn (in game-win chance) or the
  opponent knocks more often than the field the table was fitted against, unless
  the opponent in front of it would undercut the knock with a chance above
  1 / `UNDERCUT_WEIGHT` of the chance it calls on its next play if I wait (the fitted
  `HAZARD`, scaled by its knock rate against the field's), less `GIN_WEIGHT` times the
  chance my next draw lets me gin: a knocker is met early, a player that only gins is
  waited out.

Reading the opponent: the memory carries, across the game's rounds, how often the opponent
knocked and how often it held a hand it could have knocked with and did not, read from
how each round ended (the scores tell a knock from a gin and, after my own call, the
opponent's deadwood: an undercut scores 10 + the difference; its gin counts as a knock
declined on the way). With the fitted prior
(`KNOCK_PRIOR`, pseudo-counts of knocks and declines of the opponents the logs show), that
is its knock rate; `HELD` (the fitted chance a logged hand holds at most each deadwood at
that turn) and the fact that it has not called give the chance it holds a deadwood that
undercuts mine.
"""

import re
from itertools import combinations

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
# ABOVE[value]: the cards worth more than `value` points.
ABOVE = tuple(sum(1 << i for i in range(52) if VALUES[i] > value) for value in range(11))
HAND_SIZE = 10
KNOCK_LIMIT = 10
GIN_BONUS = 25
UNDERCUT_BONUS = 10
STOCK_SIZE = 31

# --- tables: a generated file holds the fitted ones here ---------------------------------
TURN_STEP = 4  # plays (both players') per turn bucket
SCORE_STEP = 10  # points per score bucket of the knock policy
# Hand-set, chosen by validation against the baselines: the logs give the chance of a
# pickup (DANGER) but not what a pickup costs the discarder in round points.
DANGER_WEIGHT = 2.0  # round points a certain pickup by the opponent is worth avoiding
# Hand-set for speed (a call must stay well under 10 ms): only the discards leaving the
# least deadwood are looked ahead.
PRUNE = 10  # discards leaving more than the least deadwood + PRUNE are not looked ahead
# Nor are more than this many discards (the best ones by deadwood left): all ten, since 5
# left out discards that pay later (against simple, knocking whenever allowed, 300 games:
# 0.66 → 0.69 won; a call's p99 CPU with all ten is about 1 ms).
LOOKAHEAD = 10
# Hand-set, chosen by validation against never-knock (alone: 1: 6 % of hands lost to an
# undercut, 2: 4 %, 3: 2 %; with `GIN_WEIGHT`, 2: 1.7 %, 1.5: 2.4 %): how many times
# likelier than the opponent's call if I wait an undercut must be unlikely for a knock (an
# undercut costs the knock's gain and the bonus, and `HELD`, of logged hands, runs higher
# than a player's that only gins).
UNDERCUT_WEIGHT = 2.0
# Hand-set, chosen by validation against simple and never-knock: how much the chance my
# next draw gins weighs against the opponent's call if I wait (a gin adds its bonus to what
# the knock would win). A player hunting gin often holds as little deadwood as my knock's:
# without this, knocks at 1 or 2 lost one hand in twelve to undercuts against never-knock.
GIN_WEIGHT = 0.3
# DANGER[picked][passed][rank - 1]: chance the opponent picks the discard up.
DANGER = tuple(tuple((0.0,) * 13 for _ in range(3)) for _ in range(4))
# KNOCK[my score // SCORE_STEP][theirs // SCORE_STEP][deadwood][turn // TURN_STEP]:
# 1 = knock, 0 = play on.
KNOCK = tuple(tuple(tuple((1,) * 8 for _ in range(11)) for _ in range(10)) for _ in range(10))
# VALUE[deadwood][turn // TURN_STEP]: round points that deadwood after a play is
# worth; CALLED: what the opponent's call on its next play is worth to it, on
# average; HAZARD[turn // TURN_STEP]: the chance of that call.
VALUE = tuple((-float(deadwood),) * 8 for deadwood in range(51))
CALLED = tuple((0.0,) * 8 for _ in range(51))
HAZARD = (0.0,) * 8
# THROWN[turn // TURN_STEP][rank - 1]: the chance that an unseen card of that rank
# is the opponent's next discard.
THROWN = tuple((0.0,) * 13 for _ in range(8))
# KNOCK_PRIOR: (knocks, declines), pseudo-counts of the opponents' knock rate where a knock
# was allowed; HELD[turn // TURN_STEP][deadwood]: the chance a hand holds at most that
# deadwood (0 … KNOCK_LIMIT) after a play. Neutral: no hand is feared low.
KNOCK_PRIOR = (1.0, 1.0)
HELD = tuple((0.0,) * 11 for _ in range(8))
# --- end of tables ---


def _melds_by_lowest():
    melds = []
    for rank in range(13):
        bits = [1 << (13 * suit + rank) for suit in range(4)]
        for size in (3, 4):
            for group in combinations(bits, size):
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


BY_LOWEST = _melds_by_lowest()
# VALUE by turn bucket, then by every deadwood ten cards can hold (the table's last row
# stands for the larger ones): the look-ahead reads it once per possible draw.
WORTH = tuple(
    tuple(VALUE[min(left, len(VALUE) - 1)][bucket] for left in range(10 * HAND_SIZE + 1))
    for bucket in range(len(HAZARD))
)


def meldable(hand):
    """The cards of `hand` that belong to at least one meld inside it."""
    run = hand & hand >> 1 & hand >> 2 & START3
    a, b, c, d = hand & BLOCK, hand >> 13 & BLOCK, hand >> 26 & BLOCK, hand >> 39
    ranks = a & b & (c | d) | c & d & (a | b)
    covered = run | run << 1 | run << 2
    if ranks:
        covered |= ranks * SPREAD & hand
    return covered


def reach(hand):
    """The cards outside `hand` that would meld with cards of it: two of their rank, or two
    suit neighbours making a run with them."""
    a, b, c, d = hand & BLOCK, hand >> 13 & BLOCK, hand >> 26 & BLOCK, hand >> 39
    pairs = a & b | c & d | (a | b) & (c | d)
    runs = (
        hand >> 1 & hand >> 2 & START3  # the two above
        | hand << 1 & hand >> 1 & START3 << 1  # one either side
        | hand << 1 & hand << 2 & START3 << 2  # the two below
    )
    return (runs | pairs * SPREAD) & ~hand


# Memo of `_absorbed`: a plain dict of ints, which the garbage collector never walks
# (an lru_cache's entries made each full collection of the host ~18 ms slower). Cleared at
# ABSORBED_LIMIT entries, short of the dict's resize at 43,690, which would cost one call
# several ms.
ABSORBED = {}
ABSORBED_LIMIT = 40_000


def _absorbed(mask):
    # The most deadwood points the melds inside `mask` can absorb.
    value = ABSORBED.get(mask)
    if value is not None:
        return value
    low = mask & -mask
    rest = mask ^ low
    value = _absorbed(rest) if rest else 0
    for meld, points in BY_LOWEST[low.bit_length() - 1]:
        if meld & mask == meld:
            rest = mask ^ meld
            candidate = points + (_absorbed(rest) if rest else 0)
            if candidate > value:
                value = candidate
    if len(ABSORBED) >= ABSORBED_LIMIT:
        ABSORBED.clear()
    ABSORBED[mask] = value
    return value


def hand_points(hand):
    return (
        BLOCK_VALUE[hand & BLOCK]
        + BLOCK_VALUE[hand >> 13 & BLOCK]
        + BLOCK_VALUE[hand >> 26 & BLOCK]
        + BLOCK_VALUE[hand >> 39]
    )


def deadwood(hand):
    cover = meldable(hand)
    return hand_points(hand) - _absorbed(cover) if cover else hand_points(hand)


def least_left(hand, cards, cover):
    """The least deadwood `hand` keeps after discarding one of `cards` (some of its cards),
    `cover` being `meldable(hand)`. Discarding a card in no meld leaves every meld standing,
    so of those only the highest is tried; discarding a melded card leaves the melds of the
    rest of the cover, and beats the highest loose card only if worth more (the rest absorbs
    no more than the cover). The look-ahead asks this hundreds of times a play."""
    kept = 0  # the most points out of the deadwood: the card discarded plus those melded
    loose = cards & ~cover
    melded = cards & cover
    if loose:
        ranks = (loose | loose >> 13 | loose >> 26 | loose >> 39) & BLOCK
        highest = min(ranks.bit_length(), 10)  # the value of the highest rank loose
        kept = highest + (_absorbed(cover) if cover else 0)
        melded &= ABOVE[highest]
    while melded:
        card = melded & -melded
        melded ^= card
        rest = meldable(cover ^ card)
        value = VALUES[card.bit_length() - 1] + (_absorbed(rest) if rest else 0)
        if value > kept:
            kept = value
    return hand_points(hand) - kept


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
    r";c([01])"  # 1 if my last play called
    r";o(\d{1,3}),(\d{1,3})"  # the opponent's knocks and declined knocks this game
)


class Memory:
    __slots__ = ("scores", "hand", "plays", "first", "stock", "last", "dead", "took", "shunned",
                 "called", "knocked", "declined")  # fmt: skip

    def __init__(self, *values):  # in the order of __slots__
        for name, value in zip(self.__slots__, values, strict=True):
            setattr(self, name, value)

    def dump(self):
        last = "-" if self.last is None else str(self.last)
        return (
            f"g1;s{self.scores[0]},{self.scores[1]};h{self.hand:x};p{self.plays};"
            f"f{int(self.first)};n{self.stock};l{last};d{self.dead:x};k{self.took:x};"
            f"x{self.shunned:x};c{int(self.called)};o{self.knocked},{self.declined}"
        )


def parse_memory(text):
    """The memory string back as a Memory; ValueError if it is not one this player wrote."""
    if not isinstance(text, str) or len(text) > 10_000:
        raise ValueError("memory must be a string of at most 10,000 characters")
    found = MEMORY.fullmatch(text)
    if found is None:
        raise ValueError(f"malformed memory {text[:40]!r}")
    s0, s1, hand, plays, first, stock, last, dead, took, shunned, called, knocked, declined = (
        found.groups()
    )
    full = (1 << 52) - 1
    masks = [int(mask, 16) for mask in (hand, dead, took, shunned)]
    if any(mask > full for mask in masks) or int(stock) > STOCK_SIZE:
        raise ValueError("memory holds cards or counts out of range")
    if last != "-" and int(last) >= 52:
        raise ValueError("memory holds a card out of range")
    hand, dead, took, shunned = masks
    return Memory((int(s0), int(s1)), hand, int(plays), first == "1", int(stock),
                  None if last == "-" else int(last), dead, took, shunned, called == "1",
                  int(knocked), int(declined))  # fmt: skip


def _observe(memory, discard_top, scores, opponent_draw, hand):
    """The memory brought up to date with what happened since my last play."""
    mask = mask_of(hand)
    top = 1 << index_of(discard_top)
    scores = (int(scores[0]), int(scores[1]))
    state = None if memory is None else parse_memory(memory)
    if state is None or state.hand != mask or state.scores != scores:
        # A new round: nothing known yet but the discard pile's top, and how the opponent
        # ended the last one.
        knocked, declined = (0, 0) if state is None else _ended(state, scores)
        first = opponent_draw is None
        stock = STOCK_SIZE - (0 if first else int(opponent_draw == "stock"))
        return Memory(scores, mask, 0, first, stock, None, top, 0, top if not first else 0,
                      False, knocked, declined)  # fmt: skip
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
    return Memory(scores, mask, state.plays, state.first, max(stock, 0), state.last, dead | top,
                  took, shunned | top, state.called, state.knocked, state.declined)  # fmt: skip


def _ended(state, scores):
    """(knocked, declined): the opponent's knocks and declined knocks, counting the round
    `state` was in, which ended with the scores `scores`. After my call (or my play that
    ran the stock out) the points tell the opponent's deadwood, which it held since its
    last play: at most the knock limit, it declined a knock. Otherwise it ended the round:
    a knock unless the points are a gin's (25 + my deadwood) or it may have run the stock
    out; a gin after its first plays counts as a declined knock."""
    knocked, declined = state.knocked, state.declined
    mine, won, lost = deadwood(state.hand), scores[0] - state.scores[0], scores[1] - state.scores[1]
    if won < 0 or lost < 0:  # not the next round of this game: nothing to read
        return knocked, declined
    if state.called or state.stock == 0:
        if won and mine == 0:
            theirs = won - GIN_BONUS
        elif won:
            theirs = mine + won
        else:
            theirs = mine + UNDERCUT_BONUS - lost
        if 0 < theirs <= KNOCK_LIMIT and state.plays >= 2:
            declined += 1
    elif state.stock > 1 and lost != GIN_BONUS + mine:
        knocked += 1
    elif state.stock > 1 and state.plays >= 2:
        # Its gin, after plays in which a hand on its way to gin mostly could have knocked.
        declined += 1
    return min(knocked, 999), min(declined, 999)


# --- decisions ---------------------------------------------------------------------------


def _unseen(state, hand):
    return bits(((1 << 52) - 1) & ~hand & ~state.dead & ~state.took)


def _after_draw(hand10, unseen, bucket, thrown=None):
    """The expected worth (`WORTH`, in round points) of the hand after my next draw into
    `hand10` and the best discard of another card than the one drawn: a stock draw is
    one of `unseen` (uniformly); with `thrown` (the chance each rank of them is the
    opponent's discard first, fitted `THROWN`), I take that discard when it is worth more."""
    worth = WORTH[bucket]
    if not unseen:
        return worth[deadwood(hand10)]
    base = least_left(hand10, hand10, meldable(hand10))
    worths = []
    melding = reach(hand10)
    for new in unseen:
        if new & melding:
            grown = hand10 | new
            left = least_left(grown, hand10, meldable(grown))
        else:
            left = VALUES[new.bit_length() - 1] + base
        worths.append(worth[left])
    stock = sum(worths) / len(worths)
    if thrown is None:
        return stock
    gain = 0.0
    for new, value in zip(unseen, worths, strict=True):
        if value > stock:
            gain += thrown[(new.bit_length() - 1) % 13] * (value - stock)
    return stock + gain


def _around(index, steps):
    """The cards `steps` ranks away from card `index` in its suit."""
    rank = index % 13
    return sum(1 << index + step for step in steps if 0 <= rank + step < 13)


# By card index: the others of its rank, its suit neighbours, the cards two ranks away.
KIN = tuple(SPREAD << index % 13 & ~(1 << index) for index in range(52))
NEXT = tuple(_around(index, (-1, 1)) for index in range(52))
NEXT2 = tuple(_around(index, (-2, 2)) for index in range(52))


def relation(index, took, shunned):
    """How a discard (card index) stands to the cards the opponent `took` from the pile and
    those it `shunned` (discarded or let pass) this round: (picked, passed), the fitted
    `DANGER`'s indices and the statistics' categories. Picked: 3 one of its rank, 2 a suit
    neighbour, 1 one two away in its suit, else 0; passed: 2 one of its rank, 1 a suit
    neighbour, else 0."""
    near = 2 if took & NEXT[index] else 1 if took & NEXT2[index] else 0
    picked = 3 if took & KIN[index] else near
    return picked, 2 if shunned & KIN[index] else 1 if shunned & NEXT[index] else 0


def _danger(state, card, mine):
    """The chance the opponent picks `card` up: none if no meld it could make with it
    (given the cards `mine` and those gone dead), else the fitted `DANGER`."""
    if not card & reach(((1 << 52) - 1) & ~mine & ~state.dead):
        return 0.0
    index = card.bit_length() - 1
    picked, passed = relation(index, state.took, state.shunned)
    return DANGER[picked][passed][index % 13]


def _bucket(state, ahead=0):
    """The turn bucket of my play `ahead` plays from now (turns count both players')."""
    turn = 2 * state.plays + (0 if state.first else 1) + ahead
    return min(turn // TURN_STEP, len(HAZARD) - 1)


def _knocks(state):
    """The knock policy at this round's scores."""
    top = len(KNOCK) - 1
    mine, theirs = (min(score // SCORE_STEP, top) for score in state.scores)
    return KNOCK[mine][theirs]


def field_rate():
    """The knock rate of the opponents the logs show (`KNOCK_PRIOR`)."""
    knocks, declines = KNOCK_PRIOR
    return knocks / (knocks + declines)


def knock_rate(state):
    """The opponent's chance of knocking where it may: the fitted prior's pseudo-counts
    with the knocks and declines seen this game."""
    knocks, declines = KNOCK_PRIOR
    return (knocks + state.knocked) / (knocks + declines + state.knocked + state.declined)


def undercut(state, left, bucket):
    """The chance the opponent holds at most `left` (but not gin) now that it has not
    called on its last play: a hand it could knock with stays unknocked at 1 - its knock
    rate (`HELD`: how often a hand holds each deadwood at this turn)."""
    held = HELD[bucket]
    rate = knock_rate(state)
    low = held[left] - held[0]
    rest = 1.0 - held[0] - rate * (held[KNOCK_LIMIT] - held[0])
    return (1.0 - rate) * low / rest if rest > 0 else 0.0


def gin_chance(hand10, unseen):
    """The chance my next stock draw (one of `unseen`) lets my next play gin with `hand10`."""
    if not unseen:
        return 0.0
    outs = 0
    melding = reach(hand10)
    for new in unseen:
        grown = hand10 | new
        if new & melding and least_left(grown, hand10, meldable(grown)) == 0:
            outs += 1
    return outs / len(unseen)


def calls(state, bucket):
    """The chance the opponent calls on its next play: the field's (fitted `HAZARD`), as
    much likelier as its knock rate is than the field's (`KNOCK_PRIOR`)."""
    field = field_rate()
    return min(1.0, HAZARD[bucket] * knock_rate(state) / field) if field > 0 else HAZARD[bucket]


def pick(discard_top, scores, memory, opponent_draw, hand):
    """("stock" | "discard", memory): the draw, after updating what is known."""
    state = _observe(memory, discard_top, scores, opponent_draw, hand)
    mask = state.hand
    top = 1 << index_of(discard_top)
    grown = mask | top
    take = least_left(grown, mask, meldable(grown))
    # Both draws valued alike, by the fitted worth of the deadwood they leave after this
    # play's discard (the stock's over the live cards).
    bucket = _bucket(state)
    if WORTH[bucket][take] > _after_draw(mask, _unseen(state, mask), bucket):
        return "discard", state.dump()
    state.stock -= 1
    return "stock", state.dump()


def play(picked, scores, memory, hand):
    """(("gin" | "knock" | "drop", card), memory): the discard and the call."""
    state = parse_memory(memory)
    drawn = 1 << index_of(picked)
    mask = mask_of(hand)
    full = mask | drawn
    options = sorted((deadwood(full ^ card), card) for card in bits(mask))
    least = options[0][0]
    may_call = state.plays >= 1
    bucket = _bucket(state)
    unseen = _unseen(state, full)
    choice = None
    act = "drop"
    if may_call and least == 0:
        act, choice = "gin", options[0][1]
    elif (
        may_call
        and least <= KNOCK_LIMIT
        # The table's waits assume the field's calls: one that knocks sooner is not waited on.
        and (_knocks(state)[least][bucket] or knock_rate(state) > field_rate())
        and UNDERCUT_WEIGHT * undercut(state, least, bucket)
        + GIN_WEIGHT * gin_chance(full ^ options[0][1], unseen)
        <= calls(state, bucket)
    ):
        act, choice = "knock", options[0][1]
    elif state.stock == 0:
        choice = options[0][1]
    else:
        later = _bucket(state, 2)
        thrown = THROWN[_bucket(state, 1)]
        best = None
        for left, card in options[:LOOKAHEAD]:
            if left > least + PRUNE:
                break
            # The opponent's call on its next play, else my next draw (fitted worths),
            # less what handing the opponent a card it wants costs.
            value = CALLED[min(left, len(CALLED) - 1)][bucket]
            value += (1 - HAZARD[bucket]) * _after_draw(full ^ card, unseen, later, thrown)
            value -= DANGER_WEIGHT * _danger(state, card, full)
            key = (-value, left, card)
            if best is None or key < best:
                best = key
        choice = best[2]
    after = full ^ choice
    state.hand = after
    state.called = act != "drop"
    state.plays += 1
    state.last = choice.bit_length() - 1
    state.dead |= choice
    played = next(card for card in hand if 1 << index_of(card) == choice)
    return (act, played), state.dump()


def melds(scores, memory, hand):
    """A least-deadwood declaration: the melds, then each deadwood card on its own."""
    by_bit = {1 << index_of(card): card for card in hand}
    chosen = arrangement(mask_of(hand))
    rest = mask_of(hand) & ~sum(chosen)  # the melds of an arrangement share no card
    return [tuple(by_bit[card] for card in bits(meld)) for meld in chosen] + [
        (by_bit[card],) for card in bits(rest)
    ]

"""TwentyOne, the reference engine: every rule of `../shared/spec/twentyone.md` in one place.

A game is one `State` (the State API of `state.py`), from `new_game(rules, rng, players)`;
the shoe lives inside the state, drawn from the seeded generator it was given. Actions are
`Bid(n)`, `Hit`, `Stand`, `DoubleDown(n)`, `Split(n)`, `Insurance(n)`, each amount what the
action costs; returns are points won or lost. Cards are ints 0..51 (`DECK[code]`), so a
hand is a list of small ints whose value is kept incrementally. The referee plays games
(bots, and player files behind `course_player`); `log_rows` writes one.

Readings of the spec where it is silent (each a choice, here in one place):
- every hand is asked for a decision, a two-card 21 too (the course engine asks before it
  looks at the hand): Stand, Hit, DoubleDown (a Combo doubled ends at once) or Insurance;
  a Hit makes it a three-card hand, settled as what it becomes; a split hand of two cards
  worth 21 is a Combo too (the spec's definition: exactly two cards worth 21);
- the amounts of DoubleDown, Split and Insurance must be exactly what they cost;
- a player with fewer than `min_bid` points must bid all of them;
- the dealer's two cards are dealt before the players' (the real engine's logs show it:
  the shoe's reshuffles fall where that order puts them); the dealer writes a final Stand
  row even after busting, and its first two cards keep deal order in the log (up card
  first), as players' first two cards do; hits go in front;
- the dealer has no card limit (`dealer_card_limit` 0): it hits while 16 or less however
  many cards it holds, and only a hand of exactly `charlie_cards` cards is its Charlie (a
  6-card dealer hand of 18 is a plain 18; the real logs hold 6- and 7-card dealer hands);
- at a Split both new cards are dealt at once (the kept hand's first), the kept hand keeps
  the first card of the pair, and the new hand is played right after it, before the hands
  of earlier splits (the course engine's order: depth first); hand ids are the order of
  play;
- insurance pays on the bid insured (the main bid when it was bought), even if the hand
  later doubles, and even if it busts: it is settled on the dealer's hand whenever the
  dealer plays (the real logs pay it), and lost when the dealer does not;
- the seats are drawn from the game's generator before the first card (a logged game
  replayed keeps its seats: `seated`); a new game's players are numbered as the server
  numbers them ("1", "2", … in the order given: the ids its players and logs see), a
  logged game keeps its ids; `swapped` exchanges the first two players, so each sits
  where the other sat, under the other's id, on the same shoe;
- a disqualified player's hands of the round are forfeited, its points frozen; it ranks
  after bankrupt players (ties in the standings go by player), and its return is its
  starting points lost: whatever its points, a fault loses the game.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np

from mine.inputs import quoted, type_name
from mine.parsers.cards import DECK, Card
from mine.parsers.twentyone import DEALER, Score, Turn
from mine.strategies.engines import referee
from mine.strategies.engines.settings import RuleSettings
from mine.strategies.engines.state import TERMINAL, IllegalAction
from mine.strategies.players.twentyone import Bid, DoubleDown, Hit, Insurance, Split, Stand

GAME = "twentyone"
UTILITY = "points won or lost over the game (a disqualified player: its starting points)"
ZERO_SUM = False  # every player plays against the dealer

# --- rules --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TwentyOneRules(RuleSettings):
    """Every number of the game; the defaults are the spec's (the 2021 course engine)."""

    decks: int = 3
    starting_points: int = 10000
    min_bid: int = 10
    max_bid: int = 100
    rounds: int = 1000
    charlie: bool = True  # a hand of `charlie_cards` cards ≤ 21 beats every value
    charlie_cards: int = 5
    charlie_bust_first: bool = True  # False: any 5-card hand is Charlie (earlier engine)
    dealer_hits_soft_17: bool = False
    dealer_stands_on: int = 17  # the dealer hits while its total is below this
    dealer_card_limit: int = 0  # 0: none (the engine); n: it stops at n cards (earlier)
    combo_payout: float = 2.5  # paid back per unit of bid, rounded like Haskell's `round`
    win_payout: int = 2
    insurance_payout: float = 2.0
    insurance_on_side_bet: bool = False  # False: 2 × main bid (engine); True: 2 × side bet
    insurance_needs_live_hand: bool = False  # True: a bust insured hand loses it (earlier)
    # Not in the spec; casino-like variants for comparisons (defaults: the spec's behaviour)
    double_on_combo: bool = True  # a DoubleDown on a two-card 21 is legal (paid as a Combo)
    combo_after_split: bool = True  # a split hand of two cards worth 21 is a Combo
    max_players: int = 10
    decision_seconds: float = 1.0
    memory_chars: int = 10000

    BOUNDS: ClassVar[Mapping[str, tuple[float, float]]] = {
        "decks": (1, 16),
        "starting_points": (1, 10**9),
        "min_bid": (1, 10**6),
        "max_bid": (1, 10**6),
        "rounds": (1, 100_000),
        "charlie_cards": (3, 11),
        "dealer_stands_on": (2, 21),
        "dealer_card_limit": (0, 21),
        "combo_payout": (0, 100),
        "win_payout": (0, 100),
        "insurance_payout": (0, 100),
        "max_players": (1, 10),
        "decision_seconds": (0, 60),
        "memory_chars": (0, 10**6),
    }

    def __post_init__(self) -> None:
        checks = (
            (self.decks < 1, "decks must be at least 1"),
            (not 1 <= self.min_bid <= self.max_bid, "need 1 ≤ min_bid ≤ max_bid"),
            (self.starting_points < 1, "starting_points must be positive"),
            (self.rounds < 1, "rounds must be positive"),
            (self.charlie_cards < 3, "charlie_cards must be at least 3"),
            (
                self.dealer_card_limit != 0 and self.dealer_card_limit < 2,
                "dealer_card_limit must be 0 (none) or at least 2",
            ),
            (self.max_players < 1, "max_players must be positive"),
        )
        problems = [problem for failed, problem in checks if failed]
        if problems:
            raise ValueError("; ".join(problems))

    def replace(self, **changes: Any) -> TwentyOneRules:
        return dataclasses.replace(self, **changes)

    def bid_range(self, points: int) -> tuple[int, int]:
        """Legal bids for a player with `points` (> 0): below `min_bid` it may bid it all."""
        return min(self.min_bid, points), min(self.max_bid, points)

    def insurance_return(self, bid: int) -> int:
        base = bid // 2 if self.insurance_on_side_bet else bid
        return round(self.insurance_payout * base)


RULES = TwentyOneRules
DEFAULT_RULES = TwentyOneRules()
Settings = TwentyOneRules | Iterable[str] | Mapping[str, str] | None


def rules_of(rules: Settings) -> TwentyOneRules:
    """The rules themselves, or the defaults with these `KEY=VALUE` settings over them."""
    return rules if isinstance(rules, TwentyOneRules) else DEFAULT_RULES.with_settings(rules or ())


# --- hand classes (Combo > Charlie > Value(n) > Bust), the one place they are decided ------

BUST = -1  # Value(n) is n itself (0..21)
CHARLIE = 30
COMBO = 40


def classify(
    n_cards: int, total: int, rules: TwentyOneRules, split: bool = False, dealer: bool = False
) -> int:
    """The class of a finished hand as an int whose order is the spec's order of classes.
    `split`: a player's hand that a Split made (a Combo only if `rules.combo_after_split`);
    `dealer`: the dealer's, a Charlie only at exactly `charlie_cards` cards (it draws on
    past them)."""
    if n_cards == 2 and total == 21 and (dealer or rules.combo_after_split or not split):
        return COMBO
    five = n_cards == rules.charlie_cards if dealer else n_cards >= rules.charlie_cards
    if rules.charlie and five and (total <= 21 or not rules.charlie_bust_first):
        return CHARLIE
    return BUST if total > 21 else total


def hand_over(n_cards: int, total: int, rules: TwentyOneRules) -> bool:
    """Whether a player's hand takes no more decisions: bust, or as long as a Charlie."""
    return total > 21 or (rules.charlie and n_cards >= rules.charlie_cards)


def dealer_hits(n_cards: int, total: int, soft: bool, rules: TwentyOneRules) -> bool:
    """The dealer's rule: hit while 16 or less (and on soft 17 if the rules say), up to
    `dealer_card_limit` cards if there is one."""
    if rules.dealer_card_limit and n_cards >= rules.dealer_card_limit:
        return False
    return total < rules.dealer_stands_on or (
        rules.dealer_hits_soft_17 and total == rules.dealer_stands_on and soft
    )


def insurance_pays(
    dealer_played: bool, dealer: int, insured_hand: int, rules: TwentyOneRules
) -> bool:
    """Whether insurance pays: the dealer played and holds a Combo (and, under the earlier
    engine's rule, the insured hand is not bust)."""
    if not dealer_played or dealer != COMBO:
        return False
    return not (rules.insurance_needs_live_hand and insured_hand == BUST)


def return_multiple(player: int, dealer: int, rules: TwentyOneRules) -> float:
    """What a hand of `player` class gets back against the dealer's class, per unit of bid."""
    if player == BUST:
        return 0
    if player == COMBO:
        return 1 if dealer == COMBO else rules.combo_payout
    if player > dealer:
        return rules.win_payout
    return 1 if player == dealer else 0


def settle(bid: int, player: int, dealer: int, rules: TwentyOneRules) -> int:
    """What a hand gets back, in points: `round` is banker's rounding, as Haskell's."""
    return round(return_multiple(player, dealer, rules) * bid)


# --- cards and hand values ----------------------------------------------------------------
# Cards are codes 0..51 (`DECK[code]`). A hand's value is one small int, `vs = 2 × total +
# soft` (soft: an ace still counts 11), stepped by table: adding a card is one lookup.

POINTS = tuple(11 if c.rank == 1 else min(c.rank, 10) for c in DECK)  # the ace counted high
VALUE = tuple(min(c.rank, 10) for c in DECK)  # 1..10, ace 1: the index of strategy tables
RANK = tuple(c.rank for c in DECK)
CODE = {card: code for code, card in enumerate(DECK)}


def add_points(total: int, soft: int, points: int) -> tuple[int, int]:
    """(total, soft) after a card of `points`: aces count 11 while the total stays ≤ 21."""
    total += points
    soft += points == 11
    while total > 21 and soft:
        total -= 10
        soft -= 1
    return total, soft


def _step(vs: int, points: int) -> int:
    total, soft = add_points(vs >> 1, vs & 1, points)
    return 2 * total + soft


VS_LIMIT = 2 * 32  # totals reach at most 21 + 10 before a hand stops
ADD: tuple[tuple[int, ...], ...] = tuple(
    tuple(_step(vs, POINTS[code]) if (vs >> 1) <= 21 else vs for code in range(52))
    for vs in range(VS_LIMIT)
)
"""ADD[vs][code]: the value state after adding a card to a hand of value state vs."""


def hand_total(points: Iterable[int]) -> tuple[int, bool]:
    """(total, soft) of a hand of cards worth these `points` (the ace 11), however many
    cards: past 21 too (the value states stop counting there)."""
    total = soft = 0
    for value in points:
        total, soft = add_points(total, soft, value)
    return total, soft > 0


def hand_value(codes: Iterable[int]) -> int:
    vs = 0
    for code in codes:
        vs = ADD[vs][code]
    return vs


# --- actions ------------------------------------------------------------------------------

BID, HIT, STAND, DOUBLE, SPLIT, INSURANCE = range(6)
ACTION_NAMES = ("Bid", "Hit", "Stand", "DoubleDown", "Split", "Insurance")
# Bits of a legal-action mask, as handed to the bots' policies.
CAN_HIT, CAN_STAND, CAN_DOUBLE, CAN_SPLIT, CAN_INSURE = (
    1 << k for k in (HIT, STAND, DOUBLE, SPLIT, INSURANCE)
)


def two_card_plays(pair: bool, combo: bool, insurable: bool, can_double: bool,
                   can_insure: bool, rules: TwentyOneRules) -> int:  # fmt: skip
    """CAN_* bits of a decision on a two-card hand (more cards: Hit or Stand): it may
    split a pair and double (if it has the points), hit (a Combo too: the course engine
    lets a two-card 21 draw), and insure if it is the turn's first decision against an
    up ace (`insurable`)."""
    mask = CAN_HIT | CAN_STAND
    if can_double:
        mask |= CAN_DOUBLE | (CAN_SPLIT if pair else 0)
        if combo and not rules.double_on_combo:
            mask &= ~CAN_DOUBLE
    if insurable and can_insure:
        mask |= CAN_INSURE
    return mask


Action = Bid | Hit | Stand | DoubleDown | Split | Insurance
_KIND = dict(zip(ACTION_NAMES, range(6), strict=True))


def action_kind(action: object) -> tuple[int, int] | None:
    """(kind, amount) of an action, or None if it is not one: an action is known by its
    class's name and amount, so a player file's own classes (standard library only) are
    the engine's. What the class's own code raises as its amount is read (a property's)
    is an IllegalAction: the file's invalid play."""
    kind = _KIND.get(type_name(action))
    if kind is None:
        return None
    try:
        amount = getattr(action, "amount", 0)
    except Exception as error:
        raise IllegalAction(f"{ACTION_NAMES[kind]}'s amount {referee.raised(error)}") from None
    if not isinstance(amount, int) or isinstance(amount, bool):
        return None
    return kind, int.__index__(amount)  # its value: a subclass's comparisons and sums may lie


# --- players ------------------------------------------------------------------------------


class PlayerPoints(NamedTuple):
    player_id: str
    points: int


class PlayerInfo(NamedTuple):
    player_id: str
    cards: tuple[Card, ...]  # newest card first, every hand of the player's latest turn


PlayFunc = Callable[..., tuple[object, str | None]]
"""play(upcard, points, infos, player_id, memory, hand) -> (action, memory)"""


# --- the state ----------------------------------------------------------------------------


class Shoe:
    """`decks` decks dealt continuously; a fresh shuffled shoe follows the last card."""

    __slots__ = ("_rng", "_decks", "_cards", "shuffles")

    def __init__(self, decks: int, rng: np.random.Generator):
        self._rng = rng
        self._decks = decks
        self._cards: list[int] = []
        self.shuffles = 0

    def draw(self) -> int:
        try:
            return self._cards.pop()
        except IndexError:  # the shoe is empty: a fresh one, even in the middle of a round
            self._cards = self._rng.permutation(np.tile(np.arange(52), self._decks)).tolist()
            self.shuffles += 1
            return self._cards.pop()

    def stack(self, codes: Sequence[int]) -> None:
        """Put these cards on top, `codes[0]` dealt first (for tests and replays)."""
        self._cards.extend(reversed(codes))

    def __len__(self) -> int:
        return len(self._cards)


class Hand:
    """One hand of a round. `cards` are in log order: a hit goes in front, the first two keep
    their deal order, and a split hand is `[original card, new card]`."""

    __slots__ = ("cards", "vs", "bid", "hand_id", "pending", "insured", "split")

    def __init__(self, cards: list[int], bid: int, hand_id: int):  # a hand starts with two cards
        self.cards = cards
        self.vs = ADD[ADD[0][cards[0]]][cards[1]]
        self.bid = bid
        self.hand_id = hand_id
        self.pending = 0  # after DoubleDown: HIT, then STAND, is the only legal action
        self.insured = 0  # the bid insured (main hand only); the side bet is bid // 2
        self.split = hand_id > 0  # hand 0 becomes a split hand when it splits


Row = tuple[tuple[int, ...], int, int, int, int]
"""One logged decision: (card codes in log order, seat or DEALER_SEAT, hand id, action kind,
bid after the action). Plain tuples: the engine makes several per hand."""


class RoundRecord(NamedTuple):
    round: int
    upcard: int | None  # None only when no bid was valid (nothing dealt)
    rows: tuple[Row, ...]
    points: tuple[int, ...]  # every seat's points after the round, seat order


DEALER_SEAT = -1


class State:
    """A whole game: rounds of bids, decisions, the dealer's play and settlement. `players`
    are the players as the game was given them, `ids` what the table calls them (both in
    seat order)."""

    def __init__(self, rules: TwentyOneRules, players: Sequence[str], ids: Sequence[str],
                 rng: np.random.Generator):  # fmt: skip
        self.rules = rules
        self.players, self.ids = tuple(players), tuple(ids)
        self.shoe = Shoe(rules.decks, rng)
        self.points = [rules.starting_points] * len(self.ids)
        self.bankrupt_round: list[int | None] = [None] * len(self.ids)
        self.disqualified: list[str | None] = [None] * len(self.ids)
        self.records: list[RoundRecord] = []
        self.infos: dict[int, list[Hand] | list[int]] = {}  # seat → latest hands; dealer → cards
        self.round = 0
        # hand class by (number of cards, value state): `classify` decided once per rules
        self._class, self._split_class, self._dealer_class = (
            [[classify(n, vs >> 1, rules, **kind) for vs in range(VS_LIMIT)] for n in range(32)]
            for kind in ({}, {"split": True}, {"dealer": True})
        )
        self._terminal = False
        self._start_round()

    # -- whose turn, what they may do --

    def is_terminal(self) -> bool:
        return self._terminal

    def current_player(self) -> int:
        """The seat to decide, or TERMINAL."""
        return TERMINAL if self._terminal else self._seat

    def is_bidding(self) -> bool:
        return self._bidding

    def current_hand(self) -> Hand:
        return self._hands[self._seat][self._hand]

    def legal_mask(self) -> int:
        """CAN_* bits of the current decision (not bidding)."""
        hand = self._hands[self._seat][self._hand]
        if hand.pending:
            return 1 << hand.pending
        cards = hand.cards
        if len(cards) != 2:
            return CAN_HIT | CAN_STAND
        points, bid = self.points[self._seat], hand.bid
        return two_card_plays(RANK[cards[0]] == RANK[cards[1]], self._is_combo(hand),
                              self._first and VALUE[self._dealer[0]] == 1, points >= bid,
                              points >= bid // 2, self.rules)  # fmt: skip

    def _is_combo(self, hand: Hand) -> bool:
        """Two cards worth 21 (the caller knows there are two): a Combo, which a DoubleDown
        ends at once."""
        return hand.vs >> 1 == 21 and (self.rules.combo_after_split or not hand.split)

    def legal_actions(self) -> list[Action]:
        if self._terminal:
            return []
        if self._bidding:
            low, high = self.rules.bid_range(self.points[self._seat])
            return [Bid(n) for n in range(low, high + 1)]
        mask = self.legal_mask()
        return [self.action(k) for k in range(1, 6) if mask >> k & 1]

    def action(self, kind: int) -> Action:
        """The action of this kind on the current hand, with what it costs."""
        if kind in (HIT, STAND):
            return Hit() if kind == HIT else Stand()
        bid = self.current_hand().bid
        amount = {DOUBLE: bid, SPLIT: bid, INSURANCE: bid // 2}.get(kind, 0)
        return {BID: Bid, DOUBLE: DoubleDown, SPLIT: Split, INSURANCE: Insurance}[kind](amount)

    def situation(self) -> tuple[int, int, bool, int, int]:
        """(up, total, soft, n_cards, pair) of the current hand, as the bots' policies and
        the evaluator see it: the up card's value 1..10 (ace 1), whether an ace counts 11,
        the rank a two-card hand pairs (0: none)."""
        hand = self._hands[self._seat][self._hand]
        cards = hand.cards
        pair = RANK[cards[0]] if len(cards) == 2 and RANK[cards[0]] == RANK[cards[1]] else 0
        return VALUE[self._dealer[0]], hand.vs >> 1, bool(hand.vs & 1), len(cards), pair

    def why_illegal(self, kind: int, amount: int) -> str | None:
        """None if (kind, amount) is legal now, else the reason."""
        name = ACTION_NAMES[kind] if 0 <= kind < 6 else f"action {kind}"
        if self._terminal:
            return "the game is over"
        points = self.points[self._seat]
        if self._bidding:
            if kind != BID:
                return f"{name} while bidding: the first action of a round is Bid"
            low, high = self.rules.bid_range(points)
            if not low <= amount <= high:
                return f"Bid {quoted(amount)} outside {low}..{high} (points {points})"
            return None
        if kind == BID:
            return "Bid after the bidding"
        if self.legal_mask() >> kind & 1:
            bid = self.current_hand().bid
            cost = {DOUBLE: bid, SPLIT: bid, INSURANCE: bid // 2}.get(kind)
            if cost is not None and amount != cost:
                return f"{name} {quoted(amount)}: it costs exactly {cost}"
            return None
        return self._reason(kind)

    def _reason(self, kind: int) -> str:
        hand = self.current_hand()
        name, cards, points = ACTION_NAMES[kind], hand.cards, self.points[self._seat]
        if hand.pending:
            return f"{name} after DoubleDown: must {ACTION_NAMES[hand.pending]}"
        if kind == DOUBLE and len(cards) == 2 and self._is_combo(hand) and points >= hand.bid:
            return "DoubleDown on a Combo is off in these rules (double_on_combo=false)"
        if kind == DOUBLE:
            if len(cards) != 2:
                return f"DoubleDown on a {len(cards)}-card hand: only on two cards"
            return f"DoubleDown costs {hand.bid}, only {points} points left"
        if kind == SPLIT:
            if len(cards) != 2 or RANK[cards[0]] != RANK[cards[1]]:
                return "Split without two cards of the same rank"
            return f"Split costs {hand.bid}, only {points} points left"
        if kind == INSURANCE:
            if VALUE[self._dealer[0]] != 1:
                return "Insurance when the up card is not an ace"
            if not self._first:
                return "Insurance after the first action of the hand"
            return f"Insurance costs {hand.bid // 2}, only {points} points left"
        return f"{name} is not legal here"

    # -- applying actions --

    def apply_action(self, action: object) -> None:
        """Apply a legal action of the current player; IllegalAction says why not."""
        parsed = action_kind(action)
        if parsed is None:
            raise IllegalAction(f"not an action: {quoted(action)}")
        kind, amount = parsed
        reason = self.why_illegal(kind, amount)
        if reason is not None:
            raise IllegalAction(reason)
        if self._bidding:
            seat = self._seat
            self.points[seat] -= amount
            self._bids[seat] = amount
            self._rows.append(((), seat, 0, BID, amount))
            self._next_bidder()
        else:
            self._play(kind)

    def _play(self, kind: int) -> None:
        """A decision on the current hand, found legal."""
        seat = self._seat
        hand = self._hands[seat][self._hand]
        self._first = False
        if kind == HIT:
            code = self.shoe.draw()
            cards = hand.cards
            cards.insert(0, code)
            hand.vs = vs = ADD[hand.vs][code]
            if hand.pending:
                hand.pending = STAND
            self._rows.append((tuple(cards), seat, hand.hand_id, HIT, hand.bid))
            if hand_over(len(cards), vs >> 1, self.rules):
                self._next_hand()  # no row follows a bust or a Charlie-length hand
        elif kind == STAND:
            self._rows.append((tuple(hand.cards), seat, hand.hand_id, STAND, hand.bid))
            self._next_hand()
        elif kind == DOUBLE:
            self.points[seat] -= hand.bid
            hand.bid *= 2
            self._rows.append((tuple(hand.cards), seat, hand.hand_id, DOUBLE, hand.bid))
            if self._is_combo(hand):  # a Combo doubled: ends at once, paid as a Combo
                self._next_hand()
            else:
                hand.pending = HIT
        elif kind == SPLIT:
            self.points[seat] -= hand.bid
            self._rows.append((tuple(hand.cards), seat, hand.hand_id, SPLIT, hand.bid))
            hands = self._hands[seat]
            kept, moved = hand.cards
            draw = self.shoe.draw
            hand.cards = [kept, draw()]  # each split hand is [original card, new card]
            hand.vs = hand_value(hand.cards)
            hand.split = True
            # the new hand is played next, before the hands of earlier splits (the course
            # engine plays a split's two hands depth first); ids follow the order of play
            hands.insert(self._hand + 1, Hand([moved, draw()], hand.bid, self._hand + 1))
            for later in range(self._hand + 2, len(hands)):
                hands[later].hand_id = later
        elif kind == INSURANCE:
            self.points[seat] -= hand.bid // 2
            hand.insured = hand.bid
            self._rows.append((tuple(hand.cards), seat, hand.hand_id, INSURANCE, hand.bid))

    # -- turn order --

    def _start_round(self) -> None:
        active = [s for s, p in enumerate(self.points) if p > 0 and self.disqualified[s] is None]
        if not active or self.round >= self.rules.rounds:
            self._terminal = True
            return
        self.round += 1
        self._rows: list[Row] = []
        self._bids: dict[int, int] = {}
        self._queue = active
        self._bidding = True
        self._qi = 0
        self._seat = active[0]

    def _next_bidder(self) -> None:
        self._qi += 1
        queue = self._queue
        while self._qi < len(queue) and self.disqualified[queue[self._qi]] is not None:
            self._qi += 1
        if self._qi < len(queue):
            self._seat = queue[self._qi]
        else:
            self._deal()

    def _deal(self) -> None:
        self._bidding = False
        seats = [s for s in self._queue if s in self._bids and self.disqualified[s] is None]
        self._playing = seats
        if not seats:
            self._end_round(None)
            return
        draw = self.shoe.draw
        bids = self._bids
        self._dealer = [draw(), draw()]  # dealt first; the first card is the up card
        self._hands: dict[int, list[Hand]] = {
            s: [Hand([draw(), draw()], bids[s], 0)] for s in seats
        }
        self._pi = 0
        self._seat = seats[0]
        self._hand = 0
        self._first = True

    def _next_hand(self) -> None:
        self._hand += 1
        if self._hand >= len(self._hands[self._seat]):
            self._end_turn()

    def _end_turn(self) -> None:
        self.infos[self._seat] = self._hands[self._seat]
        self._pi += 1
        playing = self._playing
        while self._pi < len(playing) and self.disqualified[playing[self._pi]] is not None:
            self._pi += 1
        if self._pi < len(playing):
            self._seat = playing[self._pi]
            self._hand = 0
            self._first = True
        else:
            self._dealer_plays()

    def disqualify(self, seat: int, reason: str) -> None:
        """End a player's game: its hands this round are forfeited, its points frozen."""
        self.disqualified[seat] = reason
        if self._terminal or seat != self._seat:
            return
        if self._bidding:
            self._next_bidder()
        else:
            self._hands[seat] = []
            self._end_turn()

    # -- dealer and settlement --

    def _dealer_plays(self) -> None:
        rules, table, split_table = self.rules, self._class, self._split_class
        live = [s for s in self._playing if self.disqualified[s] is None]
        dealer = self._dealer
        upcard = dealer[0]
        rows = self._rows
        played = any(table[len(h.cards)][h.vs] != BUST for s in live for h in self._hands[s])
        if played:
            vs = hand_value(dealer)
            while dealer_hits(len(dealer), vs >> 1, vs & 1 == 1, rules):
                code = self.shoe.draw()
                dealer.insert(0, code)
                vs = ADD[vs][code]
                rows.append((tuple(dealer), DEALER_SEAT, 0, HIT, 0))
            rows.append((tuple(dealer), DEALER_SEAT, 0, STAND, 0))
            self.infos[DEALER_SEAT] = dealer
            dealer_class = self._dealer_class[min(len(dealer), 31)][vs]
        else:  # every hand bust: the dealer does not play, its hole card stays hidden
            rows.append(((upcard,), DEALER_SEAT, 0, STAND, 0))
            self.infos[DEALER_SEAT] = [upcard]
            dealer_class = BUST  # insurance is lost, Combo or not
        points, hands = self.points, self._hands
        for seat in live:
            won = 0
            for hand in hands[seat]:
                final = (split_table if hand.split else table)[len(hand.cards)][hand.vs]
                if hand.insured and insurance_pays(played, dealer_class, final, rules):
                    won += rules.insurance_return(hand.insured)
                if final != BUST:
                    won += settle(hand.bid, final, dealer_class, rules)
            points[seat] += won
        self._end_round(upcard)

    def _end_round(self, upcard: int | None) -> None:
        for seat, pts in enumerate(self.points):
            if pts == 0 and self.bankrupt_round[seat] is None and self.disqualified[seat] is None:
                self.bankrupt_round[seat] = self.round
        self.records.append(RoundRecord(self.round, upcard, tuple(self._rows), tuple(self.points)))
        self._start_round()

    # -- results --

    def returns(self) -> tuple[float, ...]:
        """Points won or lost by each seat (seat order) once the game is over, else 0.0; a
        disqualified seat's starting points lost."""
        if not self._terminal:
            return (0.0,) * len(self.ids)
        start = self.rules.starting_points
        return tuple(float(-start if out else p - start)
                     for p, out in zip(self.points, self.disqualified, strict=True))  # fmt: skip

    def num_players(self) -> int:
        return len(self.ids)

    def clone(self) -> State:
        """An independent copy (its shoe's generator too); the class tables are shared:
        nothing changes them."""
        shared = (self.rules, self._class, self._split_class, self._dealer_class)
        return copy.deepcopy(self, {id(x): x for x in shared})

    def standings(self) -> list[str]:
        """The players, best first: those with points by points; then bankrupt players,
        later bankruptcy first; then disqualified players."""

        def key(seat: int) -> tuple[int, int, str]:
            if self.disqualified[seat] is not None:
                return (2, 0, self.players[seat])
            if self.points[seat] > 0:
                return (0, -self.points[seat], self.players[seat])
            return (1, -(self.bankrupt_round[seat] or 0), self.players[seat])

        return [self.players[s] for s in sorted(range(len(self.ids)), key=key)]

    # -- what a player sees --

    def observation(
        self, seat: int
    ) -> tuple[Card | None, tuple[PlayerPoints, ...], tuple[PlayerInfo, ...], tuple[Card, ...]]:
        """(upcard, points, infos, hand) as the spec's `play` receives them. Infos are in
        seat order, the dealer last, each the cards of that player's latest turn."""
        up = None if self._bidding else DECK[self._dealer[0]]
        # As the course engine: only the players in this round (those with points when it
        # began), not the bankrupt ones.
        points = tuple(PlayerPoints(self.ids[s], self.points[s]) for s in self._queue)
        infos = []
        for s in range(len(self.ids)):
            if s in self.infos:
                cards = tuple(DECK[c] for h in self.infos[s] for c in h.cards)  # type: ignore[union-attr]
                infos.append(PlayerInfo(self.ids[s], cards))
        if DEALER_SEAT in self.infos:
            cards = tuple(DECK[c] for c in self.infos[DEALER_SEAT])  # type: ignore[union-attr]
            infos.append(PlayerInfo(DEALER, cards))
        hand = () if self._bidding else tuple(DECK[c] for c in self.current_hand().cards)
        return up, points, tuple(infos), hand


def new_game(
    rules: TwentyOneRules,
    rng: np.random.Generator,
    players: Sequence[str] = ("1",),
    swapped: bool = False,
    seated: bool = False,
) -> State:
    """A game from its start, before the first bid: `players` seated in an order drawn
    from `rng` and numbered as the server numbers them, or, if `seated`, in this order
    under these ids (a logged game replayed); `swapped`: the first two exchanged at the
    table (see the module's docstring)."""
    players = list(players)
    if not 1 <= len(players) <= rules.max_players:
        raise ValueError(f"a table seats 1 to {rules.max_players} players")
    if len(set(players)) != len(players) or (seated and DEALER in players):
        raise ValueError("player ids must be distinct and not 'dealer'")
    if swapped:
        players[:2] = players[1::-1]
    order = range(len(players)) if seated else rng.permutation(len(players)).tolist()
    ids = players if seated else [str(k + 1) for k in range(len(players))]
    return State(rules, [players[k] for k in order], [ids[k] for k in order], rng)


NUM_PLAYERS = range(1, 11)  # `rules.max_players` may seat fewer
FORFEIT = referee.seat_out  # a fault ends the player's game; the table plays on
ONE_GAME_A_FILE = True  # a log pair holds one game, as the server writes it
GAMES_PER_TASK = 50  # a task of a simulation: a few seconds of play, about 10 MB of logs
LOG_BYTES_PER_DECISION = 200  # a round's rows of one seat, generously (about 140 measured)


def limits(rules: TwentyOneRules) -> referee.Limits:
    return referee.Limits(rules.decision_seconds, rules.memory_chars)


def log_bytes(rules: TwentyOneRules, players: int) -> int:
    return rules.rounds * players * LOG_BYTES_PER_DECISION


def course_player(play: PlayFunc) -> referee.Course:
    """A player with the spec's interface as the referee calls it: its `play` is asked
    with what the seat's `observation` shows, and answers (action, memory). Its next bid
    gets the memory it returned on the last play of its first hand, as the course engine
    keeps it: what it returned while playing split hands is lost."""
    first_hand: list[str | None] = []  # that memory, while the round's split hands play

    def call(state: State, seat: int, memory: str | None) -> tuple:
        if state.is_bidding():
            if first_hand:
                memory = first_hand.pop()
        elif not first_hand and state.current_hand().hand_id > 0:
            first_hand.append(memory)  # the first hand is over: its split hands begin
        upcard, points, infos, hand = state.observation(seat)
        return play, (upcard, points, infos, state.ids[seat], memory, hand), _action_and_memory

    return referee.Course(call)


def _action_and_memory(result: object) -> tuple[object, object]:
    parts = referee.items(result) if isinstance(result, tuple) else None
    if parts is None or len(parts) != 2:
        raise referee.Fault(f"returned {quoted(result)}, not (action, memory)")
    return parts


# --- logs: a played game as the server's turn and score files, from one player's view ---


def log_rows(state: State, game: int = 1, me: str | None = None) -> tuple[list[Turn], list[Score]]:
    """The game's turn rows (in play order) and score rows (your points, then the others'
    sorted by id as text) from player `me`'s point of view (the first seat's if None); a
    log pair holds one game, so `game` is not written."""
    seat = 0 if me is None else state.players.index(me)
    ids = state.ids
    names = [(i, s == seat) for s, i in enumerate(ids)]
    turns = []
    for record in state.records:
        if record.upcard is None:
            continue
        upcard = DECK[record.upcard]
        for cards, at, hand_id, kind, bid in record.rows:
            player, mine = (DEALER, False) if at == DEALER_SEAT else names[at]
            hand = tuple([DECK[c] for c in cards])
            turns.append(Turn(record.round, hand, player, mine, hand_id, ACTION_NAMES[kind], bid,
                              upcard))  # fmt: skip
    others = sorted((s for s in range(len(ids)) if s != seat), key=ids.__getitem__)
    scores = [Score(r.round, r.points[seat], tuple(r.points[s] for s in others))
              for r in state.records]  # fmt: skip
    return turns, scores

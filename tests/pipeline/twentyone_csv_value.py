"""What a chart written as CSV (`mine report twentyone --format csv`) is worth when played
as written, computed from its rows alone, as a tool outside mine would: the spec's rules
(`../shared/spec/twentyone.md`) for one player alone at the table, an infinite deck (each
rank 1/13), per hand per unit of bid. Nothing of mine's engine, solver or chart is used.

A hand is played by the row of its context (`main`; `insured` once insurance is taken;
`split` for every hand a Split made), its kind (a two-card pair by its `pair` row, else
hard or soft by its total) and its cards (5: five or more); `double` on more than two
cards is a Hit. A split's hands are independent in an infinite deck: a half that draws
its pair's rank again splits again where the `split` context's pair row says so.
"""

from __future__ import annotations

from functools import cache

BUST, CHARLIE, COMBO = -1, 30, 40  # a hand's class; values 0..21 between Bust and Charlie
CHANCE = {v: (4 if v == 10 else 1) / 13 for v in range(1, 11)}  # a card's value, ace 1
SAME_RANK = 1 / 13  # the next card has the rank of a given card
RESPLITS = 40  # re-splits followed (each is 1/13 likely: what is left is below 1e-40)


def add(total: int, aces: int, value: int) -> tuple[int, int]:
    """(total, aces counted 11) after a card: an ace counts 11 while the total stays ≤ 21."""
    total, aces = total + (11 if value == 1 else value), aces + (value == 1)
    while total > 21 and aces:
        total, aces = total - 10, aces - 1
    return total, aces


def player_class(total: int, n: int) -> int:
    if n == 2 and total == 21:
        return COMBO
    if total > 21:
        return BUST
    return CHARLIE if n >= 5 else total


@cache
def dealer(total: int, aces: int, n: int) -> tuple[tuple[int, float], ...]:
    """The dealer's final class from this hand: it hits while below 17 (a soft 17
    stands), without a card limit; only exactly five cards ≤ 21 are its Charlie."""
    if total >= 17:
        if n == 2 and total == 21:
            return ((COMBO, 1.0),)
        if total > 21:
            return ((BUST, 1.0),)
        return ((CHARLIE if n == 5 else total, 1.0),)
    found: dict[int, float] = {}
    for value, chance in CHANCE.items():
        for cls, p in dealer(*add(total, aces, value), n + 1):
            found[cls] = found.get(cls, 0.0) + chance * p
    return tuple(found.items())


@cache
def dealer_after(up: int) -> tuple[tuple[int, float], ...]:
    return dealer(*add(0, 0, up), 1)


def paid(player: int, dealer_class: int) -> float:
    """What a hand gets back per unit of its bid."""
    if player == BUST:
        return 0.0
    if player == COMBO:
        return 1.0 if dealer_class == COMBO else 2.5
    return 2.0 if player > dealer_class else 1.0 if player == dealer_class else 0.0


def settled(cls: int, stake: float, up: int, insured: bool) -> float:
    """A finished hand's net; an insured one also gets 2 × its bid back on a dealer
    Combo (the dealer plays: this hand is live). A bust hand loses its stake."""
    if cls == BUST:
        return -stake
    net = sum(p * stake * (paid(cls, d) - 1.0) for d, p in dealer_after(up))
    if insured:
        net += 2.0 * dict(dealer_after(up)).get(COMBO, 0.0)
    return net


class Reading:
    """The CSV's rows as a player reads them, and what each hand is worth played by them."""

    def __init__(self, rows: list[dict[str, str]]):
        self.rows = {
            (r["context"], r["kind"], r["total_or_pair_rank"], int(r["n_cards"]), r["upcard"]):
            r for r in rows
        }  # fmt: skip

    def row(self, context: str, up: int, total: int, aces: int, n: int, pair: int) -> dict:
        up_name = "A" if up == 1 else str(up)
        if pair:
            return self.rows[context, "pair", "A" if pair == 1 else str(pair), 2, up_name]
        kind = "soft" if aces else "hard"
        return self.rows[context, kind, str(total), min(n, 5), up_name]

    @cache  # noqa: B019 (one reading per test)
    def hand(self, context: str, up: int, total: int, aces: int, n: int, pair: int):
        """(value, chance of busting) of a live hand played by the rows from here."""
        insured = context == "insured"
        if total > 21 or n >= 5:
            cls = player_class(total, n)
            return settled(cls, 1.0, up, insured), float(cls == BUST)
        action = self.row(context, up, total, aces, n, pair)["best_action"]
        if action == "stand":
            return settled(player_class(total, n), 1.0, up, insured), 0.0
        if action == "double" and n == 2:
            if total == 21:  # a Combo doubled ends at once, paid as a Combo on 2 × the bid
                return settled(COMBO, 2.0, up, insured), 0.0
            value = bust = 0.0
            for card, chance in CHANCE.items():
                t, _ = add(total, aces, card)
                cls = player_class(t, 3)
                value += chance * settled(cls, 2.0, up, insured)
                bust += chance * (cls == BUST)
            return value, bust
        value = bust = 0.0  # hit (and double on more cards: a Hit)
        for card, chance in CHANCE.items():
            v, b = self.hand(context, up, *add(total, aces, card), n + 1, 0)
            value, bust = value + chance * v, bust + chance * b
        return value, bust

    @cache  # noqa: B019
    def half(self, up: int, card: int, depth: int):
        """(value, chance that every hand busts) of one hand a split of `card`s starts,
        and of the hands its own splits make."""
        value = bust = 0.0
        for drawn, chance in CHANCE.items():
            other = chance - (SAME_RANK if drawn == card else 0.0)  # not the same rank
            if other > 0:
                v, b = self.hand("split", up, *add(*add(0, 0, card), drawn), 2, 0)
                value, bust = value + other * v, bust + other * b
        again = self.row("split", up, 0, 0, 2, card)["best_action"] == "split" and depth
        if again:
            v, b = self.half(up, card, depth - 1)
            v, b = 2 * v, b * b
        else:
            v, b = self.hand("split", up, *add(*add(0, 0, card), card), 2, card)
        return value + SAME_RANK * v, bust + SAME_RANK * b

    def dealt(self, context: str, up: int, v1: int, v2: int, pair: bool) -> float:
        """A dealt hand's first decision in `context` (main, or insured: the side bet paid)."""
        if pair and self.row(context, up, 0, 0, 2, v1)["best_action"] == "split":
            half, bust = self.half(up, v1, RESPLITS)
            value = 2 * half
            if context == "insured":  # the dealer plays unless every hand of the split busts
                value += 2.0 * dict(dealer_after(up)).get(COMBO, 0.0) * (1 - bust * bust)
        else:
            total, aces = add(*add(0, 0, v1), v2)
            value, _ = self.hand(context, up, total, aces, 2, v1 if pair else 0)
        return value - (0.5 if context == "insured" else 0.0)


def csv_value(rows: list[dict[str, str]]) -> float:
    """The value per hand per unit of bid of playing the CSV's rows as written."""
    reading = Reading(rows)
    total = 0.0
    for up, up_chance in CHANCE.items():
        for v1 in CHANCE:
            for v2 in CHANCE:
                if v2 < v1:
                    continue
                chance = CHANCE[v1] * CHANCE[v2] * (1 if v1 == v2 else 2)
                same = 0.25 if v1 == v2 == 10 else 1.0 if v1 == v2 else 0.0  # tens: one rank
                for pair, share in ((True, same), (False, 1 - same)):
                    if share:
                        total += up_chance * chance * share * first(reading, up, v1, v2, pair)
    return total


def first(reading: Reading, up: int, v1: int, v2: int, pair: bool) -> float:
    """A dealt hand: insured where its main row says so (an ace up), else played."""
    total, aces = add(*add(0, 0, v1), v2)
    kind = ("pair", "A" if v1 == 1 else str(v1)) if pair else (
        "soft" if aces else "hard", str(total))  # fmt: skip
    if up == 1 and reading.rows["main", *kind, 2, "A"]["insure"] == "1":
        return reading.dealt("insured", up, v1, v2, pair)
    return reading.dealt("main", up, v1, v2, pair)

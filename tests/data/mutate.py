"""A seeded mutator of log pairs: one change to a valid pair, and what ingest must make of it.

Every mutant says whether it must be rejected (it breaks the format or the game's rules
whatever else the log holds) and, when it is rejected, which lines may be named: the
changed line itself for a format error; for a broken rule, the lines of the round (or Hog
game) it touched, in either file, since the rules tie a round's rows and its score row
together (a changed bid shows at the Bid row or where the hand's bid disagrees with it).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import NamedTuple

HUGE = "99999999999"  # past the warehouse's INTEGER


class Base(NamedTuple):
    """A valid pair: its game, stem and lines (without line endings)."""

    game: str
    stem: str
    turns: list[str]
    scores: list[str]


@dataclass
class Mutant:
    kind: str
    game: str
    stem: str
    turns: list[str]
    scores: list[str]
    must_reject: bool
    # (role, line) pairs an error may name; None: any line of the pair
    allowed: set[tuple[str, int]] | None = field(default=None)
    # rows (by index) that end in a lone LF instead of the server's CRLF, by role
    lf_rows: dict[str, set[int]] = field(default_factory=dict)
    name: str = ""  # added to the pair's file names: characters a path may hold

    def data(self, role: str) -> bytes:
        rows = self.turns if role == "turns" else self.scores
        lf = self.lf_rows.get(role, set())
        return "".join(row + ("\n" if i in lf else "\r\n") for i, row in enumerate(rows)).encode()


def unit(row: str) -> int | None:
    """The round (or Hog game) a line belongs to: its first field."""
    head = row.split(",", 1)[0]
    return int(head) if head.isdigit() and len(head) < 10 else None


def round_lines(mutant: Mutant, units: set[int | None]) -> set[tuple[str, int]]:
    """Every line of these rounds in both files, as (role, line)."""
    allowed = {("turns", n) for n, row in enumerate(mutant.turns, 1) if unit(row) in units}
    allowed |= {("scores", n) for n, row in enumerate(mutant.scores, 1) if unit(row) in units}
    return allowed


INTEGER_COLUMNS = {
    "twentyone": {"turns": (0, 4, 6), "scores": (0, 1)},
    "ginrummy": {"turns": (0,), "scores": (0, 1, 2)},
    "hog": {"turns": (0, 1, 3, 4, 5, 7, 8), "scores": (0, 2, 3)},
}
TEXT_COLUMNS = {
    "twentyone": {"turns": (2, 5, 7), "scores": ()},
    "ginrummy": {"turns": (3, 4, 5), "scores": (3,)},
    "hog": {"turns": (2,), "scores": (1, 4)},
}
CARDS = [s + r for s in "SHDC" for r in ("A", *map(str, range(2, 11)), "J", "Q", "K")]


class Mutator:
    def __init__(self, rng: random.Random):
        self.rng = rng

    def mutate(self, base: Base, other: Base | None = None) -> Mutant:
        """One mutant of `base` (`other`: another pair of the same game, for a score file
        that belongs to another log)."""
        kinds = [*GENERIC, *SPECIFIC.get(base.game, ())]
        if other is not None:
            kinds.append(other_scores)
        while True:
            mutant = Mutant("", base.game, base.stem, list(base.turns), list(base.scores), True)
            kind = self.rng.choice(kinds)
            mutant.kind = kind.__name__
            done = kind(self, mutant, other) if kind is other_scores else kind(self, mutant)
            changed = (mutant.turns, mutant.scores) != (base.turns, base.scores)
            if done and (changed or mutant.lf_rows):
                if self.rng.random() < 0.2:  # the same change, with some lines ending in LF
                    line_endings(self, mutant, keep_verdict=True)
                if self.rng.random() < 0.15:
                    mutant.name = self.rng.choice(ODD_NAMES)
                return mutant

    def line(self, rows: list[str]) -> int:
        return self.rng.randrange(len(rows))

    def role(self) -> str:
        return self.rng.choice(("turns", "scores"))


def _rows(mutant: Mutant, role: str) -> list[str]:
    return mutant.turns if role == "turns" else mutant.scores


def _set_field(mutant: Mutant, role: str, index: int, column: int, value: str) -> None:
    rows = _rows(mutant, role)
    fields = rows[index].split(",")
    fields[column] = value
    rows[index] = ",".join(fields)


def _exactly(mutant: Mutant, role: str, index: int) -> bool:
    mutant.allowed = {(role, index + 1)}
    return True


# --- format: the changed line itself must be named ---------------------------------------


def overflow(m: Mutator, mutant: Mutant) -> bool:
    role = m.role()
    index = m.line(_rows(mutant, role))
    _set_field(mutant, role, index, m.rng.choice(INTEGER_COLUMNS[mutant.game][role]), HUGE)
    return _exactly(mutant, role, index)


def negative(m: Mutator, mutant: Mutant) -> bool:
    role = m.role()
    index = m.line(_rows(mutant, role))
    _set_field(mutant, role, index, m.rng.choice(INTEGER_COLUMNS[mutant.game][role]), "-1")
    return _exactly(mutant, role, index)


def markup(m: Mutator, mutant: Mutant) -> bool:
    """Rich markup or an emoji code in a field: it must come back as text."""
    role = m.role()
    columns = TEXT_COLUMNS[mutant.game][role] or INTEGER_COLUMNS[mutant.game][role]
    index, column = m.line(_rows(mutant, role)), m.rng.choice(columns)
    value = _rows(mutant, role)[index].split(",")[column]
    _set_field(mutant, role, index, column, value + m.rng.choice(("[/]", ":100:", "[red]")))
    return _exactly(mutant, role, index)


def carriage_return(m: Mutator, mutant: Mutant) -> bool:
    role = m.role()
    rows = _rows(mutant, role)
    index = m.line(rows)
    at = m.rng.randrange(1, len(rows[index]))
    rows[index] = rows[index][:at] + "\r" + rows[index][at:]
    return _exactly(mutant, role, index)


def column_count(m: Mutator, mutant: Mutant) -> bool:
    role = m.role()
    rows = _rows(mutant, role)
    index = m.line(rows)
    rows[index] = rows[index] + ",1" if m.rng.random() < 0.5 else rows[index].rsplit(",", 1)[0]
    return _exactly(mutant, role, index)


def line_endings(m: Mutator, mutant: Mutant, keep_verdict: bool = False) -> bool:
    """Some lines of a file end in a lone LF, the others in CRLF: the same lines, still a
    log (the server's readers and ours split at LF and drop a CR before it)."""
    role = m.role()
    rows = _rows(mutant, role)
    chosen = set(m.rng.sample(range(len(rows)), m.rng.randint(1, max(1, len(rows) // 3))))
    mutant.lf_rows[role] = mutant.lf_rows.get(role, set()) | chosen
    if not keep_verdict:
        mutant.must_reject, mutant.allowed = False, set()  # it must land
    return True


# Characters a file name may hold that globs, escapes, quotes or lines treat specially.
ODD_NAMES = ("\\[", "\\*", "[1]", "?", "*", "\n", "'", " x", "ü", "\\", "{a,b}", "%")


def long_line(m: Mutator, mutant: Mutant) -> bool:
    """A field of a megabyte or more (rarely: it costs its size to write and read)."""
    if m.rng.random() > 0.02:
        return False
    role = m.role()
    index = m.line(_rows(mutant, role))
    columns = TEXT_COLUMNS[mutant.game][role] or INTEGER_COLUMNS[mutant.game][role]
    _set_field(mutant, role, index, m.rng.choice(columns), "9" * m.rng.choice((10**6, 10**7)))
    return _exactly(mutant, role, index)


# --- whole lines: a deleted, duplicated or swapped line breaks the game ------------------


def _line_change(m: Mutator, mutant: Mutant, role: str, index: int, units: set) -> bool:
    if role == "turns":
        mutant.allowed = round_lines(mutant, units)
    else:  # a score file's structure: the line, its neighbours, the file's end
        last = len(mutant.scores)
        near = {index, index + 1, index + 2, last}
        mutant.allowed = {("scores", n) for n in near if 1 <= n <= last}
        mutant.allowed |= round_lines(mutant, units) - {("scores", n) for n in range(last + 1)}
    return True


def delete_line(m: Mutator, mutant: Mutant) -> bool:
    role = m.role()
    rows = _rows(mutant, role)
    if len(rows) < 3:
        return False
    index = m.line(rows)
    removed = rows.pop(index)
    if mutant.game == "ginrummy" and role == "turns":
        # The side that opens a round is not in the log: losing a round's first or last
        # turn may leave a game that could have been played.
        first = index == 0 or unit(rows[index - 1]) != unit(removed)
        last = index == len(rows) or unit(rows[index]) != unit(removed)
        mutant.must_reject = not (first or last)
    return _line_change(m, mutant, role, index, {unit(removed)})


def duplicate_line(m: Mutator, mutant: Mutant) -> bool:
    role = m.role()
    rows = _rows(mutant, role)
    index = m.line(rows)
    rows.insert(index, rows[index])
    return _line_change(m, mutant, role, index, {unit(rows[index])})


def swap_lines(m: Mutator, mutant: Mutant) -> bool:
    role = m.role()
    rows = _rows(mutant, role)
    if len(rows) < 2:
        return False
    index = m.rng.randrange(len(rows) - 1)
    if rows[index] == rows[index + 1]:
        return False
    rows[index], rows[index + 1] = rows[index + 1], rows[index]
    if (
        mutant.game == "twentyone"
        and role == "turns"
        and {row.split(",")[5] for row in rows[index : index + 2]} == {"Bid"}
    ):
        # Two players' bids: the order of seats shows again where the hands are played.
        mutant.must_reject = _hands_played(rows, rows[index]) and _hands_played(
            rows, rows[index + 1]
        )
    return _line_change(m, mutant, role, index, {unit(rows[index]), unit(rows[index + 1])})


def _hands_played(rows: list[str], bid_row: str) -> bool:
    round_, _, player = bid_row.split(",")[:3]
    return any(
        r.split(",")[0] == round_ and r.split(",")[2] == player and ",Bid," not in r for r in rows
    )


def other_field(m: Mutator, mutant: Mutant) -> bool:
    """A field takes the value the same column has on another line: it may still fit."""
    role = m.role()
    rows = _rows(mutant, role)
    index, source = m.line(rows), m.line(rows)
    column = m.rng.randrange(len(rows[index].split(",")))
    value = rows[source].split(",")[column]
    _set_field(mutant, role, index, column, value)
    mutant.must_reject = False
    units = {unit(rows[index]), unit(rows[source])} if column == 0 else {unit(rows[index])}
    mutant.allowed = round_lines(mutant, units) | {(role, index + 1)}
    return True


def off_by(m: Mutator, mutant: Mutant) -> bool:
    """A number a little off: the format still holds; the rules may not."""
    role = m.role()
    rows = _rows(mutant, role)
    index = m.line(rows)
    column = m.rng.choice(INTEGER_COLUMNS[mutant.game][role])
    old = int(rows[index].split(",")[column])
    new = max(0, old + m.rng.choice((-10, -1, 1, 5, 25)))
    _set_field(mutant, role, index, column, str(new))
    mutant.must_reject = False
    units = {unit(rows[index]), old, new} if column == 0 else {unit(rows[index])}
    mutant.allowed = round_lines(mutant, units) | {(role, index + 1)}
    return True


def other_scores(m: Mutator, mutant: Mutant, other: Base) -> bool:
    """The score file of another log of the same game."""
    if other.scores == mutant.scores:
        return False
    mutant.scores = list(other.scores)
    mutant.must_reject = False  # two logs may end with the same scores
    mutant.allowed = None
    return True


GENERIC = (
    overflow,
    negative,
    markup,
    carriage_return,
    column_count,
    line_endings,
    long_line,
    delete_line,
    duplicate_line,
    swap_lines,
    other_field,
    off_by,
)


# --- each game's rules: changes that must be caught in the round they touch ----------------


def _pick(m: Mutator, rows: list[str], test) -> int | None:
    found = [i for i, row in enumerate(rows) if test(row.split(","))]
    return m.rng.choice(found) if found else None


def _in_round(mutant: Mutant, index: int) -> bool:
    mutant.allowed = round_lines(mutant, {unit(mutant.turns[index])})
    return True


def twentyone_bid(m: Mutator, mutant: Mutant) -> bool:
    """A bid of 0 or above the maximum, or one of 5,000,000."""
    index = _pick(m, mutant.turns, lambda f: f[5] == "Bid")
    if index is None:
        return False
    _set_field(mutant, "turns", index, 6, m.rng.choice(("0", "101", "150", "5000000")))
    return _in_round(mutant, index)


def twentyone_hit_no_card(m: Mutator, mutant: Mutant) -> bool:
    index = _pick(m, mutant.turns, lambda f: f[5] == "Hit" and f[1].count(";") >= 2)
    if index is None:
        return False
    hand = mutant.turns[index].split(",")[1]
    _set_field(mutant, "turns", index, 1, hand.split(";", 1)[1])
    return _in_round(mutant, index)


def twentyone_copies(m: Mutator, mutant: Mutant) -> bool:
    """Every card of a round the same card: more copies than a 3-deck shoe holds."""
    index = _pick(m, mutant.turns, lambda f: f[1].count(";") >= 2)
    if index is None:
        return False
    round_ = mutant.turns[index].split(",")[0]
    card = m.rng.choice(CARDS)
    dealt = {}  # cards of each hand's last row: every card of the round once
    for i, row in enumerate(mutant.turns):
        fields = row.split(",")
        if fields[0] == round_ and fields[1]:
            dealt[fields[2], fields[4]] = fields[1].count(";") + 1
            fields[1] = ";".join(card for _ in fields[1].split(";"))
            mutant.turns[i] = ",".join(fields)
    mutant.must_reject = sum(dealt.values()) > 12  # a 3-deck shoe holds 12 of each card
    return _in_round(mutant, index)


def twentyone_insurance(m: Mutator, mutant: Mutant) -> bool:
    """Insurance when the up card is not an Ace."""
    index = _pick(m, mutant.turns, lambda f: f[5] == "Stand" and not f[7].endswith("A"))
    if index is None:
        return False
    _set_field(mutant, "turns", index, 5, "Insurance")
    return _in_round(mutant, index)


def twentyone_split(m: Mutator, mutant: Mutant) -> bool:
    """A Split of two cards of different ranks."""

    def fits(f: list[str]) -> bool:
        cards = f[1].split(";")
        return f[5] == "Stand" and len(cards) == 2 and cards[0][1:] != cards[1][1:]

    index = _pick(m, mutant.turns, fits)
    if index is None:
        return False
    _set_field(mutant, "turns", index, 5, "Split")
    return _in_round(mutant, index)


def twentyone_no_dealer(m: Mutator, mutant: Mutant) -> bool:
    index = _pick(m, mutant.turns, lambda f: f[2] == "dealer")
    if index is None:
        return False
    round_ = unit(mutant.turns[index])
    mutant.turns = [
        r for r in mutant.turns if not (unit(r) == round_ and r.split(",")[2] == "dealer")
    ]
    mutant.allowed = round_lines(mutant, {round_})
    return True


def twentyone_points(m: Mutator, mutant: Mutant) -> bool:
    """Points that jump with no hand to explain them."""
    index = m.line(mutant.scores)
    fields = mutant.scores[index].split(",")
    seats = [1] + ([2 + i for i in range(len(fields[2].split(";")))] if fields[2] else [])
    seat = m.rng.choice(seats)
    jump = m.rng.choice((-7, 1, 10, 1000))
    if seat == 1:
        fields[1] = str(max(0, int(fields[1]) + jump))
    else:
        others = fields[2].split(";")
        others[seat - 2] = str(max(0, int(others[seat - 2]) + jump))
        fields[2] = ";".join(others)
    mutant.scores[index] = ",".join(fields)
    mutant.allowed = {("scores", index + 1)}
    return True


def ginrummy_picked_from_opponent(m: Mutator, mutant: Mutant) -> bool:
    """A card drawn from the stock that is in the opponent's hand."""
    rows = mutant.turns
    index = _pick(
        m,
        rows,
        lambda f: f[3] != f[4],
    )
    if index is None or index == 0 or unit(rows[index - 1]) != unit(rows[index]):
        return False
    fields = rows[index].split(",")
    hand = fields[1].split(";")
    opponent = rows[index - 1].split(",")[1].split(";")
    card = m.rng.choice([c for c in opponent if c not in hand and c != fields[5]] or [None])
    if card is None:
        return False
    hand[0] = fields[4] = card
    fields[1] = ";".join(hand)
    rows[index] = ",".join(fields)
    return _in_round(mutant, index)


def ginrummy_one_side(m: Mutator, mutant: Mutant) -> bool:
    """Every turn played by one side."""
    side = m.rng.choice("01")
    for i, row in enumerate(mutant.turns):
        fields = row.split(",")
        fields[2] = side
        mutant.turns[i] = ",".join(fields)
    mutant.allowed = round_lines(mutant, {1})
    return True


def ginrummy_scores(m: Mutator, mutant: Mutant) -> bool:
    """Both sides scoring, a million points, a Gin scored 0."""
    index = m.line(mutant.scores)
    fields = mutant.scores[index].split(",")
    change = m.rng.choice(("both", "million", "gin_zero"))
    if change == "both":
        fields[1] = fields[2] = str(max(int(fields[1]), int(fields[2])))
    elif change == "million":
        fields[m.rng.choice((1, 2))] = "1000000"
    else:
        fields[1] = fields[2] = "0"
        fields[3] = "Gin"
    mutant.scores[index] = ",".join(fields)
    mutant.allowed = {("scores", index + 1)}
    return True


def hog_turn(m: Mutator, mutant: Mutant) -> bool:
    """A die showing 9, a new score that does not follow, a third player."""
    change = m.rng.choice(("die", "new_score", "player"))
    if change == "die":
        index = _pick(m, mutant.turns, lambda f: f[6] != "")
        if index is None:
            return False
        dice = mutant.turns[index].split(",")[6].split(";")
        dice[m.rng.randrange(len(dice))] = "9"
        _set_field(mutant, "turns", index, 6, ";".join(dice))
    elif change == "new_score":
        index = m.line(mutant.turns)
        new = int(mutant.turns[index].split(",")[8]) + m.rng.choice((1, 2, 30))
        _set_field(mutant, "turns", index, 8, str(new))
    else:
        index = m.line(mutant.turns)
        _set_field(mutant, "turns", index, 2, "intruder")
    return _in_round(mutant, index)


def hog_scores(m: Mutator, mutant: Mutant) -> bool:
    """A winner who is not a player, final scores of 0."""
    index = m.line(mutant.scores)
    if m.rng.random() < 0.5:
        _set_field(mutant, "scores", index, 4, "nobody")
    else:
        _set_field(mutant, "scores", index, 2, "0")
        _set_field(mutant, "scores", index, 3, "0")
    mutant.allowed = {("scores", index + 1)}
    return True


SPECIFIC = {
    "twentyone": (
        twentyone_bid,
        twentyone_hit_no_card,
        twentyone_copies,
        twentyone_insurance,
        twentyone_split,
        twentyone_no_dealer,
        twentyone_points,
    ),
    "ginrummy": (ginrummy_picked_from_opponent, ginrummy_one_side, ginrummy_scores),
    "hog": (hog_turn, hog_scores),
}

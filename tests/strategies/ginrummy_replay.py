"""Replaying the real Gin Rummy logs through the reference engine (shared by the tests).

A log shows both hands after every play, so each round's deal can be rebuilt: a player's
first row minus the picked card plus the discard is its dealt hand, the first discard top is
the upcard, and the stock is the cards drawn from it (then the unseen cards). Scripted
players replay the rows; their melds are chosen to reproduce the score row when some valid
declaration of the hand does (the players' own meld functions were not always optimal).
`refereed` is a game through the referee, as every use of the engine plays one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path

import numpy as np

from mine.parsers.cards import DECK, Card, deadwood_points
from mine.parsers.ginrummy import Score, Turn
from mine.strategies.engines import ginrummy as engine
from mine.strategies.engines import referee
from mine.strategies.engines.ginrummy import Deal, GinRummyRules, State, round_points
from mine.strategies.engines.melds import meld_kind

RULES = GinRummyRules()


def rounds_of(turns: list[Turn]) -> dict[int, list[Turn]]:
    rounds: dict[int, list[Turn]] = defaultdict(list)
    for turn in turns:
        rounds[turn.round].append(turn)
    return dict(rounds)


def deal_of(rows: list[Turn]) -> Deal:
    """The round's deal, from the point of view in which seat 0 is the log's `mine`."""
    hands = []
    for mine in (True, False):
        first = next(row for row in rows if row.mine == mine)
        hands.append((*first.hand[1:], first.discarded))
    drawn = [row.picked for row in rows if not row.from_discard]
    seen = set(hands[0]) | set(hands[1]) | {rows[0].discard_top} | set(drawn)
    stock = (*drawn, *(card for card in DECK if card not in seen))
    return Deal(0 if rows[0].mine else 1, (hands[0], hands[1]), rows[0].discard_top, stock)


def declarations(hand: tuple[Card, ...]) -> dict[int, list[tuple[Card, ...]]]:
    """One full declaration of `hand` for every deadwood total some declaration reaches."""
    melds = [group for n in (3, 4, 5) for group in combinations(hand, n) if meld_kind(group)]
    found: dict[int, list[tuple[Card, ...]]] = {}

    def walk(start: int, used: frozenset[Card], chosen: list[tuple[Card, ...]]) -> None:
        rest = [card for card in hand if card not in used]
        found.setdefault(sum(map(deadwood_points, rest)), chosen + [(card,) for card in rest])
        for index in range(start, len(melds)):
            if not used & set(melds[index]):
                walk(index + 1, used | set(melds[index]), [*chosen, melds[index]])

    walk(0, frozenset(), [])
    return found


def explain(rows: list[Turn], score: Score) -> tuple[int, int] | None:
    """(mine, opponent's) declared deadwood reproducing the score row, closest to optimal."""
    mine = declarations(next(row for row in reversed(rows) if row.mine).hand)
    theirs = declarations(next(row for row in reversed(rows) if not row.mine).hand)
    act = score.ending.lower()
    caller_mine = rows[-1].mine
    fits = []
    for dm in mine:
        for do in theirs:
            caller, other = (dm, do) if caller_mine else (do, dm)
            points = round_points(RULES, act, caller, other)
            got = points if caller_mine else points[::-1]
            if got == (score.points, score.opponent_points):
                fits.append((dm - min(mine) + do - min(theirs), dm, do))
    return (min(fits)[1], min(fits)[2]) if fits else None


class Scripted:
    """Plays one seat of a logged game row by row."""

    def __init__(
        self,
        rows: list[Turn],
        declared: list[list[tuple[Card, ...]]],
        endings: dict[int, tuple[str, Turn]],
    ):
        self.rows: Iterator[Turn] = iter(rows)
        self.declared = iter(declared)
        self.endings = endings  # round → (ending, the round's last row)
        self.current: Turn | None = None

    def pick(self, discard_top, scores, memory, opponent_draw, hand):
        self.current = next(self.rows)
        return ("discard" if self.current.from_discard else "stock"), ""

    def play(self, picked, scores, memory, hand):
        row = self.current
        assert row is not None and picked == row.picked
        ending, last = self.endings[row.round]
        act = ending.lower() if row is last and ending != "Drop" else "drop"
        return (act, row.discarded), ""

    def melds(self, scores, memory, hand):
        return next(self.declared)


def real_pairs(folder: Path) -> list[tuple[Path, Path]]:
    return [
        (turns, turns.with_name(f"{turns.stem}-score.csv"))
        for turns in sorted(folder.glob("*[0-9].csv"))
    ]


def refereed(
    rules: GinRummyRules, seats: list, rng: np.random.Generator, deals: list[Deal] | None = None
) -> tuple[State, referee.Refereed]:
    """A game between `seats` (bots, or `engine.course_player`s) on the engine's terms:
    the state it ended in and what the referee saw."""
    state = engine.new_game(rules, rng, deals=deals)
    return state, referee.refereed(engine, rules, state, seats)

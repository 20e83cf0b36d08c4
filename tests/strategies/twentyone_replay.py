"""Replaying a TwentyOne log of the course engine through the reference engine (shared by
the tests).

A turn file shows every card dealt but a hole card the dealer never turned, so each round's
shoe can be rebuilt in the order the engine deals: the dealer's two (up card first), each
seat's two, then each seat's draws as its rows show them (a Hit's new card; a Split's two,
the kept hand's before the new hand's), then the dealer's draws. The rebuilt shoe is
stacked on the engine's, the seats are the log's, and every player row is played as the
action it logs: the engine must find each one legal, write the same rows, and settle every
round to the score file's points.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from mine.parsers import twentyone as log
from mine.parsers.cards import DECK, Card
from mine.parsers.twentyone import DEALER, Turn
from mine.strategies.engines.twentyone import (
    ACTION_NAMES,
    CODE,
    DEALER_SEAT,
    DEFAULT_RULES,
    Bid,
    DoubleDown,
    Hit,
    Insurance,
    Split,
    Stand,
    State,
    TwentyOneRules,
    new_game,
)
from tests.conftest import REAL_TWENTYONE, REPO

COURSE_ENGINE_LOGS = [
    REAL_TWENTYONE,  # ten games of the 2021 engine, small players among students' ones
    REPO / "tests" / "data" / "twentyone-students-2021",  # twenty of nine students' players
    *sorted((REPO.parent / "shared" / "fixtures").glob("twentyone-*")),  # where they lie
]
"""Every log of the course engine the project knows (the shared fixtures when they lie
beside the repository)."""


def course_engine_games() -> list[Path]:
    """The stems of those logs (`<stem>.csv`, `<stem>-score.csv`), each game once."""
    stems = {
        p.name[:-4]: p.with_suffix("") for f in COURSE_ENGINE_LOGS for p in f.glob("*[0-9].csv")
    }
    return [stems[name] for name in sorted(stems)]


def before(row: Turn) -> tuple[Card, ...]:
    """The hand before the row's action (a Hit's row shows the card it drew first)."""
    return row.hand[1:] if row.action == "Hit" else row.hand


def shoe_of(rows: list[Turn]) -> list[Card]:
    """A round's cards in the order the engine deals them."""
    dealer = [row.hand for row in rows if row.player == DEALER][-1]
    hole = dealer[-1] if len(dealer) > 1 else dealer[0]  # never shown: any card will do
    players = [row for row in rows if row.player != DEALER and row.action != "Bid"]
    by_seat: dict[str, list[Turn]] = defaultdict(list)
    for row in players:
        by_seat[row.player].append(row)
    cards = [dealer[-2] if len(dealer) > 1 else dealer[0], hole]
    cards += [card for seat in by_seat.values() for card in before(seat[0])]
    for seat in by_seat.values():
        cards += draws(seat)
    return cards + list(reversed(dealer[:-2]))


def draws(rows: list[Turn]) -> list[Card]:
    """One seat's draws after its first two cards, in the order it drew them. A Split
    draws the kept hand's new card, then the new hand's, which is played right after the
    kept hand (depth first): its logged id is where it stands in the order of play."""
    by_hand: dict[int, list[Turn]] = defaultdict(list)
    for row in rows:
        by_hand[row.hand_id].append(row)
    seen = dict.fromkeys(by_hand, 0)  # rows of each hand played so far
    order: list[int | None] = [None]  # the split that made each hand, in the order of play
    drawn: list[Card | int] = []  # a card, or the split whose new hand's card it is
    for row in rows:
        seen[row.hand_id] += 1
        if row.action == "Hit":
            drawn.append(row.hand[0])
        elif row.action == "Split":
            kept = by_hand[row.hand_id][seen[row.hand_id]]
            drawn += [before(kept)[1], len(order)]
            order.insert(row.hand_id + 1, len(order))
    return [c if isinstance(c, Card) else before(by_hand[order.index(c)][0])[1] for c in drawn]


def action_of(row: Turn):
    """The action a row logs, with what it costs (a DoubleDown's row shows the doubled bid,
    an Insurance row the bid it insures)."""
    return {
        "Bid": lambda: Bid(row.bid),
        "Hit": Hit,
        "Stand": Stand,
        "DoubleDown": lambda: DoubleDown(row.bid // 2),
        "Split": lambda: Split(row.bid),
        "Insurance": lambda: Insurance(row.bid // 2),
    }[row.action]()


def logged(row: Turn) -> tuple:
    return row.hand, row.player, row.hand_id, row.action, row.bid


def engine_rows(state: State) -> list[tuple]:
    """The last round's rows as the engine wrote them, in the log's terms."""
    return [
        (
            tuple(DECK[c] for c in cards),
            DEALER if seat == DEALER_SEAT else state.ids[seat],
            hand_id,
            ACTION_NAMES[kind],
            bid,
        )
        for cards, seat, hand_id, kind, bid in state.records[-1].rows
    ]


def replay(stem: Path, rules: TwentyOneRules = DEFAULT_RULES) -> State:
    """Play the logged game `stem` (`<stem>.csv`, `<stem>-score.csv`) in the engine;
    AssertionError (or the engine's IllegalAction) where the two part."""
    turns = list(log.read_turns(Path(f"{stem}.csv")))
    scores = list(log.read_scores(Path(f"{stem}-score.csv")))
    rounds: dict[int, list[Turn]] = defaultdict(list)
    for row in turns:
        rounds[row.round].append(row)
    seats = [row.player for row in rounds[1] if row.action == "Bid"]
    me = next(row.player for row in turns if row.mine)
    state = new_game(
        rules.replace(rounds=len(rounds)), np.random.default_rng(0), seats, seated=True
    )
    for (number, rows), score in zip(sorted(rounds.items()), scores, strict=True):
        state.shoe.stack([CODE[card] for card in shoe_of(rows)])
        for row in rows:
            if row.player == DEALER:
                continue
            seat = state.current_player()
            assert (state.ids[seat], state.round) == (row.player, number), row
            state.apply_action(action_of(row))
        assert engine_rows(state) == [logged(row) for row in rows], number
        points = dict(zip(state.ids, state.points, strict=True))
        others = [points[pid] for pid in sorted(points) if pid != me]
        assert (points[me], others) == (score.points, list(score.others)), number
    assert state.is_terminal()
    return state

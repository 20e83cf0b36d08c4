"""TwentyOne logs: a played game (`twentyone.State`) as the server's turn and score files,
from one player's point of view (`../shared/spec/twentyone.md`, "Log format")."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from mine.parsers.cards import DECK
from mine.parsers.csvlog import partial_pair, publish_pair
from mine.parsers.twentyone import DEALER, Score, Turn, write_scores, write_turns
from mine.strategies.engines.twentyone import ACTION_NAMES, CARD_TEXT, DEALER_SEAT, State


def turns(state: State, perspective: str) -> Iterable[Turn]:
    """The turn file's rows from `perspective`'s point of view, in play order."""
    ids, cards = state.ids, DECK
    for record in state.records:
        if record.upcard is None:
            continue
        upcard = cards[record.upcard]
        for cards_, seat, hand_id, kind, bid in record.rows:
            if seat == DEALER_SEAT:
                player, mine = DEALER, False
            else:
                player = ids[seat]
                mine = player == perspective
            hand = tuple([cards[c] for c in cards_])
            yield Turn(record.round, hand, player, mine, hand_id, ACTION_NAMES[kind], bid, upcard)


def scores(state: State, perspective: str) -> Iterable[Score]:
    """The score file's rows: your points, then the others' sorted by id as text."""
    seat = state.ids.index(perspective)
    others = sorted((s for s in range(len(state.ids)) if s != seat), key=state.ids.__getitem__)
    for record in state.records:
        points = record.points
        yield Score(record.round, points[seat], tuple(points[s] for s in others))


def turn_lines(state: State, perspective: str) -> Iterable[str]:
    """The turn file's lines (CRLF), the bytes `parsers.twentyone.write_turns(turns(…))`
    writes (the tests hold them equal), formatted from precomputed card texts: writing
    through `Turn` records costs more than playing the game."""
    ids, text = state.ids, CARD_TEXT
    names = [f",{pid},{int(pid == perspective)},{{}},{{}},{{}},{{}}\r\n" for pid in ids]
    names.append(f",{DEALER},0,{{}},{{}},{{}},{{}}\r\n")  # seat -1: the dealer
    actions = ACTION_NAMES
    for record in state.records:
        if record.upcard is None:
            continue
        head, upcard = f"{record.round},", text[record.upcard]
        for cards, seat, hand_id, kind, bid in record.rows:
            hand = ";".join([text[c] for c in cards])
            yield head + hand + names[seat].format(hand_id, actions[kind], bid, upcard)


def write_logs(
    state: State, perspective: str, directory: str | Path, stem: str
) -> tuple[Path, Path]:
    """Write `<stem>.csv` (turns) and `<stem>-score.csv` (scores) from `perspective`'s point
    of view; returns their paths."""
    turn_path, score_path = partial_pair(directory, stem)
    with open(turn_path, "w", newline="", encoding="utf-8") as out:
        out.write("".join(turn_lines(state, perspective)))
    write_scores(score_path, scores(state, perspective))
    return publish_pair(directory, stem)


def write_logs_via_records(
    state: State, perspective: str, directory: str | Path, stem: str
) -> tuple[Path, Path]:
    """The same files through `parsers.twentyone`'s record writers (the reference)."""
    turn_path, score_path = partial_pair(directory, stem)
    write_turns(turn_path, turns(state, perspective))
    write_scores(score_path, scores(state, perspective))
    return publish_pair(directory, stem)

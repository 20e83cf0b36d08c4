"""TwentyOne in the warehouse: turns, long-form scores, and views of hands and dealers."""

from __future__ import annotations

import functools
import itertools
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from mine.parsers import twentyone as log_format
from mine.parsers.cards import COURSE_RANKS, DECK, format_course
from mine.parsers.twentyone import DEALER
from mine.strategies.engines import twentyone as engine
from mine.strategies.engines.twentyone import (
    ACTION_NAMES,
    BUST,
    CAN_DOUBLE,
    CAN_HIT,
    CAN_INSURE,
    CAN_SPLIT,
    CAN_STAND,
    DOUBLE,
    INSURANCE,
    SPLIT,
    TwentyOneRules,
    classify,
    dealer_hits,
    hand_over,
    hand_total,
    insurance_pays,
    settle,
    two_card_plays,
)
from mine.warehouse.checks import (
    Problem,
    flagged_logs,
    numbered_score_rows,
    outside,
    outside_ranges,
)

if TYPE_CHECKING:  # polars loads when a batch's rules are replayed
    import polars as pl

GAME = "twentyone"
FORMAT = log_format
RULES = TwentyOneRules

# A card's points with the ace low are the place of its rank's first letter in this string,
# at most 10 ("10" is the only rank of two letters, and its "1" sits tenth): one `strpos`,
# less than half the time of a CASE over the ranks.
_INITIALS = "".join(rank[0] for rank in COURSE_RANKS)

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS twentyone_turn_rows (
    log_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    round INTEGER NOT NULL,
    hand VARCHAR NOT NULL,
    player VARCHAR NOT NULL,
    mine BOOLEAN NOT NULL,
    hand_id INTEGER NOT NULL,
    action VARCHAR NOT NULL,
    amount INTEGER,
    bid INTEGER NOT NULL,
    upcard VARCHAR NOT NULL
);
COMMENT ON TABLE twentyone_turn_rows IS 'TwentyOne: the turn files'' rows, the hand as written (SQ;H3); query twentyone_turns';

-- Hands are stored as the text the file has (a list costs a fifth more to write) and
-- read as lists through this view.
CREATE OR REPLACE VIEW twentyone_turns AS
SELECT log_id, line, round,
       CASE WHEN hand = '' THEN []::VARCHAR[] ELSE string_split(hand, ';') END AS hand,
       player, mine, hand_id, action, amount, bid, upcard
FROM twentyone_turn_rows;
COMMENT ON VIEW twentyone_turns IS 'TwentyOne: one row per logged decision, as the turn file has it (hand after the action as a list, newest card first)';

CREATE TABLE IF NOT EXISTS twentyone_seats (
    log_id INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    player VARCHAR NOT NULL,
    mine BOOLEAN NOT NULL
);
COMMENT ON TABLE twentyone_seats IS 'TwentyOne: the players of each log: seat 1 is the logging player, the others follow in id order (as the score file lists them)';

CREATE TABLE IF NOT EXISTS twentyone_round_points (
    log_id INTEGER NOT NULL,
    round INTEGER NOT NULL,
    points INTEGER[] NOT NULL
);
COMMENT ON TABLE twentyone_round_points IS 'TwentyOne: the score file: every player''s running points after each round, by seat (see twentyone_scores for the long form)';

CREATE OR REPLACE VIEW twentyone_scores AS
SELECT r.log_id, r.round, s.player, s.mine, r.points[s.seat] AS points
FROM twentyone_round_points r JOIN twentyone_seats s USING (log_id);
COMMENT ON VIEW twentyone_scores IS 'TwentyOne: every player''s running points after each round (long form; opponents'' ids recovered from the turn file)';

CREATE OR REPLACE MACRO card_hard_points(card) AS  -- the ace counted low (1)
    least(strpos('{_INITIALS}', card[2]), 10);
CREATE OR REPLACE MACRO blackjack_points(card) AS  -- the ace counted high (11)
    CASE WHEN card[2] = 'A' THEN 11 ELSE card_hard_points(card) END;
-- A hand's best total from its hard total: an ace counts 11 while that keeps it to 21.
CREATE OR REPLACE MACRO best_total(hard, has_ace) AS
    hard + CASE WHEN has_ace AND hard <= 11 THEN 10 ELSE 0 END;
CREATE OR REPLACE MACRO hand_hard_total(hand) AS
    coalesce(list_sum(list_transform(hand, lambda c: card_hard_points(c))), 0);
CREATE OR REPLACE MACRO hand_soft(hand) AS
    list_bool_or(list_transform(hand, lambda c: substr(c, 2) = 'A'))
    AND hand_hard_total(hand) + 10 <= 21;
CREATE OR REPLACE MACRO hand_total(hand) AS
    best_total(hand_hard_total(hand), list_bool_or(list_transform(hand, lambda c: substr(c, 2) = 'A')));
-- A hand as the file writes it (SQ;H3, newest card first), without making it a list.
CREATE OR REPLACE MACRO text_cards(hand) AS
    CASE WHEN hand = '' THEN 0 ELSE length(hand) - length(replace(hand, ';', '')) + 1 END;
CREATE OR REPLACE MACRO text_older(hand) AS  -- the hand before its newest card
    CASE WHEN contains(hand, ';') THEN substr(hand, strpos(hand, ';') + 1) ELSE '' END;
-- Suits are letters other than A, so an A in the text is an ace.
CREATE OR REPLACE MACRO text_total(hand) AS
    best_total(hand_hard_total(string_split(hand, ';')), contains(hand, 'A'));
CREATE OR REPLACE MACRO hand_class(hand, charlie_cards := 5, dealer := false) AS
    CASE WHEN len(hand) = 2 AND hand_total(hand) = 21 THEN 'Combo'
         WHEN hand_total(hand) > 21 THEN 'Bust'
         WHEN len(hand) = charlie_cards OR (len(hand) > charlie_cards AND NOT dealer)
              THEN 'Charlie'
         ELSE 'Value' END;

CREATE OR REPLACE VIEW twentyone_turn_totals AS
SELECT *, len(hand) AS n_cards, hand_total(hand) AS total, hand_soft(hand) AS soft,
       hand_class(hand) AS hand_class
FROM twentyone_turns WHERE action <> 'Bid';
COMMENT ON VIEW twentyone_turn_totals IS 'TwentyOne: decisions with the hand''s card count, total, soft flag and class after the action';

CREATE OR REPLACE VIEW twentyone_hands AS
SELECT log_id, round, player, any_value(mine) AS mine, hand_id, any_value(upcard) AS upcard,
       arg_max(hand, line) AS cards, len(arg_max(hand, line)) AS n_cards,
       hand_total(arg_max(hand, line)) AS total, hand_soft(arg_max(hand, line)) AS soft,
       hand_class(arg_max(hand, line)) AS hand_class, arg_max(bid, line) AS bid,
       list(action ORDER BY line) AS actions
FROM twentyone_turns
WHERE player <> 'dealer' AND action <> 'Bid'
GROUP BY log_id, round, player, hand_id;
COMMENT ON VIEW twentyone_hands IS 'TwentyOne: one row per player hand: final cards, total, class (Charlie at 5 cards), final bid, actions';

CREATE OR REPLACE VIEW twentyone_dealer_hands AS
SELECT log_id, round, any_value(upcard) AS upcard, arg_max(hand, line) AS cards,
       len(arg_max(hand, line)) AS n_cards, hand_total(arg_max(hand, line)) AS total,
       hand_class(arg_max(hand, line), dealer := true) AS hand_class,
       len(arg_max(hand, line)) > 1 AS played
FROM twentyone_turns
WHERE player = 'dealer'
GROUP BY log_id, round;
COMMENT ON VIEW twentyone_dealer_hands IS 'TwentyOne: the dealer''s final hand per round (played = false when every player hand was bust; only exactly 5 cards make its Charlie: it draws on past 5)';

CREATE OR REPLACE VIEW twentyone_players AS
SELECT log_id, player, bool_or(mine) AS mine, max(round) AS rounds,
       arg_max(points, round) AS final_points
FROM twentyone_scores GROUP BY log_id, player;
COMMENT ON VIEW twentyone_players IS 'TwentyOne: each player of each game with its rounds and final points';
"""

TABLES = ("twentyone_turn_rows", "twentyone_seats", "twentyone_round_points")
# `logs` counts its rows: one a row of the turn files, and one a row of the score files
FILE_ROWS = ("twentyone_turn_rows", "twentyone_round_points")

ROW_CHECKS = {
    "turns": (
        ("action LIKE 'Bid%' AND hand <> ''", "'a Bid row must have an empty hand'"),
        ("action NOT LIKE 'Bid%' AND hand = ''", "format('a {} row must show the hand', action)"),
        ("player = 'dealer' AND mine = '1'", "'dealer rows cannot be marked as yours'"),
        ("player = 'dealer' AND bid <> 0", "'dealer rows must have bid 0'"),
        ("player = 'dealer' AND hand_id <> 0", "'dealer rows must have hand id 0'"),
    ),
}

# Whole-file rules, written with aggregates so that valid files cost no sort: only the
# files that break the round order have their rows ordered to find the exact line.
CHECKS = """
WITH rounds AS (
    SELECT log_id, round, min(line) AS first_line, max(line) AS last_line,
           min(upcard) <> max(upcard) AS mixed_upcards
    FROM stage_turns GROUP BY log_id, round
),
unordered AS (
    SELECT DISTINCT log_id FROM (
        SELECT log_id, first_line, max(last_line) OVER (PARTITION BY log_id ORDER BY round
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_last
        FROM rounds
    ) WHERE first_line < earlier_last
),
players AS (  -- a player is yours when most of its rows say so
    SELECT log_id, player, min(line) AS first_line, count(*) AS n_rows,
           count(*) FILTER (WHERE mine = '1') AS n_marked,
           count(*) FILTER (WHERE mine = '0') AS n_unmarked,
           count(*) FILTER (WHERE mine = '1') > count(*) FILTER (WHERE mine = '0') AS marked,
           count(*) FILTER (WHERE mine = '1') <= count(*) FILTER (WHERE mine = '0') AS unmarked
    FROM stage_turns WHERE player <> 'dealer' GROUP BY log_id, player
),
perspective AS (
    -- the player with the fewest rows is the odd one out (a renamed row makes a new id);
    -- among as few, the first in the file, or the line named would follow DuckDB's order
    SELECT p.log_id, list(p.player ORDER BY p.first_line) FILTER (WHERE p.marked) AS mine_ids,
           arg_min(p.first_line, (p.n_rows, p.first_line)) FILTER (WHERE p.marked) AS odd_mine_line,
           arg_min(p.first_line, (p.n_rows, p.first_line)) FILTER (WHERE p.unmarked) AS odd_other_line,
           count(*) FILTER (WHERE p.unmarked) AS opponents, any_value(r.rounds) AS rounds,
           any_value(r.last_line) AS last_line
    FROM players p
    JOIN (SELECT log_id, max(round) AS rounds, max(last_line) AS last_line
          FROM rounds GROUP BY log_id) r USING (log_id)
    GROUP BY p.log_id
),
scores AS (
    SELECT s.*, p.opponents, p.rounds,
           CASE WHEN s.others = '' THEN 0 ELSE len(string_split(s.others, ';')) END AS n_others,
           max(s.line) OVER (PARTITION BY s.log_id) AS last_line
    FROM stage_scores s JOIN perspective p USING (log_id)
)
SELECT log_id, 'turns' AS role, line, CASE
    WHEN round > next AND coalesce(previous <= next, true)  -- this row, not the next, is out of place
        THEN format('round {} comes before round {}', round, next)
    ELSE format('round goes back from {} to {}', previous, round) END AS reason
FROM (
    SELECT log_id, line, round, lag(round) OVER w AS previous, lead(round) OVER w AS next
    FROM stage_turns WHERE log_id IN (SELECT log_id FROM unordered)
    WINDOW w AS (PARTITION BY log_id ORDER BY line)
) WHERE round < previous OR (round > next AND coalesce(previous <= next, true))
UNION ALL
SELECT t.log_id, 'turns', t.line,
       format('up card {} differs from the round''s up card {}', t.upcard, r.first_upcard)
FROM stage_turns t JOIN (
    -- the round's up card by most rows, for the rounds with two only: over every round,
    -- mode cost half of these checks
    SELECT log_id, round, mode(upcard) AS first_upcard
    FROM stage_turns JOIN (SELECT log_id, round FROM rounds WHERE mixed_upcards) USING (log_id, round)
    GROUP BY log_id, round
) r USING (log_id, round)
WHERE t.upcard <> r.first_upcard AND log_id NOT IN (SELECT log_id FROM unordered)
UNION ALL
SELECT t.log_id, 'turns', min(t.line),
       format('{} is marked as yours on some rows and not on others', any_value(t.player))
FROM stage_turns t JOIN players p USING (log_id, player)
WHERE p.n_marked > 0 AND p.n_unmarked > 0 AND (t.mine = '1') = p.unmarked
GROUP BY t.log_id, t.player
UNION ALL
SELECT log_id, 'turns', CASE WHEN len(mine_ids) > 1 THEN odd_mine_line ELSE last_line END, CASE coalesce(len(mine_ids), 0)
    WHEN 0 THEN 'no row is marked as yours (column 4)'
    ELSE format('rows marked as yours belong to several players: {}', array_to_string(mine_ids, ', '))
  END
FROM perspective WHERE coalesce(len(mine_ids), 0) <> 1
UNION ALL
SELECT s.log_id, 'turns', p.odd_other_line,
       format('a player the score file does not list: it has {} other players', s.n_others)
FROM scores s JOIN perspective p USING (log_id)
WHERE s.round = s.line AND s.n_others < s.opponents
UNION ALL
SELECT log_id, 'scores', line,
       format('{} other players'' points, but the turn file has {} other players', n_others, opponents)
FROM scores WHERE round = line AND n_others > opponents
UNION ALL
""" + numbered_score_rows("round", "scores")

LOAD = {
    "twentyone_turn_rows": """
    INSERT INTO twentyone_turn_rows
    SELECT log_id, line, round, hand, player, mine = '1', hand_id,
           CASE WHEN contains(action, ' ') THEN split_part(action, ' ', 1) ELSE action END,
           CASE WHEN contains(action, ' ') THEN CAST(split_part(action, ' ', 2) AS INTEGER) END,
           bid, upcard
    FROM stage_turns
    """,
    # The score file's columns are seats: the logging player, then the others by id.
    "twentyone_seats": """
    INSERT INTO twentyone_seats
    SELECT log_id, row_number() OVER (PARTITION BY log_id ORDER BY NOT mine, player), player, mine
    FROM (
        SELECT log_id, player, bool_or(mine = '1') AS mine
        FROM stage_turns WHERE player <> 'dealer'
        GROUP BY log_id, player
    )
    """,
    "twentyone_round_points": """
    INSERT INTO twentyone_round_points
    SELECT log_id, round,
           list_prepend(points, CASE WHEN others = '' THEN []::INTEGER[]
                                     ELSE CAST(string_split(others, ';') AS INTEGER[]) END)
    FROM stage_scores
    """,
}

# --- the rules, replayed (TwentyOneRules, `../shared/spec/twentyone.md`) --------------------
# Each row is checked against the row before it in the same hand: the hand before the action
# is that row's hand (a hand's first row, or the first after a Split, shows two cards plus
# what the action added). The hands' final rows, classed and settled by the engine, must
# give every player's change of points in the score file, and no card may show more often
# than the shoe it was dealt from holds it. The consistency checks have made sure a log's
# rounds are runs of rows in order before its rules are replayed: so round by round.

POINTS = {format_course(card): points for card, points in zip(DECK, engine.POINTS, strict=True)}
"""A card as the log writes it (`SQ`) → its points, the ace 11."""


def sane(rules: TwentyOneRules) -> dict[str, dict[str, tuple[int, int]]]:
    """Each number's sane range, from the rules (the other players' points: the settlement
    check names the player)."""
    most_points = rules.starting_points + rules.rounds * rules.max_bid * (20 * rules.decks + 2)
    return {
        "turns": {
            "round": (1, rules.rounds),
            "hand_id": (0, 4 * rules.decks),  # a split needs a pair: at most 4 × decks
            "bid": (0, 2 * rules.max_bid),  # a DoubleDown doubles it
        },
        # at most 4 × decks hands a round, each doubled and paid at most 2.5 ×, + insurance
        "scores": {"round": (1, rules.rounds), "points": (0, most_points)},
    }


def cards(hand: str) -> int:
    """How many cards a hand as the log writes it (`SQ;H3`, newest first) holds."""
    return hand.count(";") + 1 if hand else 0


def older(hand: str) -> str:
    """The hand before its newest card."""
    return hand.partition(";")[2]


def total(hand: str) -> tuple[int, bool]:
    """(total, soft) of a hand as the log writes it."""
    return hand_total([POINTS[card] for card in hand.split(";")]) if hand else (0, False)


class _Hand:
    """What a hand's rows add up to."""

    __slots__ = ("first_line", "last_line", "rows", "final", "bid", "act", "splits",
                 "insured", "n", "total", "kind")  # fmt: skip

    def __init__(self, line: int):
        self.first_line, self.rows, self.splits, self.insured = line, 0, 0, None


class _Round(NamedTuple):
    """What the shoe and the score file need of a round."""

    round: int
    last_line: int
    cards: int | None  # dealt in the round (None: unknown, no dealer rows)
    shown: list[str]  # every card of the final hands, the dealer's too
    change: dict[str, int]  # each player's change of points
    bids: dict[str, tuple[int, int]]  # each bidder's (line, bid)


def replay(rules: TwentyOneRules, turns: list[tuple], scores: list[tuple]) -> list[Problem]:
    """Every broken rule of one log, replayed round by round through the engine's rules."""
    ranges = sane(rules)
    problems: list[Problem] = []
    problems += outside_ranges("turns", turns, FORMAT.TURNS, ranges["turns"])
    problems += outside_ranges("scores", scores, FORMAT.SCORES, ranges["scores"])
    runs = itertools.groupby(turns, key=lambda row: row[1])  # round after round
    rounds = [_round(rules, list(rows), problems) for _, rows in runs]
    _shoe(rules, rounds, problems)
    _points(rules, turns, scores, rounds, problems)
    return problems


def _round(rules: TwentyOneRules, rows: list[tuple], problems: list[Problem]) -> _Round:
    """One round's rows: its hands, bids and dealer checked, its hands classed and settled."""
    number = rows[0][1]
    acts = [row[6].partition(" ")[0] for row in rows]
    bids: dict[str, list[int]] = {}  # bidder → [first line, last line, bids, first bid]
    for row, act in zip(rows, acts, strict=True):
        if act == "Bid":
            seen = bids.setdefault(row[3], [row[0], row[0], 0, row[7]])
            seen[1], seen[2] = row[0], seen[2] + 1
    hands: dict[tuple[str, int], _Hand] = {}
    dealer_rows: list[int] = []
    last_player_line = first_play_line = None
    for i, row in enumerate(rows):
        line, _, hand, player, _, hand_id, _, bid, upcard = row
        act = acts[i]
        if player == DEALER:
            dealer_rows.append(i)
            continue
        last_player_line = line
        if act == "Bid":
            continue
        if first_play_line is None:
            first_play_line = line
        before_row = rows[i - 1] if i else None
        chained = (before_row is not None and before_row[3] == player
                   and before_row[5] == hand_id and acts[i - 1] != "Bid")  # fmt: skip
        previous_act = acts[i - 1] if chained else None
        chained2 = i > 1 and rows[i - 2][3] == player and rows[i - 2][5] == hand_id
        reason = _play_problem(
            rules, row, act, before_row if chained else None, previous_act,
            acts[i - 2] if chained2 else None, bids.get(player),
        )  # fmt: skip
        if reason:
            problems.append(("turns", line, reason))
        played = hands.get((player, hand_id))
        if played is None:  # (not `setdefault`: it would make a hand every row)
            played = hands[player, hand_id] = _Hand(line)
        played.last_line, played.final, played.bid, played.act = line, hand, bid, act
        played.rows += 1
        if act == "Split":
            played.splits += 1
        elif act == "Insurance":
            played.insured = bid if played.insured is None else min(played.insured, bid)
    for (_, hand_id), played in hands.items():
        played.n = cards(played.final)
        played.total = total(played.final)[0]
        split = hand_id > 0 or played.splits > 0
        played.kind = classify(played.n, played.total, rules, split=split)
    live = any(played.kind != BUST for played in hands.values())
    dealer_final = rows[dealer_rows[-1]][2] if dealer_rows else None
    for i in dealer_rows:
        first = rows[dealer_rows[0]][0]
        reason = _dealer_problem(rules, rows, acts, i, live, first, last_player_line)
        if reason:
            problems.append(("turns", rows[i][0], reason))
    last_line = rows[-1][0]
    if not dealer_rows:
        problems.append(("turns", last_line, f"round {number} has no dealer rows"))
    _bid_order(rows[0][1], bids, hands, first_play_line, problems)
    _hand_runs(rules, hands, problems)
    # no dealer rows: a hand of no cards, which every live hand beats
    final = dealer_final or ""
    dealer = classify(cards(final), total(final)[0], rules, dealer=True) if live else BUST
    change: dict[str, int] = {}
    for (player, _), played in hands.items():
        insured = played.insured or 0
        won = settle(played.bid, played.kind, dealer, rules) - played.bid - insured // 2
        if insured > 0 and insurance_pays(live, dealer, played.kind, rules):
            won += rules.insurance_return(insured)
        change[player] = change.get(player, 0) + won
    dealt = sum(played.n for played in hands.values())
    if hands:
        dealt = (
            None if live and dealer_final is None else dealt + (cards(dealer_final) if live else 2)
        )
    shown = [card for played in hands.values() for card in played.final.split(";")]
    if dealer_final is not None:
        shown += dealer_final.split(";")
    return _Round(number, last_line, dealt, shown, change,
                  {player: (seen[0], seen[3]) for player, seen in bids.items()})  # fmt: skip


def _play_problem(rules: TwentyOneRules, row: tuple, act: str, previous: tuple | None,
                  previous_act: str | None, act_before: str | None,
                  bid: list[int] | None) -> str | None:  # fmt: skip
    """What is wrong with a player's decision, given the hand's row before it (None: the
    hand's first row) and the player's bid of the round."""
    _, _, hand, player, _, hand_id, _, amount, upcard = row
    if bid is None:
        return f"{player} plays a hand but did not bid this round"
    fresh = previous is None or previous_act == "Split"
    before = (older(hand) if act == "Hit" else hand) if fresh else previous[2]
    n = cards(before)
    if n != 2 and fresh:
        return f"a {act} row shows {cards(hand)} cards: a hand starts with two"
    if previous_act == "Split" and before.partition(";")[0] != previous[2].partition(";")[0]:
        return (f"after the Split the hand keeps {previous[2].partition(';')[0]}, "
                f"not {before.partition(';')[0]}")  # fmt: skip
    if act == "Hit" and older(hand) != before:
        return f"a Hit adds one card to {before}, this row shows {hand}"
    if act != "Hit" and hand != before:
        return f"a {act} changes no card, but the hand was {before} and is now {hand}"
    if not fresh:
        # a hand busts only on a Hit
        reached = total(before)[0]
        if hand_over(n, reached if previous_act == "Hit" else 0, rules):
            return f"a {act} after the hand was finished ({n} cards, {reached})"
    if previous_act == "DoubleDown" and act != "Hit":
        return f"a {act} after a DoubleDown: the hand must Hit once"
    if act_before == "DoubleDown" and previous_act == "Hit" and act != "Stand":
        return f"a {act} after a DoubleDown's Hit: the hand must Stand"
    if previous_act == "Stand":
        return f"a {act} after the hand stood"
    first, _, second = before.partition(";")
    kind = ACTION_NAMES.index(act)
    if kind in (SPLIT, DOUBLE, INSURANCE) and n == 2:
        # what the log cannot show (the player's points) is taken as enough
        plays = two_card_plays(first[1:] == second[1:], total(before)[0] == 21,
                               upcard[1:] == "A" and previous is None and hand_id == 0,
                               True, True, rules)  # fmt: skip
    else:
        plays = CAN_HIT | CAN_STAND
    if kind == SPLIT and not plays & CAN_SPLIT:
        return f"a Split of {before}: only two cards of one rank split"
    if kind == DOUBLE and not plays & CAN_DOUBLE:
        return f"a DoubleDown on {n} cards: only two-card hands double"
    if kind == INSURANCE and not plays & CAN_INSURE:
        if upcard[1:] != "A":
            return f"Insurance with up card {upcard}: only against an Ace"
        return "Insurance is only the first action of the hand"
    base = previous[7] if previous is not None else bid[3]
    if act == "DoubleDown" and amount != 2 * base:
        return f"a DoubleDown makes the bid {2 * base}, not {amount}"
    if act != "DoubleDown" and amount != base:
        return f"bid {amount}, but the hand's bid is {base}"
    return None


def _dealer_problem(rules: TwentyOneRules, rows: list[tuple], acts: list[str], i: int,
                    live: bool, first_line: int, last_player_line: int | None) -> str | None:  # fmt: skip
    """What is wrong with a dealer row, given the round's rows."""
    line, _, hand, _, _, hand_id, _, _, upcard = rows[i]
    act = acts[i]
    if last_player_line is not None and line < last_player_line:
        return "a dealer row before the players have played"
    if not live:
        if line != first_line or hand != upcard or act != "Stand":
            return f"every hand is bust: the dealer only shows its up card {upcard} and Stands"
        return None
    chained = i > 0 and rows[i - 1][3] == DEALER and rows[i - 1][5] == hand_id
    chained = chained and acts[i - 1] != "Bid"
    previous_act = acts[i - 1] if chained else None
    before = rows[i - 1][2] if chained else (older(hand) if act == "Hit" else hand)
    n = cards(before)
    if n < 2:
        return f"the dealer shows {n} card(s) though a hand is live"
    if not chained and before.partition(";")[0] != upcard:
        return f"the dealer's first card {before.partition(';')[0]} is not the up card {upcard}"
    if act == "Hit" and older(hand) != before:
        return f"a dealer Hit adds one card to {before}, this row shows {hand}"
    if act not in ("Hit", "Stand"):
        return f"the dealer cannot {act}"
    if previous_act == "Stand":
        return "a dealer row after the dealer stood"
    if act == "Stand" and hand != before:
        return f"a dealer Stand changes the hand {before} to {hand}"
    if act == "Hit" and not dealer_hits(n, *total(before), rules):
        return f"the dealer hits on {total(before)[0]}: it stands on {rules.dealer_stands_on}"
    if act == "Stand" and dealer_hits(cards(hand), *total(hand), rules):
        return f"the dealer stands on {total(hand)[0]}: it hits below {rules.dealer_stands_on}"
    last = i + 1 == len(rows) or rows[i + 1][3] != DEALER or rows[i + 1][5] != hand_id
    if last and act != "Stand":
        return "the dealer's last row must be a Stand"
    return None


def _bid_order(number: int, bids: dict[str, list[int]], hands: dict[tuple[str, int], _Hand],
               first_play_line: int | None, problems: list[Problem]) -> None:  # fmt: skip
    """Each player bids once, before the hands are dealt, in the order its hands are played."""
    first_lines: dict[str, int] = {}
    for (player, _), played in hands.items():
        first_lines[player] = min(first_lines.get(player, played.first_line), played.first_line)
    for player, (line, last, count, _) in bids.items():
        if count > 1:
            problems.append(("turns", last, f"{player} bids twice in round {number}"))
        elif first_play_line is not None and last > first_play_line:
            problems.append(("turns", line, f"{player} bids after the hands are dealt"))
        if player not in first_lines:
            problems.append(("turns", line, f"{player} bids but plays no hand"))
    seated = [p for p in bids if p in first_lines]
    by_bid = sorted(seated, key=lambda p: bids[p][0])
    by_play = sorted(seated, key=first_lines.__getitem__)
    for player, played in zip(by_bid, by_play, strict=True):
        if player != played:
            problems.append(("turns", bids[player][0],
                             f"{player} bids out of the seat order its hands are played in"))  # fmt: skip


def _hand_runs(rules: TwentyOneRules, hands: dict[tuple[str, int], _Hand],
               problems: list[Problem]) -> None:  # fmt: skip
    """Each hand, and each player's hands, one run of rows; a hand per Split, ids in order;
    a hand ends with a Stand or finished."""
    players: dict[str, list[int]] = {}  # first line, last line, rows, hands, top id, splits
    for (player, hand_id), played in hands.items():
        seen = players.setdefault(player, [played.first_line, played.last_line, 0, 0, 0, 0])
        seen[0], seen[1] = min(seen[0], played.first_line), max(seen[1], played.last_line)
        seen[2] += played.rows
        seen[3] += 1
        seen[4] = max(seen[4], hand_id)
        seen[5] += played.splits
    for player, (first, last, rows, count, top, splits) in players.items():
        if last - first + 1 != rows:
            problems.append(("turns", last, f"{player}'s hands are not played in one run of rows"))
        elif count != splits + 1 or top != splits:
            problems.append(("turns", last, f"{player} has {count} hands (ids up to {top}) "
                                            f"after {splits} Splits"))  # fmt: skip
    for (player, hand_id), played in hands.items():
        if played.last_line - played.first_line + 1 != played.rows:
            problems.append(("turns", played.last_line,
                             f"hand {hand_id} of {player} is not played in one run of rows"))  # fmt: skip
        elif not (played.act == "Stand" or hand_over(played.n, played.total, rules)
                  or (played.act == "DoubleDown" and played.n == 2 and played.total == 21)):  # fmt: skip
            problems.append(("turns", played.last_line,
                             f"hand {hand_id} of {player} ends with a {played.act}, not a "
                             "Stand, before it is finished"))  # fmt: skip


def _shoe(rules: TwentyOneRules, rounds: list[_Round], problems: list[Problem]) -> None:
    """No card shows more often than its shoe holds it. The shoe is dealt round after round
    (the dealer's hole card too, shown or not), so the cards dealt before a round say which
    shoe it drew from; a round that opens a fresh shoe partway drew from two and is counted
    on its own."""
    size = 52 * rules.decks
    dealt = 0
    shown: dict[tuple, dict[str, dict[int, int]]] = {}  # shoe → card → round → copies
    lines = {}
    for played in rounds:
        lines[played.round] = played.last_line
        shoe = None
        if played.cards is not None:
            # the last card's shoe, as integer division truncates (no cards in round one: 0)
            last = dealt + played.cards - 1
            if dealt // size == (last // size if last >= 0 else 0):
                shoe = dealt // size
            dealt += played.cards
        key = ("shoe", shoe) if shoe is not None else ("round", played.round)
        copies = shown.setdefault(key, {})
        for card in played.shown:
            by_round = copies.setdefault(card, {})
            by_round[played.round] = by_round.get(played.round, 0) + 1
    for (kind, _), copies in shown.items():
        held = rules.decks * (1 if kind == "shoe" else 2)
        for card, by_round in copies.items():
            if sum(by_round.values()) <= held:
                continue
            seen = 0
            for number in sorted(by_round):
                seen += by_round[number]
                if seen > held:
                    break
            if kind == "shoe":
                reason = (f"{card} appears {seen} times in rounds {min(by_round)} to {number}, "
                          f"all dealt from one shoe of {rules.decks} decks: it holds {held}")  # fmt: skip
            else:
                reason = (f"{card} appears {seen} times in round {number}: the two shoes it "
                          f"was dealt from hold {held}")  # fmt: skip
            problems.append(("turns", lines[number], reason))


def _points(rules: TwentyOneRules, turns: list[tuple], scores: list[tuple],
            rounds: list[_Round], problems: list[Problem]) -> None:  # fmt: skip
    """Each bid within what the player's points allow, and each player's points moved by
    what its hands settle to. The score file's columns are seats: the logging player, then
    the others by id."""
    mine: dict[str, bool] = {}
    for row in turns:
        if row[3] != DEALER:
            mine[row[3]] = mine.get(row[3], False) or row[4] == "1"
    seats = sorted(mine, key=lambda player: (not mine[player], player))
    by_round = {played.round: played for played in rounds}
    points_before = [rules.starting_points] * len(seats)
    for line, number, points, others in scores:
        played = by_round.get(number)
        now = [points, *(int(p) for p in others.split(";"))] if others else [points]
        for seat, (player, after) in enumerate(zip(seats, now, strict=False)):
            before = points_before[seat]
            bid = played.bids.get(player) if played else None
            if bid is not None:
                low, high = rules.bid_range(before)
                if not low <= bid[1] <= high or before <= 0:
                    problems.append(("turns", bid[0], f"{player} bids {bid[1]} with {before} "
                                     f"points: the bid must be between {low} and {high}"))  # fmt: skip
            change = played.change.get(player, 0) if played else 0
            if after != before + change:
                problems.append(("scores", line, f"{player}'s points go from {before} to {after} "
                                 f"in round {number}, but its hands settle to {change:+d}"))  # fmt: skip
            points_before[seat] = after


# --- the batch-wide check: which logs `replay` must read -----------------------------------
# Every condition of `replay` as a polars column over a whole batch, the engine's rules
# looked up in tables it fills (`_tables`): a valid log costs no Python per row.

MOST_CARDS = 32  # a hand longer than this is classed as one this long (bust long before)


@functools.cache
def _tables(rules: TwentyOneRules) -> dict[str, np.ndarray]:
    """The engine's rules as arrays: a hand's total from its hard total and whether it holds
    an ace, its class (player, split hand, dealer) by cards and total, whether the dealer
    hits, what a hand gets back per unit of bid and whether its insurance pays, by the two
    classes (index: class + 1)."""
    totals = np.array([[hard, hand_total([11, hard - 1])[0] if hard else 0]
                       for hard in range(MOST_CARDS * 11)])  # fmt: skip
    shape = (MOST_CARDS + 1, MOST_CARDS * 11)
    kinds = np.empty((3, *shape), np.int64)
    hits = np.empty((2, *shape), bool)
    for n in range(shape[0]):
        for value in range(shape[1]):
            kinds[0, n, value] = classify(n, value, rules)
            kinds[1, n, value] = classify(n, value, rules, split=True)
            kinds[2, n, value] = classify(n, value, rules, dealer=True)
            hits[:, n, value] = [dealer_hits(n, value, soft, rules) for soft in (False, True)]
    classes = [BUST, *range(22), engine.CHARLIE, engine.COMBO]
    returns = np.zeros((engine.COMBO + 2, engine.COMBO + 2))
    insured = np.zeros((engine.COMBO + 2, engine.COMBO + 2), bool)
    for player in classes:
        for dealer in classes:
            returns[player + 1, dealer + 1] = engine.return_multiple(player, dealer, rules)
            insured[player + 1, dealer + 1] = insurance_pays(True, dealer, player, rules)
    return {"totals": totals, "kinds": kinds, "hits": hits, "returns": returns,
            "insured": insured}  # fmt: skip


def suspects(rules: TwentyOneRules, turns: pl.DataFrame, scores: pl.DataFrame) -> set[int]:
    """`replay`'s rules over a batch; the property test
    `tests/warehouse/test_twentyone_replay.py` holds that it never clears one the replay
    rejects, the golden rows test that the two give the same rows."""
    import polars as pl

    tables = _tables(rules)
    t = _turn_columns(turns, tables)
    hands = _hands(t, tables)
    rounds = _rounds(t, hands, tables)
    bids = t.filter(pl.col("act") == "Bid").group_by("round_run", "player").agg(
        pl.col("log_id").first(), pl.col("round").first(),
        bid_line=pl.col("line").min(), first_bid=pl.col("bid").first(), bids=pl.len(),
    )  # fmt: skip
    # each row with its round's columns (round runs are numbered 0, 1, … in order)
    of_round = rounds.select("last_player_line", "first_dealer_line", "live")
    bid = t.select("round_run", "player").join(
        bids.select("round_run", "player", "first_bid"), on=["round_run", "player"], how="left",
        maintain_order="left",
    )  # fmt: skip
    rows = pl.concat([t, of_round[t["round_run"].to_numpy()], bid.select("first_bid")],
                     how="horizontal")  # fmt: skip
    del bid
    wrong = _play_wrong(rules, rows) | _dealer_wrong(rows, tables) | pl.col("back")
    flagged = flagged_logs(rows.filter(wrong.fill_null(True) | outside(sane(rules)["turns"])))
    del rows
    flagged |= _hands_wrong(rules, hands, bids, rounds)
    flagged |= _shoe_wrong(rules, t, hands, rounds)
    flagged |= _points_wrong(rules, t, hands, rounds, bids, scores, tables)
    return flagged


def _turn_columns(turns: pl.DataFrame, tables: dict[str, np.ndarray]) -> pl.DataFrame:
    """The turn rows with what the checks read of each: the action, the hand's cards and
    totals (of the hand before its newest card too), and the row before in the same hand."""
    import polars as pl

    log, rnd, player, hand_id = (pl.col(c) for c in ("log_id", "round", "player", "hand_id"))
    hand, act = pl.col("hand"), pl.col("act")
    low = {card: points - 10 * (points == 11) for card, points in POINTS.items()}
    t = turns.with_columns(
        act=pl.col("action").str.splitn(" ", 2).struct.field("field_0"),
        n=pl.when(hand == "").then(0).otherwise(hand.str.count_matches(";", literal=True) + 1),
        older=hand.str.replace(r"^[^;]*;?", ""),
        newest=hand.str.splitn(";", 3).struct.field("field_0"),
        second=hand.str.splitn(";", 3).struct.field("field_1"),  # the older hand's first
        hard=hand.str.split(";").list.eval(pl.element().replace_strict(low, default=0)).list.sum(),
        ace=hand.str.contains("A"),
        dealer=player == DEALER,
        # a run of rows of one round, and of one hand (a log's are one run each, or it is
        # flagged): an int to group by, cheaper than the columns that make it
        round_run=pl.struct(log, rnd).rle_id(),
        back=((rnd < rnd.shift(1)) & (log == log.shift(1))).fill_null(False),
        hand_run=pl.struct(log, rnd, player, hand_id).rle_id(),
    )

    def same(k: int) -> pl.Expr:
        return ((log == log.shift(k)) & (rnd == rnd.shift(k)) & (player == player.shift(k))
                & (hand_id == hand_id.shift(k))).fill_null(False)  # fmt: skip

    t = t.with_columns(
        older_hard=pl.col("hard") - pl.col("newest").replace_strict(low, default=0),
        older_ace=pl.col("older").str.contains("A"),
        chained=same(1) & (act.shift(1) != "Bid").fill_null(False),
        act_before=pl.when(same(2)).then(act.shift(2)).otherwise(pl.lit("")),
        last=~same(-1),
    )
    totals = tables["totals"]

    def best(hard: str, ace: str) -> pl.Series:
        values = t[hard].to_numpy().clip(0, len(totals) - 1)
        return pl.Series(totals[values, t[ace].to_numpy().astype(int)])

    t = t.with_columns(
        total=best("hard", "ace"),
        older_total=best("older_hard", "older_ace"),
        soft=pl.col("ace") & (pl.col("hard") <= 11),
        older_soft=pl.col("older_ace") & (pl.col("older_hard") <= 11),
        previous_act=pl.when("chained").then(act.shift(1)).otherwise(pl.lit("")),
    )
    return t.drop("action", "hard", "ace", "older_hard", "older_ace")  # read: held no longer


def _previous(column: str) -> pl.Expr:
    """`column` of the hand's row before (null on a hand's first row): read from the row
    before in the batch, not held as a column of its own."""
    import polars as pl

    return pl.when("chained").then(pl.col(column).shift(1))


def _lookup(table: np.ndarray, *indices: pl.Series) -> pl.Series:
    """`table` at these columns' values, each clipped to the table's axis."""
    import polars as pl

    at = tuple(
        i.to_numpy().astype(np.int64).clip(0, size - 1)
        for i, size in zip(indices, table.shape, strict=True)
    )
    return pl.Series(table[at])


def _hands(t: pl.DataFrame, tables: dict[str, np.ndarray]) -> pl.DataFrame:
    """One row per player hand: its rows' span, its final row, Splits and insurance, and
    its class."""
    import polars as pl

    act = pl.col("act")
    hands = (
        t.filter(~pl.col("dealer") & (act != "Bid"))
        .group_by("hand_run", maintain_order=True)
        .agg(
            *(pl.col(c).first() for c in ("log_id", "round", "round_run", "player", "hand_id")),
            first_line=pl.col("line").first(), last_line=pl.col("line").last(), rows=pl.len(),
            final=pl.col("hand").last(), bid=pl.col("bid").last(), last_act=act.last(),
            splits=(act == "Split").sum(), insured=pl.col("bid").filter(act == "Insurance").min(),
            n=pl.col("n").last(), total=pl.col("total").last(),
        )
    )  # fmt: skip
    split = ((hands["hand_id"] > 0) | (hands["splits"] > 0)).cast(pl.Int64)
    return hands.with_columns(kind=_lookup(tables["kinds"], split, hands["n"], hands["total"]))


def _rounds(t: pl.DataFrame, hands: pl.DataFrame, tables: dict[str, np.ndarray]) -> pl.DataFrame:
    """One row per round: where its players and dealer play, whether a hand is live, the
    dealer's final hand and class."""
    import polars as pl

    dealer, line = pl.col("dealer"), pl.col("line")
    rounds = t.group_by("round_run", maintain_order=True).agg(
        pl.col("log_id").first(),
        pl.col("round").first(),
        last_player_line=line.filter(~dealer).max(),
        first_play_line=line.filter(~dealer & (pl.col("act") != "Bid")).min(),
        first_dealer_line=line.filter(dealer).min(),
        dealer_rows=dealer.sum(),
        dealer_final=pl.col("hand").filter(dealer).last(),
        d_n=pl.col("n").filter(dealer).last(),
        d_total=pl.col("total").filter(dealer).last(),
    )
    live = hands.group_by("round_run").agg(
        live=(pl.col("kind") != BUST).any(), hand_cards=pl.col("n").sum()
    )
    rounds = rounds.join(live, on="round_run", how="left", maintain_order="left").with_columns(
        live=pl.col("live").fill_null(False), d_n=pl.col("d_n").fill_null(0),
        d_total=pl.col("d_total").fill_null(0),
    )  # fmt: skip
    kind = _lookup(tables["kinds"], pl.Series([2] * len(rounds)), rounds["d_n"], rounds["d_total"])
    return rounds.with_columns(d_kind=pl.when("live").then(kind).otherwise(BUST))


def _play_wrong(rules: TwentyOneRules, rows: pl.DataFrame) -> pl.Expr:
    """A player's decision `_play_problem` may find wrong."""
    import polars as pl

    act, previous_act, chained = pl.col("act"), pl.col("previous_act"), pl.col("chained")
    fresh = ~chained | (previous_act == "Split")
    hit = act == "Hit"
    n_before = (
        pl.when(~fresh).then(pl.col("n").shift(1)).when(hit).then(pl.col("n") - 1).otherwise("n")
    )
    # the hand before is the older hand of a Hit, else the hand (or the row is flagged)
    before_total = pl.when(hit).then("older_total").otherwise("total")
    first_before = pl.when(hit).then("second").otherwise("newest")
    finished = (previous_act == "Hit") & (_previous("total") > 21)
    if rules.charlie:
        finished = finished | (n_before >= rules.charlie_cards)
    ranks = pl.col("hand").str.split(";")
    pair = ranks.list.get(0, null_on_oob=True).str.slice(1) == ranks.list.get(
        1, null_on_oob=True
    ).str.slice(1)
    double = n_before == 2
    if not rules.double_on_combo:
        double = double & (before_total != 21)
    insure = (n_before == 2) & pl.col("upcard").str.ends_with("A") & ~chained
    base = pl.when(chained).then(pl.col("bid").shift(1)).otherwise("first_bid")
    wrong = (
        pl.col("first_bid").is_null()
        | (fresh & (n_before != 2))
        | ((previous_act == "Split") & (first_before != _previous("newest")))
        | (~fresh & hit & (pl.col("older") != _previous("hand")))
        | (~fresh & ~hit & (pl.col("hand") != _previous("hand")))
        | (~fresh & finished)
        | ((previous_act == "DoubleDown") & ~hit)
        | ((pl.col("act_before") == "DoubleDown") & (previous_act == "Hit") & (act != "Stand"))
        | (previous_act == "Stand")
        | ((act == "Split") & ~((n_before == 2) & pair))
        | ((act == "DoubleDown") & ~double)
        | ((act == "Insurance") & ~(insure & (pl.col("hand_id") == 0)))
        | ((act == "DoubleDown") & (pl.col("bid") != 2 * base))
        | ((act != "DoubleDown") & (pl.col("bid") != base))
    )
    return ~pl.col("dealer") & (act != "Bid") & wrong.fill_null(True)


def _dealer_wrong(rows: pl.DataFrame, tables: dict[str, np.ndarray]) -> pl.Expr:
    """A dealer row `_dealer_problem` may find wrong: before the players are done; when
    every hand is bust, anything but the up card standing alone; else anything but a Hit
    or a Stand that builds on the row before, as the dealer's rule says."""
    import polars as pl

    hits = tables["hits"]
    hit_before = _lookup(hits, rows["older_soft"], rows["n"] - 1, rows["older_total"])
    hits_now = _lookup(hits, rows["soft"], rows["n"], rows["total"])
    act, chained, previous = pl.col("act"), pl.col("chained"), _previous("hand")
    hit, stand = act == "Hit", act == "Stand"
    alone = (
        (pl.col("line") == pl.col("first_dealer_line"))
        & (pl.col("hand") == pl.col("upcard"))
        & stand
    )
    played = (
        ~act.is_in(["Hit", "Stand"])
        | (pl.col("previous_act") == "Stand")
        | (hit & ((pl.col("n") < 3) | ~hit_before))
        | (stand & ((pl.col("n") < 2) | hits_now))
        | (pl.col("last") & ~stand)
        | (chained & hit & (pl.col("older") != previous))
        | (chained & stand & (pl.col("hand") != previous))
        | (~chained & hit & (pl.col("second") != pl.col("upcard")))
        | (~chained & stand & (pl.col("newest") != pl.col("upcard")))
    )
    wrong = (pl.col("line") < pl.col("last_player_line")).fill_null(False) | pl.when("live").then(
        played
    ).otherwise(~alone)
    return pl.col("dealer") & wrong.fill_null(True)


def _hands_wrong(rules: TwentyOneRules, hands: pl.DataFrame, bids: pl.DataFrame,
                 rounds: pl.DataFrame) -> set[int]:  # fmt: skip
    """Logs with a round without dealer rows, a hand or a player's hands not in one run, a
    hand unfinished, hands and Splits that do not add up, or a bid that is not the
    player's one bid before the deal, in seat order, for hands it plays."""
    import polars as pl

    n, total, last_act = pl.col("n"), pl.col("total"), pl.col("last_act")
    over = total > 21
    if rules.charlie:
        over = over | (n >= rules.charlie_cards)
    ended = (last_act == "Stand") | over | ((last_act == "DoubleDown") & (n == 2) & (total == 21))
    spans = pl.col("last_line") - pl.col("first_line") + 1
    twice = pl.struct("round_run", "player", "hand_id").is_duplicated()
    flagged = flagged_logs(hands.filter((spans != pl.col("rows")) | ~ended | twice))
    player_run = pl.struct("round_run", "player").rle_id().alias("player_run")
    players = hands.group_by(player_run, maintain_order=True).agg(
        pl.col("log_id").first(), pl.col("round_run").first(), pl.col("player").first(),
        first_line=pl.col("first_line").min(), last_line=pl.col("last_line").max(),
        rows=pl.col("rows").sum(), count=pl.len(), top=pl.col("hand_id").max(),
        splits=pl.col("splits").sum(),
    )  # fmt: skip
    splits = pl.col("splits")
    flagged |= flagged_logs(
        players.filter((spans != pl.col("rows")) | (pl.col("count") != splits + 1)
                       | (pl.col("top") != splits)
                       | pl.struct("round_run", "player").is_duplicated())
    )  # fmt: skip
    flagged |= flagged_logs(rounds.filter(pl.col("dealer_rows") == 0))
    seated = bids.join(players, on=["log_id", "round_run", "player"], how="full", coalesce=True)
    seated = seated.join(rounds.select("round_run", "first_play_line"), on="round_run", how="left")
    rank = "round_run"
    order = pl.col("bid_line").rank().over(rank) != pl.col("first_line").rank().over(rank)
    flagged |= flagged_logs(
        seated.filter(
            (pl.col("bids") != 1) | (pl.col("bid_line") > pl.col("first_play_line")).fill_null(False)
            | order | pl.col("bid_line").is_null() | pl.col("first_line").is_null()
        )
    )  # fmt: skip
    return flagged


def _shoe_wrong(rules: TwentyOneRules, t: pl.DataFrame, hands: pl.DataFrame,
                rounds: pl.DataFrame) -> set[int]:  # fmt: skip
    """Logs with a card shown more often than the shoe (or two) it was dealt from holds it:
    the shoe of each round as `_shoe` finds it."""
    import polars as pl

    size = 52 * rules.decks
    cards = (
        pl.when(pl.col("hand_cards").is_null())
        .then(0)
        .otherwise(pl.col("hand_cards") + pl.when("live").then("d_n").otherwise(2))
    )
    r = rounds.sort("log_id", "round").with_columns(cards=cards)
    r = r.with_columns(dealt=pl.col("cards").cum_sum().over("log_id") - pl.col("cards"))
    last = pl.col("dealt") + pl.col("cards") - 1
    first_shoe = pl.col("dealt") // size
    r = r.with_columns(
        shoe=pl.when(first_shoe == pl.when(last >= 0).then(last // size).otherwise(0))
        .then(first_shoe)
        .otherwise(-pl.col("round"))  # a round of two shoes, counted on its own
    )
    finals = pl.concat([
        hands.select("log_id", "round", hand="final"),
        r.filter(pl.col("dealer_final").is_not_null()).select("log_id", "round", hand="dealer_final"),
    ])  # fmt: skip
    shown = (
        finals.join(r.select("log_id", "round", "shoe"), on=["log_id", "round"])
        .with_columns(card=pl.col("hand").str.split(";"))
        .explode("card")
        .group_by("log_id", "shoe", "card")
        .agg(copies=pl.len())
    )
    held = pl.when(pl.col("shoe") >= 0).then(rules.decks).otherwise(2 * rules.decks)
    return flagged_logs(shown.filter(pl.col("copies") > held))


def _points_wrong(rules: TwentyOneRules, t: pl.DataFrame, hands: pl.DataFrame,
                  rounds: pl.DataFrame, bids: pl.DataFrame, scores: pl.DataFrame,
                  tables: dict[str, np.ndarray]) -> set[int]:  # fmt: skip
    """Logs whose score file does not follow from the hands (settled by the engine's rule,
    `_tables`' returns) or whose bids are not what the points before allow."""
    import polars as pl

    h = pl.concat([hands, rounds.select("d_kind", "live")[hands["round_run"].to_numpy()]],
                  how="horizontal")  # fmt: skip
    kind, d_kind = h["kind"] + 1, h["d_kind"] + 1
    bid = h["bid"].to_numpy()
    insured = h["insured"].fill_null(0).to_numpy()
    won = np.round(_lookup(tables["returns"], kind, d_kind).to_numpy() * bid)
    side = insured // 2 if rules.insurance_on_side_bet else insured
    pays = _lookup(tables["insured"], kind, d_kind).to_numpy() & h["live"].to_numpy()
    won += np.where((insured > 0) & pays, np.round(rules.insurance_payout * side), 0)
    h = h.with_columns(change=pl.Series(won - bid - insured // 2).cast(pl.Int64))
    change = h.group_by("log_id", "round", "player").agg(pl.col("change").sum())
    people = (
        t.filter(~pl.col("dealer"))
        .group_by("log_id", "player")
        .agg(mine=(pl.col("mine") == "1").any())
    )
    seats = people.sort("log_id", ~pl.col("mine"), "player").with_columns(
        seat=pl.int_range(pl.len()).over("log_id"), seats=pl.len().over("log_id")
    )
    points = pl.concat_list(
        pl.col("points").cast(pl.Int64),
        pl.when(pl.col("others") == "")
        .then(pl.lit([], dtype=pl.List(pl.Int64)))
        .otherwise(pl.col("others").str.split(";").cast(pl.List(pl.Int64), strict=False)),
    )
    s = scores.with_columns(outside=outside(sane(rules)["scores"]), points=points)
    s = s.with_columns(values=pl.col("points").list.len())
    counts = s.join(seats.group_by("log_id").agg(seats=pl.len()), on="log_id", how="left")
    flagged = flagged_logs(
        counts.filter((pl.col("values") != pl.col("seats")).fill_null(True)
                      | (pl.col("round") != pl.col("line"))
                      | pl.col("points").list.eval(pl.element().is_null()).list.any()
                      | pl.col("outside"))
    )  # fmt: skip
    long = (
        s.select("log_id", "round", "points")
        .with_columns(seat=pl.int_ranges(pl.col("points").list.len()))
        .explode("points", "seat")
        .join(seats.select("log_id", "seat", "player"), on=["log_id", "seat"])
        .sort("log_id", "seat", "round")
        .with_columns(
            before=pl.col("points").shift(1).over("log_id", "seat").fill_null(rules.starting_points)
        )
        .join(change, on=["log_id", "round", "player"], how="left")
        .join(bids, on=["log_id", "round", "player"], how="left")
    )
    before = pl.col("before")
    low = pl.min_horizontal(pl.lit(rules.min_bid), before)
    high = pl.min_horizontal(pl.lit(rules.max_bid), before)
    bad_bid = pl.col("first_bid").is_not_null() & (
        (pl.col("first_bid") < low) | (pl.col("first_bid") > high) | (before <= 0)
    )
    moved = pl.col("points") != before + pl.col("change").fill_null(0)
    flagged |= flagged_logs(long.filter(bad_bid | moved))
    # turns of a round the score file does not have are not settled by `replay`: a log
    # like that is read row by row
    played = t.group_by("log_id").agg(rounds=pl.col("round").max())
    listed = scores.group_by("log_id").agg(listed=pl.len())
    both = played.join(listed, on="log_id", how="left")
    flagged |= flagged_logs(both.filter((pl.col("rounds") != pl.col("listed")).fill_null(True)))
    return flagged

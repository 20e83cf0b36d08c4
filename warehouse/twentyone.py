"""TwentyOne in the warehouse: turns, long-form scores, and views of hands and dealers."""

from __future__ import annotations

from mine.parsers import twentyone as log_format
from mine.parsers.cards import BLACKJACK_POINTS
from mine.warehouse.checks import numbered_score_rows

GAME = "twentyone"
FORMAT = log_format

_POINTS = " ".join(f"WHEN '{rank}' THEN {points}" for rank, points in BLACKJACK_POINTS.items())

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

CREATE OR REPLACE MACRO blackjack_points(card) AS
    CASE substr(card, 2) {_POINTS} END;
CREATE OR REPLACE MACRO hand_hard_total(hand) AS
    coalesce(list_sum(list_transform(hand, lambda c: CASE WHEN substr(c, 2) = 'A' THEN 1
                                                 ELSE blackjack_points(c) END)), 0);
CREATE OR REPLACE MACRO hand_soft(hand) AS
    list_bool_or(list_transform(hand, lambda c: substr(c, 2) = 'A'))
    AND hand_hard_total(hand) + 10 <= 21;
CREATE OR REPLACE MACRO hand_total(hand) AS
    hand_hard_total(hand) + CASE WHEN hand_soft(hand) THEN 10 ELSE 0 END;
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

ROW_CHECKS = {
    "turns": (
        ("action LIKE 'Bid%' AND hand <> ''", "'a Bid row must have an empty hand'"),
        ("action NOT LIKE 'Bid%' AND hand = ''", "format('a {} row must show the hand', action)"),
        ("player = 'dealer' AND mine = '1'", "'dealer rows cannot be marked as yours'"),
        ("player = 'dealer' AND bid <> 0", "'dealer rows must have bid 0'"),
    ),
}

# Whole-file rules, written with aggregates so that valid files cost no sort: only the
# files that break the round order have their rows ordered to find the exact line.
CHECKS = """
WITH rounds AS (
    SELECT log_id, round, min(line) AS first_line, max(line) AS last_line,
           min(upcard) <> max(upcard) AS mixed_upcards, arg_min(upcard, line) AS first_upcard
    FROM stage_turns GROUP BY log_id, round
),
unordered AS (
    SELECT DISTINCT log_id FROM (
        SELECT log_id, first_line, max(last_line) OVER (PARTITION BY log_id ORDER BY round
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_last
        FROM rounds
    ) WHERE first_line < earlier_last
),
players AS (
    SELECT log_id, player, bool_or(mine = '1') AS marked, bool_or(mine = '0') AS unmarked
    FROM stage_turns WHERE player <> 'dealer' GROUP BY log_id, player
),
perspective AS (
    SELECT p.log_id, list_sort(list(p.player) FILTER (WHERE p.marked)) AS mine_ids,
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
SELECT log_id, 'turns' AS role, line, format('round goes back from {} to {}', previous, round) AS reason
FROM (
    SELECT log_id, line, round, lag(round) OVER (PARTITION BY log_id ORDER BY line) AS previous
    FROM stage_turns WHERE log_id IN (SELECT log_id FROM unordered)
) WHERE round < previous
UNION ALL
SELECT t.log_id, 'turns', t.line,
       format('up card {} differs from the round''s up card {}', t.upcard, r.first_upcard)
FROM stage_turns t JOIN (SELECT * FROM rounds WHERE mixed_upcards) r USING (log_id, round)
WHERE t.upcard <> r.first_upcard AND log_id NOT IN (SELECT log_id FROM unordered)
UNION ALL
SELECT log_id, 'turns', last_line, CASE len(mine_ids)
    WHEN 0 THEN 'no row is marked as yours (column 4)'
    ELSE format('rows marked as yours belong to several players: {}', array_to_string(mine_ids, ', '))
  END
FROM perspective WHERE len(mine_ids) <> 1
UNION ALL
SELECT log_id, 'scores', line,
       format('{} other players'' points, but the turn file has {} other players', n_others, opponents)
FROM scores WHERE round = line AND n_others <> opponents
UNION ALL
""" + numbered_score_rows("round", "rounds")

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

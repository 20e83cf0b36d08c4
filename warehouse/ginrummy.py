"""Gin Rummy in the warehouse: turns (with where each card was drawn from), rounds, games."""

from __future__ import annotations

from mine.parsers import ginrummy as log_format
from mine.warehouse.checks import numbered_score_rows

GAME = "ginrummy"
FORMAT = log_format

SCHEMA = """
CREATE TABLE IF NOT EXISTS ginrummy_turns (
    log_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    round INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    hand VARCHAR[] NOT NULL,
    mine BOOLEAN NOT NULL,
    discard_top VARCHAR NOT NULL,
    picked VARCHAR NOT NULL,
    drawn_from VARCHAR NOT NULL,
    discarded VARCHAR NOT NULL
);
COMMENT ON TABLE ginrummy_turns IS 'Gin Rummy: one row per turn: the hand after the discard (picked card first), where the card was drawn from (discard or stock), the discard';

CREATE TABLE IF NOT EXISTS ginrummy_rounds (
    log_id INTEGER NOT NULL,
    round INTEGER NOT NULL,
    points INTEGER NOT NULL,
    opponent_points INTEGER NOT NULL,
    ending VARCHAR NOT NULL,
    last_mine BOOLEAN NOT NULL
);
COMMENT ON TABLE ginrummy_rounds IS 'Gin Rummy: one row per round: points for the round (yours, the opponent''s), how it ended (Gin, Knock, Drop = stock ran out), whether the last play was yours';

CREATE OR REPLACE MACRO card_rank(card) AS substr(card, 2);
CREATE OR REPLACE MACRO card_suit(card) AS substr(card, 1, 1);
CREATE OR REPLACE MACRO deadwood_points(card) AS
    CASE substr(card, 2) WHEN 'A' THEN 1 WHEN 'J' THEN 10 WHEN 'Q' THEN 10 WHEN 'K' THEN 10
         ELSE CAST(substr(card, 2) AS INTEGER) END;

CREATE OR REPLACE VIEW ginrummy_round_summary AS
SELECT r.*, t.turns, t.discard_draws, t.my_discard_draws,
       CASE WHEN r.points > 0 THEN 'me' WHEN r.opponent_points > 0 THEN 'opponent' END AS winner
FROM ginrummy_rounds r
LEFT JOIN (SELECT log_id, round, count(*) AS turns,
                  count(*) FILTER (WHERE drawn_from = 'discard') AS discard_draws,
                  count(*) FILTER (WHERE drawn_from = 'discard' AND mine) AS my_discard_draws
           FROM ginrummy_turns GROUP BY log_id, round) t USING (log_id, round);
COMMENT ON VIEW ginrummy_round_summary IS 'Gin Rummy: rounds with their number of turns, draws from the discard pile and winner';

CREATE OR REPLACE VIEW ginrummy_games AS
SELECT log_id, count(*) AS rounds, sum(points) AS points, sum(opponent_points) AS opponent_points,
       CASE WHEN sum(points) > sum(opponent_points) THEN 'me' ELSE 'opponent' END AS winner,
       count(*) FILTER (WHERE ending = 'Gin') AS gins,
       count(*) FILTER (WHERE ending = 'Knock') AS knocks,
       count(*) FILTER (WHERE ending = 'Drop') AS drops
FROM ginrummy_rounds GROUP BY log_id;
COMMENT ON VIEW ginrummy_games IS 'Gin Rummy: one row per game: rounds, total points each side, the winner, how rounds ended';
"""

TABLES = ("ginrummy_turns", "ginrummy_rounds")

ROW_CHECKS = {
    "turns": (
        ("len(list_distinct(string_split(hand, ';'))) <> 10", "'the hand holds a card twice'"),
        (
            "split_part(hand, ';', 1) <> picked",
            "format('the picked card {} does not lead the hand', picked)",
        ),
        (
            "list_contains(string_split(hand, ';'), discarded)",
            "format('the discarded card {} is still in the hand', discarded)",
        ),
    ),
}

CHECKS = """
WITH ordered AS (
    SELECT *, lag(round) OVER w AS previous_round,
           lag(discarded) OVER w AS previous_discard
    FROM stage_turns
    WINDOW w AS (PARTITION BY log_id ORDER BY line)
),
turns AS (SELECT log_id, max(round) AS rounds FROM stage_turns GROUP BY log_id),
scores AS (
    SELECT s.*, t.rounds, max(s.line) OVER (PARTITION BY s.log_id) AS last_line
    FROM stage_scores s JOIN turns t USING (log_id)
)
SELECT log_id, 'turns' AS role, line, reason FROM (
    SELECT log_id, line, CASE
        WHEN round < previous_round THEN format('round goes back from {} to {}', previous_round, round)
        WHEN round = previous_round AND discard_top <> previous_discard
            THEN format('discard top {} is not the previous row''s discard {}', discard_top, previous_discard)
    END AS reason FROM ordered
) WHERE reason IS NOT NULL
UNION ALL
""" + numbered_score_rows("round", "rounds")

LOAD = {
    "ginrummy_turns": """
    INSERT INTO ginrummy_turns
    SELECT log_id, line, round, row_number() OVER (PARTITION BY log_id, round ORDER BY line),
           string_split(hand, ';'), mine = '1', discard_top, picked,
           CASE WHEN picked = discard_top THEN 'discard' ELSE 'stock' END, discarded
    FROM stage_turns
    """,
    "ginrummy_rounds": """
    INSERT INTO ginrummy_rounds
    SELECT log_id, round, points, opponent_points, ending, last_mine = '1'
    FROM stage_scores
    """,
}

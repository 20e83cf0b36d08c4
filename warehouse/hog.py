"""Hog in the warehouse: one row per turn, one row per game of a match."""

from __future__ import annotations

from mine.parsers import hog as log_format
from mine.warehouse.checks import numbered_score_rows

GAME = "hog"
FORMAT = log_format

SCHEMA = """
CREATE TABLE IF NOT EXISTS hog_turns (
    log_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    game INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    player VARCHAR NOT NULL,
    score INTEGER NOT NULL,
    opponent_score INTEGER NOT NULL,
    num_rolls INTEGER NOT NULL,
    outcomes INTEGER[] NOT NULL,
    points INTEGER NOT NULL,
    new_score INTEGER NOT NULL
);
COMMENT ON TABLE hog_turns IS 'Hog: one row per turn: scores before it, dice chosen and rolled, points (after Sow Sad / Pig Tail), score after Square Swine';

CREATE TABLE IF NOT EXISTS hog_games (
    log_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    game INTEGER NOT NULL,
    first_player VARCHAR NOT NULL,
    final_score_first INTEGER NOT NULL,
    final_score_second INTEGER NOT NULL,
    winner VARCHAR NOT NULL
);
COMMENT ON TABLE hog_games IS 'Hog: one row per game of a match: who moved first, both final scores, the winner';

CREATE OR REPLACE VIEW hog_turn_outcomes AS
SELECT *, new_score - score - points AS swine_bonus,
       num_rolls > 0 AND list_contains(outcomes, 1) AS sow_sad
FROM hog_turns;
COMMENT ON VIEW hog_turn_outcomes IS 'Hog: turns with the Square Swine bonus (new_score - score - points) and whether Sow Sad struck';
"""

TABLES = ("hog_turns", "hog_games")

ROW_CHECKS = {
    "turns": (
        (
            "CASE WHEN outcomes = '' THEN 0 ELSE len(string_split(outcomes, ';')) END <> num_rolls",
            "format('num_rolls is {} but {} dice are listed', num_rolls, "
            "CASE WHEN outcomes = '' THEN 0 ELSE len(string_split(outcomes, ';')) END)",
        ),
    ),
}

# As for TwentyOne: aggregates flag the files whose games are out of order, and only those
# are ordered row by row to name the line.
CHECKS = """
WITH games AS (
    SELECT log_id, game, min(line) AS first_line, max(line) AS last_line, count(*) AS turns,
           min(turn) AS first_turn, max(turn) AS last_turn
    FROM stage_turns GROUP BY log_id, game
),
unordered AS (
    SELECT DISTINCT log_id FROM (
        SELECT log_id, first_line, last_line, turns, first_turn, last_turn,
               max(last_line) OVER (PARTITION BY log_id ORDER BY game
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_last
        FROM games
    ) WHERE first_line < earlier_last OR last_line - first_line + 1 <> turns
         OR first_turn <> 1 OR last_turn <> turns
),
played AS (SELECT log_id, max(game) AS games FROM stage_turns GROUP BY log_id),
scores AS (
    SELECT s.*, p.games, max(s.line) OVER (PARTITION BY s.log_id) AS last_line
    FROM stage_scores s JOIN played p USING (log_id)
)
SELECT log_id, 'turns' AS role, line, reason FROM (
    SELECT log_id, line, CASE
        WHEN game < previous_game THEN format('game goes back from {} to {}', previous_game, game)
        WHEN game = previous_game AND turn <> previous_turn + 1
            THEN format('turn {} follows turn {}', turn, previous_turn)
        WHEN game <> previous_game AND turn <> 1 THEN format('game {} starts at turn {}', game, turn)
    END AS reason
    FROM (
        SELECT log_id, line, game, turn,
               lag(game, 1, 0) OVER w AS previous_game, lag(turn) OVER w AS previous_turn
        FROM stage_turns WHERE log_id IN (SELECT log_id FROM unordered)
        WINDOW w AS (PARTITION BY log_id ORDER BY line)
    )
) WHERE reason IS NOT NULL
UNION ALL
""" + numbered_score_rows("game", "games")

LOAD = {
    "hog_turns": """
    INSERT INTO hog_turns
    SELECT log_id, line, game, turn, player, score, opponent_score, num_rolls,
           CASE WHEN outcomes = '' THEN []::INTEGER[] ELSE CAST(string_split(outcomes, ';') AS INTEGER[]) END,
           points, new_score
    FROM stage_turns
    """,
    "hog_games": """
    INSERT INTO hog_games
    SELECT log_id, line, game, first_player, final_score_first, final_score_second, winner
    FROM stage_scores
    """,
}

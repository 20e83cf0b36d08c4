"""Hog in the warehouse: one row per turn, one row per game of a match."""

from __future__ import annotations

from mine.parsers import hog as log_format
from mine.strategies.engines.hog import HogRules
from mine.warehouse.checks import numbered_score_rows, out_of_range, rule

GAME = "hog"
FORMAT = log_format
RULES = HogRules

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
        WHEN game > next_game AND previous_game <= next_game
            THEN format('game {} comes before game {}', game, next_game)
        WHEN game < previous_game THEN format('game goes back from {} to {}', previous_game, game)
        WHEN game = previous_game AND turn <> previous_turn + 1
            THEN format('turn {} follows turn {}', turn, previous_turn)
        WHEN game <> previous_game AND turn <> 1 THEN format('game {} starts at turn {}', game, turn)
    END AS reason
    FROM (
        SELECT log_id, line, game, turn,
               lag(game, 1, 0) OVER w AS previous_game, lag(turn) OVER w AS previous_turn,
               lead(game) OVER w AS next_game
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

# --- the rules, replayed (HogRules, `../shared/spec/hog.md`) --------------------------------

_MAX_POINTS = f"greatest({rule('max_rolls')} * {rule('dice_sides')}, 19)"
_MAX_SCORE = f"pow(floor(sqrt({rule('goal')} - 1 + {_MAX_POINTS})) + 1, 2)"
SANE = {
    "turns": {
        "turn": ("1", f"2 * {rule('goal')}"),  # every turn scores at least 1
        "score": ("0", f"{rule('goal')} - 1"),
        "opponent_score": ("0", f"{rule('goal')} - 1"),
        "num_rolls": (f"CASE WHEN {rule('pig_tail')} THEN 0 ELSE 1 END", rule("max_rolls")),
        "points": ("1", _MAX_POINTS),
        "new_score": ("1", _MAX_SCORE),
    },
    "scores": {"final_score_first": ("0", _MAX_SCORE), "final_score_second": ("0", _MAX_SCORE)},
}
"""Each number's sane range, from the rules: a turn starts below the goal and scores at most
all dice on their top face (Pig Tail at most 19), which Square Swine lifts once."""

_SWINE = f"""CASE WHEN {rule("square_swine")} AND pow(floor(sqrt(score + points)), 2) = score + points
     THEN CAST(pow(floor(sqrt(score + points)) + 1, 2) AS INTEGER) ELSE score + points END"""

_POINTS = f"""CASE WHEN num_rolls = 0 AND {rule("pig_tail")}
        THEN 2 * abs(opponent_score % 100 // 10 - opponent_score % 10) + 1
     WHEN {rule("sow_sad")} AND list_contains(dice, 1) THEN 1
     ELSE coalesce(list_sum(dice), 0) END"""

RULE_CHECKS = f"""
WITH t AS (
    SELECT log_id, line, game, turn, player, score, opponent_score, num_rolls, points, new_score,
           CASE WHEN outcomes = '' THEN []::INTEGER[]
                ELSE TRY_CAST(string_split(outcomes, ';') AS INTEGER[]) END AS dice,
           lag(player) OVER w AS previous_player, lag(new_score) OVER w AS previous_new,
           lag(player, 2) OVER w AS player_before, lag(new_score, 2) OVER w AS own_previous,
           lead(line) OVER w IS NULL AS last_turn
    FROM stage_turns
    WINDOW w AS (PARTITION BY log_id, game ORDER BY line)
),
players AS (  -- of three or more, the one with the fewest turns is the intruder
    SELECT log_id, list(player ORDER BY first_line) AS ids, arg_min(player, turns) AS third,
           arg_min(first_line, turns) AS third_line
    FROM (SELECT log_id, player, min(line) AS first_line, count(*) AS turns
          FROM stage_turns GROUP BY ALL)
    GROUP BY log_id
),
games AS (  -- finals: the first mover's final score and the second's
    SELECT *, CASE WHEN winner = first_player THEN [winner_score, loser_score]
                   ELSE [loser_score, winner_score] END AS finals
    FROM (SELECT log_id, game, arg_min(player, line) AS first_player,
                 arg_max(player, line) AS winner, arg_max(new_score, line) AS winner_score,
                 coalesce(arg_max(previous_new, line), 0) AS loser_score
          FROM t GROUP BY log_id, game)
)
SELECT log_id, 'turns' AS role, line, reason FROM (
    SELECT log_id, line, CASE
        WHEN list_bool_or(list_transform(dice, lambda d: NOT d BETWEEN 1 AND {rule("dice_sides")}))
            THEN format('a die shows {{}}: the dice have {{}} sides',
                        list_filter(dice, lambda d: NOT d BETWEEN 1 AND {rule("dice_sides")})[1],
                        {rule("dice_sides")})
        WHEN previous_player = player
            THEN format('{{}} moves twice in a row', player)
        WHEN score <> coalesce(own_previous, 0)
            THEN format('score {{}} is not the mover''s score after its last turn ({{}})',
                        score, coalesce(own_previous, 0))
        WHEN opponent_score <> coalesce(previous_new, 0)
            THEN format('opponent_score {{}} is not the opponent''s score after its last turn ({{}})',
                        opponent_score, coalesce(previous_new, 0))
        WHEN points <> {_POINTS}
            THEN format('points {{}} do not follow from the dice and the rules ({{}})', points,
                        {_POINTS})
        WHEN new_score <> {_SWINE}
            THEN format('new_score {{}} does not follow from score {{}} and points {{}} ({{}})',
                        new_score, score, points, {_SWINE})
        WHEN last_turn AND new_score < {rule("goal")}
            THEN format('the game ends at {{}} points, before the goal {{}}', new_score,
                        {rule("goal")})
        WHEN NOT last_turn AND new_score >= {rule("goal")}
            THEN format('the game goes on after {{}} reached the goal with {{}}', player,
                        new_score)
    END AS reason FROM t
) WHERE reason IS NOT NULL
UNION ALL
SELECT log_id, 'turns', third_line, format('a third player {{}}: a match has two', third)
FROM players WHERE len(ids) > 2
UNION ALL
SELECT s.log_id, 'scores', s.line, CASE
    WHEN s.first_player <> g.first_player
        THEN format('first player {{}}, but {{}} moves first in the turn file', s.first_player,
                    g.first_player)
    WHEN s.winner <> g.winner
        THEN format('winner {{}}, but {{}} reaches the goal in the turn file', s.winner, g.winner)
    ELSE format('final scores {{}} and {{}}, but the turn file ends at {{}} and {{}}',
                s.final_score_first, s.final_score_second, g.finals[1], g.finals[2])
  END
FROM stage_scores s JOIN games g USING (log_id, game)
WHERE s.first_player <> g.first_player OR s.winner <> g.winner
   OR [s.final_score_first, s.final_score_second] <> g.finals
UNION ALL
{out_of_range("turns", SANE["turns"])}
UNION ALL
{out_of_range("scores", SANE["scores"])}
"""

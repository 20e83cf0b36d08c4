"""Super-Nim in the warehouse: one row per move, one per game, and the rules replayed.

Boards are stored as INTEGER[] in heap order; the views add the canonical (sorted) board,
the pairing read from the file name (`supernim-<max bot>-vs-<min bot>-s<seed>`, as `mine simulate
supernim` names its logs) and each position's final margin from the mover's side.

`RULE_CHECKS` replays every move at ingest, in SQL over the staged rows: the board it
leaves, the points it scores, whose turn it is, and that each move starts where the last
one ended, under the rules `mine ingest --rules` gives (default: the spec's merge cap 10
and 2 points for splitting a 2; `cap_scores=on`: a merge scores the sticks it loses to
the cap); the loop-breaking variants only end games earlier, which the checks allow.
"""

from __future__ import annotations

from mine.parsers import supernim as log_format
from mine.strategies.engines.supernim import SuperNimRules
from mine.warehouse.checks import numbered_score_rows, rule

GAME = "supernim"
FORMAT = log_format
RULES = SuperNimRules  # ingest sets its fields (`--rules`) as the variables RULE_CHECKS read

SCHEMA = """
CREATE TABLE IF NOT EXISTS supernim_moves (
    log_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    game INTEGER NOT NULL,
    move INTEGER NOT NULL,
    player VARCHAR NOT NULL,
    board_before INTEGER[] NOT NULL,
    kind VARCHAR NOT NULL,
    i INTEGER NOT NULL,
    j INTEGER,
    board_after INTEGER[] NOT NULL,
    score_max INTEGER NOT NULL,
    score_min INTEGER NOT NULL
);
COMMENT ON TABLE supernim_moves IS 'Super-Nim: one row per move: mover (max/min), board before and after in heap order, kind (merge/ulam/split), heaps i and j (from 1), scores after the move';

CREATE TABLE IF NOT EXISTS supernim_games (
    log_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    game INTEGER NOT NULL,
    first_player VARCHAR NOT NULL,
    start_board INTEGER[] NOT NULL,
    score_max INTEGER NOT NULL,
    score_min INTEGER NOT NULL,
    winner VARCHAR NOT NULL,
    moves INTEGER NOT NULL,
    ended VARCHAR NOT NULL
);
COMMENT ON TABLE supernim_games IS 'Super-Nim: one row per game: first mover, start board, final scores, winner (max/min/draw), moves, ended (empty, or cutoff when sticks were left)';

CREATE OR REPLACE VIEW supernim_matches AS
SELECT g.*, l.stem,
       coalesce(regexp_extract(l.stem, '^(?:supernim-)?(.+)-vs-(.+)-s[0-9]+$', 1), 'max') AS max_player,
       coalesce(regexp_extract(l.stem, '^(?:supernim-)?(.+)-vs-(.+)-s[0-9]+$', 2), 'min') AS min_player,
       array_to_string(list_sort(start_board), ';') AS start_key
FROM supernim_games g JOIN logs l USING (log_id);
COMMENT ON VIEW supernim_matches IS 'Super-Nim: games with their pairing (bot names from the file name [supernim-]<max>-vs-<min>-s<seed>) and canonical start board';

CREATE OR REPLACE VIEW supernim_positions AS
SELECT m.log_id, m.game, m.move, m.player, m.kind, m.board_before,
       list_sort(m.board_before) AS canonical_board,
       CASE WHEN m.player = 'max' THEN g.max_player ELSE g.min_player END AS mover,
       CASE WHEN m.player = 'max' THEN 1 ELSE -1 END
           * (lag(m.score_max, 1, 0) OVER w - lag(m.score_min, 1, 0) OVER w) AS margin_before,
       CASE WHEN m.player = 'max' THEN 1 ELSE -1 END * (g.score_max - g.score_min) AS final_margin,
       g.moves - m.move + 1 AS moves_to_end, g.ended, g.winner
FROM supernim_moves m JOIN supernim_matches g USING (log_id, game)
WINDOW w AS (PARTITION BY m.log_id, m.game ORDER BY m.move);
COMMENT ON VIEW supernim_positions IS 'Super-Nim: each position a move was made from, from the mover''s side: canonical board, margin before the move, final margin, moves until the game stopped';
"""

TABLES = ("supernim_moves", "supernim_games")

ROW_CHECKS = {
    "turns": (
        (
            "(kind = 'merge') <> (j <> '')",
            "'j names the heap merged onto: set for a merge, empty otherwise'",
        ),
    ),
}

# Games in line order, moves numbered 1, 2, … within each; the score file one row per game.
ORDER_CHECKS = """
WITH numbered AS (
    SELECT log_id, line, game, move,
           lag(game, 1, 0) OVER w AS previous_game, lag(move) OVER w AS previous_move
    FROM stage_turns WINDOW w AS (PARTITION BY log_id ORDER BY line)
),
played AS (SELECT log_id, max(game) AS games FROM stage_turns GROUP BY log_id),
scores AS (
    SELECT s.*, p.games, max(s.line) OVER (PARTITION BY s.log_id) AS last_line
    FROM stage_scores s JOIN played p USING (log_id)
)
SELECT log_id, 'turns' AS role, line, CASE
    WHEN game < previous_game THEN format('game goes back from {} to {}', previous_game, game)
    WHEN game > previous_game + 1 THEN format('game {} follows game {}', game, previous_game)
    WHEN game = previous_game AND move <> previous_move + 1
        THEN format('move {} follows move {}', move, previous_move)
    WHEN game <> previous_game AND move <> 1 THEN format('game {} starts at move {}', game, move)
END AS reason
FROM numbered
WHERE game < previous_game OR game > previous_game + 1
   OR (game = previous_game AND move <> previous_move + 1)
   OR (game <> previous_game AND move <> 1)
UNION ALL
""" + numbered_score_rows("game", "games")

# Every move replayed: the board it must leave, the scores it must give, the mover, and
# the chain from the start board to the game's end. One pass of window functions.
RULE_CHECKS = (
    """
WITH moves AS (
    SELECT *, TRY_CAST(string_split(nullif(board_before, ''), ';') AS INTEGER[]) AS b
    FROM stage_turns
),
replayed AS (
    SELECT m.*, len(b) AS heaps,
           CASE WHEN i BETWEEN 1 AND len(b) THEN b[i] END AS n,
           TRY_CAST(nullif(j, '') AS INTEGER) AS jj,
           lag(board_after) OVER w AS previous_after,
           lag(player) OVER w AS previous_player,
           lag(score_max, 1, 0) OVER w AS previous_max,
           lag(score_min, 1, 0) OVER w AS previous_min
    FROM moves m WINDOW w AS (PARTITION BY log_id, game ORDER BY line)
),
expected AS (
    SELECT r.*, CASE
        WHEN kind = 'merge' AND jj BETWEEN 1 AND heaps AND jj <> i AND b[jj] <> n THEN
            array_to_string([CASE WHEN k = jj THEN least(n + b[jj], MERGE_CAP) ELSE b[k] END
                             FOR k IN range(1, heaps + 1) IF k <> i], ';')
        WHEN kind = 'ulam' AND n % 2 = 1 THEN
            array_to_string(b[:i - 1] || [3 * n + 1] || b[i + 1:], ';')
        WHEN kind = 'ulam' AND n % 2 = 0 AND n > 2 THEN
            array_to_string(b[:i - 1] || [n // 2, n // 2] || b[i + 1:], ';')
        WHEN kind = 'split' AND n = 2 THEN array_to_string(b[:i - 1] || b[i + 1:], ';')
    END AS after_text,
    CASE WHEN kind = 'split' THEN SPLIT_REWARD
         WHEN kind = 'merge' AND CAP_SCORES THEN greatest(n + b[jj] - MERGE_CAP, 0)
         ELSE 0 END AS points
    FROM replayed r
),
first_moves AS (
    SELECT e.log_id, e.line, e.player, e.board_before, s.first_player, s.start_board
    FROM expected e JOIN stage_scores s ON s.log_id = e.log_id AND s.game = e.game
    WHERE e.move = 1
),
last_moves AS (
    SELECT log_id, game, arg_max(board_after, line) AS board_after,
           arg_max(score_max, line) AS score_max, arg_max(score_min, line) AS score_min,
           count(*) AS moves
    FROM stage_turns GROUP BY log_id, game
)
SELECT log_id, 'turns' AS role, line, CASE
    WHEN after_text IS NULL AND kind = 'merge'
        THEN format('merge {} onto {} is not legal on {}', i, j, board_before)
    WHEN after_text IS NULL
        THEN format('{} of heap {} is not legal on {}', kind, i, board_before)
    WHEN after_text <> board_after
        THEN format('{} leaves {}, not {}', kind, after_text, board_after)
    WHEN previous_player = player THEN format('{} moves twice in a row', player)
    WHEN previous_after IS NOT NULL AND previous_after <> board_before
        THEN format('the board was {} after the last move, not {}', previous_after, board_before)
    WHEN score_max <> previous_max + CASE WHEN player = 'max' THEN points ELSE 0 END
      OR score_min <> previous_min + CASE WHEN player = 'min' THEN points ELSE 0 END
        THEN format('scores {}-{} after a {} by {} from {}-{}', score_max, score_min, kind,
                    player, previous_max, previous_min)
END AS reason
FROM expected
WHERE after_text IS NULL OR after_text <> board_after OR previous_player = player
   OR (previous_after IS NOT NULL AND previous_after <> board_before)
   OR score_max <> previous_max + CASE WHEN player = 'max' THEN points ELSE 0 END
   OR score_min <> previous_min + CASE WHEN player = 'min' THEN points ELSE 0 END
UNION ALL
SELECT log_id, 'turns', line, CASE
    WHEN player <> first_player THEN format('{} moves first, the score file says {}', player, first_player)
    ELSE format('the game starts from {}, the score file says {}', board_before, start_board)
END
FROM first_moves WHERE player <> first_player OR board_before <> start_board
UNION ALL
SELECT s.log_id, 'scores', s.line, CASE
    WHEN l.moves IS NULL THEN format('game {} has no moves in the turn file', s.game)
    WHEN s.moves <> l.moves THEN format('{} moves, the turn file has {}', s.moves, l.moves)
    WHEN s.score_max <> l.score_max OR s.score_min <> l.score_min
        THEN format('final scores {}-{}, the last move left {}-{}', s.score_max, s.score_min,
                    l.score_max, l.score_min)
    WHEN s.winner <> CASE WHEN s.score_max > s.score_min THEN 'max'
                          WHEN s.score_max < s.score_min THEN 'min' ELSE 'draw' END
        THEN format('winner {} with scores {}-{}', s.winner, s.score_max, s.score_min)
    ELSE format('ended {} but the last board is {}', coalesce(nullif(s.ended, ''), 'empty'),
                coalesce(nullif(l.board_after, ''), 'empty'))
END
FROM stage_scores s LEFT JOIN last_moves l USING (log_id, game)
WHERE l.moves IS NULL OR s.moves <> l.moves
   OR s.score_max <> l.score_max OR s.score_min <> l.score_min
   OR s.winner <> CASE WHEN s.score_max > s.score_min THEN 'max'
                       WHEN s.score_max < s.score_min THEN 'min' ELSE 'draw' END
   OR (s.ended = '') <> (l.board_after = '')
""".replace("MERGE_CAP", rule("merge_cap"))
    .replace("SPLIT_REWARD", rule("split_reward"))
    .replace("CAP_SCORES", rule("cap_scores"))
)

CHECKS = ORDER_CHECKS

LOAD = {
    "supernim_moves": """
    INSERT INTO supernim_moves
    SELECT log_id, line, game, move, player,
           CAST(string_split(board_before, ';') AS INTEGER[]), kind, i,
           TRY_CAST(nullif(j, '') AS INTEGER),
           CASE WHEN board_after = '' THEN []::INTEGER[]
                ELSE CAST(string_split(board_after, ';') AS INTEGER[]) END,
           score_max, score_min
    FROM stage_turns
    """,
    "supernim_games": """
    INSERT INTO supernim_games
    SELECT log_id, line, game, first_player, CAST(string_split(start_board, ';') AS INTEGER[]),
           score_max, score_min, winner, moves, ended
    FROM stage_scores
    """,
}

"""Super-Nim in the warehouse: one row per move, one per game, and the rules replayed.

Boards are stored as INTEGER[] in heap order; the views add the canonical (sorted) board,
the pairing read from the file name (`supernim-<max bot>-vs-<min bot>-s<seed>`, as `mine simulate
supernim` names its logs) and each position's final margin from the mover's side.

Ingest replays every move (`replay`) through the engine's `move`: the board it leaves, the
points it scores, whose turn it is, and that each move starts where the last one ended,
under the rules `mine ingest --rules` gives (default: the spec's merge cap 10 and 2 points
for splitting a 2; `cap_scores=on`: a merge scores the sticks it loses to the cap); the
loop-breaking variants only end games earlier, which the replay allows.
"""

from __future__ import annotations

from mine.parsers import supernim as log_format
from mine.strategies.engines.supernim import MERGE, SuperNimRules, move
from mine.warehouse.checks import Problem, numbered_score_rows

GAME = "supernim"
FORMAT = log_format
RULES = SuperNimRules  # `--rules` at ingest: the rules the moves are replayed under

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
       coalesce(nullif(regexp_extract(l.stem, '^(?:supernim-)?(.+)-vs-(.+)-s[0-9]+$', 1), ''), 'max') AS max_player,
       coalesce(nullif(regexp_extract(l.stem, '^(?:supernim-)?(.+)-vs-(.+)-s[0-9]+$', 2), ''), 'min') AS min_player,
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

# --- the rules, replayed (SuperNimRules, `../shared/spec/supernim.md`) ------------------------


def replay(rules: SuperNimRules, turns: list[tuple], scores: list[tuple]) -> list[Problem]:
    """Every broken rule of one log: its rows (line first, then the format's columns) in
    file order, each move replayed through the engine's `move`, and each game's score row
    against where its moves ended."""
    problems: list[Problem] = []
    starts = {row[1]: row for row in scores}  # each game's score row
    ends: dict[int, tuple[tuple, int]] = {}  # each game's last move, and its moves
    before = None
    for row in turns:
        line, game, number, player, board_before = row[:5]
        previous = before if before and before[1] == game else None
        reason = _move_problem(rules, row, previous)
        if reason:
            problems.append(("turns", line, reason))
        start = starts.get(game)
        if number == 1 and start:
            _, _, first, start_board, *_ = start
            if player != first:
                problems.append(
                    ("turns", line, f"{player} moves first, the score file says {first}")
                )
            elif board_before != start_board:
                problems.append((
                    "turns", line,
                    f"the game starts from {board_before}, the score file says {start_board}",
                ))  # fmt: skip
        ends[game] = (row, ends[game][1] + 1 if game in ends else 1)
        before = row
    for row in scores:
        reason = _game_problem(row, ends.get(row[1]))
        if reason:
            problems.append(("scores", row[0], reason))
    return problems


def _move_problem(rules: SuperNimRules, row: tuple, previous: tuple | None) -> str | None:
    """What is wrong with one move, given the game's move before it."""
    _, _, _, player, board_before, kind, i, j, board_after, score_max, score_min = row
    board = tuple(int(heap) for heap in board_before.split(";"))
    made = move(board, kind, i - 1, int(j) - 1 if j else None, rules)
    if made is None:
        if kind == MERGE:
            return f"merge {i} onto {j} is not legal on {board_before}"
        return f"{kind} of heap {i} is not legal on {board_before}"
    after = ";".join(map(str, made.after))
    if after != board_after:
        return f"{kind} leaves {after}, not {board_after}"
    if previous and previous[3] == player:
        return f"{player} moves twice in a row"
    if previous and previous[8] != board_before:
        return f"the board was {previous[8]} after the last move, not {board_before}"
    was_max, was_min = (previous[9], previous[10]) if previous else (0, 0)
    gained = (made.points, 0) if player == "max" else (0, made.points)
    if (score_max, score_min) != (was_max + gained[0], was_min + gained[1]):
        return f"scores {score_max}-{score_min} after a {kind} by {player} from {was_max}-{was_min}"
    return None


def _game_problem(row: tuple, end: tuple[tuple, int] | None) -> str | None:
    """What the score row of a game says that its moves do not."""
    _, game, _, _, score_max, score_min, winner, moves, ended = row
    if end is None:
        return f"game {game} has no moves in the turn file"
    last, made = end
    if moves != made:
        return f"{moves} moves, the turn file has {made}"
    if (score_max, score_min) != (last[9], last[10]):
        return f"final scores {score_max}-{score_min}, the last move left {last[9]}-{last[10]}"
    leader = "max" if score_max > score_min else "min" if score_max < score_min else "draw"
    if winner != leader:
        return f"winner {winner} with scores {score_max}-{score_min}"
    if (ended == "") != (last[8] == ""):
        return f"ended {ended or 'empty'} but the last board is {last[8] or 'empty'}"
    return None

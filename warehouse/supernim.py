"""Super-Nim in the warehouse: one row per move, one per game, and the rules replayed.

Boards are stored as INTEGER[] in heap order; the views add the canonical (sorted) board,
the pairing read from the file name (`supernim-<max bot>-vs-<min bot>-s<seed>`, as `mine simulate
supernim` names its logs) and each position's final margin from the mover's side.

Ingest replays every move (`replay`) through the engine's `move`: the board it leaves, the
points it scores, whose turn it is, and that each move starts where the last one ended,
under the rules `mine ingest --rules` gives (default: the spec's merge cap 10 and 2 points
for splitting a 2; `cap_scores=on`: a merge scores the sticks it loses to the cap); the
loop-breaking variants only end games earlier, which the replay allows. `suspects` checks
the same for a whole batch at once, `move`'s results looked up by heap sizes, and names
the logs the replay must read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from mine.parsers import supernim as log_format
from mine.strategies.engines.supernim import MAX, MERGE, MIN, SPLIT, ULAM, SuperNimRules, move
from mine.warehouse.checks import Problem, flagged_logs, numbered_score_rows

if TYPE_CHECKING:  # polars loads when the rules are replayed
    import polars as pl

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
# `logs` counts its rows: one a row of the turn files, and one a row of the score files
FILE_ROWS = ("supernim_moves", "supernim_games")

ROW_CHECKS = {
    "turns": (
        (
            "(kind = 'merge') <> (j <> '')",
            "'j names the heap merged onto: set for a merge, empty otherwise'",
        ),
    ),
}

# Games in line order, moves numbered 1, 2, … within each; the score file one row per game.
CHECKS = """
WITH numbered AS (
    -- BIGINT: a log's numbers reach INTEGER's largest, and the previous one + 1 is compared
    SELECT log_id, line, game, move, CAST(lag(game, 1, 0) OVER w AS BIGINT) AS previous_game,
           CAST(lag(move) OVER w AS BIGINT) AS previous_move
    FROM stage_turns WINDOW w AS (PARTITION BY log_id ORDER BY line)
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
""" + numbered_score_rows("game")

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
    """Every broken rule of one log: each move replayed through the engine's `move`, and
    each game's score row against where its moves ended."""
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


# --- the same rules over a whole batch ---------------------------------------------------


def suspects(rules: SuperNimRules, turns: pl.DataFrame, scores: pl.DataFrame) -> set[int]:
    """Every condition of `replay` as a column, each distinct move's board after and points
    (`_made`) from the engine's `move` on the heaps it takes;
    `tests/warehouse/test_supernim_replay.py` holds that it never clears one the replay
    rejects."""
    import polars as pl

    log, game, player, before = (pl.col(c) for c in ("log_id", "game", "player", "board_before"))
    key = ["board_before", "kind", "i", "j"]
    t = turns.with_columns(pl.col("j").fill_null(""))
    t = t.join(_made(rules, t.select(key).unique()), on=key, how="left", maintain_order="left")
    same = ((log == log.shift(1)) & (game == game.shift(1))).fill_null(False)
    was = {side: pl.when(same).then(pl.col(f"score_{side}").shift(1)).otherwise(0)
           for side in (MAX, MIN)}  # fmt: skip
    gained = pl.col("gained")
    wrong = (
        (pl.col("after") != pl.col("board_after"))
        | (same & (player == player.shift(1)))
        | (same & (pl.col("board_after").shift(1) != before))
        | (pl.col("score_max") != was[MAX] + pl.when(player == MAX).then(gained).otherwise(0))
        | (pl.col("score_min") != was[MIN] + pl.when(player == MIN).then(gained).otherwise(0))
    )  # fmt: skip
    flagged = flagged_logs(t.filter(wrong.fill_null(True)))  # an illegal move's `after` is null
    # the first move against its game's score row
    starts = t.filter(pl.col("move") == 1).join(
        scores.select("log_id", "game", "first_player", "start_board"), on=["log_id", "game"]
    )
    flagged |= flagged_logs(starts.filter(
        ((player != pl.col("first_player")) | (before != pl.col("start_board"))).fill_null(True)
    ))  # fmt: skip
    # each score row against where its game's moves ended
    ends = t.group_by("log_id", "game").agg(
        made=pl.len(), last_max=pl.col("score_max").last(), last_min=pl.col("score_min").last(),
        emptied=(pl.col("board_after").last() == "").fill_null(False),
    )  # fmt: skip
    s = scores.join(ends, on=["log_id", "game"], how="left")
    score_max, score_min = pl.col("score_max"), pl.col("score_min")
    leader = pl.when(score_max > score_min).then(pl.lit(MAX)).when(score_max < score_min)
    ended = (
        pl.col("made").is_null() | (pl.col("moves") != pl.col("made"))
        | (score_max != pl.col("last_max")) | (score_min != pl.col("last_min"))
        | (pl.col("winner") != leader.then(pl.lit(MIN)).otherwise(pl.lit("draw")))
        | ((pl.col("ended") == "").fill_null(False) != pl.col("emptied"))
    )  # fmt: skip
    return flagged | flagged_logs(s.filter(ended.fill_null(True)))


def _made(rules: SuperNimRules, distinct: pl.DataFrame) -> pl.DataFrame:
    """Each distinct move (board before, kind, i, j) with the board it leaves as text
    (`after`: null where `move` finds it illegal) and the mover's points (`gained`): the
    engine's `move` on the heaps it takes (`_merges`, `_steps`) spliced into the board as
    `move` splices them (heap j merged and heap i gone; heap i stepped, in its place)."""
    import polars as pl

    kind, heaps = pl.col("kind"), pl.col("heaps")
    i, j = pl.col("i").cast(pl.Int64) - 1, pl.col("j").cast(pl.Int64, strict=False) - 1
    m = distinct.with_columns(
        heaps=pl.col("board_before").str.split(";").cast(pl.List(pl.Int64), strict=False),
        i0=i, j0=j,
    )  # fmt: skip
    size = heaps.list.len()
    # A heap past int64 is null (and one of 19 digits may step past it): suspect outright.
    sound = ~pl.col("board_before").str.contains(r"\d{19}")
    m = m.with_columns(
        a=heaps.list.get(i.clip(0, size - 1), null_on_oob=True),
        b=heaps.list.get(j.clip(0, size - 1), null_on_oob=True),
    ).filter(sound)
    merge = kind == MERGE
    m = m.join(_merges(rules, m.filter(merge).select("a", "b").unique().rows()),
               on=["a", "b"], how="left", maintain_order="left")  # fmt: skip
    m = m.join(_steps(rules, m["a"].unique().drop_nulls()), on=["a", "kind"], how="left",
               maintain_order="left")  # fmt: skip
    i, j, a, b = pl.col("i0"), pl.col("j0"), pl.col("a"), pl.col("b")
    legal = (i >= 0) & (i < size) & (
        pl.when(merge)
        .then((j >= 0) & (j < size) & (a != b) & pl.col("merged").is_not_null())
        .otherwise((pl.col("j") == "") & pl.col("left").is_not_null())
    )  # fmt: skip
    low, high = pl.min_horizontal(i, j), pl.max_horizontal(i, j)
    merged = pl.concat_list("merged")  # [the merged heap], sliced to [] where it is not

    def part(start: pl.Expr, length: pl.Expr | None = None) -> pl.Expr:
        return heaps.list.slice(start.clip(0), None if length is None else length.clip(0))

    onto = pl.concat_list(
        part(pl.lit(0), low), merged.list.slice(0, (i > j).cast(pl.Int64)),
        part(low + 1, high - low - 1), merged.list.slice(0, (i < j).cast(pl.Int64)),
        part(high + 1),
    )  # fmt: skip
    stepped = pl.concat_list(part(pl.lit(0), i), "left", part(i + 1))
    after = pl.when(merge).then(onto).otherwise(stepped)
    return m.select(
        "board_before", "kind", "i", "j",
        after=pl.when(legal).then(after.list.eval(pl.element().cast(pl.String)).list.join(";")),
        gained=pl.when(merge).then(pl.col("points_merge")).otherwise(pl.col("points")),
    )  # fmt: skip


def _merges(rules: SuperNimRules, pairs: Iterable[tuple[int, int]]) -> pl.DataFrame:
    """The engine's merge of a heap of a onto one of b (a != b), for each pair: the heap
    it leaves (`merged`) and the mover's points (`points_merge`)."""
    import polars as pl

    found = []
    for a, b in pairs:
        made = move((a, b), MERGE, 0, 1, rules) if a is not None and b is not None else None
        if made is not None:
            found.append((a, b, made.after[0], made.points))
    schema = {"a": pl.Int64, "b": pl.Int64, "merged": pl.Int64, "points_merge": pl.Int64}
    return pl.DataFrame(found, schema=schema, orient="row")


def _steps(rules: SuperNimRules, sizes: Iterable[int]) -> pl.DataFrame:
    """The engine's Ulam step of a heap of each size: its kind, the heaps it leaves in the
    heap's place (`left`) and the mover's points."""
    import polars as pl

    found = []
    for a in sizes:
        for kind in (ULAM, SPLIT):
            made = move((a,), kind, 0, None, rules)
            if made is not None:
                found.append((a, kind, list(made.after), made.points))
    schema = {"a": pl.Int64, "kind": pl.String, "left": pl.List(pl.Int64), "points": pl.Int64}
    return pl.DataFrame(found, schema=schema, orient="row")

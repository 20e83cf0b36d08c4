"""Hog in the warehouse: one row per turn, one row per game of a match, and the rules
replayed over each log through the engine's rule functions (`replay`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from mine.parsers import hog as log_format
from mine.strategies.engines.hog import (
    HogRules,
    roll_points,
    square_swine,
    swine_map,
    tail_map,
    tail_points,
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
# `logs` counts its rows: one a row of the turn files, and one a row of the score files
FILE_ROWS = ("hog_turns", "hog_games")

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
        -- BIGINT: a log's numbers reach INTEGER's largest, and the previous one + 1 is compared
        SELECT log_id, line, game, turn, lag(game, 1, 0) OVER w AS previous_game,
               CAST(lag(turn) OVER w AS BIGINT) AS previous_turn,
               lead(game) OVER w AS next_game
        FROM stage_turns WHERE log_id IN (SELECT log_id FROM unordered)
        WINDOW w AS (PARTITION BY log_id ORDER BY line)
    )
) WHERE reason IS NOT NULL
UNION ALL
""" + numbered_score_rows("game")

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


def sane(rules: HogRules) -> dict[str, dict[str, tuple[int, float]]]:
    """Each number's sane range, from the rules: a turn starts below the goal and scores at
    most all dice on their top face (Pig Tail at most 19), which Square Swine lifts once
    (the highest score is written as the reals DuckDB's checks wrote it: `169.0`)."""
    most_points = max(rules.max_rolls * rules.dice_sides, 19)
    most_score = float((math.isqrt(rules.goal - 1 + most_points) + 1) ** 2)
    return {
        "turns": {
            "turn": (1, 2 * rules.goal),  # every turn scores at least 1
            "score": (0, rules.goal - 1),
            "opponent_score": (0, rules.goal - 1),
            "num_rolls": (rules.min_rolls, rules.max_rolls),
            "points": (1, most_points),
            "new_score": (1, most_score),
        },
        "scores": {"final_score_first": (0, most_score), "final_score_second": (0, most_score)},
    }


def replay(rules: HogRules, turns: list[tuple], scores: list[tuple]) -> list[Problem]:
    """Every broken rule of one log, replayed game by game through the engine's rules."""
    problems: list[Problem] = []
    ranges = sane(rules)
    firsts: dict[int, str] = {}  # each game's first mover
    games: dict[int, tuple[str, str, int, int]] = {}  # first mover, winner, finals
    turns_of: dict[str, int] = {}
    first_line: dict[str, int] = {}
    for number, row in enumerate(turns):
        line, game, _, player, score, opponent, num_rolls, outcomes, points, new = row
        turns_of[player] = turns_of.get(player, 0) + 1
        first_line.setdefault(player, line)
        before = turns[number - 1] if number and turns[number - 1][1] == game else None
        own = turns[number - 2] if number > 1 and turns[number - 2][1] == game else None
        last = number + 1 == len(turns) or turns[number + 1][1] != game
        dice = [int(d) for d in outcomes.split(";")] if outcomes else []
        reason = _turn_problem(rules, row, dice, before, own, last)
        if reason:
            problems.append(("turns", line, reason))
        first = firsts.setdefault(game, player)
        if last:
            previous = before[9] if before else 0
            finals = (new, previous) if player == first else (previous, new)
            games[game] = (first, player, *finals)
    if len(turns_of) > 2:
        third = min(turns_of, key=lambda p: (turns_of[p], first_line[p]))
        problems.append(("turns", first_line[third], f"a third player {third}: a match has two"))
    for row in scores:
        line, game, first, final_first, final_second, winner = row
        if game in games:
            reason = _game_problem(row, games[game])
            if reason:
                problems.append(("scores", line, reason))
    problems += outside_ranges("turns", turns, FORMAT.TURNS, ranges["turns"])
    problems += outside_ranges("scores", scores, FORMAT.SCORES, ranges["scores"])
    return problems


def _turn_problem(rules: HogRules, row: tuple, dice: list[int], before: tuple | None,
                  own: tuple | None, last: bool) -> str | None:  # fmt: skip
    """What is wrong with one turn, given the turn before it and the mover's own last."""
    _, _, _, player, score, opponent, num_rolls, _, points, new = row
    wrong = [d for d in dice if not 1 <= d <= rules.dice_sides]
    if wrong:
        return f"a die shows {wrong[0]}: the dice have {rules.dice_sides} sides"
    if before and before[3] == player:
        return f"{player} moves twice in a row"
    own_score = own[9] if own else 0
    if score != own_score:
        return f"score {score} is not the mover's score after its last turn ({own_score})"
    opponent_score = before[9] if before else 0
    if opponent != opponent_score:
        return (
            f"opponent_score {opponent} is not the opponent's score after its last turn "
            f"({opponent_score})"
        )
    tail = num_rolls == 0 and rules.pig_tail
    expected = tail_points(opponent) if tail else roll_points(dice, rules)
    if points != expected:
        return f"points {points} do not follow from the dice and the rules ({expected})"
    swined = square_swine(score + points, rules)
    if new != swined:
        return f"new_score {new} does not follow from score {score} and points {points} ({swined})"
    if last and new < rules.goal:
        return f"the game ends at {new} points, before the goal {rules.goal}"
    if not last and new >= rules.goal:
        return f"the game goes on after {player} reached the goal with {new}"
    return None


def _game_problem(row: tuple, played: tuple[str, str, int, int]) -> str | None:
    """What the score row of a game says that its turns do not."""
    _, _, first, final_first, final_second, winner = row
    mover, reached, *finals = played
    if first != mover:
        return f"first player {first}, but {mover} moves first in the turn file"
    if winner != reached:
        return f"winner {winner}, but {reached} reaches the goal in the turn file"
    if [final_first, final_second] != finals:
        return (
            f"final scores {final_first} and {final_second}, but the turn file ends at "
            f"{finals[0]} and {finals[1]}"
        )
    return None


def suspects(rules: HogRules, turns: pl.DataFrame, scores: pl.DataFrame) -> set[int]:
    """Every condition of `replay` as a column, the engine's rules looked up in its tables
    (`tail_map`, `swine_map`); the golden rows test holds the two equal."""
    import polars as pl

    ranges = sane(rules)
    most = int(ranges["turns"]["new_score"][1])
    tail, swine = tail_map(rules), swine_map(rules, most + 1)
    log, game, new = pl.col("log_id"), pl.col("game"), pl.col("new_score")
    same_game = (log == log.shift(1)) & (game == game.shift(1))
    own_game = (log == log.shift(2)) & (game == game.shift(2))
    last = ~((log == log.shift(-1)) & (game == game.shift(-1))).fill_null(False)
    t = turns.with_columns(
        dice=pl.when(pl.col("outcomes") == "")
        .then(pl.lit([], dtype=pl.List(pl.Int64)))
        .otherwise(pl.col("outcomes").str.split(";").cast(pl.List(pl.Int64), strict=False)),
        before=same_game.fill_null(False),
        own=own_game.fill_null(False),
        last=last,
    )
    opponent = t["opponent_score"].to_numpy().clip(0, rules.goal - 1)
    t = t.with_columns(tail=pl.Series(tail[opponent]))
    dice = pl.col("dice")
    tail_turn = (pl.col("num_rolls") == 0) & rules.pig_tail
    sow_sad = dice.list.contains(1) & rules.sow_sad
    points = pl.when(tail_turn).then("tail").when(sow_sad).then(1).otherwise(dice.list.sum())
    t = t.with_columns(expected=points)
    total = (t["score"] + t["points"]).to_numpy()
    t = t.with_columns(swined=pl.Series(swine[total.clip(0, most)]), total=pl.Series(total))
    wrong = (
        ((dice.list.min() < 1) | (dice.list.max() > rules.dice_sides)).fill_null(False)
        | pl.col("outcomes").str.contains(r"\d{19}")  # a die past int64
        | (pl.col("before") & (pl.col("player") == pl.col("player").shift(1)))
        | (pl.col("score") != pl.when("own").then(new.shift(2)).otherwise(0))
        | (pl.col("opponent_score") != pl.when("before").then(new.shift(1)).otherwise(0))
        | (pl.col("points") != pl.col("expected"))
        | (pl.col("total") > most) | (new != pl.col("swined"))
        | (pl.col("last") & (new < rules.goal)) | (~pl.col("last") & (new >= rules.goal))
        | outside(ranges["turns"])
    )  # fmt: skip
    flagged = flagged_logs(t.filter(wrong.fill_null(True)))
    players = t.group_by("log_id").agg(pl.col("player").n_unique().alias("players"))
    flagged |= flagged_logs(players.filter(pl.col("players") > 2))
    played = t.group_by("log_id", "game").agg(
        mover=pl.col("player").first(),
        reached=pl.col("player").last(),
        won=new.last(),
        lost=pl.when(pl.col("before")).then(new.shift(1)).otherwise(0).last(),
    )
    s = scores.join(played, on=["log_id", "game"], how="left")
    first_won = pl.col("reached") == pl.col("mover")
    ended = (
        (pl.col("first_player") != pl.col("mover")) | (pl.col("winner") != pl.col("reached"))
        | (pl.col("final_score_first") != pl.when(first_won).then("won").otherwise("lost"))
        | (pl.col("final_score_second") != pl.when(first_won).then("lost").otherwise("won"))
    )  # fmt: skip
    flagged |= flagged_logs(s.filter(ended.fill_null(False) | outside(ranges["scores"])))
    return flagged

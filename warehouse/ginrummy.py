"""Gin Rummy in the warehouse: turns (with where each card was drawn from), rounds, games."""

from __future__ import annotations

from collections.abc import Callable

from mine.parsers import ginrummy as log_format
from mine.parsers.cards import parse_course
from mine.strategies.engines.ginrummy import GinRummyRules, solver_for
from mine.strategies.engines.melds import hand_mask
from mine.warehouse.checks import numbered_score_rows, out_of_range, rule

GAME = "ginrummy"
FORMAT = log_format
RULES = GinRummyRules

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
    SELECT *, lag(round) OVER w AS previous_round, lead(round) OVER w AS next_round,
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
        WHEN round > next_round AND coalesce(previous_round <= next_round, true)
            THEN format('round {} comes before round {}', round, next_round)
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

# --- the rules, replayed (GinRummyRules, `../shared/spec/ginrummy.md`) ----------------------
# The sides alternate; each hand is the side's last hand with the picked card in and the
# discard out; a card from the stock has not been seen before in the round (in a hand or on
# the pile). Exactly one side scores a round, within what the final hands allow.

SANE = {
    "turns": {"round": ("1", f"2 * {rule('game_target')}")},  # every round scores ≥ 1
    "scores": {
        "round": ("1", f"2 * {rule('game_target')}"),
        "points": ("0", f"{rule('gin_bonus')} + 10 * {rule('hand_size')}"),
        "opponent_points": ("0", f"{rule('gin_bonus')} + 10 * {rule('hand_size')}"),
    },
}
"""Each number's sane range, from the rules: a round scores at most the Gin bonus and ten
points a card."""


def functions(rules: GinRummyRules) -> dict[str, tuple[Callable, list[str], str]]:
    """SQL functions the rule checks call: `gin_deadwoods(hand)`, every deadwood some meld
    declaration of the hand leaves, least first (the engine's solver). Called once per
    round's final hands, which no SQL expression could arrange into melds."""
    solver = solver_for(rules)

    def deadwoods(hand: list[str]) -> list[int]:
        return solver.deadwoods(hand_mask(parse_course(card) for card in hand))

    return {"gin_deadwoods": (deadwoods, ["VARCHAR[]"], "INTEGER[]")}


FUNCTIONS = functions

RULE_CHECKS = f"""
WITH t AS (
    SELECT log_id, line, round, mine, discard_top, picked, discarded,
           string_split(hand, ';') AS cards,
           lag(mine) OVER w AS previous_mine, lag(string_split(hand, ';'), 2) OVER w AS own_last
    FROM stage_turns
    WINDOW w AS (PARTITION BY log_id, round ORDER BY line)
),
seen AS (
    SELECT log_id, round, card, min(line) AS first_line
    FROM (SELECT log_id, round, line, unnest(list_append(cards, discard_top)) AS card FROM t)
    GROUP BY ALL
),
ends AS (
    SELECT log_id, round, arg_max(mine, line) AS last_mine,
           arg_max(cards, line) AS caller_hand,
           arg_max(cards, line) FILTER (WHERE mine <> last_side) AS other_hand
    FROM (SELECT *, last_value(mine) OVER (PARTITION BY log_id, round ORDER BY line
              ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS last_side FROM t)
    GROUP BY ALL
),
scored AS (
    SELECT s.*, e.last_mine AS turn_last_mine, e.caller_hand,
           CASE WHEN s.last_mine = '1' THEN s.points ELSE s.opponent_points END AS caller_points,
           CASE WHEN s.last_mine = '1' THEN s.opponent_points ELSE s.points END AS other_points,
           gin_deadwoods(e.caller_hand) AS caller_can,
           -- no hand when the caller played every turn: any deadwood of ten cards
           coalesce(gin_deadwoods(e.other_hand), range(10 * {rule("hand_size")} + 1)) AS other_can
    FROM stage_scores s LEFT JOIN ends e USING (log_id, round)
),
settled AS (  -- the caller's declarations the score allows (a knock declares to its limit)
    SELECT *, caller_can[1] AS caller_least,
           list_filter(caller_can, lambda c: ending <> 'Knock' OR c <= {rule("knock_limit")})
               AS caller_may
    FROM scored
)
SELECT log_id, 'turns' AS role, line, reason FROM (
    SELECT t.log_id, t.line, CASE
        WHEN t.mine = t.previous_mine THEN 'the same side plays two turns in a row'
        WHEN t.own_last IS NOT NULL
             AND list_sort(t.cards) <> list_sort(list_filter(list_append(t.own_last, t.picked),
                                                             lambda c: c <> t.discarded))
            THEN format('the hand is not the side''s last hand {{}} with {{}} in and {{}} out',
                        array_to_string(t.own_last, ';'), t.picked, t.discarded)
        WHEN t.picked <> t.discard_top AND s.first_line < t.line
            THEN format('{{}} is drawn from the stock, but it was seen before in the round '
                        '(line {{}})', t.picked, s.first_line)
    END AS reason
    FROM t LEFT JOIN seen s ON s.log_id = t.log_id AND s.round = t.round AND s.card = t.picked
) WHERE reason IS NOT NULL
UNION ALL
SELECT log_id, 'scores', line, reason FROM (
    SELECT log_id, line, CASE
    WHEN points > 0 AND opponent_points > 0 THEN 'both sides score: only the round''s winner does'
    WHEN points = 0 AND opponent_points = 0 THEN 'nobody scores: the round''s winner scores at least 1'
    WHEN last_mine <> turn_last_mine
        THEN format('the last play is marked {{}}, but the turn file''s last play is {{}}',
                    last_mine, turn_last_mine)
    WHEN ending = 'Gin' AND caller_least > 0
        THEN format('a Gin, but the caller''s hand {{}} leaves deadwood {{}} at best',
                    array_to_string(caller_hand, ';'), caller_least)
    WHEN ending = 'Knock' AND caller_least > {rule("knock_limit")}
        THEN format('a Knock, but the caller''s hand {{}} leaves deadwood {{}} at best (limit {{}})',
                    array_to_string(caller_hand, ';'), caller_least, {rule("knock_limit")})
    WHEN ending = 'Gin' AND NOT list_contains(other_can, caller_points - {rule("gin_bonus")})
        THEN format('a Gin scores {{}} + a deadwood the opponent''s hand can leave ({{}}), not {{}}',
                    {rule("gin_bonus")}, array_to_string(other_can, ', '), caller_points)
    WHEN ending <> 'Gin' AND caller_points > 0
         AND len(list_filter(caller_may, lambda c: list_contains(other_can, c + caller_points))) = 0
        THEN format('the caller scores {{}}, which no declarations of the two hands leave '
                    '(caller {{}}; opponent {{}})', caller_points,
                    array_to_string(caller_may, ', '), array_to_string(other_can, ', '))
    WHEN ending <> 'Gin' AND other_points > 0
         AND (other_points < {rule("undercut_bonus")} OR len(list_filter(caller_may, lambda c:
                  list_contains(other_can, c - other_points + {rule("undercut_bonus")}))) = 0)
        THEN format('an undercut scores {{}} + the difference, and no declarations of the two '
                    'hands make {{}} (caller {{}}; opponent {{}})', {rule("undercut_bonus")},
                    other_points, array_to_string(caller_may, ', '),
                    array_to_string(other_can, ', '))
    END AS reason
    FROM settled
) WHERE reason IS NOT NULL
UNION ALL
{out_of_range("turns", SANE["turns"])}
UNION ALL
{out_of_range("scores", SANE["scores"])}
"""

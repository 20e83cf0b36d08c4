"""Card guessing in the warehouse: one row per guess, one row per game.

Ingest replays the rules over each log (`replay`): every logged feedback is recomputed
from the logged answer and guess by the engine's `feedback`, so a log with one wrong
number is a rejected file. Hands are stored as lists of the spec's card strings (`TH`); the views add
ranks (2 … 14, ace high) and suits.
"""

from __future__ import annotations

from collections.abc import Sequence

from mine.parsers import cardguess as log_format
from mine.strategies.engines.cardguess import CardGuessRules, feedback, parse_hand
from mine.warehouse.checks import Problem, numbered_score_rows

GAME = "cardguess"
FORMAT = log_format
RULES = CardGuessRules  # `--rules` at ingest (the checks read no setting: a log holds any n)

RANK = "(instr('23456789TJQKA', c[1]) + 1)"  # of a card `c`: 2 … 14, ace high

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS cardguess_guesses (
    log_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    game INTEGER NOT NULL,
    n INTEGER NOT NULL,
    answer VARCHAR[] NOT NULL,
    guess_no INTEGER NOT NULL,
    guess VARCHAR[] NOT NULL,
    correct INTEGER NOT NULL,
    lower INTEGER NOT NULL,
    ranks INTEGER NOT NULL,
    higher INTEGER NOT NULL,
    suits INTEGER NOT NULL
);
COMMENT ON TABLE cardguess_guesses IS 'Card guessing: one row per guess: the answer, the guess and its five feedback numbers (correct cards, lower, correct ranks, higher, correct suits)';

CREATE TABLE IF NOT EXISTS cardguess_games (
    log_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    game INTEGER NOT NULL,
    n INTEGER NOT NULL,
    answer VARCHAR[] NOT NULL,
    guesses INTEGER NOT NULL
);
COMMENT ON TABLE cardguess_games IS 'Card guessing: one row per game: the answer and how many guesses found it';

CREATE OR REPLACE VIEW cardguess_answer_cards AS
SELECT g.log_id, g.game, g.n, c AS card, {RANK} AS rank, c[2] AS suit
FROM cardguess_games g, unnest(g.answer) AS t(c);
COMMENT ON VIEW cardguess_answer_cards IS 'Card guessing: one row per card of each game''s answer, with its rank (2 … 14, ace high) and suit';

CREATE OR REPLACE VIEW cardguess_turns AS
SELECT *, correct = n AS solved,
       format('{{}},{{}},{{}},{{}},{{}}', correct, lower, ranks, higher, suits) AS feedback
FROM cardguess_guesses;
COMMENT ON VIEW cardguess_turns IS 'Card guessing: the guesses with the feedback as text (correct,lower,ranks,higher,suits) and whether the guess was the answer';
"""

TABLES = ("cardguess_guesses", "cardguess_games")
# `logs` counts its rows: one a row of the turn files, and one a row of the score files
FILE_ROWS = ("cardguess_guesses", "cardguess_games")


def _hand_rows(hand: str) -> tuple[tuple[str, str], ...]:
    """The row checks of a hand column: n cards, none repeated."""
    cards = f"string_split({hand}, ';')"
    return ((f"len({cards}) <> n", f"format('{hand} has {{}} cards, n is {{}}', len({cards}), n)"),
            (f"len(list_distinct({cards})) <> n", f"'{hand} repeats a card'"))  # fmt: skip


ROW_CHECKS = {
    "turns": (*_hand_rows("answer"), *_hand_rows("guess"),
              ("greatest(correct, lower, ranks, higher, suits) > n",
               "format('a feedback number is more than the {} cards', n)")),
    "scores": _hand_rows("answer"),
}  # fmt: skip

# Games in order, guesses numbered 1, 2, … within a game, one answer and n per game, the
# answer found by the last guess and by no other, and the score file agreeing.
CHECKS = """
WITH turns AS (
    -- BIGINT: a log's numbers reach INTEGER's largest, and the previous one + 1 is compared
    SELECT *, CAST(lag(game, 1, 0) OVER w AS BIGINT) AS previous_game,
           CAST(lag(guess_no) OVER w AS BIGINT) AS previous_no,
           lag(answer) OVER w AS previous_answer, lag(n) OVER w AS previous_n,
           lead(game) OVER w AS next_game,
           list_sort(string_split(guess, ';')) = list_sort(string_split(answer, ';')) AS found
    FROM stage_turns
    WINDOW w AS (PARTITION BY log_id ORDER BY line)
),
games AS (
    SELECT log_id, game, n, answer, count(*) AS guesses FROM stage_turns GROUP BY ALL
)
SELECT log_id, 'turns' AS role, line, reason FROM (
    SELECT log_id, line, CASE
        WHEN game < previous_game THEN format('game goes back from {} to {}', previous_game, game)
        WHEN game > previous_game + 1 THEN format('game {} follows game {}', game, previous_game)
        WHEN game = previous_game AND guess_no <> previous_no + 1
            THEN format('guess {} follows guess {}', guess_no, previous_no)
        WHEN game <> previous_game AND guess_no <> 1
            THEN format('game {} starts at guess {}', game, guess_no)
        WHEN game = previous_game AND (answer <> previous_answer OR n <> previous_n)
            THEN format('game {} changes its answer or n', game)
        WHEN found AND next_game = game
            THEN format('guess {} is the answer but the game goes on', guess_no)
        WHEN NOT found AND next_game IS DISTINCT FROM game
            THEN format('game {} ends without guessing the answer', game)
    END AS reason
    FROM turns
) WHERE reason IS NOT NULL
UNION ALL
SELECT s.log_id, 'scores', s.line, CASE
    WHEN g.game IS NULL THEN format('game {} has no guesses in the turn file', s.game)
    WHEN s.n <> g.n OR s.answer <> g.answer
        THEN format('game {} is n {} answer {} in the turn file', s.game, g.n, g.answer)
    ELSE format('game {} took {} guesses in the turn file, not {}', s.game, g.guesses, s.guesses)
END
FROM stage_scores s LEFT JOIN games g USING (log_id, game)
WHERE g.game IS NULL OR s.n <> g.n OR s.answer <> g.answer OR s.guesses <> g.guesses
UNION ALL
""" + numbered_score_rows("game")

# The rules replayed: each logged feedback recomputed from the logged answer and guess, by
# the engine's `feedback` (the spec's, which the generated player shares).


def replay(rules: CardGuessRules, turns: list[tuple], scores: list[tuple]) -> list[Problem]:
    """Every guess whose logged feedback is not the rules' for its answer and guess."""
    problems: list[Problem] = []
    for line, _, _, answer, _, guess, *logged in turns:
        want = feedback(parse_hand(answer), parse_hand(guess))
        if tuple(logged) != tuple(want):
            problems.append((
                "turns", line,
                f"feedback {_numbers(logged)} is wrong for answer {answer} and guess {guess}: "
                f"it is {_numbers(want)}",
            ))  # fmt: skip
    return problems


def _numbers(feedback: Sequence[int]) -> str:
    return ",".join(map(str, feedback))


LOAD = {
    "cardguess_guesses": """
    INSERT INTO cardguess_guesses
    SELECT log_id, line, game, n, string_split(answer, ';'), guess_no, string_split(guess, ';'),
           correct, lower, ranks, higher, suits
    FROM stage_turns
    """,
    "cardguess_games": """
    INSERT INTO cardguess_games
    SELECT log_id, line, game, n, string_split(answer, ';'), guesses FROM stage_scores
    """,
}

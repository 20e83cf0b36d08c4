"""Gin Rummy in the warehouse: turns (with where each card was drawn from), rounds, games,
and the rules replayed over each log through the engine's rule functions (`replay`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mine.parsers import ginrummy as log_format
from mine.parsers.cards import DECK, format_course
from mine.strategies.engines.ginrummy import (
    GinRummyRules,
    call_allows,
    hand_after,
    round_points,
    solver_for,
)
from mine.strategies.engines.melds import CARD_BITS
from mine.warehouse.checks import (
    Problem,
    flagged_logs,
    numbered_score_rows,
    outside,
    outside_ranges,
)

if TYPE_CHECKING:  # polars loads when a batch's rules are replayed
    import polars as pl

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
# `logs` counts its rows: one a row of the turn files, and one a row of the score files
FILE_ROWS = ("ginrummy_turns", "ginrummy_rounds")

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
""" + numbered_score_rows("round")

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

BITS = {format_course(card): CARD_BITS[card] for card in DECK}
"""Each card as the log writes it, as its bit in the engine's hand masks."""


def sane(rules: GinRummyRules) -> dict[str, dict[str, tuple[int, int]]]:
    """Each number's sane range, from the rules: every round scores at least 1 (so a game
    has at most twice the target's rounds), and at most the Gin bonus and ten points a card."""
    rounds = (1, 2 * rules.game_target)
    most = (0, rules.gin_bonus + 10 * rules.hand_size)
    return {
        "turns": {"round": rounds},
        "scores": {"round": rounds, "points": most, "opponent_points": most},
    }


def replay(rules: GinRummyRules, turns: list[tuple], scores: list[tuple]) -> list[Problem]:
    """Every broken rule of one log, replayed round by round through the engine's rules."""
    problems: list[Problem] = []
    ranges = sane(rules)
    ends: dict[int, tuple[str, list[str], list[str] | None]] = {}  # last side, its hand, other's
    played: list[tuple] = []  # the round's rows so far
    seen: dict[str, int] = {}  # each card of the round (in a hand, on the pile): its first line
    for row in turns:
        line, number, hand, side, top, picked, discarded = row
        if played and played[-1][1] != number:
            played, seen = [], {}
        cards = hand.split(";")
        reason = _turn_problem(row, cards, played, seen)
        if reason:
            problems.append(("turns", line, reason))
        for card in (*cards, top):
            seen.setdefault(card, line)
        played.append((*row, cards))
        other = ends.get(number)
        other_hand = other[1] if other and other[0] != side else (other[2] if other else None)
        ends[number] = (side, cards, other_hand)
    for row in scores:
        line = row[0]
        reason = _round_problem(rules, row, ends.get(row[1]))
        if reason:
            problems.append(("scores", line, reason))
    problems += outside_ranges("turns", turns, FORMAT.TURNS, ranges["turns"])
    problems += outside_ranges("scores", scores, FORMAT.SCORES, ranges["scores"])
    return problems


def _turn_problem(row: tuple, cards: list[str], played: list[tuple],
                  seen: dict[str, int]) -> str | None:  # fmt: skip
    """What is wrong with one turn, given the round's turns before it."""
    line, _, _, side, top, picked, discarded = row
    if played and played[-1][3] == side:
        return "the same side plays two turns in a row"
    if len(played) > 1:
        own_last = played[-2][-1]
        if sorted(cards) != sorted(hand_after(own_last, picked, discarded)):
            return (
                f"the hand is not the side's last hand {';'.join(own_last)} with {picked} in "
                f"and {discarded} out"
            )
    if picked != top and picked in seen:
        return (
            f"{picked} is drawn from the stock, but it was seen before in the round "
            f"(line {seen[picked]})"
        )
    return None


def _round_problem(rules: GinRummyRules, row: tuple,
                   end: tuple[str, list[str], list[str] | None] | None) -> str | None:  # fmt: skip
    """What the score row of a round says that the rules and its turns do not: `end` is
    the round's last side, its hand, and the other side's last hand (None: no turns)."""
    _, _, points, opponent, ending, last_mine = row
    if points > 0 and opponent > 0:
        return "both sides score: only the round's winner does"
    if points == 0 and opponent == 0:
        return "nobody scores: the round's winner scores at least 1"
    act = ending.lower()
    caller_points, other_points = (points, opponent) if last_mine == "1" else (opponent, points)
    solver = solver_for(rules)
    # Without the other side's hand (the caller played every turn), any deadwood of a hand.
    other_can = list(range(10 * rules.hand_size + 1))
    if end is not None and end[2] is not None:
        other_can = solver.deadwoods(_mask(end[2]))
    if end is None:  # no turns: only the points themselves can be wrong
        return _gin_problem(rules, caller_points, other_can) if act == "gin" else None
    last_side, caller_hand, _ = end
    if last_mine != last_side:
        return f"the last play is marked {last_mine}, but the turn file's last play is {last_side}"
    caller_can = solver.deadwoods(_mask(caller_hand))
    least = caller_can[0]
    if not call_allows(rules, act, least):
        shown = ";".join(caller_hand)
        if act == "gin":
            return f"a Gin, but the caller's hand {shown} leaves deadwood {least} at best"
        return (
            f"a Knock, but the caller's hand {shown} leaves deadwood {least} at best "
            f"(limit {rules.knock_limit})"
        )
    if act == "gin":
        return _gin_problem(rules, caller_points, other_can)
    may = [c for c in caller_can if call_allows(rules, act, c)]
    pays = {round_points(rules, act, c, o) for c in may for o in other_can}
    hands = f"(caller {_listed(may)}; opponent {_listed(other_can)})"
    if caller_points > 0 and all(paid[0] != caller_points for paid in pays):
        return f"the caller scores {caller_points}, which no declarations of the two hands leave {hands}"
    if other_points > 0 and all(paid[1] != other_points for paid in pays):
        return (
            f"an undercut scores {rules.undercut_bonus} + the difference, and no declarations "
            f"of the two hands make {other_points} {hands}"
        )
    return None


def _gin_problem(rules: GinRummyRules, caller_points: int, other_can: list[int]) -> str | None:
    """A Gin pays the bonus and a deadwood the opponent's hand can leave."""
    if any(round_points(rules, "gin", 0, o)[0] == caller_points for o in other_can):
        return None
    return (
        f"a Gin scores {rules.gin_bonus} + a deadwood the opponent's hand can leave "
        f"({_listed(other_can)}), not {caller_points}"
    )


def _mask(cards: list[str]) -> int:
    mask = 0
    for card in cards:
        mask |= BITS[card]
    return mask


def _listed(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers))


def suspects(rules: GinRummyRules, turns: pl.DataFrame, scores: pl.DataFrame) -> set[int]:
    """The turns' rules as columns (hands as the engine's card masks), and each round's
    score against what the final hands' least deadwoods pay (`round_points`). A round paid
    so cannot break a rule of `replay`, which reads every declaration the hands allow."""
    import polars as pl

    ranges = sane(rules)
    log, number, line, side = pl.col("log_id"), pl.col("round"), pl.col("line"), pl.col("mine")
    cards = pl.col("hand").str.split(";")
    in_round = ("log_id", "round")
    t = turns.with_columns(
        mask=cards.list.eval(pl.element().replace_strict(BITS)).list.sum(),
        held=cards.list.len(),
        lead=cards.list.first(),
        pick=pl.col("picked").replace_strict(BITS),
        drop=pl.col("discarded").replace_strict(BITS),
        top=pl.col("discard_top").replace_strict(BITS),
        after_one=((log == log.shift(1)) & (number == number.shift(1))).fill_null(False),
        after_two=((log == log.shift(2)) & (number == number.shift(2))).fill_null(False),
        k=pl.int_range(pl.len()).over(in_round),  # the row's place in its round
    )
    own, mask, pick, drop = pl.col("mask").shift(2), pl.col("mask"), pl.col("pick"), pl.col("drop")
    # Rows as the row checks and the file checks leave them (ten cards, none twice, the
    # picked card first, the discard out; rounds in order, each top the last discard): the
    # replay's conditions below hold as columns only over such rows.
    unordered = (log == log.shift(1)) & (number < number.shift(1))
    unsound = (
        (mask.bitwise_count_ones() != pl.col("held")) | (pl.col("lead") != pl.col("picked"))
        | ((mask & drop) != 0) | unordered | (pl.col("after_one") & (pl.col("top") != drop.shift(1)))
    )  # fmt: skip
    wrong = (
        (pl.col("after_one") & (side == side.shift(1)))
        | (pl.col("after_two") & ((((own | pick) & ~drop) != mask) | ((own & pick) != 0)))
        | _drawn_seen(line, pick)
        | outside(ranges["turns"])
    )  # fmt: skip
    flagged = flagged_logs(t.filter((unsound | wrong).fill_null(True)))
    ends = t.group_by("log_id", "round").agg(
        last_side=side.last(), caller=mask.last(), other=mask.filter(side != side.last()).last()
    )
    s = scores.join(ends, on=["log_id", "round"], how="left")
    flagged |= flagged_logs(s.filter(outside(ranges["scores"]).fill_null(True)))
    solver = solver_for(rules)
    columns = ("log_id", "points", "opponent_points", "ending", "last_mine", "last_side",
               "caller", "other")  # fmt: skip
    for log_id, points, opponent, ending, last_mine, last_side, caller, other in s.select(
        columns
    ).iter_rows():
        if log_id in flagged:
            continue
        if other is None or last_mine != last_side or (points > 0) == (opponent > 0):
            flagged.add(log_id)
            continue
        act, least = ending.lower(), solver.deadwood(caller)
        paid = round_points(rules, act, least, solver.deadwood(other))
        logged = (points, opponent) if last_mine == "1" else (opponent, points)
        if not call_allows(rules, act, least) or paid != logged:
            flagged.add(log_id)
    return flagged


def _drawn_seen(line: pl.Expr, pick: pl.Expr) -> pl.Expr:
    """Whether a card drawn from the stock was seen before in the round. Where every hand
    is the side's last with the picked card in and the discard out, and every top the last
    discard, what a round has shown before a turn is its first two hands and three tops
    and the cards picked before: a later hand or top holds no other card."""
    import polars as pl

    in_round, k = ("log_id", "round"), pl.col("k")

    def at(place: int, column: str) -> pl.Expr:  # the round's row `place`'s column (or 0)
        return pl.when(k == place).then(column).otherwise(0).max().over(in_round)

    shown = (
        pl.when(k >= 1).then(at(0, "mask") | at(0, "top")).otherwise(0)
        | pl.when(k >= 2).then(at(1, "mask") | at(1, "top")).otherwise(0)
        | pl.when(k >= 3).then(at(2, "top")).otherwise(0)
    )
    picked_before = line.min().over("log_id", "round", "picked") < line
    from_stock = pl.col("picked") != pl.col("discard_top")
    return from_stock & (picked_before | ((pick & shown) != 0))

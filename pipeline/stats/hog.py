"""Hog's per-situation statistics, derived from the warehouse and stored back into it.

Four tables (`DESCRIPTIONS` says what each counts: the points by number of dice, Pig Tail,
Square Swine and the mover's wins), each a count next to its opportunities (PokerTracker
style), so that any filter re-aggregates correctly.

Nothing here knows the rules: it counts what the logs show. DuckDB does the grouping of
millions of turns (its input is the warehouse); polars derives the shares and rates.

Also the warehouse's side of fitting (`fit_inputs`: the turns and games of the chosen
logs, and their fingerprint).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import duckdb
import polars as pl

from mine.models import hog as model
from mine.pipeline import stats as shared
from mine.pipeline.stats import data_fingerprint, logs_filter, opponents

GAME = "hog"
BUCKET = 10  # score bucket width for the win-rate table
NO_TURNS = "no Hog turns in the warehouse (hog_turns; run `mine ingest` on Hog logs first)"


def _shares(*over: str, fired: bool = False) -> Callable[[pl.DataFrame], pl.DataFrame]:
    """How a table's rates follow from its counts: each row's turns out of the turns at
    the same `over` keys (its opportunities); Square Swine's rows also say whether it
    fired."""

    def rates(counts: pl.DataFrame) -> pl.DataFrame:
        moved = [(pl.col("bonus") != 0).alias("fired")] if fired else []
        opportunities = pl.col("turns").sum().over(over).alias("opportunities")
        return counts.with_columns(opportunities, *moved).with_columns(
            (pl.col("turns") / pl.col("opportunities")).alias("share")
        )

    return rates


def _win_rates(counts: pl.DataFrame) -> pl.DataFrame:
    return counts.with_columns((pl.col("wins") / pl.col("opportunities")).alias("win_rate"))


TABLES = {  # each table: its counts' query over the chosen logs, keys, counts, and rates
    "points": ("SELECT num_rolls, points, count(*) AS turns FROM hog_turns WHERE {where} "
               "GROUP BY ALL ORDER BY ALL", ["num_rolls", "points"], ["turns"],
               _shares("num_rolls")),
    "pig_tail": ("SELECT opponent_score % 100 // 10 AS tens, opponent_score % 10 AS ones, "
                 "points, count(*) AS turns FROM hog_turns WHERE num_rolls = 0 AND {where} "
                 "GROUP BY ALL ORDER BY ALL", ["tens", "ones", "points"], ["turns"],
                 _shares("tens", "ones")),
    "square_swine": ("SELECT score + points AS total, new_score, swine_bonus AS bonus, "
                     "count(*) AS turns FROM hog_turn_outcomes WHERE {where} "
                     "GROUP BY ALL ORDER BY ALL", ["total", "new_score", "bonus"], ["turns"],
                     _shares("total", fired=True)),
    "win_rates": ("""
        SELECT t.player, t.score // {bucket} * {bucket} AS score_bucket,
               t.opponent_score // {bucket} * {bucket} AS opponent_bucket, t.num_rolls,
               count(*) FILTER (WHERE g.winner = t.player) AS wins, count(*) AS opportunities
        FROM (SELECT * FROM hog_turns WHERE {where}) t JOIN hog_games g USING (log_id, game)
        GROUP BY ALL ORDER BY ALL""",
                  ["player", "score_bucket", "opponent_bucket", "num_rolls"],
                  ["wins", "opportunities"], _win_rates),
}  # fmt: skip
# A frame a table, in the order of TABLES: the tables named once.
HogStats = NamedTuple("HogStats", [(name, pl.DataFrame) for name in TABLES])


def derive(
    con: duckdb.DuckDBPyConnection, log_ids: list[int] | None = None, bucket: int = BUCKET
) -> HogStats:
    """Every Hog statistic, from the turns of `log_ids` (every Hog log by default);
    ValueError when there is no turn to count or the tables cannot be read."""
    if bucket < 1:
        raise ValueError(f"the score bucket must be at least 1, not {bucket}")
    where = logs_filter(log_ids)
    try:
        derived = HogStats(**{
            name: rates(shared.frame(con, query.format(where=where, bucket=bucket)))
            for name, (query, _, _, rates) in TABLES.items()
        })  # fmt: skip
    except duckdb.Error as error:
        raise ValueError(f"cannot derive Hog statistics: {error}".splitlines()[0]) from None
    if derived.points.is_empty():
        raise ValueError(NO_TURNS)
    return derived


def combine(parts: list[HogStats]) -> HogStats:
    """The statistics of the union of the parts' logs: every count summed by its keys,
    then opportunities and rates made from the sums, as `derive` makes them."""
    return HogStats(**{
        name: rates(shared.summed([getattr(part, name) for part in parts], keys, counts))
        for name, (_, keys, counts, rates) in TABLES.items()
    })  # fmt: skip


DESCRIPTIONS = {
    "points": "Hog: turns by number of dice and points scored (k >= 1: the mass at 1 is Sow "
    "Sad; k = 0: Pig Tail); turns of (k, points) out of opportunities = turns with k dice",
    "pig_tail": "Hog: rolling 0 (Pig Tail), points by the tens and ones digits of the "
    "opponent's score; turns out of opportunities = zero-dice turns at those digits",
    "square_swine": "Hog: where turns landed (total = score + points) and the score they "
    "became; bonus = new_score - total (fired when not 0); turns out of opportunities = turns "
    "landing on that total",
    "win_rates": "Hog: per player, score bucket, opponent score bucket and dice chosen: games "
    "the mover went on to win (wins) out of turns taken there (opportunities)",
}


def store(con: duckdb.DuckDBPyConnection, stats: HogStats) -> list[str]:
    """Write the four tables; their names."""
    return shared.store(con, GAME, stats, DESCRIPTIONS)


def headline(stats: HogStats) -> dict[str, object]:
    """The numbers worth printing: turns, Sow Sad by k, Pig Tail and Square Swine counts."""
    at_1 = pl.col("turns").filter(pl.col("points") == 1).sum().alias("at_1")
    rolled = stats.points.filter(pl.col("num_rolls") > 0).group_by("num_rolls")
    sow_sad = rolled.agg(at_1, pl.col("turns").sum()).sort("num_rolls")
    swine = stats.square_swine
    return {
        "turns": int(stats.points["turns"].sum()),
        "points_at_1_by_dice": {
            int(k): {"turns": int(t), "at_1": int(a), "share": a / t}
            for k, a, t in sow_sad.iter_rows()
        },
        "pig_tail_turns": int(stats.pig_tail["turns"].sum()),
        "square_swine_fired": int(swine.filter("fired")["turns"].sum()),
        "square_swine_bonus_points": int((swine["bonus"] * swine["turns"]).sum()),
        "win_rate_opportunities": int(stats.win_rates["opportunities"].sum()),
    }


# --- fitting from the warehouse ----------------------------------------------------------


def fit_inputs(con: duckdb.DuckDBPyConnection, log_ids: list[int] | None = None) -> model.Logged:
    """The ingested turns and games of `log_ids` (every Hog log by default), in log order,
    and the warehouse's fingerprint of those logs: what `models.hog.fit` reads."""
    where = logs_filter(log_ids)
    # The columns named, not `*`: a column dropped by hand fails here, in DuckDB, where the
    # command names the change, not in the fit as a column the games lack.
    read = "SELECT log_id, line, {} FROM {} WHERE {} ORDER BY log_id, line"
    try:
        turns = shared.frame(con, read.format(", ".join(model.TURN_COLUMNS), "hog_turns", where))
        games = shared.frame(con, read.format(", ".join(model.GAME_COLUMNS), "hog_games", where))
        fingerprint, logs = data_fingerprint(con, GAME, log_ids)
    except duckdb.Error as error:
        raise model.FitError(f"cannot read the Hog tables: {error}".splitlines()[0]) from None
    return model.Logged(turns, games, fingerprint, logs)


# --- each player against each opponent -----------------------------------------------------

# A Hog log is one match: its two players are the names its turns carry.
OUTCOMES_SQL = """
SELECT g.log_id, g.winner, p.players
FROM hog_games g
JOIN (SELECT log_id, list(DISTINCT player ORDER BY player) AS players
      FROM hog_turns WHERE {where} GROUP BY log_id) p USING (log_id)
WHERE len(p.players) = 2
ORDER BY g.log_id, g.line
"""


def by_opponent(con: duckdb.DuckDBPyConnection, log_ids: list[int] | None = None) -> pl.DataFrame:
    """Every player of the logs `log_ids` against each opponent it played a match with:
    games, wins and its win rate (`opponents.rates`)."""
    games = shared.frame(con, OUTCOMES_SQL.format(where=logs_filter(log_ids)))
    sides = [
        games.select(
            "log_id",
            pl.col("players").list.get(k).alias("player"),
            pl.col("players").list.get(1 - k).alias("opponent"),
            (pl.col("winner") == pl.col("players").list.get(k)).cast(pl.Float64).alias("score"),
        )
        for k in (0, 1)
    ]
    return opponents.rates(pl.concat(sides))

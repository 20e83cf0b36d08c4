"""Each player of the logs against each opponent it met there: one frame for every game.

A game's stats module turns its logs into one row per game (or round) played, from one
side: `player`, `opponent`, `log_id` and the side's result (`score`: 1 a win, ½ a draw,
0 a loss; or `result`: a number, a margin or points). `rates` and `means` sum them per
pairing into counts beside their opportunities (games, wins, draws, losses; or the values'
count, mean and standard deviation), so that a page draws each with its 95 % interval;
`weakest_first` orders a player's rows so that its worst matchup leads.
"""

from __future__ import annotations

import polars as pl

PAIRING = ["player", "opponent"]


SAMPLE = [pl.col("log_id").n_unique().alias("logs"), pl.len().alias("n")]


def _outcomes(score: pl.Expr) -> list[pl.Expr]:
    return [(score == 1).sum().alias("wins"), (score == 0.5).sum().alias("draws"),
            (score == 0).sum().alias("losses")]  # fmt: skip


def rates(outcomes: pl.DataFrame) -> pl.DataFrame:
    """Per pairing: logs, games (`n`), wins, draws, losses and the score rate (`value`:
    draws count half) of `outcomes` (player, opponent, log_id, score)."""
    score = pl.col("score")
    return in_order(outcomes, "score").agg(*SAMPLE, *_outcomes(score), score.mean().alias("value"))


def means(results: pl.DataFrame) -> pl.DataFrame:
    """Per pairing: logs, the values' count (`n`), mean (`value`) and sample standard
    deviation (`sd`) of `results` (player, opponent, log_id, result); with a `score`
    column, wins, draws and losses too."""
    scored = _outcomes(pl.col("score")) if "score" in results.columns else []
    result = pl.col("result")
    return in_order(results, "result").agg(
        *SAMPLE, *scored, result.mean().alias("value"), result.std().alias("sd")
    )


def in_order(rows: pl.DataFrame, value: str) -> pl.GroupBy:
    """`rows` grouped by pairing, the pairings in order and each one's values summed
    smallest first: the same rows in any order (the logs' ids, a join's) give the same
    frame to the last digit (a float's sum follows the order of its terms)."""
    return rows.sort(*PAIRING, value).group_by(PAIRING, maintain_order=True)


def most_logged(pairings: pl.DataFrame) -> str | None:
    """The player the logs are most about: in the most logs, then the most games, then
    the first by name (None: no pairing)."""
    seen = pairings.group_by("player").agg(pl.col("logs").sum(), pl.col("n").sum())
    ranked = seen.sort(["logs", "n", "player"], descending=[True, True, False])
    return ranked["player"][0] if ranked.height else None


def weakest_first(pairings: pl.DataFrame, higher_is_better: bool = True) -> pl.DataFrame:
    """The rows worst for their player first (ties: the larger sample first, then by
    name)."""
    return pairings.sort(
        ["value", "n", *PAIRING], descending=[not higher_is_better, True, False, False]
    )


def of_player(pairings: pl.DataFrame, player: str | None = None) -> pl.DataFrame:
    """The rows of `player` (the player the logs are most about when None), weakest
    first."""
    chosen = most_logged(pairings) if player is None else player
    if chosen is None:  # no pairing (one seat only): polars warns of a comparison with None
        return pairings.clear()
    return weakest_first(pairings.filter(pl.col("player") == chosen))

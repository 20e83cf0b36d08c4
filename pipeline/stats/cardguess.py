"""Card guessing's statistics, derived from the warehouse and stored back into it
(`DESCRIPTIONS` says what each table holds). Counts are kept next to every mean or share,
so any filter re-aggregates. A log is its `log_id` (two folders may hold logs of the same
stem); `log` names it by its stem, with its id where the stem alone would not tell it
apart. Candidates left are rebuilt by replaying the logged feedback over every hand. Also
the warehouse's side of fitting (`fit_inputs`)."""

from __future__ import annotations

from typing import Any, NamedTuple

import duckdb
import numpy as np
import polars as pl

from mine.models import cardguess as model
from mine.pipeline import stats as shared
from mine.pipeline.stats import data_fingerprint, logs_filter, opponents
from mine.strategies.engines import cardguess as engine
from mine.strategies.solvers.cardguess import expected_left, score_pool

GAME = "cardguess"
NO_GAMES = (
    "no card-guessing games in the warehouse (cardguess_games; run `mine ingest` on "
    "card-guessing logs first)"
)


LOG_NAMES = """
    SELECT log_id, CASE WHEN count(*) OVER (PARTITION BY stem) > 1
                        THEN stem || ' (log ' || log_id || ')' ELSE stem END AS log
    FROM logs WHERE game = 'cardguess'
"""  # each log's name: its stem, and its id where another log has the same stem


def guesses_per_game(con: duckdb.DuckDBPyConnection, where: str) -> pl.DataFrame:
    return shared.frame(con, f"""
        SELECT g.n, log_id, l.log, g.guesses, count(*) AS games
        FROM cardguess_games g JOIN ({LOG_NAMES}) l USING (log_id)
        WHERE {where} GROUP BY ALL ORDER BY n, log, log_id, guesses""")  # fmt: skip


def guess_summary(per_game: pl.DataFrame) -> pl.DataFrame:
    return per_game.group_by("n", "log_id", "log", maintain_order=True).agg(
        pl.col("games").sum(),
        (pl.col("guesses") * pl.col("games")).sum().alias("total_guesses"),
        pl.col("guesses").max().alias("most"),
    ).with_columns((pl.col("total_guesses") / pl.col("games")).alias("mean"))  # fmt: skip


def candidates_left(con: duckdb.DuckDBPyConnection, where: str) -> pl.DataFrame:
    """Replays every game's feedback over all hands: candidates after each guess."""
    rows = shared.frame(con, f"""
        SELECT t.log_id, l.log, t.game, t.n, t.guess_no, t.guess,
               t.correct, t.lower, t.ranks, t.higher, t.suits
        FROM cardguess_guesses t JOIN ({LOG_NAMES}) l USING (log_id)
        WHERE {where} ORDER BY l.log, t.log_id, t.line""")  # fmt: skip
    known: dict[tuple, np.ndarray] = {}  # a history shared by games is replayed once
    out = []
    for (log_id, log, _, n), turns in rows.group_by("log_id", "log", "game", "n",
                                                     maintain_order=True):  # fmt: skip
        history: tuple = (n,)
        candidates = np.arange(len(engine.hands(n)))
        for guess_no, guess, *fb in turns.drop("log_id", "log", "game", "n").iter_rows():
            history += ("".join(guess), engine.encode(fb))
            if history not in known:
                codes = engine.feedback_codes(
                    engine.hands(n).take(candidates), engine.parse_hand(";".join(guess))
                )
                known[history] = candidates[codes == engine.encode(fb)]
            candidates = known[history]
            out.append((n, log_id, log, guess_no, len(candidates)))
    frame = pl.DataFrame(out, schema=["n", "log_id", "log", "guess_no", "left"], orient="row")
    return frame.group_by("n", "log_id", "log", "guess_no", maintain_order=True).agg(
        pl.len().alias("games"), pl.col("left").sum().alias("total_left"),
        pl.col("left").max().alias("most_left"),
    ).with_columns((pl.col("total_left") / pl.col("games")).alias("mean_left")).sort(
        "n", "log", "log_id", "guess_no")  # fmt: skip


def answer_cards(con: duckdb.DuckDBPyConnection, where: str) -> pl.DataFrame:
    sql = f"SELECT card, count(*) AS times FROM cardguess_answer_cards WHERE {where} GROUP BY card"
    seen = dict(shared.frame(con, sql).iter_rows())
    cards = [engine.card_text(c) for c in range(52)]
    return pl.DataFrame({
        "card": cards, "rank": [card[0] for card in cards], "suit": [card[1] for card in cards],
        "times": [seen.get(card, 0) for card in cards], "answer_cards": [sum(seen.values())] * 52,
    }).with_columns((pl.col("times") / pl.col("answer_cards")).alias("share"),
                    pl.lit(1 / 52).alias("uniform_share"))  # fmt: skip


def answer_ranks(cards: pl.DataFrame) -> pl.DataFrame:
    totals = cards.group_by("rank").agg(pl.col("times").sum(), pl.col("answer_cards").first())
    return totals.with_columns(
        (pl.col("times") / pl.col("answer_cards")).alias("share"),
        pl.lit(1 / 13).alias("uniform_share"),
        pl.col("rank").map_elements(engine.RANKS.index, return_dtype=pl.Int64).alias("order"),
    ).sort("order").drop("order")  # fmt: skip


def first_guesses(con: duckdb.DuckDBPyConnection, where: str, left: pl.DataFrame) -> pl.DataFrame:
    """Each logged first guess: how many games opened with it, the candidates it leaves on
    average over every answer (uniform), and what it left in the logged games. By n and
    log, the commonest first; guesses as common by their text (without it, their order was
    the hash table's, which changed from one run to the next)."""
    opened = shared.frame(con, f"""
        SELECT t.n, log_id, l.log, array_to_string(t.guess, ';') AS guess, count(*) AS games
        FROM cardguess_guesses t JOIN ({LOG_NAMES}) l USING (log_id)
        WHERE guess_no = 1 AND {where}
        GROUP BY ALL ORDER BY n, log, log_id, games DESC, guess""")  # fmt: skip
    expected = []
    for n, guess in opened.select("n", "guess").iter_rows():
        universe = engine.hands(n)
        pool = universe.take(np.array([engine.hand_index(engine.parse_hand(guess))]))
        expected.append(float(score_pool(universe, np.ones(len(universe)), pool, expected_left)[0]))
    observed = left.filter(pl.col("guess_no") == 1).select("n", "log_id", observed_left="mean_left")
    uniform = opened.with_columns(pl.Series("expected_left_uniform", expected))
    return uniform.join(observed, on=["n", "log_id"], how="left", maintain_order="left")


def derive(con: duckdb.DuckDBPyConnection, log_ids: list[int] | None = None) -> CardGuessStats:
    """Every card-guessing statistic, from the games of `log_ids` (every log by default);
    ValueError when there is no game to count."""
    per_game = guesses_per_game(con, logs_filter(log_ids, "g.log_id"))
    if per_game.is_empty():
        raise ValueError(NO_GAMES)
    where = logs_filter(log_ids, "t.log_id")
    left = candidates_left(con, where)
    cards = answer_cards(con, logs_filter(log_ids))
    return CardGuessStats(per_game, guess_summary(per_game), left, cards, answer_ranks(cards),
                          first_guesses(con, where, left))  # fmt: skip


DESCRIPTIONS = {
    "guesses": "Card guessing: games by n, log and number of guesses",
    "guess_summary": "Card guessing: per n and log: games, total guesses, mean, most",
    "candidates": "Card guessing: answers still consistent after each guess (replayed): "
    "games, total and mean left",
    "answer_cards": "Card guessing: times each card was in an answer, out of all answer cards",
    "answer_ranks": "Card guessing: times each rank was in an answer, out of all answer cards",
    "first_guess": "Card guessing: first guesses, games, candidates left "
    "(expected over all answers, observed)",
}
# A frame a table, in the order of DESCRIPTIONS: the tables named once.
CardGuessStats = NamedTuple("CardGuessStats", [(name, pl.DataFrame) for name in DESCRIPTIONS])


def store(con: duckdb.DuckDBPyConnection, stats: CardGuessStats) -> list[str]:
    """Write the six tables; their names."""
    return shared.store(con, GAME, stats, DESCRIPTIONS)


def headline(stats: CardGuessStats) -> dict[str, Any]:
    means = stats.guess_summary.select("n", "log", "mean").iter_rows()
    p_value = round(model.chi_square_p(stats.answer_cards["times"].to_numpy()), 6)
    return {"games": int(stats.guesses["games"].sum()), "answers_uniform_p_value": p_value,
            "mean_guesses": {f"n{n} {log}": round(mean, 4) for n, log, mean in means}}  # fmt: skip


# --- fitting from the warehouse ----------------------------------------------------------


def fit_inputs(con: duckdb.DuckDBPyConnection, log_ids: list[int] | None = None) -> model.Logged:
    """The answers of `log_ids` (every card-guessing log by default) in log order, their
    guess rows and the warehouse's fingerprint of those logs: what `models.cardguess.fit`
    reads."""
    where = logs_filter(log_ids)
    try:
        answers = con.execute(f"SELECT array_to_string(answer, ';') FROM cardguess_games "
                              f"WHERE {where} ORDER BY log_id, line").fetchall()  # fmt: skip
        rows = con.execute(f"SELECT count(*) FROM cardguess_guesses WHERE {where}").fetchone()
        fingerprint, logs = data_fingerprint(con, GAME, log_ids)
    except duckdb.Error as error:
        said = f"cannot read the card-guessing tables: {error}".splitlines()[0]
        raise model.FitError(said) from None
    return model.Logged([answer for (answer,) in answers], rows[0], fingerprint, logs)


# --- each guesser against the answerer --------------------------------------------------------

# The answerer is not named in the logs; the guesser is, by a simulated log's file name
# (`cardguess-<guesser>-s<seed>`); another file's whole name stands for its guesser.
GUESSES_SQL = """
SELECT g.log_id, coalesce(nullif(regexp_extract(l.stem, '^cardguess-(.+)-s[0-9]+$', 1), ''), l.stem)
       AS player, 'answers of ' || g.n || ' cards' AS opponent, g.guesses AS result
FROM cardguess_games g JOIN logs l USING (log_id) WHERE {where} ORDER BY g.log_id, g.line
"""


def by_opponent(con: duckdb.DuckDBPyConnection, log_ids: list[int] | None = None) -> pl.DataFrame:
    """Every guesser of the logs `log_ids` against the answers of each size it met: games
    and its mean guesses, with their spread (`opponents.means`)."""
    where = logs_filter(log_ids, "g.log_id")
    return opponents.means(shared.frame(con, GUESSES_SQL.format(where=where)))

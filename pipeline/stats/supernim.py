"""Super-Nim's statistics, derived from the warehouse and stored back into it: eight
tables (`DESCRIPTIONS`), each a count next to its opportunities (PokerTracker style). A
margin is the mover's (final: at the game's end; future: still to come, final − now);
`trajectories` are the handout's score graphs (over the games still going).

`parity` splits a pairing's games by whether the start board holds an odd number of
2-heaps: 2-heaps are made in pairs, by splitting a 4, so between players who cash every 2
at once this parity and the first mover decide the game. `value` sets the results against
the exact value (the solver's: R, the default split reward, for the first mover if the
start holds an odd number of 2-heaps); a value-losing move gives up value against it, the
cut-off ignored.

Also the warehouse's side of fitting (`fit_inputs`: the positions of the chosen logs and
their fingerprint). Nothing here knows the rules (the exact value is the solver's): it
counts what the logs show.
"""

from __future__ import annotations

from typing import NamedTuple

import duckdb
import polars as pl

from mine.models import supernim as model
from mine.pipeline import stats as shared
from mine.pipeline.stats import data_fingerprint, logs_filter, opponents
from mine.strategies.engines.supernim import DEFAULT_RULES, SuperNimRules
from mine.strategies.solvers import supernim as solver

GAME = "supernim"


DESCRIPTIONS = {
    "pairings": "Super-Nim: games per pairing (max bot, min bot) with wins, draws, cut-offs",
    "starts": "Super-Nim: games per pairing and canonical start board with wins, draws, cut-offs",
    "boards": "Super-Nim: positions per canonical board with the mover's final and future margin",
    "features": "Super-Nim: positions per board features, margin and moves left, with margins",
    "kinds": "Super-Nim: moves per kind with the mover's final margin and wins",
    "trajectories": "Super-Nim: mean scores of max and min per pairing and move number",
    "parity": "Super-Nim: games per pairing and start 2-heap parity won by first, second, drawn",
    "value": "Super-Nim: per pairing, each side's value-losing moves and max's margin - value",
}
# A frame a table, in the order of DESCRIPTIONS: the tables named once.
SuperNimStats = NamedTuple("SuperNimStats", [(name, pl.DataFrame) for name in DESCRIPTIONS])


def _outcomes(games: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    counts = games.group_by(keys).agg(
        pl.len().alias("games"),
        (pl.col("winner") == "max").sum().alias("max_wins"),
        (pl.col("winner") == "min").sum().alias("min_wins"),
        (pl.col("winner") == "draw").sum().alias("draws"),
        (pl.col("ended") == "cutoff").sum().alias("cutoffs"),
    )
    return counts.with_columns(
        (pl.col("max_wins") / pl.col("games")).alias("max_win_rate"),
        (pl.col("draws") / pl.col("games")).alias("draw_rate"),
        (pl.col("cutoffs") / pl.col("games")).alias("cutoff_rate"),
    ).sort(keys)


def positions(
    con: duckdb.DuckDBPyConnection, where: str = "TRUE", max_moves: int = DEFAULT_RULES.max_moves
) -> pl.DataFrame:
    """Every position a move was made from, from the mover's side, with its features (the
    moves left counted to a cut-off after `max_moves`)."""
    frame = shared.frame(
        con,
        "SELECT log_id, game, move, kind, canonical_board, margin_before, final_margin, "
        f"winner = player AS mover_won FROM supernim_positions WHERE {where} "
        "ORDER BY log_id, game, move",
    )
    return frame.with_columns(
        *model.feature_columns("canonical_board", "move", max_moves),
        (pl.col("final_margin") - pl.col("margin_before")).alias("future_margin"),
    )


def _margins(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    return (
        frame.group_by(keys)
        .agg(
            pl.len().alias("positions"),
            pl.col("final_margin").sum().alias("final_margin_sum"),
            pl.col("future_margin").sum().alias("future_margin_sum"),
        )
        .with_columns(
            (pl.col("final_margin_sum") / pl.col("positions")).alias("mean_final_margin"),
            (pl.col("future_margin_sum") / pl.col("positions")).alias("mean_future_margin"),
        )
        .sort(keys)
    )


def derive(
    con: duckdb.DuckDBPyConnection, log_ids: list[int] | None = None, rules: list[str] | None = None
) -> SuperNimStats:
    """Every Super-Nim statistic, from the logs `log_ids` (every Super-Nim log by default),
    played under `rules` (`--rules` settings: the exact value is theirs)."""
    where = logs_filter(log_ids)
    game_rules = model.rules_of(rules)
    games = shared.frame(
        con,
        "SELECT max_player, min_player, start_key, winner, ended, moves, first_player, "
        f"{_twos('start_board')} % 2 = 1 AS odd_twos "
        f"FROM supernim_matches WHERE {where}",
    )
    seen = positions(con, where)
    board_text = pl.col("canonical_board").list.eval(pl.element().cast(pl.String)).list.join(";")
    boards = _margins(seen.with_columns(board_text), ["canonical_board"])
    kinds = (
        seen.group_by("kind")
        .agg(
            pl.len().alias("moves"),
            pl.col("final_margin").sum().alias("final_margin_sum"),
            pl.col("mover_won").sum().alias("mover_wins"),
        )
        .with_columns(
            (pl.col("final_margin_sum") / pl.col("moves")).alias("mean_final_margin"),
            (pl.col("mover_wins") / pl.col("moves")).alias("win_rate"),
        )
        .sort("kind")
    )
    trajectories = shared.frame(
        con,
        f"""
        SELECT g.max_player, g.min_player, m.move, count(*) AS games,
               avg(m.score_max) AS mean_score_max, avg(m.score_min) AS mean_score_min
        FROM supernim_moves m JOIN supernim_matches g USING (log_id, game)
        WHERE {where.replace("log_id", "m.log_id")}
        GROUP BY ALL ORDER BY ALL
        """,
    )
    return SuperNimStats(
        pairings=_outcomes(games, ["max_player", "min_player"]),
        starts=_outcomes(games, ["max_player", "min_player", "start_key"]),
        boards=boards,
        features=_margins(seen, ["heaps", "sticks", "twos", "odds", "margin_before", "left"]),
        kinds=kinds,
        trajectories=trajectories,
        parity=_by_parity(games),
        value=_against_value(con, where)
        if solver.closed_form(game_rules)
        else _against_searched_value(con, where, game_rules),
    )


MAX_SIGN = pl.when(pl.col("max_first")).then(1).otherwise(-1)  # the first mover's value is max's


def _twos(column: str) -> str:
    return f"len(list_filter({column}, lambda n: n = 2))"


def _against_value(con: duckdb.DuckDBPyConnection, where: str) -> pl.DataFrame:
    """Each pairing's moves and value-losing moves by side, and max's margin − value."""
    keys = ["max_player", "min_player"]
    moves = shared.frame(
        con,
        f"SELECT g.max_player, g.min_player, m.player, {_twos('m.board_before')} AS before, "
        f"{_twos('m.board_after')} AS after, (m.kind = 'split')::INTEGER AS cashed "
        "FROM supernim_moves m JOIN supernim_matches g USING (log_id, game) "
        f"WHERE {where.replace('log_id', 'm.log_id')}",
    ).with_columns(
        (solver.value_lost(pl.col("before"), pl.col("after"), pl.col("cashed")) > 0).alias("lost")
    )
    by_side = [
        moves.filter(pl.col("player") == side)
        .group_by(keys)
        .agg(pl.len().alias(f"{side}_moves"), pl.col("lost").sum().alias(f"{side}_value_losing"))
        for side in ("max", "min")
    ]
    games = shared.frame(
        con,
        f"SELECT max_player, min_player, score_max - score_min AS margin, "
        f"{_twos('start_board')} AS twos, first_player = 'max' AS max_first "
        f"FROM supernim_matches WHERE {where}",
    )
    value = solver.value_of_twos(pl.col("twos")) * MAX_SIGN
    games = games.with_columns((pl.col("margin") - value).alias("max_margin_minus_value"))
    per_game = games.group_by(keys).agg(
        pl.len().alias("games"), pl.col("max_margin_minus_value").mean()
    )
    return (
        per_game.join(by_side[0], on=keys, how="left")
        .join(by_side[1], on=keys, how="left")
        .sort(keys)
    )


def _against_searched_value(
    con: duckdb.DuckDBPyConnection, where: str, rules: SuperNimRules
) -> pl.DataFrame:
    """Where the value has no closed form (`cap_scores`): each pairing's games, and max's
    margin − value over the games whose start the exact solver reaches (games of at most
    its `HORIZON` moves); value-losing moves are not counted (a search per move)."""
    keys = ["max_player", "min_player"]
    games = shared.frame(
        con,
        "SELECT max_player, min_player, score_max - score_min AS margin, "
        "list_sort(start_board) AS board, first_player = 'max' AS max_first "
        f"FROM supernim_matches WHERE {where} ORDER BY log_id, game",
    )
    exact, values = solver.ExactSolver(rules), {}
    for board in games["board"].unique(maintain_order=True).to_list():
        try:
            values[tuple(board)] = exact.value(tuple(board), rules.max_moves)
        except solver.Unsolved:
            continue
    found = pl.Series([values.get(tuple(board)) for board in games["board"]], dtype=pl.Int64)
    per_game = games.with_columns(
        (pl.col("margin") - found * MAX_SIGN).alias("max_margin_minus_value")
    )
    missing = {f"{side}_{what}": pl.lit(None, pl.UInt32) for side in ("max", "min")
               for what in ("moves", "value_losing")}  # fmt: skip
    return (
        per_game.group_by(keys)
        .agg(
            pl.len().alias("games"),
            pl.col("max_margin_minus_value").mean(),
            pl.col("max_margin_minus_value").count().alias("games_with_value"),
        )
        .with_columns(**missing)
        .sort(keys)
    )


def _by_parity(games: pl.DataFrame) -> pl.DataFrame:
    keys = ["max_player", "min_player", "odd_twos"]
    return (
        games.group_by(keys)
        .agg(
            pl.len().alias("games"),
            (pl.col("winner") == pl.col("first_player")).sum().alias("first_wins"),
            ((pl.col("winner") != pl.col("first_player")) & (pl.col("winner") != "draw"))
            .sum()
            .alias("second_wins"),
            (pl.col("winner") == "draw").sum().alias("draws"),
        )
        .with_columns((pl.col("first_wins") / pl.col("games")).alias("first_win_rate"))
        .sort(keys)
    )


def store(con: duckdb.DuckDBPyConnection, stats: SuperNimStats) -> list[str]:
    """Write the eight tables; their names."""
    return shared.store(con, GAME, stats, DESCRIPTIONS)


def headline(stats: SuperNimStats) -> dict[str, object]:
    """The numbers worth printing: games, positions, cut-offs, and the first mover's wins
    by start 2-heap parity."""
    parity = stats.parity.group_by("odd_twos").agg(pl.col("games", "first_wins").sum())
    return {
        "games": int(stats.pairings["games"].sum()),
        "positions": int(stats.kinds["moves"].sum()),
        "cutoffs": int(stats.pairings["cutoffs"].sum()),
        "first_wins_by_parity": {
            "odd" if odd else "even": {"games": int(n), "first_wins": int(w)}
            for odd, n, w in parity.sort("odd_twos").iter_rows()
        },
    }


def fit_inputs(
    con: duckdb.DuckDBPyConnection, log_ids: list[int] | None, rules: list[str] | None = None
) -> model.Logged:
    """The positions of `log_ids` (every Super-Nim log by default) and what names them:
    the warehouse's fingerprint of those logs, their number and their games'. `rules`: the
    settings the logs were played under (their cut-off counts the moves left)."""
    where = logs_filter(log_ids)
    max_moves = model.rules_of(rules).max_moves
    try:
        seen = positions(con, where, max_moves)
        fingerprint, logs = data_fingerprint(con, GAME, log_ids)
        games = con.execute(f"SELECT count(*) FROM supernim_games WHERE {where}").fetchone()[0]
    except duckdb.Error as error:
        raise ValueError(f"cannot read the Super-Nim tables: {error}".splitlines()[0]) from None
    return model.Logged(seen, fingerprint, logs, games)


# --- each player against each opponent -----------------------------------------------------

SIDES_SQL = """
SELECT log_id, max_player, min_player, score_max - score_min AS margin, winner
FROM supernim_matches WHERE {where} ORDER BY log_id, line
"""
SCORES = {"max": 1.0, "draw": 0.5, "min": 0.0}  # max's score by the winner the log names


def by_opponent(con: duckdb.DuckDBPyConnection, log_ids: list[int] | None = None) -> pl.DataFrame:
    """Every player of the logs `log_ids` (named by their file names) against each
    opponent: games, its mean final margin (its score minus the opponent's) with the
    margins' spread, and its wins, draws and losses (`opponents.means`)."""
    games = shared.frame(con, SIDES_SQL.format(where=logs_filter(log_ids)))
    max_score = pl.col("winner").replace_strict(SCORES, return_dtype=pl.Float64)
    sides = [
        games.select("log_id", pl.col("max_player").alias("player"),
                     pl.col("min_player").alias("opponent"), pl.col("margin").alias("result"),
                     max_score.alias("score")),
        games.select("log_id", pl.col("min_player").alias("player"),
                     pl.col("max_player").alias("opponent"), (-pl.col("margin")).alias("result"),
                     (1.0 - max_score).alias("score")),
    ]  # fmt: skip
    return opponents.means(pl.concat(sides))

"""Gin Rummy statistics: what the turn and score logs say about draws, discards, knocks and
rounds, for real and simulated logs alike.

The logs show both players' hands after every play (the perspective player's rows and the
opponent's), so each turn's situation is rebuilt whole: the hand before the draw is the
hand after it minus the card picked plus the card discarded. `turn_features` derives one
row per turn with what the player knew and did (and `opponent_unseen`, the cards the
opponent could not see as the play began, a 52-bit mask in `melds` order: how often a card
hidden from a player is its opponent's next discard); the `*_stats` functions aggregate it
PokerTracker-style (a count next to every number of opportunities, rates beside them).
Deadwood is the engine's meld solver's, a discard's relation to the opponent's earlier
choices this round the generated player's own reading (`players.ginrummy.relation`):
never re-implemented here.

`derive` computes every statistic and the features of the chosen logs, `store` keeps them
(`stats_ginrummy_*`); `fit_inputs` gives a fit the stored features while they still hold
exactly the warehouse's logs (else computes them), with the data fingerprint of the logs
it chose; `by_player` reads each player's habits and knocks.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby
from typing import Any, NamedTuple

import duckdb
import polars as pl

from mine.models import ginrummy as model
from mine.parsers.cards import format_course, parse_course
from mine.pipeline import stats as shared
from mine.pipeline.stats import data_fingerprint, frame, opponents
from mine.strategies.engines.ginrummy import STEM_PREFIX
from mine.strategies.engines.melds import CARD_BITS, MeldSolver
from mine.strategies.players import ginrummy as player

BITS = {format_course(card): bit for card, bit in CARD_BITS.items()}

GAME = "ginrummy"
SOURCES = ("all", "simulated", "server")  # the logs a fit can choose
FEATURES_TABLE = f"stats_{GAME}_turn_features"

# Each reads the logs `$1` (every Gin Rummy log when NULL).
TURNS_SQL = """
SELECT t.log_id, l.stem, t.line, t.round, t.turn, t.hand, t.mine, t.discard_top, t.picked,
       t.drawn_from, t.discarded
FROM ginrummy_turns t JOIN logs l USING (log_id)
WHERE $1 IS NULL OR list_contains($1, t.log_id)
ORDER BY t.log_id, t.line
"""

ROUNDS_SQL = """
SELECT r.log_id, l.stem, r.round, r.points, r.opponent_points, r.ending, r.last_mine
FROM ginrummy_rounds r JOIN logs l USING (log_id)
WHERE $1 IS NULL OR list_contains($1, r.log_id)
ORDER BY r.log_id, r.round
"""

LogIds = list[int] | None  # the logs chosen (`pipeline.stats.chosen_logs`); None: every one


def load(
    con: duckdb.DuckDBPyConnection, log_ids: LogIds = None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The Gin Rummy turns and rounds of `log_ids`, each with the log's source."""
    return _read(con, TURNS_SQL, log_ids), load_rounds(con, log_ids)


def load_rounds(con: duckdb.DuckDBPyConnection, log_ids: LogIds = None) -> pl.DataFrame:
    return _read(con, ROUNDS_SQL, log_ids)


def _read(con: duckdb.DuckDBPyConnection, sql: str, log_ids: LogIds) -> pl.DataFrame:
    simulated = pl.col("stem").str.starts_with(STEM_PREFIX)
    source = pl.when(simulated).then(pl.lit("simulated")).otherwise(pl.lit("server"))
    return frame(con, sql, [log_ids]).with_columns(source.alias("source"))


def turn_features(
    turns: pl.DataFrame, rounds: pl.DataFrame, solver: MeldSolver | None = None
) -> pl.DataFrame:
    """One row per turn: the situation before the draw, the draw, the discard and what the
    opponent did with it, the call, and the round's outcome for the player."""
    solver = solver or MeldSolver()
    ended = rounds.select("log_id", "round", "points", "opponent_points", "ending", "last_mine")
    outcome = {(log, number): tuple(rest) for log, number, *rest in ended.iter_rows()}
    scores: dict[tuple[int, int], tuple[int, int]] = {}
    running: dict[int, tuple[int, int]] = {}
    for (log, number), (points, opponent, _, _) in sorted(outcome.items()):
        mine, theirs = running.get(log, (0, 0))
        scores[(log, number)] = (mine, theirs)
        running[log] = (mine + points, theirs + opponent)
    columns = ("log_id", "source", "round", "turn", "hand", "mine", "discard_top", "picked",
               "drawn_from", "discarded")  # fmt: skip
    records: list[tuple] = []
    for key, rows in groupby(turns.select(columns).rows(), key=lambda row: (row[0], row[2])):
        records += _round_features(list(rows), outcome.get(key), scores.get(key, (0, 0)), solver)
    return pl.DataFrame(records, schema=FEATURES, orient="row")


FEATURES = {
    "log_id": pl.Int32, "source": pl.String, "round": pl.Int32, "turn": pl.Int32,
    "player": pl.String, "score": pl.Int32, "opponent_score": pl.Int32,
    "top": pl.String, "took_discard": pl.Boolean, "relation": pl.String,
    "deadwood_before": pl.Int32, "deadwood_take": pl.Int32, "deadwood_after": pl.Int32,
    "discarded": pl.String, "discard_rank": pl.Int32, "discard_suit": pl.String,
    "picked_relation": pl.String, "passed_relation": pl.String,
    "melds_opponent_hand": pl.Boolean, "picked_up": pl.Boolean,
    "may_call": pl.Boolean, "call": pl.String, "ending": pl.String,
    "round_points": pl.Int32, "round_opponent_points": pl.Int32,
    "opponent_unseen": pl.Int64,
}  # fmt: skip
FULL = (1 << 52) - 1


def _mask(cards: Iterable[str]) -> int:
    mask = 0
    for card in cards:
        mask |= BITS[card]
    return mask


def _round_features(rows, result, start_scores, solver: MeldSolver) -> Iterable[tuple]:
    dw, meldable, best_discards = solver.deadwood, solver.meldable, solver.best_discards
    took = {True: 0, False: 0}  # per player: cards taken from the discard pile this round
    shunned = {True: 0, False: 0}  # per player: cards discarded or passed this round
    own_turns = {True: 0, False: 0}
    seen = BITS[rows[0][6]]  # the up-card, then every card discarded this round
    points, opponent_points, ending, last_mine = result or (0, 0, "Drop", rows[-1][5])
    for position, row in enumerate(rows):
        log, source, number, turn, hand, mine, top, picked, drawn_from, discarded = row
        hand_after = _mask(hand)
        top_bit, picked_bit, discard_bit = BITS[top], BITS[picked], BITS[discarded]
        before = hand_after & ~picked_bit | discard_bit
        dw_before = dw(before)
        grown = before | top_bit
        dw_take = best_discards(grown, top_bit)[0]
        if meldable(grown) & top_bit:
            melded = meldable(before)
            relation = "extends" if meldable(melded | top_bit) & top_bit else "completes"
        else:
            relation = "lowers" if dw_take < dw_before else "none"
        from_discard = drawn_from == "discard"
        if from_discard:
            took[mine] |= top_bit
        else:
            shunned[mine] |= top_bit
        took[mine] &= ~discard_bit
        shunned[mine] |= discard_bit
        nxt = rows[position + 1] if position + 1 < len(rows) else None
        opponent = not mine
        # What the opponent could not see as this play began: neither in its hand (after
        # its last play) nor ever on the pile. The round's first play has no such hand.
        unseen = None
        if position and rows[position - 1][5] == opponent:
            unseen = FULL & ~_mask(rows[position - 1][4]) & ~seen
        seen |= discard_bit
        index = discard_bit.bit_length() - 1
        picked, passed = player.relation(index, took[opponent], shunned[opponent])
        melds_theirs = picked_up = None
        if nxt is not None and nxt[5] == opponent:
            picked_up = nxt[8] == "discard"
            their_before = _mask(nxt[4]) & ~BITS[nxt[7]] | BITS[nxt[9]]
            melds_theirs = bool(meldable(their_before | discard_bit) & discard_bit)
        is_last = nxt is None
        call = ending if is_last and ending != "Drop" else ("Drop" if is_last else "none")
        mine_pts, their_pts = (points, opponent_points) if mine else (opponent_points, points)
        own_scores = start_scores if mine else start_scores[::-1]
        card = parse_course(discarded)
        yield (
            log, source, number, turn, "me" if mine else "opponent", own_scores[0],
            own_scores[1], top, from_discard, relation, dw_before, dw_take, dw(hand_after),
            discarded, card.rank, card.suit, model.PICKED[picked], model.PASSED[passed],
            melds_theirs, picked_up, own_turns[mine] >= 1, call, ending, mine_pts, their_pts,
            unseen,
        )  # fmt: skip
        own_turns[mine] += 1


# --- the statistics -------------------------------------------------------------------------


def _rate(count: str, opportunities: str) -> pl.Expr:
    return (pl.col(count) / pl.col(opportunities)).round(4).alias("rate")


def draw_stats(features: pl.DataFrame) -> pl.DataFrame:
    """How often the discard is taken, by what it does for the hand."""
    return (
        features.group_by("source", "player", "relation")
        .agg(
            pl.col("took_discard").sum().alias("taken"),
            pl.len().alias("opportunities"),
            (pl.col("deadwood_before") - pl.col("deadwood_take"))
            .mean()
            .round(3)
            .alias("mean_deadwood_gain_if_taken"),
        )  # fmt: skip
        .with_columns(_rate("taken", "opportunities"))
        .sort("source", "player", "relation")
    )


def danger_stats(features: pl.DataFrame) -> pl.DataFrame:
    """How often the opponent picks up a discard, by its relation to the opponent's earlier
    pickups and passes, and whether it melds with the opponent's (logged) hand."""
    return _pickups(features, "picked_relation", "passed_relation", "melds_opponent_hand")


def danger_card_stats(features: pl.DataFrame) -> pl.DataFrame:
    """Pickup rate of every card (the 4 × 13 grid)."""
    grid = _pickups(features, "discard_suit", "discard_rank")
    return grid.rename({"discard_suit": "suit", "discard_rank": "rank"})


def _pickups(features: pl.DataFrame, *by: str) -> pl.DataFrame:
    discards = features.filter(pl.col("picked_up").is_not_null())
    return (
        discards.group_by("source", *by)
        .agg(pl.col("picked_up").sum().alias("picked_up"), pl.len().alias("discards"))
        .with_columns(_rate("picked_up", "discards"))
        .sort("source", *by)
    )


def knocks(features: pl.DataFrame) -> pl.DataFrame:
    """One row per round ended by a knock or a stock-out: the caller's deadwood and turn,
    and the caller's points minus the opponent's."""
    return features.filter(pl.col("call").is_in(["Knock", "Drop"])).select(
        "source",
        "call",
        pl.col("deadwood_after").alias("deadwood"),
        "turn",
        (pl.col("turn") // model.TURN_BUCKET * model.TURN_BUCKET).alias("turn_bucket"),
        (pl.col("round_points") == 0).alias("undercut"),
        (pl.col("round_points") - pl.col("round_opponent_points")).alias("points"),
    )


def knock_stats(features: pl.DataFrame) -> pl.DataFrame:
    """Undercut rate and points of knocks by deadwood at the knock and turn number."""
    return (
        knocks(features)
        .group_by("source", "call", "deadwood", "turn_bucket")
        .agg(
            pl.col("undercut").sum().alias("undercuts"),
            pl.len().alias("knocks"),
            pl.col("points").sum().alias("points"),
            pl.col("points").mean().round(3).alias("mean_points"),
        )
        .with_columns(_rate("undercuts", "knocks"))
        .sort("source", "call", "deadwood", "turn_bucket")
    )


def _side(mine: pl.Expr) -> pl.Expr:
    return pl.when(mine).then(pl.lit("me")).otherwise(pl.lit("opponent"))


def round_stats(rounds: pl.DataFrame) -> pl.DataFrame:
    """How rounds end (who called, how) and the points they carry."""
    return (
        rounds.with_columns(
            _side(pl.col("last_mine")).alias("caller"),
            (pl.col("points") + pl.col("opponent_points")).alias("round_points"),
            _side(pl.col("points") > 0).alias("winner"),
        )
        .group_by("source", "ending", "caller")
        .agg(
            pl.len().alias("rounds"),
            (pl.col("winner") == pl.col("caller")).sum().alias("caller_won"),
            pl.col("round_points").sum().alias("points"),
            pl.col("round_points").mean().round(3).alias("mean_points"),
        )
        .with_columns(
            (pl.col("rounds") / pl.col("rounds").sum().over("source")).round(4).alias("share")
        )
        .sort("source", "ending", "caller")
    )


class GinStats(NamedTuple):
    """What `mine stats ginrummy` derives: the statistics and the per-turn features."""

    draws: pl.DataFrame
    danger: pl.DataFrame
    danger_cards: pl.DataFrame
    knocks: pl.DataFrame
    rounds: pl.DataFrame
    turn_features: pl.DataFrame


DESCRIPTIONS = {
    "draws": "Gin Rummy: how often the discard is taken (taken / opportunities), by source, "
    "player and what the top card does for the hand (extends or completes a meld, lowers "
    "deadwood, none)",
    "danger": "Gin Rummy: how often the opponent picks up a discard (picked_up / discards), by "
    "its relation to the opponent's earlier pickups and passes this round and whether it melds "
    "with the opponent's logged hand",
    "danger_cards": "Gin Rummy: how often the opponent picks up each card when it is discarded",
    "knocks": "Gin Rummy: rounds ended by a knock (or a stock-out, call Drop), by the caller's "
    "deadwood and turn bucket: undercuts / knocks and the caller's points",
    "rounds": "Gin Rummy: rounds by how they ended and who made the last play: counts, share, "
    "rounds the caller won and points per round",
    "turn_features": "Gin Rummy: one row per logged turn with its situation (deadwood before, "
    "if the discard were taken, after), the draw, the discard's relation to the opponent's "
    "pickups and passes, whether it was picked up, the call, the round's points and the cards "
    "the opponent could not see (opponent_unseen, a 52-bit mask)",
    "players": "Gin Rummy: per player (me: the logs' writer; opponent: whoever it played): "
    "draws from the discard and discards passed, knocks (deadwood sum and most, undercuts "
    "suffered), the other side's knocks it undercut (dealt), gins and calls, each with its "
    "opportunities; rounds won and points",
    "player_knocks": "Gin Rummy: per player and deadwood after a play where a knock was "
    "allowed: plays, knocks (gins at 0) and undercuts of those knocks; the knock threshold",
    "player_deviations": "Gin Rummy: per player, score buckets, deadwood and turn bucket: "
    "knock or wait as logged against the fitted knock policy, n plays and the logged "
    "choice's value minus the policy's in game-win chance",
}


def derive(con: duckdb.DuckDBPyConnection, log_ids: LogIds = None) -> GinStats:
    """Every statistic of the logs `log_ids` (every Gin Rummy log by default), and the
    per-turn features they come from."""
    turns, rounds = load(con, log_ids)
    features = turn_features(turns, rounds)
    made = (draw_stats, danger_stats, danger_card_stats, knock_stats)
    return GinStats(*(make(features) for make in made), round_stats(rounds), features)


def store(con: duckdb.DuckDBPyConnection, stats: NamedTuple) -> list[str]:
    """Each frame of `derive`'s or `by_player`'s result as its `stats_ginrummy_*` table; a
    per-player result without deviations drops those of an earlier run. The names."""
    if isinstance(stats, Players):
        shared.drop(con, GAME, "player_deviations")
    return shared.store(con, GAME, stats, DESCRIPTIONS)


def headline(stats: NamedTuple) -> dict[str, Any]:
    """The figures `--json` prints: for the statistics, turns, rounds by how they ended and
    draws from the discard, per source; per player, every player's row and the choices
    that left the fitted knock policy (None without one)."""
    if isinstance(stats, PlayersAgainst):
        off = stats.player_deviations.filter(pl.col("deviation")).to_dicts()
        return {**headline(Players(stats.players, stats.player_knocks)), "deviations": off}
    if isinstance(stats, Players):
        return {"players": stats.players.to_dicts(),
                "player_knocks": stats.player_knocks.to_dicts(), "deviations": None,
                "not_measured": NOT_MEASURED}  # fmt: skip
    endings = stats.rounds.group_by("source", "ending").agg(pl.col("rounds").sum())
    draws = stats.draws.group_by("source").agg(pl.col("taken").sum(), pl.col("opportunities").sum())
    return {
        "turns": stats.turn_features.height,
        "rounds": int(stats.rounds["rounds"].sum()),
        "endings": {
            source: {ending: rounds for _, ending, rounds in part.sort("ending").iter_rows()}
            for (source,), part in endings.sort("source").group_by("source", maintain_order=True)
        },
        "discard_draws": {
            source: {"taken": taken, "opportunities": opportunities}
            for source, taken, opportunities in draws.sort("source").iter_rows()
        },
    }


def knocks_by_deadwood(
    knocks: pl.DataFrame, by: tuple[str, ...] = ("source", "call"), digits: int = 4
) -> pl.DataFrame:
    """`knock_stats` summed over turn buckets: undercuts / knocks (rounded to `digits`)
    and the caller's mean points, by `by` and the deadwood at the knock."""
    keys = [*by, "deadwood"]
    return (
        knocks.group_by(*keys)
        .agg(pl.col("undercuts").sum(), pl.col("knocks").sum(), pl.col("points").sum())
        .with_columns(
            (pl.col("undercuts") / pl.col("knocks")).round(digits).alias("undercut_rate"),
            (pl.col("points") / pl.col("knocks")).round(2).alias("mean_points"),
        )
        .sort(*keys)
    )


# --- what a fit reads ----------------------------------------------------------------------


def load_features(
    con: duckdb.DuckDBPyConnection, log_ids: LogIds = None, source: str = "all"
) -> pl.DataFrame:
    """The per-turn features of the logs `log_ids` (every one by default) of `source`
    (all, simulated or server): the stored ones when they hold exactly the warehouse's
    logs (none added, replaced or removed since `mine stats`) and today's columns, else
    computed afresh."""
    rows = con.execute("SELECT log_id FROM logs WHERE game = ?", [GAME]).fetchall()
    logs = {log_id for (log_id,) in rows}
    stored = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [FEATURES_TABLE]
    ).fetchall()[0][0]
    features = None
    if stored:
        held = con.execute(f"SELECT DISTINCT log_id FROM {FEATURES_TABLE}").fetchall()
        if {log_id for (log_id,) in held} == logs:
            features = frame(con, f"SELECT * FROM {FEATURES_TABLE}")
            if features.columns != list(FEATURES):
                features = None  # stored by an older `mine stats`
            elif log_ids is not None:
                features = features.filter(pl.col("log_id").is_in(log_ids))
    if features is None:
        features = turn_features(*load(con, log_ids))
    if source != "all":
        features = features.filter(pl.col("source") == source)
    return features


def fit_inputs(
    con: duckdb.DuckDBPyConnection, log_ids: LogIds = None, source: str = "all",
    against: str = "all",
) -> model.Logged:  # fmt: skip
    """What `models.ginrummy.fit` reads: the per-turn features of the logs `log_ids` of
    `source` (all, simulated or server), the data fingerprint of those logs (every Gin
    Rummy log's when none is left out), and whose habits the priors take (`against`: all,
    me or opponent)."""
    if source not in SOURCES:
        raise ValueError(f"the source must be all, simulated or server, not {source!r}")
    if against not in model.AGAINST:
        raise ValueError(f"--against must be all, me or opponent, not {against!r}")
    features = load_features(con, log_ids, source)
    every = log_ids is None and source == "all"
    chosen = None if every else sorted(features["log_id"].unique().to_list())
    fingerprint, _ = data_fingerprint(con, GAME, chosen)
    return model.Logged(features, fingerprint, features["log_id"].n_unique(), source, against)


# --- per player: habits with their opportunities, and knocks against a fitted policy -------

# The logs name no player: each file holds its writer's turns ("me") and the opponent's.
# "me" is the same program in every file a player downloaded; "opponent" may be anyone.
MELD_DRAWS = ("extends", "completes")
CALLS = ("Knock", "Gin")


def _may_knock() -> pl.Expr:
    """A play after which the player could call: not its first turn of the round, at most
    the knock limit of deadwood left, and not the play that ran the stock out (that round
    ends as a knock whatever the player says)."""
    within = pl.col("deadwood_after") <= model.KNOCK_LIMIT
    return pl.col("may_call") & within & (pl.col("call") != "Drop")


def player_habits(features: pl.DataFrame, rounds: pl.DataFrame) -> pl.DataFrame:
    """One row per player (`me`, `opponent`): draws from the discard (all, and when the
    top card extends or completes a meld) and discards passed, knocks with their deadwood
    (sum and most) and undercuts suffered, the other side's knocks it undercut, gins,
    calls where a call was allowed, each with its opportunities; rounds and points."""
    took, call = pl.col("took_discard"), pl.col("call")
    knock = call == "Knock"
    meld = pl.col("relation").is_in(MELD_DRAWS)
    undercut = knock & (pl.col("round_points") == 0)
    habits = features.group_by("player").agg(
        pl.col("log_id").n_unique().alias("logs"),
        pl.struct("log_id", "round").n_unique().alias("rounds"),
        took.sum().alias("n_discard_draws"),
        (~took).sum().alias("n_discard_passes"),
        pl.len().alias("n_draw_opportunities"),
        (took & meld).sum().alias("n_meld_draws"),
        meld.sum().alias("n_meld_draw_opportunities"),
        knock.sum().alias("n_knock"),
        pl.col("deadwood_after").filter(knock).sum().alias("knock_deadwood_sum"),
        pl.col("deadwood_after").filter(knock).max().alias("knock_deadwood_max"),
        undercut.sum().alias("n_undercut"),
        (call == "Gin").sum().alias("n_gin"),
        (_may_knock() & call.is_in(CALLS)).sum().alias("n_call"),
        _may_knock().sum().alias("n_call_opportunities"),
    )
    # An undercut one side suffers is one the other side dealt.
    other = pl.col("player").replace_strict(OTHER, return_dtype=pl.String)
    dealt = habits.select(other, n_opponent_knocks="n_knock", n_undercut_dealt="n_undercut")
    sides = [
        rounds.select(pl.lit("me").alias("player"), "points"),
        rounds.select(pl.lit("opponent").alias("player"), points=pl.col("opponent_points")),
    ]
    won = pl.concat(sides).group_by("player").agg(
        (pl.col("points") > 0).sum().alias("rounds_won"), pl.col("points").sum()
    )  # fmt: skip
    return (
        habits.join(dealt, on="player", how="left")
        .with_columns(pl.col("n_opponent_knocks", "n_undercut_dealt").fill_null(0))
        .join(won, on="player", how="left")
        .sort("player")
    )


OTHER = {"me": "opponent", "opponent": "me"}


def player_knocks(features: pl.DataFrame) -> pl.DataFrame:
    """The knock threshold, per player and deadwood after a play where a knock was allowed
    (0 … the knock limit): the plays, those it knocked (or ginned, at 0) on, and of its
    knocks those undercut. Knocks over plays is how readily it knocks at that deadwood;
    the knocks across deadwoods are its deadwood-at-knock distribution."""
    plays = features.filter(_may_knock())
    knocked = pl.col("call").is_in(CALLS)
    return (
        plays.group_by("player", pl.col("deadwood_after").alias("deadwood"))
        .agg(
            pl.len().alias("n_plays"),
            knocked.sum().alias("n_knock"),
            ((pl.col("call") == "Knock") & (pl.col("round_points") == 0)).sum().alias("n_undercut"),
        )
        .with_columns((pl.col("n_knock") / pl.col("n_plays")).round(4).alias("knock_rate"))
        .sort("player", "deadwood")
    )


def knock_policy(fitted: pl.DataFrame) -> pl.DataFrame:
    """The fitted `knock` rows: knock (1) or wait (0) and the knock-minus-wait margin in
    game-win chance, by deadwood, turn bucket and score cell."""
    knock = fitted.filter(pl.col("table") == "knock")
    chart_knocks = pl.col("value") == 1
    return knock.select(
        deadwood="a", turn_bucket="b", score_cell="c", chart_knocks=chart_knocks, margin="extra"
    )


def knock_deviations(features: pl.DataFrame, policy: pl.DataFrame) -> pl.DataFrame:
    """The long table: per player, score buckets, deadwood after the play and turn bucket,
    the logged and the policy's choice (`knock` or `wait`): how many plays (`n`) and the
    sum of the logged choice's value minus the policy's in game-win chance
    (`win_chance_diff_sum`: the margin, signed, where they differ)."""
    top = model.SCORE_BUCKETS - 1
    turn_bucket = ((pl.col("turn") - 1) // model.TURN_BUCKET).clip(0, model.TURN_BUCKETS - 1)
    plays = features.filter(_may_knock()).with_columns(
        pl.col("deadwood_after").alias("deadwood"),
        turn_bucket.alias("turn_bucket"),
        (pl.col("score") // model.SCORE_STEP).clip(0, top).alias("score_bucket"),
        (pl.col("opponent_score") // model.SCORE_STEP).clip(0, top).alias("opponent_score_bucket"),
        pl.col("call").is_in(CALLS).alias("knocks"),
    ).with_columns(
        (pl.col("score_bucket") * model.SCORE_BUCKETS + pl.col("opponent_score_bucket"))
        .alias("score_cell")
    )  # fmt: skip
    keys = ["deadwood", "turn_bucket", "score_cell"]
    joined = plays.join(policy.with_columns(pl.col(keys).cast(pl.Int64)),
                        on=keys, how="left", coalesce=True)  # fmt: skip
    choice = {True: "knock", False: "wait"}
    groups = ["player", "score_bucket", "opponent_score_bucket", "deadwood", "turn_bucket",
              "call", "chart_call"]  # fmt: skip
    return (
        joined.with_columns(
            pl.col("knocks").replace_strict(choice, return_dtype=pl.String).alias("call"),
            pl.col("chart_knocks")
            .replace_strict(choice, return_dtype=pl.String)
            .alias("chart_call"),
            (
                (pl.col("knocks").cast(pl.Int8) - pl.col("chart_knocks").cast(pl.Int8))
                * pl.col("margin")
            ).alias("diff"),
        )  # fmt: skip
        .sort(*groups, "diff")  # each sum smallest first: the same digits in any log order
        .group_by(groups, maintain_order=True)
        .agg(
            pl.len().alias("n"),
            pl.col("diff").is_not_null().sum().alias("measured"),
            pl.col("diff").sum().alias("win_chance_diff_sum"),
        )
        .with_columns((pl.col("call") != pl.col("chart_call")).alias("deviation"))
    )


def knock_summary(deviations: pl.DataFrame) -> pl.DataFrame:
    """Per player: knock-or-wait choices measured against the policy, deviations (waits
    where it knocks, knocks where it waits) and their summed value in game-win chance."""
    off = pl.col("deviation")
    return deviations.group_by("player").agg(
        pl.col("n").sum().alias("knock_decisions"),
        pl.col("n").filter(off).sum().alias("n_knock_deviations"),
        pl.col("n").filter(off & (pl.col("call") == "wait")).sum().alias("n_waited"),
        pl.col("win_chance_diff_sum").filter(off).sum().alias("win_chance_diff_sum"),
    )


NOT_MEASURED = (
    "what draws and discards cost: the fitted tables value a deadwood after a play, and a "
    "stock draw's card is unseen, so no logged draw or discard has a value to compare"
)


class Players(NamedTuple):
    """Each player's habits (`by_player` without a fitted table)."""

    players: pl.DataFrame
    player_knocks: pl.DataFrame


class PlayersAgainst(NamedTuple):
    """Each player's habits and knocks against a fitted knock policy."""

    players: pl.DataFrame
    player_knocks: pl.DataFrame
    player_deviations: pl.DataFrame


def by_player(
    con: duckdb.DuckDBPyConnection, log_ids: LogIds = None, fitted: Any = None
) -> Players | PlayersAgainst:
    """Each player's habits in the logs `log_ids`; given fitted tables (`models.ginrummy.
    Fitted`), its knock-or-wait choices against their knock policy too."""
    features = load_features(con, log_ids)
    players = player_habits(features, load_rounds(con, log_ids))
    knocked = player_knocks(features)
    if fitted is None:
        return Players(players, knocked)
    deviations = knock_deviations(features, knock_policy(fitted.frame))
    players = players.join(
        knock_summary(deviations), on="player", how="left", maintain_order="left"
    )
    return PlayersAgainst(players, knocked, deviations)


# --- the logs' writer against each opponent -------------------------------------------------

WRITER = "me"  # the logs name no player: the side they are written from
SERVER_OPPONENTS = "unnamed (server logs)"
_PAIRING = rf"^{STEM_PREFIX}(.+)-s[0-9]+-[0-9]+$"  # a simulated game's file: its match's ids


def by_opponent(con: duckdb.DuckDBPyConnection, log_ids: LogIds = None) -> pl.DataFrame:
    """The logs' writer against each opponent its file names tell apart: games (one a
    log, won by the side with more points at its end; equal points a draw), wins and its
    win rate (`opponents.rates`), and the rounds and points a round for and against it.
    Whom the writer played, as far as a log's file name tells: a simulated game's match
    (`a-vs-b`, the writer one of them); server logs name no opponent."""
    pairing = pl.col("stem").str.extract(_PAIRING, 1)
    opponent = pl.when(pairing.is_null()).then(pl.lit(SERVER_OPPONENTS)).otherwise(pairing)
    games = (
        load_rounds(con, log_ids)
        .group_by("log_id", "stem")
        .agg(pl.len().alias("rounds"), pl.col("points").sum(), pl.col("opponent_points").sum())
        .select(
            "log_id", "rounds", "points", "opponent_points",
            pl.lit(WRITER).alias("player"), opponent.alias("opponent"),
            (pl.col("points") > pl.col("opponent_points")).cast(pl.Float64)
            .add((pl.col("points") == pl.col("opponent_points")).cast(pl.Float64) / 2)
            .alias("score"),
        )
    )  # fmt: skip
    points = games.group_by(opponents.PAIRING).agg(
        pl.col("rounds").sum(),
        (pl.col("points").sum() / pl.col("rounds").sum()).alias("points_a_round"),
        (pl.col("opponent_points").sum() / pl.col("rounds").sum()).alias("against_a_round"),
    )
    return opponents.rates(games).join(points, on=opponents.PAIRING, maintain_order="left")

"""TwentyOne per player id (`mine stats twentyone --by player`): each player's habits with
their opportunities (hits on hard 16, doubles, splits, insurance, bids, net points), by up
card too, and, given a fitted chart, every choice measured against the chart's with exact
action values (what each deviation cost, per unit of bid and in points)."""

from __future__ import annotations

from typing import NamedTuple

import duckdb
import polars as pl

from mine.pipeline.stats import opponents
from mine.pipeline.stats import twentyone_features as features
from mine.pipeline.stats.twentyone_features import LogIds
from mine.strategies.engines.twentyone import ACTION_NAMES, Settings, TwentyOneRules, rules_of
from mine.strategies.engines.twentyone_chart import CONTEXT_NAMES, Strategy
from mine.strategies.solvers.twentyone import ChartValues

HAND_ACTIONS = ("Stand", "Hit", "DoubleDown", "Split")
NO_INSURANCE = "no insurance"
PLAYER_KEYS = ["player"]
SITUATION = ["up", "context", "total", "soft", "n_cards", "pair_value"]


def free_decisions(decision_frame: pl.DataFrame) -> pl.DataFrame:
    """The decisions a player chose (not the Hit and Stand a DoubleDown forces), with the
    context the chart plays them in (0 main, 1 insured, 2 split hand) and the value of a
    pair that may be split there (0: none)."""
    return decision_frame.filter(~pl.col("forced")).with_columns(
        pl.when(pl.col("split_hand"))
        .then(2)
        .when(pl.col("insured"))
        .then(1)
        .otherwise(0)
        .alias("context"),
        pl.when(pl.col("n_cards") == 2).then(pl.col("pair").clip(0, 10)).otherwise(0)
        .alias("pair_value"),
    )  # fmt: skip


def _habits() -> list[pl.Expr]:
    hand = pl.col("action") != "Insurance"
    hard16 = hand & (pl.col("total") == 16) & ~pl.col("soft")
    two = hand & (pl.col("n_cards") == 2)
    offered = pl.col("first") & (pl.col("up") == 1)  # insurance: the first decision, ace up
    return [
        hand.sum().alias("decisions"),
        (hard16 & (pl.col("action") == "Hit")).sum().alias("n_hit_16"),
        hard16.sum().alias("n_16_opportunities"),
        (two & (pl.col("action") == "DoubleDown")).sum().alias("n_double"),
        two.sum().alias("n_double_opportunities"),
        (pl.col("action") == "Split").sum().alias("n_split"),
        (two & (pl.col("pair_value") > 0)).sum().alias("n_split_opportunities"),
        (offered & (pl.col("action") == "Insurance")).sum().alias("n_insurance"),
        offered.sum().alias("n_insurance_opportunities"),
    ]


def player_habits(
    decided: pl.DataFrame, bid_frame: pl.DataFrame, settled: pl.DataFrame, rules: TwentyOneRules
) -> pl.DataFrame:
    """One row per player id: rounds, hands and decisions; hits on hard 16, doubles,
    splits and insurance, each with its opportunities; bids (count, sum, at the minimum
    and the maximum); the net points its hands were settled to."""
    per_bid = bid_frame.group_by(PLAYER_KEYS).agg(
        pl.col("log_id").n_unique().alias("logs"),
        pl.len().alias("n_bids"),
        pl.col("bid").sum().alias("bid_sum"),
        (pl.col("bid") <= rules.min_bid).sum().alias("n_bid_min"),
        (pl.col("bid") >= rules.max_bid).sum().alias("n_bid_max"),
    )
    results = settled.group_by(PLAYER_KEYS).agg(
        pl.len().alias("hands"),
        (
            pl.col("payback") + pl.col("insurance_back") - pl.col("final_bid")
            - pl.col("insured_bid") // 2
        ).sum().alias("net_points"),
    )  # fmt: skip
    habits = decided.group_by(PLAYER_KEYS).agg(_habits())
    return (
        per_bid.join(results, on=PLAYER_KEYS, how="left")
        .join(habits, on=PLAYER_KEYS, how="left")
        .sort("player")
    )


def player_ups(decided: pl.DataFrame) -> pl.DataFrame:
    """The same habits per player id and dealer up card (1 = ace)."""
    return decided.group_by("player", "up").agg(_habits()).sort("player", "up")


def _situation_values(keys: pl.DataFrame, values: ChartValues) -> pl.DataFrame:
    """Per situation (one loop step per distinct situation, not per decision): the chart's
    action and the value of every legal action when the chart plays on after it."""
    rows = []
    for up, context, total, soft, n_cards, pair in keys.iter_rows():
        legal = values.hand(up, total, int(soft), n_cards, context)
        worth = {ACTION_NAMES[a]: float(v) for a, v in legal.items()}
        if pair:
            worth["Split"] = float(values.split(up, pair, context))
        chart = values.chart_action(up, total, int(soft), n_cards, context, pair)
        rows.append(
            (up, context, total, soft, n_cards, pair, ACTION_NAMES[chart],
             *(worth.get(name) for name in HAND_ACTIONS))
        )  # fmt: skip
    schema = dict(zip(SITUATION, keys.dtypes, strict=True)) | {"chart_action": pl.String}
    schema |= {f"ev_{name}": pl.Float64 for name in HAND_ACTIONS}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _ev_of(action: str) -> pl.Expr:
    expr = pl.lit(None, dtype=pl.Float64)
    for name in HAND_ACTIONS:
        expr = pl.when(pl.col(action) == name).then(pl.col(f"ev_{name}")).otherwise(expr)
    return expr


def hand_deviations(decided: pl.DataFrame, values: ChartValues) -> pl.DataFrame:
    """Every free hand decision with the chart's action there and what the logged action
    is worth minus what the chart's is (`ev_diff`, per unit of the hand's bid; null where
    the logged action is not one the chart's model has there)."""
    hand = decided.filter(pl.col("action") != "Insurance")
    table = _situation_values(hand.select(SITUATION).unique().sort(SITUATION), values)
    return (
        hand.join(table, on=SITUATION, how="left")
        .with_columns((_ev_of("action") - _ev_of("chart_action")).alias("ev_diff"))
        .select("player", pl.lit("hand").alias("decision"), *SITUATION, "bid", "action",
                "chart_action", "ev_diff")
    )  # fmt: skip


def insurance_deviations(decided: pl.DataFrame, values: ChartValues) -> pl.DataFrame:
    """Every insurance choice (a player's first decision with the dealer's ace up) against
    the chart's, valued like `hand_deviations` (the side bet of half a bid included)."""
    offered = decided.filter(pl.col("first") & (pl.col("up") == 1))
    cell = ["total", "soft", "pair_value"]
    keys = offered.select(cell).unique().sort(cell)
    rows = []
    for total, soft, pair in keys.iter_rows():
        insured, plain = values.insurance(total, int(soft), pair)
        take = bool(values.chart.insure[total, int(soft), int(pair > 0)])
        rows.append((total, soft, pair, "Insurance" if take else NO_INSURANCE, insured, plain))
    schema = dict(zip(cell, keys.dtypes, strict=True))
    schema |= {"chart_action": pl.String, "ev_insured": pl.Float64, "ev_plain": pl.Float64}
    table = pl.DataFrame(rows, schema=schema, orient="row")

    def ev(action: str) -> pl.Expr:
        return pl.when(pl.col(action) == "Insurance").then("ev_insured").otherwise("ev_plain")

    took = pl.col("action") == "Insurance"
    return (
        offered.with_columns(
            pl.when(took).then(pl.lit("Insurance")).otherwise(pl.lit(NO_INSURANCE)).alias("action"),
            pl.lit(0, dtype=pl.Int32).alias("context"),
        )
        .join(table, on=cell, how="left")
        .with_columns((ev("action") - ev("chart_action")).alias("ev_diff"))
        .select("player", pl.lit("insurance").alias("decision"), *SITUATION, "bid", "action",
                "chart_action", "ev_diff")
    )  # fmt: skip


def player_deviations(decided: pl.DataFrame, values: ChartValues) -> pl.DataFrame:
    """The long table: per player, kind of decision, situation, logged and chart action:
    how many decisions (`n`), how many of them could be valued (`measured`), and the sum
    of what the logged action is worth minus the chart's, per unit of bid
    (`ev_diff_sum`) and in points at the logged bids (`ev_diff_points`)."""
    hand, insured = hand_deviations(decided, values), insurance_deviations(decided, values)
    context = pl.col("context").cast(decided["context"].dtype)
    rows = pl.concat([hand, insured.with_columns(context)])
    keys = ["player", "decision", *SITUATION, "action", "chart_action"]
    return (
        rows.sort(*keys, "ev_diff", "bid")  # sums smallest first: the same digits in any order
        .group_by(keys, maintain_order=True)
        .agg(
            pl.len().alias("n"),
            pl.col("ev_diff").is_not_null().sum().alias("measured"),
            pl.col("ev_diff").sum().alias("ev_diff_sum"),
            (pl.col("ev_diff") * pl.col("bid")).sum().alias("ev_diff_points"),
        )
        .with_columns(
            (pl.col("action") != pl.col("chart_action")).alias("deviation"),
            pl.col("context").replace_strict(range(3), CONTEXT_NAMES, return_dtype=pl.String),
        )
        .sort(keys)
    )


def deviation_summary(deviations: pl.DataFrame) -> pl.DataFrame:
    """Per player: decisions measured against the chart, deviations, unmeasured ones and
    what the deviations were worth against the chart's actions (sum, per unit of bid and
    in points)."""
    off = pl.col("deviation")
    return deviations.group_by("player").agg(
        pl.col("n").sum().alias("chart_decisions"),
        pl.col("n").filter(off).sum().alias("n_deviations"),
        (pl.col("n") - pl.col("measured")).sum().alias("n_unmeasured"),
        pl.col("ev_diff_sum").filter(off).sum().alias("ev_diff_sum"),
        pl.col("ev_diff_points").filter(off).sum().alias("ev_diff_points"),
    )


class Habits(NamedTuple):
    """Each player id's habits (no chart to measure them against)."""

    players: pl.DataFrame
    player_ups: pl.DataFrame


class AgainstChart(NamedTuple):
    """Each player id's habits and its choices against a fitted chart."""

    players: pl.DataFrame
    player_ups: pl.DataFrame
    player_deviations: pl.DataFrame


PlayerStats = Habits | AgainstChart
DESCRIPTIONS = {
    "players": "TwentyOne: per player id: hits on hard 16, doubles, splits, insurance, each with "
    "its opportunities; bids; settled net points",
    "player_ups": "TwentyOne: per player id and up card: hits on hard 16, doubles, splits, "
    "insurance, each with its opportunities",
    "player_deviations": "TwentyOne: per player, decision (hand or insurance), situation, logged "
    "and chart action: n decisions, measured, and the logged action's value minus the chart's "
    "(ev_diff_sum per unit of bid, ev_diff_points at the logged bids; exact, infinite deck, the "
    "chart playing on)",
}


def descriptions(stats: PlayerStats) -> dict[str, str]:
    """Each table's comment (the players' says whether a chart measured their choices)."""
    measured = "; deviations from the chart" if isinstance(stats, AgainstChart) else ""
    return {**DESCRIPTIONS, "players": DESCRIPTIONS["players"] + measured}


def by_player(
    con: duckdb.DuckDBPyConnection,
    log_ids: LogIds,
    fitted: Strategy | None,
    rules: Settings = None,
) -> PlayerStats:
    """Each player id's habits in the chosen logs (settled by `rules`: the defaults with
    these settings over them) and, given a fitted table, its choices against the table's
    static chart."""
    rules = rules_of(rules)
    settled = features.settle(features.hands(con, log_ids), features.dealers(con, log_ids), rules)
    decided = free_decisions(features.decisions(con, log_ids))
    players = player_habits(decided, features.bids(con, log_ids), settled, rules)
    ups = player_ups(decided)
    if fitted is None:
        return Habits(players, ups)
    deviations = player_deviations(decided, ChartValues(rules, fitted.chart))
    players = players.join(deviation_summary(deviations), on="player", how="left")
    return AgainstChart(players.sort("player"), ups, deviations)


def headline(stats: PlayerStats) -> dict[str, object]:
    """Every player's row, its habits by up card, and the choices that left the chart's
    (None without a chart)."""
    deviations = getattr(stats, "player_deviations", None)
    off = None if deviations is None else deviations.filter("deviation").to_dicts()
    players, ups = stats.players.to_dicts(), stats.player_ups.to_dicts()
    return {"players": players, "deviations": off, "player_ups": ups}


# --- each log's writer against each opponent at its table ----------------------------------

SCORES_SQL = "SELECT log_id, round, player, mine, points FROM {scores}"


def round_leads(scores: pl.DataFrame) -> pl.DataFrame:
    """Per log, opponent and round: the writer's points won that round minus the
    opponent's (`result`), over the rounds both began with points (a bankrupt player sits
    out). Every player starts with the same points, so the lead before the first round is
    0 whatever they were."""
    own = pl.col("points").alias("own")
    writer = scores.filter("mine").select("log_id", "round", "player", own)
    others = scores.filter(~pl.col("mine")).select(
        "log_id", "round", pl.col("player").alias("opponent"), pl.col("points").alias("theirs")
    )
    pair = ["log_id", "opponent"]
    return (
        writer.join(others, on=["log_id", "round"])
        .sort("log_id", "opponent", "round")
        .with_columns(
            (pl.col("own") - pl.col("theirs")).alias("gap"),
            pl.col("own").shift(1).over(pair).alias("own_before"),
            pl.col("theirs").shift(1).over(pair).alias("theirs_before"),
        )
        .filter(_in_play("own_before") & _in_play("theirs_before"))
        .select("log_id", "round", "player", "opponent",
                (pl.col("gap") - (pl.col("own_before") - pl.col("theirs_before")).fill_null(0))
                .alias("result"))
    )  # fmt: skip


def _in_play(before: str) -> pl.Expr:
    """Points before the round above 0, or no round before it (the first)."""
    return pl.col(before).is_null() | (pl.col(before) > 0)


def by_opponent(con: duckdb.DuckDBPyConnection, log_ids: LogIds = None) -> pl.DataFrame:
    """Each log's writer (its id) against each other id at its tables: rounds played
    together and the writer's lead a round (its points won minus that opponent's, paired
    round by round: the same dealer's cards), their mean and spread (`opponents.means`)."""
    return opponents.means(round_leads(features.read(con, SCORES_SQL, log_ids)))

"""TwentyOne's statistics, derived from the warehouse and stored back into it: six tables
(`DESCRIPTIONS`), rates always with their counts: `n` (how often) next to `opportunities`
(how often it could have happened).

The features they are made of are read in `twentyone_features`; each player id's habits
and its choices against a fitted chart (`--by player`) in `twentyone_players`. Also the
warehouse's side of fitting (`fit_inputs`).
"""

from __future__ import annotations

import dataclasses
import json
from typing import NamedTuple

import duckdb
import polars as pl

from mine.models.twentyone import FitData
from mine.pipeline import stats as shared
from mine.pipeline.stats import twentyone_features as features
from mine.pipeline.stats import twentyone_players as per_player
from mine.pipeline.stats.twentyone_features import LogIds
from mine.pipeline.stats.twentyone_players import by_opponent, by_player  # noqa: F401 (the contract's)
from mine.strategies.engines.twentyone import Settings, rules_of

GAME = "twentyone"
DEALER_OUTCOMES = ("Bust", "17", "18", "19", "20", "21", "Combo", "other")


DESCRIPTIONS = {
    "decisions": "TwentyOne: one row per decision with the state before it and the hand's "
    "settled result per unit of first bid (net_per_bid)",
    "situations": "TwentyOne: per (up, total, soft, pair, n_cards, action) n of opportunities "
    "and the mean result per unit of bid (free decisions of unsplit, uninsured hands)",
    "dealer": "TwentyOne: the dealer's final hands by up card: n of opportunities (rounds played)",
    "shoe": "TwentyOne: the shoe before each round: cards left by value, running and true count",
    "count_results": "TwentyOne: player-round results per unit of bid by true count before the "
    "round",
    "settlement": "TwentyOne: player-rounds whose change of points the rules' settlement of the "
    "final hands reproduces",
}
# A frame a table, in the order of DESCRIPTIONS: the tables named once.
TwentyOneStats = NamedTuple("TwentyOneStats", [(name, pl.DataFrame) for name in DESCRIPTIONS])


def situations(decided: pl.DataFrame) -> pl.DataFrame:
    """Per (up card, total, soft, pair, cards, action): how often the action was taken
    there (`n`), out of how many decisions in that situation (`opportunities`), and the
    mean result per unit of bid of the hands that took it (forced moves left out)."""
    free = decided.filter(~pl.col("forced") & ~pl.col("split_hand") & ~pl.col("insured"))
    keys = ["up", "total", "soft", "pair", "n_cards"]
    opportunities = free.group_by(keys).agg(pl.len().alias("opportunities"))
    return (
        # each sum smallest first, not in the logs' ids' order (the order they were
        # ingested in): the same logs, the same digits
        free.sort([*keys, "action", "net_per_bid"])
        .group_by([*keys, "action"])
        .agg(
            pl.len().alias("n"),
            pl.col("net_per_bid").mean().alias("mean_result"),
            pl.col("net_per_bid").std().alias("sd_result"),
        )
        .join(opportunities, on=keys)
        .with_columns((pl.col("n") / pl.col("opportunities")).alias("rate"))
        .sort([*keys, "action"])
    )


def dealer_outcomes(dealer_frame: pl.DataFrame) -> pl.DataFrame:
    """The dealer's final hands by up card: count and rate of each outcome among the
    rounds it played (`other`: it stopped below 17, at its card limit)."""
    played = dealer_frame.filter(pl.col("played")).with_columns(
        pl.when((pl.col("n_cards") == 2) & (pl.col("total") == 21))
        .then(pl.lit("Combo"))
        .when(pl.col("total") > 21)
        .then(pl.lit("Bust"))
        .when(pl.col("total") >= 17)
        .then(pl.col("total").cast(pl.Utf8))
        .otherwise(pl.lit("other"))
        .alias("outcome")
    )
    opportunities = played.group_by("up").agg(pl.len().alias("opportunities"))
    return (
        played.group_by("up", "outcome")
        .agg(pl.len().alias("n"), pl.col("n_cards").mean().alias("mean_cards"))
        .join(opportunities, on="up")
        .with_columns((pl.col("n") / pl.col("opportunities")).alias("rate"))
        .sort("up", "outcome")
    )


def count_results(shoe_frame: pl.DataFrame, settled: pl.DataFrame) -> pl.DataFrame:
    """Hands' results per unit of first bid by true count (rounded, clipped to ±10) before
    their round: the value of the cards still in the shoe, as the logged players played."""
    insurance = pl.col("insurance_net").sum() / pl.col("first_bid").first()
    per_hand = settled.group_by("log_id", "round", "player").agg(
        (pl.col("net_per_bid").sum() + insurance).alias("net_per_bid"), pl.col("first_bid").first()
    )
    joined = per_hand.join(
        shoe_frame.select("log_id", "round", "true_count"), on=["log_id", "round"]
    )
    return (
        joined.sort("net_per_bid", "first_bid")  # sums smallest first: the same digits always
        .with_columns(pl.col("true_count").round(0).clip(-10, 10).cast(pl.Int64).alias("tc"))
        .group_by("tc")
        .agg(
            pl.len().alias("hands"),
            pl.col("net_per_bid").mean().alias("mean_result"),
            pl.col("net_per_bid").std().alias("sd_result"),
            pl.col("first_bid").mean().alias("mean_bid"),
        )
        .with_columns((pl.col("hands") / pl.col("hands").sum()).alias("share"))
        .sort("tc")
    )


def derive(
    con: duckdb.DuckDBPyConnection, log_ids: LogIds = None, rules: Settings = None
) -> TwentyOneStats:
    """Every statistic of the chosen logs (every TwentyOne log by default), settled by
    `rules` (the defaults with these settings over them)."""
    rules = rules_of(rules)
    hand_frame, dealer_frame = features.hands(con, log_ids), features.dealers(con, log_ids)
    settled = features.settle(hand_frame, dealer_frame, rules)
    changes = features.point_changes(con, log_ids)
    check = features.settlement_check(settled, changes, rules.starting_points)
    hand = ["log_id", "round", "player", "hand_id"]
    results = settled.select(*hand, "net_per_bid", "p_class", "d_class")
    decided = features.decisions(con, log_ids).join(
        results, on=hand, how="left", maintain_order="left"
    )
    card_frame = features.cards(con, log_ids)
    decks = features.infer_decks(card_frame)
    shoe_frame = features.shoe(card_frame, decks["decks"])
    return TwentyOneStats(
        decisions=decided.drop("p_class", "d_class"),
        situations=situations(decided),
        dealer=dealer_outcomes(dealer_frame),
        shoe=shoe_frame.with_columns(pl.lit(decks["decks"]).alias("decks")),
        count_results=count_results(shoe_frame, settled),
        settlement=check.select(
            pl.len().alias("player_rounds"),
            pl.col("matches").sum().alias("matched"),
            (~pl.col("matches")).sum().alias("mismatched"),
            pl.col("matches").mean().alias("match_rate"),
            pl.lit(json.dumps(dataclasses.asdict(rules))).alias("rules"),
        ),
    )


def store(
    con: duckdb.DuckDBPyConnection, stats: TwentyOneStats | per_player.PlayerStats
) -> list[str]:
    """Write each frame as its `stats_twentyone_<name>` table; the names. Per-player
    statistics without a chart drop the deviations an earlier run stored."""
    if isinstance(stats, per_player.Habits):
        shared.drop(con, GAME, "player_deviations")
    about = DESCRIPTIONS if isinstance(stats, TwentyOneStats) else per_player.descriptions(stats)
    return shared.store(con, GAME, stats, about)


def headline(stats: TwentyOneStats | per_player.PlayerStats) -> dict[str, object]:
    """The figures `--json` prints: the settlement check, the decks, the dealer's outcomes
    and the results by count (per player: `twentyone_players.headline`)."""
    if not isinstance(stats, TwentyOneStats):
        return per_player.headline(stats)
    check = stats.settlement.row(0, named=True)
    return {
        "settlement": {k: v for k, v in check.items() if k != "rules"},
        "decks": int(stats.shoe["decks"][0]) if stats.shoe.height else None,
        "dealer": stats.dealer.to_dicts(),
        "count_results": stats.count_results.to_dicts(),
    }


def fit_inputs(con: duckdb.DuckDBPyConnection, log_ids: LogIds = None) -> FitData:
    """What the fitter reads of the chosen logs (no rules involved)."""
    card_frame = features.cards(con, log_ids)
    decks = features.infer_decks(card_frame)
    fingerprint, logs = shared.data_fingerprint(con, GAME, log_ids)
    return FitData(
        hands=features.hands(con, log_ids),
        dealers=features.dealers(con, log_ids),
        dealer_decisions=features.dealer_decisions(con, log_ids),
        decisions=features.decisions(con, log_ids),
        changes=features.point_changes(con, log_ids),
        bids=features.bids(con, log_ids),
        cards=card_frame,
        shoe=features.shoe(card_frame, decks["decks"]),
        decks=decks,
        fingerprint=fingerprint,
        logs=logs,
    )


UP_ORDER = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)


def up_name(up: int) -> str:
    return "A" if up == 1 else str(up)


def dealer_grid(dealer_frame: pl.DataFrame) -> list[dict]:
    """The dealer's outcomes (`stats_twentyone_dealer`) as one row per up card (2..10,
    then A): each outcome's rate and the rounds played."""
    rows = []
    for up in UP_ORDER:
        outcomes = {
            r["outcome"]: r for r in dealer_frame.filter(pl.col("up") == up).iter_rows(named=True)
        }
        if outcomes:
            row = {"up": up_name(up)}
            row |= {o: outcomes[o]["rate"] if o in outcomes else None for o in DEALER_OUTCOMES}
            row["rounds"] = next(iter(outcomes.values()))["opportunities"]
            rows.append(row)
    return rows

"""TwentyOne statistics from the warehouse: decisions, hands, dealer outcomes, the shoe.

Every frame here is derived from `twentyone_turns` and `twentyone_scores` (SQL does the
list work, polars the aggregation). Rates always travel with their counts: `n` (how often)
next to `opportunities` (how often it could have happened).

- `hands`: one row per player hand (final cards, bids, whether split, doubled, insured);
- `decisions`: one row per decision with the state *before* it (the hand before a Hit is
  the logged hand without its newest card), its context (split hand, insured, forced after
  a DoubleDown) and that hand's settled result per unit of its first bid;
- `settle`: settlement by the reference rules from the final hands, checked against the
  score files' running totals (`settlement_check`);
- `cards`: every card dealt, in (almost) deal order, with its position in the game's shoe
  sequence: the dealer's two cards, the initial deal seat by seat, then each seat's draws,
  then the dealer's (the course engine's order: its reshuffles fall where this order
  puts them); within a split the order is approximate. A dealer that did not
  play leaves its hole card unseen: it is a card with no value;
- `infer_decks`: the smallest number of decks for which no card turns up more often in a
  shoe than the shoe holds it (a fresh shoe follows every `52 × decks` cards);
- `shoe`: the composition of the shoe before each round, its running and true count (Hi-Lo);
- `dealer_outcomes`, `situations`, `count_results`: the main tables `mine stats` prints.
"""

from __future__ import annotations

import dataclasses
import json

import duckdb
import polars as pl

from mine.models.twentyone import FitData
from mine.pipeline.stats import data_fingerprint, drop, frame, store
from mine.strategies.engines.twentyone import (
    ACTION_NAMES,
    TwentyOneRules,
    classify,
    classify_dealer,
    insurance_pays,
)
from mine.strategies.engines.twentyone import settle as settle_hand
from mine.strategies.solvers.twentyone import ChartValues

GAME = "twentyone"
VALUES = tuple(range(1, 11))
HI_LO = {1: -1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 0, 8: 0, 9: 0, 10: -1}
DEALER_OUTCOMES = ("Bust", "17", "18", "19", "20", "21", "Combo", "other")

_RANK = (
    "CASE substr({c}, 2) WHEN 'A' THEN 1 WHEN 'J' THEN 11 WHEN 'Q' THEN 12 WHEN 'K' THEN 13 "
    "ELSE CAST(substr({c}, 2) AS INTEGER) END"
)


def rank_sql(card: str) -> str:
    return _RANK.format(c=card)


def value_sql(card: str) -> str:
    return f"least({rank_sql(card)}, 10)"


# --- hands and dealers ---------------------------------------------------------------------

HANDS_SQL = f"""
WITH rows AS (
    SELECT * FROM twentyone_turns WHERE player <> 'dealer'
),
bids AS (
    SELECT log_id, round, player, line AS bid_line, bid AS first_bid,
           rank() OVER (PARTITION BY log_id, round ORDER BY line) AS seat_rank
    FROM rows WHERE action = 'Bid'
),
rounds AS (
    SELECT log_id, round, player, bool_or(action = 'Split') AS split_round,
           max(bid) FILTER (WHERE action = 'Insurance') AS insured_bid
    FROM rows WHERE action <> 'Bid' GROUP BY ALL
)
SELECT h.log_id, h.round, h.player, h.hand_id, any_value(b.seat_rank) AS seat_rank,
       {value_sql("any_value(h.upcard)")} AS up,
       arg_max(h.hand, h.line) AS cards, CAST(len(arg_max(h.hand, h.line)) AS INTEGER) AS n_cards,
       CAST(hand_total(arg_max(h.hand, h.line)) AS INTEGER) AS total,
       hand_soft(arg_max(h.hand, h.line)) AS soft,
       any_value(b.first_bid) AS first_bid, arg_max(h.bid, h.line) AS final_bid,
       bool_or(h.action = 'DoubleDown') AS doubled,
       any_value(r.split_round) AS split,
       CASE WHEN h.hand_id = 0 THEN coalesce(any_value(r.insured_bid), 0) ELSE 0 END AS insured_bid,
       arg_max(h.action, h.line) AS last_action, min(h.line) AS first_line
FROM rows h
JOIN bids b USING (log_id, round, player)
JOIN rounds r USING (log_id, round, player)
WHERE h.action <> 'Bid'
GROUP BY h.log_id, h.round, h.player, h.hand_id
"""

DEALERS_SQL = f"""
SELECT log_id, round, {value_sql("upcard")} AS up, cards, CAST(n_cards AS INTEGER) AS n_cards,
       CAST(total AS INTEGER) AS total,
       hand_soft(cards) AS soft, played
FROM twentyone_dealer_hands
"""

DEALER_DECISIONS_SQL = """
SELECT log_id, round, CAST(len(before) AS INTEGER) AS n_cards,
       CAST(hand_total(before) AS INTEGER) AS total,
       hand_soft(before) AS soft, action = 'Hit' AS hit
FROM (
    SELECT *, CASE WHEN action = 'Hit' THEN hand[2:] ELSE hand END AS before
    FROM twentyone_turns WHERE player = 'dealer'
) WHERE len(before) >= 2
"""


def hands(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """One row per player hand: final cards, total, soft, bids, split / doubled / insured."""
    return frame(con, HANDS_SQL + " ORDER BY log_id, round, seat_rank, hand_id")


def dealers(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """One row per round: the dealer's up card value (1..10) and final hand."""
    return frame(con, DEALERS_SQL + " ORDER BY log_id, round")


def dealer_decisions(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The dealer's hit/stand choices with the hand before each (two cards or more)."""
    return frame(con, DEALER_DECISIONS_SQL)


def point_changes(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Each player's points after each round and the change over the round (null in a
    player's first logged round, whose starting points the logs do not show)."""
    return frame(
        con,
        """
        SELECT log_id, round, player, points,
               points - lag(points) OVER (PARTITION BY log_id, player ORDER BY round) AS change
        FROM twentyone_scores ORDER BY log_id, round, player
        """,
    )


# --- decisions -----------------------------------------------------------------------------

DECISIONS_SQL = f"""
WITH t AS (
    SELECT log_id, line, round, player, hand_id, action, bid, upcard,
           CASE WHEN action = 'Hit' THEN hand[2:] ELSE hand END AS before,
           lag(action) OVER w AS previous, lag(action, 2) OVER w AS previous2
    FROM twentyone_turns WHERE player <> 'dealer' AND action <> 'Bid'
    WINDOW w AS (PARTITION BY log_id, round, player, hand_id ORDER BY line)
),
r AS (
    SELECT log_id, round, player, min(line) AS first_line,
           min(line) FILTER (WHERE action = 'Split') AS split_line,
           min(line) FILTER (WHERE action = 'Insurance') AS insured_line
    FROM t GROUP BY ALL
)
SELECT t.log_id, t.round, t.player, t.hand_id, t.line, {value_sql("t.upcard")} AS up,
       t.action, CASE WHEN t.action = 'DoubleDown' THEN t.bid // 2 ELSE t.bid END AS bid,
       CAST(len(t.before) AS INTEGER) AS n_cards,
       CAST(hand_hard_total(t.before) AS INTEGER) AS hard_total,
       CAST(hand_total(t.before) AS INTEGER) AS total, hand_soft(t.before) AS soft,
       CASE WHEN len(t.before) = 2 AND substr(t.before[1], 2) = substr(t.before[2], 2)
            THEN {rank_sql("t.before[1]")} ELSE 0 END AS pair,
       t.hand_id > 0 OR coalesce(t.line > r.split_line, false) AS split_hand,
       coalesce(t.line > r.insured_line, false) AS insured,
       t.line = r.first_line AS first,
       coalesce(t.previous = 'DoubleDown' OR (t.previous = 'Hit' AND t.previous2 = 'DoubleDown'),
                false) AS forced
FROM t JOIN r USING (log_id, round, player)
"""


def decisions(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """One row per decision with the state before it (not joined with results yet)."""
    return frame(con, DECISIONS_SQL + " ORDER BY log_id, line")


# --- settlement by the reference rules ------------------------------------------------------


def settle(
    hand_frame: pl.DataFrame, dealer_frame: pl.DataFrame, rules: TwentyOneRules
) -> pl.DataFrame:
    """`hand_frame` with what each hand gets back under `rules` (the engine's own
    `classify`, `classify_dealer`, `settle` and `insurance_pays`), its net per unit of
    first bid, and the insurance's net."""
    dealer = dealer_frame.select(
        "log_id",
        "round",
        pl.col("n_cards").alias("d_cards"),
        pl.col("total").alias("d_total"),
        "played",
    )
    joined = hand_frame.join(dealer, on=["log_id", "round"], how="left")
    columns = ["n_cards", "total", "split", "d_cards", "d_total", "played"]
    keys = joined.select(columns).unique()
    classes = [
        (
            classify(n, total, rules, bool(split)),
            classify_dealer(d_n, d_total, rules) if played else -1,
        )
        for n, total, split, d_n, d_total, played in keys.iter_rows()
    ]
    lookup = keys.with_columns(
        pl.Series("p_class", [c[0] for c in classes], dtype=pl.Int64),
        pl.Series("d_class", [c[1] for c in classes], dtype=pl.Int64),
    )
    joined = joined.join(lookup, on=columns, how="left")
    triples = joined.select("final_bid", "p_class", "d_class").unique()
    paid = triples.with_columns(
        pl.Series(
            "payback",
            [settle_hand(b, p, d, rules) for b, p, d in triples.iter_rows()],
            dtype=pl.Int64,
        )
    )
    joined = joined.join(paid, on=["final_bid", "p_class", "d_class"], how="left")
    back = [
        rules.insurance_return(bid) if bid and insurance_pays(bool(played), d, p, rules) else 0
        for bid, played, d, p in joined.select(
            "insured_bid", "played", "d_class", "p_class"
        ).iter_rows()
    ]
    return joined.with_columns(
        pl.Series("insurance_back", back, dtype=pl.Int64),
    ).with_columns(
        ((pl.col("payback") - pl.col("final_bid")) / pl.col("first_bid")).alias("net_per_bid"),
        (pl.col("insurance_back") - pl.col("insured_bid") // 2).alias("insurance_net"),
    )


def settlement_check(
    settled: pl.DataFrame, changes: pl.DataFrame, starting_points: int | None
) -> pl.DataFrame:
    """Per player-round: the settled change of points against the score file's. Rounds
    without a previous score use `starting_points` (None: they are left out)."""
    by_round = settled.group_by("log_id", "round", "player").agg(
        (
            pl.col("payback").sum()
            + pl.col("insurance_back").sum()
            - pl.col("final_bid").sum()
            - (pl.col("insured_bid") // 2).sum()
        ).alias("settled_change")
    )
    first = changes.group_by("log_id", "player").agg(pl.col("round").min().alias("first_round"))
    logged = changes.join(first, on=["log_id", "player"]).with_columns(
        pl.when(pl.col("change").is_null() & (pl.col("round") == pl.col("first_round")))
        .then(pl.col("points") - starting_points if starting_points is not None else None)
        .otherwise(pl.col("change"))
        .alias("logged_change")
    )
    return (
        logged.join(by_round, on=["log_id", "round", "player"], how="left")
        .with_columns(pl.col("settled_change").fill_null(0))
        .filter(pl.col("logged_change").is_not_null())
        .with_columns((pl.col("settled_change") == pl.col("logged_change")).alias("matches"))
    )


def check_summary(check: pl.DataFrame) -> pl.DataFrame:
    return check.select(
        pl.len().alias("player_rounds"),
        pl.col("matches").sum().alias("matched"),
        (~pl.col("matches")).sum().alias("mismatched"),
        pl.col("matches").mean().alias("match_rate"),
    )


def decisions_with_results(decision_frame: pl.DataFrame, settled: pl.DataFrame) -> pl.DataFrame:
    results = settled.select(
        "log_id", "round", "player", "hand_id", "net_per_bid", "p_class", "d_class"
    )
    return decision_frame.join(results, on=["log_id", "round", "player", "hand_id"], how="left")


def situations(decided: pl.DataFrame) -> pl.DataFrame:
    """Per (up card, total, soft, pair, cards, action): how often the action was taken
    there (`n`), out of how many decisions in that situation (`opportunities`), and the
    mean result per unit of bid of the hands that took it (forced moves left out)."""
    free = decided.filter(~pl.col("forced") & ~pl.col("split_hand") & ~pl.col("insured"))
    keys = ["up", "total", "soft", "pair", "n_cards"]
    opportunities = free.group_by(keys).agg(pl.len().alias("opportunities"))
    return (
        free.group_by([*keys, "action"])
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


# --- the shoe ------------------------------------------------------------------------------

CARDS_SQL = f"""
WITH bids AS (
    SELECT log_id, round, player,
           rank() OVER (PARTITION BY log_id, round ORDER BY line) AS seat_rank
    FROM twentyone_turns WHERE action = 'Bid'
),
player_hands AS (
    SELECT log_id, round, player, hand_id, arg_max(hand, line) AS cards
    FROM twentyone_turns WHERE player <> 'dealer' AND action <> 'Bid'
    GROUP BY ALL
),
player_cards AS (
    SELECT h.log_id, h.round, b.seat_rank, h.hand_id, unnest(h.cards) AS card,
           len(h.cards) - generate_subscripts(h.cards, 1) AS age
    FROM player_hands h JOIN bids b USING (log_id, round, player)
),
dealer_cards AS (
    SELECT log_id, round, unnest(cards) AS card, n_cards - generate_subscripts(cards, 1) AS age,
           played
    FROM twentyone_dealer_hands
),
cards AS (  -- k orders the cards of a phase: the first two as dealt, then draws oldest first
    SELECT log_id, round, CASE WHEN hand_id = 0 AND age < 2 THEN 0 ELSE 1 END AS phase,
           seat_rank, hand_id, CASE WHEN hand_id = 0 AND age < 2 THEN 1 - age ELSE age END AS k,
           card
    FROM player_cards
    UNION ALL
    SELECT log_id, round, CASE WHEN age < 2 THEN 0 ELSE 2 END,
           CASE WHEN age < 2 THEN -1 ELSE 1000000 END, 0,
           CASE WHEN NOT played THEN 0 WHEN age < 2 THEN 1 - age ELSE age END, card
    FROM dealer_cards
    UNION ALL  -- the hole card of a dealer that did not play: dealt, never seen
    SELECT log_id, round, 0, -1, 0, 1, NULL FROM twentyone_dealer_hands WHERE NOT played
)
SELECT log_id, round, card,
       CASE WHEN card IS NULL THEN NULL ELSE {value_sql("card")} END AS value,
       row_number() OVER (PARTITION BY log_id ORDER BY round, phase, seat_rank, hand_id, k) - 1
           AS pos
FROM cards
"""


def cards(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every card dealt, by game (`log_id`) and position in deal order (`pos`)."""
    return frame(con, CARDS_SQL + " ORDER BY log_id, pos")


def deck_violations(card_frame: pl.DataFrame, decks: int) -> float:
    """Share of cards that would be one too many in their shoe if the shoe had `decks`
    decks: a card seen more often than `decks` times between two reshuffles."""
    size = 52 * decks
    counted = (
        card_frame.filter(pl.col("card").is_not_null())
        .with_columns((pl.col("pos") // size).alias("shoe"))
        .group_by("log_id", "shoe", "card")
        .agg(pl.len().alias("copies"))
    )
    extra = counted.select(
        (pl.col("copies").cast(pl.Int64) - decks).clip(lower_bound=0).sum()
    ).item()
    seen = card_frame.filter(pl.col("card").is_not_null()).height
    return extra / max(seen, 1)


def infer_decks(card_frame: pl.DataFrame, limit: int = 8, tolerance: float = 0.01) -> dict:
    """The smallest number of decks whose shoes explain the cards (a few cards out of place
    at mid-round reshuffles are tolerated), with the evidence for each candidate."""
    evidence = {}
    for decks in range(1, limit + 1):
        evidence[decks] = deck_violations(card_frame, decks)
        if evidence[decks] <= tolerance:
            return {"decks": decks, "violations": evidence, "tolerance": tolerance}
    best = min(evidence, key=evidence.__getitem__)
    return {"decks": best, "violations": evidence, "tolerance": tolerance, "uncertain": True}


def shoe(card_frame: pl.DataFrame, decks: int) -> pl.DataFrame:
    """The shoe before each round: cards dealt since the last reshuffle, cards left, the
    cards left of each value (`left_1` … `left_10`, an unseen hole card counted as left),
    the Hi-Lo running count of the cards seen and the true count (per deck left)."""
    size = 52 * decks
    one_hot = [
        (pl.col("value") == v).fill_null(False).cast(pl.Int32).alias(f"seen_{v}") for v in VALUES
    ]
    with_shoe = card_frame.with_columns((pl.col("pos") // size).alias("shoe"), *one_hot)
    seen = with_shoe.with_columns(
        [pl.col(f"seen_{v}").cum_sum().over("log_id", "shoe") for v in VALUES]
    ).select("log_id", (pl.col("pos") + 1).alias("next_pos"), *[f"seen_{v}" for v in VALUES])
    starts = card_frame.group_by("log_id", "round").agg(pl.col("pos").min().alias("start"))
    rounds = starts.with_columns(
        (pl.col("start") % size).alias("dealt"),
    ).join(seen, left_on=["log_id", "start"], right_on=["log_id", "next_pos"], how="left")
    full = [4 * decks] * 9 + [16 * decks]
    fresh = pl.col("dealt") == 0
    lefts = [
        (full[v - 1] - pl.when(fresh).then(0).otherwise(pl.col(f"seen_{v}").fill_null(0))).alias(
            f"left_{v}"
        )
        for v in VALUES
    ]
    out = rounds.with_columns(lefts).with_columns(
        (size - pl.col("dealt")).alias("cards_left"),
        pl.sum_horizontal([(full[v - 1] - pl.col(f"left_{v}")) * HI_LO[v] for v in VALUES]).alias(
            "running_count"
        ),
    )
    return (
        out.with_columns(
            (pl.col("running_count") / (pl.col("cards_left") / 52)).alias("true_count"),
        )
        .select(
            "log_id",
            "round",
            "dealt",
            "cards_left",
            *[f"left_{v}" for v in VALUES],
            "running_count",
            "true_count",
        )
        .sort("log_id", "round")
    )


def count_results(shoe_frame: pl.DataFrame, settled: pl.DataFrame) -> pl.DataFrame:
    """Hands' results per unit of first bid by true count (rounded, clipped to ±10) before
    their round: the value of the cards still in the shoe, as the logged players played."""
    per_hand = settled.group_by("log_id", "round", "player").agg(
        (
            pl.col("net_per_bid").sum()
            + pl.col("insurance_net").sum() / pl.col("first_bid").first()
        ).alias("net_per_bid"),
        pl.col("first_bid").first(),
    )
    joined = per_hand.join(
        shoe_frame.select("log_id", "round", "true_count"), on=["log_id", "round"]
    )
    return (
        joined.with_columns(pl.col("true_count").round(0).clip(-10, 10).cast(pl.Int64).alias("tc"))
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


# --- every statistic, as `mine stats twentyone` stores them ---------------------------------


def logged_decks(card_frame: pl.DataFrame) -> dict:
    """`infer_decks` over the first games' cards (enough to tell, quick on a large warehouse)."""
    return infer_decks(card_frame.filter(pl.col("log_id") <= card_frame["log_id"].min() + 40))


def compute(con: duckdb.DuckDBPyConnection, rules: TwentyOneRules) -> dict[str, tuple]:
    """Every statistic by name, with its description: (frame, description)."""
    hand_frame = hands(con)
    dealer_frame = dealers(con)
    settled = settle(hand_frame, dealer_frame, rules)
    check = settlement_check(settled, point_changes(con), rules.starting_points)
    decided = decisions_with_results(decisions(con), settled)
    card_frame = cards(con)
    decks = logged_decks(card_frame)
    shoe_frame = shoe(card_frame, decks["decks"])
    return {
        "decisions": (
            decided.drop("p_class", "d_class"),
            "TwentyOne: one row per decision with the state before it and the hand's settled "
            "result per unit of first bid (net_per_bid)",
        ),
        "situations": (
            situations(decided),
            "TwentyOne: per (up, total, soft, pair, n_cards, action) n of opportunities and "
            "the mean result per unit of bid (free decisions of unsplit, uninsured hands)",
        ),
        "dealer": (
            dealer_outcomes(dealer_frame),
            "TwentyOne: the dealer's final hands by up card: n of opportunities (rounds played)",
        ),
        "shoe": (
            shoe_frame.with_columns(pl.lit(decks["decks"]).alias("decks")),
            "TwentyOne: the shoe before each round: cards left by value, running and true count",
        ),
        "count_results": (
            count_results(shoe_frame, settled),
            "TwentyOne: player-round results per unit of bid by true count before the round",
        ),
        "settlement": (
            check_summary(check).with_columns(
                pl.lit(json.dumps(dataclasses.asdict(rules))).alias("rules")
            ),
            "TwentyOne: player-rounds whose change of points the rules' settlement of the "
            "final hands reproduces",
        ),
    }


def stored(con: duckdb.DuckDBPyConnection, name: str) -> pl.DataFrame | None:
    """A statistic `mine stats twentyone` stored, if it has been."""
    found = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [f"stats_{GAME}_{name}"]
    ).fetchall()[0][0]
    return frame(con, f"SELECT * FROM stats_{GAME}_{name}") if found else None


def store_all(con: duckdb.DuckDBPyConnection, tables: dict[str, tuple]) -> list[str]:
    return [store(con, GAME, name, table, about) for name, (table, about) in tables.items()]


def store_players(con: duckdb.DuckDBPyConnection, tables: dict[str, tuple]) -> list[str]:
    """Store `by_player`'s tables; without deviations, drop those of an earlier run."""
    if "player_deviations" not in tables:
        drop(con, GAME, "player_deviations")
    return store_all(con, tables)


def dealer_grid(dealer_frame: pl.DataFrame) -> list[dict]:
    """`dealer_outcomes` as one row per up card (2..10, then A): each outcome's rate and
    the rounds played."""
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


UP_ORDER = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)


def up_name(up: int) -> str:
    return "A" if up == 1 else str(up)


def fit_data(con: duckdb.DuckDBPyConnection) -> FitData:
    """What the fitter needs, derived from the warehouse (no rules involved)."""
    card_frame = cards(con)
    decks = logged_decks(card_frame)
    fingerprint, logs = data_fingerprint(con, GAME)
    return FitData(
        hands=hands(con),
        dealers=dealers(con),
        dealer_decisions=dealer_decisions(con),
        decisions=decisions(con),
        changes=point_changes(con),
        bids=frame(
            con, "SELECT log_id, round, player, bid FROM twentyone_turns WHERE action = 'Bid'"
        ),
        cards=card_frame,
        shoe=shoe(card_frame, decks["decks"]),
        decks=decks,
        fingerprint=fingerprint,
        logs=logs,
    )


# --- per player: habits with their opportunities, and deviations from a fitted chart -------

CONTEXTS = ("main", "insured", "split")
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
    decided: pl.DataFrame, bids: pl.DataFrame, settled: pl.DataFrame, rules: TwentyOneRules
) -> pl.DataFrame:
    """One row per player id: rounds, hands and decisions; hits on hard 16, doubles,
    splits and insurance, each with its opportunities; bids (count, sum, at the minimum
    and the maximum); the net points its hands were settled to."""
    per_bid = bids.group_by(PLAYER_KEYS).agg(
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
    keys = (
        offered.select("total", "soft", "pair_value").unique().sort("total", "soft", "pair_value")
    )
    rows = []
    for total, soft, pair in keys.iter_rows():
        insured, plain = values.insurance(total, int(soft), pair)
        take = bool(values.chart.insure[total, int(soft), int(pair > 0)])
        rows.append((total, soft, pair, "Insurance" if take else NO_INSURANCE, insured, plain))
    schema = dict(zip(["total", "soft", "pair_value"], keys.dtypes, strict=True))
    schema |= {"chart_action": pl.String, "ev_insured": pl.Float64, "ev_plain": pl.Float64}
    table = pl.DataFrame(rows, schema=schema, orient="row")

    def ev(action: str) -> pl.Expr:
        return pl.when(pl.col(action) == "Insurance").then("ev_insured").otherwise("ev_plain")

    return (
        offered.with_columns(
            pl.when(pl.col("action") == "Insurance")
            .then(pl.lit("Insurance"))
            .otherwise(pl.lit(NO_INSURANCE))
            .alias("action"),
            pl.lit(0, dtype=pl.Int32).alias("context"),
        )
        .join(table, on=["total", "soft", "pair_value"], how="left")
        .with_columns((ev("action") - ev("chart_action")).alias("ev_diff"))
        .select("player", pl.lit("insurance").alias("decision"), *SITUATION, "bid", "action",
                "chart_action", "ev_diff")
    )  # fmt: skip


def player_deviations(decided: pl.DataFrame, values: ChartValues) -> pl.DataFrame:
    """The long table: per player, kind of decision, situation, logged and chart action:
    how many decisions (`n`), how many of them could be valued (`measured`), and the sum
    of what the logged action is worth minus the chart's, per unit of bid
    (`ev_diff_sum`) and in points at the logged bids (`ev_diff_points`)."""
    rows = pl.concat(
        [
            hand_deviations(decided, values),
            insurance_deviations(decided, values).with_columns(
                pl.col("context").cast(decided["context"].dtype)
            ),
        ]
    )
    keys = ["player", "decision", *SITUATION, "action", "chart_action"]
    return (
        rows.group_by(keys)
        .agg(
            pl.len().alias("n"),
            pl.col("ev_diff").is_not_null().sum().alias("measured"),
            pl.col("ev_diff").sum().alias("ev_diff_sum"),
            (pl.col("ev_diff") * pl.col("bid")).sum().alias("ev_diff_points"),
        )
        .with_columns(
            (pl.col("action") != pl.col("chart_action")).alias("deviation"),
            pl.col("context").replace_strict(range(3), CONTEXTS, return_dtype=pl.String),
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


def by_player(
    con: duckdb.DuckDBPyConnection, rules: TwentyOneRules, chart=None
) -> dict[str, tuple]:
    """`players`, `player_ups` and, given a chart, `player_deviations`: (frame, description)."""
    settled = settle(hands(con), dealers(con), rules)
    decided = free_decisions(decisions(con))
    bids = frame(con, "SELECT log_id, round, player, bid FROM twentyone_turns WHERE action = 'Bid'")
    players = player_habits(decided, bids, settled, rules)
    out = {}
    if chart is not None:
        deviations = player_deviations(decided, ChartValues(rules, chart))
        players = players.join(deviation_summary(deviations), on="player", how="left")
        out["player_deviations"] = (
            deviations,
            "TwentyOne: per player, decision (hand or insurance), situation, logged and chart "
            "action: n decisions, measured, and the logged action's value minus the chart's "
            "(ev_diff_sum per unit of bid, ev_diff_points at the logged bids; exact, infinite "
            "deck, the chart playing on)",
        )
    out["players"] = (
        players.sort("player"),
        "TwentyOne: per player id: hits on hard 16, doubles, splits, insurance, each with its "
        "opportunities; bids; settled net points"
        + ("; deviations from the chart" if chart is not None else ""),
    )
    out["player_ups"] = (
        player_ups(decided),
        "TwentyOne: per player id and up card: hits on hard 16, doubles, splits, insurance, "
        "each with its opportunities",
    )
    return out


def situation_name(row: dict) -> str:
    """`hard 16, 3 cards, up 10` (with the pair and the context where they matter)."""
    hand = f"pair of {up_name(row['pair_value'])}s" if row["pair_value"] else (
        f"{'soft' if row['soft'] else 'hard'} {row['total']}"
    )  # fmt: skip
    where = "" if row["context"] == "main" else f", {row['context']} hand"
    return f"{hand}, {row['n_cards']} cards, up {up_name(row['up'])}{where}"


def hit16_grid(ups: pl.DataFrame) -> list[dict]:
    """Hits on hard 16 by up card (2..10, A) as one row per player: `n/opportunities`."""
    rows = []
    for (player,), cells in ups.group_by("player", maintain_order=True):
        by_up = {r["up"]: r for r in cells.iter_rows(named=True)}
        row = {"player": player}
        for up in UP_ORDER:
            cell = by_up.get(up)
            opportunities = cell["n_16_opportunities"] if cell else 0
            row[up_name(up)] = f"{cell['n_hit_16']}/{opportunities}" if opportunities else "-"
        rows.append(row)
    return rows

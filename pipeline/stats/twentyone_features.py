"""TwentyOne's features, read from the warehouse: hands, dealers, decisions, the shoe.

Every frame here is derived from `twentyone_turns`, `twentyone_scores` and
`twentyone_dealer_hands` (SQL does the list work, polars the aggregation), of the chosen
logs (`log_ids`; every TwentyOne log when None). A decision's state is the one *before*
it (the hand before a Hit is the logged hand without its newest card), with its context
(split hand, insured, forced after a DoubleDown). `settle` settles the final hands by the
reference rules, checked against the score files' running totals (`settlement_check`).

`cards` puts every card dealt in (almost) deal order: the dealer's two cards, the initial
deal seat by seat, then each seat's draws, then the dealer's (the course engine's order:
its reshuffles fall where this order puts them); within a split the order is
approximate. A dealer that did not play leaves its hole card unseen: a card with no
value. `infer_decks` finds the smallest number of decks for which no card turns up more
often in a shoe than the shoe holds it (a fresh shoe follows every `52 × decks` cards).
"""

from __future__ import annotations

import duckdb
import polars as pl

from mine.pipeline.stats import frame, logs_filter
from mine.strategies.engines.twentyone import TwentyOneRules, classify, insurance_pays
from mine.strategies.engines.twentyone import settle as settle_hand

VALUES = tuple(range(1, 11))
HI_LO = {1: -1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 0, 8: 0, 9: 0, 10: -1}
LogIds = list[int] | None

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
    SELECT * FROM {{turns}} WHERE player <> 'dealer'
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
FROM {{dealer_hands}}
"""

DEALER_DECISIONS_SQL = """
SELECT log_id, round, CAST(len(before) AS INTEGER) AS n_cards,
       CAST(hand_total(before) AS INTEGER) AS total,
       hand_soft(before) AS soft, action = 'Hit' AS hit
FROM (
    SELECT *, CASE WHEN action = 'Hit' THEN hand[2:] ELSE hand END AS before
    FROM {turns} WHERE player = 'dealer'
) WHERE len(before) >= 2
"""


def chosen(log_ids: LogIds) -> dict[str, str]:
    """The tables the queries read (`{turns}`, `{scores}`, `{dealer_hands}`), narrowed to
    the logs `log_ids` (ids are ints, checked here; None: every log)."""
    names = {name: f"twentyone_{name}" for name in ("turns", "scores", "dealer_hands")}
    if log_ids is None:
        return names
    where = logs_filter(log_ids)
    return {name: f"(SELECT * FROM {table} WHERE {where})" for name, table in names.items()}


def read(
    con: duckdb.DuckDBPyConnection, sql: str, log_ids: LogIds, order: str = ""
) -> pl.DataFrame:
    """A query over the chosen logs' tables as a frame."""
    return frame(con, sql.format(**chosen(log_ids)) + order)


def hands(con: duckdb.DuckDBPyConnection, log_ids: LogIds = None) -> pl.DataFrame:
    """One row per player hand: final cards, total, soft, bids, split / doubled / insured."""
    return read(con, HANDS_SQL, log_ids, " ORDER BY log_id, round, seat_rank, hand_id")


def dealers(con: duckdb.DuckDBPyConnection, log_ids: LogIds = None) -> pl.DataFrame:
    """One row per round: the dealer's up card value (1..10) and final hand."""
    return read(con, DEALERS_SQL, log_ids, " ORDER BY log_id, round")


def dealer_decisions(con: duckdb.DuckDBPyConnection, log_ids: LogIds = None) -> pl.DataFrame:
    """The dealer's hit/stand choices with the hand before each (two cards or more)."""
    return read(con, DEALER_DECISIONS_SQL, log_ids)


def point_changes(con: duckdb.DuckDBPyConnection, log_ids: LogIds = None) -> pl.DataFrame:
    """Each player's points after each round and the change over the round (null in a
    player's first logged round, whose starting points the logs do not show)."""
    return read(
        con,
        """
        SELECT log_id, round, player, points,
               points - lag(points) OVER (PARTITION BY log_id, player ORDER BY round) AS change
        FROM {scores} ORDER BY log_id, round, player
        """,
        log_ids,
    )


def bids(con: duckdb.DuckDBPyConnection, log_ids: LogIds = None) -> pl.DataFrame:
    """Every bid: log, round, player, the amount."""
    return read(con, "SELECT log_id, round, player, bid FROM {turns} WHERE action = 'Bid'", log_ids)


# --- decisions -----------------------------------------------------------------------------

DECISIONS_SQL = f"""
WITH t AS (
    SELECT log_id, line, round, player, hand_id, action, bid, upcard,
           CASE WHEN action = 'Hit' THEN hand[2:] ELSE hand END AS before,
           lag(action) OVER w AS previous, lag(action, 2) OVER w AS previous2
    FROM {{turns}} WHERE player <> 'dealer' AND action <> 'Bid'
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


def decisions(con: duckdb.DuckDBPyConnection, log_ids: LogIds = None) -> pl.DataFrame:
    """One row per decision with the state before it (not joined with results yet)."""
    return read(con, DECISIONS_SQL, log_ids, " ORDER BY log_id, line")


# --- settlement by the reference rules ------------------------------------------------------


def settle(
    hand_frame: pl.DataFrame, dealer_frame: pl.DataFrame, rules: TwentyOneRules
) -> pl.DataFrame:
    """`hand_frame` with what each hand gets back under `rules` (the engine's own
    `classify`, `settle` and `insurance_pays`), its net per unit of
    first bid, and the insurance's net."""
    dealer = dealer_frame.select(
        "log_id", "round", d_cards=pl.col("n_cards"), d_total=pl.col("total"), played="played"
    )
    joined = hand_frame.join(dealer, on=["log_id", "round"], how="left")
    columns = ["n_cards", "total", "split", "d_cards", "d_total", "played"]
    keys = joined.select(columns).unique()
    rows = list(keys.iter_rows())
    p_class = [classify(n, total, rules, bool(split)) for n, total, split, *_ in rows]
    d_class = [classify(n, t, rules, dealer=True) if on else -1 for *_, n, t, on in rows]
    lookup = keys.with_columns(
        pl.Series("p_class", p_class, dtype=pl.Int64), pl.Series("d_class", d_class, dtype=pl.Int64)
    )
    joined = joined.join(lookup, on=columns, how="left")
    triples = joined.select("final_bid", "p_class", "d_class").unique()
    payback = [settle_hand(b, p, d, rules) for b, p, d in triples.iter_rows()]
    paid = triples.with_columns(pl.Series("payback", payback, dtype=pl.Int64))
    joined = joined.join(paid, on=["final_bid", "p_class", "d_class"], how="left")
    insured = joined.select("insured_bid", "played", "d_class", "p_class").iter_rows()
    back = [
        rules.insurance_return(bid) if bid and insurance_pays(bool(played), d, p, rules) else 0
        for bid, played, d, p in insured
    ]
    return joined.with_columns(pl.Series("insurance_back", back, dtype=pl.Int64)).with_columns(
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


# --- the shoe ------------------------------------------------------------------------------

CARDS_SQL = f"""
WITH bids AS (
    SELECT log_id, round, player,
           rank() OVER (PARTITION BY log_id, round ORDER BY line) AS seat_rank
    FROM {{turns}} WHERE action = 'Bid'
),
player_hands AS (
    SELECT log_id, round, player, hand_id, arg_max(hand, line) AS cards
    FROM {{turns}} WHERE player <> 'dealer' AND action <> 'Bid'
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
    FROM {{dealer_hands}}
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
    SELECT log_id, round, 0, -1, 0, 1, NULL FROM {{dealer_hands}} WHERE NOT played
)
SELECT log_id, round, card,
       CASE WHEN card IS NULL THEN NULL ELSE {value_sql("card")} END AS value,
       row_number() OVER (PARTITION BY log_id ORDER BY round, phase, seat_rank, hand_id, k) - 1
           AS pos
FROM cards
"""


def cards(con: duckdb.DuckDBPyConnection, log_ids: LogIds = None) -> pl.DataFrame:
    """Every card dealt, by game (`log_id`) and position in deal order (`pos`)."""
    return read(con, CARDS_SQL, log_ids, " ORDER BY log_id, pos")


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
    seen_of, left_of = [f"seen_{v}" for v in VALUES], [f"left_{v}" for v in VALUES]
    one_hot = [
        (pl.col("value") == v).fill_null(False).cast(pl.Int32).alias(f"seen_{v}") for v in VALUES
    ]
    with_shoe = card_frame.with_columns((pl.col("pos") // size).alias("shoe"), *one_hot)
    seen = with_shoe.with_columns(pl.col(seen_of).cum_sum().over("log_id", "shoe"))
    seen = seen.select("log_id", (pl.col("pos") + 1).alias("next_pos"), *seen_of)
    starts = card_frame.group_by("log_id", "round").agg(pl.col("pos").min().alias("start"))
    rounds = starts.with_columns((pl.col("start") % size).alias("dealt")).join(
        seen, left_on=["log_id", "start"], right_on=["log_id", "next_pos"], how="left"
    )
    full = [4 * decks] * 9 + [16 * decks]
    fresh = pl.col("dealt") == 0
    lefts = [
        (full[v - 1] - pl.when(fresh).then(0).otherwise(pl.col(dealt).fill_null(0))).alias(left)
        for v, dealt, left in zip(VALUES, seen_of, left_of, strict=True)
    ]
    hi_lo = [(full[v - 1] - pl.col(f"left_{v}")) * HI_LO[v] for v in VALUES]
    out = rounds.with_columns(lefts).with_columns(
        (size - pl.col("dealt")).alias("cards_left"),
        pl.sum_horizontal(hi_lo).alias("running_count"),
    )
    true_count = (pl.col("running_count") / (pl.col("cards_left") / 52)).alias("true_count")
    columns = ["log_id", "round", "dealt", "cards_left", *left_of, "running_count", "true_count"]
    return out.with_columns(true_count).select(columns).sort("log_id", "round")

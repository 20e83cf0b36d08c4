"""TwentyOne: learn the game from logs, then solve for an action table and a bid table.

Nothing about the rules is given (no `TwentyOneRules` here): only the shape of the game (a
hand is cards with a total, aces count 11 while they can; the dealer draws to a final
hand; a hand is settled against the dealer's). What the logs show is learned:

- the cards: value frequencies of every card seen, and the number of decks
  (`pipeline.stats.twentyone.infer_decks`: no card turns up more often between reshuffles than
  the shoe holds it);
- the dealer's rule: hit or stand by (total, soft, number of cards), from every dealer row
  (the hand before each Hit, the final hand at Stand). Counts decide the cells the logs
  show; a decision tree (scikit-learn) over (total, soft, cards) fills the cells they do
  not (a dealer that reaches 5 cards only under a 6-card Charlie, say). This captures
  hitting or standing on soft 17 and the dealer's card limit without being told;
- the payoffs: what a hand gets back per unit of its bid against each dealer hand, from
  the score files' point changes (a player-round with one hand and no insurance shows it
  exactly). Seen (player hand, dealer hand) cells keep their mean; unseen cells come from
  a decision tree over what tells hands apart (totals, card counts, two-card 21s, the
  difference of totals). This captures Charlie's card count, a 5-card bust, Combo's
  payout. Split hands settle like unsplit ones (the logs show the leftover of split
  rounds is zero) except a two-card 21, learned from split rounds whose other hand bust;
- insurance: its net per unit of bid, dealer two-card 21 or not, hand bust or not, and
  when the dealer does not play (every hand at the table bust);
- where a hand stops: the card count at which hands end after a Hit without a Stand;
- which actions exist where: DoubleDown on a two-card 21, after a Split; Insurance.

The decision problem is then solved by expectimax over hand states with those learned
distributions (infinite deck with the learned card frequencies; the dealer's final hand
per up card follows from its learned rule), for one player alone at the table, as the
reference solver (`strategies.solvers.twentyone`) does: Stand / Hit / DoubleDown / Split
(re-splits unlimited: a half's value is the fixed point `R = A + q · max(B, 2R)`) /
Insurance in three contexts (main hand, insured main hand, split hand), by number of cards.

The count: the logs show the shoe before every round. Rounds are grouped by their Hi-Lo
true count (thin counts join the next count towards zero); each group's mean shoe (mixed
with a fresh shoe by the share of the round's cards it could deal) is solved again, which
gives the chart to play at that count (composition-dependent play) and its value, and the
bid: the maximum where that value is positive, the minimum elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from mine.models import FitError, tables
from mine.strategies.engines.twentyone import DOUBLE, HIT, STAND
from mine.strategies.engines.twentyone_chart import (
    INSURED,
    MAIN,
    SPLIT_HAND,
    VALUES,
    Bids,
    Chart,
    CountCharts,
    Strategy,
    outside_the_rules,
)
from mine.strategies.solvers.twentyone import Game, Solution, solve_game

GAME = "twentyone"
KIND = "strategy"
METHOD = "learned-model expectimax"
MAX_CARDS = 10  # hands longer than this are treated as this long (they are very rare)
TOTALS = 32  # totals 0..31 (a hand stops at 22 or more)


def n_span(n: int) -> int:
    return min(n, MAX_CARDS) - 2


N_SPAN = MAX_CARDS - 1  # card counts 2..MAX_CARDS


def p_index(total: int, n: int, split: int) -> int:
    return (split * TOTALS + min(total, TOTALS - 1)) * N_SPAN + n_span(n)


def d_index(total: int, n: int) -> int:
    return min(total, TOTALS - 1) * N_SPAN + n_span(n)


P_CELLS = 2 * TOTALS * N_SPAN
D_CELLS = TOTALS * N_SPAN


# --- what the logs teach ---------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class GameModel:
    """The game as learned from the logs."""

    probs: np.ndarray  # (10,) chance of each card value 1..10
    decks: int
    dealer_hits: np.ndarray  # (TOTALS, 2, MAX_CARDS + 1) bool
    payoff: np.ndarray  # (P_CELLS, D_CELLS) paid back per unit of bid
    stop: int  # a player's hand ends at this many cards (MAX_CARDS: no limit seen)
    insurance: dict[str, float]  # net per unit of bid: win / lose, hand alive or bust
    actions: dict[str, bool]  # which actions the logs show where
    min_bid: int
    max_bid: int
    evidence: dict[str, Any] = field(default_factory=dict)


def learn_dealer(decisions: pl.DataFrame) -> tuple[np.ndarray, dict]:
    """Hit or stand by (total, soft, cards): observed majority where seen, a tree elsewhere."""
    if decisions.height == 0:
        raise FitError("no dealer rows: cannot learn the dealer's rule")
    cells = (
        decisions.with_columns(pl.col("n_cards").clip(2, MAX_CARDS), pl.col("total").clip(0, 31))
        .group_by("total", "soft", "n_cards")
        .agg(pl.len().alias("n"), pl.col("hit").cast(pl.Int64).sum().alias("hits"))
        .sort("total", "soft", "n_cards")  # the tree's samples in one order: the same tree
    )
    x = cells.select("total", pl.col("soft").cast(pl.Int64), "n_cards").to_numpy()
    n = cells["n"].to_numpy()
    hit = cells["hits"].to_numpy() * 2 > n
    from sklearn.tree import DecisionTreeClassifier  # imported here: slow, and fitting only

    tree = DecisionTreeClassifier(random_state=0).fit(x, hit, sample_weight=n)
    grid = np.array(list(product(range(TOTALS), (0, 1), range(MAX_CARDS + 1))))
    table = tree.predict(grid).astype(bool).reshape(TOTALS, 2, MAX_CARDS + 1)
    for (t, s, c), h in zip(x.tolist(), hit.tolist(), strict=True):
        table[t, s, c] = h
    table[22:] = False  # a bust hand is over (no logged dealer hits past 21 either)
    mixed = cells.filter((pl.col("hits") > 0) & (pl.col("hits") < pl.col("n"))).height
    short = cells.filter((pl.col("total") < 17) & (pl.col("hits") < pl.col("n")))
    return table, {
        "stands_below_17_at_cards": sorted(set(short["n_cards"].to_list())),
        "cells_seen": int(cells.height),
        "mixed_cells": mixed,
        "rows": int(n.sum()),
    }


def _payoff_features(p_total, p_n, p_split, d_total, d_n) -> np.ndarray:
    p_total, d_total = np.asarray(p_total), np.asarray(d_total)
    p_n, d_n = np.asarray(p_n), np.asarray(d_n)
    p_over, d_over = p_total > 21, d_total > 21
    p_21 = (p_n == 2) & (p_total == 21)
    d_21 = (d_n == 2) & (d_total == 21)
    diff = np.where(p_over, -30, p_total) - np.where(d_over, -30, d_total)
    columns = [p_total, p_n, np.asarray(p_split), p_over, p_21, d_total, d_n, d_over, d_21, diff,
               p_n - d_n]  # fmt: skip
    return np.column_stack(columns).astype(float)


def learn_payoffs(rounds: pl.DataFrame) -> tuple[np.ndarray, dict[str, float], dict]:
    """Payoff per unit of bid by (player hand, dealer hand), and insurance's net.

    `rounds`: one row per player-round with the dealer's final hand (`d_total`, `d_cards`,
    `played`), the points paid back (`paid` = change of points + every stake), and the
    player's hands as lists (`totals`, `cards`, `bids`) plus `insured_bid`.
    """
    # In an order of the rounds' own, not their logs' ids (which follow the order the logs
    # were ingested in): every mean below sums its terms in one order, so the same logs
    # give the same digits.
    rounds = rounds.sort("paid", "bids", "totals", "cards", "d_total", "d_cards", "insured_bid",
                         "hands", "played", nulls_last=True)  # fmt: skip
    played = rounds.filter(pl.col("played") & pl.col("paid").is_not_null())
    single = played.filter((pl.col("hands") == 1) & (pl.col("insured_bid") == 0)).select(
        pl.col("totals").list.first().alias("p_total"),
        pl.col("cards").list.first().clip(2, MAX_CARDS).alias("p_n"),
        pl.col("d_total").clip(0, 31),
        pl.col("d_cards").clip(2, MAX_CARDS).alias("d_n"),
        (pl.col("paid") / pl.col("bids").list.first()).alias("r"),
    )
    if single.height == 0:
        raise FitError("no settled single-hand rounds: cannot learn the payoffs")
    cells = (
        single.with_columns(pl.col("p_total").clip(0, 31))
        .group_by("p_total", "p_n", "d_total", "d_n")
        .agg(pl.len().alias("n"), pl.col("r").mean().alias("r"), pl.col("r").std().alias("sd"))
    )
    payoff = np.full((P_CELLS, D_CELLS), np.nan)
    counts = np.zeros((P_CELLS, D_CELLS))
    for pt, pn, dt, dn, n, r, _ in cells.iter_rows():
        payoff[p_index(pt, pn, 0), d_index(dt, dn)] = r
        counts[p_index(pt, pn, 0), d_index(dt, dn)] = n

    # split hands: assume they settle like unsplit hands and check it on split rounds; a
    # two-card 21 is learned from split rounds whose other hand is bust
    split_rounds = played.filter((pl.col("hands") == 2) & (pl.col("insured_bid") == 0))
    residuals, twenty_ones = [], {}
    for totals, ncards, bids, paid, dt, dn in split_rounds.select(
        "totals", "cards", "bids", "paid", "d_total", "d_cards"
    ).iter_rows():
        d = d_index(min(dt, 31), dn)
        expect = [payoff[p_index(min(t, 31), c, 0), d] for t, c in zip(totals, ncards, strict=True)]
        is21 = [t == 21 and c == 2 for t, c in zip(totals, ncards, strict=True)]
        if sum(is21) == 1:
            other = 1 - is21.index(True)
            if not np.isnan(expect[other]):
                value = (paid - expect[other] * bids[other]) / bids[is21.index(True)]
                twenty_ones.setdefault(d, []).append(value)
        elif not any(is21) and not any(np.isnan(expect)):
            residuals.append(paid - sum(e * b for e, b in zip(expect, bids, strict=True)))

    pi, di = np.nonzero(counts > 0)  # the seen cells
    pt, pn = np.divmod(pi % (TOTALS * N_SPAN), N_SPAN)
    dt, dn = np.divmod(di, N_SPAN)
    seen = _payoff_features(pt, pn + 2, np.zeros_like(pt), dt, dn + 2)
    from sklearn.tree import DecisionTreeRegressor  # imported here: slow, and fitting only

    tree = DecisionTreeRegressor(random_state=0, min_samples_leaf=1)
    tree.fit(seen, payoff[pi, di], sample_weight=counts[pi, di])
    cards = range(2, MAX_CARDS + 1)
    grid = np.array(list(product(range(TOTALS), cards, [0], range(TOTALS), cards)))
    predicted = tree.predict(_payoff_features(*grid.T)).reshape(TOTALS * N_SPAN, D_CELLS)
    unsplit = payoff[: TOTALS * N_SPAN]
    unsplit[np.isnan(unsplit)] = predicted[np.isnan(unsplit)]
    payoff[TOTALS * N_SPAN :] = unsplit
    split21 = {}
    for d, values in twenty_ones.items():
        payoff[p_index(21, 2, 1), d] = float(np.mean(values))
        split21[d] = len(values)
    combo_seen = sum(split21.values())
    if combo_seen:  # dealer hands no split round showed: the nearest seen rule of thumb
        mean_21 = {d: payoff[p_index(21, 2, 1), d] for d in split21}
        like_value = np.mean([mean_21[d] - payoff[p_index(21, 3, 0), d] for d in mean_21])
        for d in range(D_CELLS):
            if d not in split21:
                payoff[p_index(21, 2, 1), d] = payoff[p_index(21, 3, 0), d] + like_value

    insured = played.filter((pl.col("hands") == 1) & (pl.col("insured_bid") > 0))
    outcomes: dict[str, list[float]] = {"win": [], "lose": [], "win_bust": [], "lose_bust": []}
    for totals, ncards, bids, paid, dt, dn, ib in insured.select(
        "totals", "cards", "bids", "paid", "d_total", "d_cards", "insured_bid"
    ).iter_rows():
        t, c = min(totals[0], 31), ncards[0]
        base = payoff[p_index(t, c, 0), d_index(min(dt, 31), dn)]
        net = (paid - base * bids[0]) / ib
        key = ("win" if dn == 2 and dt == 21 else "lose") + ("_bust" if t > 21 else "")
        outcomes[key].append(net)
    # every hand at the table bust: the dealer does not play, and the logs show what the
    # insurance of a hand alone brings then (nothing, the side bet lost, in the engine)
    idle = rounds.filter(
        ~pl.col("played") & pl.col("paid").is_not_null() & (pl.col("insured_bid") > 0)
    )
    outcomes["no_play"] = [paid / ib for paid, ib in idle.select("paid", "insured_bid").iter_rows()]
    insurance = {
        k: float(np.mean(v)) if v else (0.0 if k.startswith("win") else -0.5)
        for k, v in outcomes.items()
    }
    evidence = {
        "payoff_cells_seen": int((counts > 0).sum()),
        "single_hand_rounds": int(single.height),
        "payoff_cell_max_sd": float(cells["sd"].fill_null(0).max()),
        "split_rounds_checked": len(residuals),
        "split_leftover_mean_abs": float(np.mean(np.abs(residuals))) if residuals else None,
        "split_21_rounds": combo_seen,
        "insured_rounds": {k: len(v) for k, v in outcomes.items()},
    }
    return payoff, insurance, evidence


def learn_stop(hand_frame: pl.DataFrame) -> tuple[int, dict]:
    """The card count at which a hand ends by itself: hands whose last row is a Hit that
    neither bust nor followed a DoubleDown."""
    auto = hand_frame.filter(
        (pl.col("last_action") == "Hit") & (pl.col("total") <= 21) & ~pl.col("doubled")
    )
    # the commonest first; of as common ones the fewest cards
    counts = auto.group_by("n_cards").len("n").sort(["n", "n_cards"], descending=[True, False])
    if counts.height == 0:
        return MAX_CARDS, {"auto_stops": 0}
    stop = int(counts["n_cards"][0])
    return min(stop, MAX_CARDS), {
        "auto_stops": dict(zip(counts["n_cards"].to_list(), counts["n"].to_list(), strict=True))
    }


def learn_actions(decisions: pl.DataFrame) -> dict[str, bool]:
    """Which actions the logs show where."""
    action, two21 = pl.col("action"), (pl.col("n_cards") == 2) & (pl.col("total") == 21)
    shown = {
        "double": action == "DoubleDown",
        "double_on_21": (action == "DoubleDown") & two21,
        "hit_on_21": (action == "Hit") & two21 & ~pl.col("forced"),
        "double_after_split": (action == "DoubleDown") & pl.col("split_hand"),
        "split": action == "Split",
        "insurance": action == "Insurance",
    }
    return {name: decisions.filter(rule).height > 0 for name, rule in shown.items()}


# --- the decision problem: solved by the one solver, `strategies.solvers.twentyone` ---------


FLAGS = ("hit_on_21", "double", "double_on_21", "double_after_split", "split")  # the solver's


def game(model: GameModel, probs: np.ndarray | None = None) -> Game:
    """The learned game as the solver reads it (card chances `probs`, else the logs')."""
    hits = model.dealer_hits
    totals = (np.arange(P_CELLS) // N_SPAN) % TOTALS
    return Game(
        model.probs if probs is None else probs,
        model.payoff,
        lambda n, total, split: p_index(total, n, int(split)),
        lambda n, total: d_index(total, n),
        lambda n, total, soft: total <= 21 and n < MAX_CARDS and bool(hits[total, int(soft), n]),
        totals > 21,
        model.stop,
        (model.insurance["win"], model.insurance["lose"], model.insurance["no_play"]),
        insure=model.actions["insurance"],
        **{name: model.actions[name] for name in FLAGS},
    )


def solve(model: GameModel, probs: np.ndarray | None = None, prefer=None, margin=0.0) -> Solution:
    """The best chart under the model and its value per hand per unit of bid; with
    `prefer`, that chart wherever the best is not worth `margin` more. Every cell of the
    chart is the model's choice, unreached hands too (Stand where a hand has stopped)."""
    last = min(model.stop - 1, 5)
    none = (0,) * 10  # an infinite deck: the cards in hand change no chance

    def fill(chart: Chart, solver) -> None:
        up = solver.up
        for ctx in (MAIN, INSURED, SPLIT_HAND):
            for soft in (0, 1):
                for total in range(12 if soft else 4, 22):
                    for n in range(2, 6):
                        chart.hand[ctx, up, total, soft, n - 2] = (
                            solver.best(none, none, total, soft, n, ctx)[1] if n <= last else STAND
                        )
            for x in VALUES if model.actions["split"] else ():
                chart.split[ctx, up, x] = (
                    solver.split_votes[(SPLIT_HAND, x)]
                    if ctx == SPLIT_HAND
                    else solver.first(x, x, True, ctx)[1]
                )

    return solve_game(game(model, probs), prefer=prefer, margin=margin, fill=fill)


# --- fitting ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class FitData:
    """What the fitter reads, as frames the pipeline derives from the warehouse."""

    hands: pl.DataFrame  # pipeline.stats.twentyone.hands
    dealers: pl.DataFrame  # pipeline.stats.twentyone.dealers
    dealer_decisions: pl.DataFrame
    decisions: pl.DataFrame
    changes: pl.DataFrame  # pipeline.stats.twentyone.point_changes
    bids: pl.DataFrame  # log_id, round, player, bid
    cards: pl.DataFrame  # pipeline.stats.twentyone.cards
    shoe: pl.DataFrame  # pipeline.stats.twentyone.shoe (with the inferred decks)
    decks: dict
    fingerprint: str = ""
    logs: int = 0


def player_rounds(data: FitData) -> pl.DataFrame:
    per_round = (
        data.hands.sort("hand_id")
        .group_by("log_id", "round", "player")
        .agg(
            pl.len().alias("hands"),
            totals="total",
            cards="n_cards",
            bids="final_bid",
            stake=pl.col("final_bid").sum(),
            insured_bid=pl.col("insured_bid").max(),
        )
    )
    dealer = data.dealers.select(
        "log_id", "round", d_total="total", d_cards="n_cards", played="played"
    )
    return (
        per_round.join(data.changes, on=["log_id", "round", "player"], how="inner")
        .join(dealer, on=["log_id", "round"], how="inner")
        .with_columns(
            # points back from the table: the change plus every stake on a hand (insurance's
            # side bet is not added back: what insurance gives is learned net of it)
            (pl.col("change") + pl.col("stake")).alias("paid")
        )
    )


def learn(data: FitData) -> GameModel:
    if data.hands.height == 0:
        raise FitError("no TwentyOne hands in the warehouse (run `mine ingest` first)")
    seen = data.cards.filter(pl.col("value").is_not_null())
    counts = np.array([seen.filter(pl.col("value") == v).height for v in VALUES], dtype=float)
    probs = counts / counts.sum()
    hits, dealer_evidence = learn_dealer(data.dealer_decisions)
    payoff, insurance, payoff_evidence = learn_payoffs(player_rounds(data))
    stop, stop_evidence = learn_stop(data.hands)
    actions = learn_actions(data.decisions)
    early = data.bids.filter(pl.col("round") <= 10)
    min_bid = int(early["bid"].min()) if early.height else int(data.bids["bid"].min())
    max_bid = int(data.bids["bid"].max())
    evidence = {
        "cards_seen": int(counts.sum()),
        "decks": data.decks,
        "dealer": dealer_evidence,
        "payoffs": payoff_evidence,
        "stop": stop_evidence,
    }
    decks = int(data.decks["decks"])
    return GameModel(
        probs, decks, hits, payoff, stop, insurance, actions, min_bid, max_bid, evidence
    )


def count_groups(
    model: GameModel, shoe: pl.DataFrame, min_rounds: int = 200, limit: int = 10
) -> list[dict[str, Any]]:
    """The logged rounds grouped by true count (rounded, clipped to ±`limit`), each group
    with its rounds and the chance of each card value in its mean shoe.

    The cards of a round come from the shoe as it stands only until it runs out; the rest
    come from a fresh shoe. So each round's card chances mix the shoe's (weight: the share
    of the round's cards it could deal, `cards_left / round_cards`) with a full shoe's.
    Counts with fewer than `min_rounds` rounds join the next count towards zero."""
    lefts = [f"left_{v}" for v in VALUES]
    size = 52 * model.decks
    full = np.array([4] * 9 + [16], dtype=float) * model.decks / size
    frame = shoe.filter(pl.col("cards_left") > 0).with_columns(
        pl.col("true_count").round(0).clip(-limit, limit).cast(pl.Int64).alias("tc"),
        (pl.col("cards_left") / pl.col("round_cards").clip(lower_bound=1)).clip(0, 1).alias("w"),
        pl.sum_horizontal(lefts).alias("n_left"),
    )
    share = pl.col("n_left").clip(lower_bound=1)
    mix = [
        (pl.col("w") * pl.col(c) / share + (1 - pl.col("w")) * float(full[v - 1])).alias(c)
        for v, c in zip(VALUES, lefts, strict=True)
    ]
    mixed = frame.select("tc", *mix)
    # summed in an order of the rows' own (not the logs' ids): the same logs give the same
    # bits in a warehouse and in a lake
    grouped = (
        mixed.sort(pl.all())
        .group_by("tc", maintain_order=True)
        .agg(pl.len().alias("rounds"), *[pl.col(c).mean() for c in lefts])
    )
    rows = sorted(grouped.iter_rows(named=True), key=lambda r: r["tc"])
    merged: list[dict] = []
    for side in (
        [r for r in rows if r["tc"] < 0],
        [r for r in reversed(rows) if r["tc"] >= 0],
    ):
        pending = None  # thin counts at the ends, carried towards zero
        for row in side:
            row = {**row, "from": row["tc"]}
            if pending is not None:
                total = pending["rounds"] + row["rounds"]
                mean = {
                    c: (pending[c] * pending["rounds"] + row[c] * row["rounds"]) / total
                    for c in lefts
                }
                row = {**row, **mean, "rounds": total, "from": pending["from"]}
            if row["rounds"] >= min_rounds or row["tc"] in (0, -1):
                merged.append(row)
                pending = None
            else:
                pending = row
        if pending is not None:
            merged.append(pending)
    groups = []
    for row in sorted(merged, key=lambda r: r["tc"]):
        probs = np.array([max(row[c], 0.0) for c in lefts])
        low, high = sorted((row["tc"], row["from"]))
        probs /= probs.sum()
        groups.append(dict(tc_low=low, tc_high=high, rounds=int(row["rounds"]), probs=probs))
    return groups


COUNT_MARGIN = 0.005
"""A count chart leaves the static chart only where that is worth this much per unit of bid
(a cell's values under a group's mean shoe are estimates: no flips on noise)."""


def count_play(
    model: GameModel, groups: list[dict[str, Any]], static
) -> tuple[pl.DataFrame, list[tuple[int, int, Any]]]:
    """Each count group solved under its mean shoe, keeping the static chart's actions
    where another is not worth `COUNT_MARGIN` more: the bid table (the value of playing
    that group's chart there, the maximum bid where it is positive, the minimum elsewhere)
    and the charts to play at each count."""
    bids, charts = [], []
    for group in groups:
        solved = solve(model, group["probs"], prefer=static, margin=COUNT_MARGIN)
        charts.append((group["tc_low"], group["tc_high"], solved.chart))
        bid = model.max_bid if solved.ev > 0 else model.min_bid
        kept = {key: group[key] for key in ("tc_low", "tc_high", "rounds")}
        bids.append({**kept, "ev": solved.ev, "bid": bid})
    if not bids:
        bids = [{"tc_low": -10, "tc_high": 10, "rounds": 0, "ev": 0.0, "bid": model.min_bid}]
    return pl.DataFrame(bids), charts


def fit(inputs: FitData) -> Strategy:
    """The game learned from the logs (`inputs`, what `pipeline.stats.twentyone.fit_inputs`
    reads), solved: the static chart, the charts played at each true count and the bids
    there, with the metadata (what was learned, the model's values). FitError when the
    logs cannot be fitted, or show a game the rules cannot have (no table is made)."""
    model = learn(inputs)
    learned = model_summary(model)
    problem = outside_the_rules(learned)
    if problem:
        raise FitError(
            f"the logs show {problem}: no table written (leave such logs out of the warehouse)"
        )
    solved = solve(model)
    round_cards = inputs.cards.group_by("log_id", "round").agg(pl.len().alias("round_cards"))
    shoe = inputs.shoe.join(round_cards, on=["log_id", "round"], how="left")
    bids, count_charts = count_play(model, count_groups(model, shoe), solved.chart)
    metadata = {
        "game": GAME,
        "kind": KIND,
        "fingerprint": inputs.fingerprint,
        "logs": inputs.logs,
        "rows": int(inputs.decisions.height),
        "hands": int(inputs.hands.height),
        "method": METHOD,
        "settings": {
            "max_cards": MAX_CARDS,
            "bid_min_rounds": 200,
            "infinite_deck": True,
            "count": "Hi-Lo true count, shoe mixed with a fresh shoe by the round's share",
        },
        "learned": learned,
        "model_ev": solved.ev,
        "model_ev_by_up": {str(k): v for k, v in solved.by_up.items()},
        "count_play": bids.to_dicts(),
    }
    table = tuple((row["tc_low"], row["tc_high"], row["bid"]) for row in bids.iter_rows(named=True))
    return Strategy(solved.chart, table, tuple(count_charts), metadata)


def model_summary(model: GameModel) -> dict[str, Any]:
    hits = model.dealer_hits
    dealer_rule = {
        "hits_hard_up_to": int(max((t for t in range(22) if hits[t, 0, 2]), default=0)),
        "hits_soft_17": bool(hits[17, 1, 2]),
        "hits_soft_up_to": int(max((t for t in range(12, 22) if hits[t, 1, 2]), default=0)),
        # the fewest cards at which the logs show the dealer stopping below 17 (None: never)
        "card_limit": min(model.evidence["dealer"]["stands_below_17_at_cards"], default=None),
    }

    def r(p_total, p_n, d_total, d_n, split=0):
        return round(float(model.payoff[p_index(p_total, p_n, split), d_index(d_total, d_n)]), 4)

    return {
        "decks": model.decks,
        "card_probs": [round(float(x), 5) for x in model.probs],
        "dealer_rule": dealer_rule,
        "player_card_limit": model.stop,
        "payoffs": {
            "win (20 vs 19)": r(20, 2, 19, 3),
            "push (19 vs 19)": r(19, 3, 19, 3),
            "two-card 21 vs 20": r(21, 2, 20, 3),
            "two-card 21 vs two-card 21": r(21, 2, 21, 2),
            "split two-card 21 vs 20": r(21, 2, 20, 3, 1),
            "5-card 18 vs 20": r(18, 5, 20, 3),
            "6-card 18 vs 20": r(18, 6, 20, 3),
            "5-card 24 vs 20": r(24, 5, 20, 3),
            "bust vs bust": r(23, 3, 23, 3),
        },
        "insurance_net": {k: round(v, 4) for k, v in model.insurance.items()},
        "actions": model.actions,
        "min_bid": model.min_bid,
        "max_bid": model.max_bid,
        "evidence": model.evidence,
    }


# --- the table file ---------------------------------------------------------------------


COLUMNS = (
    "section", "context", "up", "total", "soft", "n_cards", "pair", "action", "tc_low",
    "tc_high", "bid",
)  # fmt: skip


def _cells():
    """Every cell of a chart, in the table's order: its row's situation (section, context,
    up, total, soft, cards, pair) and where the chart's array (its section) holds it."""
    for ctx in range(3):
        for up in VALUES:
            for soft in (0, 1):
                for total in range(12 if soft else 4, 22):
                    for n in range(2, 6):
                        yield ("hand", ctx, up, total, soft, n, 0), (ctx, up, total, soft, n - 2)
            for x in VALUES:
                yield ("split", ctx, up, 0, 0, 2, x), (ctx, up, x)
    for total in range(4, 22):
        for soft in (0, 1):
            for pair in (0, 1):
                yield ("insure", 0, 1, total, soft, 2, pair), (total, soft, pair)


def _chart_rows(chart, prefix: str = "", tc: tuple[int, int] = (0, 0), base=None) -> list:
    """A chart's cells as table rows (with `base`, only the cells that differ from it)."""
    rows = []
    for (section, *situation), at in _cells():
        action = int(getattr(chart, section)[at])
        if base is None or action != int(getattr(base, section)[at]):
            rows.append((prefix + section, *situation, action, *tc, 0))
    return rows


def strategy_frame(chart: Chart, bids: Bids, count_charts: CountCharts = ()) -> pl.DataFrame:
    """One row per cell: hand actions, splits (context 2: re-splits), insurance; the cells
    each count group plays otherwise (`count_*` sections, their tc range); bids by count."""
    rows = _chart_rows(chart)
    for low, high, played in count_charts:
        rows += _chart_rows(played, "count_", (low, high), base=chart)
    for low, high, bid in bids:
        rows.append(("bid", 0, 0, 0, 0, 0, 0, 0, low, high, bid))
    return pl.DataFrame(rows, schema=list(COLUMNS), orient="row")


def write_table(path: str | Path, fitted: Strategy) -> Path:
    """The strategy in the shared table format (Parquet rows + JSON metadata); its path."""
    frame = strategy_frame(fitted.chart, fitted.bids, fitted.count_charts)
    return tables.write(path, frame, {**fitted.metadata, "kind": KIND})


FRAME = {"section": pl.String, **dict.fromkeys(COLUMNS[1:], pl.Int64)}
# the learned numbers the player states; the dealer's rule and the payoffs, its docstring
LEARNED = {"decks": int, "min_bid": int, "max_bid": int, "player_card_limit": int,
           "dealer_rule": dict, "payoffs": dict}  # fmt: skip
ACTIONS = {"insurance": bool, "double_on_21": bool, "double_after_split": bool}
CELL = list(COLUMNS[:7])  # a row's situation: section, context, up, total, soft, cards, pair
AT = dict(_cells())  # a row's situation: where its chart holds it
STATIC = frozenset(AT)  # every table's cells
CHOICES = {"hand": (HIT, STAND, DOUBLE), "split": (0, 1), "insure": (0, 1)}
TC_LIMIT = 10  # true counts are grouped within ±TC_LIMIT


def read_table(path: str | Path) -> Strategy:
    """The strategy of a table file, checked: one action of the right kind for every
    situation of the static chart, count cells that are such situations within the true
    counts' range, bids by count within the learned bids, and the learned numbers the
    player states (decks, bids within the rules' bounds; its card limit; which actions
    the logs showed; the payoffs, finite); `tables.TableError` (one line) for anything
    else."""
    frame, metadata = tables.read(path, GAME, KIND, columns=FRAME)
    learned = tables.fields(path, metadata, "learned", LEARNED)
    tables.fields(path, learned, "actions", ACTIONS)
    tables.fields(path, learned, "payoffs", dict.fromkeys(learned["payoffs"], float))
    problem = outside_the_rules(learned)
    if problem:
        raise tables.TableError(f"{path}: learned {problem}")
    tables.fields(path, metadata, None, {"model_ev": float})
    section = pl.col("section")
    static = frame.filter(section.is_in(list(CHOICES)))
    if static.height != len(STATIC) or set(static.select(CELL).iter_rows()) != STATIC:
        raise tables.TableError(f"{path}: not a TwentyOne chart (one action for each situation)")
    counted = frame.filter(section.str.starts_with("count_"))
    plain = counted.with_columns(section.str.strip_prefix("count_"))
    bids = frame.filter(section == "bid")
    if static.height + counted.height + bids.height != frame.height:
        raise tables.TableError(f"{path}: rows of an unknown section")
    if not set(plain.select(CELL).iter_rows()) <= STATIC:
        raise tables.TableError(f"{path}: count cells that are no situation of the chart")
    for name, choices in CHOICES.items():
        actions = pl.concat([static, plain]).filter(section == name)["action"]
        if not actions.is_in(choices).all():
            raise tables.TableError(f"{path}: {name} actions outside {choices}")
    low, high = pl.col("tc_low"), pl.col("tc_high")
    ranges = pl.concat([counted, bids]).select(
        (low <= high) & low.is_between(-TC_LIMIT, TC_LIMIT) & high.is_between(-TC_LIMIT, TC_LIMIT)
    )
    if bids.is_empty() or not ranges.to_series().all():
        raise tables.TableError(
            f"{path}: bids and count cells need true counts low..high within ±{TC_LIMIT} "
            "(and one bid at least)"
        )
    if not bids["bid"].is_between(learned["min_bid"], learned["max_bid"]).all():
        raise tables.TableError(
            f"{path}: a bid outside the learned {learned['min_bid']}..{learned['max_bid']}"
        )
    charts = tuple(count_charts_from_frame(frame))
    return Strategy(chart_from_frame(frame), tuple(bids_from_frame(frame)), charts, metadata)


def _apply(chart, rows: pl.DataFrame, prefix: str = "") -> None:
    for section, *situation, action in rows.select(*CELL, "action").iter_rows():
        if section.startswith(prefix) and (at := AT.get((section[len(prefix) :], *situation))):
            getattr(chart, section[len(prefix) :])[at] = action


def chart_from_frame(table: pl.DataFrame):
    chart = Chart.empty()
    _apply(chart, table)
    return chart


def count_charts_from_frame(table: pl.DataFrame) -> list[tuple[int, int, Any]]:
    """The chart of each count group: the static chart with the group's own cells."""
    static = chart_from_frame(table)
    counted = table.filter(pl.col("section").str.starts_with("count_"))
    out = []
    for (low, high), rows in counted.group_by("tc_low", "tc_high", maintain_order=True):
        chart = static.copy()
        _apply(chart, rows, "count_")
        out.append((int(low), int(high), chart))
    return sorted(out, key=lambda c: c[0])


def bids_from_frame(table: pl.DataFrame) -> list[tuple[int, int, int]]:
    bids = table.filter(pl.col("section") == "bid").sort("tc_low")
    return [
        (int(a), int(b), int(c)) for a, b, c in bids.select("tc_low", "tc_high", "bid").iter_rows()
    ]

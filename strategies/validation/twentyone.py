"""Validation of a TwentyOne player file in the reference engine (`mine validate twentyone`).

(a) Flat-bet return per hand per unit of bid, 95% confidence intervals, millions of hands:
    every policy plays the *same shoes* — each hand is a row of cards dealt in advance from
    a fresh shoe (or an infinite deck), and card k of a row is the k-th card dealt in that
    hand whatever the policy does — so differences between policies are paired and their
    intervals tight. The player file is played through the chart its tables define (its
    `play` reads the same tables; (b) runs the `play` itself in the engine, and the tests
    check that the tables read back as the chart). Baselines:
    textbook, dealer and cautious as the charts their `decide` gives, random and explorer
    (textbook with a share of random actions) as stochastic policies. One split per hand
    (the engine allows re-splits; the exact optimum makes the same cap).
(b) Full games in the engine: the file's `play` at a 10-seat table of baselines, 1,000
    rounds: final points, standings, rank distribution; and the same games again with the
    file's bid table flattened to the minimum (same seeds, so the same cards and actions:
    the difference is what the bids gain).
(c) Invalid actions (disqualifications) and decision times (p99) of the file's `play`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from mine.strategies.bots.twentyone import Textbook, Threshold, make_bot
from mine.strategies.engines.twentyone import (
    CAN_DOUBLE,
    CAN_HIT,
    CAN_INSURE,
    CAN_SPLIT,
    CAN_STAND,
    DOUBLE,
    HIT,
    INSURANCE,
    SPLIT,
    STAND,
    Bid,
    DoubleDown,
    Hit,
    Insurance,
    Split,
    Stand,
    TwentyOneRules,
    play_game,
)
from mine.strategies.codegen.twentyone import chart_of_module
from mine.strategies.player_file import PlayerFileError, load_module
from mine.strategies.solvers.twentyone import (
    _POINTS,
    _VALUE,
    SPLIT_HAND,
    Chart,
    _add,
    _classes,
    _return_table,
    _start,
    chart_value,
    solve,
)

Z95 = 1.959964
ENGINE_ACTIONS = {
    "Bid": Bid,
    "Hit": Hit,
    "Stand": Stand,
    "DoubleDown": DoubleDown,
    "Split": Split,
    "Insurance": Insurance,
}
BASELINES = ("textbook", "dealer", "cautious", "random", "explorer")
TABLE_SEATS = (
    "textbook",
    "dealer",
    "cautious",
    "random",
    "explorer",
    "textbook",
    "dealer",
    "cautious",
    "random",
)


# --- loading a player file -----------------------------------------------------------------


def load_player(path: str | Path) -> ModuleType:
    module = load_module(path, "twentyone", ("play",))
    for table in ("HAND", "SPLIT", "INSURE", "BIDS"):
        if not hasattr(module, table):
            raise PlayerFileError(f"{path}: has no {table} table (not a generated player?)")
    return module


def engine_player(play: Callable, times: list[tuple[float, float]] | None = None) -> Callable:
    """The file's `play` as the engine calls it: its actions (its own classes, stdlib
    only) become the engine's by name and amount; each call's time is recorded as (wall
    seconds, CPU seconds of this thread: on a busy machine the wall clock also counts the
    time other processes had the core)."""

    def player(upcard, points, infos, player_id, memory, hand):
        started, cpu = time.perf_counter(), time.thread_time()
        action, new_memory = play(upcard, points, infos, player_id, memory, hand)
        if times is not None:
            times.append((time.perf_counter() - started, time.thread_time() - cpu))
        kind = ENGINE_ACTIONS.get(type(action).__name__)
        if kind is None:
            return action, new_memory  # the engine reports what is wrong with it
        if kind in (Hit, Stand):
            return kind(), new_memory
        return kind(getattr(action, "amount", None)), new_memory

    return player


# --- policies for the vectorised evaluator ------------------------------------------------


class ChartPolicy:
    """Plays a `Chart`: insurance, split, then the hand action (DoubleDown where it is not
    legal means Hit, Hit where it is not legal means Stand)."""

    def __init__(self, chart: Chart):
        self.chart = chart
        self.flat = chart.hand.reshape(-1).astype(np.int64)

    def act(self, up, total, soft, n, pair, legal, ctx, rng) -> np.ndarray:
        chart = self.chart
        t = np.minimum(total, 31)
        cell = (((ctx * 11 + up) * 32 + t) * 2 + soft) * 4 + np.minimum(n, 5) - 2
        action = self.flat[cell]
        action = np.where((action == DOUBLE) & (legal & CAN_DOUBLE == 0), HIT, action)
        action = np.where((action == HIT) & (legal & CAN_HIT == 0), STAND, action)
        splits = (legal & CAN_SPLIT > 0) & chart.split[np.minimum(ctx, 1), up, np.minimum(pair, 10)]
        action = np.where(splits, SPLIT, action)
        insure = (legal & CAN_INSURE > 0) & chart.insure[t, soft, (pair > 0).astype(np.int64)]
        return np.where(insure, INSURANCE, action)


class RandomPolicy:
    """A uniformly random legal action, as the `random` bot."""

    def act(self, up, total, soft, n, pair, legal, ctx, rng) -> np.ndarray:
        kinds = np.array([HIT, STAND, DOUBLE, SPLIT, INSURANCE])
        allowed = (legal[:, None] >> kinds[None, :]) & 1
        pick = (rng.random(len(legal)) * allowed.sum(axis=1)).astype(np.int64)
        order = np.cumsum(allowed, axis=1) - 1
        chosen = np.argmax((order == pick[:, None]) & (allowed == 1), axis=1)
        return kinds[chosen]


class ExplorerPolicy:
    """`policy`'s action, replaced by a random legal one with probability `share`."""

    def __init__(self, policy, share: float):
        self.policy, self.share, self.random = policy, share, RandomPolicy()

    def act(self, up, total, soft, n, pair, legal, ctx, rng) -> np.ndarray:
        planned = self.policy.act(up, total, soft, n, pair, legal, ctx, rng)
        noise = self.random.act(up, total, soft, n, pair, legal, ctx, rng)
        return np.where(rng.random(len(legal)) < self.share, noise, planned)


def chart_of_bot(bot, rules: TwentyOneRules) -> Chart:
    """The chart a deterministic table bot plays (its `decide` on every situation)."""
    chart = Chart.empty()
    for ctx in range(3):
        for up in range(1, 11):
            for soft in (0, 1):
                for total in range(4, 32):
                    for n in range(2, 6):
                        legal = CAN_STAND | (CAN_HIT if not (n == 2 and total == 21) else 0)
                        if n == 2:
                            legal |= CAN_DOUBLE
                        chart.hand[ctx, up, total, soft, n - 2] = bot.decide(
                            up, total, bool(soft), n, 0, legal
                        )
            if ctx < 2:
                for x in range(1, 11):
                    total, soft = (12, True) if x == 1 else (2 * x, False)
                    legal = CAN_STAND | CAN_HIT | CAN_DOUBLE | CAN_SPLIT
                    chart.split[ctx, up, x] = bot.decide(up, total, soft, 2, x, legal) == SPLIT
    for total in range(4, 22):
        for soft in (0, 1):
            for pair in (0, 1):
                legal = CAN_STAND | CAN_HIT | CAN_DOUBLE | CAN_INSURE | (CAN_SPLIT if pair else 0)
                chart.insure[total, soft, pair] = (
                    bot.decide(1, total, bool(soft), 2, 1 if pair else 0, legal) == INSURANCE
                )
    return chart


def baseline_policies(rules: TwentyOneRules, share: float = 0.1) -> dict[str, Any]:
    textbook = ChartPolicy(chart_of_bot(Textbook(rules), rules))
    return {
        "textbook": textbook,
        "dealer": ChartPolicy(chart_of_bot(Threshold(17, "dealer", rules), rules)),
        "cautious": ChartPolicy(chart_of_bot(Threshold(12, "cautious", rules), rules)),
        "random": RandomPolicy(),
        "explorer": ExplorerPolicy(textbook, share),
    }


# --- the same shoes for every policy ------------------------------------------------------


def deal_rows(n: int, m: int, rng: np.random.Generator, decks: int | None) -> np.ndarray:
    """(n, m) ranks 1..13: the first m cards of n fresh shoes (or of an infinite deck)."""
    if decks is None:
        return rng.integers(1, 14, size=(n, m))
    size = 52 * decks
    dealt = np.zeros((n, (size + 63) // 64), np.uint64)
    out = np.empty((n, m), np.int64)
    rows = np.arange(n)
    for k in range(m):
        codes = np.empty(n, np.int64)
        pending = rows
        while pending.size:
            code = rng.integers(0, size, size=len(pending))
            word, bit = code >> 6, (code & 63).astype(np.uint64)
            free = (dealt[pending, word] >> bit) & np.uint64(1) == 0
            codes[pending[free]] = code[free]
            dealt[pending[free], word[free]] |= np.uint64(1) << bit[free]
            pending = pending[~free]
        out[:, k] = codes % 13 + 1
    return out


def cards_needed(rules: TwentyOneRules) -> int:
    hand = min(rules.charlie_cards if rules.charlie else 11, 11)
    dealer = min(rules.charlie_cards if rules.charlie else 10, 10)
    return 6 + 2 * (hand - 2) + (dealer - 2)


def play_rows(policy, ranks: np.ndarray, rules: TwentyOneRules, rng) -> np.ndarray:
    """Net return per unit of bid of each row's hand played by `policy` (one seat)."""
    n, m = ranks.shape
    stop = rules.charlie_cards if rules.charlie else 64
    every = np.arange(n)
    ptr = np.full(n, 4)

    def draw(rows: np.ndarray) -> np.ndarray:
        cards = ranks[rows, np.minimum(ptr[rows], m - 1)]
        ptr[rows] += 1
        return cards

    p1, p2, up_rank, hole = ranks[:, 0], ranks[:, 1], ranks[:, 2], ranks[:, 3]
    up = _VALUE[up_rank]
    total = np.zeros((n, 2), np.int64)
    soft = np.zeros((n, 2), np.int64)
    cards = np.zeros((n, 2), np.int64)
    stake = np.ones((n, 2))
    total[:, 0], soft[:, 0] = _start(p1, p2)
    cards[:, 0] = 2
    first = np.ones(n, bool)
    insured = np.zeros(n, bool)
    split = np.zeros(n, bool)
    for slot in (0, 1):
        rows = every if slot == 0 else np.flatnonzero(split)
        while rows.size:
            t, s, k = total[rows, slot], soft[rows, slot], cards[rows, slot]
            two = k == 2
            is21 = two & (t == 21)
            combo = is21 & (rules.combo_after_split | ~split[rows])
            pair = np.where(two & (slot == 0) & ~split[rows] & (p1[rows] == p2[rows]), p1[rows], 0)
            legal = np.full(len(rows), CAN_STAND)
            legal |= np.where(combo, 0, CAN_HIT)
            legal |= np.where(two & (~combo | rules.double_on_combo), CAN_DOUBLE, 0)
            legal |= np.where(pair > 0, CAN_SPLIT, 0)
            legal |= np.where(first[rows] & (up[rows] == 1), CAN_INSURE, 0)
            ctx = np.where(split[rows], SPLIT_HAND, insured[rows].astype(np.int64))
            action = policy.act(up[rows], t, s, k, pair, legal, ctx, rng)
            first[rows] = False
            keep = np.zeros(len(rows), bool)

            ins = action == INSURANCE
            insured[rows[ins]] = True
            keep |= ins

            spl = action == SPLIT
            at = rows[spl]
            split[at] = True
            a_card, b_card = draw(at), draw(at)
            total[at, 0], soft[at, 0] = _start(p1[at], a_card)
            total[at, 1], soft[at, 1] = _start(p2[at], b_card)
            cards[at, 0] = cards[at, 1] = 2
            keep |= spl

            dbl = action == DOUBLE
            stake[rows[dbl], slot] = 2.0
            takes = (action == HIT) | (dbl & ~combo)
            at = rows[takes]
            t2, s2 = _add(total[at, slot], soft[at, slot], _POINTS[draw(at)])
            total[at, slot], soft[at, slot] = t2, s2
            cards[at, slot] += 1
            keep[takes] = (action[takes] == HIT) & (t2 <= 21) & (cards[at, slot] < stop)
            rows = rows[keep]

    a_class = _classes(total[:, 0], cards[:, 0], rules, split)
    b_class = np.where(split, _classes(total[:, 1], cards[:, 1], rules, True), 0)
    plays = (a_class > 0) | (b_class > 0)
    d_total, d_soft = _start(up_rank, hole)
    d_n = np.full(n, 2)
    rows = np.flatnonzero(plays)
    while rows.size:
        t, s, k = d_total[rows], d_soft[rows], d_n[rows]
        hits = (k < stop) & (
            (t < rules.dealer_stands_on)
            | (rules.dealer_hits_soft_17 & (t == rules.dealer_stands_on) & (s > 0))
        )
        rows = rows[hits]
        d_total[rows], d_soft[rows] = _add(t[hits], s[hits], _POINTS[draw(rows)])
        d_n[rows] += 1
    d_class = _classes(d_total, d_n, rules, False)
    returns = _return_table(rules)
    net = returns[a_class, d_class] * stake[:, 0] - stake[:, 0]
    net += np.where(split, returns[b_class, d_class] * stake[:, 1] - stake[:, 1], 0.0)
    back = rules.insurance_payout * (0.5 if rules.insurance_on_side_bet else 1.0)
    # the engine pays insurance with the main hand, and only if that hand is not bust
    won = plays & (d_class == 24) & (a_class > 0)
    net += np.where(insured, -0.5 + back * won, 0.0)
    return net


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float
    n: int

    def as_json(self) -> dict[str, float | int]:
        return {"mean": self.mean, "ci95": [self.low, self.high], "n": self.n}


def _interval(total: float, squares: float, n: int) -> Interval:
    mean = total / n
    var = max(squares / n - mean * mean, 0.0) * n / max(n - 1, 1)
    half = Z95 * float(np.sqrt(var / n))
    return Interval(mean, mean - half, mean + half, n)


def flat_returns(
    policies: dict[str, Any],
    rules: TwentyOneRules,
    hands: int,
    seed: int,
    decks: int | None,
    reference: str,
    chunk: int = 100_000,
) -> dict[str, dict[str, Any]]:
    """Each policy's flat-bet return on the same shoes, and its paired difference from
    `reference` (reference − policy: positive when the reference does better)."""
    rng = np.random.default_rng(seed)
    sums = {name: [0.0, 0.0] for name in policies}
    diffs = {name: [0.0, 0.0] for name in policies}
    done = 0
    m = cards_needed(rules)
    while done < hands:
        size = min(chunk, hands - done)
        ranks = deal_rows(size, m, rng, decks)
        nets = {}
        for name, policy in policies.items():
            nets[name] = play_rows(policy, ranks, rules, rng)
            sums[name][0] += float(nets[name].sum())
            sums[name][1] += float(np.square(nets[name]).sum())
        for name in policies:
            d = nets[reference] - nets[name]
            diffs[name][0] += float(d.sum())
            diffs[name][1] += float(np.square(d).sum())
        done += size
    out = {}
    for name in policies:
        out[name] = {
            "return": _interval(*sums[name], hands).as_json(),
            f"{reference}_minus_this": _interval(*diffs[name], hands).as_json(),
        }
    return out


# --- full games ---------------------------------------------------------------------------


def full_games(
    module: ModuleType,
    rules: TwentyOneRules,
    games: int,
    seed: int,
    seats: tuple[str, ...] = TABLE_SEATS,
    flat_twin: ModuleType | None = None,
) -> dict[str, Any]:
    """The file's player at a table of baselines for `games` games: points, standings, rank
    distribution, invalid actions, decision times; with `flat_twin` (the same file with a
    flat minimum bid table) the same games again, for what the bids gain."""
    me = "player"
    ids = [me] + [f"{name}#{i + 1}" for i, name in enumerate(seats)]
    points: dict[str, list[int]] = {pid: [] for pid in ids}
    ranks: dict[str, list[int]] = {pid: [] for pid in ids}
    times: list[tuple[float, float]] = []
    disqualified: list[str] = []
    gains: list[int] = []
    decisions = 0
    for game, sequence in enumerate(np.random.SeedSequence(seed).spawn(games)):
        state, calls = _one_game(module, rules, ids, seats, sequence, times)
        decisions += calls
        for seat, pid in enumerate(state.ids):
            points[pid].append(state.points[seat])
            if state.disqualified[seat] is not None and pid == me:
                disqualified.append(f"game {game}: {state.disqualified[seat]}")
        for rank, pid in enumerate(state.standings(), start=1):
            ranks[pid].append(rank)
        if flat_twin is not None:
            twin, _ = _one_game(flat_twin, rules, ids, seats, sequence, None)
            gains.append(state.points[state.ids.index(me)] - twin.points[twin.ids.index(me)])
    table = len(ids)
    summary = {
        "games": games,
        "rounds": rules.rounds,
        "seats": [me, *seats],
        "players": {
            pid: {
                "mean_points": float(np.mean(points[pid])),
                "mean_rank": float(np.mean(ranks[pid])),
                "wins": int(sum(r == 1 for r in ranks[pid])),
                "rank_distribution": [
                    int(sum(r == k for r in ranks[pid])) for k in range(1, table + 1)
                ],
            }
            for pid in ids
        },
        "invalid_actions": len(disqualified),
        "disqualified": disqualified[:10],
        "decisions_timed": len(times),
        "decision_seconds": _percentiles([t[0] for t in times]),
        "decision_cpu_seconds": _percentiles([t[1] for t in times]),
    }
    if flat_twin is not None:
        g = np.array(gains, dtype=float)
        half = Z95 * g.std(ddof=1) / np.sqrt(len(g)) if len(g) > 1 else float("inf")
        summary["bid_gain_vs_flat_minimum"] = {
            "mean_points_per_game": float(g.mean()),
            "ci95": [float(g.mean() - half), float(g.mean() + half)],
            "games": len(g),
        }
    return summary


def _percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p99": None, "max": None}
    return {
        "p50": float(np.percentile(values, 50)),
        "p99": float(np.percentile(values, 99)),
        "max": float(np.max(values)),
    }


def _one_game(module, rules, ids, seats, sequence, times):
    table_rng, *bot_rngs = (np.random.default_rng(s) for s in sequence.spawn(len(seats) + 1))
    players: dict[str, Any] = {ids[0]: engine_player(module.play, times)}
    for pid, spec, rng in zip(ids[1:], seats, bot_rngs, strict=True):
        players[pid] = make_bot(spec, rng, rules)
    before = len(times) if times is not None else 0
    state = play_game(rules, players, table_rng)
    return state, (len(times) - before) if times is not None else 0


def flat_minimum(module: ModuleType) -> ModuleType:
    """The same player with every bid at the table's minimum (its action table unchanged)."""
    module.BIDS = tuple(module.MIN_BID for _ in module.BIDS)
    return module


# --- what `mine validate` and `mine generate` report ------------------------------------------

FLAT = "flat-bet return, {} hands of fresh {}-deck shoes"


def quick_validation(chart: Chart, rules: TwentyOneRules, hands: int, seed: int) -> dict[str, Any]:
    """A few figures for the generated file's docstring: the chart's exact value and its
    flat-bet return on the same shoes as textbook's (the full measure is `validate`)."""
    policies = {"player": ChartPolicy(chart), "textbook": baseline_policies(rules)["textbook"]}
    flat = flat_returns(policies, rules, hands, seed, rules.decks, "player")
    player, gap = flat["player"]["return"], flat["textbook"]["player_minus_this"]
    changes = rules.changes()
    return {
        "reference rules": ", ".join(f"{k}={v}" for k, v in changes.items()) or "engine defaults",
        "exact value of this chart, infinite deck": chart_value(rules, chart),
        "exact optimum, infinite deck": solve(rules).ev,
        FLAT.format(hands, rules.decks): player["mean"],
        "95% CI low": player["ci95"][0],
        "95% CI high": player["ci95"][1],
        "gain over textbook on the same shoes": gap["mean"],
    }


def validate(
    path: Path, rules: TwentyOneRules, hands: int, games: int, seed: int, exact: bool = True
) -> dict[str, Any]:
    """Everything `mine validate twentyone` measures of a player file, as a dict."""
    module = load_player(path)
    chart = chart_of_module(module)
    policies = {"player": ChartPolicy(chart), **baseline_policies(rules)}
    started = time.perf_counter()
    flat = flat_returns(policies, rules, hands, seed, rules.decks, "player")
    flat_seconds = time.perf_counter() - started
    optimum = {"infinite_deck": solve(rules).ev}
    if exact:
        optimum[f"{rules.decks}_decks"] = solve(rules, decks=rules.decks).ev
    player = flat["player"]["return"]
    reference = optimum.get(f"{rules.decks}_decks", optimum["infinite_deck"])
    baselines = {name: flat[name] for name in policies if name != "player"}
    result = {
        "player": str(path),
        "rules": dataclasses.asdict(rules),
        "flat_bet": {
            "hands": hands,
            "decks": rules.decks,
            "seconds": flat_seconds,
            "player": player,
            "baselines": baselines,
            "exact_optimum": optimum,
            "exact_value_of_player_chart_infinite_deck": chart_value(rules, chart),
            "gap_to_optimum": {
                "optimum": reference,
                "mean": reference - player["mean"],
                "worst_in_ci95": reference - player["ci95"][0],
            },
            "within_0.005_of_optimum": reference - player["ci95"][0] <= 0.005,
            "beats_every_baseline_95": all(
                b["player_minus_this"]["ci95"][0] > 0 for b in baselines.values()
            ),
        },
    }
    if games:
        twin = flat_minimum(load_player(path))
        started = time.perf_counter()
        result["games"] = full_games(module, rules, games, seed, flat_twin=twin)
        result["games"]["seconds"] = time.perf_counter() - started
        result["invalid_actions"] = result["games"]["invalid_actions"]
        result["decision_p99_seconds"] = result["games"]["decision_seconds"]["p99"]
        result["decision_p99_cpu_seconds"] = result["games"]["decision_cpu_seconds"]["p99"]
    return result

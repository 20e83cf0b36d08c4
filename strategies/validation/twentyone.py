"""Validation of a TwentyOne player file: the harness (`mine validate twentyone`, and the
figures `mine generate` writes into a file).

(a) Flat-bet return per hand per unit of bid, 95% confidence intervals, millions of hands,
    by the vectorised evaluator (`twentyone_evaluator`): the file's own decisions and the
    baselines' on the same cards, against the exact optimum (`strategies.solvers`); and
    the file's count play against the static optimal chart on continuous shoes.
(b) Full games in the engine: the file's `play` at a 10-seat table of baselines, 1,000
    rounds: final points, standings, rank distribution; and the same games again with the
    file's bid table flattened to the minimum (same seeds, so the same cards and actions:
    the difference is what the bids gain); invalid actions and decision times.
(c) With `against`, another file on the same cards and head to head at one table (each
    deal from both seats, as a tournament's pairing plays it).
Every game is played by the referee, the files behind the engine's `course_player`; they
run contained (`strategies.contained`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from mine.strategies import contained, intervals
from mine.strategies.bots.twentyone import BASELINES, make_bot
from mine.strategies.engines import referee
from mine.strategies.engines import twentyone as engine
from mine.strategies.engines.twentyone import Settings, TwentyOneRules, new_game, rules_of
from mine.strategies.engines.twentyone_chart import (
    TABLES,
    Chart,
    Strategy,
    chart_of_tables,
    check_tables,
    player_constants,
)
from mine.strategies.intervals import Z95, Outcome, rate, summarise_pairing
from mine.strategies.player_file import (
    PlayerFileError,
    Shipped,
    landed,
    load_module,
    load_once,
    load_source,
)
from mine.strategies.players import twentyone as player
from mine.strategies.players.source import player_code
from mine.strategies.runners import SERIAL, Runner, child, spans
from mine.strategies.solvers.twentyone import chart_value, solve
from mine.strategies.validation import twentyone_haskell as haskell
from mine.strategies.validation.twentyone_evaluator import (
    FLAT_CHUNK,
    FilePolicy,
    baseline_policies,
    continuous_returns,
    flat_chunks,
    flat_returns,
    flat_sums,
    fold,
)

FUNCTIONS = ("play", "action_for", "count_bucket")  # what a player file defines
LIMITS = contained.LIMITS
TIMED_OUT = ("(limit ",)  # words of the referee's fault for a call over `decision_seconds`
MARGIN = "final points, A − B"
TABLE_SEATS = (*BASELINES, *BASELINES[:4])  # nine baselines beside the file: a full table


# --- loading a player file -----------------------------------------------------------------


def load_player(path: str | Path) -> ModuleType | haskell.HaskellPlayer:
    if haskell.is_haskell(path):  # its tables read, its decisions asked of its program
        return haskell.HaskellPlayer(path)
    module = load_module(path, "twentyone", FUNCTIONS)
    for table in TABLES:
        if not hasattr(module, table):
            raise PlayerFileError(f"{path}: has no {table} table (not a generated player?)")
    try:  # measured as a chart's tables: a hand-edited one is said here, not in numpy's words
        check_tables({table: getattr(module, table) for table in TABLES}, module.TC_LIMIT)
    except (ValueError, AttributeError) as error:
        raise PlayerFileError(f"{path}: {error}") from None
    return module


def chart_module(chart: Chart, rules: TwentyOneRules) -> ModuleType:
    """A static chart as the player file `mine generate` would write for it (no count play,
    flat minimum bids): how a chart is measured, so that it plays exactly as a file does."""
    actions = {"insurance": True, "double_on_21": rules.double_on_combo, "double_after_split": True}
    learned = dict(decks=rules.decks, min_bid=rules.min_bid, max_bid=rules.max_bid, actions=actions)
    metadata = {"method": "chart", "learned": learned}
    constants = player_constants(Strategy(chart, ((0, 0, rules.min_bid),), (), metadata))
    return load_source(player_code(player.__name__, constants), "twentyone")


def load(path: str) -> ModuleType:
    """A file at a tournament's table, loaded once in this worker: any file with the
    spec's `play` plays (the tables only a generated player has are validation's)."""
    return load_once(path, "twentyone", ("play",))


def seat(module: ModuleType, times: list[tuple[float, float]] | None = None) -> referee.Course:
    """The file's `play` at the table, through the engine's adapter for the spec's
    interface; with `times`, each call's (wall seconds, CPU seconds of this thread: on a
    busy machine the wall clock also counts the time other processes had the core)."""
    if times is None:
        return engine.course_player(module.play)

    def timed(*arguments):
        started, cpu = time.perf_counter(), time.thread_time()
        answer = module.play(*arguments)
        times.append((time.perf_counter() - started, time.thread_time() - cpu))
        return answer

    return engine.course_player(timed)


# --- full games ---------------------------------------------------------------------------


def games_played(
    module: ModuleType,
    rules: TwentyOneRules,
    span: range,
    seed: int,
    seats: tuple[str, ...] = TABLE_SEATS,
    flat_twin: ModuleType | None = None,
) -> dict[str, Any]:
    """The file's player at a table of baselines in the games of `span` (game g from the
    g-th child of `seed`, wherever it is played): points, ranks, decision times, invalid
    actions; with `flat_twin` (the same file with a flat minimum bid table) the same games
    again, for what the bids gain."""
    me = "player"
    ids = [me] + [f"{name}#{i + 1}" for i, name in enumerate(seats)]
    played: dict[str, Any] = {"points": {pid: [] for pid in ids}, "ranks": {pid: [] for pid in ids},
                              "times": [], "disqualified": [], "gains": [], "flat": [],
                              "aces": []}  # fmt: skip
    for game in span:
        state = _one_game(module, rules, ids, seats, child(seed, game), played["times"])
        for seat, pid in enumerate(state.players):
            played["points"][pid].append(state.points[seat])
            if state.disqualified[seat] is not None and pid == me:
                played["disqualified"].append(f"game {game}: {state.disqualified[seat]}")
        for rank, pid in enumerate(state.standings(), start=1):
            played["ranks"][pid].append(rank)
        if flat_twin is not None:
            # a sequence spawns new children each time: the twin's game is seeded afresh
            twin = _one_game(flat_twin, rules, ids, seats, child(seed, game), None)
            mine_, its = state.points[state.players.index(me)], twin.points[twin.players.index(me)]
            played["gains"].append(mine_ - its)
            flat, aces = table_rounds(twin, me)
            played["flat"] += flat
            played["aces"] += aces
    return played


def flat_rounds(
    module: ModuleType, rules: TwentyOneRules, span: range, seed: int,
    seats: tuple[str, ...] = TABLE_SEATS,
) -> list[tuple[list[float], list[tuple[bool, bool]]]]:  # fmt: skip
    """`table_rounds` of each game of `span` (seeded as `games_played`'s) for a file that
    bids flat: what a file's decisions are worth at a table of `seats` baselines."""
    ids = ["player"] + [f"{name}#{i + 1}" for i, name in enumerate(seats)]
    return [table_rounds(_one_game(module, rules, ids, seats, child(seed, game), None), "player")
            for game in span]  # fmt: skip


def table_rounds(state: engine.State, me: str) -> tuple[list[float], list[tuple[bool, bool]]]:
    """The rounds `me` was dealt into at its table: each one's net points per unit of its
    bid (insurance included), and on each ace up card whether it insured and whether the
    dealer held a two-card 21 (a hole card never shown, every hand bust, counts as none)."""
    seat = state.players.index(me)
    before = state.rules.starting_points
    returns, aces = [], []
    for record in state.records:
        after = record.points[seat]
        bid = next((row[4] for row in record.rows if row[1] == seat and row[3] == engine.BID), 0)
        if record.upcard is not None and bid:
            returns.append((after - before) / bid)
            if engine.RANK[record.upcard] == 1:
                mine = [row for row in record.rows if row[1] == seat]
                dealer = [row[0] for row in record.rows if row[1] == engine.DEALER_SEAT][-1]
                combo = len(dealer) == 2 and sum(engine.POINTS[c] for c in dealer) == 21
                aces.append((any(row[3] == engine.INSURANCE for row in mine), combo))
        before = after
    return returns, aces


def games_summary(
    parts: list[dict[str, Any]], rules: TwentyOneRules, seats: tuple[str, ...] = TABLE_SEATS
) -> dict[str, Any]:
    """The figures of the games of `parts` (`games_played`, in game order): points,
    standings, rank distribution, invalid actions, decision times, what the bids gain."""
    me = "player"
    points = {pid: [p for part in parts for p in part["points"][pid]] for pid in parts[0]["points"]}
    ranks = {pid: [r for part in parts for r in part["ranks"][pid]] for pid in parts[0]["ranks"]}
    times = [t for part in parts for t in part["times"]]
    disqualified = [d for part in parts for d in part["disqualified"]]
    gains = [g for part in parts for g in part["gains"]]
    flat = np.array([r for part in parts for r in part.get("flat", [])], dtype=float)
    aces = [a for part in parts for a in part.get("aces", [])]
    table = len(points)
    summary = {
        "games": len(points[me]),
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
            for pid in points
        },
        "invalid_actions": len(disqualified),
        "disqualified": disqualified[:10],
        "decisions_timed": len(times),
        "decision_seconds": _percentiles([t[0] for t in times]),
        "decision_cpu_seconds": _percentiles([t[1] for t in times]),
    }
    if gains:
        g = np.array(gains, dtype=float)
        half = Z95 * g.std(ddof=1) / np.sqrt(len(g)) if len(g) > 1 else float("inf")
        summary["bid_gain_vs_flat_minimum"] = {
            "mean_points_per_game": float(g.mean()),
            "ci95": [float(g.mean() - half), float(g.mean() + half)],
            "games": len(g),
        }
    if len(flat) > 1:
        half = Z95 * flat.std(ddof=1) / np.sqrt(len(flat))
        summary["flat_bet_at_table"] = {
            "mean_per_unit": float(flat.mean()),
            "ci95": [float(flat.mean() - half), float(flat.mean() + half)],
            "rounds": len(flat),
        }
        summary["insurance_at_table"] = {
            taken: {"ace_rounds": len(seen), "dealer_two_card_21": rate(sum(seen), len(seen))}
            for taken, seen in (
                ("insured", [combo for insured, combo in aces if insured]),
                ("declined", [combo for insured, combo in aces if not insured]),
            )
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


def _one_game(module, rules, ids, seats, sequence, times) -> engine.State:
    table_rng, *bot_rngs = (np.random.default_rng(s) for s in sequence.spawn(len(seats) + 1))
    players: dict[str, Any] = {ids[0]: seat(module, times)}
    for pid, spec, rng in zip(ids[1:], seats, bot_rngs, strict=True):
        players[pid] = make_bot(spec, rules, rng)
    state = new_game(rules, table_rng, ids)
    referee.refereed(engine, rules, state, [players[p] for p in state.players])
    return state


def flat_minimum(module: ModuleType) -> ModuleType:
    """The same player with every bid at the table's minimum (its action table unchanged)."""
    bids = tuple(module.MIN_BID for _ in module.BIDS)
    if isinstance(module, haskell.HaskellPlayer):  # its bids are its program's
        return module.with_bids(bids)
    module.BIDS = bids
    return module


# --- what `mine validate` and `mine generate` report ------------------------------------------

FLAT = "flat-bet return, {} hands of fresh {}-deck shoes"
NEAR_OPTIMUM = 0.005  # per unit of bid: a flat-bet return this close to the optimum is near it
WITHIN, BEATS = "within_0.005_of_optimum", "beats_every_baseline_95"
VERDICTS = (WITHIN, BEATS)  # what the flat bets decide; they stop once both are decided


def check(
    path: str | Path,
    fitted: Strategy | None = None,
    *,
    rules: Settings = None,
    hands: int = 200_000,
    seed: int = 0,
) -> dict[str, Any]:
    """The figures for a generated file's docstring, measured on the file at `path`: its
    static chart's exact value, and its flat-bet return on the same shoes as textbook's
    (the full measure is `validate`), in the default rules with the settings `rules` over
    them."""
    rules = rules_of(rules)
    module = load_player(path)
    policies = {"player": FilePolicy(module), "textbook": baseline_policies(rules)["textbook"]}
    flat = flat_returns(policies, rules, hands, seed, rules.decks, "player")
    player, gap = flat["player"]["return"], flat["textbook"]["player_minus_this"]
    return {
        "reference rules": ", ".join(f"{k}={v}" for k, v in rules.changes().items())
        or "engine defaults",
        "exact value of the static chart, infinite deck": chart_value(
            rules, chart_of_tables(module)
        ),
        "exact optimum, infinite deck": solve(rules).ev,
        FLAT.format(hands, rules.decks): player["mean"],
        "95% CI low": player["ci95"][0],
        "95% CI high": player["ci95"][1],
        "gain over textbook on the same shoes": gap["mean"],
        "gain over textbook, 95% CI low": gap["ci95"][0],
        "gain over textbook, 95% CI high": gap["ci95"][1],
    }


GAMES_PER_TASK = 20  # a task of `validate`'s full games: a few seconds
FLAT_CHUNKS_PER_TASK = 5  # a task of its flat bets: 500,000 hands of every policy, seconds


@dataclass(frozen=True)
class Measure:
    """What every task of one `validate` shares: the files (shipped: a task may run on
    another machine) and the sizes and seed of the measure."""

    files: tuple[Shipped, ...]  # the player file, then `against`'s
    rules: TwentyOneRules
    hands: int
    games: int
    seed: int
    exact: bool
    shoe_hands: int
    limits: contained.Limits
    contain: bool


def validate(
    path: str | Path,
    rules: Settings = None,
    *,
    against: str | Path | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    hands: int = 2_000_000,
    games: int = 100,
    seed: int = 0,
    exact: bool = True,
    shoe_hands: int = 0,
    limits: contained.Limits = contained.LIMITS,
    contain: bool = True,
    runner: Runner = SERIAL,
) -> dict[str, Any]:
    """Everything `mine validate twentyone` measures of a player file, as a dict; with
    `shoe_hands`, its count play against the static optimal chart on continuous shoes;
    with `against`, another file head to head: its flat-bet return on the same cards, and
    full games of the two at one table, seats swapped on the same shoe (the tournament's
    pairing). The parts of the measure (the exact values, the flat bets by
    FLAT_CHUNKS_PER_TASK chunks of the evaluator's, the shoe, head to head, full games by
    GAMES_PER_TASK) are tasks for `runner`, each seeded by what it is (a chunk, a game),
    so the figures never depend on where they ran; the files run contained in each
    (PlayerFault naming the one that fails); nothing is reported before the whole measure
    is done. The flat bets are measured look by look (`intervals.looks` of their chunks:
    `hands` is their cap) and stop at the first look whose intervals decide both verdicts
    (`VERDICTS`): a clear case takes a quarter of the hands, an undecided one all.
    `rules`: the rules, or settings over the defaults (a file states no rules of its own)."""
    path, rules = Path(path), rules_of(rules)
    against = None if against is None else Path(against)
    files = [path] if against is None else [path, against]
    haskell.prepare(files, contain=contain)  # a Haskell file (and its flat twin) compiled once
    measure = Measure(tuple(map(Shipped.of, files)), rules, hands, games, seed, exact,
                      shoe_hands, limits, contain)  # fmt: skip
    looks = intervals.looks(flat_chunks(hands))
    rounds = [[("flat", span) for span in spans(look, FLAT_CHUNKS_PER_TASK, start)]
              for start, look in pairwise([0, *looks])]  # fmt: skip
    rounds[0].insert(0, ("exact", None))
    rest: list[tuple[str, range | None]] = [("shoe", None)] if shoe_hands else []
    rest += [("against", None)] if against is not None and games else []
    rest += [("games", span) for span in spans(games, GAMES_PER_TASK)]
    counted = _Counted(progress, str(path), sum(map(len, rounds)) + len(rest))
    parts: list[tuple[str, range | None]] = []
    done: list[Any] = []
    for k, round_ in enumerate(rounds):  # the flat bets, look by look, until they decide
        parts += round_
        done += counted.run(runner, measure, round_)
        flat = _flat(measure, done[0], _of(parts, done, "flat"), looks)
        verdicts = [flat["flat_bet"][verdict] for verdict in VERDICTS]
        if intervals.decided(*verdicts) and k < len(rounds) - 1:
            counted.total -= sum(map(len, rounds[k + 1 :]))
            break
    parts += rest
    done += counted.run(runner, measure, rest)
    measured = {kind: part for (kind, span), part in zip(parts, done, strict=True) if span is None}
    result = {"player": str(path), "rules": dataclasses.asdict(rules), "flat_bet": flat["flat_bet"]}
    if shoe_hands:
        result["continuous_shoe"] = measured["shoe"]
    if against is not None:
        result["against"] = {**flat["against"], "games": measured.get("against")}
    if games:
        played = _of(parts, done, "games")
        result["games"] = games_summary([part for part, _ in played], rules)
        result["games"]["seconds"] = sum(seconds for _, seconds in played)
        result["invalid_actions"] = result["games"]["invalid_actions"]
        result["decision_p99_seconds"] = result["games"]["decision_seconds"]["p99"]
        result["decision_p99_cpu_seconds"] = result["games"]["decision_cpu_seconds"]["p99"]
    return result


def _of(parts: list[tuple[str, range | None]], done: list[Any], kind: str) -> list[Any]:
    return [part for (each, _), part in zip(parts, done, strict=True) if each == kind]


@dataclass
class _Counted:
    """The parts of a measure run so far, counted out of `total` as each ends (`progress`,
    from 0 before the first: a bar that times its first part)."""

    progress: Callable[[str, int, int], None] | None
    name: str
    total: int
    done: int = 0

    def __post_init__(self) -> None:
        if self.progress:
            self.progress(self.name, 0, self.total)

    def run(self, runner: Runner, measure: Measure, parts: list) -> list[Any]:
        done = []
        for part in runner.map(_measured, [(measure, kind, span) for kind, span in parts]):
            done.append(part)
            self.done += 1
            if self.progress:
                self.progress(self.name, self.done, self.total)
        return done


def _measured(task: tuple[Measure, str, range | None]) -> Any:
    """One part of a measure, in this worker: its files landed here and run contained."""
    measure, kind, span = task
    if kind in ("exact", "flat", "shoe"):  # solved here, once a worker: its parts fork from it
        solve(measure.rules)
        if kind == "exact" and measure.exact:
            solve(measure.rules, decks=measure.rules.decks)
    with landed(measure.files) as here:
        return contained.run(here, _part, [(measure, kind, span, here)],
                             limits=measure.limits, contain=measure.contain)[0]  # fmt: skip


def failure(card: dict[str, Any]) -> str | None:
    """Why the card's figures do not hold for the file's `play` (its invalid actions in
    the full games), or None."""
    if not card.get("invalid_actions"):
        return None
    first = card["games"]["disqualified"][0]
    return (
        f"{card['player']}: {card['invalid_actions']} games lost to invalid actions "
        f"(first, {first}); the figures above do not hold for its play()"
    )


def head_to_head(path: Path, against: Path, rules: TwentyOneRules, games: int, seed: int) -> dict:
    """Full games of the file and `against` at one table, from the file's side: deal d
    (the table's generator (seed, d)) from both seats, as a tournament's pairing plays it
    (`strategies.tournament.match`); A wins by the higher return, a fault loses."""
    files = {"A": load_player(path), "B": load_player(against)}
    outcomes = []
    for deal in range(max(1, games // 2)):
        for swapped in (False, True):
            state = new_game(rules, np.random.default_rng([seed, deal]), ("A", "B"), swapped)
            where = [state.players.index(side) for side in "AB"]
            seats = [seat(files[side]) for side in state.players]  # a game's memory each
            seen = referee.refereed(engine, rules, state, seats)
            returns = [state.returns()[w] for w in where]
            faults = tuple(seen.faults[w] for w in where)
            score = 1.0 if returns[0] > returns[1] else 0.0 if returns[0] < returns[1] else 0.5
            margin = None if any(faults) else float(state.points[where[0]] - state.points[where[1]])
            outcomes.append(Outcome(score, not swapped, margin, faults))
    return summarise_pairing(outcomes, 1.0, False, TIMED_OUT)


def _part(task: tuple[Measure, str, range | None, list[str]]) -> Any:
    """One part of a measure, in a contained worker (`here`: the files' paths in it)."""
    measure, kind, span, here = task
    rules, seed = measure.rules, measure.seed
    module = load_player(here[0])
    if kind == "exact":
        optimum = {"infinite_deck": solve(rules).ev}
        if measure.exact:
            optimum[f"{rules.decks}_decks"] = solve(rules, decks=rules.decks).ev
        return {"optimum": optimum, "chart": chart_value(rules, chart_of_tables(module))}
    if kind == "flat":
        policies = {"player": FilePolicy(module), **baseline_policies(rules)}
        if len(here) > 1:
            policies["against"] = FilePolicy(load_player(here[1]))
        started = time.perf_counter()
        sums = flat_sums(policies, rules, span, measure.hands, seed, rules.decks, "player")
        return sums, time.perf_counter() - started
    if kind == "shoe":
        started = time.perf_counter()
        best = solve(rules)
        static = {"player": FilePolicy(module), "static optimum": FilePolicy(
            chart_module(best.chart, rules))}  # fmt: skip
        shoe = continuous_returns(static, rules, measure.shoe_hands, seed, "player")
        return {
            "hands": measure.shoe_hands,
            "decks": rules.decks,
            "seconds": time.perf_counter() - started,
            "player": shoe["player"]["return"],
            "static_optimum": shoe["static optimum"]["return"],
            "gain_over_static_optimum": shoe["static optimum"]["player_minus_this"],
            "count_cells": len(module.BY_COUNT),
        }
    if kind == "against":
        return head_to_head(Path(here[0]), Path(here[1]), rules, measure.games, seed)
    twin = flat_minimum(load_player(here[0]))
    started = time.perf_counter()
    played = games_played(module, rules, span, seed, flat_twin=twin)
    return played, time.perf_counter() - started


def _flat(
    measure: Measure, exact: dict[str, Any], chunks: list, looks: list[int]
) -> dict[str, Any]:
    """The flat-bet part: returns on the same cards as the baselines (the chunks' sums so
    far, folded in chunk order), and the optimum; its intervals hold over the `looks` (in
    chunks) the measure may take at them (`intervals.z_of`)."""
    rules, against = measure.rules, measure.files[1].path if len(measure.files) > 1 else None
    sums = fold([chunk for part, _ in chunks for chunk in part], "player")
    flat = sums.result(intervals.z_of(len(looks)))
    if against is not None:
        flat[against] = flat.pop("against")
    optimum = exact["optimum"]
    player = flat["player"]["return"]
    reference = optimum.get(f"{rules.decks}_decks", optimum["infinite_deck"])
    baselines = {name: flat[name] for name in flat if name not in ("player", against)}
    low, high = player["ci95"]
    gap = {"optimum": reference, "mean": reference - player["mean"],
           "ci95": [reference - high, reference - low],
           "worst_in_ci95": reference - low}  # fmt: skip
    result: dict[str, Any] = {
        "flat_bet": {
            "hands": sums.hands,
            # the hands at which the intervals were looked at: the measure stops at the
            # first look that decides both verdicts, else at the last (the cap)
            "looks": [min(look * FLAT_CHUNK, measure.hands) for look in looks],
            "decks": rules.decks,
            "seconds": sum(seconds for _, seconds in chunks),
            "player": player,
            "invalid_actions": flat["player"]["invalid_actions"],
            "baselines": baselines,
            "exact_optimum": optimum,
            "exact_value_of_player_chart_infinite_deck": exact["chart"],
            "gap_to_optimum": gap,
            # yes, no, or undecided: a sample too small to tell is not a "no"
            WITHIN: intervals.at_most(gap["ci95"], NEAR_OPTIMUM),
            BEATS: intervals.all_of(
                [
                    intervals.at_least(b["player_minus_this"]["ci95"], 0.0)
                    for b in baselines.values()
                ]
            ),  # fmt: skip
        },
    }
    if against is not None:
        result["against"] = {"file": against, "flat_bet": flat[against]}
    return result

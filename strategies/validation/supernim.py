"""A Super-Nim player file measured on its own functions, in the reference engine.

The file runs contained (`strategies.contained`) and only the referee calls into it, under
the rules it states (`MERGE_CAP`, `SPLIT_REWARD`, `MAX_MOVES`; else the defaults) with any
`--rules` settings over them, except the scoring rules (merge cap, split reward,
`cap_scores`: its table's points), which `--rules` may not change. Each opponent plays
`games` games from random start boards, every board four times (the file as max and as
min, each side moving first once). An answer that is not one of the handout's successors
of the state is an invalid move: counted, and the game lost. Figures: win / draw / loss
with Wilson 95 % intervals, cut-off rate, mean final margin (the file's side), invalid
moves, the 99th percentile of `ai_move`'s CPU time; and against the exact value of the
start (R for the first mover when the start board holds an odd number of 2-heaps, the
solver's): the share of games the file ends below it, its mean margin minus it, its wins
as first mover on odd boards and its losses on even boards. Where merges score
(`cap_scores`) the value is the solver's search to the cut-off, in games short enough for
it (the others are left out of these figures; the odd/even ones speak of the default
game). The file is asked with the moves left (`ai_move(state, moves_left=…)`), or with the
handout's four fields only (`four_fields`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from mine.strategies import contained
from mine.strategies.bots.supernim import BASELINES, make_bot
from mine.strategies.engines import referee
from mine.strategies.engines import supernim as engine
from mine.strategies.engines.supernim import (
    DEFAULT_RULES,
    MAX,
    MIN,
    SEATS,
    State,
    SuperNimRules,
    other,
    random_board,
)
from mine.strategies.intervals import rate, t_half
from mine.strategies.player_file import load_once
from mine.strategies.runners import Runner
from mine.strategies.solvers.supernim import ExactSolver, Unsolved, closed_form, value
from mine.strategies.validation.shipped import per_group, run_on

FUNCTIONS = ("ai_move", "random_move")
STATED = ("merge_cap", "split_reward", "max_moves")  # the rules a file states (MERGE_CAP, …)
SCORING = ("merge_cap", "split_reward", "cap_scores")  # … its table's points: not to be changed
SEARCH = ("depth", "budget")  # … and its search (DEPTH, BUDGET)
CHECK_GAMES = 40  # games per opponent behind the figures `mine generate` writes in
CHECK_OPPONENTS = ("random", "greedy", "alphabeta:2")
GAMES_PER_TASK = 10  # a task of a runner's: seconds of a searching file's moves
# The handout allows a minute a move; generated players take at most 1 s (0.2 s by
# default). 10 s ends a file that loops without calling a busy machine's stall a fault.
LIMITS = contained.Limits(call_seconds=10.0)
TIMED_OUT = ()  # only the harness's clock (10 s a move): a disqualification
MARGIN = "final score, A − B"


def play_one(
    module: ModuleType,
    opponent: str | ModuleType,
    seat: str,
    start: State,
    seed: int,
    depth: int | None,
    four_fields: bool = False,
) -> dict[str, Any]:
    """One game: the file in `seat` against `opponent` (a bot's name, or another file's
    module, which searches to its own depth), refereed: an answer that is not a successor
    of the state, or a crash, loses the game. Its result from the file's side."""
    opponent_seat = other(seat)
    players = {
        seat: engine.course_player(module, depth, four_fields),
        opponent_seat: engine.course_player(opponent)
        if isinstance(opponent, ModuleType)
        else make_bot(opponent, start.rules, np.random.default_rng(seed)),
    }
    state = start.clone()
    seen = referee.refereed(engine, state.rules, state, [players[MAX], players[MIN]])
    mine, theirs = SEATS.index(seat), SEATS.index(opponent_seat)
    margin = state.margin(seat)
    outcome = "loss" if seen.faults[mine] or margin < 0 else "win" if margin > 0 else "draw"
    if seen.faults[theirs]:
        outcome = "win"
    return {
        "outcome": outcome,
        "margin": margin,
        "cutoff": state.is_cut_off(),
        "invalid": int(seen.faults[mine] is not None),
        "opponent_invalid": seen.faults[theirs] is not None,
        "times": seen.times[mine],
        "first": start.player == seat,
        "odd": value(start.board, 1) == 1,
        "value": start_value(start, seat),
    }


_SOLVERS: dict[SuperNimRules, ExactSolver] = {}


def start_value(start: State, seat: str) -> int | None:
    """The exact value of the start for `seat`: the closed form's, or where merges score the
    search to the cut-off's (None where that is out of the solver's reach)."""
    sign = 1 if start.player == seat else -1
    if closed_form(start.rules):
        return value(start.board, start.rules.split_reward) * sign
    solver = _SOLVERS.setdefault(start.rules, ExactSolver(start.rules))
    try:
        return solver.value(start.board, start.rules.max_moves) * sign
    except Unsolved:
        return None


def _starts(games: int, seed: int, rules: SuperNimRules) -> list[tuple[str, State]]:
    """(file's seat, start) for `games` games: each random board four times."""
    rng = np.random.default_rng([seed, 7])
    starts = []
    while len(starts) < games:
        board = random_board(rng)
        for seat in (MAX, MIN):
            for first in (seat, other(seat)):
                starts.append((seat, State(first, board, rules=rules)))
    return starts[:games]


def load(path: str) -> ModuleType:
    """A file's module in this worker, loaded once (loading wraps its calls for the
    harness's clock): the file measured, or another file it plays head to head."""
    return load_once(path, "supernim", FUNCTIONS)


def seat(module: ModuleType) -> referee.Course:
    """A file at a tournament's table: asked as the handout asks, told the moves left."""
    return engine.course_player(module)


def _stated(path: str) -> tuple[dict[str, int], dict[str, float | None]]:
    """The rules the file states (MERGE_CAP, SPLIT_REWARD, MAX_MOVES, where it has them),
    and its search (DEPTH, BUDGET; None where it states none)."""
    module = load(path)
    values = {name: getattr(module, name.upper(), None) for name in STATED}
    search = {name: getattr(module, name.upper(), None) for name in SEARCH}
    flag = getattr(module, "CAP_SCORES", None)
    return (
        {k: v for k, v in values.items() if _number(v, int)}
        | ({"cap_scores": flag} if isinstance(flag, bool) else {}),
        {k: v if _number(v, int | float) else None for k, v in search.items()},
    )


def _said(value: Any) -> str:
    """A rule's value as `--rules` writes it."""
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


def _number(value: Any, kind: Any) -> bool:
    return isinstance(value, kind) and not isinstance(value, bool)


def _work(four_fields: bool, task: tuple) -> dict[str, Any]:
    path, opponent, seat, start, seed, depth, is_file = task
    against = load(opponent) if is_file else opponent
    return play_one(load(path), against, seat, start, seed, depth, four_fields)


def mean_interval(values: Sequence[float]) -> tuple[float, float] | tuple[()]:
    """A t 95 % interval of the mean of `values` (empty for fewer than two)."""
    n = len(values)
    if n < 2:
        return ()
    mean, half = float(np.mean(values)), t_half(values)
    return mean - half, mean + half


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(results)
    outcomes = [r["outcome"] for r in results]
    times = [t for r in results for t in r["times"]]
    valued = any(r["value"] is not None for r in results)
    return {
        "games": n,
        "win": rate(outcomes.count("win"), n),
        "draw": rate(outcomes.count("draw"), n),
        "loss": rate(outcomes.count("loss"), n),
        "cutoff_rate": sum(r["cutoff"] for r in results) / n if n else 0.0,
        "mean_margin": float(np.mean([r["margin"] for r in results])) if n else 0.0,
        "mean_margin_ci95": list(mean_interval([r["margin"] for r in results])),
        "invalid_moves": sum(r["invalid"] for r in results),
        # a file opponent's: each is a win the file did not play for
        "opponent_invalid_moves": sum(r["opponent_invalid"] for r in results),
        "moves_timed": len(times),
        "p99_move_seconds": float(np.percentile(times, 99)) if times else 0.0,
        "max_move_seconds": max(times, default=0.0),
        # none where the solver reaches no start (the capped-merge variant's long games)
        **({"against_value": against_value(results)} if valued else {}),
    }


def against_value(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The games against the exact value of their start, from the file's side (those whose
    value the solver reaches)."""
    odd_first = [r for r in results if r["odd"] and r["first"]]
    even = [r for r in results if not r["odd"]]
    known = [r for r in results if r["value"] is not None]
    below = sum(r["margin"] < r["value"] for r in known)
    gaps = [r["margin"] - r["value"] for r in known]
    return {
        "games_with_value": len(known),
        "below_value": rate(below, len(known)),
        "mean_margin_minus_value": float(np.mean(gaps)) if gaps else 0.0,
        "margin_minus_value_ci95": list(mean_interval(gaps)),
        "odd_first_wins": rate(sum(r["outcome"] == "win" for r in odd_first), len(odd_first)),
        "even_losses": rate(sum(r["outcome"] == "loss" for r in even), len(even)),
    }


def rules_text(rules: SuperNimRules) -> str:
    """The rules a card was measured in, in words."""
    words = [
        f"merge cap {rules.merge_cap}",
        f"split of 2 scores {rules.split_reward}",
        f"cut-off {rules.max_moves} moves",
    ]
    if rules.ulam_limit:
        words.append(f"at most {rules.ulam_limit} growth steps")
    if rules.repeat_ends:
        words.append("a repeated position ends the game")
    if rules.cap_scores:
        words.append("the sticks a merge loses to the cap score")
    return f"{'default rules' if rules == DEFAULT_RULES else 'rules'}: {', '.join(words)}"


def validate(
    path: str | Path,
    rules: Sequence[str] | None = None,
    *,
    against: str | Path | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    baselines: str | Sequence[str] = BASELINES,
    games: int = 1000,
    seed: int = 0,
    workers: int = 1,
    equal_depth: int = 3,
    four_fields: bool = False,
    limits: contained.Limits = LIMITS,
    runner: Runner | None = None,
) -> dict[str, Any]:
    """The file against each baseline (and, with `equal_depth` D, its search at depth D
    against alphabeta:D: its heuristic against the plain one; with `against`, head to head
    against another file, both at their own depth), under the rules the file states with
    the `rules` settings over them. PlayerFault names the file that fails. The games run
    in `workers` contained processes here, or with `runner` in its tasks of GAMES_PER_TASK
    (the files shipped to them); each game's seed is its own, so the figures are the same."""
    if isinstance(baselines, str):  # as the command line names them
        baselines = [name.strip() for name in baselines.split(",") if name.strip()]
    files = [path] if against is None else [path, against]
    # Each file is loaded here first (a bad one fails once); the one measured states its rules.
    stated = [contained.run(file, _stated, [str(file)], limits=limits)[0] for file in files]
    rules_stated, search = stated[0]
    try:
        game_rules = DEFAULT_RULES.with_settings(rules_stated)
    except ValueError as error:
        raise ValueError(f"{path}: the rules it states: {error}") from None
    asked = game_rules.with_settings(rules or [])
    changed = [name for name in SCORING if getattr(asked, name) != getattr(game_rules, name)]
    if changed:
        name = changed[0]
        plays, wanted = _said(getattr(game_rules, name)), _said(getattr(asked, name))
        raise ValueError(f"{path} plays {name}={plays}, not the {name}={wanted} asked")
    game_rules = asked
    for name in baselines:
        make_bot(name, game_rules, None)
    runs = [(name, name, None, False) for name in baselines]
    if equal_depth:
        runs.append((f"equal depth {equal_depth} vs alphabeta:{equal_depth}",
                     f"alphabeta:{equal_depth}", equal_depth, False))  # fmt: skip
    if against is not None:
        runs.append((str(against), str(against), None, True))
    starts = _starts(games, seed, game_rules)
    card: dict[str, Any] = {
        "player": str(path),
        "depth": search["depth"],
        "budget_seconds": search["budget"],
        "games_per_opponent": games,
        "seed": seed,
        "rules": game_rules.changes() or "default",
        "rules_text": rules_text(game_rules),
        "asked_with": "the four fields" if four_fields else "the moves left",
        "against": {},
    }
    jobs = {
        label: [
            (str(path), opponent, seat, start, (seed + run) * 1_000_003 + number, depth, is_file)
            for number, (seat, start) in enumerate(starts)
        ]
        for run, (label, opponent, depth, is_file) in enumerate(runs)
    }
    work = partial(_work, four_fields)
    if runner is not None:
        every = [job for label in jobs for job in jobs[label]]
        shown = per_group(progress, [(label, len(tasks)) for label, tasks in jobs.items()])
        done = iter(run_on(runner, files, "supernim", work, every, size=GAMES_PER_TASK,
                           limits=limits, progress=shown))  # fmt: skip
        card["against"] = {label: summarise([next(done) for _ in jobs[label]]) for label in jobs}
        return card
    chunk = max(1, min(16, games // (4 * workers)))
    for label, tasks in jobs.items():
        shown = (lambda done, name=label: progress(name, done, games)) if progress else None
        results = contained.run(
            files, work, tasks, workers=workers, limits=limits, chunk=chunk, progress=shown
        )
        card["against"][label] = summarise(results)
    return card


def check(path: str | Path, fitted: Any, *, games: int = CHECK_GAMES) -> dict[str, Any]:
    """The figures a generated file states in its docstring: `games` games against each
    of a few baselines, under the rules the file states (those `fitted` was fitted in)."""
    return validate(path, baselines=CHECK_OPPONENTS, games=games, equal_depth=0)


def failure(card: dict[str, Any]) -> str | None:
    """The file's own invalid moves, if it made any (its opponents' are its wins)."""
    invalid = {name: row["invalid_moves"] for name, row in card["against"].items()}
    if not any(invalid.values()):
        return None
    where = ", ".join(f"{count} against {name}" for name, count in invalid.items() if count)
    return f"{card['player']}: made invalid moves: {where}"

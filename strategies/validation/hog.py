"""Validation of a Hog player in the reference engine (`mine validate hog`): exact figures.

Hog is small enough to solve: a table's win probability against any other table is
computed by dynamic programming (`solvers/hog.py`), with no sampling. The report card of a
table says what it wins against every baseline bot and the optimal strategy, what it is
guaranteed (against the opponent that exploits it best), and what was possible (the best
response to always_roll:6, the optimal guaranteed value).

A player file is measured in the rules it states (`RULES`, which `mine generate` writes:
the rules its table was solved in), else the goal its table implies, with any `--rules`
settings over them. Its strategy is its `final_strategy` asked through the course's
interface (the engine's `course_player`) in every state below the goal: only a whole number
of dice the rules allow is an answer. Anything else (a bool, a float, a string, 11) is an
invalid play: `validate` names the first, its state and value, and fails; in a tournament
(`exact`: a pairing's exact chances, no game sampled) it loses the games that reach it, and
the exact chance of that is the pairing's invalid count.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from mine.strategies import contained
from mine.strategies.bots.hog import BASELINES, make_bot
from mine.strategies.engines import hog as engine
from mine.strategies.engines import referee
from mine.strategies.engines.hog import DEFAULT_RULES, HogRules, State, as_table
from mine.strategies.engines.settings import parse as settings_parse
from mine.strategies.intervals import Outcome
from mine.strategies.player_file import PlayerFileError, load_once
from mine.strategies.runners import Runner
from mine.strategies.solvers.hog import (
    Solution,
    TurnModel,
    best_response,
    guaranteed,
    optimal,
    stuck,
    win_rates,
)
from mine.strategies.validation.shipped import run_on

GAME = "hog"
FUNCTIONS = ("final_strategy",)  # what a player file defines
LIMITS = contained.LIMITS  # a tournament's files: the harness's limits
TIMED_OUT = ()  # only the harness's clock: a disqualification
MARGIN = None  # an exact game has a winning chance, not a margin
EXTRA_ROWS = {  # the report card's figures beyond one row per opponent, and their names
    "guaranteed": "guaranteed (vs its best response)",
    "best_possible_vs_always_roll_6": "best possible vs always_roll:6",
    "optimal_guaranteed": "optimal guaranteed",
}


ROWS = ("optimal", "guaranteed", "best_possible_vs_always_roll_6")  # beside the baselines'
AGAINST = "against"  # the row of another file, head to head


def report_card(table: np.ndarray, rules: HogRules, baselines: Sequence[str]) -> dict[str, Any]:
    """A table's exact win rates in the reference rules: against each baseline bot and
    the optimal strategy, what it is guaranteed, and what was possible."""
    model = TurnModel.from_rules(rules)
    found = {row: card_row(model, rules, table, row) for row in [*baselines, *ROWS]}
    return assembled(found, rules)


def card_row(model: TurnModel, rules: HogRules, table: np.ndarray, row: str,
             other: np.ndarray | None = None) -> dict[str, Any]:  # fmt: skip
    """One row of the card: the table's rates against a baseline (by name), or one of
    ROWS (the optimal strategy's: also what it is guaranteed), or AGAINST `other`."""
    if row == "optimal":
        best = optimal(model)
        return {"rates": _rates(win_rates(model, table, best.table[0])),
                "optimal_guaranteed": _rates(best)}  # fmt: skip
    if row == "guaranteed":
        return {"rates": _rates(guaranteed(model, table))}
    if row == "best_possible_vs_always_roll_6":
        return {"rates": _rates(best_response(model, as_table(make_bot("always_roll:6", rules),
                                                              rules)))}  # fmt: skip
    opponent = other if row == AGAINST else as_table(make_bot(row, rules), rules)
    return {"rates": _rates(win_rates(model, table, opponent))}


def assembled(found: Mapping[str, dict[str, Any]], rules: HogRules) -> dict[str, Any]:
    """The card of its rows (`card_row` by row, the baselines' first, in order)."""
    baselines = [row for row in found if row not in (*ROWS, AGAINST)]
    return {
        "rules": asdict(rules),
        "against": {spec: found[spec]["rates"] for spec in [*baselines, "optimal"]},
        "guaranteed": found["guaranteed"]["rates"],
        "best_possible_vs_always_roll_6": found["best_possible_vs_always_roll_6"]["rates"],
        "optimal_guaranteed": found["optimal"]["optimal_guaranteed"],
    }


def _rates(solution: Solution) -> dict[str, float]:
    return {"first": solution.first, "second": solution.second, "average": solution.average}


def load(path: str) -> ModuleType:
    """The file's module in this worker, loaded once."""
    return load_once(path, GAME, FUNCTIONS)


_SEATS: weakref.WeakKeyDictionary[ModuleType, referee.Course] = weakref.WeakKeyDictionary()
_ASKED: weakref.WeakKeyDictionary[referee.Course, dict] = weakref.WeakKeyDictionary()


def seat(module: ModuleType) -> referee.Course:
    """The file's course player: one for each module in this worker, so that its answers
    are asked once (`asked`)."""
    if module not in _SEATS:
        _SEATS[module] = engine.course_player(module)
    return _SEATS[module]


def asked(
    player: referee.Course, rules: HogRules, strict: bool = False
) -> tuple[np.ndarray, str | None]:
    """`tabulated`, once in this worker for each player (a file's, by `seat`) and rules, as
    the file is loaded once (`load`): every row of a card and every pairing of a tournament
    plays the same table, and asking the file in every state again for each was most of
    their time. The first time asks every call under the limits. Read-only: they share it."""
    done = _ASKED.setdefault(player, {})
    if (rules, strict) not in done:
        policy, first = tabulated(player, rules, strict)
        policy.flags.writeable = False
        done[rules, strict] = policy, first
    return done[rules, strict]


def stated_rules(module: ModuleType) -> dict[str, str]:
    """The rules a file states (`RULES`, else the goal its `STRATEGY_TABLE` implies)."""
    stated = getattr(module, "RULES", None)
    if isinstance(stated, dict):
        return {k: str(v) for k, v in stated.items()}
    return {"goal": str(len(getattr(module, "STRATEGY_TABLE", ())) or DEFAULT_RULES.goal)}


def tabulated(
    player: referee.Course, rules: HogRules, strict: bool = False
) -> tuple[np.ndarray, str | None]:
    """A course player's answers in every state below the goal, as a policy (goal × goal ×
    dice: one play a state, none where the answer is invalid: the game is lost there), and
    the first invalid answer named with its state. A call that raises is an invalid play
    too, unless `strict` (`validate`: the harness names the crash)."""
    policy, first = np.zeros((rules.goal, rules.goal, rules.max_rolls + 1)), None
    for s, o in np.ndindex(rules.goal, rules.goal):
        function, arguments, read = player.ask(State(rules, None, (s, o)), 0, None)
        try:
            dice, _ = read(function(*arguments))
        except referee.Fault as wrong:
            reason = str(wrong)
        except Exception as error:  # a crash inside the call: an invalid play
            if strict:
                raise
            reason = referee.raised(error)
        else:
            policy[s, o, dice] = 1.0
            continue
        first = first or f"final_strategy({s}, {o}) {reason}"
    return policy, first


def exact(sides: Sequence[Any], swapped: bool, rules: HogRules) -> Outcome:
    """A tournament's game between two sides (bots, or files behind `seat`): A's exact
    chance to win, moving first (second when `swapped`); an invalid play loses the game
    it is made in, and each side's exact chance of that is its invalid count."""
    played = [asked(side, rules) if isinstance(side, referee.Course)
              else (as_table(side, rules), None) for side in sides]  # fmt: skip
    (a, why_a), (b, why_b) = played
    model = TurnModel.from_rules(rules)
    solution = win_rates(model, a, b)
    lost = stuck(model, a, b)[int(swapped)] if why_a or why_b else (0.0, 0.0)
    return Outcome(solution.second if swapped else solution.first, not swapped,
                   invalid=(why_a if lost[0] else None, why_b if lost[1] else None),
                   invalid_chance=(float(lost[0]), float(lost[1])))  # fmt: skip


def validate(path: Path, rules: Iterable[str] | Mapping[str, str] | None = None, *,
             against: Path | None = None, progress: Any = None,
             limits: contained.Limits = contained.LIMITS, contain: bool = True,
             runner: Runner | None = None) -> dict[str, Any]:  # fmt: skip
    """The exact report card of a player module, with the gaps to the best possible
    figures, in the rules it states with the settings `rules` over them (the card's
    `rules`). With `against`, another player file: the exact rates head to head, in the
    same rules. ValueError (`PlayerFileError` for the file) when either does not make
    sense; the files run contained (PlayerFault naming the one that fails). Each row of
    the card is one job (with `runner`, one of its tasks, the files shipped to it): exact,
    so where it ran changes nothing, and there is no count to show progress by."""
    files = [path] if against is None else [path, against]
    rows = [*BASELINES, *ROWS, *([] if against is None else [AGAINST])]
    jobs = [(str(path), rules, str(against) if against else None, row) for row in rows]
    done = run_on(runner, files, GAME, _row, jobs, size=1, limits=limits, contain=contain)
    found = dict(zip(rows, (row for _, row in done), strict=True))
    card = assembled(found, done[0][0])
    if against is not None:  # head to head: first, second and average, as each baseline
        card["against"][str(against)] = found[AGAINST]["rates"]
    card["gaps"] = {
        "best_vs_always_roll_6_minus_player": card["best_possible_vs_always_roll_6"]["average"]
        - card["against"]["always_roll:6"]["average"],
        "optimal_guaranteed_minus_player_guaranteed": card["optimal_guaranteed"]["average"]
        - card["guaranteed"]["average"],
    }
    return card


def check(path: Path, fitted: Any) -> dict[str, Any]:
    """What a generated file states in its docstring: its exact report card (in the rules
    it states, its table's)."""
    return validate(path)


def failure(card: Mapping[str, Any]) -> None:
    """An exact card always holds: a file's invalid play fails it before there is a card."""
    return None


def _row(job: tuple) -> tuple[HogRules, dict[str, Any]]:
    """One row of the card, in a contained worker: the rules the file is measured in (its
    own with the settings over them) and its `card_row`."""
    path, settings, against, row = job
    stated = {**stated_rules(load(path)), **settings_parse(settings or [])}
    rules = DEFAULT_RULES.with_settings(stated)
    other = _table(against, rules) if row == AGAINST else None
    return rules, card_row(TurnModel.from_rules(rules), rules, _table(path, rules), row, other)


def _table(path: str, rules: HogRules) -> np.ndarray:
    """A file's strategy as its table in `rules`; PlayerFileError at its first invalid play."""
    policy, invalid = asked(seat(load(path)), rules, strict=True)
    if invalid:
        raise PlayerFileError(f"{path}: an invalid play: {invalid}")
    return policy.argmax(axis=-1)


def card_rows(card: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The report card as rows: against, first, second, average (one per opponent, then
    what it is guaranteed and what was possible)."""
    named = [*card["against"].items(), *((name, card[key]) for key, name in EXTRA_ROWS.items())]
    return [{"against": name, **{k: rates[k] for k in ("first", "second", "average")}}
            for name, rates in named]  # fmt: skip

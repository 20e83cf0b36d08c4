"""Validation of a Hog player in the reference engine (`mine validate hog`): exact figures.

Hog is small enough to solve: a table's win probability against any other table is
computed by dynamic programming (`solvers/hog.py`), with no sampling. The report card of a
table says what it wins against every baseline bot and the optimal strategy, what it is
guaranteed (against the opponent that exploits it best), and what was possible (the best
response to always_roll:6, the optimal guaranteed value).

A player file is measured in the rules it states (`RULES`, which `mine generate` writes:
the rules its table was solved in), else the goal its table implies, with any `--rules`
settings over them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from mine.strategies import contained
from mine.strategies.bots.hog import BASELINES, make_bot
from mine.strategies.engines.hog import DEFAULT_RULES, HogRules, Strategy, as_table
from mine.strategies.engines.settings import parse as settings_parse
from mine.strategies.player_file import PlayerFileError, load_module
from mine.strategies.solvers.hog import (
    Solution,
    TurnModel,
    best_response,
    guaranteed,
    optimal,
    win_rates,
)

GAME = "hog"
FUNCTIONS = ("final_strategy",)  # what a player file defines
EXTRA_ROWS = {  # the report card's figures beyond one row per opponent, and their names
    "guaranteed": "guaranteed (vs its best response)",
    "best_possible_vs_always_roll_6": "best possible vs always_roll:6",
    "optimal_guaranteed": "optimal guaranteed",
}


def report_card(table: np.ndarray, rules: HogRules, baselines: Sequence[str]) -> dict[str, Any]:
    """A table's exact win rates in the reference rules: against each baseline bot and
    the optimal strategy, what it is guaranteed, and what was possible."""
    model = TurnModel.from_rules(rules)
    best = optimal(model)

    def rates(solution: Solution) -> dict[str, float]:
        return {"first": solution.first, "second": solution.second, "average": solution.average}

    against = {
        spec: rates(win_rates(model, table, as_table(make_bot(spec, rules), rules)))
        for spec in baselines
    }
    against["optimal"] = rates(win_rates(model, table, best.table[0]))
    always_6 = as_table(make_bot("always_roll:6", rules), rules)
    return {
        "rules": asdict(rules),
        "against": against,
        "guaranteed": rates(guaranteed(model, table)),
        "best_possible_vs_always_roll_6": rates(best_response(model, always_6)),
        "optimal_guaranteed": rates(best),
    }


def load_player(path: Path) -> tuple[Strategy, dict[str, str]]:
    """The module's `final_strategy` and the rules it states (`RULES`, else the goal its
    `STRATEGY_TABLE` implies)."""
    module = load_module(path, GAME, FUNCTIONS)
    strategy = module.final_strategy
    stated = getattr(module, "RULES", None)
    if isinstance(stated, dict):
        return strategy, {k: str(v) for k, v in stated.items()}
    goal = len(getattr(module, "STRATEGY_TABLE", ())) or DEFAULT_RULES.goal
    return strategy, {"goal": str(goal)}


def file_table(path: Path | str, strategy: Strategy, rules: HogRules) -> np.ndarray:
    """A file's `final_strategy` as its table in `rules` (PlayerFileError if it is not)."""
    try:
        return as_table(strategy, rules)
    except (ValueError, TypeError, IndexError) as error:
        raise PlayerFileError(
            f"{path}: final_strategy is not a Hog strategy here ({error})"
        ) from None


def validate(
    path: Path,
    rules: Iterable[str] | Mapping[str, str] | None = None,
    *,
    against: Path | None = None,
    progress: Any = None,
    limits: contained.Limits = contained.LIMITS,
    contain: bool = True,
) -> dict[str, Any]:
    """The exact report card of a player module, with the gaps to the best possible
    figures, in the rules it states with the settings `rules` over them (the card's
    `rules`). With `against`, another player file: the exact rates head to head, in the
    same rules. ValueError (`PlayerFileError` for the file) when either does not make
    sense; the files run contained (PlayerFault naming the one that fails). Exact: there
    is no count to show progress by."""
    files = [path] if against is None else [path, against]
    task = (path, rules, against)
    return contained.run(files, _card, [task], limits=limits, contain=contain)[0]


def check(path: Path, fitted: Any) -> dict[str, Any]:
    """What a generated file states in its docstring: its exact report card (in the rules
    it states, its table's)."""
    return validate(path)


def failure(card: Mapping[str, Any]) -> None:
    """An exact card always holds: a strategy that is not one fails to load instead."""
    return None


def _card(task: tuple) -> dict[str, Any]:
    path, settings, against = task
    strategy, stated = load_player(path)
    rules = DEFAULT_RULES.with_settings({**stated, **settings_parse(settings or [])})
    table = file_table(path, strategy, rules)
    card = report_card(table, rules, BASELINES)
    if against is not None:  # head to head: first, second and average, as each baseline
        other = file_table(against, load_player(against)[0], rules)
        rates = win_rates(TurnModel.from_rules(rules), table, other)
        card["against"][str(against)] = {
            "first": rates.first, "second": rates.second, "average": rates.average
        }  # fmt: skip
    card["gaps"] = {
        "best_vs_always_roll_6_minus_player": card["best_possible_vs_always_roll_6"]["average"]
        - card["against"]["always_roll:6"]["average"],
        "optimal_guaranteed_minus_player_guaranteed": card["optimal_guaranteed"]["average"]
        - card["guaranteed"]["average"],
    }
    return card


def card_rows(card: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The report card as rows: against, first, second, average (one per opponent, then
    what it is guaranteed and what was possible)."""
    named = [*card["against"].items(), *((name, card[key]) for key, name in EXTRA_ROWS.items())]
    return [
        {"against": name, **{k: rates[k] for k in ("first", "second", "average")}}
        for name, rates in named
    ]

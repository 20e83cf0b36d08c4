"""Validation of a Hog player in the reference engine (`mine validate hog`): exact figures.

Hog is small enough to solve: a table's win probability against any other table is
computed by dynamic programming (`solvers/hog.py`), with no sampling. The report card of a
table says what it wins against every baseline bot and the optimal strategy, what it is
guaranteed (against the opponent that exploits it best), and what was possible (the best
response to always_roll:6, the optimal guaranteed value).

A fitted table is measured in the rules it was solved in (its metadata's learned rules);
a player file in the rules it states (`RULES`), else the goal its table implies, with any
`--rules` settings over them. Reading a table file is the pipeline's part (strategies do
not import models): the functions here take the table and its metadata.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from mine.strategies import contained
from mine.strategies.bots.hog import BASELINES
from mine.strategies.codegen.hog import write_module
from mine.strategies.engines.hog import DEFAULT_RULES, HogRules, Strategy, as_table
from mine.strategies.engines.settings import parse as settings_parse
from mine.strategies.player_file import PlayerFileError, load_module
from mine.strategies.solvers.hog import TurnModel, report_card, win_rates

GAME = "hog"
EXTRA_ROWS = {  # the report card's figures beyond one row per opponent, and their names
    "guaranteed": "guaranteed (vs its best response)",
    "best_possible_vs_always_roll_6": "best possible vs always_roll:6",
    "optimal_guaranteed": "optimal guaranteed",
}


def reference_rules(metadata: Mapping[str, Any]) -> HogRules:
    """The rules a fitted table was solved in: the ones its metadata says were learned."""
    learned = metadata.get("learned", {})
    return HogRules(
        goal=int(learned.get("goal", 100)),
        dice_sides=int(learned.get("dice_sides", 6)),
        max_rolls=int(learned.get("max_rolls", 10)),
        sow_sad=bool(learned.get("sow_sad", True)),
        square_swine=bool(learned.get("square_swine", True)),
    )


def table_card(table: np.ndarray, metadata: Mapping[str, Any]) -> tuple[dict[str, Any], HogRules]:
    """A fitted table's exact report card in its reference rules, and those rules."""
    rules = reference_rules(metadata)
    return report_card(table, rules, BASELINES), rules


def write_player(table: np.ndarray, metadata: dict[str, Any], out: Path) -> dict[str, Any]:
    """Write the player module of a fitted table, its report card in the docstring and
    its rules as `RULES`; returns the card."""
    card, rules = table_card(table, metadata)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_module(out, table, metadata, card, rules=asdict(rules))
    return card


def load_player(path: Path) -> tuple[Strategy, dict[str, str]]:
    """The module's `final_strategy` and the rules it states (`RULES`, else the goal its
    `STRATEGY_TABLE` implies)."""
    module = load_module(path, GAME, ("final_strategy",))
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


def validate_player(
    path: Path,
    settings: Iterable[str] | Mapping[str, str] | None = None,
    limits: contained.Limits = contained.LIMITS,
    contain: bool = True,
    against: Path | None = None,
) -> tuple[dict[str, Any], HogRules]:
    """The exact report card of a player module, with the gaps to the best possible
    figures, in the rules it states with `settings` over them; and those rules. With
    `against`, another player file: the exact rates head to head, in the same rules.
    ValueError (`PlayerFileError` for the file) when either does not make sense; the files
    run contained (PlayerFault naming the one that fails)."""
    files = [path] if against is None else [path, against]
    task = (path, settings, against)
    return contained.run(files, _card, [task], limits=limits, contain=contain)[0]


def _card(task: tuple) -> tuple[dict[str, Any], HogRules]:
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
    return card, rules


def card_rows(card: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The report card as rows: against, first, second, average (one per opponent, then
    what it is guaranteed and what was possible)."""
    named = [*card["against"].items(), *((name, card[key]) for key, name in EXTRA_ROWS.items())]
    return [
        {"against": name, **{k: rates[k] for k in ("first", "second", "average")}}
        for name, rates in named
    ]

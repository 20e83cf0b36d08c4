"""Hog head to head: the exact win probability of one strategy against another.

Hog is solved exactly (`solvers/hog.py`): a game here is not sampled but the exact
chance that A wins when A moves first (and, seats swapped, when B moves first), so a
pairing has no sampling error and its `games` only weigh it in the ratings. A file's
strategy is its `final_strategy` tabulated in the tournament's rules (the rules'
defaults with `--rules` over them), as `mine validate hog` tabulates it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mine.strategies import contained
from mine.strategies.bots.hog import BASELINES, make_bot
from mine.strategies.engines.hog import DEFAULT_RULES, HogRules, as_table
from mine.strategies.solvers.hog import TurnModel, win_rates
from mine.strategies.tournament import Entrant, Outcome
from mine.strategies.validation.hog import file_table, load_player

BOTS = BASELINES
EXACT = True
LIMITS = contained.LIMITS
TIMED_OUT = ()  # only the harness's clock: a disqualification
MARGIN = None  # an exact game has a winning chance, not a margin

_WORKER: dict[Any, Any] = {}  # this worker's loaded files, tables and solutions


def check_bot(spec: str, rules: HogRules | None) -> None:
    make_bot(spec, rules or DEFAULT_RULES)


def load(path: str) -> Any:
    if ("file", path) not in _WORKER:
        _WORKER["file", path] = load_player(path)[0]
    return _WORKER["file", path]


def _table(entrant: Entrant, rules: HogRules) -> np.ndarray:
    if entrant.file is not None:
        return file_table(entrant.file, load(entrant.file), rules)
    return as_table(make_bot(entrant.name, rules), rules)


def play(
    a: Entrant, b: Entrant, deal: int, swapped: bool, seed: int, context: HogRules | None
) -> Outcome:
    """A's exact chance to win, moving first (or second when `swapped`), in the rules
    `context` (the defaults when None)."""
    rules = context or DEFAULT_RULES
    key = ("pair", a, b, rules)
    if key not in _WORKER:
        _WORKER[key] = win_rates(TurnModel.from_rules(rules), _table(a, rules), _table(b, rules))
    solution = _WORKER[key]
    return Outcome(solution.second if swapped else solution.first, a_first=not swapped)

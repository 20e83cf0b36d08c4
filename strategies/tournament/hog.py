"""Hog head to head: the exact win probability of one strategy against another.

Hog is solved exactly (`solvers/hog.py`): a game here is not sampled but the exact
chance that A wins when A moves first (and, seats swapped, when B moves first), so a
pairing has no sampling error and its `games` only weigh it in the ratings. A file's
strategy is its `final_strategy` tabulated in the tournament's rules (the rules'
defaults with `--rules` over them), as `mine validate hog` tabulates it. Where it
answers with dice the rules do not allow (11, -1, "3") or raises, that is its invalid
play: a game that reaches such a state is lost there, and the exact chance of that is
the pairing's invalid count.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mine.strategies import contained
from mine.strategies.bots.hog import BASELINES, make_bot
from mine.strategies.engines.hog import DEFAULT_RULES, HogRules, as_table
from mine.strategies.solvers.hog import TurnModel, stuck, win_rates
from mine.strategies.tournament import Entrant, Outcome
from mine.strategies.validation.hog import load_player

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


def _policy(entrant: Entrant, rules: HogRules) -> tuple[np.ndarray, str | None]:
    """The entrant's strategy as a policy (goal × goal × dice, one play per state), no
    play where its answer is invalid; the first invalid answer's reason (None: none)."""
    width = rules.max_rolls + 1
    if entrant.file is None:
        return np.eye(width)[as_table(make_bot(entrant.name, rules), rules)], None
    strategy = load(entrant.file)
    policy = np.zeros((rules.goal, rules.goal, width))
    first = None
    for s in range(rules.goal):
        for o in range(rules.goal):
            try:
                dice = strategy(s, o)
            except Exception as error:  # a crash inside the call: an invalid play
                reason = f"final_strategy({s}, {o}) raised {type(error).__name__}: {error}"
            else:
                if isinstance(dice, int) and rules.min_rolls <= dice <= rules.max_rolls:
                    policy[s, o, dice] = 1.0
                    continue
                reason = (f"final_strategy({s}, {o}) returned {dice!r} (the rules allow "
                          f"{rules.min_rolls}..{rules.max_rolls} dice)")  # fmt: skip
            first = first or reason
    return policy, first


def play(
    a: Entrant, b: Entrant, deal: int, swapped: bool, seed: int, context: HogRules | None
) -> Outcome:
    """A's exact chance to win, moving first (or second when `swapped`), in the rules
    `context` (the defaults when None); an invalid play loses the game it is made in."""
    rules = context or DEFAULT_RULES
    key = ("pair", a, b, rules)
    if key not in _WORKER:
        model = TurnModel.from_rules(rules)
        (policy_a, why_a), (policy_b, why_b) = _policy(a, rules), _policy(b, rules)
        lost = stuck(model, policy_a, policy_b) if why_a or why_b else np.zeros((2, 2))
        _WORKER[key] = (win_rates(model, policy_a, policy_b), lost, (why_a, why_b))
    solution, lost, why = _WORKER[key]
    chance = lost[1 if swapped else 0]
    return Outcome(
        solution.second if swapped else solution.first,
        a_first=not swapped,
        invalid=(why[0] if chance[0] else None, why[1] if chance[1] else None),
        invalid_chance=(float(chance[0]), float(chance[1])),
    )

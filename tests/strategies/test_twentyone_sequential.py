"""`mine validate twentyone`'s flat bets stop at the first look whose intervals decide
(issue 41): a clear case stops early with the verdict the whole run gives, an undecided
one runs to the cap; the looks' intervals hold over all the looks (Bonferroni)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mine.strategies import intervals
from mine.strategies.codegen.twentyone import write_module
from mine.strategies.engines.twentyone import STAND, TwentyOneRules
from mine.strategies.engines.twentyone_chart import Chart, Strategy
from mine.strategies.solvers.twentyone import solve
from mine.strategies.validation.twentyone import NEAR_OPTIMUM, load_player, validate
from mine.strategies.validation.twentyone_evaluator import (
    FLAT_CHUNK,
    FilePolicy,
    baseline_policies,
    flat_returns,
)
from tests.strategies.test_twentyone_codegen import BIDS, METADATA

RULES = TwentyOneRules()
CAP = 2 * FLAT_CHUNK  # two looks: at 100,000 hands and at 200,000


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The optimal chart's file (near the optimum: undecided at these sizes) and a file
    that stands on everything (far from it, and behind the baselines: clear at once)."""
    best = solve(RULES).chart
    folder = tmp_path_factory.mktemp("sequential")
    stands = Chart(np.full_like(best.hand, STAND), np.zeros_like(best.split),
                   np.zeros_like(best.insure))  # fmt: skip
    for name, chart in (("best", best), ("stands", stands)):
        write_module(folder / f"{name}.py", Strategy(chart, BIDS, (), METADATA))
    return folder


def measured(path) -> dict:
    return validate(path, hands=CAP, games=0, exact=False, seed=3)["flat_bet"]


def test_a_clear_case_stops_at_the_first_look_with_the_whole_runs_verdicts(files):
    flat = measured(files / "stands.py")
    assert flat["looks"] == [FLAT_CHUNK, CAP]
    assert flat["hands"] == FLAT_CHUNK  # stopped at the first look
    assert (flat["within_0.005_of_optimum"], flat["beats_every_baseline_95"]) == ("no", "no")
    # the whole run, on the same cards, with the plain 95 % intervals: the same verdicts
    policies = {"player": FilePolicy(load_player(files / "stands.py")),
                **baseline_policies(RULES)}  # fmt: skip
    whole = flat_returns(policies, RULES, CAP, 3, RULES.decks, "player")
    low, high = whole["player"]["return"]["ci95"]
    optimum = flat["gap_to_optimum"]["optimum"]
    assert intervals.at_most([optimum - high, optimum - low], NEAR_OPTIMUM) == "no"
    leads = [whole[name]["player_minus_this"]["ci95"] for name in flat["baselines"]]
    assert intervals.all_of([intervals.at_least(lead, 0.0) for lead in leads]) == "no"


def test_an_undecided_case_runs_to_the_cap(files):
    flat = measured(files / "best.py")
    assert flat["hands"] == CAP
    assert flat["within_0.005_of_optimum"] == "undecided"
    low, high = flat["gap_to_optimum"]["ci95"]
    assert low < NEAR_OPTIMUM < high


@given(st.integers(1, 10_000))
def test_the_looks_are_fixed_by_the_cap_and_end_at_it(cap):
    looks = intervals.looks(cap)
    assert looks == sorted(set(looks)) and looks[-1] == cap and looks[0] >= cap / 4
    assert len(looks) <= 3


def test_more_looks_widen_the_interval_and_one_look_keeps_the_plain_one():
    assert intervals.z_of(1) == intervals.Z95
    assert intervals.Z95 < intervals.z_of(2) < intervals.z_of(3)
    assert intervals.z_of(3) == pytest.approx(2.394, abs=1e-3)  # 1 - 0.05/3, two-sided

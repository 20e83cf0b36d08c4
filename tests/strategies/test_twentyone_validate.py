"""`mine validate twentyone`: the same-shoes evaluator and the JSON a script reads."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from mine.pipeline.cli import app
from mine.strategies.codegen.twentyone import write_module
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.strategies.solvers.twentyone import chart_value, solve
from mine.strategies.validation.twentyone import (
    ChartPolicy,
    baseline_policies,
    deal_rows,
    flat_returns,
    play_rows,
)
from tests.strategies.test_twentyone_codegen import BIDS, METADATA


def test_evaluator_agrees_with_the_exact_values():
    rules = TwentyOneRules()
    best = solve(rules)
    baselines = baseline_policies(rules)
    policies = {
        "best": ChartPolicy(best.chart),
        "textbook": baselines["textbook"],
        "random": baselines["random"],
    }
    result = flat_returns(policies, rules, 100_000, seed=3, decks=None, reference="best")
    low, high = result["best"]["return"]["ci95"]
    assert low <= best.ev <= high
    textbook = chart_value(rules, _textbook_chart(rules))
    low, high = result["textbook"]["return"]["ci95"]
    assert low <= textbook <= high
    assert result["best"]["best_minus_this"]["mean"] == 0.0  # paired: the same shoes
    assert result["textbook"]["best_minus_this"]["ci95"][0] > 0
    assert result["random"]["return"]["mean"] < -0.3


def _textbook_chart(rules):
    from mine.strategies.bots.twentyone import Textbook
    from mine.strategies.validation.twentyone import chart_of_bot

    return chart_of_bot(Textbook(rules), rules)


def test_every_policy_sees_the_same_cards():
    rules = TwentyOneRules()
    ranks = deal_rows(5_000, 15, np.random.default_rng(0), decks=3)
    assert ranks.min() >= 1 and ranks.max() <= 13
    # no card appears more often in a row than three decks hold it (by rank: 12 times)
    counts = np.apply_along_axis(np.bincount, 1, ranks, minlength=14)
    assert counts.max() <= 12
    chart = solve(rules).chart
    first = play_rows(ChartPolicy(chart), ranks, rules, np.random.default_rng(1))
    again = play_rows(ChartPolicy(chart), ranks, rules, np.random.default_rng(2))
    assert (first == again).all()  # a chart is deterministic given the cards


@pytest.fixture(scope="module")
def player(tmp_path_factory):
    path = tmp_path_factory.mktemp("val") / "player.py"
    write_module(path, solve(TwentyOneRules()).chart, BIDS, METADATA)
    return path


def test_validate_json_has_the_expected_fields(player):
    result = CliRunner().invoke(
        app,
        ["validate", "twentyone", str(player), "--hands", "20000", "--games", "2", "--json"],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    flat = report["flat_bet"]
    assert flat["hands"] == 20_000 and flat["decks"] == 3
    assert set(flat["baselines"]) == {"textbook", "dealer", "cautious", "random", "explorer"}
    for row in flat["baselines"].values():
        assert len(row["return"]["ci95"]) == 2 and len(row["player_minus_this"]["ci95"]) == 2
    assert set(flat["exact_optimum"]) == {"infinite_deck", "3_decks"}
    assert flat["exact_value_of_player_chart_infinite_deck"] == pytest.approx(
        flat["exact_optimum"]["infinite_deck"]
    )
    assert isinstance(flat["within_0.005_of_optimum"], bool)
    games = report["games"]
    assert games["games"] == 2 and len(games["seats"]) == 10
    assert sum(games["players"]["player"]["rank_distribution"]) == 2
    assert "bid_gain_vs_flat_minimum" in games
    assert report["invalid_actions"] == 0
    assert 0 < report["decision_p99_cpu_seconds"] < 1


def test_validate_rejects_what_is_not_a_player(tmp_path):
    runner = CliRunner()
    missing = runner.invoke(app, ["validate", "twentyone", str(tmp_path / "none.py")])
    assert missing.exit_code == 1 and "no such file" in missing.output
    other = tmp_path / "other.py"
    other.write_text("x = 1\n")
    assert runner.invoke(app, ["validate", "twentyone", str(other)]).exit_code == 1
    bad_rule = runner.invoke(app, ["validate", "twentyone", str(other), "--rules", "nope=1"])
    assert bad_rule.exit_code == 1

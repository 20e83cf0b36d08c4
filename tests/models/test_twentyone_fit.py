"""The TwentyOne fitter learns the game from logs alone and solves it: on modest simulated
data it recovers the exact optimum's actions, and it follows a rules variant it is not
told about."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from mine.models import tables
from mine.models import twentyone as model
from mine.models.tables import read
from mine.pipeline.stats.twentyone import fit_inputs
from mine.strategies.bots.twentyone import make_bot
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.strategies.engines.twentyone_chart import MAIN
from mine.strategies.solvers.twentyone import _deals, _Solver, chart_value, game_of, solve
from mine.warehouse.connection import connect
from mine.warehouse.ingest import ingest
from tests.strategies.twentyone_games import play, write

SEATS = (
    "textbook",
    "dealer",
    "cautious",
    "random",
    "explorer:textbook:0.3",
    "explorer:dealer:0.3",
    "explorer:cautious:0.3",
    "random",
    "textbook",
    "dealer",
)
CHARLIE_6 = TwentyOneRules(charlie_cards=6)


def fitted_on(tmp_path_factory, rules: TwentyOneRules, games: int, seed: int):
    root = tmp_path_factory.mktemp("t21fit")
    (root / "logs").mkdir()
    for game in range(games):
        rngs = [np.random.default_rng([seed, game, k]) for k in range(len(SEATS) + 1)]
        players = {str(i + 1): make_bot(s, rules, rngs[i + 1]) for i, s in enumerate(SEATS)}
        write(play(rules, players, rngs[0]), "1", root / "logs", f"g{game}")
    con = connect(root / "w.duckdb")
    try:
        # Ingest verifies the logs under the rules they were played by; the fit is not told.
        assert ingest(con, [root / "logs"], rules={"twentyone": rules}).ok
        data = fit_inputs(con)
    finally:
        con.close()
    return model.fit(data)


@pytest.fixture(scope="module")
def default_fit(tmp_path_factory):
    return fitted_on(tmp_path_factory, TwentyOneRules(), games=2, seed=1)


@pytest.fixture(scope="module")
def charlie6_fit(tmp_path_factory):
    return fitted_on(tmp_path_factory, CHARLIE_6, games=2, seed=2)


def clear_cells(rules: TwentyOneRules, margin: float = 0.002, most_cards: int = 3):
    """(up, total, soft, n index, best action) of the common cells: every hand state of
    two or three cards the exact solver reaches in a main hand where the best action
    beats every other by more than `margin`. (Longer hands are rare in modest logs; the
    chart's value below covers them.)"""
    cells = []
    for up in range(1, 11):
        solver = _Solver(game_of(rules), None, up, None)
        for v1, v2, splittable, _ in _deals(None, up):
            solver.first(v1, v2, splittable, MAIN)
        for (context, total, soft, n, _), votes in solver.q.items():
            ranked = sorted(votes[1:4], reverse=True)  # STAND, HIT, DOUBLE (0 is unused)
            if context == MAIN and n + 2 <= most_cards and ranked[0] - ranked[1] > margin:
                best = int(np.argmax(votes[1:4])) + 1
                cells.append((up, total, soft, n, best))
    return cells


def test_learns_the_default_game(default_fit):
    learned = default_fit.metadata["learned"]
    assert learned["decks"] == 3
    assert learned["dealer_rule"]["hits_hard_up_to"] == 16
    assert learned["dealer_rule"]["hits_soft_17"] is False
    assert learned["dealer_rule"]["card_limit"] is None  # the dealer draws past five cards
    assert learned["player_card_limit"] == 5
    payoffs = learned["payoffs"]
    assert payoffs["win (20 vs 19)"] == pytest.approx(2.0)
    assert payoffs["push (19 vs 19)"] == pytest.approx(1.0)
    assert payoffs["two-card 21 vs 20"] == pytest.approx(2.5, abs=0.01)
    assert payoffs["5-card 18 vs 20"] == pytest.approx(2.0)  # Charlie
    assert payoffs["5-card 24 vs 20"] == 0.0  # bust first
    assert learned["insurance_net"]["win"] == pytest.approx(1.5, abs=0.02)
    assert (learned["min_bid"], learned["max_bid"]) == (10, 100)


def test_recovers_the_exact_optimum_in_the_clear_cells(default_fit):
    rules = TwentyOneRules()
    chart = default_fit.chart
    cells = clear_cells(rules)
    assert len(cells) > 200
    wrong = [c for c in cells if chart.hand[MAIN, c[0], c[1], c[2], c[3]] != c[4]]
    assert wrong == []
    optimum = solve(rules)
    assert chart_value(rules, chart) == pytest.approx(optimum.ev, abs=5e-4)
    assert default_fit.metadata["model_ev"] == pytest.approx(optimum.ev, abs=0.005)


def test_follows_a_charlie_at_six_cards_it_was_not_told_about(default_fit, charlie6_fit):
    learned = charlie6_fit.metadata["learned"]
    assert learned["player_card_limit"] == 6
    assert learned["dealer_rule"]["card_limit"] in (6, None)  # 6-card dealers are rare
    assert learned["payoffs"]["5-card 18 vs 20"] == pytest.approx(0.0)  # no Charlie at 5
    assert learned["payoffs"]["6-card 18 vs 20"] == pytest.approx(2.0)
    chart = charlie6_fit.chart
    wrong = [c for c in clear_cells(CHARLIE_6) if chart.hand[MAIN, c[0], c[1], c[2], c[3]] != c[4]]
    assert wrong == []
    best = solve(CHARLIE_6).ev
    assert chart_value(CHARLIE_6, chart) == pytest.approx(best, abs=5e-4)
    # the default game's chart is measurably worse in this game
    assert chart_value(CHARLIE_6, default_fit.chart) < best - 0.002


def test_learns_the_earlier_dealer_limit(tmp_path_factory):
    limited = fitted_on(tmp_path_factory, TwentyOneRules(dealer_card_limit=5), games=1, seed=3)
    assert limited.metadata["learned"]["dealer_rule"]["card_limit"] == 5


def test_bid_table_bids_up_where_the_model_favours_the_player(default_fit):
    bids = pl.DataFrame(default_fit.metadata["count_play"])
    assert bids["rounds"].sum() > 0
    for row in bids.iter_rows(named=True):
        assert row["bid"] == (100 if row["ev"] > 0 else 10)
    # the count matters in the model: the value rises with the true count
    evs = bids.sort("tc_low")["ev"].to_list()
    assert evs[-1] > evs[len(evs) // 2] > evs[0]


def test_table_file_round_trips(default_fit, tmp_path):
    path = model.write_table(tmp_path / "t.parquet", default_fit)
    frame, metadata = read(path, "twentyone", model.KIND)
    assert metadata["fingerprint"] == default_fit.metadata["fingerprint"]
    assert len(metadata["fingerprint"]) == 64
    chart = model.chart_from_frame(frame)
    assert (chart.hand == default_fit.chart.hand).all()
    assert (chart.split == default_fit.chart.split).all()
    assert (chart.insure == default_fit.chart.insure).all()
    assert model.bids_from_frame(frame) == list(default_fit.bids)
    counted = model.count_charts_from_frame(frame)
    assert counted  # some cells are played otherwise at some count
    fitted = {(low, high): c for low, high, c in default_fit.count_charts}
    for low, high, chart in counted:
        assert (chart.hand == fitted[low, high].hand).all()
        assert (chart.split == fitted[low, high].split).all()
        assert (chart.insure == fitted[low, high].insure).all()
    # what `read_table` gives back is the strategy the fit made: written again, the same bytes
    again = model.write_table(tmp_path / "again.parquet", model.read_table(path))
    assert again.read_bytes() == path.read_bytes()
    assert tables.metadata_path(again).read_text() == tables.metadata_path(path).read_text()


def test_fitter_never_reads_the_rules():
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(model))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert "TwentyOneRules" not in names
    assert "strategies.engines.twentyone" not in modules

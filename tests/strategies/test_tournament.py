"""The round robin's core (ratings, intervals, seats) and every game's match: tiny
tournaments between a generated player, a baseline bot and a file that misbehaves."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from mine.strategies import tournament as core
from mine.strategies.contained import Limits
from mine.strategies.engines.cardguess import CardGuessRules
from mine.strategies.engines.ginrummy import GinRummyRules
from mine.strategies.engines.hog import HogRules
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.strategies.player_file import PlayerFileError
from mine.strategies.tournament import Outcome, fit_ratings, paired_margin, wilson
from mine.strategies.tournament.match import Context, Match
from tests.strategies.tournament_players import faulty, generated

QUICK = Limits(import_seconds=5.0, call_seconds=0.5)


# --- ratings -------------------------------------------------------------------------------


def _synthetic(truth: list[float], games: int, rng, draw_share: float = 0.0):
    """Results of every pair drawn from the Bradley–Terry model at `truth` (Elo scale);
    a share of the games are draws (half a win each)."""
    results = []
    for i in range(len(truth)):
        for j in range(i + 1, len(truth)):
            p = 1 / (1 + 10 ** ((truth[j] - truth[i]) / 400))
            draws = rng.binomial(games, draw_share)
            wins = rng.binomial(games - draws, p)
            results.append((i, j, wins + draws / 2, games))
    return results


def test_the_fit_recovers_known_strengths():
    truth = [1800.0, 1650.0, 1500.0, 1400.0, 1250.0]
    anchored = np.array(truth) - np.mean(truth) + 1500
    ratings, plus = fit_ratings(len(truth), _synthetic(truth, 3000, np.random.default_rng(5)))
    assert abs(ratings.mean() - 1500) < 1e-6
    assert np.all(np.abs(ratings - anchored) < 25)
    assert np.all(np.abs(ratings - anchored) < plus)  # each truth inside its interval here
    assert list(np.argsort(-ratings)) == [0, 1, 2, 3, 4]
    assert np.all((plus > 5) & (plus < 40))


def test_more_games_narrow_the_intervals_and_draws_count_half():
    truth = [1600.0, 1400.0]
    few = fit_ratings(2, _synthetic(truth, 100, np.random.default_rng(1)))[1]
    many = fit_ratings(2, _synthetic(truth, 10_000, np.random.default_rng(1)))[1]
    assert np.all(many < few / 5)
    even, _ = fit_ratings(3, [(0, 1, 50.0, 100), (1, 2, 50.0, 100), (0, 2, 50.0, 100)])
    assert np.allclose(even, 1500)  # all draws: everyone equal
    # 75 % of the score is a 191-point gap at any mix of wins and draws
    mixed, _ = fit_ratings(2, [(0, 1, 75.0, 100)], prior_draws=0)
    assert mixed[0] - mixed[1] == pytest.approx(400 * math.log10(3), abs=1e-6)


def test_a_perfect_record_has_a_finite_rating_and_the_order_does_not_matter():
    results = [(0, 1, 10.0, 10), (1, 2, 7.0, 10), (0, 2, 10.0, 10)]
    ratings, plus = fit_ratings(3, results)
    assert np.all(np.isfinite(ratings)) and np.all(np.isfinite(plus))
    assert ratings[0] > ratings[1] > ratings[2]
    again, _ = fit_ratings(3, results[::-1])
    assert np.allclose(ratings, again)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 60), st.integers(1, 60))
def test_the_wilson_interval_holds_the_rate(successes, extra):
    n = successes + extra
    low, high = wilson(successes, n)
    assert 0 <= low <= successes / n <= high <= 1


def test_the_intervals_match_the_textbook_figures():
    assert wilson(5, 10) == pytest.approx([0.236593, 0.763407], abs=1e-6)
    margins = [3.0, -1.0, 5.0, 1.0, 0.0, 2.0]  # three deals, each from both seats
    outcomes = [Outcome(0.5, k % 2 == 0, m) for k, m in enumerate(margins)]
    per_deal = np.array([1.0, 3.0, 1.0])
    half = stats.t.ppf(0.975, 2) * per_deal.std(ddof=1) / math.sqrt(3)
    margin = paired_margin(outcomes)
    assert margin["deals"] == 3 and margin["mean"] == pytest.approx(5 / 3, abs=1e-6)
    assert margin["ci95"] == pytest.approx([5 / 3 - half, 5 / 3 + half], abs=1e-5)


# --- every game: a tiny tournament -----------------------------------------------------------

CASES = {  # game: (context, bot, how the faulty file fails, games per pairing)
    "hog": (Context(HogRules(goal=40)), "always_roll:6", "loops", 20),
    "ginrummy": (Context(GinRummyRules(game_target=30)), "simple", "raises", 4),
    "supernim": (None, "random", "raises", 4),
    "twentyone": (Context(TwentyOneRules(rounds=30)), "textbook", "raises", 2),
    "cardguess": (Context(CardGuessRules(n=2)), "first-consistent", "loops", 4),
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("players")


@pytest.mark.parametrize("game", list(CASES))
def test_a_tiny_tournament_ranks_the_faulty_file_last(game, folder):
    context, bot, how, count = CASES[game]
    match = Match(game)
    good, bad = generated(game, folder), faulty(game, folder, how)
    entrants = core.entrants_of([good, bad], [bot], match, context)
    result = core.round_robin(match, entrants, count, 3, context, limits=QUICK)
    last = result["standings"][-1]
    assert last["name"] == str(bad) and last["rank"] == 3
    assert [row["rank"] for row in result["standings"]] == [1, 2, 3]
    if how == "loops":  # a time-out disqualifies: not rated, its pairings void
        assert "ran over its 0.5 s limit" in last["disqualified"]
        assert last["rating"] is None and str(bad) in result["disqualified"]
        assert all("void" in p for p in result["pairings"] if str(bad) in (p["a"], p["b"]))
    else:  # an invalid play loses the game it was made in
        assert last["disqualified"] is None and last["invalid"] == 2 * count
        assert last["score"] == 0 and last["rating"] < result["standings"][0]["rating"]
    played = [p for p in result["pairings"] if "void" not in p]
    assert played, result
    for pairing in played:  # seats rotated: each side first equally often
        assert pairing["a_first"] == pairing["b_first"] == pairing["games"] // 2
        low, high = pairing["a_score_ci95"]
        assert low <= pairing["a_score_rate"] <= high


def test_the_same_deal_is_played_from_both_seats():
    """Duplicate: the second game of a deal gives each side the other's seat on the same
    board, so a deterministic bot against itself plays the same game twice with the
    sides exchanged: mirrored margins, one deal's luck cancelled exactly."""
    match = Match("supernim")
    a, b = core.Entrant("alphabeta:2"), core.Entrant("alphabeta:2")
    margins = []
    for deal in range(6):
        first, second = (match.play(a, b, deal, swapped, 1, None) for swapped in (False, True))
        assert first.a_first and not second.a_first
        assert first.margin == -second.margin and first.score + second.score == 1
        margins.append(first.margin)
    assert any(margins)  # some boards are won by the seat, and the swap undoes it


def test_an_entrant_list_that_cannot_play_is_refused(folder):
    match = Match("supernim")
    with pytest.raises(core.TournamentError, match="at least two entrants"):
        core.entrants_of([], ["random"], match, None)
    with pytest.raises(core.TournamentError, match="unknown Super-Nim bot"):
        core.entrants_of([], ["random", "clever"], match, None)
    # A refused file is the player file's error, as validate's (the command's exit code 1).
    with pytest.raises(PlayerFileError, match="missing.py: no such file"):
        core.entrants_of([folder / "missing.py"], ["random"], match, None)
    with pytest.raises(core.TournamentError, match="entered twice"):
        core.entrants_of([], ["random", "random"], match, None)
    entrants = core.entrants_of([], ["random", "greedy"], match, None)
    with pytest.raises(core.TournamentError, match="even number"):
        core.round_robin(match, entrants, 3, 0)


def test_a_file_gone_after_the_entrants_were_checked_is_disqualified_not_a_crash(folder):
    """The entrants are checked before any work, the files loaded one after the other
    (a Haskell one compiles for seconds): a file removed in between is that entrant's
    fault, not the tournament's."""
    match = Match("hog")
    good, gone = generated("hog", folder), folder / "gone.py"
    gone.write_bytes(good.read_bytes())
    context = Context(HogRules(goal=40))
    entrants = core.entrants_of([good, gone], ["always_roll:6"], match, context)
    gone.unlink()
    result = core.round_robin(match, entrants, 2, 3, context, limits=QUICK)
    assert result["disqualified"] == {str(gone): {"when": "loading", "reason": "no such file"}}
    played = [p for p in result["pairings"] if "void" not in p]
    assert [(p["a"], p["b"]) for p in played] == [(str(good), "always_roll:6")]


def test_a_call_over_the_games_own_clock_is_a_time_out_that_loses_the_game(folder):
    """Gin Rummy's engine forfeits a call over its time limit: an invalid play, counted
    as a time-out for that player (the harness's far longer limit never fires)."""
    slow = folder / "ginrummy_slow.py"
    source = generated("ginrummy", folder).read_text()
    slow.write_text(source.replace("def pick(", "def _pick(") + (
        "\n\nimport time\n\ndef pick(*args):\n    t = time.process_time()\n"
        "    while time.process_time() - t < 0.03:\n        pass\n    return _pick(*args)\n"
    ))  # fmt: skip
    match = Match("ginrummy")
    rules = Context(GinRummyRules(game_target=30, time_limit=0.01))
    entrants = core.entrants_of([slow], ["simple"], match, rules)
    result = core.round_robin(match, entrants, 2, 0, rules)
    slow_row = next(row for row in result["standings"] if row["name"] == str(slow))
    assert slow_row["invalid"] == slow_row["timeouts"] == 2 and slow_row["rank"] == 2
    assert result["pairings"][0]["invalid_reasons"][0] == ["Took too long to play"]

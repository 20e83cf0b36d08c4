"""95 % intervals the validators and tournaments report, and the figures of a pairing
(games between two sides, from side A's point of view) with them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

Z95 = 1.959964
"""The normal distribution's two-sided 95 % quantile."""


def wilson(successes: float, n: float) -> tuple[float, float]:
    """The Wilson score 95 % interval of a rate (`successes` may count draws as halves);
    (0, 1) when nothing was played."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / (1 + Z95**2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(successes: int, n: int) -> dict[str, Any]:
    """The share `successes / n` (0 of none), the count, and its Wilson 95 % interval."""
    return {
        "mean": successes / n if n else 0.0,
        "count": successes,
        "ci95": list(wilson(successes, n)),
    }


def normal_mean(mean: float, sd: float | None, n: int) -> tuple[float, float] | None:
    """The normal 95 % interval of a mean over `n` values whose sample standard deviation
    is `sd` (None with fewer than two values: one value says nothing of its spread)."""
    if n < 2 or sd is None or sd != sd:
        return None
    half = Z95 * sd / math.sqrt(n)
    return mean - half, mean + half


# --- a verdict from an interval --------------------------------------------------------------

YES, NO, UNDECIDED = "yes", "no", "undecided"


def at_most(ci95: Sequence[float], bound: float) -> str:
    """Whether a sampled value is at most `bound`, from its 95 % interval: YES when all of
    the interval is, NO when none of it is, UNDECIDED when the interval spans the bound (the
    sample is too small to tell, not the value shown wrong)."""
    low, high = ci95
    return YES if high <= bound else NO if low > bound else UNDECIDED


def at_least(ci95: Sequence[float], bound: float) -> str:
    """Whether a sampled value is at least `bound` (as `at_most`, the other way round)."""
    return at_most([-ci95[1], -ci95[0]], -bound)


def all_of(verdicts: Sequence[str]) -> str:
    """One verdict of several claims that must all hold: NO if any fails, YES if all hold,
    else UNDECIDED."""
    return NO if NO in verdicts else YES if all(v == YES for v in verdicts) else UNDECIDED


def said(verdict: str, claim: str, ci95: Sequence[float], more: str, fmt: str = "{:+.4f}") -> str:
    """A verdict as a reader takes it: the claim, its negation, or that this sample cannot
    decide it, with the 95 % interval it rests on and, when undecided, what would decide
    it (`more`: "more hands")."""
    shown = f"[{fmt.format(ci95[0])}, {fmt.format(ci95[1])}]"
    if verdict == UNDECIDED:
        return (
            f"undecided at this sample whether {claim}: the 95 % interval {shown} spans the "
            f"bound ({more} would decide)"
        )
    return f"{claim if verdict == YES else 'NOT ' + claim} (95 % interval {shown})"


# --- a verdict reached in looks ----------------------------------------------------------------

# A measure that stops once its interval decides looks at the interval several times, and
# a 95 % interval looked at K times misses the truth at one look or another more often
# than 5 % of the time: a stop on the plain interval would claim more than it knows. So
# the looks are a fixed schedule, known before the first sample (`looks`), and every
# look's interval is widened by Bonferroni's correction, to the level 1 - 0.05/K
# (`z_of`): the chance that any look's interval misses is then at most 5 %, and the
# interval at whichever look stops is still a 95 % interval. Bonferroni rather than
# Pocock's or O'Brien-Fleming's boundaries: it needs no table and holds however the looks
# depend on each other, for a little width (z 2.39 for three looks, not 1.96); a measure
# with a single look keeps the plain interval.


def looks(cap: int) -> list[int]:
    """Where a sequential measure of at most `cap` units (chunks of hands) looks at its
    interval: at a quarter, a half and all of the cap (rounded up, each once)."""
    return sorted({-(-cap // 4), -(-cap // 2), cap})


def z_of(looks: int) -> float:
    """The normal quantile of 95 % intervals that hold across `looks` looks at once."""
    return Z95 if looks <= 1 else NormalDist().inv_cdf(1 - 0.025 / looks)


def decided(*verdicts: str) -> bool:
    """Whether every verdict is YES or NO: a sequential measure may stop."""
    return UNDECIDED not in verdicts


# --- a pairing ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """One game from side A's point of view: A's score (1 win, ½ draw, 0 loss; an exact
    game's expectation), whether A sat or moved first, A's margin in the game's own units
    (None where the game has none), and each side's invalid play (None: none). An exact
    game's `invalid_chance`: the chance that each side's invalid play ends it (its
    `invalid` the reason of one, where that chance is not 0)."""

    score: float
    a_first: bool
    margin: float | None = None
    invalid: tuple[str | None, str | None] = (None, None)
    invalid_chance: tuple[float, float] | None = None

    def lost_to_invalid(self, side: int) -> float:
        """Games `side` lost by an invalid play: 0 or 1, a chance in an exact game."""
        if self.invalid_chance is not None:
            return self.invalid_chance[side]
        return float(self.invalid[side] is not None)


def summarise_pairing(
    outcomes: Sequence[Outcome], weight: float, exact: bool, timed_out: Sequence[str] = ()
) -> dict[str, Any]:
    """A pairing's result from A's side: wins, draws, losses, A's score rate with its
    Wilson 95 % interval (draws half), seats, the paired margin, invalid plays (and how
    many of them the game's clock called: reasons holding a `timed_out` word). Outcomes
    come in deal pairs (the deal, then the same deal with the seats swapped)."""
    scores = np.array([o.score for o in outcomes], float)
    games = round(len(outcomes) * weight)
    score = round(float(scores.sum() * weight), 6) + 0.0  # no negative zero from 1 - 1
    result: dict[str, Any] = {
        "games": games,
        "a_wins": int((scores == 1).sum()) if not exact else None,
        "draws": int((scores == 0.5).sum()) if not exact else None,
        "b_wins": int((scores == 0).sum()) if not exact else None,
        "a_score": score,
        "a_score_rate": round(score / games, 6),
        "a_score_ci95": [round(score / games, 6)] * 2 if exact else rounded_wilson(score, games),
        "a_first": int(sum(o.a_first for o in outcomes) * weight),
        "b_first": int(sum(not o.a_first for o in outcomes) * weight),
        "invalid": [
            _games(sum(o.lost_to_invalid(side) for o in outcomes) * weight, exact)
            for side in (0, 1)
        ],  # fmt: skip
        "timeouts": [
            sum(_timed_out(o.invalid[side], timed_out) for o in outcomes) for side in (0, 1)
        ],  # fmt: skip
        "invalid_reasons": [
            sorted({o.invalid[side] for o in outcomes if o.invalid[side]})[:3] for side in (0, 1)
        ],
    }
    if outcomes and outcomes[0].margin is not None:
        result["margin"] = paired_margin(outcomes)
    return result


def _games(count: float, exact: bool) -> float:
    """A count of games: whole where they were played, an expectation where exact."""
    return round(count, 6) if exact else round(count)


def _timed_out(reason: str | None, words: Sequence[str]) -> bool:
    return reason is not None and any(word in reason for word in words)


def rounded_wilson(successes: float, n: float) -> list[float]:
    """The Wilson score 95 % interval of a rate, rounded for the report."""
    return [round(bound, 6) for bound in wilson(successes, n)]


def paired_margin(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """A's mean margin per game with a paired t 95 % interval: each deal's two games (one
    from each seat) make one difference, so the deal's luck cancels; deals with a game
    without a margin (an invalid play) are left out."""
    pairs = [outcomes[k : k + 2] for k in range(0, len(outcomes) - 1, 2)]
    both = [(x.margin, y.margin) for x, y in pairs if x.margin is not None and y.margin is not None]
    per_deal = np.array([(x + y) / 2 for x, y in both], float)
    n = len(per_deal)
    if n == 0:
        return {"mean": None, "ci95": None, "deals": 0}
    mean = round(float(per_deal.mean()), 6)
    if n < 2:
        return {"mean": mean, "ci95": None, "deals": n}
    half = t_half(per_deal)
    return {"mean": mean, "ci95": [round(mean - half, 6), round(mean + half, 6)], "deals": n}


def t95(df: Any) -> Any:
    """Student's t two-sided 95 % quantile on `df` degrees of freedom (a number or an
    array): what `scipy.stats.t.ppf(0.975, df)` computes, by the function it calls, without
    importing scipy.stats (half a CPU second more, in each process that validates)."""
    from scipy.special import stdtrit  # scikit-learn's own dependency; only needed here

    return stdtrit(df, 0.975)


def t_half(values: Sequence[float] | np.ndarray) -> float:
    """The half width of the t 95 % interval of the mean of `values` (two or more)."""
    n = len(values)
    return float(t95(n - 1)) * float(np.std(values, ddof=1)) / math.sqrt(n)

"""A verdict from a 95 % interval: yes, no, or undecided at this sample, never a "no" that
only a small sample says; the t interval of a mean."""

from __future__ import annotations

import statistics

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mine.strategies.intervals import (
    NO,
    UNDECIDED,
    YES,
    all_of,
    at_least,
    at_most,
    said,
    t95,
    t_half,
)
from mine.strategies.validation.supernim import mean_interval

finite = st.floats(-10, 10, allow_nan=False)


@given(finite, finite, finite)
def test_a_verdict_is_undecided_exactly_when_the_interval_spans_the_bound(a, b, bound):
    low, high = sorted((a, b))
    verdict = at_most((low, high), bound)
    assert verdict == (YES if high <= bound else NO if low > bound else UNDECIDED)
    # "at least" is the same question the other way round
    assert at_least((-high, -low), -bound) == verdict


@given(st.lists(st.sampled_from((YES, NO, UNDECIDED)), min_size=1))
def test_several_claims_hold_together_only_if_each_does(verdicts):
    together = all_of(verdicts)
    assert (together == NO) == (NO in verdicts)
    assert (together == YES) == all(v == YES for v in verdicts)


def test_a_verdict_is_said_with_its_interval():
    assert said(YES, "within 0.005", (0.001, 0.004), "more hands") == (
        "within 0.005 (95 % interval [+0.0010, +0.0040])"
    )
    assert said(NO, "within 0.005", (0.006, 0.01), "more hands").startswith("NOT within 0.005")
    undecided = said(UNDECIDED, "within 0.005", (-0.01, 0.02), "more than 20,000 hands")
    assert undecided == (
        "undecided at this sample whether within 0.005: the 95 % interval [-0.0100, +0.0200] "
        "spans the bound (more than 20,000 hands would decide)"
    )


def test_the_t_quantile_is_scipy_stats_own_to_the_bit():
    """`t95` calls what `scipy.stats.t.ppf` calls, without importing scipy.stats: the same
    floats, exactly, for every degree of freedom a measure has (its deals or games less
    one: from one to tens of thousands)."""
    from scipy.stats import t

    df = np.arange(1, 100_001)
    assert np.array_equal(t95(df), t.ppf(0.975, df))
    assert all(float(t95(n)) == float(t.ppf(0.975, n)) for n in range(1, 1001))  # as called


def test_the_t_interval_is_the_textbook_one():
    """On n - 1 degrees of freedom, the sample's standard deviation, over the root of n;
    Super-Nim's mean interval is the same one."""
    values = [3.0, -1.0, 5.0, 1.0]
    mean, sd = sum(values) / 4, statistics.stdev(values)
    assert t_half(values) == pytest.approx(3.182446305284263 * sd / 2, rel=1e-12)  # t(3) table
    assert t_half(np.array(values)) == t_half(values)
    assert mean_interval(values) == (mean - t_half(values), mean + t_half(values))

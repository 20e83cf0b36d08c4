"""A verdict from a 95 % interval: yes, no, or undecided at this sample, never a "no" that
only a small sample says."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mine.strategies.intervals import NO, UNDECIDED, YES, all_of, at_least, at_most, said

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

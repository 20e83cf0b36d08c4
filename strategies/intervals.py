"""95 % intervals the validators and tournaments report."""

from __future__ import annotations

import math

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

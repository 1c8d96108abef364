"""The Wilson score interval of a proportion: sound near 0% and 100%, unlike the normal one."""

from __future__ import annotations

import math
from statistics import NormalDist

__all__ = ["Z_95", "wilson"]

Z_95 = NormalDist().inv_cdf(0.975)
"""The standard normal quantile that leaves 2.5% in each tail (about 1.96)."""


def wilson(successes: float, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of ``successes`` out of ``n`` (successes may be fractional)."""
    if n == 0:
        return 0.0, 1.0
    p, z = successes / n, Z_95
    denominator = 1 + z**2 / n
    centre = (p + z**2 / (2 * n)) / denominator
    half = z * math.sqrt(max(0.0, p * (1 - p)) / n + z**2 / (4 * n * n)) / denominator
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    # At 0% or 100% the bound is the estimate itself: say it exactly, not 0.9999999999999999.
    return (0.0 if successes <= 0 else low), (1.0 if successes >= n else high)

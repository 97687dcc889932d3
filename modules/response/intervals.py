"""How sure a summary's figures are: 95% intervals for its rates and mean scores, and whether a
change since the previous run is larger than the noise of the two samples.

AI answers vary from call to call, so a share measured on a few dozen answers moves by several
points between two runs of an unchanged assistant. A rate gets a Wilson score interval (right at
0% and 100% and on small samples, where the normal approximation is not); a mean score gets a
seeded bootstrap interval (scores are bounded and skewed, often piled at 0 or 100), its
percentiles expanded for small samples as Hesterberg recommends, since a plain percentile
bootstrap is too narrow on the 5-15 answers a provider often gives.

A change is significant when the 95% interval of the difference excludes 0. That interval is
built from the two runs' own intervals (MOVER, Zou & Donner 2008; for two rates it is Newcombe's
hybrid score interval), so it keeps their asymmetry near 0% and 100% and needs only what a
summary row stores. ``evals/interval_sim.py`` measures coverage and false alarms.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

Z95 = 1.959964
#: bootstrap resamples per mean; the seed makes a summary reproducible run after run
BOOTSTRAP_SAMPLES = 2000
BOOTSTRAP_SEED = 0


def wilson(successes: int, n: int) -> tuple[float | None, float | None]:
    """The 95% Wilson score interval of ``successes`` / ``n`` (0-1, 4 decimals); None when n is 0."""
    if n <= 0:
        return None, None
    p = successes / n
    denominator = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denominator
    return round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)


def rate_interval(rate: float | None, n: int) -> tuple[float | None, float | None]:
    """:func:`wilson` for a stored rate over ``n`` rows (its successes recovered from the rate)."""
    if rate is None or n <= 0:
        return None, None
    return wilson(round(rate * n), n)


def bootstrap_mean(values: Sequence[float]) -> tuple[float | None, float | None]:
    """The 95% bootstrap interval of the mean of ``values``, 0-100 scores (seeded; 2 decimals);
    None under two values (one answer says nothing of the spread).

    When every value is the same the bootstrap has no spread to resample and would claim
    certainty ("100 (100-100)" from five answers); the interval is then the Wilson interval of
    the score as a share of 100, which bounds what a mean of bounded scores can need (a score's
    variance is at most that of 0-or-100 answers with the same mean)."""
    data = np.asarray([v for v in values if v is not None], dtype=float)
    if data.size < 2:
        return None, None
    if np.ptp(data) == 0:
        low, high = rate_interval(min(1.0, max(0.0, float(data[0]) / 100)), int(data.size))
        return round(100 * low, 2), round(100 * high, 2)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    means = data[rng.integers(0, data.size, size=(BOOTSTRAP_SAMPLES, data.size))].mean(axis=1)
    tail = 100 * _expanded_tail(data.size)
    low, high = np.percentile(means, [tail, 100 - tail])
    return round(float(low), 2), round(float(high), 2)


def _expanded_tail(n: int) -> float:
    """The tail probability whose normal quantile is sqrt(n / (n - 1)) t(0.975, n - 1): the
    expanded percentile bootstrap's, which widens small samples' intervals (0.025 as n grows)."""
    return NormalDist().cdf(-math.sqrt(n / (n - 1)) * _t975(n - 1))


def _t975(df: int) -> float:
    """Student's t 0.975 quantile (Cornish-Fisher expansion: within 0.004 of the exact value
    from 3 degrees of freedom, 0.04 at 2; at 1, the exact 12.706)."""
    if df == 1:
        return 12.706
    z = Z95
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
        + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * df**4)
    )


def significant_change(
    now: float | None,
    now_interval: tuple[float | None, float | None],
    before: float | None,
    before_interval: tuple[float | None, float | None],
) -> bool | None:
    """Whether the 95% interval of ``now - before`` excludes 0 (MOVER from the two intervals);
    None when either side has no value or no interval (a row written before intervals were
    stored, or a mean of one answer)."""
    if now is None or before is None or None in now_interval or None in before_interval:
        return None
    (now_low, now_high), (before_low, before_high) = now_interval, before_interval
    difference = now - before
    low = difference - math.hypot(now - now_low, before_high - before)
    high = difference + math.hypot(now_high - now, before - before_low)
    return low > 0 or high < 0


__all__ = ["bootstrap_mean", "rate_interval", "significant_change", "wilson"]

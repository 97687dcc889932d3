"""How sure a summary's figures are: 95% intervals for its rates and mean scores, and whether a
change since the previous run is larger than the noise of the two samples.

AI answers vary from call to call, so a share measured on a few dozen answers moves by several
points between two runs of an unchanged assistant. A rate gets a Wilson score interval (right at
0% and 100% and on small samples, where the normal approximation is not); a mean score gets a
seeded bootstrap interval (scores are bounded and skewed, often piled at 0 or 100), its
percentiles expanded for small samples as Hesterberg recommends, since a plain percentile
bootstrap is too narrow on the 5-15 answers a provider often gives.

A query asked several times (``collect --samples``) is answered alike more often than not: its
five answers say less than five answers to five queries, and intervals that count answers as
independent are too narrow. So the unit of evidence is the cluster (the answers of one provider
and model to one query). A rate's interval is the Wilson interval at an effective sample size,
the answers over the design effect (Kish: the ratio estimator's variance across clusters, with
a t correction for the few clusters it is estimated from, over the binomial variance; never
below 1); a mean's bootstrap resamples clusters, not answers. When each cluster holds one
answer both are exactly the per-answer intervals above.

A change is significant when the 95% interval of the difference excludes 0. That interval is
built from the two runs' own intervals (MOVER, Zou & Donner 2008; for two rates it is Newcombe's
hybrid score interval), so it keeps their asymmetry near 0% and 100% and needs only what a
summary row stores. ``evals/interval_sim.py`` measures coverage and false alarms, with and
without answers that agree within a query.
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
#: resampled cluster indices drawn at a time (bounds a large run's memory, not its result)
_BOOTSTRAP_BLOCK = 2_000_000


def wilson(successes: float, n: float) -> tuple[float | None, float | None]:
    """The 95% Wilson score interval of ``successes`` / ``n`` (0-1, 4 decimals); None when n is 0.
    ``n`` may be an effective sample size, not a whole number (:func:`cluster_rate_interval`)."""
    if n <= 0:
        return None, None
    return _score_interval(successes / n, n)


def _score_interval(p: float, n: float) -> tuple[float, float]:
    denominator = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denominator
    return round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)


def rate_interval(rate: float | None, n: int) -> tuple[float | None, float | None]:
    """:func:`wilson` for a stored rate over ``n`` rows (its successes recovered from the rate)."""
    if rate is None or n <= 0:
        return None, None
    return wilson(round(rate * n), n)


def cluster_rate_interval(hits: Sequence[int], trials: Sequence[int]) -> tuple[float | None, float | None]:
    """The 95% interval of the rate sum(hits) / sum(trials) when each cluster's trials (one
    query's answers, or the brands they name) are alike: Wilson at the effective sample size.

    The rate's variance is the ratio estimator's across the k clusters with trials,
    sum((h_i - p m_i)^2) / (k (k - 1) mean(m)^2), scaled by (t(0.975, k - 1) / z)^2: it is
    estimated from k clusters, not known, so it counts with k - 1 degrees of freedom as the
    bootstrap's expanded tails do (without this, 10 queries x 5 samples cover 93%, not 95%).
    Over the binomial p (1 - p) / N it is the design effect (at least 1: agreement within clusters
    narrows nothing), and N over it the effective size. A rate of 0 or 1 has no spread to
    measure, and then each cluster counts once; so does a lone cluster. When no cluster has more
    than one trial this is :func:`wilson` of the totals."""
    h, m = np.asarray(hits, dtype=float), np.asarray(trials, dtype=float)
    h, m = h[m > 0], m[m > 0]
    total = float(m.sum())
    if total <= 0:
        return None, None
    if (m <= 1).all():
        return wilson(int(round(h.sum())), int(round(total)))
    k, p = h.size, float(h.sum()) / total
    if k == 1 or p <= 0 or p >= 1:
        return _score_interval(p, k)
    variance = float(((h - p * m) ** 2).sum()) / (k * (k - 1) * (total / k) ** 2)
    variance *= (_t975(k - 1) / Z95) ** 2
    design_effect = max(1.0, variance / (p * (1 - p) / total))
    return _score_interval(p, total / design_effect)


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


def cluster_bootstrap_mean(sums: Sequence[float], counts: Sequence[int]) -> tuple[float | None, float | None]:
    """The 95% interval of the mean of 0-100 scores held in clusters (each cluster's sum and
    number of scores): a seeded bootstrap that draws whole clusters, each resample's mean over
    all the scores of its clusters, percentiles expanded for the number of clusters; None under
    two scores. When each cluster holds one score this is :func:`bootstrap_mean` of them.

    Where resampling has no spread (every cluster's mean the same, identical scores among them)
    or there is one cluster, the interval is the Wilson bound of :func:`bootstrap_mean` with
    each cluster counted once. The interval always holds the mean it is about."""
    s, c = np.asarray(sums, dtype=float), np.asarray(counts, dtype=float)
    s, c = s[c > 0], c[c > 0]
    if c.sum() < 2:
        return None, None
    if (c == 1).all():
        return bootstrap_mean(s)
    k, mean = s.size, float(s.sum() / c.sum())
    if k == 1 or np.ptp(s / c) <= 1e-9:
        low, high = _score_interval(min(1.0, max(0.0, mean / 100)), k)
        return round(100 * low, 2), round(100 * high, 2)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    block, means = max(1, _BOOTSTRAP_BLOCK // k), []
    for start in range(0, BOOTSTRAP_SAMPLES, block):
        draw = rng.integers(0, k, size=(min(block, BOOTSTRAP_SAMPLES - start), k))
        means.append(s[draw].sum(axis=1) / c[draw].sum(axis=1))
    tail = 100 * _expanded_tail(k)
    low, high = np.percentile(np.concatenate(means), [tail, 100 - tail])
    return round(min(float(low), mean), 2), round(max(float(high), mean), 2)


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


__all__ = [
    "bootstrap_mean",
    "cluster_bootstrap_mean",
    "cluster_rate_interval",
    "rate_interval",
    "significant_change",
    "wilson",
]

"""The statistics of the detection signals (docs/integrity.md "Statistics"), with
the standard library only: exact binomial and Poisson tails in log space (no normal
approximation: the samples of a pair are small), a "surprise" in decimal digits, the
coefficient of variation, and the log5 estimate of how often one player beats another.
"""

from __future__ import annotations

import math

LN10 = math.log(10.0)


def _log_sum_exp(logs: list[float]) -> float:
    top = max(logs)
    return top + math.log(sum(math.exp(value - top) for value in logs))


def binomial_surprise(*, k: int, n: int, p: float) -> float:
    """-log10 P(X >= k) for X ~ Binomial(n, p): how many decimal digits of chance it takes to
    see ``k`` or more successes in ``n`` trials of probability ``p``. 0 when ``k`` is not
    above what chance gives often (k <= 0)."""
    if k <= 0 or n <= 0:
        return 0.0
    k = min(k, n)
    p = min(max(p, 1e-12), 1.0 - 1e-12)
    log_p, log_q = math.log(p), math.log1p(-p)
    base = math.lgamma(n + 1)
    logs = [
        base - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * log_p + (n - i) * log_q
        for i in range(k, n + 1)
    ]
    return max(-_log_sum_exp(logs) / LN10, 0.0)


def poisson_surprise(*, k: int, mean: float) -> float:
    """-log10 P(X >= k) for X ~ Poisson(mean)."""
    if k <= 0:
        return 0.0
    mean = max(mean, 1e-12)
    log_mean = math.log(mean)
    # The terms past k fall at least geometrically once i > mean: enough of them for a
    # relative error far below anything a threshold cares about.
    last = max(k + 200, int(mean + 20 * math.sqrt(mean) + 50))
    logs = [i * log_mean - mean - math.lgamma(i + 1) for i in range(k, last)]
    return max(-_log_sum_exp(logs) / LN10, 0.0)


def shrunk_rate(*, hits: int, trials: int, prior_rate: float, prior_weight: float) -> float:
    """A rate estimated from ``hits`` of ``trials``, pulled towards ``prior_rate`` as if
    ``prior_weight`` trials at that rate had been seen (a beta prior): a player with few
    trials gets the population's rate, one with many their own."""
    return (hits + prior_rate * prior_weight) / (trials + prior_weight)


def log5(p_a: float, p_b: float) -> float:
    """How often A beats B given each one's rate of beating everybody else (Bill James's
    log5, the Bradley-Terry model's estimate)."""
    p_a = min(max(p_a, 0.01), 0.99)
    p_b = min(max(p_b, 0.01), 0.99)
    return p_a * (1 - p_b) / (p_a * (1 - p_b) + p_b * (1 - p_a))


def coefficient_of_variation(*, count: int, total: float, total_sq: float) -> float | None:
    """Standard deviation over mean of ``count`` values given their sum and sum of squares
    (None under two values or a zero mean)."""
    if count < 2 or total <= 0:
        return None
    mean = total / count
    variance = max((total_sq - count * mean * mean) / (count - 1), 0.0)
    return math.sqrt(variance) / mean

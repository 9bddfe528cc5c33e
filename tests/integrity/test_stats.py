"""The statistics of the detection signals against values worked out by hand."""

import math

import pytest

from integrity.detection.stats import (
    binomial_surprise,
    coefficient_of_variation,
    log5,
    poisson_surprise,
    shrunk_rate,
)


def test_binomial_surprise_is_minus_log10_of_the_upper_tail():
    # P(X >= 10 | 10, 0.5) = 2^-10
    assert binomial_surprise(k=10, n=10, p=0.5) == pytest.approx(10 * math.log10(2))
    # P(X >= 1 | 2, 0.5) = 3/4
    assert binomial_surprise(k=1, n=2, p=0.5) == pytest.approx(-math.log10(0.75))
    assert binomial_surprise(k=0, n=10, p=0.3) == 0.0
    # Far in the tail it stays finite and large (log space, no underflow).
    assert binomial_surprise(k=1000, n=1000, p=0.1) == pytest.approx(1000.0)


def test_poisson_surprise():
    # P(X >= 1 | 2) = 1 - e^-2
    assert poisson_surprise(k=1, mean=2.0) == pytest.approx(-math.log10(1 - math.exp(-2)))
    # P(X >= 5 | 0.1) ~ 0.1^5 / 5! e^-0.1 (the next terms are 50 times smaller)
    expected = -math.log10(0.1**5 / 120 * math.exp(-0.1) * (1 + 0.1 / 6 + 0.01 / 42))
    assert poisson_surprise(k=5, mean=0.1) == pytest.approx(expected, rel=1e-3)


def test_rates():
    assert shrunk_rate(hits=0, trials=0, prior_rate=0.2, prior_weight=10) == 0.2
    assert shrunk_rate(hits=50, trials=90, prior_rate=0.0, prior_weight=10) == 0.5
    assert log5(0.5, 0.5) == pytest.approx(0.5)
    assert log5(0.6, 0.4) == pytest.approx(0.36 / (0.36 + 0.16))


def test_coefficient_of_variation():
    values = [1.0, 2.0, 3.0]
    cv = coefficient_of_variation(count=3, total=6.0, total_sq=sum(v * v for v in values))
    assert cv == pytest.approx(1.0 / 2.0)
    assert coefficient_of_variation(count=1, total=1.0, total_sq=1.0) is None

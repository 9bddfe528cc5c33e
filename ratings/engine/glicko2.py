"""Glicko-2, as Glickman's "Example of the Glicko-2 system" (Boston University, 2013) writes
it: the eight steps of one rating period for one player, on the paper's own names.

- r, RD, sigma: a player's rating, rating deviation and volatility (``Rating``).
- mu, phi: the rating and RD on the Glicko-2 scale (step 2); tau, the system constant that
  limits how fast the volatility changes; epsilon, the volatility iteration's tolerance.
- A period's games are scored 1 (a win), 1/2 (a draw) or 0 (a loss) against opponents rated
  as they stood at the period's start (``Game``).

Nothing here knows matches, players or variants: R15 (docs/rules.md) decides what a period
is and which games it holds (``ratings.engine.periods``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

# Step 1: the system constant and an unrated player's values.
TAU = 0.5
START_RATING = 1500.0
START_RD = 350.0
START_VOLATILITY = 0.06
# Step 2: the Glicko-2 scale is the Glicko scale over 173.7178 (= 400 / ln 10).
SCALE = 173.7178
# Step 5.2: the convergence tolerance of the volatility's iteration.
EPSILON = 0.000001
WIN, DRAW, LOSS = 1.0, 0.5, 0.0
SCORES = (WIN, DRAW, LOSS)


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating r, rating deviation RD and volatility sigma."""

    rating: float
    rd: float
    volatility: float

    def __post_init__(self) -> None:
        for name in ("rating", "rd", "volatility"):
            value = getattr(self, name)
            if not isinstance(value, float) or not math.isfinite(value):
                raise ValueError(f"{name} must be a finite float, got {value!r}")
        if self.rd <= 0 or self.volatility <= 0:
            raise ValueError("RD and volatility are positive")


START = Rating(START_RATING, START_RD, START_VOLATILITY)


@dataclass(frozen=True, slots=True)
class Game:
    """One game of the period: the opponent as rated at the period's start, and the score."""

    opponent: Rating
    score: float

    def __post_init__(self) -> None:
        if self.score not in SCORES:
            raise ValueError(f"a game scores 1, 1/2 or 0, got {self.score!r}")


def rate(player: Rating, games: Sequence[Game], *, tau: float = TAU) -> Rating:
    """The player's rating at the end of a rating period in which they played ``games``
    (steps 2 to 8). A period without games only widens the RD (the paper's step 6 alone)."""
    # Step 2: onto the Glicko-2 scale.
    mu = (player.rating - START_RATING) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not games:
        return Rating(player.rating, SCALE * math.sqrt(phi**2 + sigma**2), sigma)
    opponents = [
        (
            (game.opponent.rating - START_RATING) / SCALE,
            game.opponent.rd / SCALE,
            game.score,
        )
        for game in games
    ]
    # Step 3: v, the estimated variance of the rating from the game outcomes alone.
    v = 1.0 / sum(
        g(phi_j) ** 2 * expected(mu, mu_j, phi_j) * (1.0 - expected(mu, mu_j, phi_j))
        for mu_j, phi_j, _ in opponents
    )
    # Step 4: Delta, the estimated improvement over the pre-period rating.
    improvement = sum(
        g(phi_j) * (s_j - expected(mu, mu_j, phi_j)) for mu_j, phi_j, s_j in opponents
    )
    delta = v * improvement
    # Step 5: the new volatility.
    sigma_new = new_volatility(phi=phi, sigma=sigma, v=v, delta=delta, tau=tau)
    # Step 6: the pre-period RD widened by the new volatility.
    phi_star = math.sqrt(phi**2 + sigma_new**2)
    # Step 7: the new RD and rating.
    phi_new = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / v)
    mu_new = mu + phi_new**2 * improvement
    # Step 8: back onto the Glicko scale.
    return Rating(SCALE * mu_new + START_RATING, SCALE * phi_new, sigma_new)


def g(phi: float) -> float:
    """Step 3's g(phi): how much an opponent's uncertainty damps what a game against them
    says."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi**2 / math.pi**2)


def expected(mu: float, mu_j: float, phi_j: float) -> float:
    """Step 3's E(mu, mu_j, phi_j): the expected score against opponent j."""
    return 1.0 / (1.0 + math.exp(-g(phi_j) * (mu - mu_j)))


def new_volatility(*, phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: sigma', the root of f found by the Illinois algorithm (regula falsi)."""
    # 5.1
    a = math.log(sigma**2)

    def f(x: float) -> float:
        e_x = math.exp(x)
        return (
            e_x * (delta**2 - phi**2 - v - e_x) / (2.0 * (phi**2 + v + e_x) ** 2) - (x - a) / tau**2
        )

    # 5.3: A and B bracket the root.
    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    # 5.4
    f_a, f_b = f(big_a), f(big_b)
    # 5.5: narrow the bracket until it is within epsilon.
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2.0
        big_b, f_b = big_c, f_c
    # 5.6
    return math.exp(big_a / 2.0)

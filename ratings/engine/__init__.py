"""The rating engine (R15 in docs/rules.md): Glicko-2 exactly as Glickman's worked example
writes it (``glicko2``), and R15's periods: one match is one period of one game between
each pair of its players, scored by their places (``periods``). Standard library only: no
Django, no database, nothing that does I/O. This module is the public facade; other code
imports from ``ratings.engine`` only.
"""

from ratings.engine.glicko2 import (
    DRAW,
    EPSILON,
    LOSS,
    SCALE,
    START,
    START_RATING,
    START_RD,
    START_VOLATILITY,
    TAU,
    WIN,
    Game,
    Rating,
    rate,
)
from ratings.engine.periods import (
    PROVISIONAL_RD,
    PeriodResult,
    check_places,
    is_provisional,
    pairwise_games,
    rate_period,
)

__all__ = [
    "DRAW",
    "EPSILON",
    "LOSS",
    "PROVISIONAL_RD",
    "SCALE",
    "START",
    "START_RATING",
    "START_RD",
    "START_VOLATILITY",
    "TAU",
    "WIN",
    "Game",
    "PeriodResult",
    "Rating",
    "check_places",
    "is_provisional",
    "pairwise_games",
    "rate",
    "rate_period",
]

"""Soft play (docs/integrity.md "Soft play"): a knock or gin open to a player and
not taken while the opponent is not behind, far more often against this opponent than the
player declines such knocks against everybody else.

Counted once per hand and player (``knock_chance``, at the first turn that offered it): a
turn where the player could knock or go gin (any legal knock, R6) while the opponent's match
score is at least the player's plus ``MIN_LEAD`` (First To Knock keeps no score: every such
turn counts); declined when the player did anything else. Once per hand, because a player who
passes a knock up usually passes the next one too: the hands are the independent trials.
Statistic: k hands declined of n against the opponent, against the player's own rate
elsewhere (shrunk towards the population's): -log10 P(X >= k), X ~ B(n, p0).
"""

from __future__ import annotations

from games import engine
from integrity.detection.findings import Finding, Population, rates_against_pair, strongest
from integrity.detection.stats import binomial_surprise
from integrity.models import Alert, PairStats, PlayerStats

MIN_LEAD = 0
MIN_CHANCES = 8
PRIOR_WEIGHT = 20.0
RATE_FLOOR = 0.02
THRESHOLD = 5.0  # a one-in-100,000 chance


def knock_chance(
    *,
    state: engine.HandState,
    seat: int,
    legal: tuple[engine.Action, ...],
    score: tuple[int, int],
    scored: bool,
) -> bool:
    """Whether this turn offered ``seat`` a knock or gin while the opponent is not behind
    (see the module); ``scored``: the match keeps a score (not First To Knock)."""
    if scored and score[1 - seat] - score[seat] < MIN_LEAD:
        return False
    return any(action.kind in ("knock", "big_gin") for action in legal)


def declined(action: dict) -> bool:
    return action.get("kind") not in ("knock", "big_gin")


def evaluate(
    *, pair: PairStats, low: PlayerStats, high: PlayerStats, population: Population
) -> Finding | None:
    """The stronger direction: the low player declining against the high one, or back."""
    rates = rates_against_pair(
        pair=pair,
        low=low,
        high=high,
        population=population,
        hits="knocks_declined",
        trials="knock_chances",
        default_rate=0.1,
        min_trials=MIN_CHANCES,
        prior_weight=PRIOR_WEIGHT,
        rate_floor=RATE_FLOOR,
    )
    return strongest(
        Finding(
            signal=Alert.Signal.SOFT_PLAY,
            score=binomial_surprise(k=rate.hits, n=rate.trials, p=rate.p0),
            threshold=THRESHOLD,
            player=rate.opponent,  # the one soft-played
            other_player=rate.actor,
            reasoning={
                "statistic": "binomial upper tail, -log10 P(X >= declined | chances, p0), "
                "hands with a knock chance",
                "soft_player": str(rate.actor),
                "declined": rate.hits,
                "chances": rate.trials,
                "p0": round(rate.p0, 4),
                "p0_from": {
                    "declined_elsewhere": rate.hits_elsewhere,
                    "chances_elsewhere": rate.trials_elsewhere,
                    "population_rate": round(rate.base, 4),
                    "prior_weight": PRIOR_WEIGHT,
                },
                "min_lead": MIN_LEAD,
                "hands": pair.recent_hands,
            },
        )
        for rate in rates
    )

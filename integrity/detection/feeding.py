"""Feeding (docs/integrity.md "Feeding"): discards that would lower the
opponent's deadwood (complete or extend a meld of theirs), far more often against this
opponent than the player's discards help everybody else.

Counted per discard (``feeds``): the opponent's minimum deadwood with the card (after their
best discard) below their deadwood without it, on the replayed hand. Statistic: k useful
discards of n against the opponent, against the player's own rate elsewhere (shrunk towards
the population's): -log10 P(X >= k), X ~ B(n, p0).
"""

from __future__ import annotations

from games import engine
from integrity.detection.findings import Finding, Population, rates_against_pair, strongest
from integrity.detection.stats import binomial_surprise
from integrity.models import Alert, PairStats, PlayerStats

MIN_DISCARDS = 30
PRIOR_WEIGHT = 50.0
RATE_FLOOR = 0.02
THRESHOLD = 5.0


def feeds(state: engine.HandState, seat: int, card: engine.Card) -> bool:
    """Whether discarding ``card`` offers the opponent of ``seat`` a card that lowers their
    deadwood (heads-up: they hold ten cards while ``seat`` discards)."""
    theirs = list(state.hands[1 - seat])
    if len(theirs) != 10:
        return False
    return engine.deadwood([*theirs, card]) < engine.deadwood(theirs)


def evaluate(
    *, pair: PairStats, low: PlayerStats, high: PlayerStats, population: Population
) -> Finding | None:
    """The stronger direction: the low player feeding the high one, or back."""
    rates = rates_against_pair(
        pair=pair,
        low=low,
        high=high,
        population=population,
        hits="discards_useful",
        trials="discards",
        default_rate=0.25,
        min_trials=MIN_DISCARDS,
        prior_weight=PRIOR_WEIGHT,
        rate_floor=RATE_FLOOR,
    )
    return strongest(
        Finding(
            signal=Alert.Signal.FEEDING,
            score=binomial_surprise(k=rate.hits, n=rate.trials, p=rate.p0),
            threshold=THRESHOLD,
            player=rate.opponent,  # the one fed
            other_player=rate.actor,
            reasoning={
                "statistic": "binomial upper tail, -log10 P(X >= useful | discards, p0)",
                "feeder": str(rate.actor),
                "useful_discards": rate.hits,
                "discards": rate.trials,
                "p0": round(rate.p0, 4),
                "p0_from": {
                    "useful_elsewhere": rate.hits_elsewhere,
                    "discards_elsewhere": rate.trials_elsewhere,
                    "population_rate": round(rate.base, 4),
                    "prior_weight": PRIOR_WEIGHT,
                },
                "hands": pair.recent_hands,
            },
        )
        for rate in rates
    )

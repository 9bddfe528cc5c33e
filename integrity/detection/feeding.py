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
from integrity.detection.findings import Finding, Population, side
from integrity.detection.stats import binomial_surprise, shrunk_rate
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
    # The population's rate without this pair's discards (see soft_play).
    base = population.rate(
        population.discards_useful - pair.discards_useful_low - pair.discards_useful_high,
        population.discards - pair.discards_low - pair.discards_high,
        0.25,
    )
    best: Finding | None = None
    for is_low, player in ((True, low), (False, high)):
        n = side(pair, "discards", is_low)
        k = side(pair, "discards_useful", is_low)
        if n < MIN_DISCARDS:
            continue
        p0 = max(
            shrunk_rate(
                hits=player.discards_useful - k,
                trials=player.discards - n,
                prior_rate=base,
                prior_weight=PRIOR_WEIGHT,
            ),
            RATE_FLOOR,
        )
        feeder, fed = (
            (pair.player_low_id, pair.player_high_id)
            if is_low
            else (pair.player_high_id, pair.player_low_id)
        )
        finding = Finding(
            signal=Alert.Signal.FEEDING,
            score=binomial_surprise(k=k, n=n, p=p0),
            threshold=THRESHOLD,
            player=fed,
            other_player=feeder,
            reasoning={
                "statistic": "binomial upper tail, -log10 P(X >= useful | discards, p0)",
                "feeder": str(feeder),
                "useful_discards": k,
                "discards": n,
                "p0": round(p0, 4),
                "p0_from": {
                    "useful_elsewhere": player.discards_useful - k,
                    "discards_elsewhere": player.discards - n,
                    "population_rate": round(base, 4),
                    "prior_weight": PRIOR_WEIGHT,
                },
                "hands": pair.recent_hands,
            },
        )
        if best is None or finding.score > best.score:
            best = finding
    return best

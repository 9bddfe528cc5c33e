"""A pair's win rate far from both players' results against others (docs/integrity.md
"Win rate between a pair").

Decisive hands between the two (void hands left out), against the rate log5 expects from
each player's hand-win rate against everybody else (shrunk towards 1/2). Two-sided: the
surprise of the side that won more than expected, less log10(2).
"""

from __future__ import annotations

import math

from integrity.detection.findings import Finding
from integrity.detection.stats import binomial_surprise, log5, shrunk_rate
from integrity.models import Alert, PairStats, PlayerStats

MIN_HANDS = 20
PRIOR_WEIGHT = 20.0
THRESHOLD = 5.0


def expected_low_rate(*, pair: PairStats, low: PlayerStats, high: PlayerStats) -> float:
    """How often the low player should win a hand against the high one, from each one's
    hands against everybody else."""
    rate_low = shrunk_rate(
        hits=low.hands_won - pair.hands_won_low,
        trials=low.hands - pair.hands,
        prior_rate=0.5,
        prior_weight=PRIOR_WEIGHT,
    )
    rate_high = shrunk_rate(
        hits=high.hands_won - pair.hands_won_high,
        trials=high.hands - pair.hands,
        prior_rate=0.5,
        prior_weight=PRIOR_WEIGHT,
    )
    return log5(rate_low, rate_high)


def evaluate(*, pair: PairStats, low: PlayerStats, high: PlayerStats) -> Finding | None:
    n = pair.hands
    if n < MIN_HANDS:
        return None
    p_low = expected_low_rate(pair=pair, low=low, high=high)
    low_score = binomial_surprise(k=pair.hands_won_low, n=n, p=p_low)
    high_score = binomial_surprise(k=pair.hands_won_high, n=n, p=1 - p_low)
    low_wins = low_score >= high_score
    winner, loser = (
        (pair.player_low_id, pair.player_high_id)
        if low_wins
        else (pair.player_high_id, pair.player_low_id)
    )
    return Finding(
        signal=Alert.Signal.PAIR_WIN_RATE,
        score=max(max(low_score, high_score) - math.log10(2), 0.0),
        threshold=THRESHOLD,
        player=winner,
        other_player=loser,
        reasoning={
            "statistic": "two-sided binomial test of hands won, -log10 p",
            "hands": n,
            "won_by_player": pair.hands_won_low if low_wins else pair.hands_won_high,
            "expected_rate": round(p_low if low_wins else 1 - p_low, 4),
            "rates_elsewhere": {
                str(pair.player_low_id): [low.hands_won - pair.hands_won_low, low.hands - n],
                str(pair.player_high_id): [high.hands_won - pair.hands_won_high, high.hands - n],
            },
            "hand_ids": pair.recent_hands,
        },
    )

"""Repeated pairings (docs/integrity.md "Repeated pairings"): two players meeting
far more often than their numbers of games explain.

If each of the M heads-up matches drew its two players at random from the seats played, a
pair whose players played m_a and m_b matches meets about m_a * m_b / (2M) times (Poisson).
Statistic: -log10 P(X >= meetings). Weak on its own (friends play together, a small room
pairs the same people): the risk team reads it next to the others.
"""

from __future__ import annotations

from integrity.detection.findings import Finding, Population
from integrity.detection.stats import poisson_surprise
from integrity.models import Alert, PairStats, PlayerStats

MIN_MEETINGS = 5
THRESHOLD = 6.0


def evaluate(
    *, pair: PairStats, low: PlayerStats, high: PlayerStats, population: Population
) -> Finding | None:
    if pair.matches < MIN_MEETINGS or population.matches <= 0:
        return None
    expected = low.matches * high.matches / (2 * population.matches)
    return Finding(
        signal=Alert.Signal.REPEATED_PAIRING,
        score=poisson_surprise(k=pair.matches, mean=expected),
        threshold=THRESHOLD,
        player=pair.player_low_id,
        other_player=pair.player_high_id,
        reasoning={
            "statistic": "Poisson upper tail, -log10 P(X >= meetings | expected)",
            "meetings": pair.matches,
            "expected": round(expected, 4),
            "matches": {
                str(pair.player_low_id): low.matches,
                str(pair.player_high_id): high.matches,
            },
            "all_matches": population.matches,
            "games": pair.recent_games,
        },
    )

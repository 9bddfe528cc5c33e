"""Decision times too regular (docs/integrity.md "Bot timing"): people's think
times are heavy-tailed (a few seconds most of the time, sometimes much longer), a script's
are a fixed delay and some jitter.

Think time: the server's time of the player's action less the time of the event before it
in the hand (the turn opening), so a client cannot report its own. Statistic: the
coefficient of variation (sd / mean) of the player's think times, over at least
``MIN_MOVES``; the score is its inverse (regularity), raised at ``1 / MAX_CV``.
"""

from __future__ import annotations

from integrity.detection.findings import Finding
from integrity.detection.stats import coefficient_of_variation
from integrity.models import Alert, PlayerStats

MIN_MOVES = 150
MAX_CV = 0.35
THRESHOLD = 1 / MAX_CV


def evaluate(*, stats: PlayerStats) -> Finding | None:
    if stats.think_count < MIN_MOVES:
        return None
    cv = coefficient_of_variation(
        count=stats.think_count, total=stats.think_sum, total_sq=stats.think_sum_sq
    )
    if cv is None:
        return None
    return Finding(
        signal=Alert.Signal.BOT_TIMING,
        score=1 / cv if cv > 0 else 1e6,
        threshold=THRESHOLD,
        player=stats.player_id,
        other_player=None,
        reasoning={
            "statistic": "1 / coefficient of variation of server-side think times",
            "moves": stats.think_count,
            "mean_seconds": round(stats.think_sum / stats.think_count, 4),
            "cv": round(cv, 4),
            "max_cv": MAX_CV,
        },
    )

"""Ratings listen for finished games (connected in RatingsConfig.ready)."""

from __future__ import annotations

from gin_platform.enqueue import enqueue_on_commit
from ratings.selectors import is_rated_match

RATE_TASK = "ratings.tasks.match_rate"


def rate_finished_match(sender, match_id: int, **kwargs) -> None:
    """``games.signals.match_finished``: a rated match (R15) is rated in a task, queued after
    the commit; a lost message is found again by the ``ratings-sweep`` beat job. Other
    matches (practice) cost one indexed read."""
    if is_rated_match(match_id=match_id):
        enqueue_on_commit(RATE_TASK, match_id)

"""Tournaments listen for finished games (connected in TournamentsConfig.ready)."""

from __future__ import annotations

from gin_platform.enqueue import enqueue_on_commit
from tournaments.selectors import is_bracket_match

RESULT_TASK = "tournaments.tasks.match_result"


def bracket_match_finished(sender, match_id: int, **kwargs) -> None:
    """``games.signals.match_finished`` (and ``match_voided``): a tournament's match ended, so
    its result goes to
    the bracket in a task (queued after the commit; a lost message is found again by the
    ``tournaments-sweep`` beat job). Other matches cost one indexed read."""
    if is_bracket_match(match_id=match_id):
        enqueue_on_commit(RESULT_TASK, match_id)

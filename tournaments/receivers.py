"""Tournaments listen for finished games (connected in TournamentsConfig.ready)."""

from __future__ import annotations

import logging
from functools import partial

from gin_platform.enqueue import enqueue, on_commit_logged
from gin_platform.tenancy.principals import Actor
from tournaments.selectors import is_bracket_match
from tournaments.services.lifecycle import results_take

logger = logging.getLogger(__name__)
RESULT_TASK = "tournaments.tasks.match_result"


def bracket_match_finished(sender, match_id: int, **kwargs) -> None:
    """``games.signals.match_finished`` (and ``match_voided``): a tournament's match ended, so
    its result goes to the bracket after the commit, where it ended (waiting briefly for the
    tournament's lock), else in a task (a lost message, or a process killed first,
    is found again by the ``tournaments-sweep`` beat job). Other matches cost one indexed
    read."""
    if is_bracket_match(match_id=match_id):
        on_commit_logged(partial(result_take, match_id), what=f"result of match {match_id}")


def result_take(match_id: int) -> None:
    try:
        if results_take(match_id=match_id, actor=Actor.system("tournaments")):
            return
    except Exception:  # the task below takes it, or the sweep
        logger.exception("the result of match %s was not taken where it ended", match_id)
    enqueue(RESULT_TASK, match_id)

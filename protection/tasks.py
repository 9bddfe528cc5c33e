"""Celery tasks of player protection. Thin: one service call each.

- ``play_sessions_sweep``: beat job (``CELERY_BEAT_SCHEDULE["play-sessions-sweep"]``, every
  ``PROTECTION_SWEEP_SECONDS``): reached limits, reality checks away from the tables, idle
  sessions, stopped matches' voids (``protection.services.sweep``).
- ``harm_markers_flag_task``: the markers of harm's daily job
  (``CELERY_BEAT_SCHEDULE["protection-harm-markers"]``, protection/schedule.py: 00:15 UTC,
  for the day that just ended; ``protection.services.harm``). Safe to run twice,
  at once or after a crash: a flag is unique per player, rule and day, so a second run
  raises only the flags the first did not get to.
"""

from __future__ import annotations

from datetime import date

from celery import shared_task
from django.db import InterfaceError, OperationalError

from protection.services.harm import harm_markers_flag
from protection.services.sweep import play_sessions_sweep as sweep_run


# A sweep is not acks_late: one that dies mid-way is simply run again at the next beat tick.
@shared_task(ignore_result=True, acks_late=False)
def play_sessions_sweep() -> int:
    sweep = sweep_run()
    return len(sweep.limits_reached) + len(sweep.checks_shown) + len(sweep.idle_ended)


@shared_task(
    ignore_result=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=30,
    max_retries=5,
)
def harm_markers_flag_task(day: str | None = None) -> dict[str, int]:
    """``day``: an ISO date (``2026-11-30``) to run for a given UTC day (a missed run, by
    hand); by default the day before now."""
    return harm_markers_flag(day=None if day is None else date.fromisoformat(day))

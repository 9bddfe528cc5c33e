"""Celery tasks of player protection: the markers of harm's daily job, run by beat
(``CELERY_BEAT_SCHEDULE["protection-harm-markers"]``, protection/schedule.py: 00:15 UTC,
for the day that just ended). Thin: one service call (``protection.services.harm_markers_flag``).
Safe to run twice, at once or after a crash: a flag is unique per player, rule and day, so a
second run raises only the flags the first did not get to."""

from __future__ import annotations

from datetime import date

from celery import shared_task
from django.db import InterfaceError, OperationalError

from protection.services import harm_markers_flag


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

"""Integrity's row locks (one module per app, docs/architecture.md)."""

from __future__ import annotations

from integrity.models import DetectionCursor


def detection_cursor_lock(*, job: str) -> DetectionCursor:
    """Lock every detection cursor, in job order, and answer ``job``'s: the jobs add to the
    same per-player and per-pair figures, so one runs at a time, and a second run of the
    same job waits for the first and then reads on from where it stopped. Inside the
    caller's transaction."""
    for name in DetectionCursor.JOBS:
        DetectionCursor.objects.get_or_create(job=name)
    cursors = list(
        DetectionCursor.objects.select_for_update()
        .filter(job__in=DetectionCursor.JOBS)
        .order_by("job")
    )
    return next(cursor for cursor in cursors if cursor.job == job)

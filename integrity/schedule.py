"""The detection jobs' beat entries (docs/integrity.md "Jobs"), merged into
``CELERY_BEAT_SCHEDULE`` by the settings. Plain data, no Django: the settings import it
before the apps load."""

from __future__ import annotations

from typing import Any

DETECTION_JOBS = ("games", "money")


def detection_beat_schedule(interval_seconds: float) -> dict[str, dict[str, Any]]:
    """One beat entry per detection job, and one that groups their alerts into cases, every
    ``interval_seconds`` (a run left waiting in a dead queue is not worth running: the next
    one reads on from the same cursor, or groups what is still ungrouped)."""
    every = {"schedule": float(interval_seconds), "options": {"expires": float(interval_seconds)}}
    entries = {
        f"integrity-detection-{job}": {"task": f"integrity.tasks.detection_{job}", **every}
        for job in DETECTION_JOBS
    }
    entries["integrity-alerts-group"] = {"task": "integrity.tasks.group_alerts", **every}
    return entries

"""The detection jobs' beat entries (docs/integrity-detection.md "Jobs"), merged into
``CELERY_BEAT_SCHEDULE`` by the settings. Plain data, no Django: the settings import it
before the apps load."""

from __future__ import annotations

from typing import Any

DETECTION_JOBS = ("games", "money")


def detection_beat_schedule(interval_seconds: float) -> dict[str, dict[str, Any]]:
    """One beat entry per detection job, every ``interval_seconds`` (a run left waiting in a
    dead queue is not worth running: the next one reads on from the same cursor)."""
    return {
        f"integrity-detection-{job}": {
            "task": f"integrity.tasks.detection_{job}",
            "schedule": float(interval_seconds),
            "options": {"expires": float(interval_seconds)},
        }
        for job in DETECTION_JOBS
    }

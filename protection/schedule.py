"""The markers of harm's beat entry (docs/player-protection.md "Markers of harm"), merged
into ``CELERY_BEAT_SCHEDULE`` by the settings. Plain data and Celery's crontab, no Django:
the settings import it before the apps load."""

from __future__ import annotations

from typing import Any

from celery.schedules import crontab

# Daily at 00:15 UTC (the platform's clock is UTC): the job looks at the day that just ended.
HARM_MARKERS_AT = {"hour": 0, "minute": 15}


def harm_beat_schedule() -> dict[str, dict[str, Any]]:
    """One entry: the daily job. A run left waiting in a dead queue for most of a day is
    dropped (``expires``): by then the next run is close, and a missed day is run by hand
    with its ``day`` (docs/player-protection.md)."""
    return {
        "protection-harm-markers": {
            "task": "protection.tasks.harm_markers_flag_task",
            "schedule": crontab(**HARM_MARKERS_AT),
            "options": {"expires": 20 * 3600.0},
        }
    }

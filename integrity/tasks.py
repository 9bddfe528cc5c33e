"""Celery tasks of the integrity app: the detection jobs, run by beat
(``CELERY_BEAT_SCHEDULE["integrity-detection-games"]`` and ``["integrity-detection-money"]``,
every ``INTEGRITY_DETECTION_INTERVAL`` seconds). Thin: one service call each
(``integrity.detection.detection_job_run``). Safe to run twice at once or after a crash: the
jobs take their cursors' lock, count each row once and move the cursor in the same
transaction."""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from integrity.detection import detection_job_run
from integrity.models import DetectionCursor

DETECTION = {
    "ignore_result": True,
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": 5,
    "max_retries": 3,
}


@shared_task(**DETECTION)
def detection_games() -> int:
    return sum(report.rows for report in detection_job_run(job=DetectionCursor.GAMES))


@shared_task(**DETECTION)
def detection_money() -> int:
    return sum(report.rows for report in detection_job_run(job=DetectionCursor.MONEY))

"""Celery tasks of the integrity app: the detection jobs, run by beat
(``CELERY_BEAT_SCHEDULE["integrity-detection-games"]`` and ``["integrity-detection-money"]``,
every ``INTEGRITY_DETECTION_INTERVAL`` seconds), and the grouping of their alerts into the
risk team's cases (``["integrity-alerts-group"]``, as often). Thin: one service call each
(``integrity.detection.detection_job_run``, ``integrity.services.alerts_group``). Safe to
run twice at once or after a crash: the jobs take their cursors' lock, count each row once
and move the cursor in the same transaction; grouping locks each alert it puts in a case."""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from integrity.detection import detection_job_run
from integrity.models import DetectionCursor
from integrity.services import alerts_group

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


@shared_task(**DETECTION)
def group_alerts() -> int:
    return alerts_group()

"""Celery tasks of the integrity app: the detection jobs, run by beat
(``CELERY_BEAT_SCHEDULE["integrity-detection-games"]`` and ``["integrity-detection-money"]``,
every ``INTEGRITY_DETECTION_INTERVAL`` seconds), and the grouping of their alerts into the
risk team's cases (``["integrity-alerts-group"]``, as often). Thin: one service call each
(``integrity.detection.detection_job_run``, ``integrity.services.alerts_group``). Safe to
run twice at once or after a crash: the jobs take their cursors' lock, count each row once
and move the cursor in the same transaction; grouping locks each alert it puts in a case.

Linked accounts (docs/integrity.md): ``links_derive``, the links a mark's sighting
implies, queued on commit by ``integrity.services.mark_record`` (by name; idempotent: a link
is made once per pair and kind), and ``links_derive_pending``, beat
(``["derive-player-links"]``): the marks whose sighting was never derived (a lost message)."""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from integrity import services
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


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=1,
    max_retries=5,
    ignore_result=True,
)
def links_derive(mark_id: int) -> int:
    return services.links_derive(mark_id=mark_id)


# A sweep is not acks_late: one that dies mid-way is simply run again at the next beat tick.
@shared_task(ignore_result=True, acks_late=False)
def links_derive_pending() -> int:
    return services.links_derive_pending()

"""Health of the service's dependencies: database and Celery broker.

``GET /api/v1/health`` answers anyone (probes carry no credentials) with only the verdicts,
``{"status": "ok"|"degraded", "checks": {"database": "ok"|"down", "broker": ...}}``: an
error text names hosts, ports and versions an outsider has no business reading. Back-office
staff (``IsStaff``: session or basic auth) also get ``detail``, the reason for each verdict.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import connection

logger = logging.getLogger(__name__)


def database_status() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure means unhealthy; the reason is reported to staff
        return False, f"{type(exc).__name__}: {exc}"
    return True, connection.vendor


def broker_status() -> tuple[bool, str]:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return True, "eager (no broker configured: tasks run in-process)"
    url = settings.CELERY_BROKER_URL
    try:
        import redis

        client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
        client.ping()
    except Exception as exc:  # any failure means unhealthy; the reason is reported to staff
        return False, f"{type(exc).__name__}: {exc}"
    return True, "redis"


def health_report(*, detailed: bool) -> tuple[dict[str, Any], bool]:
    """The health body and whether every dependency answers. ``detailed`` (staff only) adds
    each check's reason; without it the body holds no error text at all."""
    results = {"database": database_status(), "broker": broker_status()}
    healthy = all(ok for ok, _ in results.values())
    body: dict[str, Any] = {
        "status": "ok" if healthy else "degraded",
        "checks": {name: "ok" if ok else "down" for name, (ok, _) in results.items()},
    }
    for name, (ok, reason) in results.items():
        if not ok:  # the operator of the service reads it in the logs
            logger.warning("health check %s is down: %s", name, reason)
    if detailed:
        body["detail"] = {name: reason for name, (_, reason) in results.items()}
    return body, healthy

"""Health of the service's dependencies: database and Celery broker."""

from __future__ import annotations

from django.conf import settings
from django.db import connection


def database_status() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure means unhealthy; the reason is reported
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
    except Exception as exc:  # any failure means unhealthy; the reason is reported
        return False, f"{type(exc).__name__}: {exc}"
    return True, "redis"

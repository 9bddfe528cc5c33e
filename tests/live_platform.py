"""The platform as deployed for a live test of the suite: gunicorn, a Celery worker and beat
as child processes (tests/benchmarks/interrupted.py ``Platform``) on this xdist worker's test
database and Redis database, their cache and channel keys under a prefix of their own, and
what they leave in Redis removed at the end."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connection

from gin_platform.request_path.cache import redis_client
from tests.benchmarks.interrupted import Platform
from tests.servers import database_url, free_port


@contextmanager
def live_platform(name: str, logs: Path, **extra_env: str) -> Iterator[Platform]:
    prefix = f"{name}-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DATABASE_URL": database_url(connection.settings_dict),
        "GIN_ENV": "development",
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
        "GUNICORN_ACCESSLOG": "",
        "CACHE_KEY_PREFIX": prefix,
        "CHANNEL_LAYER_PREFIX": f"{prefix}:ws",
        **extra_env,
    }
    env.pop("CELERY_BROKER_URL", None)  # the broker is this worker's Redis database
    running = Platform(env=env, logs=logs, port=free_port())
    try:
        running.start()
        yield running
    finally:
        running.stop()
        client = redis_client()
        if client is not None:  # the servers' cache keys, what beat queued and nobody took
            client.delete("celery", "unacked", "unacked_index", *client.keys(f"{prefix}:*"))

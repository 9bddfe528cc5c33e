"""A Celery broker nobody answers on, for tests of what happens after a commit when Redis is
down: tasks are really published (not run eagerly) to a closed port."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager

from gin_platform.project.celery import app as celery_app


def closed_port() -> int:
    """A local TCP port with nothing listening (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _drop_connections() -> None:
    celery_app._after_fork()  # forget pooled broker connections and producers


@contextmanager
def broker_unreachable() -> Iterator[str]:
    """Publish to ``redis://127.0.0.1:<closed port>`` with eager mode off; yields the URL."""
    url = f"redis://127.0.0.1:{closed_port()}/0"
    conf = celery_app.conf
    previous = (conf.broker_url, conf.task_always_eager)
    conf.broker_url, conf.task_always_eager = url, False
    _drop_connections()
    try:
        yield url
    finally:
        conf.broker_url, conf.task_always_eager = previous
        _drop_connections()

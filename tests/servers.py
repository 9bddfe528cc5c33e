"""Servers the tests start as child processes (the browser tests' page server, a gunicorn
as deployed): a free port of the loopback, the URL of this process's test database for them,
and waiting until one answers. Each xdist worker has its own test database (pytest-django's
``_gw0`` suffix), so the URL is read from the live connection's settings, never built from
DATABASE_URL."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import requests


def free_port() -> int:
    """A TCP port of 127.0.0.1 nothing listens on now (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def database_url(settings: dict) -> str:
    """``postgres://...`` of the database a Django ``DATABASES`` entry names."""
    user = settings.get("USER") or ""
    password = f":{settings['PASSWORD']}" if settings.get("PASSWORD") else ""
    auth = f"{user}{password}@" if user else ""
    host = settings.get("HOST") or "127.0.0.1"
    port = settings.get("PORT") or 5432
    return f"postgres://{auth}{host}:{port}/{settings['NAME']}"


def wait_until_serving(url: str, process: subprocess.Popen, log: Path) -> None:
    """Until ``url``'s liveness probe answers 200, for at most 60 s; fails with the tail of
    ``log`` when the server exits or never answers."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited:\n{log.read_text()[-3000:]}")
        try:
            if requests.get(f"{url}/api/v1/health/live", timeout=2).status_code == 200:
                return
        except (requests.ConnectionError, requests.Timeout):
            pass  # not listening yet, or still loading on a busy machine: ask again
        time.sleep(0.2)
    raise AssertionError(f"the server did not answer within 60 s:\n{log.read_text()[-3000:]}")

"""The container's HEALTHCHECK (deploy/Dockerfile): GET /api/v1/health from the gunicorn in this
container; exit 0 on 200, 1 otherwise. Standard library only, so it starts fast.

Django answers 400 to a Host it does not allow, so the request names the first usable entry
of ALLOWED_HOSTS rather than 127.0.0.1.
"""

from __future__ import annotations

import http.client
import os
import sys
from collections.abc import Mapping

HEALTH_PATH = "/api/v1/health"


def target(env: Mapping[str, str]) -> tuple[str, int]:
    """The loopback address and port gunicorn listens on, from GUNICORN_BIND."""
    bind = env.get("GUNICORN_BIND", "0.0.0.0:8000").split(",")[0].strip()
    host, _, port = bind.rpartition(":")
    # A wildcard bind is reached through loopback (nothing binds here).
    if host in ("", "0.0.0.0", "[::]", "::"):  # noqa: S104
        host = "127.0.0.1"
    return host.strip("[]"), int(port or 8000)


def host_header(env: Mapping[str, str]) -> str:
    """A Host value ALLOWED_HOSTS accepts: ".example.com" matches "example.com"; "*" anything."""
    for entry in env.get("ALLOWED_HOSTS", "").split(","):
        entry = entry.strip().lstrip(".")
        if entry and entry != "*":
            return entry
    return "localhost"


def main() -> int:
    host, port = target(os.environ)
    connection = http.client.HTTPConnection(host, port, timeout=5)
    try:
        connection.request("GET", HEALTH_PATH, headers={"Host": host_header(os.environ)})
        response = connection.getresponse()
        body = response.read(500).decode("utf-8", "replace")
    except OSError as exc:
        print(f"unhealthy: {HEALTH_PATH}: {exc}", file=sys.stderr)
        return 1
    finally:
        connection.close()
    if response.status != 200:
        print(f"unhealthy: {HEALTH_PATH} answered {response.status}: {body}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

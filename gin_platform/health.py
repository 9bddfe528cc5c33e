"""Health of the service's dependencies: database, Celery broker, channel layer.

``GET /api/v1/health`` answers anyone (probes carry no credentials) with only the verdicts,
``{"status": "ok"|"degraded", "checks": {"database": "ok"|"down", "broker": ...}}``: an
error text names hosts, ports and versions an outsider has no business reading. This is the
readiness probe: it checks what every request needs. Back-office staff (``IsStaff``: session
or basic auth) get the detailed check: also the channel layer (a message sent to a fresh
channel comes back: the path a move takes to the sockets, docs/realtime.md), ``detail`` (the
reason for each verdict) and ``server`` (``asgi`` or ``wsgi``: how the process serves).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import Any

import redis
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import connection
from django.http import HttpRequest

from gin_platform.project.http_bridge import ASGI_SERVER_MARK

logger = logging.getLogger(__name__)

# The channel-layer round trip must answer within this (it is a local Redis round trip).
CHANNEL_LAYER_TIMEOUT_SECONDS = 2.0


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
        client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
        client.ping()
    except Exception as exc:  # any failure means unhealthy; the reason is reported to staff
        return False, f"{type(exc).__name__}: {exc}"
    return True, "redis"


def channel_layer_status(*, timeout: float = CHANNEL_LAYER_TIMEOUT_SECONDS) -> tuple[bool, str]:
    """Send a message to a fresh channel and receive it back within ``timeout`` seconds."""
    layer = get_channel_layer()
    if layer is None:
        return False, "no channel layer configured (CHANNEL_LAYERS)"
    nonce = secrets.token_hex(8)

    async def round_trip() -> dict:
        channel = await layer.new_channel()
        await layer.send(channel, {"type": "health.ping", "nonce": nonce})
        return await layer.receive(channel)

    async def within_timeout() -> dict:
        return await asyncio.wait_for(round_trip(), timeout)

    started = time.monotonic()
    try:
        message = async_to_sync(within_timeout)()
    except TimeoutError:
        return False, f"{type(layer).__name__}: no round trip within {timeout:g} s"
    except Exception as exc:  # any failure means unhealthy; the reason is reported to staff
        return False, f"{type(layer).__name__}: {type(exc).__name__}: {exc}"
    if message.get("nonce") != nonce:
        return False, f"{type(layer).__name__}: received another message than the one sent"
    elapsed_ms = (time.monotonic() - started) * 1000
    return True, f"{type(layer).__name__}, round trip {elapsed_ms:.1f} ms"


def server_kind(request: HttpRequest) -> str:
    """``asgi`` under the ASGI server (HTTP and WebSockets), ``wsgi`` under a WSGI one. The
    ASGI server hands HTTP to Django's synchronous handler
    (gin_platform/project/http_bridge.py), which marks the request."""
    if isinstance(request, ASGIRequest) or request.META.get(ASGI_SERVER_MARK):
        return "asgi"
    return "wsgi"


def health_report(*, detailed: bool, server: str | None = None) -> tuple[dict[str, Any], bool]:
    """The health body and whether every check in it passed. ``detailed`` (staff only) adds
    the channel-layer check, each check's reason and ``server``; without it the body holds
    no error text at all, and the verdict (the readiness probe's) covers database and broker.
    """
    results = {"database": database_status(), "broker": broker_status()}
    if detailed:
        results["channel_layer"] = channel_layer_status()
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
        if server is not None:
            body["server"] = server
    return body, healthy

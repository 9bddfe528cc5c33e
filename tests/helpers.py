"""Helpers the whole suite shares: the problem+json assertion, API clients with a bearer
credential, and the frozen clock.

(The system actor is ``tests.factories.SYSTEM``; the Celery worker command line is
``tests.processes.worker_command``.)
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from django.utils import timezone
from rest_framework.test import APIClient

from gin_platform.http.problems import PROBLEM_CONTENT_TYPE
from gin_platform.tenancy.services import api_key_create, player_session_create
from tests.factories import SYSTEM

PROBLEM_MEMBERS = {"type", "title", "status", "detail"}


def assert_problem(response, status: int, slug: str) -> dict:
    """``response`` is an RFC 9457 problem: HTTP ``status``, ``application/problem+json``, the
    standard members, ``status`` in the body too, and the type ``/problems/<slug>``. Returns
    the body for further checks."""
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE, response["Content-Type"]
    body = json.loads(response.content)
    assert body["type"] == f"/problems/{slug}", body
    assert body["status"] == status, body
    assert set(body) >= PROBLEM_MEMBERS, body
    return body


def bearer_client(credential: str, client_class: type[APIClient] = APIClient) -> APIClient:
    """A client (of ``client_class``) that sends ``credential``, an operator's API key or a
    player's session token, as the bearer token of every request."""
    client = client_class()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {credential}")
    return client


def operator_api(operator) -> APIClient:
    """A client with a new API key of ``operator``."""
    return bearer_client(api_key_create(operator=operator, actor=SYSTEM).key)


def api_as(user) -> APIClient:
    """A client acting as the staff ``user`` (a verified staff session: tests/factories.py
    staff_user)."""
    client = APIClient()
    client.force_authenticate(user)
    return client


def session_client(player, client_class: type[APIClient] = APIClient) -> APIClient:
    """A client holding a new session token of ``player`` (``client.player``)."""
    client = bearer_client(player_session_create(player=player, actor=SYSTEM).token, client_class)
    client.player = player
    return client


class FrozenClock:
    """A clock held at ``moment`` (an aware datetime) that moves only when the test moves it."""

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def advance(self, **delta) -> None:
        self.moment += timedelta(**delta)

    def set(self, moment: datetime) -> None:
        self.moment = moment

    def timestamp(self) -> float:
        """The moment in seconds since the epoch: a stand-in for ``time.time``."""
        return self.moment.timestamp()


def freeze_now(monkeypatch, moment: datetime) -> FrozenClock:
    """Hold ``django.utils.timezone.now()`` (every service's clock) at ``moment``."""
    clock = FrozenClock(moment)
    monkeypatch.setattr(timezone, "now", lambda: clock.moment)
    return clock

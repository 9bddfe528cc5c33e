"""Helpers the whole suite shares: the problem+json assertion and the frozen clock.

(The system actor is ``tests.factories.SYSTEM``; the Celery worker command line is
``tests.processes.worker_command``.)
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from django.utils import timezone

from gin_platform.http.problems import PROBLEM_CONTENT_TYPE

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

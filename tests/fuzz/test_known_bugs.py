"""Reproducers of the bugs the API fuzzer found.

- Fixed in gin_platform/ (regressions: must pass on every database).
- Known bugs of apps still being written (tests/fuzz/known_bugs.py): strict xfail on the
  database they fail on, so a fix is noticed and its entry deleted (the fuzzer then covers
  that input class again).
"""

from __future__ import annotations

import pytest
from werkzeug.test import Client

from gin_platform.models import IdempotencyRecord
from gin_platform.project.wsgi import application
from tests.fuzz.known_bugs import KNOWN_BUGS

RAW_PATHS: dict = {}  # the fuzz_world fixture harvests ids from nothing here


def _send(world, method: str, url: str, credential: str, body=None):
    authorization = {
        "operator": f"Bearer {world.operator_key}",
        "player": f"Bearer {world.player_token}",
        "staff": world.staff_basic,
    }[credential]
    headers = {"Authorization": authorization}
    if method != "GET":
        headers["Idempotency-Key"] = world.idempotency_key()
    return Client(application).open(url, method=method, headers=headers, json=body)


@pytest.mark.parametrize(
    ("method", "url", "body", "expected"),
    [
        pytest.param("GET", "/api/v1/players?external_ref=%00", None, 400, id="nul-player-filter"),
        pytest.param(
            "GET", "/api/v1/webhooks/deliveries?event_type=%00", None, 400, id="nul-webhook-filter"
        ),
        pytest.param(
            "GET", "/api/v1/webhooks/deliveries?status=%00", None, 400, id="nul-webhook-status"
        ),
        # The idempotency record stored the raw path (text) ...
        pytest.param("POST", "/api/v1/players/%00/sessions", {}, 400, id="nul-in-write-path"),
        # A lockout's failed-attempt row stored the path (a wrong X-OTP on a money endpoint).
        pytest.param(
            "POST",
            "/api/v1/staff/ledger/transactions/%00/reversal",
            {},
            400,
            id="nul-in-path-of-a-failed-second-factor",
        ),
        # ... and the problem body echoing the input (jsonb).
        pytest.param(
            "POST",
            "/api/v1/players",
            {"external_ref": "fuzz", "kyc_status": "a\x00"},
            400,
            id="nul-echoed-in-stored-problem",
        ),
    ],
)
def test_fixed_in_platform(fuzz_world, method, url, body, expected):
    response = _send(fuzz_world, method, url, "operator", body)
    assert response.status_code == expected, response.get_data()[:300]
    assert response.headers["Content-Type"] == "application/problem+json"


def test_a_nul_in_a_body_is_refused_before_the_key_is_claimed(fuzz_world):
    """The problem stored for a NUL echoed from the body went into jsonb (500 on
    PostgreSQL). Now the JSON parser refuses a NUL anywhere in a body (400
    malformed-request) before the Idempotency-Key is claimed: nothing is stored, and a
    retry gets the same answer afresh."""
    headers = {
        "Authorization": f"Bearer {fuzz_world.operator_key}",
        "Idempotency-Key": "nul-replay",
    }
    body = {"external_ref": "fuzz", "kyc_status": "a\x00"}
    first = Client(application).post("/api/v1/players", headers=headers, json=body)
    again = Client(application).post("/api/v1/players", headers=headers, json=body)
    assert first.status_code == again.status_code == 400
    assert first.get_json()["type"] == again.get_json()["type"] == "/problems/malformed-request"
    assert "Idempotent-Replayed" not in again.headers
    assert not IdempotencyRecord.objects.filter(key="nul-replay").exists()


@pytest.mark.parametrize(
    "url",
    [
        # games/ (fixed during the session)
        "/api/v1/matches?status=%00",
        "/api/v1/matches?room=9223372036854775808",
        # settlement/ (fixed after the fuzzer's report)
        "/api/v1/settlements?currency=%00",
        "/api/v1/reports/daily?currency=%00",
        "/api/v1/settlements/99999999999999999999999",
    ],
)
def test_fixed_in_other_apps(fuzz_world, url):
    response = _send(fuzz_world, "GET", url, "operator")
    assert 400 <= response.status_code < 500, f"GET {url} -> {response.status_code}"
    assert response.headers["Content-Type"] == "application/problem+json"


def test_staff_report_operator_filter_is_validated(fuzz_world):
    """Found by the fuzzer: ``?operator=%00`` reached PostgreSQL (500)."""
    url = "/api/v1/backoffice/reports/daily?operator=%00"
    response = _send(fuzz_world, "GET", url, "staff")
    assert 400 <= response.status_code < 500, f"GET {url} -> {response.status_code}"
    assert response.headers["Content-Type"] == "application/problem+json"


def test_the_fuzzer_holds_no_input_back():
    """Every known bug is fixed: the fuzz run sends every input class to every operation."""
    assert KNOWN_BUGS == []

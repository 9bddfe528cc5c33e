"""Every error under the API's paths is problem+json whatever DEBUG says, over the test
client (WSGI) and the ASGI application; a Host outside ALLOWED_HOSTS is refused before
anything reads it, and never with a debug page (gin_platform/http/api_errors.py)."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from django.test import Client, override_settings

from gin_platform import health
from gin_platform.http.problems import PROBLEM_CONTENT_TYPE
from gin_platform.project.asgi import application
from tests.helpers import assert_problem

pytestmark = pytest.mark.django_db

DEBUG_ON_AND_OFF = pytest.mark.parametrize("debug", [True, False], ids=["debug", "no-debug"])
BAD_HOST = {"HTTP_HOST": "evil.example"}


@pytest.fixture
def client() -> Client:
    """A client that gets the server's answer to a crash, as a real client would."""
    return Client(raise_request_exception=False)


def assert_no_debug_page(response) -> None:
    text = response.content.decode("utf-8", "replace")
    for leak in ("Traceback", "URLconf", "DisallowedHost", "ALLOWED_HOSTS", "<html"):
        assert leak not in text, text[:500]


# --- Unknown paths -------------------------------------------------------------------------
@DEBUG_ON_AND_OFF
@pytest.mark.parametrize(
    "path", ["/api/v1/no-such-endpoint", "/api/no-version", "/problems/not%20a%20slug", "/ws/v1/me"]
)
def test_an_unknown_path_of_the_api_is_a_problem(client, debug, path):
    """With DEBUG on (the default outside production) Django's technical 404 page, which
    lists every URL pattern, never answers in place of handler404."""
    with override_settings(DEBUG=debug):
        response = client.get(path)
    body = assert_problem(response, 404, "not-found")
    assert body["detail"].startswith("No endpoint at /")
    assert_no_debug_page(response)


# --- The Host ------------------------------------------------------------------------------
@DEBUG_ON_AND_OFF
def test_a_host_outside_allowed_hosts_is_a_problem_under_the_api(client, debug, operator_key):
    with override_settings(DEBUG=debug):
        health = client.get("/api/v1/health/live", **BAD_HOST)
        write = client.post(
            "/api/v1/players",
            {"external_ref": "p1"},
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {operator_key}",
            HTTP_IDEMPOTENCY_KEY="k1",
            **BAD_HOST,
        )
    for response in (health, write):
        assert_problem(response, 400, "host-not-allowed")
        assert_no_debug_page(response)


@DEBUG_ON_AND_OFF
@pytest.mark.parametrize("path", ["/admin/login/", "/play/", "/static/no-such-file.js", "/"])
def test_a_host_outside_allowed_hosts_is_a_plain_400_elsewhere(client, debug, path):
    with override_settings(DEBUG=debug):
        response = client.get(path, **BAD_HOST)
    assert response.status_code == 400
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content == b"Bad Request (400)\n"


def test_a_refused_host_is_one_log_line_without_a_traceback(client, caplog):
    """Any client can send any Host: each refusal is one line, never a traceback."""
    with caplog.at_level(logging.INFO):
        client.get("/api/v1/health/live", **BAD_HOST)
    refusals = [r for r in caplog.records if r.name == "django.security.DisallowedHost"]
    assert len(refusals) == 1
    assert refusals[0].levelno == logging.WARNING
    assert "'evil.example'" in refusals[0].getMessage()
    assert all(record.exc_info is None for record in caplog.records)


def test_an_allowed_host_still_passes(client):
    assert client.get("/api/v1/health/live", HTTP_HOST="localhost").status_code == 200


# --- Errors of plain Django views under the API --------------------------------------------
@DEBUG_ON_AND_OFF
@pytest.mark.parametrize(
    ("path", "status", "slug"),
    [
        ("not-found", 404, "not-found"),
        ("denied", 403, "permission-denied"),
        ("suspicious", 400, "bad-request"),
        ("too-big", 413, "request-too-large"),
        ("crash", 500, "server-error"),
    ],
)
@override_settings(ROOT_URLCONF="tests.platform.error_urls")
def test_what_a_plain_view_raises_under_the_api_is_a_problem(client, debug, path, status, slug):
    with override_settings(DEBUG=debug):
        response = client.get(f"/api/v1/test-errors/{path}")
    body = assert_problem(response, status, slug)
    assert body["instance"] == f"/api/v1/test-errors/{path}"
    assert "a secret" not in body["detail"] and "a bug" not in body["detail"]
    assert_no_debug_page(response)


@pytest.mark.parametrize("path", ["database-gone", "database-gone-api", "connection-closed"])
@override_settings(ROOT_URLCONF="tests.platform.error_urls")
def test_a_lost_database_connection_is_a_503_to_try_again_not_a_500(client, caplog, path):
    """PostgreSQL or PgBouncer restarting, a failover: the request did not break the server,
    the client tries again (the chaos run, docs/deploy.md, met these as 500s)."""
    with caplog.at_level(logging.INFO):
        response = client.get(f"/api/v1/test-errors/{path}")
    assert_problem(response, 503, "database-unavailable")
    assert response["Retry-After"] == "2"
    assert [r.levelno for r in caplog.records if r.name.startswith("gin_platform")] == [
        logging.WARNING
    ]
    assert all(record.exc_info is None for record in caplog.records)


@override_settings(ROOT_URLCONF="tests.platform.error_urls")
def test_a_statement_the_database_refused_stays_a_500(client):
    """A deadlock (or any error the server answered a statement with) is the request's."""
    assert_problem(client.get("/api/v1/test-errors/deadlock"), 500, "server-error")


@DEBUG_ON_AND_OFF
@override_settings(ROOT_URLCONF="tests.platform.error_urls")
def test_a_plain_views_405_is_a_problem_with_allow(client, debug):
    with override_settings(DEBUG=debug):
        response = client.get("/api/v1/test-errors/posted")
    assert_problem(response, 405, "method-not-allowed")
    assert response["Allow"] == "POST"


@DEBUG_ON_AND_OFF
@override_settings(ROOT_URLCONF="tests.platform.error_urls")
def test_a_csrf_failure_under_the_api_is_a_problem(debug):
    with override_settings(DEBUG=debug):
        response = Client(enforce_csrf_checks=True).post("/api/v1/test-errors/posted")
    assert_problem(response, 403, "permission-denied")
    assert_no_debug_page(response)


@override_settings(ROOT_URLCONF="tests.platform.error_urls", DEBUG=True)
def test_outside_the_api_django_keeps_its_own_pages(client):
    """Only the API's paths are rewritten: elsewhere DEBUG's pages are the developer's."""
    response = client.get("/pages/crash")
    assert response.status_code == 500
    assert response["Content-Type"].startswith("text/html")


def test_a_json_error_of_an_endpoint_is_left_as_it_is(client, monkeypatch):
    """The health check's 503 is JSON with the checks: not a page to rewrite."""
    monkeypatch.setattr(health, "database_status", lambda: (False, "down"))
    response = client.get("/api/v1/health")
    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert response.json()["checks"]["database"] == "down"


# --- The same over the ASGI application ----------------------------------------------------
def asgi_get(path: str, host: bytes) -> tuple[int, dict[bytes, bytes], bytes]:
    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", host)],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(application(scope, receive, send))
    start, *bodies = sent
    return start["status"], dict(start["headers"]), b"".join(b.get("body", b"") for b in bodies)


@override_settings(DEBUG=True)
def test_over_asgi_an_unknown_path_and_a_refused_host_are_problems_with_debug_on():
    status, headers, body = asgi_get("/api/v1/no-such-endpoint", b"localhost")
    assert status == 404 and headers[b"content-type"] == PROBLEM_CONTENT_TYPE.encode()
    assert json.loads(body)["type"] == "/problems/not-found"
    status, headers, body = asgi_get("/api/v1/health/live", b"evil.example")
    assert status == 400 and headers[b"content-type"] == PROBLEM_CONTENT_TYPE.encode()
    assert json.loads(body)["type"] == "/problems/host-not-allowed"

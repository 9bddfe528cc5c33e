"""CORS per operator over the real test client: preflights and headers for registered origins
only, under /api/ only, never with credentials; the Origin check after authentication; the
cached lookup."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from redis.exceptions import ConnectionError as RedisConnectionError
from rest_framework.test import APIClient

from gin_platform.http import cors
from gin_platform.http.cors import registered_operator_ids
from gin_platform.http.throttling import PrincipalRateThrottle
from gin_platform.models import Operator
from gin_platform.tenancy.selectors import origin_allowed
from gin_platform.tenancy.services import (
    operator_origin_create,
    operator_origin_delete,
)
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.helpers import assert_problem, session_client

pytestmark = pytest.mark.django_db
MINE, THEIRS = "https://casino-a.example.com", "https://casino-b.example.com"


@pytest.fixture
def mine(operator):
    return operator_origin_create(operator=operator, origin=MINE, actor=SYSTEM)


@pytest.fixture
def other_operator():
    other = OperatorFactory()
    operator_origin_create(operator=other, origin=THEIRS, actor=SYSTEM)
    return other


def preflight(origin: str, path: str = "/api/v1/lobby", method: str = "POST"):
    return APIClient().options(
        path,
        HTTP_ORIGIN=origin,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD=method,
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type, idempotency-key",
    )


# --- Preflights ------------------------------------------------------------------------------
def test_a_preflight_from_a_registered_origin_gets_the_cors_headers(mine):
    response = preflight(MINE)

    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == MINE
    allowed = {h.strip() for h in response["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "idempotency-key", "x-signature"} <= allowed
    assert "POST" in response["Access-Control-Allow-Methods"]
    exposed = {h.strip() for h in response["Access-Control-Expose-Headers"].split(",")}
    assert {"Idempotent-Replayed", "Retry-After", "Location"} <= exposed
    assert {"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} <= exposed
    assert "Access-Control-Allow-Credentials" not in response  # no cookies cross origins


def test_a_preflight_from_an_unregistered_origin_gets_no_cors_header(mine):
    for origin in ("https://evil.example", "null", "https://casino-a.example.com.evil.example"):
        response = preflight(origin)
        assert not any(name.lower().startswith("access-control-") for name in response.headers)


def test_an_origin_of_a_suspended_operator_gets_no_cors_header(operator, mine):
    Operator.objects.filter(pk=operator.pk).update(status=Operator.Status.SUSPENDED)
    assert "Access-Control-Allow-Origin" not in preflight(MINE)


def test_only_the_api_answers_cross_origin(mine):
    for path in ("/admin/login/", "/problems/not-found"):
        response = preflight(MINE, path=path, method="GET")
        assert "Access-Control-Allow-Origin" not in response, path


def test_an_actual_request_from_a_registered_origin_carries_the_headers(mine, player_client):
    response = player_client.get("/api/v1/lobby", HTTP_ORIGIN=MINE)

    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == MINE
    assert "origin" in response["Vary"].lower()


# --- The Origin check after authentication ---------------------------------------------------
def test_a_player_driven_from_another_operators_site_is_403(mine, other_operator, player_client):
    """Operator B registered THEIRS: a page there may call the API for B's players, never
    for A's (the preflight passes, since it carries no credentials; the request does not)."""
    assert preflight(THEIRS)["Access-Control-Allow-Origin"] == THEIRS

    refused = player_client.get("/api/v1/lobby", HTTP_ORIGIN=THEIRS)

    body = assert_problem(refused, 403, "origin-not-allowed")
    assert THEIRS in body["detail"]
    assert player_client.get("/api/v1/lobby", HTTP_ORIGIN=MINE).status_code == 200


def test_an_operator_key_used_from_another_operators_site_is_403(
    operator_client, other_operator, mine, idem
):
    refused = operator_client.post(
        "/api/v1/players", {"external_ref": "x"}, format="json", HTTP_ORIGIN=THEIRS, **idem()
    )
    assert_problem(refused, 403, "origin-not-allowed")
    assert operator_client.get("/api/v1/players", HTTP_ORIGIN=MINE).status_code == 200


def test_an_unregistered_or_malformed_origin_is_403(player_client):
    for origin in ("https://evil.example", "null", "not an origin"):
        assert_problem(
            player_client.get("/api/v1/lobby", HTTP_ORIGIN=origin), 403, "origin-not-allowed"
        )


def test_requests_without_an_origin_are_unaffected(player_client, other_operator):
    assert player_client.get("/api/v1/lobby").status_code == 200


def test_the_platforms_own_pages_need_no_registration(player_client, settings):
    """The hosted table page and the API docs are served by the platform: their Origin is
    the host the request was made to (or PUBLIC_BASE_URL's)."""
    own = player_client.get("/api/v1/lobby", HTTP_ORIGIN="http://testserver")
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "games.example.com"]
    proxied = player_client.get(
        "/api/v1/lobby", HTTP_ORIGIN="https://games.example.com", HTTP_HOST="games.example.com"
    )
    settings.PUBLIC_BASE_URL = "https://play.example.com"
    public = player_client.get("/api/v1/lobby", HTTP_ORIGIN="https://play.example.com")
    assert own.status_code == proxied.status_code == public.status_code == 200
    other_port = player_client.get("/api/v1/lobby", HTTP_ORIGIN="http://testserver:8080")
    assert_problem(other_port, 403, "origin-not-allowed")


def test_a_refused_origin_is_not_counted_as_a_failed_login(player_client, monkeypatch):
    monkeypatch.setitem(PrincipalRateThrottle.THROTTLE_RATES, "auth_failures_address", "2/min")
    for _ in range(4):
        player_client.get("/api/v1/lobby", HTTP_ORIGIN="https://evil.example")
    assert player_client.get("/api/v1/lobby").status_code == 200


# --- origin_allowed, for the sockets ---------------------------------------------------------
def test_origin_allowed_for_the_socket_consumer(operator, mine, other_operator):
    host = "games.example.com"
    assert origin_allowed(operator=operator, origin=None, host=host)
    assert origin_allowed(operator=operator, origin="https://games.example.com", host=host)
    assert origin_allowed(operator=operator, origin="https://GAMES.example.com:443", host=host)
    assert origin_allowed(operator=operator, origin=MINE, host=host)
    assert origin_allowed(operator=operator, origin=MINE.upper() + "/", host=host)
    assert not origin_allowed(operator=operator, origin=THEIRS, host=host)
    assert origin_allowed(operator=other_operator, origin=THEIRS, host=host)
    assert not origin_allowed(operator=operator, origin="null", host=host)
    assert not origin_allowed(operator=operator, origin="https://games.example.com:8443", host=host)
    assert origin_allowed(operator=operator, origin="http://localhost:8000", host="localhost:8000")


# --- The cache ------------------------------------------------------------------------------
def test_preflights_do_not_query_the_database_once_cached(mine):
    assert preflight(MINE)["Access-Control-Allow-Origin"] == MINE
    assert "Access-Control-Allow-Origin" not in preflight("https://evil.example")
    with CaptureQueriesContext(connection) as queries:
        for _ in range(3):
            assert preflight(MINE)["Access-Control-Allow-Origin"] == MINE
            assert "Access-Control-Allow-Origin" not in preflight("https://evil.example")
    assert len(queries) == 0


def test_adding_or_deleting_an_origin_is_seen_at_once_despite_the_cache(
    operator, operator_client, idem, django_capture_on_commit_callbacks
):
    assert "Access-Control-Allow-Origin" not in preflight(MINE)  # cached: nobody has it
    with django_capture_on_commit_callbacks(execute=True):
        created = operator_client.post(
            "/api/v1/operators/me/origins", {"origin": MINE}, format="json", **idem()
        )
    assert preflight(MINE)["Access-Control-Allow-Origin"] == MINE

    with django_capture_on_commit_callbacks(execute=True):
        operator_client.delete(f"/api/v1/operators/me/origins/{created.json()['id']}", **idem())

    assert "Access-Control-Allow-Origin" not in preflight(MINE)
    assert registered_operator_ids(MINE) == frozenset()


def test_the_lookup_falls_back_to_the_database_when_the_cache_is_down(operator, mine, monkeypatch):

    def down(*args, **kwargs):
        raise RedisConnectionError("down")

    monkeypatch.setattr(cors.cache, "get", down)
    monkeypatch.setattr(cors.cache, "set", down)
    monkeypatch.setattr(cors.cache, "delete", down)

    assert registered_operator_ids(MINE) == frozenset({str(operator.pk)})
    operator_origin_delete(origin=mine, actor=SYSTEM)  # its cache invalidation fails quietly
    assert registered_operator_ids(MINE) == frozenset()


def test_a_player_of_an_operator_with_no_origin_is_refused_from_any_site(db):
    """Registration is per operator: an operator that registered nothing has no site."""
    lonely = OperatorFactory()
    client = session_client(PlayerFactory(operator=lonely))
    operator_origin_create(operator=OperatorFactory(), origin=MINE, actor=SYSTEM)
    assert_problem(client.get("/api/v1/lobby", HTTP_ORIGIN=MINE), 403, "origin-not-allowed")

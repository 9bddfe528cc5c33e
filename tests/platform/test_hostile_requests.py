"""Hostile requests get clean 4xx problem answers, never a 500, and store nothing: bodies too
large, nested too deep, or holding NUL characters or unpaired surrogates (gin_platform/
parsers.py); NUL in a query string or a header (gin_platform/http/middleware.py); forged cursors
(gin_platform/http/pagination.py); bounded cashier metadata (wallet/api/serializers.py)."""

from __future__ import annotations

import base64
import io
import json

import pytest
from axes.models import AccessAttempt
from django.core.exceptions import RequestDataTooBig
from django.test import override_settings

from gin_platform.http.parsers import MAX_JSON_DEPTH, StrictJSONParser, json_shape
from gin_platform.http.problem_handler import problem_exception_handler
from gin_platform.http.problems import MalformedRequestProblem, RequestTooLargeProblem
from gin_platform.models import IdempotencyRecord
from tests.factories import PlayerFactory
from tests.helpers import assert_problem
from wallet.models import LedgerTransaction

pytestmark = pytest.mark.django_db


def deposits(player) -> str:
    return f"/api/v1/players/{player.pk}/deposits"


def post_raw(client, url: str, raw: bytes, **headers):
    return client.generic("POST", url, raw, content_type="application/json", **headers)


def assert_nothing_stored() -> None:
    assert not LedgerTransaction.objects.exists()
    assert not IdempotencyRecord.objects.exists()  # a replay would not find a stored 4xx


def nested(depth: int, leaf=None):
    document = leaf
    for _ in range(depth):
        document = {"a": document}
    return document


# --- Size -------------------------------------------------------------------------------------
def test_a_3_mb_body_is_413(operator_client, player, idem):
    raw = json.dumps(
        {"amount": "1.00", "currency": "EUR", "metadata": {"k": "x" * 3_000_000}}
    ).encode()
    body = assert_problem(
        post_raw(operator_client, deposits(player), raw, **idem()), 413, "request-too-large"
    )
    assert body["limit"] == 256 * 1024
    assert_nothing_stored()


def test_the_parser_stops_reading_at_the_limit_whatever_the_length_header_said():
    stream = io.BytesIO(b'{"k": "' + b"x" * (300 * 1024) + b'"}')
    with pytest.raises(RequestTooLargeProblem):
        StrictJSONParser().parse(stream, "application/json", {})
    assert stream.tell() == 256 * 1024 + 1  # read one byte past the limit, no more


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1024)
def test_a_body_read_past_the_limit_inside_a_view_is_413_too():
    response = problem_exception_handler(RequestDataTooBig("too big"), {})
    assert response.status_code == 413
    assert response.data["type"] == "/problems/request-too-large"
    assert response.data["limit"] == 1024


# --- Depth ------------------------------------------------------------------------------------
def test_json_nested_100000_deep_is_400(operator_client, player, idem):
    raw = b"[" * 100_000 + b"]" * 100_000
    assert_problem(
        post_raw(operator_client, deposits(player), raw, **idem()), 400, "malformed-request"
    )
    assert_nothing_stored()


def test_metadata_nested_500_deep_in_3_kb_is_400(operator_client, player, idem):
    raw = json.dumps({"amount": "1.00", "currency": "EUR", "metadata": nested(500)}).encode()
    assert len(raw) < 4096
    body = assert_problem(
        post_raw(operator_client, deposits(player), raw, **idem()), 400, "malformed-request"
    )
    assert f"more than {MAX_JSON_DEPTH} levels" in body["detail"]
    assert_nothing_stored()


def test_the_depth_limit_is_exact():
    parser = StrictJSONParser()
    deepest = json.dumps(nested(MAX_JSON_DEPTH, leaf=1)).encode()
    assert json_shape(parser.parse(io.BytesIO(deepest), "application/json", {})).depth == 32
    too_deep = json.dumps(nested(MAX_JSON_DEPTH + 1, leaf=1)).encode()
    with pytest.raises(MalformedRequestProblem):
        parser.parse(io.BytesIO(too_deep), "application/json", {})


# --- Characters PostgreSQL refuses ------------------------------------------------------------
@pytest.mark.parametrize(
    "metadata",
    [
        pytest.param({"k": "v\u0000"}, id="nul-in-a-value"),
        pytest.param({"k\u0000": "v"}, id="nul-in-a-key"),
        pytest.param({"k": ["a", {"b": "\u0000"}]}, id="nul-nested"),
        pytest.param({"k": "\ud800"}, id="unpaired-surrogate"),
    ],
)
def test_nul_and_unpaired_surrogates_in_a_body_are_400(operator_client, player, idem, metadata):
    raw = json.dumps({"amount": "1.00", "currency": "EUR", "metadata": metadata}).encode()
    assert_problem(
        post_raw(operator_client, deposits(player), raw, **idem()), 400, "malformed-request"
    )
    assert_nothing_stored()


def test_astral_characters_are_fine(operator_client, player, idem):
    response = operator_client.post(
        deposits(player),
        {"amount": "1.00", "currency": "EUR", "metadata": {"note": "🂡 paid"}},
        format="json",
        **idem(),
    )
    assert response.status_code == 201, response.content
    assert response.json()["metadata"] == {"note": "🂡 paid"}


@pytest.mark.parametrize(
    "query",
    ["cursor=%00", "external_ref=%00", "page_size=1%002", "x=%00"],
)
def test_a_nul_in_the_query_string_is_400(operator_client, query):
    assert_problem(operator_client.get(f"/api/v1/players?{query}"), 400, "malformed-request")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/v1/players/%00"),
        ("post", "/api/v1/players/%00/sessions"),
        # A money endpoint with a wrong second factor: the lockout's failed-attempt row
        # stored the request's path (a 500 found by the fuzzer).
        ("post", "/api/v1/staff/ledger/transactions/%00/reversal"),
    ],
)
def test_a_nul_in_the_path_is_400_and_nothing_is_recorded(
    operator_client, staff_client, method, path, idem
):
    client = staff_client if "/staff/" in path else operator_client
    response = getattr(client, method)(path, {}, format="json", HTTP_X_OTP="q2!", **idem())
    assert_problem(response, 400, "malformed-request")
    assert_nothing_stored()
    assert not AccessAttempt.objects.exists()


def test_a_nul_in_a_header_is_400(operator_client, player, idem):
    response = operator_client.post(
        deposits(player),
        {"amount": "1.00", "currency": "EUR"},
        format="json",
        HTTP_X_CLIENT_NOTE="a\x00b",
        **idem(),
    )
    assert_problem(response, 400, "malformed-request")
    assert_nothing_stored()


@pytest.mark.parametrize(
    "cursor",
    [
        pytest.param(b"p=\x00", id="nul-position"),
        pytest.param(b"p=yesterday", id="not-a-date-time"),
        pytest.param(b"p=2026-13-45T99:00:00Z", id="impossible-date"),
    ],
)
@pytest.mark.parametrize(
    "url",
    ["/api/v1/players", "/api/v1/settlements", "/api/v1/webhooks/deliveries"],
)
def test_a_forged_cursor_is_404_like_any_invalid_cursor(operator_client, url, cursor):
    encoded = base64.b64encode(cursor).decode()
    body = assert_problem(operator_client.get(f"{url}?cursor={encoded}"), 404, "not-found")
    assert body["detail"] == "Invalid cursor"


def test_a_real_cursor_still_pages(operator_client, operator):
    for _ in range(3):
        PlayerFactory(operator=operator)
    first = operator_client.get("/api/v1/players?page_size=2").json()
    second = operator_client.get(first["next"]).json()
    assert len(first["results"]) == 2 and len(second["results"]) == 1


# --- Cashier metadata bounds ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        pytest.param(nested(5, leaf="v"), "at most 4 levels of nesting", id="5-levels"),
        pytest.param({f"k{i}": i for i in range(65)}, "at most 64 keys in all", id="65-keys"),
        pytest.param(
            {"a": {f"k{i}": i for i in range(40)}, "b": {f"k{i}": i for i in range(40)}},
            "at most 64 keys in all",
            id="keys-at-every-level",
        ),
        pytest.param({"k": "x" * 4100}, "at most 4096 bytes of JSON", id="4-kb"),
    ],
)
def test_cashier_metadata_is_bounded(operator_client, player, idem, metadata, message):
    response = operator_client.post(
        deposits(player),
        {"amount": "1.00", "currency": "EUR", "metadata": metadata},
        format="json",
        **idem(),
    )
    body = assert_problem(response, 400, "validation-error")
    assert body["errors"] == {"metadata": [message]}
    assert not LedgerTransaction.objects.exists()


def test_metadata_within_the_bounds_is_kept(operator_client, player, idem):
    metadata = nested(4, leaf="v") | {f"k{i}": i for i in range(60)}
    response = operator_client.post(
        deposits(player),
        {"amount": "1.00", "currency": "EUR", "metadata": metadata},
        format="json",
        **idem(),
    )
    assert response.status_code == 201, response.content
    assert response.json()["metadata"] == metadata

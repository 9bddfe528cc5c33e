"""Every error is RFC 9457 problem+json with a stable type."""

import pytest
from rest_framework.settings import api_settings
from rest_framework.test import APIClient

from gin_platform.http.problems import REGISTRY, Problem
from gin_platform.http.throttling import PrincipalRateThrottle
from tests.helpers import assert_problem

pytestmark = pytest.mark.django_db


def test_validation_errors_list_each_field(operator_client, idem):
    response = operator_client.post("/api/v1/players", {}, format="json", **idem())
    body = assert_problem(response, 400, "validation-error")
    assert "external_ref" in body["errors"]
    assert body["instance"] == "/api/v1/players"


def test_malformed_json_is_a_problem(operator_client, idem):
    response = operator_client.generic(
        "POST", "/api/v1/players", b"{not json", content_type="application/json", **idem()
    )
    assert_problem(response, 400, "malformed-request")


def test_wrong_media_type_is_a_problem(operator_client, idem):
    response = operator_client.generic(
        "POST", "/api/v1/players", b"external_ref=a", content_type="text/plain", **idem()
    )
    assert_problem(response, 415, "unsupported-media-type")


def test_unknown_url_is_a_problem(operator_client):
    assert_problem(operator_client.get("/api/v1/nothing-here"), 404, "not-found")


def test_wrong_method_is_a_problem_with_allow(operator_client):
    response = operator_client.delete("/api/v1/operators/me")
    assert_problem(response, 405, "method-not-allowed")
    assert "GET" in response["Allow"]


def test_throttling_is_a_problem_with_retry_after(operator_client, settings):
    rates = dict(api_settings.DEFAULT_THROTTLE_RATES)
    api_settings.DEFAULT_THROTTLE_RATES["operator"] = "2/min"
    try:
        PrincipalRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
        responses = [operator_client.get("/api/v1/operators/me") for _ in range(3)]
    finally:
        api_settings.DEFAULT_THROTTLE_RATES.clear()
        api_settings.DEFAULT_THROTTLE_RATES.update(rates)
    assert [r.status_code for r in responses[:2]] == [200, 200]
    body = assert_problem(responses[2], 429, "throttled")
    assert body["retry_after"] > 0
    assert int(responses[2]["Retry-After"]) >= 1


def test_every_problem_type_is_documented_at_its_uri(monkeypatch):
    # One anonymous client reads every page: more pages than its throttle allows a minute.
    monkeypatch.setitem(PrincipalRateThrottle.THROTTLE_RATES, "anon", "100000/min")
    client = APIClient()
    listing = client.get("/api/v1/problems").json()
    slugs = {entry["slug"] for entry in listing}
    assert {"validation-error", "not-found", "throttled", "idempotency-key-reused"} <= slugs
    for slug in slugs:
        page = client.get(f"/problems/{slug}")
        assert page.status_code == 200
        assert page.json()["type"] == f"/problems/{slug}"
    assert client.get("/problems/no-such-problem").status_code == 404


def test_problem_slugs_are_unique_by_construction():
    with pytest.raises(TypeError, match="declared twice"):

        class Again(Problem):
            slug = "not-found"

    assert REGISTRY["not-found"].__name__ == "NotFoundProblem"

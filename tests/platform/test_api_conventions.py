"""The OpenAPI schema, the interactive docs and the health probes."""

import pytest
from django.core.management import call_command
from rest_framework.settings import api_settings
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_schema_generates_valid_with_no_warnings(tmp_path):
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    text = target.read_text()
    assert "/api/v1/players" in text and "operatorApiKey" in text


def test_schema_and_interactive_docs_are_served(operator_client):
    assert operator_client.get("/api/v1/schema/").status_code == 200
    docs = operator_client.get("/api/v1/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()


def test_health_reports_database_and_broker():
    response = APIClient().get("/api/v1/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "broker": "ok"}}


def test_health_is_degraded_when_the_broker_does_not_answer(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    response = APIClient().get("/api/v1/health")
    assert response.status_code == 503
    assert response.json()["checks"] == {"database": "ok", "broker": "down"}


def test_liveness_checks_no_dependency(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    response = APIClient().get("/api/v1/health/live")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_health_is_never_throttled():
    rates = dict(api_settings.DEFAULT_THROTTLE_RATES)
    api_settings.DEFAULT_THROTTLE_RATES["anon"] = "2/min"
    try:
        statuses = {APIClient().get("/api/v1/health").status_code for _ in range(5)}
    finally:
        api_settings.DEFAULT_THROTTLE_RATES.clear()
        api_settings.DEFAULT_THROTTLE_RATES.update(rates)
    assert statuses == {200}

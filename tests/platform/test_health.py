"""GET /api/v1/health tells anyone only the verdicts; staff also get the reasons."""

import json

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

HEALTH = "/api/v1/health"


@pytest.fixture
def broker_down(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6390/0"


def test_an_anonymous_caller_sees_no_error_text(broker_down):
    response = APIClient().get(HEALTH)
    assert response.status_code == 503
    assert response.json() == {"status": "degraded", "checks": {"database": "ok", "broker": "down"}}
    text = response.content.decode()
    for internal in ("6390", "127.0.0.1", "Error", "connecting", "sqlite", "redis"):
        assert internal not in text


def test_an_operator_key_is_not_enough_for_the_detail(broker_down, operator_client):
    response = operator_client.get(HEALTH)
    assert response.status_code == 503
    assert "detail" not in response.json()
    assert "6390" not in response.content.decode()


def test_staff_get_the_reason_of_each_verdict(broker_down, staff_client):
    response = staff_client.get(HEALTH)
    assert response.status_code == 503
    body = response.json()
    assert body["checks"] == {"database": "ok", "broker": "down"}
    assert "6390" in body["detail"]["broker"]
    assert body["detail"]["database"] in {"sqlite", "postgresql"}


def test_staff_signing_in_with_basic_auth_get_the_detail(broker_down):
    get_user_model().objects.create_user("ops", password="pw-ops-12345", is_staff=True)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Basic " + _basic("ops", "pw-ops-12345"))
    response = client.get(HEALTH)
    assert "6390" in json.dumps(response.json()["detail"])


def test_a_healthy_service_answers_200_to_anyone():
    response = APIClient().get(HEALTH)
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "broker": "ok"}}


def _basic(user: str, password: str) -> str:
    import base64

    return base64.b64encode(f"{user}:{password}".encode()).decode()

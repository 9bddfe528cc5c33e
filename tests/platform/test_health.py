"""GET /api/v1/health tells anyone only the verdicts of the readiness checks; staff also get
the channel-layer check, the reasons and how the process serves."""

import asyncio
import base64
import json

import pytest
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.contrib.auth import get_user_model
from django.test import AsyncRequestFactory, RequestFactory
from rest_framework.test import APIClient

from gin_platform.health import channel_layer_status, server_kind

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
    assert body["checks"] == {"database": "ok", "broker": "down", "channel_layer": "ok"}
    assert "6390" in body["detail"]["broker"]
    assert body["detail"]["database"] in {"sqlite", "postgresql"}
    # The layer of this environment (Redis with REDIS_URL, else in memory) answered.
    assert body["detail"]["channel_layer"].startswith(type(get_channel_layer()).__name__)
    assert "round trip" in body["detail"]["channel_layer"]
    assert body["server"] == "wsgi"  # the test client is a WSGI request


@pytest.fixture
def channel_layer_down(settings):
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": ["redis://127.0.0.1:6390/0"]},
        }
    }


def test_a_dead_channel_layer_degrades_the_staff_check_only(channel_layer_down, staff_client):
    """Probes are anonymous: readiness still means database and broker. Staff see that the
    sockets would get no pushes."""
    assert APIClient().get(HEALTH).status_code == 200
    response = staff_client.get(HEALTH)
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded"
    assert body["checks"] == {"database": "ok", "broker": "ok", "channel_layer": "down"}
    assert body["detail"]["channel_layer"].startswith("RedisPubSubChannelLayer: ")
    assert "6390" in body["detail"]["channel_layer"]


class SilentLayer(InMemoryChannelLayer):
    """Accepts every message and never delivers one (a layer that hangs)."""

    async def receive(self, channel):
        await asyncio.Event().wait()


def test_the_channel_layer_round_trip_has_a_deadline(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": f"{__name__}.SilentLayer"}}
    ok, reason = channel_layer_status(timeout=0.2)
    assert not ok
    assert reason == "SilentLayer: no round trip within 0.2 s"


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


def test_the_server_kind_follows_the_request_handler():
    """``asgi`` for a request of Django's ASGI handler, as gunicorn's uvicorn workers serve
    (tests/demo/test_server.py reads it from a real server), ``wsgi`` otherwise."""
    assert server_kind(AsyncRequestFactory().get(HEALTH)) == "asgi"
    assert server_kind(RequestFactory().get(HEALTH)) == "wsgi"


def _basic(user: str, password: str) -> str:
    return base64.b64encode(f"{user}:{password}".encode()).decode()

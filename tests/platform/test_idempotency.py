"""Idempotency-Key semantics: replay, mismatch, in flight, concurrency; secrets are never
stored or replayed; records are pruned after the retention."""

import json
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory

from gin_platform.http.idempotency import run_idempotently
from gin_platform.models import IdempotencyRecord, Player
from gin_platform.tasks import prune_expired_records
from gin_platform.tenancy.principals import OperatorPrincipal
from gin_platform.tenancy.services import api_key_create
from tests.factories import SYSTEM, OperatorFactory
from tests.helpers import bearer_client, operator_api

pytestmark = pytest.mark.django_db
PLAYERS = "/api/v1/players"


def test_a_write_without_a_key_is_refused_and_changes_nothing(operator_client):
    response = operator_client.post(PLAYERS, {"external_ref": "a"}, format="json")
    assert response.status_code == 400
    assert response.json()["type"] == "/problems/idempotency-key-missing"
    assert Player.objects.count() == 0


def test_a_replay_returns_the_first_response_and_does_not_apply_twice(operator_client):
    headers = {"HTTP_IDEMPOTENCY_KEY": "same"}
    first = operator_client.post(PLAYERS, {"external_ref": "a"}, format="json", **headers)
    second = operator_client.post(PLAYERS, {"external_ref": "a"}, format="json", **headers)
    assert first.status_code == second.status_code == 201
    assert first.json() == second.json()
    assert second["Idempotent-Replayed"] == "true"
    assert Player.objects.count() == 1


def test_the_same_key_with_another_body_is_422(operator_client):
    headers = {"HTTP_IDEMPOTENCY_KEY": "same"}
    operator_client.post(PLAYERS, {"external_ref": "a"}, format="json", **headers)
    response = operator_client.post(PLAYERS, {"external_ref": "b"}, format="json", **headers)
    assert response.status_code == 422
    assert response.json()["type"] == "/problems/idempotency-key-reused"
    assert list(Player.objects.values_list("external_ref", flat=True)) == ["a"]


def test_keys_are_scoped_per_operator(operator_client):
    other = OperatorFactory()
    other_client = operator_api(other)
    headers = {"HTTP_IDEMPOTENCY_KEY": "shared"}
    assert operator_client.post(PLAYERS, {"external_ref": "a"}, format="json", **headers)
    response = other_client.post(PLAYERS, {"external_ref": "b"}, format="json", **headers)
    assert response.status_code == 201
    assert Player.objects.count() == 2


def test_a_request_in_flight_makes_a_second_one_409(operator, operator_client):
    IdempotencyRecord.objects.create(
        operator=operator,
        key="busy",
        fingerprint=_fingerprint_of(operator_client, {"external_ref": "a"}),
        method="POST",
        path=PLAYERS,
    )
    response = operator_client.post(
        PLAYERS, {"external_ref": "a"}, format="json", HTTP_IDEMPOTENCY_KEY="busy"
    )
    assert response.status_code == 409
    assert response.json()["type"] == "/problems/idempotency-request-in-flight"
    assert Player.objects.count() == 0


def test_a_stale_in_flight_record_from_a_dead_request_is_taken_over(operator, operator_client):
    IdempotencyRecord.objects.create(
        operator=operator,
        key="dead",
        fingerprint=_fingerprint_of(operator_client, {"external_ref": "a"}),
        method="POST",
        path=PLAYERS,
        created_at=timezone.now() - timedelta(minutes=10),
    )
    response = operator_client.post(
        PLAYERS, {"external_ref": "a"}, format="json", HTTP_IDEMPOTENCY_KEY="dead"
    )
    assert response.status_code == 201
    assert Player.objects.count() == 1


def test_a_domain_error_is_stored_and_replayed_too(operator_client):
    headers = {"HTTP_IDEMPOTENCY_KEY": "bad-currency"}
    body = {"external_ref": "a", "wallet_currency": "ZZZ"}
    first = operator_client.post(PLAYERS, body, format="json", **headers)
    second = operator_client.post(PLAYERS, body, format="json", **headers)
    assert first.status_code == second.status_code == 422
    assert first.json()["type"] == second.json()["type"] == "/problems/unknown-currency"
    assert second["Content-Type"] == "application/problem+json"
    assert Player.objects.count() == 0


def _fingerprint_of(client, body) -> str:
    """Send the request once under a throwaway key to learn its fingerprint."""
    client.post(PLAYERS, body, format="json", HTTP_IDEMPOTENCY_KEY="probe")
    record = IdempotencyRecord.objects.get(key="probe")
    Player.objects.all().delete()
    record.delete()
    return record.fingerprint


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_same_key_sent_concurrently_has_one_effect_and_identical_answers(operator_key):
    workers = 8
    barrier = threading.Barrier(workers)
    responses = []
    lock = threading.Lock()

    def send():
        client = bearer_client(operator_key)
        barrier.wait()
        try:
            response = client.post(
                PLAYERS, {"external_ref": "race"}, format="json", HTTP_IDEMPOTENCY_KEY="race"
            )
            with lock:
                responses.append(response)
        finally:
            connection.close()

    threads = [threading.Thread(target=send) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert Player.objects.filter(external_ref="race").count() == 1
    statuses = sorted(r.status_code for r in responses)
    assert set(statuses) <= {201, 409}
    created = [r.json() for r in responses if r.status_code == 201]
    assert created and all(body == created[0] for body in created)
    # Once the first has finished, every retry gets the identical stored answer.
    client = bearer_client(operator_key)
    retry = client.post(
        PLAYERS, {"external_ref": "race"}, format="json", HTTP_IDEMPOTENCY_KEY="race"
    )
    assert retry.status_code == 201 and retry.json() == created[0]


# --- Secrets are shown once: never stored, never replayed -----------------------------------
SECRET_WRITES = [
    pytest.param("/api/v1/operators/me/webhook-secret", {}, "secret", id="webhook-secret"),
    pytest.param("/api/v1/operators/me/signing-secrets", {}, "secret", id="signing-secret"),
    pytest.param("sessions", {"ttl_seconds": 600}, "token", id="player-session"),
]


def _stored_text() -> str:
    """Everything the idempotency table holds, as one string."""
    return json.dumps(list(IdempotencyRecord.objects.values()), default=str)


@pytest.mark.parametrize(("path", "body", "field"), SECRET_WRITES)
def test_a_response_carrying_a_secret_is_stored_without_it_and_not_replayed(
    operator_client, player, path, body, field
):
    if path == "sessions":
        path = f"/api/v1/players/{player.pk}/sessions"
    headers = {"HTTP_IDEMPOTENCY_KEY": "mint-once"}
    first = operator_client.post(path, body, format="json", **headers)
    assert first.status_code == 201
    secret = first.json()[field]
    assert secret.startswith(("whsec_", "gps_"))

    # The database never holds the secret: the stored response has it withheld.
    assert secret not in _stored_text()
    record = IdempotencyRecord.objects.get(key="mint-once")
    assert record.secret_withheld is True
    assert record.response_body[field] == "[withheld]"

    # A replay does not reveal it again: a stable problem, with what was created.
    replay = operator_client.post(path, body, format="json", **headers)
    assert replay.status_code == 409
    assert replay["Content-Type"] == "application/problem+json"
    assert replay["Idempotent-Replayed"] == "true"
    problem = replay.json()
    assert problem["type"] == "/problems/secret-not-replayable"
    assert secret not in replay.content.decode()
    assert problem["first_response"]["status"] == 201
    assert problem["first_response"]["body"][field] == "[withheld]"
    assert problem["first_response"]["body"].get("id") == first.json().get("id")


def test_a_response_without_a_secret_is_still_replayed_in_full(operator_client, player):
    headers = {"HTTP_IDEMPOTENCY_KEY": "plain"}
    body = {"display_name": "Alice"}
    first = operator_client.patch(f"/api/v1/players/{player.pk}", body, format="json", **headers)
    second = operator_client.patch(f"/api/v1/players/{player.pk}", body, format="json", **headers)
    assert first.status_code == second.status_code == 200
    assert second.json() == first.json() and second["Idempotent-Replayed"] == "true"
    assert IdempotencyRecord.objects.get(key="plain").secret_withheld is False


def test_any_endpoint_issuing_a_prefixed_secret_is_covered_without_declaring_it(operator):
    """The store finds secrets by their registered prefixes, so an endpoint added later
    (for example one that issues operator API keys) is covered by default."""
    issued = api_key_create(operator=operator, actor=SYSTEM)
    principal = OperatorPrincipal(operator=operator, api_key=issued.api_key)

    def send() -> Response:
        django_request = APIRequestFactory().post(
            "/api/v1/api-keys", {"name": "ci"}, format="json", HTTP_IDEMPOTENCY_KEY="new-key"
        )
        request = Request(django_request, parsers=[JSONParser()])
        request.user = principal
        body = {"id": 9, "key": issued.key, "note": f"k={issued.key}"}
        return run_idempotently(request=request, handler=lambda: Response(body, status=201))

    first = send()
    assert first.data["key"] == issued.key
    assert issued.key not in _stored_text()
    replay = send()
    assert replay.status_code == 409
    assert replay.data["type"] == "/problems/secret-not-replayable"
    assert replay.data["first_response"]["body"] == {
        "id": 9,
        "key": "[withheld]",
        "note": "k=[withheld]",
    }


# --- Retention -------------------------------------------------------------------------------
def test_records_past_the_retention_are_pruned_by_the_beat_job(operator, settings):
    assert "prune-expired-records" in settings.CELERY_BEAT_SCHEDULE
    entry = settings.CELERY_BEAT_SCHEDULE["prune-expired-records"]
    assert entry["task"] == "gin_platform.tasks.prune_expired_records"
    assert settings.IDEMPOTENCY_RETENTION_SECONDS == 24 * 3600  # the documented default
    now = timezone.now()
    for key, age in (("old", 25 * 3600), ("older", 40 * 3600), ("recent", 23 * 3600)):
        IdempotencyRecord.objects.create(
            operator=operator,
            key=key,
            fingerprint="f",
            method="POST",
            path=PLAYERS,
            state=IdempotencyRecord.State.COMPLETED,
            response_status=201,
            response_body={},
            created_at=now - timedelta(seconds=age),
        )
    assert prune_expired_records.delay().get() == 2
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["recent"]


def test_a_key_replayed_after_the_retention_is_a_new_request(operator_client, settings):
    headers = {"HTTP_IDEMPOTENCY_KEY": "yesterday"}
    first = operator_client.post(PLAYERS, {"external_ref": "a"}, format="json", **headers)
    assert first.status_code == 201
    IdempotencyRecord.objects.filter(key="yesterday").update(
        created_at=timezone.now() - timedelta(seconds=settings.IDEMPOTENCY_RETENTION_SECONDS + 1)
    )
    # Not yet pruned, but past the retention: the key is forgotten and the request runs again.
    again = operator_client.post(PLAYERS, {"external_ref": "a"}, format="json", **headers)
    assert again.status_code == 409
    assert again.json()["type"] == "/problems/player-exists"
    assert "Idempotent-Replayed" not in again
    assert Player.objects.count() == 1

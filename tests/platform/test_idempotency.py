"""Issue 2 item 7: Idempotency-Key semantics (replay, mismatch, in flight, concurrency)."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from gin_platform.models import IdempotencyRecord, Player
from tests.factories import OperatorFactory

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
    from gin_platform.principals import Actor
    from gin_platform.services import api_key_create

    other_client = APIClient()
    other_client.credentials(
        HTTP_AUTHORIZATION=f"Bearer {api_key_create(operator=other, actor=Actor.system()).key}"
    )
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
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {operator_key}")
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
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {operator_key}")
    retry = client.post(
        PLAYERS, {"external_ref": "race"}, format="json", HTTP_IDEMPOTENCY_KEY="race"
    )
    assert retry.status_code == 201 and retry.json() == created[0]

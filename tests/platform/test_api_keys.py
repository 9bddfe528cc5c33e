"""Operators list, create, revoke and rotate their own API keys over the API, audited."""

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from gin_platform.models import AuditEvent, IdempotencyRecord, OperatorApiKey
from gin_platform.tenancy.services import LastApiKeyProblem, api_key_create, api_key_revoke
from gin_platform.tenancy.tokens import hash_secret
from tests.factories import SYSTEM, OperatorFactory
from tests.helpers import bearer_client
from tests.races import race

pytestmark = pytest.mark.django_db
KEYS = "/api/v1/api-keys"
ME = "/api/v1/operators/me"
LISTED_FIELDS = {
    "id",
    "prefix",
    "mode",
    "name",
    "status",
    "current",
    "created_at",
    "last_used_at",
    "revoked_at",
}


def calling_key(operator) -> OperatorApiKey:
    return OperatorApiKey.objects.get(operator=operator, name="default")


def revoke(client, api_key_id, idem):
    return client.post(f"{KEYS}/{api_key_id}/revoke", format="json", **idem())


def rotate(client, api_key_id, idem, **body):
    return client.post(f"{KEYS}/{api_key_id}/rotate", body, format="json", **idem())


# --- List -----------------------------------------------------------------------------------
def test_the_list_shows_the_operators_keys_and_never_a_secret(
    operator, operator_key, operator_client
):
    second = api_key_create(operator=operator, name="ci", actor=SYSTEM)
    api_key_create(operator=OperatorFactory(), name="someone-else", actor=SYSTEM)

    response = operator_client.get(KEYS)

    assert response.status_code == 200
    rows = response.json()["results"]
    assert [row["name"] for row in rows] == ["ci", "default"]  # newest first
    assert all(set(row) == LISTED_FIELDS for row in rows)
    assert [row["current"] for row in rows] == [False, True]
    assert {row["status"] for row in rows} == {"active"}
    assert rows[0]["prefix"] == second.api_key.prefix
    text = response.content.decode()
    for secret in (operator_key, second.key, hash_secret(operator_key), hash_secret(second.key)):
        assert secret not in text


def test_player_and_staff_credentials_cannot_manage_keys(player_client, staff_client, idem):
    for client in (player_client, staff_client):
        assert client.get(KEYS).status_code == 403
        assert client.post(KEYS, {"name": "x"}, format="json", **idem()).status_code == 403


# --- Create ---------------------------------------------------------------------------------
def test_a_created_key_is_shown_once_works_and_is_audited(operator, operator_client, idem):
    response = operator_client.post(KEYS, {"name": "payments"}, format="json", **idem())

    assert response.status_code == 201
    body = response.json()
    assert set(body) == LISTED_FIELDS | {"key"}
    assert body["key"].startswith(f"gop_{body['prefix']}_")
    assert body["name"] == "payments" and body["status"] == "active"
    assert bearer_client(body["key"]).get(ME).status_code == 200
    stored = OperatorApiKey.objects.get(pk=body["id"])
    assert stored.key_hash == hash_secret(body["key"])
    event = AuditEvent.objects.get(action="api_key.created", object_id=str(body["id"]))
    assert event.operator == operator
    assert (
        event.actor_type == "operator" and event.actor_id == f"key:{calling_key(operator).prefix}"
    )
    assert body["key"] not in str(event.data)


def test_creating_a_key_needs_an_idempotency_key(operator_client):
    response = operator_client.post(KEYS, {"name": "x"}, format="json")
    assert response.status_code == 400
    assert response.json()["type"] == "/problems/idempotency-key-missing"


def test_a_replayed_create_makes_no_second_key_and_stores_no_secret(
    operator, operator_client, idem
):
    headers = idem()
    first = operator_client.post(KEYS, {"name": "once"}, format="json", **headers)
    again = operator_client.post(KEYS, {"name": "once"}, format="json", **headers)

    assert first.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert first.json()["key"] not in again.content.decode()
    assert OperatorApiKey.objects.filter(operator=operator, name="once").count() == 1
    record = IdempotencyRecord.objects.get(operator=operator, key=headers["HTTP_IDEMPOTENCY_KEY"])
    assert first.json()["key"] not in str(record.response_body)


# --- Revoke ---------------------------------------------------------------------------------
def test_revoking_a_key_stops_it_and_is_audited(operator, operator_client, idem):
    other = api_key_create(operator=operator, name="old", actor=SYSTEM)

    response = revoke(operator_client, other.api_key.pk, idem)

    assert response.status_code == 200
    assert response.json()["status"] == "revoked" and response.json()["revoked_at"]
    assert bearer_client(other.key).get(ME).status_code == 401
    assert AuditEvent.objects.filter(
        action="api_key.revoked", object_id=str(other.api_key.pk), operator=operator
    ).exists()
    # Revoking it again changes nothing (and writes no second audit row).
    assert revoke(operator_client, other.api_key.pk, idem).status_code == 200
    assert AuditEvent.objects.filter(action="api_key.revoked").count() == 1


def test_a_key_may_revoke_itself_while_another_stays_active(operator, operator_client, idem):
    spare = api_key_create(operator=operator, name="spare", actor=SYSTEM)

    response = revoke(operator_client, calling_key(operator).pk, idem)

    assert response.status_code == 200 and response.json()["current"] is True
    assert operator_client.get(ME).status_code == 401
    assert bearer_client(spare.key).get(ME).status_code == 200


def test_the_last_active_key_cannot_be_revoked(operator, operator_client, idem):
    response = revoke(operator_client, calling_key(operator).pk, idem)

    assert response.status_code == 409
    assert response.json()["type"] == "/problems/last-api-key"
    assert operator_client.get(ME).status_code == 200


def test_a_key_in_its_grace_period_does_not_count_as_active(operator, operator_client, idem):
    spare = api_key_create(operator=operator, name="spare", actor=SYSTEM)
    OperatorApiKey.objects.filter(pk=calling_key(operator).pk).update(
        revoked_at=timezone.now() + timedelta(hours=1)
    )
    response = revoke(operator_client, spare.api_key.pk, idem)
    assert response.status_code == 409
    assert response.json()["type"] == "/problems/last-api-key"


def test_staff_in_a_shell_may_revoke_the_last_key(operator, operator_key):
    with pytest.raises(LastApiKeyProblem):
        api_key_revoke(api_key=calling_key(operator), actor=SYSTEM)
    api_key_revoke(api_key=calling_key(operator), actor=SYSTEM, allow_last=True)
    assert bearer_client(operator_key).get(ME).status_code == 401


@pytest.mark.parametrize("suffix", ["revoke", "rotate"])
def test_another_operators_key_is_not_found(operator, operator_client, idem, suffix):
    theirs = api_key_create(operator=OperatorFactory(), actor=SYSTEM).api_key
    for key_id in (theirs.pk, 987654321, "nope", 2**70):
        response = operator_client.post(f"{KEYS}/{key_id}/{suffix}", format="json", **idem())
        assert response.status_code == 404
        assert response.json()["type"] == "/problems/not-found"
    assert OperatorApiKey.objects.get(pk=theirs.pk).revoked_at is None
    # The same request on one of its own keys does what it says.
    mine = api_key_create(operator=operator, name="mine", actor=SYSTEM).api_key
    response = operator_client.post(f"{KEYS}/{mine.pk}/{suffix}", format="json", **idem())
    assert response.status_code in (200, 201)


# --- Rotate ---------------------------------------------------------------------------------
def test_rotating_replaces_the_key_at_once_by_default(operator, operator_client, idem):
    old = calling_key(operator)

    response = rotate(operator_client, old.pk, idem)

    assert response.status_code == 201
    body = response.json()
    assert body["key"].startswith(f"gop_{body['prefix']}_") and body["name"] == "default"
    assert body["replaces"]["id"] == old.pk and body["replaces"]["status"] == "revoked"
    assert operator_client.get(ME).status_code == 401
    assert bearer_client(body["key"]).get(ME).status_code == 200
    actions = Counter(
        AuditEvent.objects.filter(operator=operator, action__startswith="api_key.")
        .exclude(actor_type="system")
        .values_list("action", flat=True)
    )
    assert actions == {"api_key.created": 1, "api_key.rotated": 1}
    rotated = AuditEvent.objects.get(action="api_key.rotated")
    assert rotated.object_id == str(old.pk)
    assert rotated.data["replaced_by"] == body["prefix"]
    assert body["key"] not in str(rotated.data)


def test_rotating_with_a_grace_period_keeps_the_old_key_until_it_ends(
    operator, operator_client, idem
):
    old = calling_key(operator)

    response = rotate(operator_client, old.pk, idem, grace_seconds=3600, name="v2")

    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "v2"
    assert body["replaces"]["status"] == "revoking"
    old.refresh_from_db()
    assert timedelta(minutes=59) < old.revoked_at - timezone.now() <= timedelta(hours=1)
    assert operator_client.get(ME).status_code == 200  # both work during the grace period
    assert bearer_client(body["key"]).get(ME).status_code == 200
    listed = {row["id"]: row["status"] for row in operator_client.get(KEYS).json()["results"]}
    assert listed == {old.pk: "revoking", body["id"]: "active"}

    OperatorApiKey.objects.filter(pk=old.pk).update(revoked_at=timezone.now())
    assert operator_client.get(ME).status_code == 401


def test_rotating_again_never_extends_a_scheduled_revocation(operator, operator_client, idem):
    old = calling_key(operator)
    rotate(operator_client, old.pk, idem, grace_seconds=600)
    old.refresh_from_db()
    scheduled = old.revoked_at

    assert rotate(operator_client, old.pk, idem, grace_seconds=3600).status_code == 201
    old.refresh_from_db()
    assert old.revoked_at == scheduled


@pytest.mark.parametrize("grace", [-1, 7 * 24 * 3600 + 1])
def test_the_grace_period_is_at_most_a_week(operator, operator_client, idem, grace):
    response = rotate(operator_client, calling_key(operator).pk, idem, grace_seconds=grace)
    assert response.status_code == 422
    assert response.json()["type"] == "/problems/api-key-grace-out-of-range"
    assert OperatorApiKey.objects.filter(operator=operator).count() == 1


def test_a_revoked_key_cannot_be_rotated(operator, operator_client, idem):
    other = api_key_create(operator=operator, name="old", actor=SYSTEM)
    api_key_revoke(api_key=other.api_key, actor=SYSTEM)
    response = rotate(operator_client, other.api_key.pk, idem)
    assert response.status_code == 409
    assert response.json()["type"] == "/problems/api-key-revoked"


def test_a_replayed_rotation_does_not_show_the_new_key_again(operator, operator_client, idem):
    headers, url = idem(), f"{KEYS}/{calling_key(operator).pk}/rotate"
    first = operator_client.post(url, {"grace_seconds": 60}, format="json", **headers)
    again = operator_client.post(url, {"grace_seconds": 60}, format="json", **headers)
    assert first.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert first.json()["key"] not in again.content.decode()
    assert OperatorApiKey.objects.filter(operator=operator).count() == 2


# --- Races (PostgreSQL) -----------------------------------------------------------------------
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_racing_revokes_of_the_last_two_keys_leave_one_active(operator):
    keys = [api_key_create(operator=operator, name=f"k{i}", actor=SYSTEM).api_key for i in (0, 1)]

    results = race(2, lambda i: api_key_revoke(api_key=keys[i], actor=SYSTEM))

    assert sorted(type(r).__name__ for r in results) == ["LastApiKeyProblem", "OperatorApiKey"]
    assert OperatorApiKey.objects.filter(operator=operator, revoked_at__isnull=True).count() == 1

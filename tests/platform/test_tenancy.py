"""Players, sessions and tenant isolation."""

import pytest
from rest_framework.test import APIClient

from gin_platform.models import AuditEvent, PlayerSession
from tests.factories import OperatorFactory, PlayerFactory
from tests.helpers import bearer_client, operator_api

pytestmark = pytest.mark.django_db


@pytest.fixture
def other_operator_client():
    return operator_api(OperatorFactory())


def test_create_retrieve_and_list_players(operator_client, idem):
    created = operator_client.post(
        "/api/v1/players",
        {"external_ref": "alice", "display_currency": "usd", "locale": "es"},
        format="json",
        **idem(),
    )
    assert created.status_code == 201
    body = created.json()
    assert body["wallet_currency"] == "EUR"  # defaults to the operator's base currency
    assert body["display_currency"] == "USD"
    fetched = operator_client.get(f"/api/v1/players/{body['id']}")
    assert fetched.json() == body
    listing = operator_client.get("/api/v1/players").json()
    assert [p["external_ref"] for p in listing["results"]] == ["alice"]
    assert AuditEvent.objects.filter(action="player.created").count() == 1


def test_duplicate_external_ref_is_409(operator_client, idem):
    operator_client.post("/api/v1/players", {"external_ref": "a"}, format="json", **idem())
    response = operator_client.post(
        "/api/v1/players", {"external_ref": "a"}, format="json", **idem()
    )
    assert response.status_code == 409
    assert response.json()["type"] == "/problems/player-exists"


def test_unknown_currency_is_422_naming_the_field(operator_client, idem):
    response = operator_client.post(
        "/api/v1/players", {"external_ref": "a", "wallet_currency": "ABC"}, format="json", **idem()
    )
    assert response.status_code == 422
    assert response.json()["field"] == "wallet_currency"


def test_list_is_cursor_paginated(operator, operator_client):
    PlayerFactory.create_batch(5, operator=operator)
    first = operator_client.get("/api/v1/players?page_size=2").json()
    assert len(first["results"]) == 2 and first["next"] and "cursor=" in first["next"]
    second = APIClient()
    second.credentials(**operator_client._credentials)
    page2 = second.get(first["next"]).json()
    assert {p["id"] for p in page2["results"]}.isdisjoint({p["id"] for p in first["results"]})


def test_another_operators_player_is_404_not_403(player, other_operator_client, idem):
    for response in (
        other_operator_client.get(f"/api/v1/players/{player.pk}"),
        other_operator_client.post(
            f"/api/v1/players/{player.pk}/sessions", {}, format="json", **idem()
        ),
        other_operator_client.patch(
            f"/api/v1/players/{player.pk}", {"locale": "it"}, format="json", **idem()
        ),
    ):
        assert response.status_code == 404
        assert response.json()["type"] == "/problems/not-found"
    assert other_operator_client.get("/api/v1/players").json()["results"] == []


def test_a_malformed_player_id_is_404(operator_client):
    assert operator_client.get("/api/v1/players/not-a-uuid").status_code == 404


def test_mint_use_and_revoke_a_player_session(operator_client, player, idem):
    minted = operator_client.post(
        f"/api/v1/players/{player.pk}/sessions", {"ttl_seconds": 600}, format="json", **idem()
    )
    assert minted.status_code == 201
    token = minted.json()["token"]
    assert token.startswith("gps_")
    assert not PlayerSession.objects.filter(token_hash=token).exists()  # only the hash is kept

    player_client = bearer_client(token)
    # The player is authenticated (403 on an operator endpoint, not 401).
    assert player_client.get("/api/v1/operators/me").status_code == 403

    session_id = minted.json()["id"]
    revoked = operator_client.post(
        f"/api/v1/players/{player.pk}/sessions/{session_id}/revoke", format="json", **idem()
    )
    assert revoked.status_code == 200 and revoked.json()["revoked_at"]
    assert player_client.get("/api/v1/operators/me").status_code == 401


@pytest.mark.parametrize("resource", ["sessions", "signing-secrets"])
def test_ids_past_64_bits_are_404_not_a_database_error(operator_client, player, idem, resource):
    huge = "99999999999999999999999"
    path = (
        f"/api/v1/players/{player.pk}/sessions/{huge}/revoke"
        if resource == "sessions"
        else f"/api/v1/operators/me/signing-secrets/{huge}/revoke"
    )
    response = operator_client.post(path, format="json", **idem())
    assert response.status_code == 404
    assert response.json()["type"] == "/problems/not-found"


@pytest.mark.parametrize("ttl", [59, 24 * 3600 + 1])
def test_session_lifetime_is_bounded(operator_client, player, idem, ttl):
    response = operator_client.post(
        f"/api/v1/players/{player.pk}/sessions", {"ttl_seconds": ttl}, format="json", **idem()
    )
    assert response.status_code == 422
    assert response.json()["type"] == "/problems/session-ttl-out-of-range"


def test_a_suspended_player_gets_no_session(operator_client, player, idem):
    operator_client.patch(
        f"/api/v1/players/{player.pk}", {"status": "suspended"}, format="json", **idem()
    )
    response = operator_client.post(
        f"/api/v1/players/{player.pk}/sessions", {}, format="json", **idem()
    )
    assert response.status_code == 409


def test_update_records_old_and_new_values_in_the_audit_log(operator_client, player, idem):
    operator_client.patch(
        f"/api/v1/players/{player.pk}", {"kyc_status": "rejected"}, format="json", **idem()
    )
    event = AuditEvent.objects.get(action="player.updated")
    assert event.data == {"kyc_status": ["verified", "rejected"]}
    assert event.actor_type == "operator"


def test_operators_me(operator_client, operator):
    body = operator_client.get("/api/v1/operators/me").json()
    assert body["id"] == str(operator.pk) and body["base_currency"] == "EUR"
    assert "webhook_secret" not in body

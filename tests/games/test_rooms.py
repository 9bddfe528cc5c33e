"""Operators open and manage rooms (R10, R11) through idempotent writes."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from games import engine
from games.engine import rules as engine_rules
from games.models import MATCH_PLAY_TARGETS, MONEY_PLAY_TARGETS, Room, Table
from gin_platform.models import AuditEvent
from gin_platform.tenancy.principals import Actor
from gin_platform.tenancy.services import api_key_create
from tests.factories import OperatorFactory
from tests.games.factories import RoomFactory

pytestmark = pytest.mark.django_db
ROOMS = "/api/v1/rooms"


def create(client, idem, **body):
    return client.post(ROOMS, body, format="json", **idem())


def test_open_a_match_play_room_with_its_tables(operator_client, idem):
    response = create(
        operator_client,
        idem,
        name="Match 100",
        variant="match",
        target=100,
        stake="5.00",
        fee_bps=500,
        tables=3,
        rules={"undercut_bonus": 20},
    )
    assert response.status_code == 201, response.json()
    room = response.json()
    assert room["stake"] == {"amount": "5.00", "currency": "EUR"}
    assert room["currency"] == "EUR" and room["is_practice"] is False
    assert room["tables"] == 3 and room["turn_seconds"] == 30 and room["active"] is True
    # R9 options with the defaults of docs/rules.md for the rest.
    assert room["rules"] == engine.RuleSet(undercut_bonus=20).to_dict()
    assert Room.objects.get(pk=room["id"]).stake == 500
    assert AuditEvent.objects.filter(action="room.created", object_id=str(room["id"])).exists()


def test_open_a_money_play_room(operator_client, idem):
    response = create(
        operator_client,
        idem,
        name="Money 50",
        variant="money",
        target=50,
        stake_per_point_choices=["0.05", "0.01"],
        cashier_min="10.00",
        cashier_max="500.00",
        currency="usd",
    )
    assert response.status_code == 201, response.json()
    room = response.json()
    assert room["currency"] == "USD" and room["stake"] is None
    assert [c["amount"] for c in room["stake_per_point_choices"]] == ["0.01", "0.05"]
    assert room["cashier_min"]["amount"] == "10.00" and room["cashier_max"]["amount"] == "500.00"


def test_open_a_practice_ftk_room(operator_client, idem):
    response = create(
        operator_client, idem, name="Practice", variant="ftk", stake="100", is_practice=True
    )
    assert response.status_code == 201, response.json()
    assert response.json()["currency"] == "XGC" and response.json()["target"] is None


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"variant": "ftk", "stake": "5.00", "target": 100}, "target"),
        ({"variant": "match", "stake": "5.00", "target": 150}, "target"),
        ({"variant": "match", "stake": "5.00"}, "target"),
        ({"variant": "match", "target": 100}, "stake"),
        ({"variant": "match", "target": 100, "stake": "0"}, "stake"),
        (
            {
                "variant": "money",
                "target": 250,
                "stake_per_point_choices": ["0.01"],
                "cashier_min": "1",
                "cashier_max": "2",
            },
            "target",
        ),
        (
            {"variant": "money", "target": 100, "cashier_min": "1", "cashier_max": "2"},
            "stake_per_point_choices",
        ),
        (
            {
                "variant": "money",
                "target": 100,
                "stake_per_point_choices": ["0.01", "0.01"],
                "cashier_min": "1",
                "cashier_max": "2",
            },
            "stake_per_point_choices",
        ),
        (
            {
                "variant": "money",
                "target": 100,
                "stake_per_point_choices": ["0.01"],
                "cashier_min": "5",
                "cashier_max": "2",
            },
            "cashier_max",
        ),
        (
            {
                "variant": "money",
                "target": 100,
                "stake": "5.00",
                "stake_per_point_choices": ["0.01"],
                "cashier_min": "1",
                "cashier_max": "2",
            },
            "stake",
        ),
        (
            {
                "variant": "match",
                "target": 100,
                "stake": "5.00",
                "stake_per_point_choices": ["0.01"],
            },
            "variant",
        ),
        (
            {"variant": "match", "target": 100, "stake": "5.00", "rules": {"knock_limit": 11}},
            "rules",
        ),
        ({"variant": "match", "target": 100, "stake": "5.00", "rules": {"gin_bonus": 30}}, "rules"),
        ({"variant": "match", "target": 100, "stake": "5.00", "rules": {"jokers": True}}, "rules"),
        ({"variant": "match", "target": 100, "stake": "5.00", "fee_bps": 10_001}, "fee_bps"),
        ({"variant": "match", "target": 100, "stake": "5.00", "turn_seconds": 2}, "turn_seconds"),
        ({"variant": "match", "target": 100, "stake": "5.00", "tables": 0}, "tables"),
        ({"variant": "match", "target": 100, "stake": "5", "currency": "XGC"}, "currency"),
        (
            {
                "variant": "match",
                "target": 100,
                "stake": "5",
                "is_practice": True,
                "currency": "EUR",
            },
            "currency",
        ),
    ],
)
def test_invalid_room_options_are_422_naming_the_field(operator_client, idem, body, field):
    response = create(operator_client, idem, name="Bad", **body)
    assert response.status_code == 422, response.json()
    assert response.json()["type"] == "/problems/invalid-room-options"
    assert response.json()["field"] == field
    assert Room.objects.count() == 0 and Table.objects.count() == 0


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"variant": "poker"}, "variant"),
        ({"variant": "match", "target": 100, "stake": "5.00", "currency": "ABC"}, "currency"),
    ],
)
def test_malformed_room_requests_are_400(operator_client, idem, body, field):
    response = create(operator_client, idem, name="Bad", **body)
    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert Room.objects.count() == 0


def test_a_stake_with_more_decimals_than_the_currency_is_amount_too_precise(operator_client, idem):
    """The API's one rule for amounts (docs/wallet.md "Amounts in the API")."""
    body = {"variant": "match", "target": 100, "stake": "5.001"}
    response = create(operator_client, idem, name="Bad", **body)
    assert response.status_code == 422
    assert response.json()["type"] == "/problems/amount-too-precise"
    assert response.json()["field"] == "stake" and response.json()["exponent"] == 2
    assert Room.objects.count() == 0


def test_room_writes_are_idempotent(operator_client):
    headers = {"HTTP_IDEMPOTENCY_KEY": "room-1"}
    body = {"name": "R", "variant": "ftk", "stake": "1.00"}
    first = operator_client.post(ROOMS, body, format="json", **headers)
    second = operator_client.post(ROOMS, body, format="json", **headers)
    assert first.status_code == second.status_code == 201
    assert first.json() == second.json() and second["Idempotent-Replayed"] == "true"
    assert Room.objects.count() == 1
    assert operator_client.post(ROOMS, body, format="json").status_code == 400  # no key


def test_list_detail_update_and_add_tables(operator, operator_client, idem):
    rooms = RoomFactory.create_batch(3, operator=operator)
    RoomFactory()  # another operator's
    listing = operator_client.get(f"{ROOMS}?page_size=2").json()
    assert len(listing["results"]) == 2 and "cursor=" in listing["next"]
    rest = operator_client.get(listing["next"]).json()["results"]
    assert {r["id"] for r in listing["results"] + rest} == {r.pk for r in rooms}
    room = rooms[0]
    assert operator_client.get(f"{ROOMS}/{room.pk}").json()["name"] == room.name
    updated = operator_client.patch(
        f"{ROOMS}/{room.pk}", {"active": False, "name": "Closed"}, format="json", **idem()
    )
    assert updated.status_code == 200
    assert updated.json()["active"] is False and updated.json()["name"] == "Closed"
    event = AuditEvent.objects.get(action="room.updated")
    assert event.data == {"name": [room.name, "Closed"], "active": [True, False]}
    inactive = operator_client.get(f"{ROOMS}?active=false").json()["results"]
    assert [r["id"] for r in inactive] == [room.pk]
    table = operator_client.post(f"{ROOMS}/{room.pk}/tables", format="json", **idem())
    assert table.status_code == 201 and table.json()["room_id"] == room.pk
    assert table.json()["status"] == "open"


def test_another_operators_room_is_404(operator, idem):
    room = RoomFactory(operator=operator)
    other = APIClient()
    other.credentials(
        HTTP_AUTHORIZATION="Bearer "
        + api_key_create(operator=OperatorFactory(), actor=Actor.system()).key
    )
    for response in (
        other.get(f"{ROOMS}/{room.pk}"),
        other.patch(f"{ROOMS}/{room.pk}", {"active": False}, format="json", **idem()),
        other.post(f"{ROOMS}/{room.pk}/tables", format="json", **idem()),
    ):
        assert response.status_code == 404
    assert other.get(ROOMS).json()["results"] == []
    assert Room.objects.get(pk=room.pk).active is True


def test_players_cannot_manage_rooms(player_client, idem):
    response = player_client.post(
        ROOMS, {"name": "R", "variant": "ftk", "stake": "1.00"}, format="json", **idem()
    )
    assert response.status_code == 403
    assert player_client.get(ROOMS).status_code == 403


def test_the_room_targets_are_the_engines():
    """R10's targets are declared once in the engine; the database constraint repeats them."""
    assert MATCH_PLAY_TARGETS == engine_rules.MATCH_PLAY_TARGETS
    assert MONEY_PLAY_TARGETS == engine_rules.MONEY_PLAY_TARGETS

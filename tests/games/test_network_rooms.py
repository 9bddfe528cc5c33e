"""Network rooms and membership (docs/network.md "Rooms, membership and screen names"): staff
create the network and its rooms; operators join or leave and choose the rooms they offer;
their players see those rooms in the lobby beside the operator's own."""

from __future__ import annotations

import uuid

import pytest
from django.core.management import call_command

from games.models import Room
from gin_platform.http.problems import ValidationProblem
from gin_platform.models import AuditEvent, Network, NetworkMembership
from gin_platform.tenancy.services import network_membership_update
from tests.factories import SYSTEM, OperatorFactory
from tests.games.factories import RoomFactory
from tests.games.network_world import member_make, network_make, network_room_make, player_client
from tests.helpers import assert_problem, operator_api
from tests.wallet.factories import ExchangeRateFactory

pytestmark = pytest.mark.django_db


def idem() -> dict:
    return {"HTTP_IDEMPOTENCY_KEY": str(uuid.uuid4())}


def lobby_ids(client) -> set[int]:
    response = client.get("/api/v1/lobby")
    assert response.status_code == 200, response.json()
    return {room["id"] for room in response.json()["results"]}


def test_the_commands_create_the_network_once_and_open_its_rooms(capsys):
    call_command("network_create", "--fee-share-bps", "1500")
    network = Network.objects.get()
    assert network.fee_share_bps == 1500 and not network.reveal_operators
    call_command("network_create", "--reveal-operators", "yes")
    network.refresh_from_db()
    assert network.reveal_operators and network.fee_share_bps == 1500
    assert Network.objects.count() == 1
    call_command("network_room_create", '{"name": "Net FTK", "variant": "ftk", "stake": "5.00"}')
    room = Room.objects.get(name="Net FTK")
    assert room.operator_id == network.operator_id and room.stake == 500
    assert "network room" in capsys.readouterr().out
    assert AuditEvent.objects.filter(action="network.created").count() == 1


def test_a_network_room_never_has_the_house_bot(db):
    network_make()
    with pytest.raises(ValidationProblem):
        network_room_make(is_practice=True, currency=None, stake=100, bot_enabled=True)
    with pytest.raises(ValidationProblem) as refused:
        network_room_make(is_practice=True, currency=None, stake=100, bot_level="strong")
    assert list(refused.value.extensions["errors"]) == ["bot_level"]


def test_an_operator_joins_offers_rooms_one_by_one_and_leaves():
    network_make()
    room, other = network_room_make(), network_room_make(name="Second")
    operator = OperatorFactory()
    api = operator_api(operator)
    assert api.get("/api/v1/operators/me/network").json()["member"] is False
    joined = api.put(
        "/api/v1/operators/me/network",
        {"member": True, "all_rooms": False},
        format="json",
        **idem(),
    )
    assert joined.status_code == 200, joined.json()
    assert joined.json() | {"joined_at": None} == {
        "member": True,
        "all_rooms": False,
        "joined_at": None,
        "left_at": None,
        "fee_share_bps": 2000,
        "reveal_operators": False,
    }
    listed = {r["id"]: r for r in api.get("/api/v1/operators/me/network/rooms").json()["results"]}
    assert listed[room.pk]["offered"] is False and listed[room.pk]["opted_in"] is False
    opted = api.put(f"/api/v1/operators/me/network/rooms/{room.pk}", **idem())
    assert opted.status_code == 200 and opted.json()["offered"] is True
    assert api.get(f"/api/v1/operators/me/network/rooms/{other.pk}").json()["offered"] is False
    player = player_client(operator)
    assert {room.pk} <= lobby_ids(player) and other.pk not in lobby_ids(player)

    assert api.delete(f"/api/v1/operators/me/network/rooms/{room.pk}", **idem()).status_code == 204
    assert room.pk not in lobby_ids(player)

    api.put(
        "/api/v1/operators/me/network", {"member": True, "all_rooms": True}, format="json", **idem()
    )
    assert {room.pk, other.pk} <= lobby_ids(player)
    left = api.put("/api/v1/operators/me/network", {"member": False}, format="json", **idem())
    assert left.json()["member"] is False and left.json()["left_at"] is not None
    assert not {room.pk, other.pk} & lobby_ids(player)
    actions = set(AuditEvent.objects.filter(operator=operator).values_list("action", flat=True))
    assert {"network.joined", "network.left", "network.room_opted_in"} <= actions


def test_opting_in_needs_membership_and_a_network_room():
    network_make()
    room = network_room_make()
    operator = OperatorFactory()
    api = operator_api(operator)
    assert_problem(
        api.put(f"/api/v1/operators/me/network/rooms/{room.pk}", **idem()), 404, "not-found"
    )
    network_membership_update(operator=operator, member=True, actor=SYSTEM)
    own = RoomFactory(operator=operator)
    assert_problem(
        api.put(f"/api/v1/operators/me/network/rooms/{own.pk}", **idem()), 404, "not-found"
    )


def test_without_a_network_the_endpoints_say_so(db):
    api = operator_api(OperatorFactory())
    assert_problem(api.get("/api/v1/operators/me/network"), 404, "not-found")
    assert_problem(api.get("/api/v1/operators/me/network/rooms"), 404, "not-found")


def test_operator_rooms_stay_private_in_the_lobby():
    network_make()
    a, b = member_make(name="A"), member_make(name="B")
    a_room = RoomFactory(operator=a)
    b_player = player_client(b)
    assert a_room.pk not in lobby_ids(b_player)
    assert_problem(operator_api(b).get(f"/api/v1/rooms/{a_room.pk}"), 404, "not-found")


def test_the_lobby_shows_network_amounts_in_the_players_display_currency():
    network_make()
    room = network_room_make()
    ExchangeRateFactory(base="EUR", quote="USD", rate="1.10")
    player = player_client(member_make(name="A"), display_currency="USD")
    shown = next(r for r in player.get("/api/v1/lobby").json()["results"] if r["id"] == room.pk)
    assert shown["stake"]["amount"] == "5.00" and shown["stake"]["currency"] == "EUR"
    assert shown["stake"]["display"]["currency"] == "USD"


def test_the_network_operator_cannot_join_itself(db):
    network = network_make()
    with pytest.raises(ValidationProblem):
        network_membership_update(operator=network.operator, member=True, actor=SYSTEM)
    assert not NetworkMembership.objects.exists()

"""Who may sit at a network room's table (docs/network.md "Rooms, membership and screen
names"): a player of a member operator that offers the room, with a screen name; anybody
else gets a clear problem and nothing moves."""

from __future__ import annotations

import pytest

from games import selectors
from games.models import Match, Seat
from games.services import network_room_opt_in
from gin_platform.tenancy import selectors as platform_selectors
from gin_platform.tenancy.services import api_key_create, network_membership_update
from tests.factories import SYSTEM, OperatorFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import sit
from tests.games.network_world import member_make, network_make, network_room_make, player_client
from tests.helpers import assert_problem
from tests.wallet.factories import fund
from wallet.models import LedgerTransaction

pytestmark = pytest.mark.django_db


@pytest.fixture
def network():
    return network_make()


@pytest.fixture
def room(network):
    return network_room_make()


def _table(room):
    return room.tables.first()


def _counts() -> dict:
    return {
        "seats": Seat.objects.count(),
        "matches": Match.objects.count(),
        "ledger": LedgerTransaction.objects.count(),
    }


def test_the_selectors_name_the_network_operator(network):
    assert platform_selectors.network_operator_id() == network.operator_id
    assert platform_selectors.is_network_operator(network.operator_id)
    assert platform_selectors.is_network_operator(str(network.operator_id))
    assert not platform_selectors.is_network_operator(OperatorFactory().pk)
    assert not platform_selectors.is_network_operator("not-an-id")


def test_without_a_network_nothing_is_a_network_operator(db):
    assert platform_selectors.network_operator_id() is None
    assert not platform_selectors.is_network_operator(OperatorFactory().pk)


def test_a_member_players_with_a_screen_name_sit_and_their_operators_are_listed(room):
    a, b = member_make(name="A"), member_make(name="B")
    ann = player_client(a, screen_name="Ann_1")
    fund(ann.player, 10_000)
    response = sit(ann, _table(room).pk)
    assert response.status_code == 201, response.json()
    match = Match.objects.get(pk=response.json()["match_id"])
    assert match.operator_id == room.operator_id
    assert selectors.match_player_operator_ids(match) == {a.pk}
    assert b.pk not in selectors.match_player_operator_ids(match)


def test_a_player_without_a_screen_name_is_asked_for_one(room):
    member = member_make(name="A")
    nameless = player_client(member)
    fund(nameless.player, 10_000)
    before = _counts()
    assert_problem(sit(nameless, _table(room).pk), 409, "screen-name-required")
    assert _counts() == before


def test_a_player_of_an_operator_outside_the_network_is_refused(room):
    outsider = player_client(OperatorFactory(), screen_name="Outsider")
    fund(outsider.player, 10_000)
    before = _counts()
    assert_problem(sit(outsider, _table(room).pk), 403, "network-not-joined")
    assert _counts() == before


def test_an_operator_that_left_the_network_seats_nobody_any_more(room):
    member = member_make(name="A")
    network_membership_update(operator=member, member=False, actor=SYSTEM)
    ann = player_client(member, screen_name="Ann")
    fund(ann.player, 10_000)
    assert_problem(sit(ann, _table(room).pk), 403, "network-not-joined")


def test_a_member_without_all_rooms_seats_only_in_the_rooms_it_opted_into(room, network):
    member = member_make(name="A", all_rooms=False)
    ann = player_client(member, screen_name="Ann")
    fund(ann.player, 10_000)
    assert_problem(sit(ann, _table(room).pk), 403, "network-not-joined")
    network_room_opt_in(operator=member, room=room, actor=SYSTEM)
    assert sit(ann, _table(room).pk).status_code == 201


def test_an_operator_room_still_seats_only_its_own_players(network):
    a, b = member_make(name="A"), member_make(name="B")
    table = TableFactory(room=RoomFactory(operator=a))
    bob = player_client(b, screen_name="Bob")
    fund(bob.player, 10_000)
    assert_problem(sit(bob, table.pk), 404, "not-found")


def test_the_house_bot_never_plays_in_the_network(network):
    practice = network_room_make(
        name="Network practice", is_practice=True, currency=None, stake=100
    )
    member = member_make(name="A")
    ann = player_client(member, screen_name="Ann")
    assert sit(ann, _table(practice).pk).status_code == 201
    response = ann.post(f"/api/v1/tables/{_table(practice).pk}/bot")
    assert_problem(response, 409, "bot-not-allowed")


def test_live_and_sandbox_players_never_share_a_network_table(room):
    live = member_make(name="Live")
    sandbox = api_key_create(operator=live, actor=SYSTEM, mode="test").api_key.operator
    network_membership_update(operator=sandbox, member=True, all_rooms=True, actor=SYSTEM)
    real = player_client(live, screen_name="RealOne")
    tester = player_client(sandbox, screen_name="TestOne")
    for client in (real, tester):
        fund(client.player, 10_000)
    table = _table(room)
    assert sit(real, table.pk).status_code == 201
    before = _counts()
    assert_problem(sit(tester, table.pk), 409, "network-table-other-mode")
    assert _counts() == before

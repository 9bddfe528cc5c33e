"""Screen names (docs/network.md "Rooms, membership and screen names"): chosen by the player,
checked, unique whatever the case, read by the operator on its player, and fixed while the
player holds a seat at a network table."""

from __future__ import annotations

import pytest

from gin_platform.models import AuditEvent
from tests.games.helpers import sit
from tests.games.network_world import member_make, network_make, network_room_make, player_client
from tests.helpers import assert_problem, operator_api
from tests.wallet.factories import fund

pytestmark = pytest.mark.django_db


def put_name(client, name):
    return client.put("/api/v1/me/screen-name", {"screen_name": name}, format="json")


@pytest.fixture
def member():
    network_make()
    return member_make(name="A")


def test_a_player_chooses_a_screen_name_and_the_operator_reads_it(member):
    ann = player_client(member, external_ref="casino-7", display_name="Ann Smith")
    assert ann.get("/api/v1/me/screen-name").json() == {"screen_name": None, "changeable": True}
    response = put_name(ann, "Ace_of-Clubs7")
    assert response.status_code == 200, response.json()
    assert response.json() == {"screen_name": "Ace_of-Clubs7", "changeable": True}
    shown = operator_api(member).get(f"/api/v1/players/{ann.player.pk}").json()
    assert shown["screen_name"] == "Ace_of-Clubs7"
    assert AuditEvent.objects.filter(action="player.screen_name_set").count() == 1
    assert put_name(ann, "Ace_of-Clubs7").status_code == 200  # the same name: nothing to do
    assert AuditEvent.objects.filter(action="player.screen_name_set").count() == 1


@pytest.mark.parametrize(
    "name",
    [
        "ab",  # too short
        "a" * 21,  # too long
        "_ann",  # a separator first
        "ann-",  # ... or last
        "an__n",  # two in a row
        "ann smith",  # a space
        "\u0410nn",  # a Cyrillic A
        "<b>ann</b>",
        "SYSTEM",  # reserved, whatever the case
        "casino-7",  # the player's own external_ref
        "Casino-7",
    ],
)
def test_names_outside_the_rules_are_refused(member, name):
    ann = player_client(member, external_ref="casino-7", display_name="Ann")
    body = assert_problem(put_name(ann, name), 422, "screen-name-invalid")
    assert body["field"] == "screen_name"
    ann.player.refresh_from_db()
    assert ann.player.screen_name is None


def test_the_display_name_is_not_a_screen_name(member):
    ann = player_client(member, display_name="AnnSmith")
    assert_problem(put_name(ann, "annsmith"), 422, "screen-name-invalid")


def test_a_name_is_unique_across_operators_whatever_the_case(member):
    b = member_make(name="B")
    assert put_name(player_client(member), "RiverKing").status_code == 200
    assert_problem(put_name(player_client(b), "riverking"), 409, "screen-name-taken")


def test_the_name_is_fixed_while_seated_at_a_network_table(member):
    room = network_room_make()
    ann = player_client(member, screen_name="Ann")
    fund(ann.player, 10_000)
    table = room.tables.first()
    assert sit(ann, table.pk).status_code == 201
    assert ann.get("/api/v1/me/screen-name").json()["changeable"] is False
    assert_problem(put_name(ann, "Annie"), 409, "screen-name-locked")
    assert ann.post(f"/api/v1/tables/{table.pk}/leave").status_code == 200
    assert put_name(ann, "Annie").status_code == 200

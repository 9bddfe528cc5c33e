"""Liquidity in the lobby and the waiting list (docs/network.md "Lobby and waiting list"): the
lobby counts running and waiting tables and waiting players; a player on a room's waiting
list is seated (buy-in and all, through seat_take) as soon as an opponent is there, told over
their own socket, and can read it over REST; an entry expires; leaving is free."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Seat, WaitingListEntry
from gin_platform.models import AuditEvent
from tests.games.factories import MONEY_PLAY
from tests.games.helpers import sit
from tests.games.network_world import member_make, network_make, network_room_make, player_client
from tests.helpers import assert_problem
from tests.wallet.factories import fund
from wallet.selectors import balances

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    network_make()
    room = network_room_make(name="Net Match", stake=500)
    a, b = member_make(name="A"), member_make(name="B")
    ann = player_client(a, screen_name="Ann")
    bob = player_client(b, screen_name="Bob")
    for client in (ann, bob):
        fund(client.player, 10_000)
    return room, ann, bob


def join(client, room, **body):
    return client.post(f"/api/v1/lobby/{room.pk}/waiting-list", body, format="json")


def lobby_room(client, room) -> dict:
    response = client.get(f"/api/v1/lobby/{room.pk}")
    assert response.status_code == 200, response.json()
    return response.json()


def balance(client) -> int:
    return balances.wallet_balance(player=client.player, currency="EUR")


def test_two_waiting_players_of_two_operators_are_seated_together(
    world, django_capture_on_commit_callbacks
):
    room, ann, bob = world
    with django_capture_on_commit_callbacks(execute=True):
        joined = join(ann, room)
    assert joined.status_code == 201, joined.json()
    assert joined.json()["status"] == "waiting" and joined.json()["seat"] is None
    assert balance(ann) == 10_000  # nothing charged while waiting
    assert lobby_room(bob, room)["players_waiting"] == 1
    assert join(ann, room).status_code == 200  # a retry: the same entry
    with django_capture_on_commit_callbacks(execute=True):
        assert join(bob, room).status_code == 201
    mine = ann.get(f"/api/v1/lobby/{room.pk}/waiting-list").json()
    theirs = bob.get(f"/api/v1/lobby/{room.pk}/waiting-list").json()
    assert mine["status"] == theirs["status"] == "seated"
    assert mine["seat"]["match_id"] == theirs["seat"]["match_id"]
    match_id = mine["seat"]["match_id"]
    assert Seat.objects.filter(match_id=match_id, state=Seat.State.PLAYING).count() == 2
    assert balance(ann) == balance(bob) == 10_000 - 500  # the buy-ins, as a seat takes them
    shown = lobby_room(ann, room)
    assert shown["tables_running"] == 1 and shown["players_waiting"] == 0
    assert AuditEvent.objects.filter(action="waiting_list.seated").count() == 2
    listed = ann.get("/api/v1/me/waiting-list").json()["results"]
    assert [entry["status"] for entry in listed] == ["seated"]


def test_a_waiting_player_is_seated_opposite_somebody_who_sits_down(
    world, django_capture_on_commit_callbacks
):
    room, ann, bob = world
    with django_capture_on_commit_callbacks(execute=True):
        assert join(ann, room).status_code == 201
    table = room.tables.first()
    with django_capture_on_commit_callbacks(execute=True):
        assert sit(bob, table.pk).status_code == 201
    entry = WaitingListEntry.objects.get(player=ann.player)
    assert entry.status == "seated" and entry.seat.table_id == table.pk
    assert entry.seat.state == Seat.State.PLAYING


def test_a_player_seated_alone_is_joined_by_the_next_one_waiting(
    world, django_capture_on_commit_callbacks
):
    room, ann, bob = world
    table = room.tables.first()
    with django_capture_on_commit_callbacks(execute=True):
        assert sit(ann, table.pk).status_code == 201
    assert lobby_room(bob, room)["tables_waiting"] == 1
    with django_capture_on_commit_callbacks(execute=True):
        assert join(bob, room).status_code == 201
    assert WaitingListEntry.objects.get(player=bob.player).seat.table_id == table.pk


def test_leaving_the_list_is_free_and_only_once(world):
    room, ann, _ = world
    assert join(ann, room).status_code == 201
    left = ann.delete(f"/api/v1/lobby/{room.pk}/waiting-list")
    assert left.status_code == 200 and left.json()["status"] == "left"
    assert balance(ann) == 10_000
    assert_problem(ann.delete(f"/api/v1/lobby/{room.pk}/waiting-list"), 404, "not-found")
    assert join(ann, room).status_code == 201  # and join again


def test_an_entry_expires(world, django_capture_on_commit_callbacks):
    room, ann, bob = world
    assert join(ann, room).status_code == 201
    assert services.waiting_list_expire() == 0
    entry = WaitingListEntry.objects.get(player=ann.player)
    assert entry.expires_at - entry.created_at == timedelta(seconds=600)
    WaitingListEntry.objects.filter(pk=entry.pk).update(expires_at=timezone.now())
    assert lobby_room(ann, room)["players_waiting"] == 0
    assert services.waiting_list_expire() == 1
    assert ann.get(f"/api/v1/lobby/{room.pk}/waiting-list").json()["status"] == "expired"
    with django_capture_on_commit_callbacks(execute=True):
        assert join(bob, room).status_code == 201
    assert WaitingListEntry.objects.get(player=bob.player).status == "waiting"


def test_a_seat_the_wallet_refuses_ends_the_entry_as_refused(
    world, django_capture_on_commit_callbacks
):
    room, _, bob = world
    poor = player_client(member_make(name="C"), screen_name="Poor")
    with django_capture_on_commit_callbacks(execute=True):
        assert join(poor, room).status_code == 201
        assert join(bob, room).status_code == 201
    refused = poor.get(f"/api/v1/lobby/{room.pk}/waiting-list").json()
    assert refused["status"] == "refused"
    assert refused["problem_type"] == "/problems/insufficient-funds"
    assert WaitingListEntry.objects.get(player=bob.player).status == "waiting"


def test_joining_is_checked_like_sitting(world):
    room, ann, _ = world
    nameless = player_client(member_make(name="D"))
    assert_problem(join(nameless, room), 409, "screen-name-required")
    assert_problem(join(ann, room, cashier_amount="10.00"), 400, "validation-error")
    money = network_room_make(name="Net Money", **MONEY_PLAY)
    assert_problem(join(ann, money, stake_per_point="0.05"), 422, "cashier-amount-out-of-range")
    ok = join(ann, money, stake_per_point="0.05", cashier_amount="20.00")
    assert ok.status_code == 201
    assert ok.json()["stake_per_point"]["amount"] == "0.05"


def test_a_claim_left_by_a_matching_run_that_died_is_repaired(world):
    """A run claims an entry (seated, no seat yet) and dies: before or after its seat_take
    committed. The beat job records the seat it took, or lets the entry wait again."""
    room, ann, bob = world
    assert join(ann, room).status_code == 201
    assert join(bob, room).status_code == 201
    long_ago = timezone.now() - timedelta(minutes=5)
    # Ann's run died before seat_take: her entry waits again.
    WaitingListEntry.objects.filter(player=ann.player).update(status="seated", claimed_at=long_ago)
    # Bob's run died after seat_take committed: his seat is recorded on the entry.
    WaitingListEntry.objects.filter(player=bob.player).update(status="seated", claimed_at=long_ago)
    assert sit(bob, room.tables.first().pk).status_code == 201
    # A fresh claim (a run still seating) is left alone.
    fresh = player_client(member_make(name="C"), screen_name="Cid")
    assert join(fresh, room).status_code == 201
    WaitingListEntry.objects.filter(player=fresh.player).update(
        status="seated", claimed_at=timezone.now()
    )
    assert services.waiting_list_expire() == 2
    ann_entry = WaitingListEntry.objects.get(player=ann.player)
    assert (ann_entry.status, ann_entry.claimed_at, ann_entry.seat_id) == ("waiting", None, None)
    bob_entry = WaitingListEntry.objects.get(player=bob.player)
    assert bob_entry.status == "seated" and bob_entry.ended_at is not None
    assert bob_entry.seat == Seat.objects.get(player=bob.player)
    cid_entry = WaitingListEntry.objects.get(player=fresh.player)
    assert (cid_entry.status, cid_entry.seat_id, cid_entry.ended_at) == ("seated", None, None)
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert {"waiting_list.released", "waiting_list.seated"} <= actions

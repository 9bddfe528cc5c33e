"""Linked players are never seated together (docs/integrity.md "The seating rule"):
the explicit sit refuses with linked-players and says neither who nor why; the waiting list
skips linked pairings silently; an ended link no longer stands in the way."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from games.models import Seat, WaitingListEntry
from games.services import waiting_list_match
from integrity.models import PlayerLink
from tests.games.helpers import sit
from tests.helpers import assert_problem, session_client
from tests.integrity.links_world import room_make, share_identifier, world_make
from tests.wallet.factories import fund
from wallet.models import LedgerTransaction
from wallet.selectors import balances

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return world_make()


def funded(world, operator):
    player = world.player(operator)
    fund(player, 10_000)
    return player


def join(client, room):
    return client.post(f"/api/v1/lobby/{room.pk}/waiting-list", {}, format="json")


def test_a_linked_player_is_refused_the_seat_without_saying_who_or_why(world):
    room = room_make()
    ann, bob, cat = funded(world, world.a), funded(world, world.b), funded(world, world.b)
    share_identifier([ann, bob], kind="device", value="family-laptop")
    table = room.tables.first()
    assert sit(session_client(ann), table.pk).status_code == 201
    postings = LedgerTransaction.objects.count()
    refused = sit(session_client(bob), table.pk)
    body = assert_problem(refused, 409, "linked-players")
    text = json.dumps(body)
    for secret in (str(ann.pk), ann.screen_name, ann.display_name, "device", "family-laptop"):
        assert secret not in text
    assert LedgerTransaction.objects.count() == postings  # nothing charged
    assert balances.wallet_balance(player=bob, currency="EUR") == 10_000
    assert not Seat.objects.filter(player=bob).exists()
    # Somebody not linked to ann sits there, and the game starts.
    assert sit(session_client(cat), table.pk).status_code == 201
    assert Seat.objects.filter(table=table, state=Seat.State.PLAYING).count() == 2


def test_an_ended_link_no_longer_keeps_players_apart(world):
    room = room_make()
    ann, amy = funded(world, world.a), funded(world, world.a)
    link = world.api_a.post(
        f"/api/v1/players/{ann.pk}/links",
        {"player_id": str(amy.pk), "kind": "household"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="declare-1",
    ).json()
    table = room.tables.first()
    assert sit(session_client(ann), table.pk).status_code == 201
    assert_problem(sit(session_client(amy), table.pk), 409, "linked-players")
    world.api_a.delete(f"/api/v1/players/{ann.pk}/links/{link['id']}", HTTP_IDEMPOTENCY_KEY="end-1")
    assert sit(session_client(amy), table.pk).status_code == 201


def test_a_four_seat_table_refuses_anyone_linked_to_any_seated_player(world):
    room = room_make(seats=4, name="Net Four")
    ann, bob, cat, dan = (funded(world, op) for op in (world.a, world.b, world.a, world.b))
    share_identifier([bob, dan], kind="payment_instrument", value="card-fp-1")
    table = room.tables.first()
    for player in (ann, bob, cat):
        assert sit(session_client(player), table.pk).status_code == 201
    assert_problem(sit(session_client(dan), table.pk), 409, "linked-players")


def test_the_waiting_list_never_pairs_linked_players(world, django_capture_on_commit_callbacks):
    room = room_make()
    ann, bob, cat = funded(world, world.a), funded(world, world.b), funded(world, world.a)
    share_identifier([ann, bob], kind="device", value="shared-phone")
    with django_capture_on_commit_callbacks(execute=True):
        assert join(session_client(ann), room).status_code == 201
    with django_capture_on_commit_callbacks(execute=True):
        assert join(session_client(bob), room).status_code == 201
    # Two linked players wait: neither is seated, neither is told why.
    assert set(WaitingListEntry.objects.values_list("status", flat=True)) == {"waiting"}
    assert not Seat.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        assert join(session_client(cat), room).status_code == 201
    # cat plays the oldest entry she is not linked to (ann); bob keeps waiting.
    seated = {entry.player_id: entry for entry in WaitingListEntry.objects.all()}
    assert seated[ann.pk].status == seated[cat.pk].status == "seated"
    assert seated[ann.pk].seat.match_id == seated[cat.pk].seat.match_id
    assert seated[bob.pk].status == "waiting"


def test_the_waiting_list_skips_a_table_where_a_linked_player_sits(
    world, django_capture_on_commit_callbacks
):
    room = room_make()
    ann, bob, cat = funded(world, world.a), funded(world, world.b), funded(world, world.b)
    share_identifier([ann, bob], kind="address", value="81.2.69.160")
    table = room.tables.first()
    with django_capture_on_commit_callbacks(execute=True):
        assert sit(session_client(ann), table.pk).status_code == 201
    with django_capture_on_commit_callbacks(execute=True):
        assert join(session_client(bob), room).status_code == 201
    entry = WaitingListEntry.objects.get(player=bob)
    assert entry.status == "waiting"  # not refused, not seated: still waiting
    with django_capture_on_commit_callbacks(execute=True):
        assert join(session_client(cat), room).status_code == 201
    assert WaitingListEntry.objects.get(player=cat).seat.table_id == table.pk
    assert WaitingListEntry.objects.get(player=bob).status == "waiting"


def test_a_link_made_after_the_waiting_list_join_still_keeps_them_apart(
    world, django_capture_on_commit_callbacks
):
    room = room_make()
    ann, amy = funded(world, world.a), funded(world, world.a)
    assert join(session_client(ann), room).status_code == 201
    assert join(session_client(amy), room).status_code == 201  # no commit hooks: not matched
    PlayerLink.objects.create(
        player_low_id=min(ann.pk, amy.pk),
        player_high_id=max(ann.pk, amy.pk),
        kind="case_block",
        source="staff:1",
        created_at=timezone.now(),
    )
    assert waiting_list_match(room_id=room.pk) == 0
    assert not Seat.objects.exists()

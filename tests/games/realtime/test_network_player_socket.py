"""The player's own socket, /ws/v1/me (docs/realtime.md "The player's socket"): a player
waiting in the lobby learns over it, the moment it happens, that the waiting list seated
them, with the match to open; a bad ticket is refused like on a match socket."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.test import override_settings
from django.utils import timezone

from gin_platform.models import PlayerSession
from tests.games.network_world import member_make, network_make, network_room_make, player_client
from tests.games.realtime.helpers import mint_ticket, open_socket
from tests.wallet.factories import fund

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

sync = database_sync_to_async


def _world():
    network_make()
    room = network_room_make(name="Net Match", stake=500)
    ann = player_client(member_make(name="A"), screen_name="Ann")
    bob = player_client(member_make(name="B"), screen_name="Bob")
    for client in (ann, bob):
        fund(client.player, 10_000)
    return room, ann, bob


def _join(client, room) -> dict:
    response = client.post(f"/api/v1/lobby/{room.pk}/waiting-list", {}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


async def test_a_waiting_player_is_told_over_their_socket_that_they_were_seated():
    room, ann, bob = await sync(_world)()
    socket = await open_socket("/ws/v1/me", ticket=await mint_ticket(ann))
    hello = await socket.receive_type("hello")
    assert hello["waiting_list"] == [] and hello["heartbeat_seconds"] > 0
    entry = await sync(_join)(ann, room)
    waiting = await socket.receive_type("waiting_list")
    assert waiting["entry"]["id"] == entry["id"] and waiting["entry"]["status"] == "waiting"
    await sync(_join)(bob, room)
    seated = await socket.receive_type("waiting_list")
    assert seated["entry"]["status"] == "seated"
    match_id = seated["entry"]["seat"]["match_id"]
    view = await sync(ann.get)(f"/api/v1/matches/{match_id}/view")
    assert view.status_code == 200 and view.json()["match"]["status"] == "running"
    assert "Bob" in {p["screen_name"] for p in view.json()["match"]["players"]}
    await socket.close()


async def test_a_socket_without_a_valid_ticket_is_closed():
    socket = await open_socket("/ws/v1/me", ticket="gst_nope")
    assert await socket.closed_with() == 4401
    assert socket.received[0]["problem"]["type"] == "/problems/socket-ticket-invalid"


@override_settings(REALTIME_HEARTBEAT_SECONDS=1)
async def test_it_beats_with_the_match_sockets_and_closes_once_the_session_ends():
    """Its beats are read with the process's other sockets' (games/realtime/beats.py):
    a ``ping`` while the session holds, then ``session-ended`` and 4401 at the beat after
    the session is revoked; a player silent for three beats is closed with 4408."""
    _, ann, bob = await sync(_world)()
    socket = await open_socket("/ws/v1/me", ticket=await mint_ticket(ann))
    await socket.receive_type("hello")
    await socket.receive_type("ping", timeout=3)
    await socket.send({"type": "ping"})
    assert (await socket.receive_type("pong"))["type"] == "pong"

    def revoke():
        PlayerSession.objects.filter(player=ann.player).update(revoked_at=timezone.now())

    await sync(revoke)()
    assert await socket.closed_with(timeout=4) == 4401
    assert socket.received[-1]["problem"]["type"].endswith("/session-ended")
    silent = await open_socket("/ws/v1/me", ticket=await mint_ticket(bob))
    await silent.receive_type("hello")
    assert await silent.closed_with(timeout=7) == 4408
    assert silent.received[-1]["problem"]["type"].endswith("/socket-idle")

"""A seat whose every socket is in this process gets its pushes handed over here, without a
round trip through Redis (games/realtime/local_sockets.py); a seat with a socket counted
anywhere else gets them published, as before."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async

from games import engine
from games.realtime import local_sockets, presence, publisher
from games.realtime.audience import Audience
from tests.games.helpers import seat_both
from tests.games.realtime.helpers import Socket, player_socket

sync = database_sync_to_async


# --- The process's counts ------------------------------------------------------------------
def test_all_here_only_when_one_loop_holds_every_counted_socket():
    seat = Audience(match_id=-7, seat=1)
    here, elsewhere = asyncio.new_event_loop(), asyncio.new_event_loop()
    try:
        assert local_sockets.all_here(seat, counted=1) is None  # none here
        local_sockets.seat_counted(seat, loop=here)
        assert local_sockets.all_here(seat, counted=1) is here
        assert local_sockets.all_here(seat, counted=2) is None  # one more counted elsewhere
        assert local_sockets.all_here(seat, counted=0) is None  # the count was lost: publish
        local_sockets.seat_counted(seat, loop=here)
        assert local_sockets.all_here(seat, counted=2) is here
        local_sockets.seat_counted(seat, loop=elsewhere)  # two loops: never handed over
        assert local_sockets.all_here(seat, counted=3) is None
        local_sockets.seat_uncounted(seat, loop=elsewhere)
        local_sockets.seat_uncounted(seat, loop=here)
        assert local_sockets.all_here(seat, counted=1) is here
        local_sockets.seat_uncounted(seat, loop=here)
        local_sockets.seat_uncounted(seat, loop=here)  # once too often: harmless
        assert local_sockets.all_here(seat, counted=1) is None
    finally:
        here.close()
        elsewhere.close()


# --- Over sockets, on Redis ----------------------------------------------------------------


async def _next_push(socket: Socket) -> dict:
    while True:
        message = await socket.receive()
        if message["type"] == "events":
            return message


async def _move(socket: Socket, look: dict) -> dict:
    move = engine.choose_action_from_view(look["hand"])
    await socket.send({"type": "action", "id": "m", **move, "expected_seq": look["seq"]})
    while True:
        message = await socket.receive()
        if message["type"] == "events":
            look = message["view"]
        if message["type"] == "action_result":
            assert message["applied"] is True
            return look


def _published(monkeypatch) -> list[str]:
    groups: list[str] = []
    send = publisher.group_send_many

    def counted(messages):
        groups.extend(group for group, message in messages if message["type"] == publisher.PUSH)
        send(messages)

    monkeypatch.setattr(publisher, "group_send_many", counted)
    return groups


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_opponents_push_is_handed_over_here_and_published_once_a_socket_is_elsewhere(
    alice, bob, table, seeds, monkeypatch
):
    assert local_sockets.layer_delivers_here() is not None  # Redis's pub/sub layer
    match_id, seats = await sync(seat_both)(alice, bob, table.pk)
    sockets = {seat: await player_socket(seats[seat], match_id) for seat in (0, 1)}
    looks = {seat: (await socket.receive_type("hello"))["view"] for seat, socket in sockets.items()}
    to_act = looks[0]["hand"]["to_act"]
    opponent = 1 - to_act
    published = _published(monkeypatch)

    # Both seats' only sockets are here: the opponent's push never goes to Redis.
    look = await _move(sockets[to_act], looks[to_act])
    pushed = await _next_push(sockets[opponent])
    assert pushed["seq"] == look["seq"] and published == []

    # A socket of the opponent's seat counted in another process (as presence sees it):
    # the push goes through Redis, and the socket here still gets it from there.
    await sync(presence.seat_joined)(match_id=match_id, seat=opponent)
    try:
        while look["hand"]["to_act"] == to_act:
            look = await _move(sockets[to_act], look)
            pushed = await _next_push(sockets[opponent])
            assert pushed["seq"] == look["seq"]
        assert f"match.{match_id}.seat{opponent}" in published
    finally:
        await sync(presence.seat_left)(match_id=match_id, seat=opponent)
    for socket in sockets.values():
        await socket.close()


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_socket_counts_here_after_presence_and_stops_before_it(
    alice, bob, table, seeds, monkeypatch
):
    """This process's count is never above its share of presence's: counted here once
    counted there, uncounted here before it is uncounted there."""
    match_id, seats = await sync(seat_both)(alice, bob, table.pk)
    seen: list[tuple[str, int, object]] = []
    joined, left = presence.seat_joined, presence.seat_left

    def seat_joined(*, match_id, seat):
        joined(match_id=match_id, seat=seat)
        seen.append(("joined", seat, local_sockets.all_here(Audience(match_id, seat), counted=1)))

    def seat_left(*, match_id, seat):
        seen.append(("left", seat, local_sockets.all_here(Audience(match_id, seat), counted=1)))
        left(match_id=match_id, seat=seat)

    monkeypatch.setattr(presence, "seat_joined", seat_joined)
    monkeypatch.setattr(presence, "seat_left", seat_left)
    socket = await player_socket(seats[0], match_id)
    await socket.receive_type("hello")
    assert local_sockets.all_here(Audience(match_id, 0), counted=1) is not None
    await socket.close()
    assert seen == [("joined", 0, None), ("left", 0, None)]
    assert local_sockets.all_here(Audience(match_id, 0), counted=1) is None


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_push_handed_over_here_does_not_wait_for_redis_nor_fail_with_it(
    alice, bob, table, seeds, monkeypatch
):
    match_id, seats = await sync(seat_both)(alice, bob, table.pk)
    sockets = {seat: await player_socket(seats[seat], match_id) for seat in (0, 1)}
    looks = {seat: (await socket.receive_type("hello"))["view"] for seat, socket in sockets.items()}
    to_act = looks[0]["hand"]["to_act"]

    send = publisher.group_send_many

    refused: list[str] = []

    def redis_gone(messages):  # the move's push cannot be published; the rest goes on
        pushes = [group for group, message in messages if message["type"] == publisher.PUSH]
        if pushes:
            refused.extend(pushes)
            raise ConnectionError("Redis is restarting")
        send(messages)

    monkeypatch.setattr(publisher, "group_send_many", redis_gone)
    # Watchers listen elsewhere: their message has to be published, and that fails.
    await sync(presence.listen)(Audience(match_id, None))
    look = await _move(sockets[to_act], looks[to_act])
    assert (await _next_push(sockets[1 - to_act]))["seq"] == look["seq"]
    assert refused == [f"match.{match_id}.watch"]
    for socket in sockets.values():
        await socket.close()

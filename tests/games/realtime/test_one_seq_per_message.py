"""Every socket message that carries a view is of one ``seq`` (docs/realtime.md): its
``seq``, its view's and its last event's are the same, on every path that reads the match
to build one (hello, resume, watch, repair, push), even when a move commits between any
two of that path's reads. The move then arrives in the next message, which continues
exactly from there, and the socket ends on the view ``GET .../view`` shows.

Before this held, a socket resumed while the opponent moved got the events through the
move but the view before it, and dropped the move's own push as already shown: a player
never shown their turn, forfeited on time. The moves here commit in another thread, on a
connection of their own, while the socket's database thread waits between two reads."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db import connection

from games import engine, selectors
from games.realtime import presence, publisher
from games.realtime.audience import Audience
from tests.games.helpers import act, seat_both, view, watch
from tests.games.realtime.helpers import (
    TIMEOUT,
    Socket,
    answered,
    player_socket,
    watcher_socket,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio, pytest.mark.postgres]

sync = database_sync_to_async

# The reads a socket's view-carrying message is built from, in the order they are made.
READS = ("match_for_push", "latest_hands", "match_event_rows")


def _move(seats, match_id: int) -> int:
    """The player to act plays a legal move over REST; the match's seq after it."""
    to_act = answered(view, seats[0], match_id)["hand"]["to_act"]
    mine = answered(view, seats[to_act], match_id)
    move = engine.choose_action_from_view(mine["hand"])
    return answered(act, seats[to_act], match_id, **move, expected_seq=mine["seq"])["seq"]


def _move_elsewhere(seats, match_id: int) -> None:
    """``_move`` committed by another thread on its own connection, waited for."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            _move(seats, match_id)
        except BaseException as exc:  # reported by the test's thread
            failure.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


class MoveBetweenReads:
    """Once armed, the next call of ``selectors.<read>`` (from any path) returns only after
    another thread has committed a move: the move falls between that read and the next."""

    def __init__(self, monkeypatch, read: str, move: Callable[[], None]) -> None:
        self.armed = False
        self.moved = False
        self._lock = threading.Lock()
        original = getattr(selectors, read)

        def wrapped(*args, **kwargs):
            result = original(*args, **kwargs)
            with self._lock:
                fire, self.armed = self.armed, False
            if fire:
                move()
                self.moved = True
            return result

        monkeypatch.setattr(selectors, read, wrapped)


async def _until_moved(between: MoveBetweenReads) -> None:
    async with asyncio.timeout(TIMEOUT):
        while not between.moved:
            await asyncio.sleep(0.01)


async def _until_seq(socket: Socket, seq: int) -> list[dict]:
    """The socket's messages up to the first one with a view of ``seq`` (perhaps one
    received already)."""
    while not any(m.get("view") and m["seq"] >= seq for m in socket.received):
        await socket.receive()
    return socket.received


def _assert_one_seq_each(messages: list[dict], *, start: int) -> None:
    """Each view is of its message's seq, each message's events lead exactly from the
    previous message's seq to its own, and seq never goes backwards."""
    shown = start
    for message in messages:
        if "view" not in message or message["view"] is None:
            continue
        assert message["view"]["seq"] == message["seq"], message
        events = [event["seq"] for event in message.get("events", ())]
        if message["type"] == "hello":
            shown = message["seq"] if start is None else start
            continue
        assert events == list(range(shown + 1, message["seq"] + 1)), (shown, message)
        shown = message["seq"]


def _comparable(body: dict) -> dict:
    return json.loads(json.dumps(body))


async def _ends_on_rest_view(socket: Socket, client, match_id: int, *, watching: bool) -> None:
    now = await sync(answered)(watch if watching else view, client, match_id)
    received = await _until_seq(socket, now["seq"])
    last = next(message for message in reversed(received) if message.get("view"))
    assert last["seq"] == now["seq"]
    assert last["view"] == _comparable(now)  # whose turn included


@pytest.mark.parametrize("read", READS[:2])
async def test_a_hello_is_the_view_of_its_own_seq(alice, bob, table, seeds, monkeypatch, read):
    match_id, seats = await sync(seat_both)(alice, bob, table.pk)
    between = MoveBetweenReads(monkeypatch, read, lambda: _move_elsewhere(seats, match_id))
    between.armed = True
    socket = await player_socket(seats[0], match_id)
    hello = await socket.receive_type("hello")
    assert between.moved
    await _ends_on_rest_view(socket, seats[0], match_id, watching=False)
    _assert_one_seq_each(socket.received, start=None)
    assert socket.received[0] is hello
    await socket.close()


@pytest.mark.parametrize("read", READS)
@pytest.mark.parametrize("watching", [False, True], ids=["player", "watcher"])
async def test_a_resumed_socket_ends_on_the_view_of_its_last_seq(
    alice, bob, watcher, table, seeds, monkeypatch, read, watching
):
    match_id, seats = await sync(seat_both)(alice, bob, table.pk)
    seen = (await sync(answered)(view, seats[0], match_id))["seq"]
    for _ in range(2):  # moves while the socket is away
        await sync(_move)(seats, match_id)
    between = MoveBetweenReads(monkeypatch, read, lambda: _move_elsewhere(seats, match_id))
    between.armed = True
    if watching:
        socket = await watcher_socket(watcher, match_id, after=seen)
    else:
        socket = await player_socket(seats[0], match_id, after=seen)
    await socket.receive_type("hello")
    assert between.moved
    client = watcher if watching else seats[0]
    await _ends_on_rest_view(socket, client, match_id, watching=watching)
    _assert_one_seq_each(socket.received, start=seen)
    await socket.close()


async def _socket_with_a_lost_move(seats, match_id: int) -> tuple[Socket, int]:
    """Seat 0's socket, then a move whose push nobody was listed to get (lost): the socket
    has shown the seq returned, the match is one move past it. Listened again after."""
    socket = await player_socket(seats[0], match_id)
    shown = (await socket.receive_type("hello"))["seq"]
    await socket.receive_type("presence")  # its own arrival
    audience = Audience(match_id, 0)
    await sync(presence.cache.delete)(f"rt:listen:{audience.group}")
    await sync(_move)(seats, match_id)
    assert await socket.nothing_more(), socket.texts[-1]
    await sync(presence.listen)(audience)
    return socket, shown


@pytest.mark.parametrize("read", READS)
async def test_a_repair_is_the_view_of_its_own_seq(alice, bob, table, seeds, monkeypatch, read):
    match_id, seats = await sync(seat_both)(alice, bob, table.pk)
    socket, shown = await _socket_with_a_lost_move(seats, match_id)
    between = MoveBetweenReads(monkeypatch, read, lambda: _move_elsewhere(seats, match_id))
    between.armed = True
    # A push that starts past the gap: the socket repairs the gap from the database.
    ahead = shown + 50
    await get_channel_layer().group_send(
        Audience(match_id, 0).group,
        {"type": publisher.PUSH, "first": ahead, "last": ahead, "seq": ahead, "text": "{}"},
    )
    await _until_moved(between)
    await _ends_on_rest_view(socket, seats[0], match_id, watching=False)
    _assert_one_seq_each(socket.received, start=None)
    await socket.close()


@pytest.mark.parametrize("read", READS)
async def test_a_push_read_back_is_the_view_of_its_own_seq(
    alice, bob, table, seeds, monkeypatch, read
):
    """The publisher's read-back path (a change it cannot render from what its transaction
    wrote) with a move committed between its reads."""
    match_id, seats = await sync(seat_both)(alice, bob, table.pk)
    socket, shown = await _socket_with_a_lost_move(seats, match_id)
    last = (await sync(answered)(view, seats[0], match_id))["seq"]
    between = MoveBetweenReads(monkeypatch, read, lambda: _move_elsewhere(seats, match_id))
    between.armed = True

    def push_read_back() -> None:
        try:
            publisher.publish(match_id=match_id, after=shown, last=last)
        finally:
            connection.close()

    await sync(push_read_back)()
    assert between.moved
    await _ends_on_rest_view(socket, seats[0], match_id, watching=False)
    _assert_one_seq_each(socket.received, start=None)
    await socket.close()


async def test_a_view_past_the_sockets_seq_is_repaired_not_forwarded(alice, bob, table, seeds):
    """A ``view`` push whose seq is past what the socket showed (read after moves whose
    pushes have not come) would skip their events: the socket reads them instead."""
    match_id, seats = await sync(seat_both)(alice, bob, table.pk)
    socket, shown = await _socket_with_a_lost_move(seats, match_id)
    now = (await sync(answered)(view, seats[0], match_id))["seq"]
    await get_channel_layer().group_send(
        Audience(match_id, 0).group,
        {"type": publisher.PUSH, "first": 0, "last": 0, "seq": now, "text": '{"forwarded":1}'},
    )
    repaired = await socket.receive_type("events")
    assert [event["seq"] for event in repaired["events"]] == list(range(shown + 1, now + 1))
    assert repaired["view"] == _comparable(await sync(answered)(view, seats[0], match_id))
    assert '{"forwarded":1}' not in socket.texts
    await socket.close()

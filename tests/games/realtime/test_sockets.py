"""The socket protocol (docs/realtime.md) on the real ASGI application: a whole game played
over sockets, ordering, resume, gap repair, hidden information, tickets, limits."""

from __future__ import annotations

import asyncio
import json
import threading
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.test import override_settings
from django.utils import timezone

from games import engine
from games.models import Match
from games.realtime import beats, consumers, local_sockets, presence, publisher
from games.realtime.audience import Audience
from games.realtime.consumers import MatchSocketConsumer
from gin_platform.models import PlayerSession, SocketTicket
from tests.factories import OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import (
    HiddenInformationChecker,
    act,
    events,
    seat_both,
    view,
    watch,
)
from tests.games.realtime.helpers import (
    Socket,
    answered,
    check_message,
    mint_ticket,
    open_socket,
    player_socket,
    watcher_socket,
)
from tests.helpers import session_client

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

sync = database_sync_to_async


async def _seat_both(alice, bob, table):
    return await sync(seat_both)(alice, bob, table.pk)


def _comparable(view_body: dict) -> dict:
    """A view without the fields that depend on when it was read."""
    return json.loads(json.dumps(view_body))


def _check(checker: HiddenInformationChecker, text: str, seat: int | None) -> None:
    check_message(checker, text, seat)


async def _answer_and_push(socket: Socket, *, answered: bool = False) -> tuple[dict, dict]:
    """The next ``action_result`` (unless ``answered``) and the next ``events`` push."""
    result, pushed = None, None
    while pushed is None or (result is None and not answered):
        message = await socket.receive()
        if message["type"] == "action_result":
            result = message
        elif message["type"] == "events":
            pushed = message
    return result, pushed


@override_settings(REALTIME_MAX_MESSAGES_PER_10S=100_000)  # a script plays much faster
async def test_a_whole_game_is_played_over_sockets_and_every_push_is_what_rest_shows(
    alice, bob, watcher, table, seeds
):
    match_id, seats = await _seat_both(alice, bob, table)
    sockets = {seat: await player_socket(seats[seat], match_id) for seat in (0, 1)}
    watching = await watcher_socket(watcher, match_id)
    checker = await sync(HiddenInformationChecker)(match_id)
    views: dict[int | None, dict] = {}
    last_seq: dict[int | None, int] = {}
    for seat, socket in [*sockets.items(), (None, watching)]:
        hello = await socket.receive_type("hello")
        assert hello["seat"] == seat and hello["match"] == str(match_id)
        await sync(_check)(checker, socket.texts[-1], seat)
        views[seat], last_seq[seat] = hello["view"], hello["seq"]
    # The hello is exactly the REST view at the same moment.
    assert views[0] == _comparable(await sync(answered)(view, seats[0], match_id))
    assert views[None] == _comparable(await sync(answered)(watch, watcher, match_id))

    feed: dict[int | None, list[dict]] = {0: [], 1: [], None: []}
    moves = 0
    while views[0]["match"]["status"] == Match.Status.RUNNING:
        to_act = views[0]["hand"]["to_act"]
        move = engine.choose_action_from_view(views[to_act]["hand"])
        await sockets[to_act].send(
            {"type": "action", "id": f"m{moves}", **move, "expected_seq": views[to_act]["seq"]}
        )
        for seat, socket in [*sockets.items(), (None, watching)]:
            # The mover's answer and its push, in either order (docs/realtime.md).
            result, message = await _answer_and_push(socket, answered=seat != to_act)
            if seat == to_act:
                assert result["id"] == f"m{moves}" and result["applied"] is True
                assert result["seq"] == message["seq"]
            await sync(_check)(checker, socket.texts[socket.received.index(message)], seat)
            events_seqs = [event["seq"] for event in message["events"]]
            # In order, with nothing skipped, from where the socket was.
            assert events_seqs == list(range(last_seq[seat] + 1, message["seq"] + 1))
            feed[seat] += message["events"]
            views[seat], last_seq[seat] = message["view"], message["seq"]
        moves += 1
        assert moves < 2_000
    assert moves > 0

    # The pushed feed is the REST feed, event for event, for each viewer.
    after = hello["seq"]
    rest_feed = await sync(answered)(events, seats[0], match_id, after=after, limit=500)
    assert feed[0] == rest_feed["events"]
    rest_watch = await sync(
        lambda: watcher.get(
            f"/api/v1/matches/{match_id}/watch/events?after={after}&limit=500"
        ).json()
    )()
    assert feed[None] == rest_watch["events"]
    # Settlement (run on commit) follows as a view: the match is settled.
    settled = await sockets[0].receive_type("view")
    assert settled["view"]["match"]["status"] == Match.Status.SETTLED
    assert settled["view"] == _comparable(await sync(answered)(view, seats[0], match_id))
    for socket in [*sockets.values(), watching]:
        await socket.close()


async def test_a_move_reaches_its_seats_only_socket_without_the_channel_layer(
    alice, bob, table, seeds, monkeypatch
):
    """The mover's socket, its seat's only one, sends its seat's push itself (the layer
    would only bring it back to it); a second socket on that seat gets it through the layer,
    and so does the mover's socket then."""
    match_id, seats = await _seat_both(alice, bob, table)
    sockets = {seat: await player_socket(seats[seat], match_id) for seat in (0, 1)}
    hellos = {seat: await socket.receive_type("hello") for seat, socket in sockets.items()}
    published: list[str] = []
    send = publisher.group_send_many
    monkeypatch.setattr(
        publisher,
        "group_send_many",
        lambda messages: (
            published.extend(group for group, m in messages if m["type"] == publisher.PUSH)
            or send(messages)
        ),
    )

    async def move_over(socket: Socket, look: dict) -> dict:
        move = engine.choose_action_from_view(look["hand"])
        await socket.send({"type": "action", "id": "m", **move, "expected_seq": look["seq"]})
        result, pushed = await _answer_and_push(socket)
        assert result["applied"] is True and pushed["seq"] == result["seq"] > look["seq"]
        return pushed["view"]

    to_act = hellos[0]["view"]["hand"]["to_act"]
    mover, other = f"match.{match_id}.seat{to_act}", f"match.{match_id}.seat{1 - to_act}"
    look = await move_over(sockets[to_act], hellos[to_act]["view"])
    _, opponents = await _answer_and_push(sockets[1 - to_act], answered=True)
    assert opponents["seq"] == look["seq"]
    # The opponent's socket is in this process too: with Redis, its push is handed to it
    # here (local_sockets.py), without Redis it goes through the in-memory layer.
    assert (other in published) == (local_sockets.layer_delivers_here() is None)
    assert mover not in published

    theirs = opponents["view"]
    while look["hand"]["to_act"] != to_act:  # the opponent plays until it is our turn again
        theirs = await move_over(sockets[1 - to_act], theirs)
        _, pushed = await _answer_and_push(sockets[to_act], answered=True)
        look = pushed["view"]
    second = await player_socket(seats[to_act], match_id)
    assert (await second.receive_type("hello"))["seq"] == look["seq"]
    published.clear()
    look = await move_over(sockets[to_act], look)
    _, seconds = await _answer_and_push(second, answered=True)
    assert seconds["seq"] == look["seq"]
    assert (mover in published) == (local_sockets.layer_delivers_here() is None)
    for socket in [*sockets.values(), second]:
        await socket.close()


async def test_a_resumed_socket_gets_every_event_it_missed(alice, bob, table, seeds):
    match_id, seats = await _seat_both(alice, bob, table)
    first = await player_socket(seats[0], match_id)
    hello = await first.receive_type("hello")
    seen = hello["seq"]
    await first.close()
    # Three moves while the socket is away (over REST).
    for _ in range(3):
        current = await sync(answered)(view, seats[0], match_id)
        to_act = current["hand"]["to_act"]
        mine = await sync(answered)(view, seats[to_act], match_id)
        move = engine.choose_action_from_view(mine["hand"])
        await sync(answered)(act, seats[to_act], match_id, **move, expected_seq=mine["seq"])
    again = await player_socket(seats[0], match_id, after=seen)
    hello = await again.receive_type("hello")
    catch_up = await again.receive_type("events")
    assert [event["seq"] for event in catch_up["events"]] == list(range(seen + 1, hello["seq"] + 1))
    rest = await sync(answered)(events, seats[0], match_id, after=seen)
    assert catch_up["events"] == rest["events"]
    await again.close()


async def test_a_push_after_a_gap_is_repaired_from_the_database_and_stale_ones_dropped(
    alice, bob, table, seeds
):
    match_id, seats = await _seat_both(alice, bob, table)
    socket = await player_socket(seats[0], match_id)
    hello = await socket.receive_type("hello")
    await socket.receive_type("presence")  # its own arrival
    seq = hello["seq"]
    group = Audience(match_id, 0).group
    layer = get_channel_layer()
    # A stale push (already shown) is dropped.
    await layer.group_send(
        group, {"type": "match.push", "first": seq, "last": seq, "seq": seq, "text": "{}"}
    )
    assert await socket.nothing_more()
    # A move commits but its push is lost (nobody listed as listening: nothing is sent)...
    await sync(presence.cache.delete)(f"rt:listen:{group}")
    to_act = hello["view"]["hand"]["to_act"]
    mine = await sync(answered)(view, seats[to_act], match_id)
    move = engine.choose_action_from_view(mine["hand"])
    await sync(answered)(act, seats[to_act], match_id, **move, expected_seq=mine["seq"])
    assert await socket.nothing_more(), socket.texts[-1]
    # ...and the next push starts after the gap: the socket reads the gap from the
    # database and sends it, in order, instead of the push's own text.
    now = (await sync(answered)(view, seats[0], match_id))["seq"]
    await layer.group_send(
        group,
        {"type": "match.push", "first": now + 1, "last": now + 1, "seq": now + 1, "text": "{}"},
    )
    repaired = await socket.receive_type("events")
    assert [event["seq"] for event in repaired["events"]] == list(range(seq + 1, now + 1))
    gap = await sync(answered)(events, seats[0], match_id, after=seq)
    assert repaired["events"] == gap["events"]
    assert repaired["view"] == await sync(answered)(view, seats[0], match_id)
    await socket.close()


@override_settings(REALTIME_HEARTBEAT_SECONDS=1)
async def test_a_gap_is_filled_from_the_database_at_the_next_heartbeat(alice, bob, table, seeds):
    match_id, seats = await _seat_both(alice, bob, table)
    socket = await player_socket(seats[0], match_id)
    hello = await socket.receive_type("hello")
    # A move commits while nobody listens to seat 0's audience (its push is never sent).
    await sync(presence.cache.delete)(f"rt:listen:{Audience(match_id, 0).group}")
    to_act = hello["view"]["hand"]["to_act"]
    mine = await sync(answered)(view, seats[to_act], match_id)
    move = engine.choose_action_from_view(mine["hand"])
    await sync(answered)(act, seats[to_act], match_id, **move, expected_seq=mine["seq"])
    repaired = await socket.receive_type("events", timeout=5)
    assert repaired["events"][0]["seq"] == hello["seq"] + 1
    assert repaired["view"] == await sync(answered)(view, seats[0], match_id)
    await socket.send({"type": "pong"})
    await socket.close()


async def test_socket_actions_follow_the_rest_rules(alice, bob, table, seeds):
    match_id, seats = await _seat_both(alice, bob, table)
    sockets = {seat: await player_socket(seats[seat], match_id) for seat in (0, 1)}
    hello = {seat: await sockets[seat].receive_type("hello") for seat in (0, 1)}
    to_act = hello[0]["view"]["hand"]["to_act"]
    waiting = 1 - to_act
    seq = hello[0]["seq"]
    # Not your turn: the REST problem, nothing changes.
    await sockets[waiting].send({"type": "action", "id": "x", "kind": "pass", "expected_seq": seq})
    error = await sockets[waiting].receive_type("error")
    assert error["id"] == "x" and error["problem"]["type"].endswith("/not-your-turn")
    # An illegal action lists the legal ones; a malformed one is a validation problem.
    await sockets[to_act].send(
        {"type": "action", "id": "y", "kind": "knock", "card": "AS", "expected_seq": seq}
    )
    error = await sockets[to_act].receive_type("error")
    assert error["problem"]["status"] in (409, 422)
    await sockets[to_act].send({"type": "action", "id": "z", "kind": "dance"})
    error = await sockets[to_act].receive_type("error")
    assert error["problem"]["type"].endswith("/validation-error")
    await sockets[to_act].send({"type": "nonsense", "id": "n"})
    assert (await sockets[to_act].receive_type("error"))["id"] == "n"
    await sockets[to_act].communicator.send_to(text_data="not json")
    assert (await sockets[to_act].receive_type("error"))["problem"]["status"] == 400
    assert (await sync(answered)(view, seats[0], match_id))["seq"] == seq
    # A legal one applies once; its retry at the same expected_seq applies nothing.
    move = engine.choose_action_from_view(hello[to_act]["view"]["hand"])
    await sockets[to_act].send({"type": "action", "id": "a", **move, "expected_seq": seq})
    first = await sockets[to_act].receive_type("action_result")
    await sockets[to_act].send({"type": "action", "id": "b", **move, "expected_seq": seq})
    retry = await sockets[to_act].receive_type("action_result")
    assert first["applied"] is True and retry["applied"] is False
    assert retry["seq"] == first["seq"]

    # The move's events are pushed to the mover's socket too (the answer carries only the
    # view); the push may come before or after either answer. Then a ping is answered with
    # that seq.
    def pushed_up_to(seq: int) -> bool:
        return any(m["type"] == "events" and m["seq"] >= seq for m in sockets[to_act].received)

    while not pushed_up_to(first["seq"]):
        await sockets[to_act].receive_type("events")
    await sockets[to_act].send({"type": "ping"})
    assert (await sockets[to_act].receive_type("pong"))["seq"] >= first["seq"]
    for socket in sockets.values():
        await socket.close()


async def test_watchers_cannot_play_and_see_no_hidden_card(alice, bob, watcher, table, seeds):
    match_id, _ = await _seat_both(alice, bob, table)
    watching = await watcher_socket(watcher, match_id)
    hello = await watching.receive_type("hello")
    assert hello["seat"] is None
    checker = await sync(HiddenInformationChecker)(match_id)
    await sync(_check)(checker, watching.texts[-1], None)
    await watching.send({"type": "action", "id": "w", "kind": "pass", "expected_seq": 0})
    error = await watching.receive_type("error")
    assert error["problem"]["status"] == 403
    await watching.close()


async def test_a_player_cannot_open_another_players_match_nor_another_operators(
    alice, bob, table, make_player_client, seeds
):
    match_id, _ = await _seat_both(alice, bob, table)
    carol = await sync(make_player_client)(display_name="Carol")
    socket = await player_socket(carol, match_id)
    assert await socket.closed_with() == 4404
    assert socket.received[-1]["problem"]["status"] == 404

    def outsider_client():
        return session_client(PlayerFactory(operator=OperatorFactory()))

    outsider = await sync(outsider_client)()
    socket = await watcher_socket(outsider, match_id)
    assert await socket.closed_with() == 4404


async def test_tickets_are_single_use_and_required(alice, bob, table, seeds):
    match_id, seats = await _seat_both(alice, bob, table)
    ticket = await mint_ticket(seats[0])
    first = await open_socket(f"/ws/v1/matches/{match_id}", ticket=ticket)
    await first.receive_type("hello")
    again = await open_socket(f"/ws/v1/matches/{match_id}", ticket=ticket)
    assert await again.closed_with() == 4401
    assert again.received[-1]["problem"]["type"].endswith("/socket-ticket-invalid")
    for bad in (None, "", "gst_unknown", "gps_not-a-ticket"):
        socket = await open_socket(f"/ws/v1/matches/{match_id}", ticket=bad)
        assert await socket.closed_with() == 4401
        # No view, no card: only the problem.
        assert [message["type"] for message in socket.received] == ["error"]
    await first.close()


async def test_an_expired_ticket_is_refused(alice, bob, table, seeds):
    match_id, seats = await _seat_both(alice, bob, table)
    ticket = await mint_ticket(seats[0])
    await sync(
        lambda: SocketTicket.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    )()
    socket = await open_socket(f"/ws/v1/matches/{match_id}", ticket=ticket)
    assert await socket.closed_with() == 4401


@override_settings(REALTIME_MAX_SOCKETS_PER_PLAYER=2)
async def test_a_player_holds_a_bounded_number_of_sockets(alice, bob, table, seeds):
    match_id, seats = await _seat_both(alice, bob, table)
    held = [await player_socket(seats[0], match_id) for _ in range(2)]
    for socket in held:
        await socket.receive_type("hello")
    third = await player_socket(seats[0], match_id)
    assert await third.closed_with() == 4429
    assert third.received[-1]["problem"]["type"].endswith("/too-many-sockets")
    # Closing one frees a place.
    await held[0].close()
    fourth = await player_socket(seats[0], match_id)
    await fourth.receive_type("hello")
    for socket in (held[1], fourth):
        await socket.close()


async def _count_released(player_id, attempts: int = 100) -> bool:
    """Whether the player's socket count drops to none within ``attempts`` x 20 ms."""
    for _ in range(attempts):
        if not await sync(presence.cache.get)(presence.player_key(player_id)):
            return True
        await asyncio.sleep(0.02)
    return False


async def _next_socket_let_in(client, match_id: int) -> None:
    """With the cap at 1, the player's next socket opens: nothing else counts."""
    second = await player_socket(client, match_id)
    await second.receive_type("hello")
    await second.close()


@override_settings(REALTIME_MAX_SOCKETS_PER_PLAYER=1)
async def test_a_closed_socket_stops_counting_while_the_sockets_database_work_waits(
    alice, bob, table, seeds, monkeypatch
):
    """The player's socket count is released off the sockets' database threads: under load
    those were queued for seconds, and a player starting the next game at once was refused
    a socket (too-many-sockets) by the one they had just closed."""
    match_id, seats = await _seat_both(alice, bob, table)
    player_id = seats[0].player.pk
    first = await player_socket(seats[0], match_id)
    await first.receive_type("hello")
    await first.receive_type("presence")  # its own arrival: the connect is over
    queue_moves = asyncio.Event()
    to_database = consumers.database_sync_to_async

    def queued(func):  # every database hop of the consumer waits, as in a saturated pool
        async def run(*args, **kwargs):
            await queue_moves.wait()
            return await to_database(func)(*args, **kwargs)

        return run

    monkeypatch.setattr(consumers, "database_sync_to_async", queued)
    closing = asyncio.ensure_future(first.close())
    assert await _count_released(player_id), (
        "the closed socket still counts while database work is queued"
    )
    queue_moves.set()
    await closing
    monkeypatch.setattr(consumers, "database_sync_to_async", to_database)
    await _next_socket_let_in(seats[0], match_id)


@override_settings(REALTIME_MAX_SOCKETS_PER_PLAYER=1)
async def test_a_closed_socket_stops_counting_while_the_channel_layer_is_slow(
    alice, bob, table, seeds, monkeypatch
):
    """Leaving the socket's group waits for the channel layer (Redis); the count does not
    wait for it, so the next socket of a player who starts the next game at once is let in."""
    match_id, seats = await _seat_both(alice, bob, table)
    player_id = seats[0].player.pk
    first = await player_socket(seats[0], match_id)
    await first.receive_type("hello")
    await first.receive_type("presence")
    layer_free = asyncio.Event()
    discards = []
    real_disconnect = consumers.MatchSocketConsumer.disconnect

    async def disconnect(self, code):
        leave = self.channel_layer.group_discard

        async def slow_discard(group, channel):
            discards.append(group)
            await layer_free.wait()
            await leave(group, channel)

        self.channel_layer.group_discard = slow_discard
        await real_disconnect(self, code)

    monkeypatch.setattr(consumers.MatchSocketConsumer, "disconnect", disconnect)
    # The client goes away; the communicator is not told to wait (it would cancel the
    # consumer after a second, and a cancelled disconnect releases the count anyway).
    await first.communicator.send_input({"type": "websocket.disconnect", "code": 1000})
    try:
        # Up to 5 s on a loaded machine: the count is released before the group is left.
        released = await _count_released(player_id, attempts=250)
        # The count goes first, so the group's leave may start a moment later: wait for it
        # to be under way (held by the slow layer) before saying the count did not wait.
        for _ in range(250):
            if discards:
                break
            await asyncio.sleep(0.02)
        assert discards and released, "the closed socket still counts while its group is left"
    finally:  # a failure must not leave the consumer waiting for the layer forever
        layer_free.set()
    await first.communicator.wait(timeout=5)
    monkeypatch.setattr(consumers.MatchSocketConsumer, "disconnect", real_disconnect)
    await _next_socket_let_in(seats[0], match_id)


@override_settings(REALTIME_MAX_SOCKETS_PER_PLAYER=1)
async def test_a_consumer_ended_by_a_send_to_a_client_gone_releases_its_socket(
    alice, bob, table, seeds, monkeypatch
):
    """uvicorn ends, silently and with no websocket.disconnect, a consumer that sends to a
    client already gone (ClientDisconnected, an OSError): a push racing the close. What
    the socket held is released all the same: its place in the player's count (the cap
    is 1 here, so the next socket is let in), its seat's presence and its heartbeat."""
    match_id, seats = await _seat_both(alice, bob, table)
    player_id = seats[0].player.pk
    first = await player_socket(seats[0], match_id)
    await first.receive_type("hello")
    await first.receive_type("presence")
    released = []
    real_release = consumers.MatchSocketConsumer._release

    async def release(self):
        await real_release(self)
        released.append(self)

    class ClientGone(OSError):
        pass

    async def push_to_a_client_gone(self, message):
        raise ClientGone("the client has gone")

    monkeypatch.setattr(consumers.MatchSocketConsumer, "_release", release)
    monkeypatch.setattr(consumers.MatchSocketConsumer, "match_push", push_to_a_client_gone)
    await sync(publisher.publish)(match_id=match_id)
    with pytest.raises(ClientGone):
        await first.communicator.wait(timeout=5)
    (consumer,) = released
    assert not beats.beats_for(consumer)  # its heartbeats stopped
    assert await _count_released(player_id, attempts=1)
    seated = await sync(presence.connected_seats)(match_id=match_id)
    assert seated[0]["connected"] is False
    monkeypatch.setattr(consumers.MatchSocketConsumer, "_release", real_release)
    await _next_socket_let_in(seats[0], match_id)


async def test_a_socket_whose_release_meets_redis_restarting_ends_with_that_error(
    alice, bob, table, seeds, monkeypatch
):
    """Redis restarting while a socket closes (the chaos run, docs/deploy.md): its counts
    cannot be released at its close, and the consumer's end releases again once Redis is
    back. That second release has no audience left (the first took it) and must not fail
    an assertion about it: the consumer ends with Redis's error, as it met it."""
    match_id, seats = await _seat_both(alice, bob, table)
    first = await player_socket(seats[0], match_id)
    await first.receive_type("hello")
    await first.receive_type("presence")
    real_counts = consumers.presence.on_count_threads
    calls = []

    class RedisLoading(ConnectionError):
        pass

    def counts_once_failing(func):
        calls.append(func)
        if len(calls) == 1:

            async def failing():
                raise RedisLoading("Redis is loading the dataset in memory")

            return failing
        return real_counts(func)

    monkeypatch.setattr(consumers.presence, "on_count_threads", counts_once_failing)
    await first.communicator.send_input({"type": "websocket.disconnect", "code": 1000})
    with pytest.raises(RedisLoading):
        await first.communicator.wait(timeout=5)
    assert len(calls) == 2  # the close's release, then the consumer's end's


async def test_a_socket_answers_while_asgirefs_shared_thread_is_busy(alice, bob, table, seeds):
    """Channels' own dispatch hopped onto asgiref's one shared thread before every message
    (to close database connections a consumer never opens there): one long call on that
    thread held up every socket of the process. A ping is answered meanwhile."""
    match_id, seats = await _seat_both(alice, bob, table)
    socket = await player_socket(seats[0], match_id)
    await socket.receive_type("hello")
    release = threading.Event()
    busy = asyncio.ensure_future(sync_to_async(release.wait, thread_sensitive=True)())
    try:
        await socket.send({"type": "ping"})
        assert (await socket.receive_type("pong", timeout=2))["seq"] >= 0
    finally:
        release.set()
        await busy
    await socket.close()


@override_settings(REALTIME_SEND_TIMEOUT_SECONDS=0.2)
async def test_a_client_that_stops_reading_is_closed(alice, bob, table, seeds, monkeypatch):
    """A send that cannot finish within its deadline (the client's buffers full) closes the
    socket (4500) instead of holding up the consumer."""
    match_id, seats = await _seat_both(alice, bob, table)
    socket = await player_socket(seats[0], match_id)
    await socket.receive_type("hello")

    async def never_sent(self, text_data=None, bytes_data=None, close=False):
        await asyncio.Event().wait()

    monkeypatch.setattr(MatchSocketConsumer, "send", never_sent)
    await socket.send({"type": "ping"})
    assert await socket.closed_with() == 4500


@override_settings(REALTIME_MAX_MESSAGES_PER_10S=5)
async def test_a_client_sending_too_fast_is_closed(alice, bob, table, seeds):
    match_id, seats = await _seat_both(alice, bob, table)
    socket = await player_socket(seats[0], match_id)
    await socket.receive_type("hello")
    for _ in range(6):
        await socket.send({"type": "pong"})
    assert await socket.closed_with() == 4429
    assert socket.received[-1]["problem"]["type"].endswith("/too-many-messages")


@override_settings(REALTIME_HEARTBEAT_SECONDS=1)
async def test_heartbeats_ping_and_a_silent_client_is_closed(alice, bob, table, seeds):
    match_id, seats = await _seat_both(alice, bob, table)
    socket = await player_socket(seats[0], match_id)
    await socket.receive_type("hello")
    await socket.receive_type("ping", timeout=3)
    # Silent for three heartbeats: closed with 4408 and the socket-idle problem.
    assert await socket.closed_with(timeout=6) == 4408
    assert socket.received[-1]["problem"]["type"].endswith("/socket-idle")


@override_settings(REALTIME_HEARTBEAT_SECONDS=1)
async def test_a_beat_reading_while_its_socket_is_released_renews_nothing(
    alice, bob, table, seeds, monkeypatch, caplog
):
    """A beat reads on a thread that the socket's release cannot stop. A 1,024-entry
    tournament run found such beats failing (an assertion on the released audience) and
    logging a traceback per socket closed mid-beat; now the beat sees the release and
    renews nothing: the seat the player left stays left."""
    match_id, seats = await _seat_both(alice, bob, table)
    reading, go_on = threading.Event(), threading.Event()
    real_read = beats.beats_read

    def slow_read(sockets):
        reading.set()
        go_on.wait(5)
        return real_read(sockets)

    monkeypatch.setattr(beats, "beats_read", slow_read)
    socket = await player_socket(seats[0], match_id)
    await socket.receive_type("hello")
    for _ in range(150):  # the first beat, a second in
        if reading.is_set():
            break
        await asyncio.sleep(0.02)
    assert reading.is_set()
    closing = asyncio.ensure_future(socket.close())
    await asyncio.sleep(0.3)  # the release has given up the audience; the beat still reads
    go_on.set()
    await closing
    await asyncio.sleep(0.3)
    assert "heartbeat of" not in caplog.text
    seated = await sync(presence.connected_seats)(match_id=match_id)
    assert seated[0]["connected"] is False


@override_settings(REALTIME_HEARTBEAT_SECONDS=1)
async def test_a_revoked_session_closes_its_sockets(alice, bob, table, seeds):
    match_id, seats = await _seat_both(alice, bob, table)
    socket = await player_socket(seats[0], match_id)
    await socket.receive_type("hello")
    player = seats[0].player

    def revoke():
        PlayerSession.objects.filter(player=player).update(revoked_at=timezone.now())

    await sync(revoke)()
    await socket.send({"type": "pong"})
    assert await socket.closed_with(timeout=4) == 4401
    assert socket.received[-1]["problem"]["type"].endswith("/session-ended")


async def test_the_opponent_sees_a_player_connect_and_leave(alice, bob, table, seeds):
    match_id, seats = await _seat_both(alice, bob, table)
    mine = await player_socket(seats[0], match_id)
    hello = await mine.receive_type("hello")
    assert hello["presence"] == [
        {"seat": 0, "connected": True},
        {"seat": 1, "connected": False},
    ]
    theirs = await player_socket(seats[1], match_id)
    await theirs.receive_type("hello")
    while not (await mine.receive_type("presence"))["presence"][1]["connected"]:
        pass  # the announcement of our own arrival comes first
    await theirs.close()
    left = await mine.receive_type("presence")
    assert left["presence"] == [
        {"seat": 0, "connected": True},
        {"seat": 1, "connected": False},
    ]
    await mine.close()


async def test_a_socket_of_an_unregistered_origin_is_refused(alice, bob, table, seeds):
    match_id, seats = await _seat_both(alice, bob, table)
    socket = await player_socket(seats[0], match_id, origin="https://evil.example")
    assert await socket.closed_with() == 4403
    # The platform's own page (same host) is allowed.
    own = await player_socket(seats[0], match_id, origin="http://testserver")
    await own.receive_type("hello")
    await own.close()


async def test_the_seated_player_learns_when_the_opponent_arrives(alice, bob, table, seeds):
    first = await sync(lambda: alice.post(f"/api/v1/tables/{table.pk}/sit", {}, format="json"))()
    assert first.status_code == 201, first.content
    match_id = first.json()["match_id"]
    socket: Socket = await player_socket(alice, match_id)
    hello = await socket.receive_type("hello")
    assert hello["view"]["match"]["status"] == Match.Status.WAITING
    second = await sync(lambda: bob.post(f"/api/v1/tables/{table.pk}/sit", {}, format="json"))()
    assert second.status_code == 201
    pushed = await socket.receive_type("events")
    assert pushed["view"]["match"]["status"] == Match.Status.RUNNING
    assert pushed["events"][0]["kind"] == "hand_dealt"
    await socket.close()


async def test_the_house_bot_is_always_present(alice, operator, seeds):
    table = await sync(
        lambda: TableFactory(
            room=RoomFactory(operator=operator, practice=True, stake=100, bot_enabled=True)
        )
    )()
    sat = await sync(lambda: alice.post(f"/api/v1/tables/{table.pk}/sit", {}, format="json"))()
    assert sat.status_code == 201, sat.content
    match_id = sat.json()["match_id"]
    socket = await player_socket(alice, match_id)
    hello = await socket.receive_type("hello")
    mine = sat.json()["position"]
    assert hello["presence"][1 - mine] == {"seat": 1 - mine, "connected": True}
    await socket.close()


@pytest.mark.redis
async def test_an_idle_socket_stays_open_on_the_redis_layer(alice, bob, table, seeds):
    """The Redis layer blocks 5 s per read: its connection's read timeout must be longer, or
    a socket with nothing to receive for 5 s dies."""
    match_id, seats = await _seat_both(alice, bob, table)
    socket = await player_socket(seats[0], match_id)
    hello = await socket.receive_type("hello")
    await socket.receive_type("presence")
    await asyncio.sleep(7)
    to_act = hello["view"]["hand"]["to_act"]
    mine = await sync(answered)(view, seats[to_act], match_id)
    move = engine.choose_action_from_view(mine["hand"])
    await sync(answered)(act, seats[to_act], match_id, **move, expected_seq=mine["seq"])
    pushed = await socket.receive_type("events")
    assert pushed["events"][0]["seq"] == hello["seq"] + 1
    await socket.close()

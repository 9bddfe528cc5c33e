"""Group sends from synchronous code (games/realtime/layer_send.py): on the Redis pub/sub
layer they are PUBLISHed from the calling thread, so they must land exactly where the
layer's own ``group_send`` would put them, for a consumer that joined the group through the
layer; any other layer gets them through ``group_send``."""

from __future__ import annotations

import asyncio
import threading

import pytest
from channels.layers import InMemoryChannelLayer, get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.test import override_settings
from redis.asyncio import connection as redis_connection

from games.realtime import layer_send
from games.realtime.layer import PubSubChannelLayer, ShardReceivingWithoutTimer


async def _received_after_sync_send(messages):
    """Join two groups through the layer, send ``messages`` from another thread with
    ``group_send_many``, and return what the channel receives."""
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add("match.1.seat0", channel)
    await layer.group_add("match.1.watch", channel)
    sender = threading.Thread(target=layer_send.group_send_many, args=(messages,))
    sender.start()
    await asyncio.to_thread(sender.join)
    received = [await asyncio.wait_for(layer.receive(channel), 5) for _ in messages]
    await layer.group_discard("match.1.seat0", channel)
    await layer.group_discard("match.1.watch", channel)
    return layer, received


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_sync_send_reaches_a_consumer_of_the_redis_pubsub_layer():
    messages = [
        ("match.1.seat0", {"type": "match.push", "seq": 7, "text": '{"a":1}'}),
        ("match.1.watch", {"type": "match.presence", "presence": [{"seat": 0}]}),
    ]
    layer, received = await _received_after_sync_send(messages)
    assert isinstance(layer, RedisPubSubChannelLayer)
    assert layer_send.pubsub_target(layer) is not None  # published from the thread
    assert received == [message for _, message in messages]


@pytest.mark.asyncio
@override_settings(CHANNEL_LAYERS={"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}})
async def test_any_other_layer_gets_the_messages_through_group_send():
    messages = [("match.1.seat0", {"type": "match.push", "seq": 1, "text": "{}"})]
    layer, received = await _received_after_sync_send(messages)
    assert layer_send.pubsub_target(layer) is None
    assert received == [messages[0][1]]


def test_an_unreachable_redis_fails_the_send_within_the_timeout():
    """A push that cannot leave must not hold the move's request: the publisher logs the
    error and the sockets repair the gap from the database."""
    layer = RedisPubSubChannelLayer(hosts=["redis://127.0.0.1:1/0"], prefix="test")
    with pytest.raises(Exception) as raised:
        layer_send.send_published(layer, [("match.1.seat0", {"type": "match.push"})])
    assert "Connection" in type(raised.value).__name__ or "connect" in str(raised.value).lower()


def test_a_pubsub_layer_is_published_to_even_under_the_id_of_a_freed_layer(monkeypatch):
    """An entry is kept per ``id(layer)``; a new layer may get the id of one that was freed,
    and must not inherit its answer (the other layer's: no Redis target)."""
    layer = RedisPubSubChannelLayer(hosts=["redis://127.0.0.1:1/0"], prefix="test")
    monkeypatch.setitem(layer_send.layer_clients, id(layer), (InMemoryChannelLayer(), None))

    clients, prefix = layer_send.pubsub_target(layer)

    assert prefix == "test" and len(clients) == 1


@pytest.mark.redis
@pytest.mark.asyncio
async def test_the_layer_receives_without_a_timer_per_message(monkeypatch):
    """games/realtime/layer.py: the configured layer is channels_redis's pub/sub layer whose
    receiving loop blocks on the read; it still receives what is published, joins and
    leaves groups while it waits, and arms no read timer for a message."""
    layer = get_channel_layer()
    assert isinstance(layer, PubSubChannelLayer)
    channel = await layer.new_channel()
    await layer.group_add("match.2.seat1", channel)
    loop_layer = layer._get_layer()
    assert all(isinstance(shard, ShardReceivingWithoutTimer) for shard in loop_layer._shards)

    armed = []
    real_timeout = redis_connection.async_timeout
    monkeypatch.setattr(
        redis_connection,
        "async_timeout",
        lambda seconds: armed.append(seconds) or real_timeout(seconds),
    )
    await asyncio.sleep(0.3)  # the loop is blocked on its read, not waking every 0.1 s
    for seq in (1, 2):
        await asyncio.to_thread(
            layer_send.group_send_many, [("match.2.seat1", {"type": "match.push", "seq": seq})]
        )
        assert (await asyncio.wait_for(layer.receive(channel), 5))["seq"] == seq
    # Joined while the loop waits: the subscription's confirmation is read by that loop.
    await layer.group_add("match.2.watch", channel)
    await asyncio.to_thread(
        layer_send.group_send_many, [("match.2.watch", {"type": "match.presence", "seq": 3})]
    )
    assert (await asyncio.wait_for(layer.receive(channel), 5))["seq"] == 3
    assert armed == []
    await layer.group_discard("match.2.seat1", channel)
    await layer.group_discard("match.2.watch", channel)

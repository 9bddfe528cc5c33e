"""Sending to the channel layer's groups from synchronous code: a request's thread, a socket's
database work, a Celery task.

``async_to_sync(layer.group_send)`` from a thread of the web process waits for the process's
event loop, which shares the GIL with every request thread: under load a push queued there
for hundreds of milliseconds before it left (docs/benchmarks.md "Push latency"). In a Celery
worker it built an event loop, a layer and a Redis connection for every push. With the Redis
pub/sub layer (the production default) a group send is one ``PUBLISH`` of the layer's
serialised message on the group's Redis channel, so this module publishes it from the
calling thread itself over a synchronous Redis client: one pipelined round trip for every
audience of a push, no event loop involved. Other layers (the in-memory one of the embedded
default, tests) go through ``group_send`` as before.

The Redis channel name, the shard and the serialiser are the layer's own
(``_get_group_channel_name``'s ``<prefix>__group__<group>``, channels_redis's
``_consistent_hash``, which has no public name, and ``serialize``):
tests/games/realtime/test_layer_send.py checks, against a real Redis, that a consumer
subscribed through the layer receives what is published here, so an upgrade of
channels_redis that changed them fails that test.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import redis
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from channels_redis.utils import _consistent_hash, decode_hosts

# Fail fast: a push that cannot leave is dropped (the sockets repair it from the database)
# rather than holding the move's request.
SOCKET_TIMEOUT_SECONDS = 2.0

_clients_lock = threading.Lock()
_clients: dict[int, tuple[object, tuple[list[redis.Redis], str] | None]] = {}


def group_send_many(messages: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """Send each ``(group, message)``; raises when the layer cannot take them."""
    if not messages:
        return
    layer = get_channel_layer()
    if _pubsub_target(layer) is None:
        async_to_sync(_group_send_all)(layer, messages)
    else:
        _send_published(layer, messages)


def _send_published(layer, messages: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """PUBLISH each message on its group's Redis channel: one pipeline per shard."""
    clients, prefix = _pubsub_target(layer)
    pipelines: dict[int, redis.client.Pipeline] = {}
    for group, message in messages:
        channel = f"{prefix}__group__{group}"
        shard = _consistent_hash(channel, len(clients))
        if shard not in pipelines:
            pipelines[shard] = clients[shard].pipeline(transaction=False)
        pipelines[shard].publish(channel, layer.serialize(message))
    for pipeline in pipelines.values():
        pipeline.execute()


async def _group_send_all(layer, messages: Sequence[tuple[str, dict[str, Any]]]) -> None:
    for group, message in messages:
        await layer.group_send(group, message)


def _pubsub_target(layer) -> tuple[list[redis.Redis], str] | None:
    """The synchronous Redis clients of a pub/sub layer's shards and its prefix, made once
    per layer (redis-py's pools are thread-safe and start afresh in a forked child), or
    None for any other layer, or hosts given in a form other than a URL.

    Each entry holds its layer, so no layer it answers for is freed and its ``id`` given
    to another: a layer of another kind, once freed, used to leave an answer of None under
    an id that a new pub/sub layer could take."""
    key = id(layer)
    cached = _clients.get(key)
    if cached is None or cached[0] is not layer:
        with _clients_lock:
            cached = _clients.get(key)
            if cached is None or cached[0] is not layer:
                cached = _clients[key] = (layer, _build_target(layer))
    return cached[1]


def _build_target(layer) -> tuple[list[redis.Redis], str] | None:
    if not isinstance(layer, RedisPubSubChannelLayer):
        return None
    hosts = decode_hosts(layer._kwargs.get("hosts"))
    if not hosts or any(set(host) != {"address"} for host in hosts):
        return None
    clients = [
        redis.Redis.from_url(
            host["address"],
            socket_timeout=SOCKET_TIMEOUT_SECONDS,
            socket_connect_timeout=SOCKET_TIMEOUT_SECONDS,
        )
        for host in hosts
    ]
    return clients, layer._kwargs.get("prefix", "asgi")

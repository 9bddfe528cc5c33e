"""The channel layer of production (settings ``CHANNEL_LAYERS``): channels_redis's Redis
pub/sub layer, whose receiving loop waits for the next message without a timer.

channels_redis reads each shard's subscriptions with ``get_message(timeout=0.1)``: a timer
armed and cancelled for every message received (``asyncio.timeout`` in redis-py's read),
and a wake-up every tenth of a second with none. Receiving a push that way was an eighth of
a socket move's CPU on the event loop, a quarter of it for that timer (docs/benchmarks.md).
This loop blocks on the read instead, as redis-py's own ``listen`` does. Nothing else
changes: subscribing and unsubscribing from other tasks still write on the same connection
(their confirmations arrive through this loop), a lost connection is reconnected and
resubscribed by redis-py, and cancelling the task (the layer's flush or close) ends it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)

logger = logging.getLogger(__name__)


class ShardReceivingWithoutTimer(RedisSingleShardConnection):
    """One Redis shard's connection, receiving as channels_redis does, without the timer."""

    async def _do_receiving(self) -> None:
        while True:
            try:
                if self._pubsub and self._pubsub.subscribed:
                    message = await self._pubsub.get_message(
                        ignore_subscribe_messages=True, timeout=None
                    )
                    self._receive_message(message)
                else:  # nothing subscribed yet (or any more): nothing to read
                    await asyncio.sleep(0.1)
            except (asyncio.CancelledError, TimeoutError, GeneratorExit):
                raise
            except BaseException:
                logger.exception("Unexpected exception in receive task")
                await asyncio.sleep(1)


class PubSubChannelLayer(RedisPubSubChannelLayer):
    """``RedisPubSubChannelLayer`` (same configuration, same Redis channels and messages)
    whose loops receive without the timer."""

    def _get_layer(self) -> RedisPubSubLoopLayer:
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:  # channels_redis's, which also flushes it when the loop closes
            layer = super()._get_layer()
            shards = layer._shards  # not connected yet: each connects on its first use
            layer._shards = [ShardReceivingWithoutTimer(shard.host, layer) for shard in shards]
        return layer

    def delivered_here(self, messages: Sequence[tuple[str, bytes]]) -> None:
        """On the event loop: each ``(group, serialized message)`` into the channel of
        every socket of this loop in that group, as the receiving loop does with a message
        that came back from Redis (games/realtime/local_sockets.py)."""
        layer = self._get_layer()
        for group, message in messages:
            for channel in layer.groups.get(layer._get_group_channel_name(group), ()):
                queue = layer.channels.get(channel)
                if queue is not None:
                    queue.put_nowait(message)

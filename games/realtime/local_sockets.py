"""The seats whose every socket is in this process: their pushes are handed to those sockets
here, without the channel layer's round trip through Redis (docs/realtime.md "Pushes").

A push is published on its audience's Redis channel and comes back, through Redis pub/sub,
to every process with a socket of that audience, this one included: for a seat whose
sockets are all here, a PUBLISH, a message read and parsed by the layer's receiving loop,
and nothing gained. So each process counts the seat sockets it holds, in step with the
seat's count in presence (games/realtime/presence.py): counted here only once counted
there, and no longer counted here before it is no longer counted there, so this process's
count is never above its share of the seat's count. When a push reads the seat's count in
its round trip and finds it equal to this process's, every socket counted for the seat is
here, and the message goes straight into their channels on the event loop.

A socket of that seat opening elsewhere meanwhile joins its group, then counts itself, then
reads the match for its ``hello``: if the push's read missed its count, the socket counts
(and reads) after that read, so after the move's commit, and its ``hello`` has the move.
A count Redis lost (a restart) can only be lower than the sockets open; a socket that
missed a push that way repairs it at its next heartbeat, as from a lost publish.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from channels.layers import get_channel_layer

from games.realtime.audience import Audience
from games.realtime.layer import PubSubChannelLayer

_lock = threading.Lock()
# An audience (a seat) -> the event loops of its sockets here, each with how many it holds.
_held: dict[Audience, dict[asyncio.AbstractEventLoop, int]] = {}


def seat_counted(audience: Audience, *, loop: asyncio.AbstractEventLoop) -> None:
    """A socket of ``loop`` on ``audience`` was counted in presence (call it after
    ``presence.seat_joined``)."""
    with _lock:
        loops = _held.setdefault(audience, {})
        loops[loop] = loops.get(loop, 0) + 1


def seat_uncounted(audience: Audience, *, loop: asyncio.AbstractEventLoop) -> None:
    """A socket of ``loop`` on ``audience`` is about to be uncounted in presence (call it
    before ``presence.seat_left``)."""
    with _lock:
        loops = _held.get(audience, {})
        count = loops.get(loop, 0) - 1
        if count > 0:
            loops[loop] = count
        else:
            loops.pop(loop, None)
            if not loops:
                _held.pop(audience, None)


def all_here(audience: Audience, *, counted: int) -> asyncio.AbstractEventLoop | None:
    """The event loop holding every socket of ``audience``, when presence counted
    ``counted`` sockets for it and one loop of this process holds all of them."""
    with _lock:
        loops = _held.get(audience)
        if not loops or len(loops) != 1:
            return None
        ((loop, count),) = loops.items()
    return loop if count == counted > 0 else None


def layer_delivers_here() -> PubSubChannelLayer | None:
    """The channel layer, when its messages to this process can be handed over here (the
    Redis pub/sub layer); None for any other (the in-memory layer delivers in process)."""
    layer = get_channel_layer()
    return layer if isinstance(layer, PubSubChannelLayer) else None


def deliver(
    layer: PubSubChannelLayer,
    loop: asyncio.AbstractEventLoop,
    messages: Sequence[tuple[str, dict[str, Any]]],
) -> None:
    """Hand each ``(group, message)`` to the sockets of ``loop`` in that group, from any
    thread, as the layer would once the message came back from Redis."""
    serialized = [(group, layer.serialize(message)) for group, message in messages]
    loop.call_soon_threadsafe(layer.delivered_here, serialized)

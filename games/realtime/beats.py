"""The players' sockets' heartbeats, read a process's batch at a time (docs/realtime.md
"Heartbeats").

Every ``heartbeat_seconds`` a match socket renews its presence and its player's socket
count, checks the session behind its ticket and reads its match's last pushed ``seq``; its
message loop then acts on the answer (``socket_heartbeat``: closes an idle socket or one
whose session ended, repairs a missed push, sends the ``ping``). The player's own socket
(``/ws/v1/me``) beats alike, with no match: its count and its session. Each socket doing its own
reads cost a thread hop, six round trips to Redis, one statement and a message through the
channel layer back to itself per beat: 3.0 ms of the web's CPU and 1.0 ms of PostgreSQL's
per beat, 0.15 CPUs of web per 1,000 idle sockets (docs/benchmarks.md).

Here one task per event loop (per web process) wakes every second, takes the sockets whose
beat is due and reads for all of them at once on one database thread: one Redis round trip,
one statement for their sessions. Each socket gets its answer in its inbox
(``socket_base.WithInbox``), handled by its message loop in turn with the pushes, as the
message through the channel layer was. A beat comes at most a second late; a socket
released while its batch reads renews nothing; a batch that fails (Redis or PostgreSQL
away) is logged and those sockets try again at their next beat, as a failed beat did.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Sequence
from typing import Any, Protocol

from games.realtime import presence
from games.realtime.audience import Audience
from games.realtime.socket_base import database_sync_to_async, sessions_still_valid
from gin_platform.tenancy.principals import PlayerPrincipal

logger = logging.getLogger(__name__)

TICK_SECONDS = 1.0  # how late a beat may come, at most
BATCH_MAX = 500  # sockets read in one batch (one statement, one Redis round trip)
HEARTBEAT = "socket.heartbeat"  # the consumer's handler: ``socket_heartbeat``


class Beating(Protocol):
    """A socket whose heartbeats this module reads."""

    inbox: asyncio.Queue[dict[str, Any]]

    def beat_subject(self) -> tuple[Audience | None, PlayerPrincipal] | None:
        """What its beat renews and checks: its audience (None for the player's own
        socket) and its player; None once released (then its beat renews nothing)."""
        ...


class _Beats:
    """One event loop's sockets and when each beats next."""

    def __init__(self) -> None:
        self.due: dict[Beating, float] = {}
        self.task: asyncio.Task | None = None

    def join(self, socket: Beating) -> None:
        self.due[socket] = time.monotonic() + presence.heartbeat_seconds()
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    def leave(self, socket: Beating) -> None:
        self.due.pop(socket, None)

    async def _run(self) -> None:
        while self.due:
            interval = presence.heartbeat_seconds()
            await asyncio.sleep(min(TICK_SECONDS, interval / 2))
            now = time.monotonic()
            beating = [socket for socket, due in self.due.items() if due <= now]
            for socket in beating:
                self.due[socket] = now + interval
            for start in range(0, len(beating), BATCH_MAX):
                await self._beat(beating[start : start + BATCH_MAX])

    async def _beat(self, sockets: list[Beating]) -> None:
        try:
            answers = await database_sync_to_async(beats_read)(sockets)
        except Exception:  # Redis or PostgreSQL away: each tries again at its next beat
            logger.warning("heartbeats of %d sockets not read", len(sockets), exc_info=True)
            return
        for socket, answer in zip(sockets, answers, strict=True):
            if answer is not None and socket in self.due:
                socket.inbox.put_nowait(answer)


_loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Beats] = weakref.WeakKeyDictionary()


def _beats() -> _Beats:
    loop = asyncio.get_running_loop()
    beats = _loops.get(loop)
    if beats is None:
        beats = _loops[loop] = _Beats()
    return beats


def join(socket: Beating) -> None:
    """``socket`` beats every ``heartbeat_seconds`` from now until it ``leave``s."""
    _beats().join(socket)


def leave(socket: Beating) -> None:
    _beats().leave(socket)


def beats_for(socket: Beating) -> bool:
    """Whether ``socket`` is among its event loop's beating sockets."""
    return socket in _beats().due


def beats_read(sockets: Sequence[Beating]) -> list[dict[str, Any] | None]:
    """Each socket's heartbeat message (its session's validity and its match's last pushed
    ``seq``, None when the cache has lost it: the database decides; None for a socket with
    no match), its presence renewed; None for a socket released meanwhile, which renews
    nothing. On a database thread."""
    held = []
    for index, socket in enumerate(sockets):
        subject = socket.beat_subject()
        if subject is not None:
            held.append((index, *subject))
    answers: list[dict[str, Any] | None] = [None] * len(sockets)
    if not held:
        return answers
    pushed = presence.beats_renewed(
        [(audience, principal.player.pk) for _, audience, principal in held]
    )
    valid = sessions_still_valid([principal for _, _, principal in held])
    for (index, _, principal), seq in zip(held, pushed, strict=True):
        answers[index] = {"type": HEARTBEAT, "valid": principal.session.pk in valid, "pushed": seq}
    return answers

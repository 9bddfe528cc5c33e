"""``/ws/v1/tournaments/{id}/watch`` (docs/realtime.md "A tournament's bracket"): a player of
an operator that may see the tournament, or that operator itself (its API key's ticket),
watches its bracket change.

It joins its audience's group (the tournament and the viewer's operator) before it reads the
snapshot for its ``hello``, then forwards each push that continues exactly from the version
it has shown; a push already shown is dropped, and one past a gap (a push the channel layer
lost: Redis pub/sub delivers at most once) makes it read a fresh ``snapshot`` instead.
Every heartbeat checks the tournament's version too, so even a lost last push arrives within
one beat. Everything it sends goes out from its message loop, in one sequence: the beat's
reads run beside it and hand their answer to it through the socket's own channel.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils.translation import gettext

from games.problems import IdleSocketProblem, SessionEndedProblem
from games.realtime import presence
from games.realtime.publisher import encode
from games.realtime.socket_base import (
    CLOSE_BAD_REQUEST,
    CLOSE_IDLE,
    CLOSE_LIMIT,
    CLOSE_NOT_FOUND,
    CLOSE_ORIGIN,
    CLOSE_SLOW,
    CLOSE_TICKET,
    AdmittedWatcher,
    DispatchedOnTheLoop,
    ReleasedOnExit,
    database_sync_to_async,
    message_parse,
    sent_in_time,
    watcher_still_valid,
)
from gin_platform.http.problems import Problem, ValidationProblem
from gin_platform.tenancy.principals import OperatorPrincipal, PlayerPrincipal
from tournaments import selectors
from tournaments.realtime.audience import listen, watch_group
from tournaments.realtime.render import bracket_snapshot

logger = logging.getLogger(__name__)


class TournamentWatchConsumer(
    AdmittedWatcher, ReleasedOnExit, DispatchedOnTheLoop, AsyncWebsocketConsumer
):
    # What a socket holds, until connect sets it (a consumer may end before); ``watcher``,
    # ``principal`` and ``counted`` are ``AdmittedWatcher``'s.
    group: str | None = None
    heartbeat_task: asyncio.Task | None = None
    tournament_id: int | None = None
    viewer: object = None  # the operator whose view the socket has

    async def connect(self) -> None:
        # Accept first: a browser sees no reason for a refused handshake, so every refusal
        # is a problem message followed by a close code.
        await self.accept()
        self.version = -1  # nothing shown yet: the hello's version comes first
        self.last_heard = time.monotonic()
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        try:
            hello = await self._open((query.get("ticket") or [""])[0])
        except Problem as problem:
            await self._send_json({"type": "error", "id": None, "problem": problem.body()})
            await presence.on_count_threads(self._forget)()
            code = {
                400: CLOSE_BAD_REQUEST,
                401: CLOSE_TICKET,
                403: CLOSE_ORIGIN,
                404: CLOSE_NOT_FOUND,
                429: CLOSE_LIMIT,
            }.get(problem.status, CLOSE_NOT_FOUND)
            await self.close(code=code)
            return
        await self._send_json(hello)
        self.heartbeat_task = asyncio.create_task(self._heartbeats())

    async def _open(self, ticket: str) -> dict[str, Any]:
        watcher = await self.admit_watcher(ticket)
        self.tournament_id = await database_sync_to_async(_watched_tournament)(
            watcher, self.scope["url_route"]["kwargs"]["tournament_id"]
        )
        self.viewer = watcher.operator.pk
        # Join before reading: a push committed meanwhile waits in this socket's channel and
        # is told stale or new by its version.
        self.group = watch_group(tournament_id=self.tournament_id, operator_id=self.viewer)
        await self.channel_layer.group_add(self.group, self.channel_name)
        return await database_sync_to_async(self._hello)()

    def _hello(self) -> dict[str, Any]:
        assert self.group is not None and self.tournament_id is not None  # set by _open
        listen(self.group)
        snapshot = bracket_snapshot(tournament_id=self.tournament_id, viewer=self.viewer)
        assert snapshot is not None  # the tournament was just read
        self.version = snapshot["version"]
        return {"type": "hello", **snapshot, "heartbeat_seconds": presence.heartbeat_seconds()}

    # --- Leaving -------------------------------------------------------------------------
    async def disconnect(self, code: int) -> None:
        await self._release()

    async def _release(self) -> None:
        """Stop the heartbeat, release the player's count, leave the group; once."""
        if self.heartbeat_task is not None:
            self.heartbeat_task.cancel()
            self.heartbeat_task = None
        group, self.group = self.group, None
        try:  # the count first: the layer may be slow to let go of the group
            await presence.on_count_threads(self._forget)()
        finally:
            if group is not None:
                await self.channel_layer.group_discard(group, self.channel_name)

    def _forget(self) -> None:
        if self.counted and self.principal is not None:
            presence.socket_closed(player_id=self.principal.player.pk)
            self.counted = False

    # --- Pushes ----------------------------------------------------------------------------
    async def tournament_push(self, message: dict[str, Any]) -> None:
        version = message["version"]
        if version <= self.version:
            return  # shown already (the hello, or a snapshot, was read after it)
        if version != self.version + 1:
            await self._repair()
            return
        self.version = version
        await self._send_text(message["text"])

    async def _repair(self) -> None:
        snapshot = await database_sync_to_async(self._snapshot)()
        if snapshot is not None and snapshot["version"] > self.version:
            self.version = snapshot["version"]
            await self._send_json({"type": "snapshot", **snapshot})

    def _snapshot(self) -> dict[str, Any] | None:
        assert self.tournament_id is not None  # set by _open before any push
        return bracket_snapshot(tournament_id=self.tournament_id, viewer=self.viewer)

    # --- Heartbeats ------------------------------------------------------------------------
    async def _heartbeats(self) -> None:
        interval = presence.heartbeat_seconds()
        while True:
            await asyncio.sleep(interval)
            group = self.group  # as this beat finds it: the socket may be released meanwhile
            if group is None:
                return  # released: the socket is closing
            try:
                renewed = await database_sync_to_async(self._renew)(group)
                if renewed is None:
                    return  # released while it read
                valid, version = renewed
                await self.channel_layer.send(
                    self.channel_name,
                    {"type": "socket.heartbeat", "valid": valid, "version": version},
                )
            except Exception:  # a full channel or a Redis hiccup: try again at the next beat
                logger.warning("heartbeat of %s not queued", group, exc_info=True)

    def _renew(self, group: str) -> tuple[bool, int | None] | None:
        """Still here: the watcher's session or key still valid, and the tournament's
        version as committed now; None when the socket was released meanwhile."""
        assert self.watcher is not None and self.tournament_id is not None  # set by _open
        if self.group is None:
            return None
        listen(group)
        if self.principal is not None:
            presence.player_sockets_renew(player_id=self.principal.player.pk)
        return (
            watcher_still_valid(self.watcher),
            selectors.bracket_version(tournament_id=self.tournament_id),
        )

    async def socket_heartbeat(self, message: dict[str, Any]) -> None:
        if time.monotonic() - self.last_heard > 3 * presence.heartbeat_seconds():
            await self._send_problem(
                IdleSocketProblem(gettext("Send a message (a pong) at least every heartbeat."))
            )
            await self.close(code=CLOSE_IDLE)
            return
        if not message["valid"]:
            await self._send_problem(
                SessionEndedProblem(gettext("Your session has ended: open the page again."))
            )
            await self.close(code=CLOSE_TICKET)
            return
        version = message["version"]
        if version is not None and version > self.version:  # a push was lost: repair
            await self._repair()
        await self._send_json({"type": "ping", "version": self.version})

    # --- Messages from the client ----------------------------------------------------------
    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None):
        self.last_heard = time.monotonic()
        if self.group is None:
            return  # refused and closing
        content = message_parse(text_data)
        kind = None if content is None else content.get("type")
        if kind == "ping":
            await self._send_json({"type": "pong", "version": self.version})
        elif kind != "pong":
            await self._send_problem(
                ValidationProblem(
                    gettext("This socket only watches: send ping or pong."),
                    errors={"type": ["unknown"]},
                )
            )

    # --- Sending -----------------------------------------------------------------------------
    async def _send_problem(self, problem: Problem) -> None:
        await self._send_json({"type": "error", "id": None, "problem": problem.body()})

    async def _send_json(self, message: dict[str, Any]) -> None:
        await self._send_text(encode(message))

    async def _send_text(self, text: str) -> None:
        sending = self.send(text_data=text)
        if not await sent_in_time(sending, seconds=settings.REALTIME_SEND_TIMEOUT_SECONDS):
            logger.info("socket of %s too slow: closing", self.group)
            await self.close(code=CLOSE_SLOW)


# --- Synchronous parts (run in the database thread) ----------------------------------------
def _watched_tournament(watcher: PlayerPrincipal | OperatorPrincipal, tournament_id: object) -> int:
    """The tournament's id, if the watcher's operator may see it (its own, or the network's
    while a member); anything else does not exist for them (404)."""
    return selectors.tournament_get(operator=watcher.operator, tournament_id=tournament_id).pk

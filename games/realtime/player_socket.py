"""The player's own socket, ``/ws/v1/me`` (docs/realtime.md "The player's socket"): what
concerns the player outside any one match. Today: their waiting-list entries
(docs/network.md "Lobby and waiting list"), so that a client waiting in the lobby learns the
moment it is seated (with the match to open) without polling.

It authenticates like the match sockets (a ticket, the registered origins, the per-player
socket cap), joins the player's group (``publisher.player_group``), says ``hello`` with the
player's waiting entries, then forwards each ``waiting_list`` push and beats like the match
sockets (``ping`` every ``heartbeat_seconds``; it closes once the session has ended or the
client fell silent for three beats).
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils.translation import gettext

from games.api import presenters
from games.problems import IdleSocketProblem, SessionEndedProblem
from games.realtime import beats, presence, publisher
from games.realtime.socket_base import (
    CLOSE_IDLE,
    CLOSE_LIMIT,
    CLOSE_ORIGIN,
    CLOSE_SLOW,
    CLOSE_TICKET,
    AdmittedPlayer,
    DispatchedOnTheLoop,
    ReleasedOnExit,
    WithInbox,
    database_sync_to_async,
    message_parse,
    sent_in_time,
)
from games.selectors import player_waiting_list
from gin_platform.http.problems import Problem
from gin_platform.tenancy.principals import PlayerPrincipal


class PlayerSocketConsumer(
    AdmittedPlayer, ReleasedOnExit, WithInbox, DispatchedOnTheLoop, AsyncWebsocketConsumer
):
    # What a socket holds, until connect sets it (a consumer may end before); ``principal``
    # and ``counted`` are ``AdmittedPlayer``'s.
    group: str | None = None
    beating = False  # in its process's heartbeats (games/realtime/beats.py)

    async def connect(self) -> None:
        await self.accept()
        self.principal: PlayerPrincipal | None = None
        self.group: str | None = None
        self.counted = False
        self.last_heard = time.monotonic()
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        try:
            hello = await self._open((query.get("ticket") or [""])[0])
        except Problem as problem:
            await self._send_json({"type": "error", "id": None, "problem": problem.body()})
            await presence.on_count_threads(self._forget)()
            code = {401: CLOSE_TICKET, 403: CLOSE_ORIGIN, 429: CLOSE_LIMIT}.get(
                problem.status, CLOSE_TICKET
            )
            await self.close(code=code)
            return
        await self._send_json(hello)
        beats.join(self)
        self.beating = True

    async def _open(self, ticket: str) -> dict[str, Any]:
        principal = await self.admit(ticket)
        # Join before reading, so no change committed meanwhile is missed.
        self.group = publisher.player_group(principal.player.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        return await database_sync_to_async(self._hello)()

    def _hello(self) -> dict[str, Any]:
        assert self.principal is not None  # set by admit before the hello
        player = self.principal.player
        return {
            "type": "hello",
            "waiting_list": [
                presenters.waiting_list_entry(entry, player=player)
                for entry in player_waiting_list(player=player, waiting_only=True)
            ],
            "heartbeat_seconds": presence.heartbeat_seconds(),
        }

    async def disconnect(self, code: int) -> None:
        await self._release()

    async def _release(self) -> None:
        """Stop the heartbeat, release the count, leave the group; once (ReleasedOnExit)."""
        if self.beating:
            beats.leave(self)
            self.beating = False
        group, self.group = self.group, None
        try:  # the count first, as a match socket does: the layer may be slow to let go
            await presence.on_count_threads(self._forget)()
        finally:
            if group is not None:
                await self.channel_layer.group_discard(group, self.channel_name)

    def _forget(self) -> None:
        if self.counted and self.principal is not None:
            presence.socket_closed(player_id=self.principal.player.pk)
            self.counted = False

    async def player_push(self, message: dict[str, Any]) -> None:
        await self._send_text(message["text"])

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None):
        self.last_heard = time.monotonic()
        content = message_parse(text_data) or {}
        if content.get("type") == "ping":
            await self._send_json({"type": "pong"})

    # --- Heartbeats (read with the process's others: games/realtime/beats.py) -----------
    def beat_subject(self) -> tuple[None, PlayerPrincipal] | None:
        if self.group is None or self.principal is None:
            return None  # released: its beat renews nothing
        return None, self.principal

    async def socket_heartbeat(self, message: dict[str, Any]) -> None:
        if time.monotonic() - self.last_heard > 3 * presence.heartbeat_seconds():
            await self._send_json(
                {"type": "error", "id": None, "problem": IdleSocketProblem().body()}
            )
            await self.close(code=CLOSE_IDLE)
            return
        if not message["valid"]:
            problem = SessionEndedProblem(gettext("Your session has ended: open the lobby again."))
            await self._send_json({"type": "error", "id": None, "problem": problem.body()})
            await self.close(code=CLOSE_TICKET)
            return
        await self._send_json({"type": "ping"})

    async def _send_json(self, message: dict[str, Any]) -> None:
        await self._send_text(publisher.encode(message))

    async def _send_text(self, text: str) -> None:
        sending = self.send(text_data=text)
        if not await sent_in_time(sending, seconds=settings.REALTIME_SEND_TIMEOUT_SECONDS):
            await self.close(code=CLOSE_SLOW)

"""The sockets under ``/ws/v1/`` (docs/realtime.md): a player's match, a watcher's table.

One consumer per socket. It joins its audience's group before it reads the state for its
``hello``, so no push can fall between the two; from then on it keeps ``last_seq``, the
feed's sequence number it has shown, and forwards a push only when it continues exactly
from there. A push that is stale is dropped; one that leaves a gap (a message the channel
layer lost: Redis pub/sub delivers at most once) makes the consumer read the missing events
from the database instead. So within one socket the feed never goes
backwards and never skips, whatever order the pushes arrive in.

Every send to the client has a deadline: a client that stops reading is closed (4500)
instead of holding anybody else up.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from functools import cached_property, partial
from typing import Any
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils.translation import gettext
from rest_framework import serializers

from games import selectors, services
from games.api.serializers import ActionInput, ResignInput
from games.problems import (
    IdleSocketProblem,
    SessionEndedProblem,
    TooManyMessagesProblem,
)
from games.realtime import beats, local_sockets, presence, publisher
from games.realtime.audience import Audience
from games.realtime.render import audience_events, audience_view
from games.realtime.socket_base import (
    CLOSE_BAD_REQUEST,
    CLOSE_IDLE,
    CLOSE_LIMIT,
    CLOSE_NOT_FOUND,
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
from gin_platform.api.inputs import refuse_unknown_fields, validated
from gin_platform.http.problems import (
    PermissionDeniedProblem,
    Problem,
    ValidationProblem,
)
from gin_platform.i18n.formatting import number_text
from gin_platform.tenancy.principals import PlayerPrincipal

logger = logging.getLogger(__name__)


# Keys every client message may carry; the rest is the message's body, strict as in REST.
ENVELOPE = frozenset({"type", "id"})


class MatchSocketConsumer(
    AdmittedPlayer, ReleasedOnExit, WithInbox, DispatchedOnTheLoop, AsyncWebsocketConsumer
):
    """A player's socket on their match (``watching = False``) or a watcher's (``True``)."""

    watching = False
    # What a socket holds, until connect sets it (a consumer may end before); ``principal``
    # and ``counted`` (in the player's socket count) are ``AdmittedPlayer``'s.
    audience: Audience | None = None
    beating = False  # in its process's heartbeats (games/realtime/beats.py)
    joined = False  # this socket is in its seat's presence count

    # --- Connecting --------------------------------------------------------------------
    async def connect(self) -> None:
        # Accept first: a browser sees no reason for a refused handshake, so every refusal
        # is a problem message followed by a close code.
        await self.accept()
        self.loop = asyncio.get_running_loop()  # its pushes may be handed to it here
        self.last_seq = 0
        self.last_heard = time.monotonic()
        self.recent: deque[float] = deque()  # when its last messages came, oldest first
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        try:
            hello, catch_up = await self._open(query)
        except Problem as problem:
            await self._refuse(problem)
            return
        await self._send_text(publisher.encode(hello))
        if catch_up is not None:
            await self._send_text(publisher.encode(catch_up))
        beats.join(self)
        self.beating = True
        assert self.audience is not None  # _open set it
        if self.audience.seat is not None:
            await database_sync_to_async(publisher.presence_changed)(
                match_id=self.audience.match_id
            )

    async def _open(self, query: dict[str, list[str]]) -> tuple[dict, dict | None]:
        await self.admit((query.get("ticket") or [""])[0])
        match_id = self.scope["url_route"]["kwargs"]["match_id"]
        seat = await database_sync_to_async(_viewer_seat)(
            self.principal, match_id, watching=self.watching
        )
        self.audience = Audience(match_id=seat[0], seat=seat[1])
        # Join the group before reading the state: a push committed meanwhile waits in
        # this socket's channel and is recognised as stale or new by its numbers.
        await self.channel_layer.group_add(self.audience.group, self.channel_name)
        return await database_sync_to_async(self._hello)(_after(query))

    def _hello(self, after: int | None) -> tuple[dict, dict | None]:
        assert self.audience is not None
        presence.listen(self.audience)
        if self.audience.seat is not None:
            presence.seat_joined(match_id=self.audience.match_id, seat=self.audience.seat)
            self.joined = True
            local_sockets.seat_counted(self.audience, loop=self.loop)
        match = selectors.match_for_push(match_id=self.audience.match_id)
        assert match is not None  # the viewer's seat was just read: its match exists
        view = audience_view(match=match, audience=self.audience)
        # The view's ``seq``, not the row's first read: building the view may read the match
        # again (a move committed meanwhile), and everything this socket says is of one seq.
        seq = match.seq if view is None else view["seq"]  # None: the seat was left since
        hello = {
            "type": "hello",
            "match": str(match.pk),
            "seat": self.audience.seat,
            "seq": seq,
            "view": view,
            "presence": presence.connected_seats(
                match_id=match.pk, bot_seats=match.house_bot_seats, seat_count=match.seat_count
            ),
            "heartbeat_seconds": presence.heartbeat_seconds(),
        }
        self.last_seq = seq
        catch_up = None
        if view is not None and after is not None and after < seq:
            catch_up = self._feed_after(match, after, view)
        return hello, catch_up

    def _feed_after(self, match, after: int, view: dict) -> dict:
        """The events after ``after`` up to the view's ``seq``, and the view: a resume, or
        the repair of a gap. A move committed since the view was read is not in it: its
        push, already on its way to this socket, continues exactly from here."""
        assert self.audience is not None  # set by connect before any feed
        seq = view["seq"]
        rows = selectors.match_event_rows_through(match=match, after=after, through=seq)
        self.last_seq = max(self.last_seq, seq)
        return {
            "type": "events",
            "seq": seq,
            "events": audience_events(rows, audience=self.audience),
            "view": view,
        }

    async def _refuse(self, problem: Problem) -> None:
        code = {
            400: CLOSE_BAD_REQUEST,
            401: CLOSE_TICKET,
            403: CLOSE_ORIGIN,
            404: CLOSE_NOT_FOUND,
            429: CLOSE_LIMIT,
        }.get(problem.status, CLOSE_NOT_FOUND)
        await self._send_problem(problem, message_id=None)
        await presence.on_count_threads(partial(self._forget, self.audience))()
        await self.close(code=code)

    # --- Leaving -----------------------------------------------------------------------
    async def disconnect(self, code: int) -> None:
        await self._release()

    async def _release(self) -> None:
        """Stop the heartbeat, release the counts, leave the group and tell the table; once
        (the client's close and the consumer's end both come here)."""
        if self.beating:
            beats.leave(self)
            self.beating = False
        audience, self.audience = self.audience, None
        # Only the release that took the audience tells the table: a second one (the
        # consumer's end after a close whose release failed, Redis restarting) has none.
        seated = self.joined and audience is not None
        # The counts first: a player who starts the next game at once must not be refused a
        # socket by this one while the channel layer is slow to let go of its group.
        try:
            await presence.on_count_threads(partial(self._forget, audience))()
        finally:  # the group is left even when the counts cannot be reached
            if audience is not None:
                await self.channel_layer.group_discard(audience.group, self.channel_name)
        if seated:
            assert audience is not None  # for the type checker: ``seated`` says so
            await database_sync_to_async(publisher.presence_changed)(match_id=audience.match_id)

    def _forget(self, audience: Audience | None) -> None:
        if self.counted and self.principal is not None:
            presence.socket_closed(player_id=self.principal.player.pk)
            self.counted = False
        if self.joined and audience is not None:
            assert audience.seat is not None  # joined only for a seat
            local_sockets.seat_uncounted(audience, loop=self.loop)  # before presence: see there
            presence.seat_left(match_id=audience.match_id, seat=audience.seat)
            self.joined = False

    # --- Pushes from the channel layer --------------------------------------------------
    async def match_push(self, message: dict[str, Any]) -> None:
        first, last, seq = message["first"], message["last"], message["seq"]
        if first:  # feed events
            if last <= self.last_seq:
                return  # already shown
            if first != self.last_seq + 1:
                await self._repair()
                return
        elif seq < self.last_seq:
            return  # a view older than what the client has
        elif seq > self.last_seq:  # a view past events this socket has not shown
            await self._repair()
            return
        self.last_seq = max(self.last_seq, seq)
        await self._send_text(message["text"])

    async def match_presence(self, message: dict[str, Any]) -> None:
        await self._send_json(
            {"type": "presence", "seq": self.last_seq, "presence": message["presence"]}
        )

    async def _repair(self) -> None:
        message = await database_sync_to_async(self._repair_read)()
        if message is not None:
            await self._send_text(publisher.encode(message))

    def _repair_read(self) -> dict | None:
        assert self.audience is not None  # set by connect before anything reads it
        match = selectors.match_for_push(match_id=self.audience.match_id)
        if match is None or match.seq <= self.last_seq:
            return None
        view = audience_view(match=match, audience=self.audience)
        if view is None:  # the seat was left since: nothing more to show it
            return None
        return self._feed_after(match, self.last_seq, view)

    # --- Heartbeats (read with the process's others: games/realtime/beats.py) -----------
    def beat_subject(self) -> tuple[Audience | None, PlayerPrincipal] | None:
        if self.audience is None or self.principal is None:
            return None  # released: its beat renews nothing
        return self.audience, self.principal

    async def socket_heartbeat(self, message: dict[str, Any]) -> None:
        if time.monotonic() - self.last_heard > 3 * presence.heartbeat_seconds():
            await self._send_problem(
                IdleSocketProblem(gettext("Send a message (a pong) at least every heartbeat.")),
                message_id=None,
            )
            await self.close(code=CLOSE_IDLE)
            return
        if not message["valid"]:
            await self._send_problem(
                SessionEndedProblem(gettext("Your session has ended: open the game again.")),
                message_id=None,
            )
            await self.close(code=CLOSE_TICKET)
            return
        pushed = message["pushed"]
        if pushed is None or pushed > self.last_seq:  # a push may have been lost: repair
            await self._repair()
        await self._send_json({"type": "ping", "seq": self.last_seq})

    # --- Messages from the client --------------------------------------------------------
    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None):
        self.last_heard = time.monotonic()
        if self.audience is None:
            return  # refused and closing
        if not self._within_rate():
            await self._send_problem(
                TooManyMessagesProblem(
                    gettext("Slow down: at most %(count)s messages in ten seconds.")
                    % {"count": number_text(settings.REALTIME_MAX_MESSAGES_PER_10S)}
                ),
                message_id=None,
            )
            await self.close(code=CLOSE_LIMIT)
            return
        content = message_parse(text_data)
        if content is None:
            await self._send_problem(
                ValidationProblem(gettext("Each message is one JSON object with a type.")),
                message_id=None,
            )
            return
        kind, message_id = content.get("type"), _message_id(content)
        if kind in ("ping", "pong"):
            try:
                refuse_unknown_fields(content, accepted=ENVELOPE)
            except Problem as problem:
                await self._send_problem(problem, message_id=message_id)
                return
            if kind == "ping":
                await self._send_json({"type": "pong", "seq": self.last_seq})
            return
        if kind in ("action", "resign"):
            await self._play(kind, content, message_id)
            return
        await self._send_problem(
            ValidationProblem(
                gettext("Unknown message type: %(type)s.") % {"type": repr(kind)},
                errors={"type": ["unknown"]},
            ),
            message_id=message_id,
        )

    def _within_rate(self) -> bool:
        now = time.monotonic()
        recent = self.recent
        while recent and now - recent[0] >= 10:
            recent.popleft()
        recent.append(now)
        return len(recent) <= settings.REALTIME_MAX_MESSAGES_PER_10S

    async def _play(self, kind: str, content: dict, message_id: str | None) -> None:
        assert self.audience is not None  # set by connect before anything reads it
        if self.audience.seat is None:
            await self._send_problem(
                PermissionDeniedProblem(
                    gettext("You are watching this game: you cannot play in it.")
                ),
                message_id=message_id,
            )
            return
        try:
            result = await self._apply_in_thread(kind, content)
        except Problem as problem:
            await self._send_problem(problem, message_id=message_id)
            return
        for own in result.pop("own_pushes", ()):  # this seat's, kept for its only socket
            await self.match_push(own)
        await self._send_json(
            {"type": "action_result", "id": message_id, **result, "seq": result["seq"]}
        )

    @cached_property
    def _apply_in_thread(self):
        """``_apply`` on the database threads, wrapped once per socket: wrapping it again
        for every move was a measurable part of the move's cost on the event loop."""
        return database_sync_to_async(self._apply)

    def _apply(self, kind: str, content: dict) -> dict[str, Any]:
        """The REST action or resign, with the same input rules and the same service."""
        principal = self.principal
        assert principal is not None  # set by admit before any message
        assert self.audience is not None  # set by connect before anything reads it
        if kind == "action":
            data = _body_validated(ActionInput, content)
            with publisher.moved_over_socket(self.audience):
                result = services.player_action_apply(
                    player=principal.player,
                    match_id=self.audience.match_id,
                    action={"kind": data["kind"], "card": data["card"]},
                    expected_seq=data["expected_seq"],
                    actor=principal.actor,
                )
            own = publisher.kept_for_mover()
            return {"applied": result.applied, "seq": result.match.seq, "own_pushes": own}
        data = _body_validated(ResignInput, content)
        seat = selectors.player_match_seat(player=principal.player, match_id=self.audience.match_id)
        match = services.match_resign(
            seat=seat, actor=principal.actor, expected_seq=data["expected_seq"]
        )
        return {"applied": True, "seq": match.seq}

    # --- Sending ---------------------------------------------------------------------------
    async def _send_json(self, message: dict[str, Any]) -> None:
        await self._send_text(publisher.encode(message))

    async def _send_problem(self, problem: Problem, *, message_id: str | None) -> None:
        await self._send_json({"type": "error", "id": message_id, "problem": problem.body()})

    async def _send_text(self, text: str) -> None:
        sending = self.send(text_data=text)
        if not await sent_in_time(sending, seconds=settings.REALTIME_SEND_TIMEOUT_SECONDS):
            logger.info("socket of %s too slow: closing", self.audience)
            await self.close(code=CLOSE_SLOW)


class WatchSocketConsumer(MatchSocketConsumer):
    watching = True


# --- Synchronous parts (run in the database thread) ----------------------------------------
def _viewer_seat(
    principal: PlayerPrincipal, match_id: str, *, watching: bool
) -> tuple[int, int | None]:
    """(match id, seat) the socket shows: the player's own seat, or None for a watcher of a
    match of the player's operator (R11). Anything else does not exist for them."""
    if watching:
        match = selectors.watch_match_get(operator=principal.operator, match_id=match_id)
        return match.pk, None
    seat = selectors.player_match_seat(player=principal.player, match_id=match_id)
    return seat.match_id, seat.position


def _body_validated(serializer_class, content: dict) -> dict[str, Any]:
    """The message's body (all but its envelope, ``type`` and ``id``: what the REST body
    would be) through the REST input's validator; its refusal as the socket's problem."""
    body = {key: value for key, value in content.items() if key not in ENVELOPE}
    try:
        return validated(serializer_class, body)
    except serializers.ValidationError as exc:
        raise ValidationProblem(
            gettext("One or more fields are invalid"), errors=exc.detail
        ) from None


def _after(query: dict[str, list[str]]) -> int | None:
    raw = (query.get("after") or [""])[0]
    if not raw:
        return None
    if not raw.isascii() or not raw.isdigit() or len(raw) > 18:
        raise ValidationProblem(
            gettext("after is the last seq you saw."), errors={"after": ["invalid"]}
        )
    return int(raw)


def _message_id(content: dict) -> str | None:
    value = content.get("id")
    return value[:64] if isinstance(value, str) else None

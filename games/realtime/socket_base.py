"""What every socket under ``/ws/v1/`` shares (docs/realtime.md): the close codes, the
mixins that let a player's socket in (ticket, origin, the per-player cap) or a watching
socket (a player's, or an operator's with its API key's ticket), release its
holdings however it ends and dispatch its messages on the event loop, the session check of
every heartbeat, and the parsing of what the client sends.

``consumers`` (a player's match, a watcher's table) and ``player_socket`` (the player's own
socket) are built from these, and so is another app's socket (tournaments' bracket).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import types
from collections.abc import Awaitable, Callable, Coroutine, Generator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async as _database_sync_to_async
from channels.exceptions import StopConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext

from games.problems import TooManySocketsProblem
from games.realtime import presence
from gin_platform.http.problems import OriginNotAllowedProblem
from gin_platform.i18n.formatting import number_text
from gin_platform.i18n.languages import request_language
from gin_platform.models import Operator, OperatorApiKey, PlayerSession
from gin_platform.tenancy.principals import OperatorPrincipal, PlayerPrincipal
from gin_platform.tenancy.selectors import api_key_in_force, origin_allowed
from gin_platform.tenancy.services import socket_ticket_redeem, watch_socket_ticket_redeem

CLOSE_BAD_REQUEST, CLOSE_TICKET, CLOSE_ORIGIN, CLOSE_NOT_FOUND = 4400, 4401, 4403, 4404
CLOSE_IDLE, CLOSE_LIMIT, CLOSE_SLOW = 4408, 4429, 4500
MAX_MESSAGE_CHARS = 4096  # a longer client message is not read


def database_sync_to_async(func):
    """A socket's database work on the thread pool: by default every consumer of a process
    would queue on one shared thread (no request context sets a thread per connection).
    SQLite (the embedded default) takes one writer at a time anyway: one thread there."""
    one_thread = settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")
    return _database_sync_to_async(func, thread_sensitive=one_thread)


class ReleasedOnExit:
    """Mixed into a socket consumer: what its socket holds (the heartbeat task, the counts,
    the group) is released however the consumer ends. The client's close reaches
    ``disconnect``, but an exception ends a consumer without it, and the ASGI server raises
    one by design: uvicorn silently ends an application that sends to a client already
    gone (``ClientDisconnected``: a push or a ping racing the close). Such a socket kept its
    heartbeat task, which renewed its place in the player's socket count every beat, so a
    player who had closed five of them this way was refused every new socket."""

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)  # type: ignore[misc]  # a mixin: the consumer after it in the MRO has __call__
        finally:
            await self._release()

    async def _release(self) -> None:  # pragma: no cover - each consumer has its own
        raise TypeError(f"{type(self).__name__} must say what its socket releases")


class DispatchedOnTheLoop:
    """Mixed into a socket consumer: each message goes straight to its handler.

    Channels' own ``dispatch`` first runs Django's ``close_old_connections`` through
    ``sync_to_async``, on asgiref's one shared thread: a thread hop before every message
    (each push, each client message), every socket of the process queued on that one thread,
    about a tenth of the web's CPU when games are played over sockets (docs/benchmarks.md).
    It closes nothing of ours: a consumer never opens a connection on the event loop or on
    that thread, and every database call of ours goes through ``database_sync_to_async``,
    which closes the old connections of the thread it runs in, before and after the call."""

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        # Whatever the handler says (a problem's title and detail, built here or on the
        # database thread, which inherits the context) speaks the socket's language. Set in
        # this socket's own task, whose context every message of the socket is dispatched
        # in, so it stays for the next: an ``override`` per message (two activations) was
        # 2 % of a socket move's CPU.
        language = self.speaks()  # type: ignore[attr-defined]  # AdmittedPlayer's, mixed in beside
        if translation.get_language() != language:
            translation.activate(language)
        await handler(message)


class WithInbox:
    """Mixed into a socket consumer: messages from its own process (its heartbeat's answer,
    games/realtime/beats.py) arrive in ``inbox`` and are dispatched in turn with the
    client's and the channel layer's, one at a time as Channels dispatches those two, so
    every send of the socket stays in one sequence. Sent to itself through the channel
    layer instead, each was a publish to Redis and its delivery back."""

    inbox: asyncio.Queue[Any]

    async def __call__(self, scope, receive, send) -> None:
        # Channels' AsyncConsumer.__call__ (an asynchronous consumer's), the inbox added and
        # every source drained into it (``dispatched_in_turn``).
        consumer: Any = self
        self.inbox = asyncio.Queue()
        consumer.scope = scope
        consumer.channel_layer = get_channel_layer(consumer.channel_layer_alias)
        sources = [receive]
        if consumer.channel_layer is not None:
            consumer.channel_name = await consumer.channel_layer.new_channel()
            consumer.channel_receive = partial(
                consumer.channel_layer.receive, consumer.channel_name
            )
            sources.append(consumer.channel_receive)
        consumer.base_send = send
        with contextlib.suppress(StopConsumer):  # the consumer's own way to end
            await dispatched_in_turn(self.inbox, sources, consumer.dispatch)


@dataclass(frozen=True)
class _SourceFailed:
    error: BaseException


async def dispatched_in_turn(
    inbox: asyncio.Queue[Any],
    sources: Sequence[Callable[[], Awaitable[Any]]],
    dispatch: Callable[[Any], Awaitable[None]],
) -> None:
    """Channels' ``await_many_dispatch`` through one queue: a task per source moves each of
    its messages into ``inbox`` as it comes, and they are dispatched one at a time, in the
    order they came, until ``dispatch`` raises. A source that fails ends it with that error,
    as it ends Channels' own. ``await_many_dispatch`` waited on every source anew for each
    message (``asyncio.wait``: a waiter and a callback on each source, each wrapped again),
    5 % of a socket move's CPU on the event loop (docs/benchmarks.md)."""

    async def drained(source: Callable[[], Awaitable[Any]]) -> None:
        try:
            while True:
                inbox.put_nowait(await source())
        except asyncio.CancelledError:
            raise
        except BaseException as error:
            inbox.put_nowait(_SourceFailed(error))

    loop = asyncio.get_running_loop()
    tasks = [loop.create_task(drained(source)) for source in sources]
    try:
        while True:
            message = await inbox.get()
            if isinstance(message, _SourceFailed):
                raise message.error
            await dispatch(message)
    finally:
        for task in tasks:  # as Channels does: each source's own clean-up runs to its end
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


class AdmittedPlayer:
    """Mixed into a socket consumer: ``admit`` lets a player's socket in, as every socket
    is: a ticket redeemed once, an origin the operator registered, and at most
    ``REALTIME_MAX_SOCKETS_PER_PLAYER`` sockets of the player at once. It sets
    ``principal`` and ``counted`` (this socket is in the player's count), which the
    consumer's release gives back."""

    scope: dict[str, Any]  # the consumer's (Channels sets it)
    principal: PlayerPrincipal | None = None
    counted = False
    language: str | None = None  # the player's, once admitted

    def speaks(self) -> str:
        """The language of this socket's messages: the admitted player's (their session's
        launch language, their stored locale, ...), before that the connection's
        Accept-Language (gin_platform/i18n/languages.py)."""
        if self.language is not None:
            return self.language
        return request_language(accept_language=scope_header(self.scope, b"accept-language"))

    async def admit(self, ticket: str) -> PlayerPrincipal:
        principal = await database_sync_to_async(socket_ticket_redeem)(ticket=ticket)
        await self._player_admit(principal)
        return principal

    async def _player_admit(self, principal: PlayerPrincipal) -> None:
        self.principal = principal
        self.language = request_language(
            session=principal.session,
            player=principal.player,
            accept_language=scope_header(self.scope, b"accept-language"),
        )
        await self._origin_check(principal.operator)
        count = await presence.on_count_threads(presence.socket_opened)(
            player_id=principal.player.pk
        )
        self.counted = True
        if count > settings.REALTIME_MAX_SOCKETS_PER_PLAYER:
            raise TooManySocketsProblem(
                gettext("You have too many game windows open: at most %(count)s.")
                % {"count": number_text(settings.REALTIME_MAX_SOCKETS_PER_PLAYER)}
            )

    async def _origin_check(self, operator: Operator) -> None:
        origin = scope_header(self.scope, b"origin")
        host = scope_header(self.scope, b"host") or ""
        allowed = await database_sync_to_async(origin_allowed)(
            operator=operator, origin=origin, host=host
        )
        if not allowed:
            raise OriginNotAllowedProblem(
                gettext("This page's address is not registered by your casino: %(origin)s.")
                % {"origin": origin}
            )


class AdmittedWatcher(AdmittedPlayer):
    """Mixed into a socket that only watches (a tournament's bracket): ``admit_watcher``
    lets in a player's ticket as ``AdmittedPlayer.admit`` does, or an operator's (minted
    with its API key): an origin the operator registered, and no player's socket count. It
    sets ``watcher``, the one or the other."""

    watcher: PlayerPrincipal | OperatorPrincipal | None = None

    async def admit_watcher(self, ticket: str) -> PlayerPrincipal | OperatorPrincipal:
        principal = await database_sync_to_async(watch_socket_ticket_redeem)(ticket=ticket)
        self.watcher = principal
        if isinstance(principal, PlayerPrincipal):
            await self._player_admit(principal)
            return principal
        self.language = request_language(
            accept_language=scope_header(self.scope, b"accept-language")
        )
        await self._origin_check(principal.operator)
        return principal


# --- Synchronous parts (run in the database thread) ----------------------------------------
def watcher_still_valid(principal: PlayerPrincipal | OperatorPrincipal) -> bool:
    """A watching socket lives no longer than its player's session (``session_still_valid``)
    or its operator's API key (revoked, or the operator suspended: closed at the next
    beat)."""
    if isinstance(principal, PlayerPrincipal):
        return session_still_valid(principal)
    api_key = (
        OperatorApiKey.objects.select_related("operator__live_operator")
        .filter(pk=principal.api_key.pk)
        .first()
    )
    return api_key is not None and api_key_in_force(api_key)


def session_still_valid(principal: PlayerPrincipal) -> bool:
    """The socket lives no longer than the session that minted its ticket (revoked,
    expired, or the player or operator deactivated: the socket closes at its next beat)."""
    return principal.session.pk in sessions_still_valid([principal])


def sessions_still_valid(principals: Sequence[PlayerPrincipal]) -> set[Any]:
    """``session_still_valid`` for a batch of sockets' principals in one statement: the
    primary keys of the sessions still valid."""
    sessions = PlayerSession.objects.select_related("player__operator").filter(
        pk__in={principal.session.pk for principal in principals}
    )
    now = timezone.now()
    return {
        session.pk
        for session in sessions
        if session.is_valid_at(now)
        and session.player.is_active
        and session.player.operator.is_active
    }


# --- Reading what the client sent ----------------------------------------------------------
def scope_header(scope: dict, name: bytes) -> str | None:
    """The connection's header ``name`` (lower-case bytes), None when it was not sent."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


def message_parse(text: str | None) -> dict | None:
    """A client message as the JSON object it must be; None for anything else (binary,
    longer than ``MAX_MESSAGE_CHARS``, not JSON, not an object)."""
    if text is None or len(text) > MAX_MESSAGE_CHARS:
        return None
    try:
        content = json.loads(text)
    except ValueError:
        return None
    return content if isinstance(content, dict) else None


async def sent_in_time(sending: Coroutine[Any, Any, None], *, seconds: float) -> bool:
    """Await ``sending`` (a socket's send); False when it had to wait more than ``seconds``
    (the client stopped reading and its buffers are full: the caller closes the socket).

    A send almost always finishes without waiting: the transport takes the frame at once.
    So the deadline is armed only for a send that has to wait: an ``asyncio.timeout``
    around every send scheduled and cancelled a timer per frame, 4 % of a socket move's
    CPU (docs/benchmarks.md)."""
    try:
        waiting_on = sending.send(None)
    except StopIteration:
        return True
    try:
        async with asyncio.timeout(seconds):
            await cast(Awaitable[None], _resumed(sending, waiting_on))
    except TimeoutError:
        return False
    return True


@types.coroutine
def _resumed(coroutine: Coroutine[Any, Any, None], waiting_on: Any) -> Generator[Any, Any, None]:
    """The rest of ``coroutine``, which has run up to handing ``waiting_on`` to the event
    loop: what ``await coroutine`` would have done from there (``yield from``, by hand)."""
    while True:
        try:
            sent = yield waiting_on
        except GeneratorExit:
            coroutine.close()
            raise
        except BaseException as exc:  # a cancellation (the deadline's), thrown in
            try:
                waiting_on = coroutine.throw(exc)
            except StopIteration:
                return
        else:
            try:
                waiting_on = coroutine.send(sent)
            except StopIteration:
                return

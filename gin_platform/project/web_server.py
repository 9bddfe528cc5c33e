"""The web server's own code: uvicorn's WebSocket protocol with the refusals the platform
owns and its frames coalesced, and the gunicorn worker that runs it
(deploy/gunicorn.conf.py). Whoever starts uvicorn another way (the browser tests' server)
passes ``--ws WEBSOCKET_PROTOCOL`` (``uvicorn_command``), so every server speaks the same
WebSocket.

A text message must be UTF-8 (RFC 6455, 8.1). uvicorn's protocol decodes it and, when that
fails, logs the ``UnicodeDecodeError`` with its traceback and closes with 1007 and no
reason: any client could fill the log at will, and learned nothing. This protocol checks
the message first: one that is not UTF-8 gets an ``error`` message (the socket protocol's,
docs/realtime.md: ``malformed-request``), then a close with 1007 and a reason, and the
server logs one line with no traceback. The consumer sees a disconnect with 1007 and
releases what the socket held, as for any close.
"""

from __future__ import annotations

import asyncio
import json
import sys
from asyncio import BaseTransport, Transport
from typing import Any, cast

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn_worker import UvicornWorker
from websockets.protocol import State

from gin_platform.http.problems import MalformedRequestProblem

WEBSOCKET_PROTOCOL = "gin_platform.project.web_server:WebSocketProtocol"
APPLICATION = "gin_platform.project.asgi:application"
CLOSE_INVALID_DATA = 1007
INVALID_TEXT_REASON = "text message is not UTF-8"


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's default WebSocket protocol (websockets' Sans-I/O layer), but a text
    message that is not UTF-8 is refused with the platform's error message and 1007, and
    the frames sent in one turn of the event loop leave in one write (``FramesCoalesced``)."""

    def connection_made(self, transport: BaseTransport) -> None:
        super().connection_made(transport)
        self.transport = cast(Transport, FramesCoalesced(self.transport, self.loop))

    def send_receive_event_to_app(self) -> None:
        if self.curr_msg_data_type == "text" and not self.close_sent:
            data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
            try:
                bytes(data).decode()  # uvicorn decodes it again: UTF-8 checks cost little
            except UnicodeDecodeError as exc:
                self.frames = []
                self._refuse_invalid_text(exc)
                return
        super().send_receive_event_to_app()

    def _refuse_invalid_text(self, exc: UnicodeDecodeError) -> None:
        client = f"{self.client[0]}:{self.client[1]}" if self.client else "-"
        path = self.scope.get("path", "?") if hasattr(self, "scope") else "?"
        # The path without its query string: a socket's ticket travels there.
        self.logger.warning(
            '%s - "WebSocket %s" %d: a text message is not UTF-8 (%s at byte %d)',
            client,
            path,
            CLOSE_INVALID_DATA,
            exc.reason,
            exc.start,
        )
        if self.conn.state is State.OPEN:
            problem = MalformedRequestProblem(
                f"A text message must be UTF-8: {exc.reason} at byte {exc.start}"
            )
            error = {"type": "error", "id": None, "problem": problem.body()}
            self.conn.send_text(json.dumps(error, separators=(",", ":")).encode())
            self.conn.send_close(CLOSE_INVALID_DATA, INVALID_TEXT_REASON)
            self.handle_parser_exception()  # writes both frames, tells the consumer, closes
        else:  # sent before the handshake's answer, which no frame may precede: dropped
            self.queue.put_nowait({"type": "websocket.disconnect", "code": 1006})
            self.close_sent = True
            self.transport.close()
        # What the consumer sends from now on (a push, a ping racing the disconnect) ends
        # it quietly, as a send to a client already gone does; uvicorn would otherwise log
        # a traceback for a send after the close.
        self.disconnected = True


class FramesCoalesced:
    """A WebSocket's transport whose writes of one turn of the event loop leave together:
    a move answered over a socket sends its seat's push and its ``action_result`` back to
    back, and each ``write`` was a system call that, on a host's loopback or a NIC's
    queue alike, costs more than framing the message did (docs/benchmarks.md). The frames
    keep their order; the first write of a turn schedules the flush for that same turn's
    end, so nothing waits for anything but the other frames of the turn. Closing or
    aborting the connection flushes (or drops) what is pending first; everything else is
    the transport's own."""

    def __init__(self, transport: Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(data)

    def flush(self) -> None:
        pending, self._pending = self._pending, []
        if pending and not self._transport.is_closing():
            self._transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._pending = []
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class Worker(UvicornWorker):
    """gunicorn's worker: uvicorn_worker's, speaking ``WebSocketProtocol``, and writing the
    platform's ``web`` heartbeat while it serves (gin_platform/heartbeat.py, R13)."""

    CONFIG_KWARGS = {**UvicornWorker.CONFIG_KWARGS, "ws": WEBSOCKET_PROTOCOL}

    def load_wsgi(self) -> None:
        super().load_wsgi()  # imports the application: Django is set up from here on
        from gin_platform.heartbeat import heartbeat_thread_start  # noqa: PLC0415 - needs Django set up, after the fork

        heartbeat_thread_start()


def uvicorn_command(*, port: int, host: str = "127.0.0.1", log_level: str = "warning") -> list[str]:
    """uvicorn alone (one process, no lifespan) serving the application as the workers do."""
    return [
        sys.executable,
        "-m",
        "uvicorn",
        APPLICATION,
        "--host",
        host,
        "--port",
        str(port),
        "--ws",
        WEBSOCKET_PROTOCOL,
        "--lifespan",
        "off",
        "--log-level",
        log_level,
    ]

"""The web server as it runs, over real sockets: gunicorn with deploy/gunicorn.conf.py (its
workers ``gin_platform.project.web_server.Worker``) and uvicorn alone as the browser tests start it
(``uvicorn_command``), both on the embedded default with DEBUG on.

- A text message that is not UTF-8 gets an ``error`` message, then a close with 1007 and a
  reason; the server logs one line for it, no traceback (gin_platform/project/web_server.py).
- The API's errors are problem+json there too, DEBUG or not (gin_platform/http/api_errors.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from gin_platform.demo.client import ApiClient
from gin_platform.demo.server import free_port, server_command, server_environment
from gin_platform.project.web_server import (
    INVALID_TEXT_REASON,
    WEBSOCKET_PROTOCOL,
    FramesCoalesced,
    WebSocketProtocol,
    Worker,
    uvicorn_command,
)
from tests.processes import manage, stop
from tests.servers import wait_until_serving

ROOT = Path(__file__).resolve().parents[2]
EMBEDDED = {"DATABASE_URL": None, "REDIS_URL": None, "CELERY_BROKER_URL": None, "GIN_ENV": None}
TIMEOUT = 10


@dataclass
class Server:
    url: str
    log: Path
    key: str

    @property
    def ws_url(self) -> str:
        return "ws" + self.url.removeprefix("http")

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture(scope="module")
def embedded(tmp_path_factory) -> dict[str, str]:
    """A migrated embedded database (SQLite, no Redis), DEBUG on, and an operator's key."""
    env = server_environment(
        EMBEDDED | {"GIN_VAR_DIR": str(tmp_path_factory.mktemp("web")), "DEBUG": "1"}
    )
    manage(env, "migrate", "--verbosity", "0")
    env["TEST_OPERATOR_KEY"] = manage(env, "create_operator", "frames", "--key-only").strip()
    return env


@pytest.fixture(scope="module", params=["gunicorn", "uvicorn"])
def server(request, embedded, tmp_path_factory) -> Iterator[Server]:
    port = free_port()
    if request.param == "gunicorn":
        command = server_command(port=port)  # the production command (make serve)
    else:
        command = uvicorn_command(port=port)
    log = tmp_path_factory.mktemp(request.param) / "server.log"
    env = embedded | {"PYTHONUNBUFFERED": "1"}
    with log.open("w") as output:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT
        )
    try:
        wait_until_serving(f"http://127.0.0.1:{port}", process, log)
        yield Server(url=f"http://127.0.0.1:{port}", log=log, key=embedded["TEST_OPERATOR_KEY"])
    finally:
        stop(process)


def new_player(server: Server) -> ApiClient:
    """A new player of the operator (both servers share the database), with a session."""
    operator = ApiClient(server.url, token=server.key)
    ref = f"frames-{time.time_ns()}"
    player = operator.write(
        "POST",
        "/api/v1/players",
        {"external_ref": ref, "display_name": ref, "wallet_currency": "EUR"},
    )
    token = operator.write("POST", f"/api/v1/players/{player['id']}/sessions")["token"]
    return ApiClient(server.url, token=token)


def player_ticket(server: Server) -> str:
    return new_player(server).post("/api/v1/socket-tickets")["ticket"]


@contextlib.contextmanager
def player_socket(server: Server, ticket: str) -> Iterator:
    """The player's own socket (/ws/v1/me), past its hello."""
    with connect(f"{server.ws_url}/ws/v1/me?ticket={ticket}", open_timeout=TIMEOUT) as socket:
        hello = json.loads(socket.recv(timeout=TIMEOUT))
        assert hello["type"] == "hello", hello
        yield socket


# --- Text messages that are not UTF-8 ------------------------------------------------------
@pytest.mark.parametrize(
    "message",
    [b"\xff\xfe", [b'{"type": "pi', b"ng\xc3"]],  # one frame; a fragmented message
    ids=["one-frame", "fragmented"],
)
def test_a_text_message_that_is_not_utf8_closes_1007_after_an_error(server, message):
    before = server.log_text()
    received = []
    with player_socket(server, player_ticket(server)) as socket:
        socket.send(message, text=True)  # as a text frame, bytes as they are
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                received.append(json.loads(socket.recv(timeout=TIMEOUT)))
    time.sleep(0.5)  # the server's log line is written as it closes
    logged = server.log_text()[len(before) :]
    assert "Traceback" not in logged and "UnicodeDecodeError" not in logged, logged
    assert len([line for line in logged.splitlines() if "not UTF-8" in line]) == 1, logged
    assert "ticket" not in logged  # the line names the path, never the query string

    [error] = received
    assert error["type"] == "error" and error["id"] is None
    assert error["problem"]["type"] == "/problems/malformed-request"
    assert error["problem"]["status"] == 400
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1007
    assert closed.value.rcvd.reason == INVALID_TEXT_REASON


class _Transport:
    """Just enough of an asyncio transport for the protocol, in process."""

    def __init__(self) -> None:
        self.written, self.closed = b"", False
        self.writes: list[bytes] = []

    def get_extra_info(self, name: str, default=None):
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(name)

    def write(self, data: bytes) -> None:
        self.written += data
        self.writes.append(data)

    def abort(self) -> None:
        self.closed = True

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def test_a_bad_text_frame_before_the_handshake_is_answered_is_dropped_quietly(caplog):
    """uvicorn's HTTP layer drops bytes that come with the upgrade request itself, but a
    frame may still arrive before the application accepted: no frame may answer it, so the
    connection is dropped, with the same one line and no traceback."""

    async def never_accepts(scope, receive, send):
        await asyncio.sleep(3600)

    async def main() -> _Transport:
        config = Config(app=never_accepts, ws=WEBSOCKET_PROTOCOL, lifespan="off", log_config=None)
        config.load()
        state = ServerState()
        protocol = WebSocketProtocol(config, state, app_state={})
        transport = _Transport()
        protocol.connection_made(transport)
        protocol.data_received(
            b"GET /ws/v1/me?ticket=gst_secret HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        mask = b"\x01\x02\x03\x04"
        payload = bytes(byte ^ mask[i % 4] for i, byte in enumerate(b"\xff\xfe"))
        protocol.data_received(bytes([0x81, 0x80 | len(payload)]) + mask + payload)
        for task in state.tasks:
            task.cancel()
        return transport

    with caplog.at_level(logging.INFO, logger="uvicorn.error"):
        transport = asyncio.run(main())
    assert transport.closed
    assert transport.written == b""  # not even the 101
    lines = [r for r in caplog.records if "not UTF-8" in r.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is None
    assert "gst_secret" not in caplog.text
    assert all(record.exc_info is None for record in caplog.records)


def test_a_character_split_between_two_frames_is_still_utf8(server):
    """The check is of the whole message: é split between its frames is fine."""
    with player_socket(server, player_ticket(server)) as socket:
        socket.send([b'{"type": "ping", "x": "\xc3', b'\xa9"}'], text=True)
        answer = json.loads(socket.recv(timeout=TIMEOUT))
    assert answer["type"] == "pong"


def test_the_player_opens_a_socket_again_after_a_1007(server):
    """The consumer released what the refused socket held (its place in the socket count)."""
    me = new_player(server)
    for _ in range(6):  # one more than the player's socket cap (5)
        with player_socket(server, me.post("/api/v1/socket-tickets")["ticket"]) as refused:
            refused.send(b"\xc0", text=True)
            refused.recv(timeout=TIMEOUT)
            with pytest.raises(ConnectionClosed):
                refused.recv(timeout=TIMEOUT)
    with player_socket(server, me.post("/api/v1/socket-tickets")["ticket"]) as socket:
        socket.send(json.dumps({"type": "ping"}))
        assert json.loads(socket.recv(timeout=TIMEOUT))["type"] == "pong"


def test_the_worker_and_the_uvicorn_command_speak_the_same_protocol():
    assert Worker.CONFIG_KWARGS["ws"] == WEBSOCKET_PROTOCOL
    command = uvicorn_command(port=8000)
    assert command[command.index("--ws") + 1] == WEBSOCKET_PROTOCOL


# --- The API's errors over the server ------------------------------------------------------
def _get(url: str, **headers: str) -> tuple[int, str, dict]:
    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, headers=headers), timeout=TIMEOUT
        ) as response:
            return response.status, response.headers["Content-Type"], json.load(response)
    except urllib.error.HTTPError as error:
        body = error.read()
        content_type = error.headers["Content-Type"]
        return error.code, content_type, json.loads(body) if "json" in content_type else {}


def test_an_unknown_path_and_a_refused_host_are_problems_with_debug_on(server):
    status, content_type, body = _get(f"{server.url}/api/v1/no-such-endpoint")
    assert (status, content_type) == (404, "application/problem+json")
    assert body["type"] == "/problems/not-found"
    status, content_type, body = _get(f"{server.url}/api/v1/health/live", Host="evil.example")
    assert (status, content_type) == (400, "application/problem+json")
    assert body["type"] == "/problems/host-not-allowed"


def test_the_frames_of_one_turn_leave_in_one_write_in_order():
    """A move answered over a socket sends its seat's push and its action_result in the same
    turn of the event loop: one system call, the frames in the order they were sent."""

    async def main() -> list[list[bytes]]:
        transport = _Transport()
        coalesced = FramesCoalesced(transport, asyncio.get_running_loop())
        seen = []
        coalesced.write(b"push")
        coalesced.write(b"result")
        seen.append(list(transport.writes))  # nothing yet: the turn is not over
        await asyncio.sleep(0)
        coalesced.write(b"next turn")
        await asyncio.sleep(0)
        seen.append(list(transport.writes))
        assert coalesced.get_extra_info("peername") == ("127.0.0.1", 50000)  # the transport's
        return seen

    seen = asyncio.run(main())
    assert seen == [[], [b"pushresult", b"next turn"]]


def test_closing_sends_what_is_pending_first_and_aborting_drops_it():
    async def main() -> tuple[_Transport, _Transport]:
        loop = asyncio.get_running_loop()
        closed, aborted = _Transport(), _Transport()
        for transport, end in ((closed, "close"), (aborted, "abort")):
            coalesced = FramesCoalesced(transport, loop)
            coalesced.write(b"close frame")
            getattr(coalesced, end)()
        await asyncio.sleep(0)  # the scheduled flush finds the transport closing: no write
        return closed, aborted

    closed, aborted = asyncio.run(main())
    assert closed.writes == [b"close frame"] and closed.closed
    assert aborted.writes == [] and aborted.closed


def test_the_protocol_writes_through_the_coalescing_transport():
    async def main() -> WebSocketProtocol:
        config = Config(app=lambda *a: None, ws=WEBSOCKET_PROTOCOL, lifespan="off", log_config=None)
        config.load()
        protocol = WebSocketProtocol(config, ServerState(), app_state={})
        protocol.connection_made(_Transport())
        return protocol

    assert isinstance(asyncio.run(main()).transport, FramesCoalesced)

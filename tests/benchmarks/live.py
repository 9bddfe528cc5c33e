"""The asyncio side of the socket benchmarks (bench_push.py, bench_sockets.py): a keep-alive
HTTP/1.1 client, socket tickets and the socket itself (docs/realtime.md).

One event loop serves every simulated player, so hundreds of players (and a thousand idle
sockets) cost the client one thread, and the times it records (``time.monotonic``) are on
one clock. Standard library and ``websockets`` only: nothing here imports Django.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect

SOCKET_OPEN_TIMEOUT = 30.0


class HttpError(Exception):
    """No answer (the connection failed) or a malformed one."""


class AsyncHttp:
    """One persistent HTTP/1.1 connection with an optional bearer token, one request at a
    time (a lock orders concurrent callers). ``request`` answers ``(status, parsed JSON or
    None)`` for every HTTP answer; it raises ``HttpError`` only when no answer came. A
    connection the server closed is reopened and the request sent once more, only when the
    first attempt got no answer at all (the game API refuses a repeated move by its
    ``expected_seq``, and operator writes carry an Idempotency-Key)."""

    def __init__(self, base_url: str, token: str | None = None, timeout: float = 30.0) -> None:
        parts = urlsplit(base_url)
        self.host, self.port, self.timeout = parts.hostname, parts.port or 80, timeout
        self.token = token
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.lock = asyncio.Lock()

    def with_token(self, token: str) -> AsyncHttp:
        return AsyncHttp(f"http://{self.host}:{self.port}", token, self.timeout)

    async def request(
        self,
        method: str,
        path: str,
        body: dict | None = None,
        *,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, object]:
        payload = b"" if body is None else json.dumps(body).encode()
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.host}:{self.port}",
            "Accept: application/json",
            f"Content-Length: {len(payload)}",
        ]
        if body is not None:
            lines.append("Content-Type: application/json")
        if self.token:
            lines.append(f"Authorization: Bearer {self.token}")
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode() + payload
        async with self.lock:
            for attempt in range(2):
                try:
                    if self.writer is None:
                        self.reader, self.writer = await asyncio.wait_for(
                            asyncio.open_connection(self.host, self.port), self.timeout
                        )
                    self.writer.write(raw)
                    return await asyncio.wait_for(self._answer(), self.timeout)
                except (OSError, asyncio.IncompleteReadError, HttpError) as exc:
                    await self.close()
                    if attempt:
                        raise HttpError(f"{method} {path}: {exc!r}") from None
                except TimeoutError:
                    await self.close()
                    raise HttpError(f"{method} {path}: timed out") from None
        raise AssertionError("unreachable")

    async def _answer(self) -> tuple[int, object]:
        assert self.reader is not None
        status_line = await self.reader.readline()
        if not status_line:
            raise HttpError("connection closed")
        parts = status_line.split(None, 2)
        if len(parts) < 2 or not parts[1].isdigit():
            raise HttpError(f"bad status line {status_line!r}")
        status = int(parts[1])
        headers: dict[str, str] = {}
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int((await self.reader.readline()).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while (await self.reader.readline()) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                data += await self.reader.readexactly(size)
                await self.reader.readexactly(2)
        else:
            data = await self.reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        try:
            return status, json.loads(data) if data else None
        except ValueError:
            return status, None

    async def close(self) -> None:
        writer, self.reader, self.writer = self.writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


def problem_slug(body: object) -> str:
    """The last part of a problem's ``type`` (``stale-sequence``), or ""."""
    if isinstance(body, dict) and isinstance(body.get("type"), str):
        return body["type"].rsplit("/", 1)[-1]
    return ""


async def mint_ticket(http: AsyncHttp) -> str:
    """A socket ticket for the player whose bearer token ``http`` carries."""
    status, body = await http.request("POST", "/api/v1/socket-tickets")
    if status != 201 or not isinstance(body, dict):
        raise HttpError(f"socket ticket: HTTP {status} {problem_slug(body)}")
    return body["ticket"]


def socket_url(ws_base: str, match_id: int, ticket: str, *, after: int | None = None) -> str:
    url = f"{ws_base}/ws/v1/matches/{match_id}?ticket={ticket}"
    return url if after is None else f"{url}&after={after}"


async def open_socket(url: str) -> tuple[ClientConnection, dict]:
    """The socket and its first message (``hello``, or the ``error`` before a refusal).

    websockets' own ping frames are off: the protocol has its application-level heartbeat
    (the server's ``ping`` every heartbeat_seconds, answered with ``pong``), which is what
    the benchmarks measure. Compression is left at the library's default (permessage-
    deflate offered), as browsers do."""
    socket = await connect(
        url,
        proxy=None,
        open_timeout=SOCKET_OPEN_TIMEOUT,
        ping_interval=None,
        close_timeout=5,
        max_size=2**22,
    )
    first = json.loads(await asyncio.wait_for(socket.recv(), SOCKET_OPEN_TIMEOUT))
    return socket, first


def extensions(socket: ClientConnection) -> str:
    """The extensions the server accepted (``permessage-deflate`` or none)."""
    names = [type(extension).__name__ for extension in socket.protocol.extensions]
    return ", ".join(names) or "none"

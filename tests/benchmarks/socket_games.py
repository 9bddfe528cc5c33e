"""bench_actions.py's games played as the table page plays them: every move sent over the
mover's socket, every view learnt from the pushes (docs/realtime.md), no polling.

Runs inside one of bench_actions' client processes, all of that process's games on one
event loop. Per game, back to back: both players sit (which answers their seats, or opens
the next match at the table), each mints a socket ticket and opens its socket on the match
(its ``hello`` carries its view); then the player whose turn the newest view says sends
the engine bot's move as an ``action`` message, waits for its ``action_result``, and both
wait until their sockets have pushed the view at that sequence number. A finished match
is followed by a new one. An error, a refusal or a push that does not come within
``PUSH_TIMEOUT`` seconds is counted and the game starts over (sockets closed, seats
answered again, sockets reopened).

Recorded per game in bench_actions' ``ThreadStats``: ``socket_action`` (send to
``action_result``), ``sit`` and ``ticket`` request times, the socket opens, errors,
finished matches.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time

from live import AsyncHttp, HttpError, open_socket, problem_slug, socket_url
from websockets.exceptions import ConnectionClosed, WebSocketException

PUSH_TIMEOUT = 10.0


class Failed(Exception):
    """Counted already: start the game over."""


class SocketPlayer:
    def __init__(self, socket, view: dict) -> None:
        self.socket = socket
        self.view = view
        self.changed = asyncio.Event()
        self.pending: dict[str, asyncio.Future] = {}
        self.reader: asyncio.Task | None = None

    @property
    def seq(self) -> int:
        return self.view.get("seq", -1)

    async def read(self, stats) -> None:
        """Every message of the socket: views kept (the newest), pings answered, action
        results handed to their sender."""
        try:
            async for raw in self.socket:
                message = json.loads(raw)
                kind = message.get("type")
                if kind in ("events", "view"):
                    view = message.get("view")
                    if view and view["seq"] >= self.seq:
                        self.view = view
                        self.changed.set()
                elif kind == "ping":
                    await self.socket.send('{"type":"pong"}')
                elif kind in ("action_result", "error"):
                    future = self.pending.pop(message.get("id") or "", None)
                    if future is not None and not future.done():
                        future.set_result(message)
                    elif kind == "error":
                        stats.errors[f"socket error {problem_slug(message.get('problem'))}"] += 1
        except ConnectionClosed:
            pass
        self.changed.set()  # a waiter sees the socket gone instead of timing out

    async def wait_seq(self, seq: int, deadline: float) -> bool:
        while self.seq < seq:
            if self.reader is None or self.reader.done():
                return False
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), deadline - time.monotonic())
            except TimeoutError:
                return False
        return True

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.reader
        with contextlib.suppress(Exception):
            await self.socket.close()
        for future in self.pending.values():
            future.cancel()


async def timed(stats, endpoint: str, http: AsyncHttp, method: str, path: str) -> dict:
    started, clock = time.monotonic(), time.perf_counter()
    try:
        status, body = await http.request(method, path)
    except HttpError as exc:
        stats.errors[f"{endpoint} {type(exc).__name__}"] += 1
        raise Failed from None
    if not 200 <= status < 300 or not isinstance(body, dict):
        stats.errors[f"{endpoint} {status} {problem_slug(body)}".strip()] += 1
        raise Failed
    stats.samples.setdefault(endpoint, []).append((started, time.perf_counter() - clock))
    return body


async def open_player(stats, http: AsyncHttp, ws_base: str, match_id: int) -> SocketPlayer:
    ticket = (await timed(stats, "ticket", http, "POST", "/api/v1/socket-tickets"))["ticket"]
    try:
        socket, hello = await open_socket(socket_url(ws_base, match_id, ticket))
    except (OSError, TimeoutError, WebSocketException) as exc:
        stats.errors[f"socket {type(exc).__name__}"] += 1
        raise Failed from None
    if hello.get("type") != "hello":
        stats.errors[f"socket refused {problem_slug(hello.get('problem'))}"] += 1
        with contextlib.suppress(Exception):
            await socket.close()
        raise Failed
    player = SocketPlayer(socket, hello["view"])
    player.reader = asyncio.create_task(player.read(stats))
    return player


async def play_match(stats, https: list[AsyncHttp], ws_base: str, table: int, until: float):
    from games.engine import choose_action_from_view

    seats, match_id = {}, None
    for http in https:
        seat = await timed(stats, "sit", http, "POST", f"/api/v1/tables/{table}/sit")
        seats[seat["position"]] = http
        match_id = seat["match_id"]
    players: dict[int, SocketPlayer] = {}
    ids = (f"m{n}" for n in itertools.count())
    try:
        for position, http in seats.items():
            players[position] = await open_player(stats, http, ws_base, match_id)
        while time.monotonic() < until:
            newest = max(players.values(), key=lambda p: p.seq)
            if newest.view["match"]["status"] != "running":
                stats.finished += 1
                return
            mover = players[newest.view["hand"]["to_act"]]
            deadline = time.monotonic() + PUSH_TIMEOUT
            if not await mover.wait_seq(newest.seq, deadline):
                stats.errors["push timeout (mover's view)"] += 1
                raise Failed
            move = choose_action_from_view(mover.view["hand"])
            message_id = next(ids)
            future = asyncio.get_running_loop().create_future()
            mover.pending[message_id] = future
            body = {"type": "action", "id": message_id, **move, "expected_seq": mover.seq}
            started, clock = time.monotonic(), time.perf_counter()
            try:
                await mover.socket.send(json.dumps(body))
                result = await asyncio.wait_for(future, PUSH_TIMEOUT)
            except (ConnectionClosed, TimeoutError, asyncio.CancelledError):
                stats.errors["socket_action no action_result"] += 1
                raise Failed from None
            if result["type"] == "error":
                stats.errors[f"socket_action {problem_slug(result.get('problem'))}"] += 1
                raise Failed
            stats.samples.setdefault("socket_action", []).append(
                (started, time.perf_counter() - clock)
            )
            deadline = time.monotonic() + PUSH_TIMEOUT
            for player in players.values():
                if not await player.wait_seq(result["seq"], deadline):
                    stats.errors["push timeout"] += 1
                    raise Failed
    finally:
        for player in players.values():
            await player.close()


async def play_pair(base_url: str, pair: dict, until: float, stats) -> None:
    https = [AsyncHttp(base_url, token) for token in pair["tokens"]]
    ws_base = "ws" + base_url.removeprefix("http")
    while time.monotonic() < until:
        try:
            await play_match(stats, https, ws_base, pair["table"], until)
        except Failed:
            stats.resyncs += 1
            await asyncio.sleep(0.05)
        except Exception as exc:  # an answer of an unexpected shape: counted, start over
            stats.errors[f"client {type(exc).__name__}: {exc}"[:120]] += 1
            stats.resyncs += 1
            await asyncio.sleep(0.1)
    for http in https:
        await http.close()


def run(base_url: str, pairs: list[dict], until: float, stats: list) -> None:
    """Every pair's games on one event loop until ``until`` (a thread of bench_actions'
    client process runs this)."""

    async def main() -> None:
        games = zip(pairs, stats, strict=True)
        await asyncio.gather(*(play_pair(base_url, pair, until, record) for pair, record in games))

    asyncio.run(main())

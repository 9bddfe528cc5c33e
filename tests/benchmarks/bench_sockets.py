"""Idle sockets (docs/benchmarks.md): what one web server process pays to hold many open
sockets that carry nothing but heartbeats.

    .venv/bin/python tests/benchmarks/bench_sockets.py [--sockets 1000] [--idle 60]

The stack is the load test's (tests/benchmarks/harness.py: a scratch PostgreSQL database,
its own Redis db for the cache and the channel layer, the web server as deployed) with ONE
web worker process (``--workers``) and no Celery worker. Over the API, with a pool of 16
keep-alive HTTP connections (``live.py``): practice FTK rooms (50 tables each) with one
table per two players, ``--sockets`` / ``--sockets-per-player`` players (default one
socket each: 1,000 players), a session each, and both players of every table seated, so
every player is in a running match. More than REALTIME_MAX_SOCKETS_PER_PLAYER (5) sockets
per player raises that cap through the server's environment, and the report says so.

Then, in ``--steps`` equal steps: a ticket per socket (``POST /api/v1/socket-tickets``) and
the socket to the player's match (``/ws/v1/matches/{id}?ticket=...``), ``--open-concurrency``
at a time; after each step the resident set size (VmRSS) of the worker process. Every socket
answers the server's ``ping`` with a ``pong``; nothing else is sent. Then ``--idle`` seconds
of nothing but heartbeats (default 60 s: three of the default 20 s beats): the CPUs each
party kept busy (harness.CpuMeter), the pings answered, the PostgreSQL connections opened
and statement time spent on this database, and any socket the server closed. Last, every
socket is closed and the worker's RSS read once more.

Printed: RSS before the first socket, after each step and at the end of the idle window,
its growth per socket (total and least-squares slope over the steps), against the goal of
< 300 MB for 1,000 sockets; idle CPU (whole and per socket per heartbeat); how fast the
sockets opened. Exits 1 when a socket failed to open or was closed by the server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # harness; it adds the project
from harness import (
    Stack,
    StackConfig,
    exit_on_sigterm,
    finish,
    group_memory,
    machine_summary,
    ms,
    percentile,
    run_script,
    say,
    worker_pids,
)
from live import AsyncHttp, HttpError, open_socket, problem_slug, socket_url
from websockets.exceptions import ConnectionClosed, WebSocketException

DEFAULT_SOCKET_CAP = 5  # REALTIME_MAX_SOCKETS_PER_PLAYER's default (settings.py)
HTTP_POOL = 16
TABLES_PER_ROOM = 50  # games.services.rooms.MAX_TABLES_PER_REQUEST
MB = 1024 * 1024


class Setup:
    """Operator and player calls over a small pool of keep-alive connections."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.pool = [AsyncHttp(stack.base_url) for _ in range(HTTP_POOL)]
        self.free: asyncio.Queue[AsyncHttp] = asyncio.Queue()
        for http in self.pool:
            self.free.put_nowait(http)

    async def call(self, method: str, path: str, body=None, *, token: str, write=False):
        headers = {"Authorization": f"Bearer {token}"}
        if write:
            headers["Idempotency-Key"] = str(uuid.uuid4())
        http = await self.free.get()
        try:
            status, answer = await http.request(method, path, body, headers=headers)
        finally:
            self.free.put_nowait(http)
        if status >= 400:
            detail = answer.get("detail", "") if isinstance(answer, dict) else ""
            raise HttpError(f"{method} {path}: HTTP {status} {problem_slug(answer)} {detail}")
        return answer

    async def close(self) -> None:
        for http in self.pool:
            await http.close()

    async def players_in_matches(self, players: int) -> list[tuple[str, int]]:
        """(session token, match id) of every player, two to a practice table (rooms of at
        most TABLES_PER_ROOM tables: the API opens that many at once)."""
        key = self.stack.operator_key
        matches = players // 2
        sizes = [min(TABLES_PER_ROOM, matches - n) for n in range(0, matches, TABLES_PER_ROOM)]
        rooms = await asyncio.gather(
            *(
                self.call(
                    "POST",
                    "/api/v1/rooms",
                    {
                        "name": f"idle sockets {index}",
                        "variant": "ftk",
                        "is_practice": True,
                        "stake": "1.00",
                        "tables": size,
                        "turn_seconds": 600,
                    },
                    token=key,
                    write=True,
                )
                for index, size in enumerate(sizes)
            )
        )

        async def player(index: int) -> str:
            body = await self.call(
                "POST",
                "/api/v1/players",
                {"external_ref": f"idle-{index}", "display_name": f"idle {index}"},
                token=key,
                write=True,
            )
            session = await self.call(
                "POST",
                f"/api/v1/players/{body['id']}/sessions",
                {"ttl_seconds": 6 * 3600},
                token=key,
                write=True,
            )
            return session["token"]

        tokens = await asyncio.gather(*(player(i) for i in range(players)))
        tables = []
        for room in rooms:
            lobby = await self.call("GET", f"/api/v1/lobby/{room['id']}", token=tokens[0])
            tables += [t["id"] for t in lobby["tables"] if t["free_seats"] == 2]
        if len(tables) < matches:
            raise RuntimeError(f"the lobbies list {len(tables)} free tables, not {matches}")

        async def sit(index: int) -> list[tuple[str, int]]:
            path = f"/api/v1/tables/{tables[index]}/sit"
            a, b = tokens[2 * index], tokens[2 * index + 1]
            await self.call("POST", path, {}, token=a)
            seated = await self.call("POST", path, {}, token=b)
            return [(a, seated["match_id"]), (b, seated["match_id"])]

        pairs = await asyncio.gather(*(sit(i) for i in range(matches)))
        return [seat for pair in pairs for seat in pair]


class Sockets:
    """The open sockets, each answering pings."""

    def __init__(self, stack: Stack, setup: Setup) -> None:
        self.stack = stack
        self.setup = setup
        self.open: list = []
        self.readers: list[asyncio.Task] = []
        self.pings: list[float] = []
        self.closed: Counter = Counter()
        self.failed: Counter = Counter()
        self.open_seconds: list[float] = []
        self.closing = False

    async def open_one(self, token: str, match_id: int) -> None:
        started = time.monotonic()
        try:
            ticket = (await self.setup.call("POST", "/api/v1/socket-tickets", token=token))[
                "ticket"
            ]
            socket, hello = await open_socket(socket_url(self.stack.ws_url, match_id, ticket))
        except (HttpError, OSError, TimeoutError, WebSocketException) as exc:
            self.failed[f"{type(exc).__name__}: {str(exc)[:60]}"] += 1
            return
        if hello.get("type") != "hello":
            self.failed[f"refused {problem_slug(hello.get('problem'))}"] += 1
            await socket.close()
            return
        self.open_seconds.append(time.monotonic() - started)
        self.open.append(socket)
        self.readers.append(asyncio.create_task(self.read(socket)))

    async def read(self, socket) -> None:
        try:
            async for raw in socket:
                message = json.loads(raw)
                if message.get("type") == "ping":
                    self.pings.append(time.monotonic())
                    await socket.send('{"type":"pong"}')
        except ConnectionClosed:
            pass
        if not self.closing:
            self.closed[f"{socket.close_code} {socket.close_reason}".strip()] += 1

    async def open_many(self, seats: list[tuple[str, int]], concurrency: int) -> float:
        started = time.monotonic()
        gate = asyncio.Semaphore(concurrency)

        async def one(seat: tuple[str, int]) -> None:
            async with gate:
                await self.open_one(*seat)

        await asyncio.gather(*(one(seat) for seat in seats))
        return time.monotonic() - started

    async def close_all(self) -> None:
        self.closing = True
        await asyncio.gather(
            *(s.close() for s in self.open if s is not None), return_exceptions=True
        )
        for reader in self.readers:
            reader.cancel()
        await asyncio.gather(*self.readers, return_exceptions=True)


def server_memory(stack: Stack) -> dict[str, int]:
    """RSS (bytes) of the worker processes together, and of the arbiter."""
    memory = group_memory(stack.gunicorn.pid)
    workers = worker_pids(stack.gunicorn.pid)
    return {
        "workers": sum(memory.get(pid, 0) for pid in workers),
        "arbiter": memory.get(stack.gunicorn.pid, 0),
        "worker_count": len(workers),
    }


def slope(points: list[tuple[int, int]]) -> float | None:
    """Least-squares bytes per socket over (sockets, RSS) points."""
    if len(points) < 2:
        return None
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    var = sum((x - mean_x) ** 2 for x, _ in points)
    if not var:
        return None
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / var


async def run(stack: Stack, args) -> dict:
    setup = Setup(stack)
    players = args.players
    say(f"seeding {players} players in {players // 2} practice matches over the API")
    started = time.monotonic()
    seats = await setup.players_in_matches(players)
    say(f"  seeded in {time.monotonic() - started:.0f} s")
    seats = [seat for seat in seats for _ in range(args.sockets_per_player)][: args.sockets]
    # Let the setup's keep-alive connections time out at the server (5 s) before measuring.
    await setup.close()
    await asyncio.sleep(7)
    sockets = Sockets(stack, setup)
    memory = [(0, server_memory(stack))]
    say(f"  worker RSS before any socket: {memory[0][1]['workers'] / MB:.1f} MB")
    step = math.ceil(len(seats) / args.steps)
    open_time = 0.0
    for first in range(0, len(seats), step):
        open_time += await sockets.open_many(seats[first : first + step], args.open_concurrency)
        await setup.close()
        await asyncio.sleep(args.settle)
        memory.append((len(sockets.open), server_memory(stack)))
        say(
            f"  {len(sockets.open)} sockets open: worker RSS {memory[-1][1]['workers'] / MB:.1f} MB"
        )
    opened = len(sockets.open)
    meter = stack.cpu_meter()
    meter.start()
    pg_before = await asyncio.to_thread(stack.pg_stats)
    idle_from = time.monotonic()
    await asyncio.sleep(args.idle)
    idle_to = time.monotonic()
    cpu = meter.stop()
    pg_after = await asyncio.to_thread(stack.pg_stats)
    pg = {k: v - pg_before[k] for k, v in pg_after.items()}
    idle_memory = server_memory(stack)
    pings = sum(1 for t in sockets.pings if idle_from <= t < idle_to)
    still_open = sum(1 for s in sockets.open if s.close_code is None)
    closed_during = dict(sockets.closed)
    await sockets.close_all()
    await asyncio.sleep(args.settle)
    after_close = server_memory(stack)
    seconds = idle_to - idle_from
    base = memory[0][1]["workers"]
    at_full = memory[-1][1]["workers"]
    heartbeat_seconds = args.heartbeat or 20

    def per_ping(value: float) -> float | None:
        return round(value / pings, 3) if pings else None

    return {
        "sockets_requested": len(seats),
        "sockets_opened": opened,
        "open_failures": dict(sockets.failed),
        "open_seconds": round(open_time, 1),
        "opens_per_second": round(opened / open_time, 1) if open_time else None,
        "open_p50_ms": ms(percentile(sockets.open_seconds, 50)),
        "open_p99_ms": ms(percentile(sockets.open_seconds, 99)),
        "rss_steps_mb": [(n, round(m["workers"] / MB, 1)) for n, m in memory],
        "rss_before_mb": round(base / MB, 1),
        "rss_full_mb": round(at_full / MB, 1),
        "rss_after_idle_mb": round(idle_memory["workers"] / MB, 1),
        "rss_after_close_mb": round(after_close["workers"] / MB, 1),
        "arbiter_rss_mb": round(idle_memory["arbiter"] / MB, 1),
        "worker_processes": idle_memory["worker_count"],
        "growth_kb_per_socket": round((at_full - base) / max(opened, 1) / 1024, 1),
        "slope_kb_per_socket": (
            None
            if (fit := slope([(n, m["workers"]) for n, m in memory])) is None
            else round(fit / 1024, 1)
        ),
        "goal_met": idle_memory["workers"] < 300 * MB,
        "idle_seconds": round(seconds, 1),
        "heartbeat_seconds": heartbeat_seconds,
        "pings_answered": pings,
        "pings_expected": round(opened * seconds / heartbeat_seconds),
        "sockets_still_open": still_open,
        "closed_by_server": closed_during,
        "cpu": cpu,
        "gunicorn_cpu_ms_per_heartbeat": per_ping(cpu.get("gunicorn", 0) * seconds * 1000),
        "postgres_cpu_ms_per_heartbeat": per_ping(cpu.get("postgres", 0) * seconds * 1000),
        "redis_cpu_ms_per_heartbeat": per_ping(cpu.get("redis", 0) * seconds * 1000),
        "pg_connections_per_heartbeat": per_ping(pg["sessions"]),
        "pg_active_ms_per_heartbeat": per_ping(pg["active_ms"]),
    }


def summary(r: dict, cap_note: str) -> list[str]:
    c = r["cpu"]
    ours = sum(c.get(k, 0) for k in ("gunicorn", "postgres", "redis", "client"))
    steps = ", ".join(f"{n}: {mb} MB" for n, mb in r["rss_steps_mb"])
    return [
        f"- sockets: {r['sockets_opened']} of {r['sockets_requested']} opened in "
        f"{r['open_seconds']} s ({r['opens_per_second']}/s, ticket + socket + hello p50 "
        f"{r['open_p50_ms']} / p99 {r['open_p99_ms']} ms); failures {r['open_failures'] or 0}"
        f"{cap_note}",
        f"- worker RSS by sockets open: {steps}; after {r['idle_seconds']} s idle "
        f"{r['rss_after_idle_mb']} MB (goal < 300 MB: {'met' if r['goal_met'] else 'not met'}); "
        f"after closing them all {r['rss_after_close_mb']} MB; arbiter {r['arbiter_rss_mb']} MB",
        f"- growth per socket: {r['growth_kb_per_socket']} KB (slope over the steps "
        f"{r['slope_kb_per_socket']} KB)",
        f"- idle {r['idle_seconds']} s: {r['pings_answered']} pings answered (expected about "
        f"{r['pings_expected']} at one per {r['heartbeat_seconds']} s per socket), "
        f"{r['sockets_still_open']} sockets still open, closed by the server: "
        f"{r['closed_by_server'] or 'none'}",
        f"- CPUs busy while idle: gunicorn {c.get('gunicorn', 0)}, postgres (whole server) "
        f"{c.get('postgres', 0)}, redis {c.get('redis', 0)}, client {c.get('client', 0)}; "
        f"other processes {max(0.0, c.get('machine', 0) - ours):.2f}; machine "
        f"{c.get('machine', 0)} of {len(os.sched_getaffinity(0))}",
        f"- per heartbeat (one socket's ping): gunicorn {r['gunicorn_cpu_ms_per_heartbeat']} ms "
        f"CPU, postgres {r['postgres_cpu_ms_per_heartbeat']} ms, redis "
        f"{r['redis_cpu_ms_per_heartbeat']} ms; this database: "
        f"{r['pg_connections_per_heartbeat']} connections opened and "
        f"{r['pg_active_ms_per_heartbeat']} ms of statements",
    ]


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sockets", type=int, default=1000, help="sockets to hold (1000)")
    parser.add_argument(
        "--sockets-per-player",
        type=int,
        default=1,
        help=f"sockets per player (1); over {DEFAULT_SOCKET_CAP} raises the server's cap",
    )
    parser.add_argument("--idle", type=float, default=60.0, help="idle seconds measured (60)")
    parser.add_argument("--steps", type=int, default=4, help="RSS readings while opening (4)")
    parser.add_argument("--open-concurrency", type=int, default=20)
    parser.add_argument("--settle", type=float, default=3.0, help="seconds before an RSS read")
    parser.add_argument(
        "--heartbeat", type=int, default=None, help="REALTIME_HEARTBEAT_SECONDS (server: 20)"
    )
    parser.add_argument("--workers", type=int, default=1, help="web worker processes (1)")
    parser.add_argument(
        "--redis-db", type=int, default=None, help="default: REDIS_URL's number, else 14"
    )
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    parser.add_argument("--keep-logs", action="store_true")
    args = parser.parse_args(argv)
    if not 2 <= args.sockets <= 20000 or args.sockets_per_player < 1:
        parser.error("--sockets: 2 to 20,000; --sockets-per-player at least 1")
    players = math.ceil(args.sockets / args.sockets_per_player)
    args.players = players + players % 2
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    exit_on_sigterm()
    say(f"machine: {machine_summary()}")
    extra = {}
    cap_note = ""
    if args.sockets_per_player > DEFAULT_SOCKET_CAP:
        extra["REALTIME_MAX_SOCKETS_PER_PLAYER"] = str(args.sockets_per_player)
        cap_note = (
            f"; REALTIME_MAX_SOCKETS_PER_PLAYER raised to {args.sockets_per_player} for this run"
        )
    if args.heartbeat:
        extra["REALTIME_HEARTBEAT_SECONDS"] = str(args.heartbeat)
    stack = Stack(
        StackConfig(
            workers=args.workers,
            celery=False,
            redis_db=args.redis_db,
            keep_logs=args.keep_logs,
            extra_env=extra,
        ),
        say=say,
    )
    say(
        f"stack: {stack.describe()}, no Celery worker, Redis db {stack.redis_db}; "
        f"{args.sockets} sockets, {args.sockets_per_player} per player"
    )
    problems = []
    with stack:
        result = asyncio.run(run(stack, args))
        log_problems = stack.log_problems()
        if args.keep_logs:
            say(f"logs kept in {stack.logs}")
    say("")
    say(f"## Idle sockets: {stack.describe()}")
    say("")
    for line in summary(result, cap_note):
        say(line)
    if result["sockets_opened"] < result["sockets_requested"]:
        problems.append(f"sockets that did not open: {result['open_failures']}")
    if result["closed_by_server"]:
        problems.append(f"sockets the server closed: {result['closed_by_server']}")
    if log_problems:
        problems.append("errors in the server log: " + " | ".join(log_problems))
    return finish(args, {"result": result}, problems)


if __name__ == "__main__":
    run_script(main, stopped="stopped the server, dropped the scratch database")

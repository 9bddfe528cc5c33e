"""Action API throughput and latency: bot pairs playing over HTTP (docs/benchmarks.md).

Run (needs PostgreSQL; Redis is used when REDIS_URL is set, see 3.):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
        [REDIS_URL=redis://127.0.0.1:6379/0] \\
        .venv/bin/python tests/benchmarks/bench_actions.py [--games 32] [--seconds 20] \\
        [--client-processes 2] [--rate 20,40] [--think-ms 800] [--find-rate]

What it does:

1. creates the scratch database ``<name>_bench_actions_<pid>_<random>`` (``<name>`` is the
   database of DATABASE_URL), migrates it, and sets up one operator, a practice Match Play
   room to 500 (long games: almost every request is a move) with one table per game, and per
   game two players with session tokens, seated beforehand (the load is the game, not the
   buy-ins). The database is dropped at the end, also after Ctrl-C, SIGTERM or an error
   (``--keep-database`` keeps it);
2. starts the web server as deployed (gunicorn with deploy/gunicorn.conf.py, its workers
   uvicorn serving ``gin_platform.project.asgi:application``) on a free loopback port, in its own
   process group, with that file's defaults unless ``--workers``/``--asgi-threads`` (or
   GUNICORN_WORKERS / ASGI_THREADS) say otherwise: on 2 CPUs with REDIS_URL that is 2
   workers, each letting 32 synchronous requests into Django at once (without REDIS_URL
   one worker: the in-memory channel layer works inside one process only). DEBUG and the
   access log are off; the throttle rates are raised to 10^8/min, so the limiter still runs
   (its cache round trips on every request) but never refuses;
3. the stack, printed with the results: with REDIS_URL set, the server uses that Redis for
   the cache and the throttle buckets (as in production; keys under a per-run prefix,
   deleted at the end), and Celery gets an in-process memory broker
   (``CELERY_BROKER_URL=memory://localhost/``). settings.py has no switch for eager tasks
   when a broker is configured, and a Redis broker without a worker would leave the task in
   a shared queue that another stack's worker could take. The only task these practice games
   can queue is the settlement of a finished match, which then never runs: harmless here
   (the next match at the table does not wait for it; the report counts finished matches).
   ``/api/v1/health`` answers 503 "degraded" (its broker check pings Redis at the memory
   URL), so readiness waits for its database check only. Without REDIS_URL: local-memory
   cache (throttle buckets per worker process) and eager Celery (a finished match is settled
   inside the request that finished it), which is what settings.py does without a broker;
4. the clients run in ``--client-processes`` spawned processes (default 2), each with one
   thread per client; thread i runs in process i mod P. Every process records the latency of
   each request and the parent merges them for the percentiles, so one GIL does not queue all
   clients' bot decisions and JSON parsing. The baseline uses the same processes;
5. closed loop (always): first ``--games`` threads call the floor of the stack back to back:
   ``GET /bench/floor/<operator id>``, a plain Django view answering one primary-key SELECT
   as JSON (no DRF, no authentication, no throttle; floor_urls.py, served only by this
   benchmark's server through floor_settings.py), through the same server, middleware and
   connection handling as the API. Each other figure is also printed over it: the server
   CPU per trivial request and per action divided by the floor's (goals <= 1.5 and <= 4).
   Then ``--games`` threads call a trivial authenticated endpoint
   (``GET /api/v1/operators/me``: API-key authentication, throttle, one small serializer) back
   to back; then ``--games`` threads each play one table with the engine's bot for both seats,
   from the players' own views, back to back: ``POST /matches/{id}/actions`` for every move,
   ``GET /matches/{id}/view`` only when the turn passes to the other player (the action's
   answer is already the mover's view); a finished match is followed by a new one at the same
   table (both players sit again). Last, the same games as the table page plays them
   (socket_games.py): each player holds a socket on its match, the mover sends its move over
   it, and both learn the new state from the pushes, so nobody polls. Printed: actions/s
   against trivial requests/s as a ratio (goal >= 0.5), and the server's CPU (gunicorn +
   PostgreSQL + Redis, read from /proc) per action, its views and sits included (over
   sockets: its pushes, tickets, socket opens and sits), against per trivial request: the
   same ratio from CPU, the figure least moved by other processes on the machine. The p99
   of this mode is a saturation figure: N clients sending back to back keep N requests
   queued at the server, so by Little's law p99 < 50 ms at 32 clients needs more than 640
   requests/s;
6. paced (``--rate R[,R2...]`` total actions/s over all games, or ``--think-ms T[,...]``): the
   same games, each waiting between its moves. With ``--rate`` the gaps between one game's
   consecutive action sends are exponential with mean games/R seconds (``--arrivals steady``:
   exactly that), counted from the previous send, so all games together offer about a
   Poisson stream of R actions/s; when a send is due while the game's previous action (or the
   view after it) is still unanswered, it goes as soon as that answer is in and counts as
   "late" (the share is of the sends due in the measured window). With ``--think-ms`` a
   player waits T ms (exponential with mean T, or exactly T with ``--arrivals steady``) after
   it has its view. Printed: offered and achieved actions/s, p50/p99 and whether
   p99 < ``--p99-goal-ms`` (50);
7. ``--find-rate``: bisects the offered rate between 0 and the closed loop's actions/s over
   ``--find-steps`` (5) paced runs of ``--find-seconds`` each (default ``--seconds``) and
   reports the highest rate at which action p99 stayed under the goal with no errors;
8. errors: a non-2xx answer or a request without an answer is counted by endpoint and status
   (with the problem type), and the client carries on: a game's pair sits again (which
   answers its seats) and re-reads its views. Counts cover the whole phase, warm-up included.

Latencies count the successful requests started in the measured window (after
``--warmup``); per second is that count over the window. Output: one JSON document with
everything (stack, CPUs each party kept busy per phase, what the garbage collector cost the
web processes per phase (collector_meter.py: its CPU per request and share of theirs,
collections by generation, the longest full one), errors by status, matches by status at the
end, ERROR lines of the server log), then a one-line summary per mode. Clients,
server, PostgreSQL and Redis share the machine; the numbers are for this machine, at this
commit.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import multiprocessing
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))  # harness; it adds the project
import collector_meter
from harness import (
    APPLICATION,
    SERVER_PARTS,
    CpuMeter,
    KeepAliveClient,
    exit_on_sigterm,
    free_port,
    gunicorn_command,
    machine_summary,
    percentile,
    start_group,
    stop_group,
    wait_healthy,
)

ROOT = Path(__file__).resolve().parents[2]
TRIVIAL_PATH = "/api/v1/operators/me"
# The floor view (floor_urls.py): one primary-key SELECT answered by a plain Django view.
FLOOR_PATH = "/bench/floor/{pk}"
FLOOR_SETTINGS = "tests.benchmarks.floor_settings"
MEMORY_BROKER = "memory://localhost/"
LATE_TOLERANCE = 0.001  # a send more than 1 ms after it was due is late
# The benchmarked Django: the deployed settings plus the floor view's route
# (floor_settings.py), throttle rates so high the limiter runs but never refuses.
SERVER_ENV = {
    "DEBUG": "false",
    "THROTTLE_PLAYER": "100000000/min",
    "THROTTLE_OPERATOR": "100000000/min",
    "THROTTLE_ANON": "100000000/min",
    "DJANGO_SETTINGS_MODULE": FLOOR_SETTINGS,
    "LOG_LEVEL": "WARNING",
}


def say(line: str = "") -> None:
    print(line, file=sys.stderr, flush=True)


# --- Client side (runs in the spawned client processes) ------------------------------------
class Resync(Exception):
    """A request failed (already counted): start over from fresh seats and views."""


@dataclass
class ThreadStats:
    """One client thread's record: no lock needed, merged when the thread is done."""

    samples: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    errors: Counter = field(default_factory=Counter)
    due: int = 0  # paced sends
    late: int = 0  # of which sent after they were due
    finished: int = 0  # matches this client saw finish
    resyncs: int = 0


def call(stats: ThreadStats, endpoint: str, client: KeepAliveClient, method, path, body=None):
    started = time.monotonic()
    clock = time.perf_counter()
    try:
        status, data = client.request(method, path, body)
    except Exception as exc:  # refused, reset, timed out: no answer
        stats.errors[f"{endpoint} {type(exc).__name__}"] += 1
        raise Resync from None
    seconds = time.perf_counter() - clock
    if not 200 <= status < 300 or not isinstance(data, dict):
        kind = data.get("type", "") if isinstance(data, dict) else ""
        stats.errors[f"{endpoint} {status} {kind.rsplit('/', 1)[-1]}".strip()] += 1
        raise Resync
    stats.samples.setdefault(endpoint, []).append((started, seconds))
    return data


class Pacer:
    """When a game's next action may go (paced modes); ``None`` pacer: back to back."""

    def __init__(self, pace: dict, games: int, window: tuple[float, float], rng) -> None:
        self.kind = pace["kind"]  # "rate" or "think"
        self.mean = games / pace["rate"] if self.kind == "rate" else pace["think_ms"] / 1000
        self.steady = pace["arrivals"] == "steady"
        self.count_from, self.until = window  # sends due in the measured window count
        self.rng = rng
        # Rate: the first send as if the game had been playing at this pace all along (an
        # exponential wait for Poisson gaps, a random phase for steady ones), so the games do
        # not send in step and a run is not front-loaded by everybody's first move.
        self.due = None
        if self.kind == "rate":
            first = self.gap() if not self.steady else rng.uniform(0, self.mean)
            self.due = time.monotonic() + first

    def gap(self) -> float:
        return self.mean if self.steady else self.rng.expovariate(1 / self.mean)

    def ready(self, stats: ThreadStats) -> bool:
        """The mover has its view: wait until the action is due. False when time is up."""
        now = time.monotonic()
        if self.kind == "think":
            self.due = now + self.gap()
        counted = self.count_from <= self.due < self.until
        stats.due += counted
        if self.due > now:
            time.sleep(min(self.due, self.until) - now)
        elif now - self.due > LATE_TOLERANCE:
            stats.late += counted
        return time.monotonic() < self.until

    def sent(self, at: float) -> None:
        if self.kind == "rate":
            self.due = at + self.gap()


def trivial_client(
    base_url: str, key: str, until: float, stats: ThreadStats, endpoint="trivial", path=TRIVIAL_PATH
) -> None:
    client = KeepAliveClient(base_url, key)
    while time.monotonic() < until:
        try:
            call(stats, endpoint, client, "GET", path)
        except Resync:
            stats.resyncs += 1
            time.sleep(0.05)
    client.close()


def game_client(base_url, pair: dict, window: tuple, pace, games: int, stats: ThreadStats):
    clients = [KeepAliveClient(base_url, token) for token in pair["tokens"]]
    until = window[1]
    rng = random.Random(secrets.randbits(64))
    pacer = Pacer(pace, games, window, rng) if pace else None
    while time.monotonic() < until:
        try:
            play(clients, pair["table"], until, pacer, stats)
        except Resync:
            stats.resyncs += 1
            time.sleep(0.05)
        except Exception as exc:  # an answer of an unexpected shape: counted, start over
            stats.errors[f"client {type(exc).__name__}: {exc}"[:120]] += 1
            stats.resyncs += 1
            time.sleep(0.1)
    for client in clients:
        client.close()


def play(clients, table: int, until: float, pacer: Pacer | None, stats: ThreadStats) -> None:
    """Sit both players (again: answers their seats, or opens the next match), read the
    mover's view, then move until the match ends, time is up or a request fails."""
    from games.engine import choose_action_from_view

    seats, match_id = {}, None
    for client in clients:
        seat = call(stats, "sit", client, "POST", f"/api/v1/tables/{table}/sit")
        seats[seat["position"]] = client
        match_id = seat["match_id"]
    view_path = f"/api/v1/matches/{match_id}/view"
    action_path = f"/api/v1/matches/{match_id}/actions"
    look = call(stats, "view", seats[0], "GET", view_path)
    if look["match"]["status"] != "running":  # over already: sit again
        time.sleep(0.05)
        return
    to_act = look["hand"]["to_act"]
    if to_act != 0:
        look = call(stats, "view", seats[to_act], "GET", view_path)
    while time.monotonic() < until:
        move = choose_action_from_view(look["hand"])
        if pacer is not None and not pacer.ready(stats):
            return
        if pacer is not None:
            pacer.sent(time.monotonic())
        body = {**move, "expected_seq": look["seq"]}
        answer = call(stats, "action", seats[to_act], "POST", action_path, body)
        if answer["match"]["status"] != "running":
            stats.finished += 1
            return
        mover, to_act = to_act, answer["hand"]["to_act"]
        look = answer if to_act == mover else call(stats, "view", seats[to_act], "GET", view_path)


def client_init() -> None:
    """Client processes leave Ctrl-C to the parent, which terminates them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import games.engine  # noqa: F401  (imported once, before the first phase)


def client_process(kind: str, base_url: str, items: list, params: dict) -> dict:
    """One client process: a thread per item until ``until``; samples in the window."""
    threads, stats = [], []
    if kind == "socket_games":  # one event loop plays every game of this process
        import socket_games

        stats = [ThreadStats() for _ in items]
        args = (base_url, items, params["until"], stats)
        threads.append(threading.Thread(target=socket_games.run, args=args, daemon=True))
        items = []
    for item in items:
        record = ThreadStats()
        stats.append(record)
        if kind == "trivial":
            target, args = trivial_client, (base_url, item, params["until"], record)
        elif kind == "floor":
            path = FLOOR_PATH.format(pk=params["operator_id"])
            target = trivial_client
            args = (base_url, item, params["until"], record, "floor", path)
        else:
            window = (params["warm_until"], params["until"])
            args = (base_url, item, window, params["pace"], params["games"], record)
            target = game_client
        threads.append(threading.Thread(target=target, args=args, daemon=True))
    for thread in threads:
        thread.start()
    time.sleep(max(0.0, params["warm_until"] - time.monotonic()))
    cpu_start = sum(os.times()[:2])
    time.sleep(max(0.0, params["until"] - time.monotonic()))
    cpu = sum(os.times()[:2]) - cpu_start
    for thread in threads:
        thread.join(timeout=120)
    lo, hi = params["warm_until"], params["until"]
    latencies: dict[str, list[float]] = {}
    errors: Counter = Counter()
    totals = Counter()
    for record in stats:
        for endpoint, values in record.samples.items():
            latencies.setdefault(endpoint, []).extend(s for t, s in values if lo <= t < hi)
        errors.update(record.errors)
        totals.update(
            due=record.due, late=record.late, finished=record.finished, resyncs=record.resyncs
        )
    return {
        "latencies": latencies,
        "errors": dict(errors),
        "totals": dict(totals),
        "cpu_seconds": cpu,
        "stuck_threads": sum(thread.is_alive() for thread in threads),
    }


# --- Phases (parent) ------------------------------------------------------------------------
def endpoint_summary(values: list[float], window: float) -> dict:
    def rounded(value):
        return None if value is None else round(value * 1000, 1)

    return {
        "requests": len(values),
        "per_second": round(len(values) / window, 1),
        "p50_ms": rounded(percentile(values, 50)),
        "p99_ms": rounded(percentile(values, 99)),
        "max_ms": rounded(max(values, default=None)),
    }


@dataclass
class Clients:
    pool: object
    processes: int
    base_url: str
    meter: Callable[[], CpuMeter] | None = None  # a fresh meter per measured window
    gc_dir: Path | None = None  # where the server's processes keep their collector totals

    def run(self, kind: str, items: list, *, warmup: float, seconds: float, **extra) -> dict:
        start = time.monotonic() + 0.1
        params = {"warm_until": start + warmup, "until": start + warmup + seconds, **extra}
        chunks = [items[index :: self.processes] for index in range(self.processes)]
        pending = [
            self.pool.apply_async(client_process, (kind, self.base_url, chunk, params))
            for chunk in chunks
            if chunk
        ]
        time.sleep(max(0.0, params["warm_until"] - time.monotonic()))
        meter = self.meter() if self.meter else None
        gc_before = collector_meter.snapshot(self.gc_dir) if self.gc_dir else None
        if meter:
            meter.start()
        time.sleep(max(0.0, params["until"] - time.monotonic()))
        cpu = meter.stop() if meter else {}
        gc_after = collector_meter.snapshot(self.gc_dir) if self.gc_dir else None
        results = [job.get(timeout=warmup + seconds + 300) for job in pending]
        latencies: dict[str, list[float]] = {}
        errors: Counter = Counter()
        totals: Counter = Counter()
        for result in results:
            for endpoint, values in result["latencies"].items():
                latencies.setdefault(endpoint, []).extend(values)
            errors.update(result["errors"])
            totals.update(result["totals"])
        if "client" in cpu:  # CpuMeter's "client" is this (parent) process
            cpu["bench_parent"] = cpu.pop("client")
        cpu["clients"] = round(sum(r["cpu_seconds"] for r in results) / seconds, 2)
        others = cpu.get("machine", 0) - sum(
            cpu.get(k, 0) for k in (*SERVER_PARTS, "bench_parent", "clients")
        )
        cpu["other_processes"] = round(max(0.0, others), 2)
        requests = sum(len(values) for values in latencies.values())
        server_cpu = sum(cpu.get(k, 0) for k in SERVER_PARTS)
        return {
            "requests": requests,
            # Server CPU (gunicorn, PostgreSQL, Redis; PgBouncer and HAProxy when running)
            # seconds per successful request: the figure least moved by other processes.
            "server_cpu_ms_per_request": (
                round(server_cpu * seconds * 1000 / requests, 2) if requests and cpu else None
            ),
            # PostgreSQL's share by server: the primary, a replica, the streaming itself.
            "postgres_ms_per_request": (
                {
                    server: round(cpus * seconds * 1000 / requests, 3)
                    for server, cpus in meter.postgres_servers.items()
                }
                if meter and requests
                else {}
            ),
            "window_s": seconds,
            "endpoints": {
                name: endpoint_summary(values, seconds) for name, values in latencies.items()
            },
            "errors": sum(errors.values()),
            "errors_by_status": dict(errors.most_common()),
            "totals": dict(totals),
            "cpu": cpu,
            # The garbage collector's share of the web processes (collector_meter.py).
            "gc": (
                collector_meter.between(
                    gc_before,
                    gc_after,
                    requests=requests,
                    web_cpu_s=cpu.get("gunicorn", 0) * seconds,
                )
                if gc_before is not None
                else None
            ),
            "stuck_threads": sum(r["stuck_threads"] for r in results),
        }


def closed_loop(clients: Clients, data: dict, args) -> dict:
    say(f"closed loop: floor view, {args.games} clients back to back")
    floor = clients.run(
        "floor",
        [data["operator_key"]] * args.games,
        warmup=args.warmup,
        seconds=args.seconds,
        operator_id=data["operator_id"],
    )
    say(f"closed loop: trivial endpoint, {args.games} clients back to back")
    trivial = clients.run(
        "trivial",
        [data["operator_key"]] * args.games,
        warmup=args.warmup,
        seconds=args.seconds,
    )
    say(f"closed loop: {args.games} games back to back")
    games = clients.run(
        "games",
        data["pairs"],
        warmup=args.warmup,
        seconds=args.seconds,
        pace=None,
        games=args.games,
    )
    say(f"closed loop: {args.games} games back to back, moves and views over sockets")
    socket_games = clients.run(
        "socket_games", data["pairs"], warmup=args.warmup, seconds=args.seconds
    )
    trivial_rate = trivial["endpoints"].get("trivial", {}).get("per_second", 0.0)
    action = games["endpoints"].get("action", endpoint_summary([], args.seconds))
    game_requests = sum(e["requests"] for e in games["endpoints"].values()) / args.seconds
    ratio = action["per_second"] / trivial_rate if trivial_rate else 0.0
    trivial_ms = trivial["server_cpu_ms_per_request"]
    floor_ms = floor["server_cpu_ms_per_request"]
    game_cpu = games["cpu"]
    server_seconds = sum(game_cpu.get(k, 0) for k in SERVER_PARTS)
    action_ms = (
        round(server_seconds * 1000 / action["per_second"], 2) if action["per_second"] else None
    )
    floor_rate = floor["endpoints"].get("floor", {}).get("per_second", 0.0)
    socket_action = socket_games["endpoints"].get(
        "socket_action", endpoint_summary([], args.seconds)
    )
    socket_cpu = socket_games["cpu"]
    socket_seconds = sum(socket_cpu.get(k, 0) for k in SERVER_PARTS)
    socket_action_ms = (
        round(socket_seconds * 1000 / socket_action["per_second"], 2)
        if socket_action["per_second"]
        else None
    )

    def over_floor(ms):
        return round(ms / floor_ms, 2) if ms and floor_ms else None

    return {
        "floor_view": {
            **floor["endpoints"].get("floor", endpoint_summary([], args.seconds)),
            "errors": floor["errors"],
            "errors_by_status": floor["errors_by_status"],
            "cpu": floor["cpu"],
            "server_cpu_ms_per_request": floor_ms,
        },
        # Server CPU per request over the floor view's (goals: action <= 4, trivial <= 1.5).
        "cpu_over_floor": {
            "trivial": over_floor(trivial_ms),
            "action": over_floor(action_ms),
            "socket_action": over_floor(socket_action_ms),
            "floor_requests_per_second": floor_rate,
        },
        "trivial_endpoint": {
            **trivial["endpoints"].get("trivial", endpoint_summary([], args.seconds)),
            "errors": trivial["errors"],
            "errors_by_status": trivial["errors_by_status"],
            "cpu": trivial["cpu"],
            "server_cpu_ms_per_request": trivial_ms,
        },
        "action_endpoint": action,
        "view_endpoint": games["endpoints"].get("view"),
        "sit_endpoint": games["endpoints"].get("sit"),
        "game_errors": games["errors"],
        "game_errors_by_status": games["errors_by_status"],
        "games_cpu": games["cpu"],
        "gc": {"floor": floor["gc"], "trivial": trivial["gc"], "games": games["gc"]},
        # Server CPU per action, its share of views and sits included.
        "server_cpu_ms_per_action": action_ms,
        # PostgreSQL's part of it by server (make cluster: the primary, its replica, the
        # streaming between them).
        "postgres_ms_per_action": {
            server: round(ms * games["requests"] / (action["per_second"] * args.seconds), 3)
            for server, ms in games["postgres_ms_per_request"].items()
            if action["per_second"]
        },
        "matches_finished": games["totals"].get("finished", 0),
        # The same games as the table page plays them: moves over the mover's socket, views
        # from the pushes (socket_games.py); server CPU per move, its pushes, socket opens,
        # tickets and sits included.
        "socket_games": {
            "action": socket_action,
            "endpoints": socket_games["endpoints"],
            "errors": socket_games["errors"],
            "errors_by_status": socket_games["errors_by_status"],
            "cpu": socket_cpu,
            "gc": socket_games["gc"],
            "server_cpu_ms_per_action": socket_action_ms,
            "matches_finished": socket_games["totals"].get("finished", 0),
        },
        "throughput_ratio": round(ratio, 3),
        # The games also spend server time on views (about one per two actions) and sits.
        "game_requests_per_second": round(game_requests, 1),
        "game_requests_ratio": round(game_requests / trivial_rate, 3) if trivial_rate else 0,
        # The same ratio from server CPU instead of wall-clock throughput: what the two
        # would compare on an otherwise idle machine (an estimate; see "other_processes").
        "cpu_ratio": round(trivial_ms / action_ms, 3) if trivial_ms and action_ms else None,
        "goal_ratio_at_least_0_5": ratio >= 0.5,
        "action_p99_under_goal": (action["p99_ms"] or 1e9) < args.p99_goal_ms,
    }


def paced(clients: Clients, data: dict, args, *, rate=None, think_ms=None, seconds=None) -> dict:
    seconds = seconds or args.seconds
    pace = {"kind": "rate" if rate else "think", "rate": rate, "think_ms": think_ms}
    pace["arrivals"] = args.arrivals
    label = f"{rate:g} actions/s offered" if rate else f"{think_ms:g} ms think time"
    say(f"paced: {args.games} games, {label} ({args.arrivals})")
    games = clients.run(
        "games",
        data["pairs"],
        warmup=args.warmup,
        seconds=seconds,
        pace=pace,
        games=args.games,
    )
    action = games["endpoints"].get("action", endpoint_summary([], seconds))
    totals = games["totals"]
    p99 = action["p99_ms"]
    return {
        "offered_actions_per_second": rate,
        "think_ms": think_ms,
        "arrivals": args.arrivals,
        "achieved_actions_per_second": action["per_second"],
        "action_endpoint": action,
        "view_endpoint": games["endpoints"].get("view"),
        "late_share": round(totals.get("late", 0) / totals["due"], 3) if totals.get("due") else 0,
        "errors": games["errors"],
        "errors_by_status": games["errors_by_status"],
        "matches_finished": totals.get("finished", 0),
        "cpu": games["cpu"],
        "action_p99_under_goal": p99 is not None and p99 < args.p99_goal_ms,
    }


def find_rate(clients: Clients, data: dict, args, ceiling: float) -> dict:
    """Bisect the offered rate in (0, ceiling]: highest passing rate after N steps."""
    low, high, steps = 0.0, ceiling, []
    for _ in range(args.find_steps):
        rate = round((low + high) / 2, 1)
        if rate <= 0 or rate in (s["offered_actions_per_second"] for s in steps):
            break
        result = paced(clients, data, args, rate=rate, seconds=args.find_seconds)
        passed = result["action_p99_under_goal"] and result["errors"] == 0
        result["passed"] = passed
        steps.append(result)
        say(f"  p99 {result['action_endpoint']['p99_ms']} ms: {'pass' if passed else 'fail'}")
        low, high = (rate, high) if passed else (low, rate)
    passing = [s for s in steps if s["passed"]]
    best = max(passing, key=lambda s: s["offered_actions_per_second"], default=None)
    return {
        "ceiling_actions_per_second": ceiling,
        "p99_goal_ms": args.p99_goal_ms,
        "highest_passing_rate": best["offered_actions_per_second"] if best else None,
        "at_highest": (
            {
                "achieved_actions_per_second": best["achieved_actions_per_second"],
                "p50_ms": best["action_endpoint"]["p50_ms"],
                "p99_ms": best["action_endpoint"]["p99_ms"],
                "samples": best["action_endpoint"]["requests"],
            }
            if best
            else None
        ),
        "lowest_failing_rate": min(
            (s["offered_actions_per_second"] for s in steps if not s["passed"]), default=None
        ),
        "steps": steps,
    }


# --- Set-up -----------------------------------------------------------------------------------
def bench_database_url(base_url: str, script: str = "bench_actions") -> tuple[str, str]:
    """A database name of its own per run: ``<name>_<script>_<pid>_<random>``."""
    parts = urlsplit(base_url)
    base_name = parts.path.lstrip("/") or "postgres"
    name = f"{base_name}_{script}_{os.getpid()}_{secrets.token_hex(2)}"
    return urlunsplit(parts._replace(path="/" + name)), name


def pg_execute(base_url: str, statement: str) -> None:
    """CREATE or DROP DATABASE, issued from the database DATABASE_URL names (the scratch
    database lives on its server; nothing in that database is touched)."""
    import psycopg

    with psycopg.connect(base_url, autocommit=True, connect_timeout=10) as c:
        c.execute(statement)


def setup_data(games: int, *, real_money: bool = False, jurisdiction: str | None = None) -> dict:
    """Operator, API key, a practice room with one table per game, two players per game.
    ``real_money``: a 0.01 EUR room instead, each player funded for every match it can play;
    ``jurisdiction``: the operator's player-protection profile (docs/player-protection.md:
    ``uk`` starts a play session at the first buy-in and keeps reality checks due per seat)."""
    import django

    django.setup()
    from games.services import room_create, seat_take
    from gin_platform.models import Operator
    from gin_platform.tenancy.principals import Actor
    from gin_platform.tenancy.services import (
        api_key_create,
        operator_create,
        player_create,
        player_session_create,
    )
    from wallet.services import deposit

    actor = Actor.system("bench")
    operator = operator_create(name="Bench", slug="bench", base_currency="EUR", actor=actor)
    key = api_key_create(operator=operator, actor=actor).key
    if jurisdiction is not None:
        Operator.objects.filter(pk=operator.pk).update(jurisdiction=jurisdiction)
        operator.refresh_from_db()
    room = room_create(
        operator=operator,
        name="Bench match play",
        variant="match",
        is_practice=not real_money,
        currency="EUR" if real_money else None,
        target=500,
        stake=1,
        turn_seconds=600,
        tables=games,
        actor=actor,
    )
    tables = list(room.tables.order_by("pk"))
    pairs = []
    for index in range(games):
        tokens = []
        for seat in (0, 1):
            player = player_create(operator=operator, external_ref=f"p{index}-{seat}", actor=actor)
            if real_money:
                deposit(
                    player=player,
                    amount=1_000_000,
                    currency="EUR",
                    reference=f"bench-{index}-{seat}",
                    actor=actor,
                )
            tokens.append(
                player_session_create(player=player, ttl_seconds=6 * 3600, actor=actor).token
            )
            # Seated beforehand: the measured load is the game, not the buy-ins.
            seat_take(player=player, table=tables[index], actor=actor)
        pairs.append({"table": tables[index].pk, "tokens": tokens})
    return {"operator_key": key, "operator_id": str(operator.pk), "pairs": pairs}


def gunicorn_conf(env: dict[str, str]):
    """deploy/gunicorn.conf.py loaded as a module under ``env``."""
    spec = importlib.util.spec_from_file_location("gunicorn_conf", ROOT / "deploy/gunicorn.conf.py")
    module = importlib.util.module_from_spec(spec)
    with mock.patch.dict(os.environ, env):
        spec.loader.exec_module(module)
    return module


def gunicorn_settings(env: dict[str, str], workers: int | None) -> dict:
    """What deploy/gunicorn.conf.py gives under ``env`` (a command-line worker count wins;
    ASGI_THREADS comes from ``env``)."""
    module = gunicorn_conf(env)
    return {
        "workers": workers or module.workers,
        "asgi_threads": module.asgi_threads,
        "worker_class": module.worker_class,
        "max_requests": module.max_requests,
    }


def redacted(url: str) -> str:
    return re.sub(r"//[^@/]*@", "//***@", url)


def delete_redis_keys(url: str, prefix: str) -> int:
    import redis

    client = redis.Redis.from_url(url)
    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    for start in range(0, len(keys), 500):
        client.delete(*keys[start : start + 500])
    return len(keys)


def log_problems(path: Path, limit: int = 12) -> list[str]:
    if not path.exists():
        return []
    pattern = re.compile(r"\b(ERROR|CRITICAL)\b|^\w*(Error|Exception):|Traceback")
    found = [
        line.strip()[:300]
        for line in path.read_text(errors="replace").splitlines()
        # The readiness polls' 503 with the memory broker (3.) is expected.
        if pattern.search(line) and "Service Unavailable: /api/v1/health" not in line
    ]
    return found if len(found) <= limit else [*found[:limit], f"... {len(found)} in all"]


def match_counts(database_url: str) -> dict:
    import psycopg

    with psycopg.connect(database_url, autocommit=True, connect_timeout=10) as connection:
        rows = connection.execute("SELECT status, count(*) FROM games_match GROUP BY status")
        return dict(sorted(rows.fetchall()))


# --- Main -------------------------------------------------------------------------------------
def numbers(text: str) -> list[float]:
    values = [float(part) for part in text.split(",") if part.strip()]
    if not values or min(values) <= 0:
        raise argparse.ArgumentTypeError("positive numbers, comma-separated")
    return values


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=32, help="concurrent games (default 32)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds per run")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring")
    parser.add_argument("--workers", type=int, default=None, help="gunicorn worker processes")
    parser.add_argument(
        "--asgi-threads",
        type=int,
        default=None,
        help="synchronous requests per worker at once (ASGI_THREADS)",
    )
    parser.add_argument(
        "--client-processes", type=int, default=2, help="client processes (default 2)"
    )
    parser.add_argument(
        "--rate", type=numbers, default=[], help="paced: total actions/s offered, e.g. 20,40"
    )
    parser.add_argument(
        "--think-ms", type=numbers, default=[], help="paced: think time per move, e.g. 500,1000"
    )
    parser.add_argument(
        "--arrivals",
        choices=("poisson", "steady"),
        default="poisson",
        help="paced gaps: exponential (default) or exactly the mean",
    )
    parser.add_argument(
        "--find-rate", action="store_true", help="bisect the highest rate with p99 under goal"
    )
    parser.add_argument("--find-steps", type=int, default=5, help="paced runs of --find-rate")
    parser.add_argument("--find-seconds", type=float, default=None, help="default --seconds")
    parser.add_argument("--p99-goal-ms", type=float, default=50.0)
    parser.add_argument(
        "--real-money", action="store_true", help="a 0.01 EUR room instead of practice"
    )
    parser.add_argument(
        "--jurisdiction",
        default=None,
        help="the operator's player-protection profile (uk, es, it, mga, none); real money",
    )
    parser.add_argument("--keep-database", action="store_true")
    parser.add_argument("--keep-logs", action="store_true", help="keep gunicorn's log")
    parser.add_argument("--json", type=Path, help="also write the JSON report here")
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 512:
        parser.error("--games: 1 to 512")
    if not 1 <= args.client_processes <= 64:
        parser.error("--client-processes: 1 to 64")
    args.client_processes = min(args.client_processes, args.games)
    if args.seconds <= 0 or args.warmup < 0:
        parser.error("--seconds must be positive and --warmup not negative")
    args.find_seconds = args.find_seconds or args.seconds
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    exit_on_sigterm()
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith(("postgres://", "postgresql://")):
        sys.exit("bench_actions needs PostgreSQL: set DATABASE_URL=postgres://...")
    url, name = bench_database_url(base)
    redis_url = os.environ.get("REDIS_URL") or None
    env = {
        "DATABASE_URL": url,
        **SERVER_ENV,
        "GUNICORN_ACCESSLOG": "",
        "PYTHONUNBUFFERED": "1",
    }
    if redis_url:
        import redis

        try:
            redis.Redis.from_url(redis_url, socket_connect_timeout=2).ping()
        except Exception as exc:
            sys.exit(f"REDIS_URL={redacted(redis_url)} does not answer: {exc}")
        env |= {
            "REDIS_URL": redis_url,
            "CACHE_KEY_PREFIX": name,
            "CHANNEL_LAYER_PREFIX": f"{name}:ws",
            "CELERY_BROKER_URL": MEMORY_BROKER,
        }
    else:
        for variable in ("REDIS_URL", "CELERY_BROKER_URL"):
            os.environ.pop(variable, None)
    if args.workers:
        env["GUNICORN_WORKERS"] = str(args.workers)
    if args.asgi_threads:
        env["ASGI_THREADS"] = str(args.asgi_threads)
    os.environ.update(env)
    server = gunicorn_settings(dict(os.environ), args.workers)
    stack = {
        "server": (
            f"gunicorn {server['workers']} workers ({server['worker_class']}, "
            f"{APPLICATION}), ASGI_THREADS {server['asgi_threads']}, "
            f"deploy/gunicorn.conf.py, max_requests {server['max_requests']}"
        ),
        "database": f"PostgreSQL {urlsplit(url).hostname}:{urlsplit(url).port or 5432}/{name}",
        "cache_and_throttling": (
            f"Redis {redacted(redis_url)} (key prefix {name})"
            if redis_url
            else "local memory (no REDIS_URL): throttle buckets per worker process"
        ),
        "celery": (
            f"broker {MEMORY_BROKER} in each server process, no worker: a finished match's "
            "settlement is queued and never runs"
            if redis_url
            else "eager (no broker): a finished match is settled inside the request"
        ),
        "clients": f"{args.client_processes} processes, {args.games} client threads in all",
    }
    say(f"machine: {machine_summary()}")
    for key, value in stack.items():
        say(f"{key}: {value}")

    logs = Path(tempfile.mkdtemp(prefix="bench-actions-"))
    created, gunicorn, pool = False, None, None
    report: dict = {}
    try:
        pg_execute(base, f'CREATE DATABASE "{name}"')
        created = True
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=ROOT, check=True
        )
        data = setup_data(
            args.games,
            real_money=args.real_money or args.jurisdiction is not None,
            jurisdiction=args.jurisdiction,
        )
        from django.db import connections

        connections.close_all()
        pool = multiprocessing.get_context("spawn").Pool(
            args.client_processes, initializer=client_init
        )
        port = free_port()
        base_url = f"http://127.0.0.1:{port}"
        command = gunicorn_command(port=port, workers=server["workers"])
        gc_dir = logs / "gc"
        gc_dir.mkdir()
        gunicorn = start_group(
            command, {**os.environ, "BENCH_GC_DIR": str(gc_dir)}, logs / "gunicorn.log"
        )
        wait_healthy(base_url, gunicorn, database_only=True)
        clients = Clients(
            pool,
            args.client_processes,
            base_url,
            meter=lambda: CpuMeter(groups={"gunicorn": gunicorn.pid}, database=name),
            gc_dir=gc_dir,
        )
        report = {
            "machine": machine_summary(),
            "stack": stack,
            "concurrent_games": args.games,
            "cpus": len(os.sched_getaffinity(0)),
            "seconds": args.seconds,
            "warmup": args.warmup,
            "closed_loop": closed_loop(clients, data, args),
        }
        if args.rate or args.think_ms:
            report["paced"] = [paced(clients, data, args, rate=rate) for rate in args.rate] + [
                paced(clients, data, args, think_ms=think) for think in args.think_ms
            ]
        if args.find_rate:
            ceiling = report["closed_loop"]["action_endpoint"]["per_second"]
            report["find_rate"] = find_rate(clients, data, args, ceiling)
        report["matches_by_status"] = match_counts(url)
        report["server_log_problems"] = log_problems(logs / "gunicorn.log")
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
        with contextlib.suppress(Exception):
            stop_group(gunicorn)
        if redis_url:
            try:
                delete_redis_keys(redis_url, name)
            except Exception as exc:
                say(f"cleanup: deleting Redis keys {name}:*: {exc}")
        if created and not args.keep_database:
            try:
                pg_execute(base, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            except Exception as exc:
                say(f"cleanup: dropping {name}: {exc}")
        elif created:
            say(f"kept database {name}")
        if args.keep_logs:
            say(f"gunicorn log kept in {logs}")
        else:
            shutil.rmtree(logs, ignore_errors=True)

    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    for line in summary_lines(report, args):
        print(line)
    return 0


def _met(ratio: float | None, goal: float) -> str:
    return "met" if ratio is not None and ratio <= goal else "not met"


def summary_lines(report: dict, args) -> list[str]:
    goal = args.p99_goal_ms
    closed = report["closed_loop"]
    a, t, f = closed["action_endpoint"], closed["trivial_endpoint"], closed["floor_view"]
    sockets = closed["socket_games"]
    errors = closed["game_errors"] + t["errors"] + f["errors"] + sockets["errors"]
    over = closed["cpu_over_floor"]
    lines = [
        f"floor of the stack (one PK SELECT, plain Django view): {f['per_second']}/s, server "
        f"CPU {f['server_cpu_ms_per_request']} ms per request; over it: trivial endpoint "
        f"{over['trivial']}x (goal <= 1.5: {_met(over['trivial'], 1.5)}), action "
        f"{over['action']}x (goal <= 4: {_met(over['action'], 4)}); action over its socket, "
        f"views pushed {over['socket_action']}x (goal <= 4: {_met(over['socket_action'], 4)})",
        f"closed loop (saturation), {args.games} games back to back: actions {a['per_second']}/s "
        f"(p50 {a['p50_ms']} ms, p99 {a['p99_ms']} ms) vs trivial {t['per_second']}/s "
        f"(p50 {t['p50_ms']} ms, p99 {t['p99_ms']} ms): ratio {closed['throughput_ratio']:.2f} "
        f"(goal >= 0.5: {'met' if closed['goal_ratio_at_least_0_5'] else 'not met'}); "
        f"server CPU {closed['server_cpu_ms_per_action']} ms per action vs "
        f"{t['server_cpu_ms_per_request']} ms per trivial request (ratio "
        f"{closed['cpu_ratio']}); other processes took "
        f"{closed['games_cpu'].get('other_processes')} CPUs; errors {errors}",
        f"closed loop over sockets, {args.games} games back to back: moves "
        f"{sockets['action']['per_second']}/s (send to action_result p50 "
        f"{sockets['action']['p50_ms']} ms, p99 {sockets['action']['p99_ms']} ms), server CPU "
        f"{sockets['server_cpu_ms_per_action']} ms per move, its pushes, sockets and sits "
        f"included; errors {sockets['errors']} {sockets['errors_by_status'] or ''}".rstrip(),
    ]
    collector = closed.get("gc") or {}
    if all(collector.get(phase) for phase in ("floor", "trivial", "games")):
        per_action = (
            round(sum(collector["games"]["cpu_ms"]) / closed["action_endpoint"]["requests"], 3)
            if closed["action_endpoint"]["requests"]
            else None
        )
        lines.append(
            "garbage collection in the web processes: floor "
            f"{collector['floor']['cpu_ms_per_request']} ms per request "
            f"({collector['floor']['share_of_web_cpu']:.1%} of their CPU), trivial "
            f"{collector['trivial']['cpu_ms_per_request']} ms "
            f"({collector['trivial']['share_of_web_cpu']:.1%}), games {per_action} ms per "
            f"action ({collector['games']['share_of_web_cpu']:.1%}); collections by "
            f"generation in the game phase {collector['games']['collections']}, the longest "
            f"full one {collector['games']['longest_full_ms_so_far']} ms; "
            f"{collector['games']['objects_frozen']} objects frozen"
        )
    for run in report.get("paced", []):
        a = run["action_endpoint"]
        pace = (
            f"{run['offered_actions_per_second']:g} actions/s offered"
            if run["offered_actions_per_second"]
            else f"{run['think_ms']:g} ms think time"
        )
        lines.append(
            f"paced, {args.games} games at {pace} ({run['arrivals']}): "
            f"{run['achieved_actions_per_second']} actions/s, p50 {a['p50_ms']} ms, "
            f"p99 {a['p99_ms']} ms ({a['requests']} actions; p99 < {goal:g} ms: "
            f"{'met' if run['action_p99_under_goal'] else 'not met'}); late "
            f"{run['late_share']:.0%}; errors {run['errors']}"
        )
    found = report.get("find_rate")
    if found:
        tried = ", ".join(
            f"{s['offered_actions_per_second']:g} ({s['action_endpoint']['p99_ms']} ms of "
            f"{s['action_endpoint']['requests']}, {'ok' if s['passed'] else 'over'})"
            for s in found["steps"]
        )
        best = found["highest_passing_rate"]
        head = (
            f"find-rate: action p99 < {goal:g} ms at {args.games} concurrent games up to "
            f"{best:g} actions/s offered (p50 {found['at_highest']['p50_ms']} ms, "
            f"p99 {found['at_highest']['p99_ms']} ms)"
            if best
            else f"find-rate: no offered rate tried kept action p99 < {goal:g} ms"
        )
        lines.append(f"{head}; tried (actions/s: p99 of n actions): {tried}")
    runs = [*report.get("paced", []), *(found or {}).get("steps", [])]
    if any(run["action_endpoint"]["requests"] < 100 for run in runs):
        lines.append(
            "note: a p99 of fewer than 100 actions is about their maximum; raise --seconds "
            "(--find-seconds) for a steadier figure"
        )
    return lines


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        say("interrupted: stopped the clients and the server, dropped the scratch database")
        sys.exit(130)

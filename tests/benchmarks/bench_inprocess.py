"""A move's Python CPU in one process: bot games through Django's WSGI handler, no server.

Run (needs PostgreSQL; Redis is used when REDIS_URL is set, as in production):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
        [REDIS_URL=redis://127.0.0.1:6379/13] \\
        .venv/bin/python tests/benchmarks/bench_inprocess.py [--games 8] [--seconds 10] \\
        [--alternate MODULE [--blocks 30] [--block-seconds 0.5]]

bench_actions.py measures the whole server, PostgreSQL and Redis included, and its figures
move with the machine by 10-20% from one run to the next. This one measures what a change to
the Python of the request path saves, with less noise: one thread calls Django's WSGI
handler directly (the deployed settings and middleware, the floor view's route, the
database pool as gunicorn.conf.py's ``post_worker_init`` sets it up) and times each request
in its own thread's CPU time. No HTTP server, no PostgreSQL or Redis CPU: what the web
process's Python spends, per endpoint.

1. creates, migrates and seeds a scratch database ``<name>_bench_inprocess_<pid>_<random>``
   as bench_actions.py does (``--games`` tables, two seated players each), dropped at the
   end unless ``--keep-database``;
2. warms up for 2 s, then calls the floor view 1,000 times and plays the games back to back
   for ``--seconds`` (a move's answer is the mover's view; the other player reads
   ``GET .../view`` when the turn passes, as in bench_actions.py). Printed: Python CPU per
   floor request, per action, per view, and per action with its share of views and sits,
   and that over the floor's;
3. with ``--alternate MODULE`` (a module on ``sys.path``, or a file, defining ``on()`` and
   ``off()``, each switching the process to one of two variants of the code, typically by
   patching a function back to an older version): ``--blocks`` pairs of blocks of
   ``--block-seconds`` each, variant A (``on``) and B (``off``) in turn, each block followed
   by 100 floor requests, so the machine's drift falls on both alike. Printed: the CPU per
   action of each variant and their difference.

py-spy can profile it from outside (``py-spy record --rate 400 --format raw -- python
tests/benchmarks/bench_inprocess.py``): one thread, so the samples are the request path's.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_actions import (
    FLOOR_PATH,
    MEMORY_BROKER,
    ROOT,
    SERVER_ENV,
    Resync,
    ThreadStats,
    bench_database_url,
    gunicorn_conf,
    pg_execute,
    play,
    setup_data,
)

WARM_UP_SECONDS = 2.0
FLOOR_REQUESTS = 1000


class Meter:
    """Each request's thread CPU, added up by endpoint."""

    def __init__(self) -> None:
        self.cost: dict[str, list] = {}

    def add(self, endpoint: str, seconds: float) -> None:
        totals = self.cost.setdefault(endpoint, [0, 0.0])
        totals[0] += 1
        totals[1] += seconds

    def per_action_ms(self) -> float | None:
        actions = self.cost.get("action", [0, 0.0])[0]
        spent = sum(self.cost.get(name, [0, 0.0])[1] for name in ("action", "view", "sit"))
        return round(1000 * spent / actions, 3) if actions else None


def _endpoint(path: str) -> str:
    for suffix, endpoint in (("/sit", "sit"), ("/view", "view"), ("/actions", "action")):
        if path.endswith(suffix):
            return endpoint
    return "floor" if path.startswith("/bench/floor/") else path


class InProcessClient:
    """``harness.KeepAliveClient``'s ``request``, answered by Django's WSGI handler in this
    thread, its CPU time added to ``meter``: bench_actions.py's bot loop (``play``) drives
    it as it drives the HTTP clients."""

    handler = None  # one WSGIHandler (middleware loaded once) for every client

    def __init__(self, meter: Meter, token: str | None = None) -> None:
        from django.core.handlers.wsgi import WSGIHandler

        if InProcessClient.handler is None:
            InProcessClient.handler = WSGIHandler()
        self.meter, self.token = meter, token

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, object]:
        payload = json.dumps(body).encode() if body is not None else b""
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "127.0.0.1:8000",
            "HTTP_ACCEPT": "application/json",
            "REMOTE_ADDR": "127.0.0.1",
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(payload),
            "CONTENT_LENGTH": str(len(payload)),
        }
        if self.token is not None:
            environ["HTTP_AUTHORIZATION"] = f"Bearer {self.token}"
        if body is not None:
            environ["CONTENT_TYPE"] = "application/json"
        status: list[str] = []
        started = time.thread_time()
        answer = self.handler(environ, lambda line, headers: status.append(line))
        content = b"".join(answer)
        answer.close()
        self.meter.add(_endpoint(path), time.thread_time() - started)
        return int(status[0].split(" ", 1)[0]), json.loads(content) if content else None

    def close(self) -> None:
        pass


class Bench:
    """The scratch data's games and floor, played in this thread."""

    def __init__(self, data: dict) -> None:
        self.meter = Meter()
        self.floor_client = InProcessClient(self.meter)
        self.floor_path = FLOOR_PATH.format(pk=data["operator_id"])
        self.games = [
            ([InProcessClient(self.meter, token) for token in pair["tokens"]], pair["table"])
            for pair in data["pairs"]
        ]
        self.next_game = 0

    def floor(self, count: int) -> None:
        for _ in range(count):
            status, answer = self.floor_client.request("GET", self.floor_path)
            if status != 200:
                raise RuntimeError(f"floor: {status} {answer}")

    def play_for(self, seconds: float) -> None:
        """Whole games, one table after another, as bench_actions.py's clients play them;
        any failed request stops the benchmark (a figure over failures means nothing)."""
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            clients, table = self.games[self.next_game % len(self.games)]
            self.next_game += 1
            stats = ThreadStats()
            try:
                play(clients, table, until, None, stats)
            except Resync:
                raise RuntimeError(f"a request failed: {dict(stats.errors)}") from None


def pooled_like_a_web_worker() -> None:
    """The database settings a gunicorn worker serves with (its ``post_worker_init``)."""
    from django.conf import settings
    from django.db import connections

    conf = gunicorn_conf(dict(os.environ))
    connections.close_all()
    for database in settings.DATABASES.values():
        pool = conf.database_pool_options(database, os.environ)
        if pool:
            database["CONN_MAX_AGE"] = 0
            database.setdefault("OPTIONS", {})["pool"] = pool


def variant_module(name: str):
    if name.endswith(".py"):
        spec = importlib.util.spec_from_file_location("bench_variant", name)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    return importlib.import_module(name)


def measure(bench: Bench, args) -> dict:
    bench.floor(FLOOR_REQUESTS)
    bench.play_for(args.seconds)
    report = {
        endpoint: {"requests": count, "cpu_ms_per_request": round(1000 * spent / count, 3)}
        for endpoint, (count, spent) in bench.meter.cost.items()
    }
    floor = report["floor"]["cpu_ms_per_request"]
    per_action = bench.meter.per_action_ms()
    report["per_action_with_views_and_sits_ms"] = per_action
    report["over_floor"] = round(per_action / floor, 2) if per_action else None
    return report


def alternate(bench: Bench, args) -> dict:
    module = variant_module(args.alternate)
    totals = {"A": [0, 0.0, 0.0], "B": [0, 0.0, 0.0]}  # actions, game CPU, floor CPU
    for block in range(2 * args.blocks):
        name = "A" if block % 2 == 0 else "B"
        (module.on if name == "A" else module.off)()
        bench.meter.cost.clear()
        started = time.thread_time()
        bench.play_for(args.block_seconds)
        bench.floor(100)
        spent = time.thread_time() - started
        floor = bench.meter.cost["floor"][1]
        totals[name][0] += bench.meter.cost.get("action", [0, 0.0])[0]
        totals[name][1] += spent - floor
        totals[name][2] += floor
    report = {
        name: {
            "actions": actions,
            "cpu_ms_per_action": round(1000 * game / actions, 3) if actions else None,
            "floor_cpu_ms": round(1000 * floor / (100 * args.blocks), 3),
        }
        for name, (actions, game, floor) in totals.items()
    }
    a, b = report["A"]["cpu_ms_per_action"], report["B"]["cpu_ms_per_action"]
    report["a_minus_b_ms"] = round(a - b, 3) if a and b else None
    return report


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--alternate", help="module or file with on() and off()")
    parser.add_argument("--blocks", type=int, default=30)
    parser.add_argument("--block-seconds", type=float, default=0.5)
    parser.add_argument("--keep-database", action="store_true")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith(("postgres://", "postgresql://")):
        sys.exit("bench_inprocess needs PostgreSQL: set DATABASE_URL=postgres://...")
    url, name = bench_database_url(base, "bench_inprocess")
    os.environ.update({"DATABASE_URL": url, **SERVER_ENV})
    if os.environ.get("REDIS_URL"):
        os.environ.update(
            {
                "CACHE_KEY_PREFIX": name,
                "CHANNEL_LAYER_PREFIX": f"{name}:ws",
                "CELERY_BROKER_URL": MEMORY_BROKER,
            }
        )
    else:
        os.environ.pop("CELERY_BROKER_URL", None)
    pg_execute(base, f'CREATE DATABASE "{name}"')
    try:
        manage = [sys.executable, "manage.py", "migrate", "--verbosity", "0"]
        subprocess.run(manage, cwd=ROOT, check=True)
        data = setup_data(args.games)
        pooled_like_a_web_worker()
        bench = Bench(data)
        bench.play_for(WARM_UP_SECONDS)
        bench.floor(200)
        bench.meter.cost.clear()
        report = alternate(bench, args) if args.alternate else measure(bench, args)
        print(json.dumps(report, indent=1))
    finally:
        from django.db import connections

        connections.close_all()
        pools = getattr(type(connections["default"]), "_connection_pools", {})
        for pool in list(pools.values()):  # the pool's idle connections, before the DROP
            pool.close()
        if args.keep_database:
            print(f"kept database {name}")
        else:
            pg_execute(base, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return 0


if __name__ == "__main__":
    sys.exit(main())

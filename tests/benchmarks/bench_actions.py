"""Action API throughput and latency: bot pairs playing over HTTP (issue 5, Speed).

Run (needs PostgreSQL; a scratch database is created and dropped):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python tests/benchmarks/bench_actions.py [--games 32] [--seconds 20]

What it does:
1. creates the scratch database ``<name>_bench_actions``, migrates it, and sets up one
   operator, a practice Match Play room to 500 (long games: almost every request is a move)
   with one table per game, and two players with session tokens per game;
2. starts the API under gunicorn (deploy/gunicorn.conf.py, sync workers, 2 per CPU + 1) on
   that database;
3. baseline: ``--games`` client threads call a trivial authenticated endpoint
   (``GET /api/v1/operators/me``: authentication plus one small serializer) back to back;
4. games: ``--games`` client threads each play one table with the engine's bot for both
   seats, from the players' own views: ``POST /matches/{id}/actions`` for every move, and
   ``GET /matches/{id}/view`` only when the turn passes to the other player (the action's
   answer is already the mover's view). A finished match is followed by a new one at the
   same table;
5. prints requests per second and p50/p99 latency of both, and the ratio of the action
   endpoint's throughput to the trivial endpoint's (goal: >= 0.5, and p99 < 50 ms at 32
   concurrent games).

Clients, server and PostgreSQL share the machine: the client threads' bot decisions and HTTP
parsing take CPU from the server, as they would not in production. The numbers are for this
machine, at this commit.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


@dataclass
class Samples:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, seconds: float) -> None:
        with self.lock:
            self.latencies.append(seconds)

    def summary(self, elapsed: float) -> dict:
        values = sorted(self.latencies)
        if not values:
            return {"requests": 0, "per_second": 0.0, "p50_ms": None, "p99_ms": None}
        return {
            "requests": len(values),
            "errors": self.errors,
            "per_second": round(len(values) / elapsed, 1),
            "p50_ms": round(statistics.median(values) * 1000, 2),
            "p99_ms": round(values[min(len(values) - 1, int(len(values) * 0.99))] * 1000, 2),
        }


class Client:
    """One HTTP/1.1 connection (reopened when the sync worker closes it)."""

    def __init__(self, base_url: str, token: str) -> None:
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname, parts.port
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        self.connection: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        payload = None if body is None else json.dumps(body)
        for attempt in range(2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
            try:
                self.connection.request(method, path, body=payload, headers=self.headers)
                response = self.connection.getresponse()
                data = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.connection.close()
                    self.connection = None
                return response.status, json.loads(data) if data else {}
            except (http.client.HTTPException, ConnectionError):
                self.connection.close()
                self.connection = None
                if attempt:
                    raise
        raise AssertionError("unreachable")


def timed(samples: Samples, client: Client, method: str, path: str, body=None):
    start = time.perf_counter()
    status, data = client.request(method, path, body)
    samples.add(time.perf_counter() - start)
    return status, data


# --- Setup ------------------------------------------------------------------------------
def bench_database_url(base_url: str) -> tuple[str, str]:
    parts = urlsplit(base_url)
    name = (parts.path.lstrip("/") or "postgres") + "_bench_actions"
    return urlunsplit(parts._replace(path="/" + name)), name


def _maintenance_url(base_url: str) -> str:
    return urlunsplit(urlsplit(base_url)._replace(path="/postgres"))


def recreate_database(base_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(_maintenance_url(base_url), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')


def drop_database(base_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(_maintenance_url(base_url), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def setup_data(games: int) -> dict:
    """Operator, API key, a practice room with one table per game, two players per game."""
    import django

    django.setup()
    from games.services import room_create, seat_take
    from gin_platform.principals import Actor
    from gin_platform.services import (
        api_key_create,
        operator_create,
        player_create,
        player_session_create,
    )

    actor = Actor.system("bench")
    operator = operator_create(name="Bench", slug="bench", base_currency="EUR", actor=actor)
    key = api_key_create(operator=operator, actor=actor).key
    room = room_create(
        operator=operator,
        name="Bench match play",
        variant="match",
        is_practice=True,
        target=500,
        stake=1,
        turn_seconds=600,
        tables=games,
        actor=actor,
    )
    tables = list(room.tables.order_by("pk"))
    pairs = []
    for index in range(games):
        tokens, match_id = [], None
        for seat in (0, 1):
            player = player_create(operator=operator, external_ref=f"p{index}-{seat}", actor=actor)
            tokens.append(
                player_session_create(player=player, ttl_seconds=6 * 3600, actor=actor).token
            )
            # Seated beforehand: the measured load is the game, not the buy-ins.
            match_id = seat_take(player=player, table=tables[index], actor=actor).seat.match_id
        pairs.append({"table": tables[index].pk, "tokens": tokens, "match_id": match_id})
    return {"operator_key": key, "pairs": pairs}


# --- Load ---------------------------------------------------------------------------------
def trivial_load(base_url: str, key: str, threads: int, seconds: float) -> dict:
    samples = Samples()
    stop = threading.Event()

    def run() -> None:
        client = Client(base_url, key)
        while not stop.is_set():
            status, _ = timed(samples, client, "GET", "/api/v1/operators/me")
            if status != 200:
                samples.errors += 1

    workers = [threading.Thread(target=run, daemon=True) for _ in range(threads)]
    for worker in workers:
        worker.start()
    time.sleep(seconds)
    stop.set()
    for worker in workers:
        worker.join()
    return samples.summary(seconds)


def play_table(base_url: str, pair: dict, actions: Samples, views: Samples, stop) -> None:
    from games.engine import choose_action_from_view

    clients = [Client(base_url, token) for token in pair["tokens"]]
    table = pair["table"]
    while not stop.is_set():
        seats = {}
        for client in clients:  # sitting again where seated answers the seat (no charge)
            status, seat = client.request("POST", f"/api/v1/tables/{table}/sit")
            if status not in (200, 201):
                actions.errors += 1
                return
            seats[seat["position"]] = client
            match_id = seat["match_id"]
        status, look = timed(views, seats[0], "GET", f"/api/v1/matches/{match_id}/view")
        to_act = look["hand"]["to_act"]
        if to_act != 0:
            status, look = timed(views, seats[to_act], "GET", f"/api/v1/matches/{match_id}/view")
        while not stop.is_set() and look["match"]["status"] == "running":
            move = choose_action_from_view(look["hand"])
            status, answer = timed(
                actions,
                seats[to_act],
                "POST",
                f"/api/v1/matches/{match_id}/actions",
                {**move, "expected_seq": look["seq"]},
            )
            if status != 200:
                actions.errors += 1
                return
            if answer["match"]["status"] != "running":
                break
            mover, to_act = to_act, answer["hand"]["to_act"]
            if to_act == mover:
                look = answer
            else:
                _, look = timed(views, seats[to_act], "GET", f"/api/v1/matches/{match_id}/view")


def game_load(base_url: str, pairs: list[dict], seconds: float, warmup: float) -> dict:
    actions, views = Samples(), Samples()
    stop = threading.Event()
    workers = [
        threading.Thread(
            target=play_table, args=(base_url, pair, actions, views, stop), daemon=True
        )
        for pair in pairs
    ]
    for worker in workers:
        worker.start()
    time.sleep(warmup)
    with actions.lock, views.lock:
        actions.latencies.clear()
        views.latencies.clear()
    time.sleep(seconds)
    stop.set()
    for worker in workers:
        worker.join(timeout=60)
    return {"actions": actions.summary(seconds), "views": views.summary(seconds)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=32, help="concurrent games")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--workers", type=int, default=None, help="gunicorn workers")
    parser.add_argument("--keep-database", action="store_true")
    args = parser.parse_args()

    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith(("postgres://", "postgresql://")):
        sys.exit("bench_actions needs PostgreSQL: set DATABASE_URL=postgres://...")
    url, name = bench_database_url(base)
    recreate_database(base, name)
    env = {
        "DATABASE_URL": url,
        "DEBUG": "false",
        "THROTTLE_PLAYER": "100000000/min",
        "THROTTLE_OPERATOR": "100000000/min",
        "DJANGO_SETTINGS_MODULE": "gin_platform.settings",
        "LOG_LEVEL": "WARNING",
    }
    for variable in ("REDIS_URL", "CELERY_BROKER_URL"):  # settlement runs eagerly in-process
        os.environ.pop(variable, None)
    os.environ.update(env)
    try:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=ROOT, check=True
        )
        data = setup_data(args.games)
        from django.db import connections

        connections.close_all()
        from gin_platform.demo.server import running_server

        server_env = dict(env)
        if args.workers:
            server_env["GUNICORN_WORKERS"] = str(args.workers)
        with running_server(workers=args.workers or _default_workers(), env=server_env) as api:
            trivial_load(api, data["operator_key"], args.games, args.warmup)  # warm up
            trivial = trivial_load(api, data["operator_key"], args.games, args.seconds)
            games = game_load(api, data["pairs"], args.seconds, args.warmup)
    finally:
        if not args.keep_database:
            drop_database(base, name)
    ratio = games["actions"]["per_second"] / trivial["per_second"] if trivial["per_second"] else 0
    report = {
        "concurrent_games": args.games,
        "cpus": os.cpu_count(),
        "trivial_endpoint": trivial,
        "action_endpoint": games["actions"],
        "view_endpoint": games["views"],
        "throughput_ratio": round(ratio, 3),
        "goal": {
            "ratio_at_least_0_5": ratio >= 0.5,
            "action_p99_under_50ms": (games["actions"]["p99_ms"] or 1e9) < 50,
        },
    }
    print(json.dumps(report, indent=2))
    print(
        f"actions {games['actions']['per_second']}/s "
        f"(p50 {games['actions']['p50_ms']} ms, p99 {games['actions']['p99_ms']} ms) vs "
        f"trivial {trivial['per_second']}/s "
        f"(p50 {trivial['p50_ms']} ms, p99 {trivial['p99_ms']} ms): ratio {ratio:.2f}"
    )


def _default_workers() -> int:
    import importlib.util

    spec = importlib.util.spec_from_file_location("gunicorn_conf", ROOT / "deploy/gunicorn.conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.available_cpus() * 2 + 1


if __name__ == "__main__":
    main()

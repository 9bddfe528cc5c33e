"""Benchmark: games settled per second by one Celery worker on PostgreSQL and Redis, beside
the wallet's raw postings per second (docs/settlement.md "Speed").

    .venv/bin/python tests/benchmarks/bench_settlement.py [--games 1500] [--deposits 1500]

1. Creates a scratch database ``bench_settle_<pid>`` on the PostgreSQL server of
   DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) and migrates it.
2. Opens ``--games`` First To Knock games between funded players (real buy-ins into
   escrow) and finishes each one by a forfeit (a real R10 result), with settlement's
   receiver disconnected so nothing is settled yet; then ANALYZE, as autovacuum would.
   Runs with DEBUG off, as production does.
3. Queues one ``settle_game`` task per game on Redis (REDIS_URL, default db 13, flushed),
   starts ONE worker process (``celery -A gin_platform worker -P solo -c 1``) and waits
   until every game is settled; the rate is games over the time between the first and the
   last settlement (the worker's start-up is not counted).
4. Times ``--deposits`` calls of ``wallet.services.deposit`` in this process (one client):
   the wallet's raw postings per second on the same database.
5. Prints both and the ratio, checks the ledger reconciles, drops the scratch database.
It is a script, not a test: pytest does not collect tests/benchmarks/.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS = "redis://127.0.0.1:6379/13"
QUEUE = "bench-settlement"


def with_database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def admin(url: str, statement: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(statement)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1500)  # ~8 s of settling: a steady rate
    parser.add_argument("--deposits", type=int, default=1500)
    args = parser.parse_args()

    server_url = os.environ.get("DATABASE_URL", DEFAULT_URL)
    redis_url = os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS)
    name = f"bench_settle_{os.getpid()}"
    database_url = with_database(server_url, name)
    admin(server_url, f'CREATE DATABASE "{name}"')
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url}
    env["LOG_LEVEL"] = "WARNING"
    env["DEBUG"] = "false"  # as in production: DEBUG keeps every query's SQL
    worker = None
    try:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--verbosity", "0"],
            cwd=ROOT,
            env=env,
            check=True,
        )
        os.environ.update(
            {"DATABASE_URL": database_url, "REDIS_URL": redis_url, "DEBUG": env["DEBUG"]}
        )
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gin_platform.settings")
        sys.path.insert(0, str(ROOT))
        import django

        django.setup()
        import redis

        redis.Redis.from_url(redis_url).flushdb()
        match_ids = finished_games(args.games)
        # Statistics as a live database has them (autovacuum), as pgbench -i leaves its own:
        # planned on the near-empty tables of a minute ago, the worker's statements would
        # scan tables that have since grown.
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        from settlement.tasks import settle_game

        for match_id in match_ids:
            settle_game.apply_async((match_id,), queue=QUEUE)
        from tests.processes import worker_command

        worker = subprocess.Popen(worker_command(queues=QUEUE), cwd=ROOT, env=env)
        games_per_second = wait_for_settlements(match_ids)
        postings_per_second = deposit_rate(args.deposits)
        from wallet.selectors import reconcile

        report = reconcile()
        print(
            f"games settled by one worker:   {games_per_second:8.1f} games/s "
            f"({len(match_ids)} games)"
        )
        print(f"wallet.services.deposit:       {postings_per_second:8.1f} postings/s (1 client)")
        print(f"ratio settlements / postings:  {games_per_second / postings_per_second:8.2f}")
        print(f"ledger reconciles:             {report.ok}")
    finally:
        if worker is not None:
            from tests.processes import stop

            stop(worker)
        from django.db import connections

        connections.close_all()
        admin(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def finished_games(count: int) -> list[int]:
    from games import services as game_services
    from games.models import Match, Room, Table
    from games.signals import match_finished
    from gin_platform import services as platform_services
    from gin_platform.models import Player
    from gin_platform.principals import Actor
    from wallet import services as wallet_services

    match_finished.disconnect(dispatch_uid="settlement.enqueue")
    actor = Actor.system("bench")
    operator = platform_services.operator_create(
        name="Bench", slug="bench", base_currency="EUR", actor=actor
    )
    room = Room.objects.create(
        operator=operator, name="FTK", variant="ftk", stake=500, currency="EUR", fee_bps=500
    )
    ids = []
    for number in range(count):
        table = Table.objects.create(room=room)
        players = []
        for seat in range(2):
            player = Player.objects.create(
                operator=operator,
                external_ref=f"p{number}-{seat}",
                wallet_currency="EUR",
                display_currency="EUR",
                kyc_status="verified",
            )
            wallet_services.deposit(
                player=player,
                amount=10_000,
                currency="EUR",
                reference=f"fund:{number}:{seat}",
                actor=actor,
            )
            game_services.seat_take(player=player, table=table, actor=actor)
            players.append(player)
        match = Match.objects.get(table=table, status="running")
        game_services.match_forfeit(match=match, seat=number % 2, reason="resigned", actor=actor)
        ids.append(match.pk)
    return ids


def wait_for_settlements(match_ids: list[int], timeout: float = 600) -> float:
    from settlement.models import Settlement

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = Settlement.objects.filter(match_id__in=match_ids).count()
        if done == len(match_ids):
            break
        time.sleep(0.5)
    else:
        raise SystemExit(f"only {done} of {len(match_ids)} games were settled in {timeout} s")
    times = sorted(
        Settlement.objects.filter(match_id__in=match_ids).values_list("settled_at", flat=True)
    )
    span = (times[-1] - times[0]).total_seconds()
    return (len(times) - 1) / span


def deposit_rate(count: int) -> float:
    from gin_platform.models import Player
    from gin_platform.principals import Actor
    from wallet import services as wallet_services

    actor = Actor.system("bench")
    players = list(Player.objects.all()[:50])
    started = time.perf_counter()
    for number in range(count):
        wallet_services.deposit(
            player=players[number % len(players)],
            amount=100,
            currency="EUR",
            reference=f"bench-deposit:{number}",
            actor=actor,
        )
    return count / (time.perf_counter() - started)


if __name__ == "__main__":
    main()

"""Benchmark: games settled per second by one Celery worker on PostgreSQL and Redis, beside
the wallet's raw postings per second (docs/settlement.md "Speed").

    .venv/bin/python tests/benchmarks/bench_settlement.py [--games 1500] [--deposits 1500]

1. Creates a scratch database ``bench_settle_<pid>`` on the PostgreSQL server of
   DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) and migrates it.
2. Opens ``--games`` First To Knock games between funded players (real buy-ins into
   escrow) and finishes each one by a forfeit (a real R10 result), with settlement's
   receiver disconnected so nothing is settled yet; then ANALYZE, as autovacuum would.
   Runs with DEBUG off, as production does.
3. Asks for each game's settlement as a finished game does (``game_payout_request``: the
   batch set on Redis, BENCH_REDIS_URL, default db 13, flushed, and one ``settle_ready`` task;
   docs/settlement.md "Batches"), or with ``--per-game`` queues one ``settle_game`` task
   per game (the sweep's path), starts ONE worker process (``celery -A gin_platform worker
   -P solo -c 1``) and waits until every game is settled; the rate is games over the time
   between the first and the last settlement (the worker's start-up is not counted).
4. Times ``--deposits`` calls of ``wallet.services.deposit`` in this process (one client):
   the wallet's raw postings per second on the same database.
5. Prints both and the ratio, checks the ledger reconciles, drops the scratch database.

Beside each rate, the CPU it cost (read from /proc): the worker's and PostgreSQL's per game
settled (from the first settlement to the last), this process's and PostgreSQL's per
deposit; and the ratio of the two costs, which a machine's changing speed (a busy
neighbour, steal) moves less than it moves the rates. PostgreSQL's figure is the whole
server's (tests/benchmarks/harness.py ``CpuMeter``): an upper bound on a shared machine.
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
    parser.add_argument(
        "--per-game",
        action="store_true",
        help="queue one settle_game message per game instead of the batch set",
    )
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
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gin_platform.project.settings")
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
        from settlement.services import game_payout_request
        from settlement.tasks import settle_game

        for match_id in match_ids:
            if args.per_game:  # one message per game: the sweep's path (and the old one)
                settle_game.apply_async((match_id,), queue=QUEUE)
            else:  # what a finished game does: the batch set and one wake-up
                game_payout_request(match_id=match_id)
        from tests.processes import worker_command

        # The default queue too: where a drain that stops at its limit queues the next one.
        queues = f"{QUEUE},celery"
        worker = subprocess.Popen(worker_command(queues=queues), cwd=ROOT, env=env)
        games_per_second, game_cpu = wait_for_settlements(match_ids, worker_pid=worker.pid)
        postings_per_second, posting_cpu = deposit_rate(args.deposits)
        from wallet.selectors.reconciliation import reconcile

        report = reconcile()
        print(
            f"games settled by one worker:   {games_per_second:8.1f} games/s "
            f"({len(match_ids)} games, {'one message each' if args.per_game else 'batched'}); "
            f"CPU per game: {game_cpu}"
        )
        print(
            f"wallet.services.deposit:       {postings_per_second:8.1f} postings/s (1 client); "
            f"CPU per posting: {posting_cpu}"
        )
        print(f"ratio settlements / postings:  {games_per_second / postings_per_second:8.2f}")
        print(
            "ratio of CPU, posting / game:  "
            f"{sum(posting_cpu.values()) / sum(game_cpu.values()):8.2f}"
        )
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
    from gin_platform.models import Player
    from gin_platform.tenancy import services as platform_services
    from gin_platform.tenancy.principals import Actor
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


def wait_for_settlements(
    match_ids: list[int], *, worker_pid: int, timeout: float = 600
) -> tuple[float, dict[str, float]]:
    """Games settled per second, and the CPU milliseconds per game of the worker and of
    PostgreSQL between the first poll that saw a settlement and the last."""
    from settlement.models import Settlement
    from tests.benchmarks.harness import CpuMeter, process_cpu_seconds

    deadline = time.monotonic() + timeout
    first = None  # (games done, worker CPU seconds, meter)
    while time.monotonic() < deadline:
        done = Settlement.objects.filter(match_id__in=match_ids).count()
        if first is None and done:
            meter = CpuMeter(groups={}).start()
            first = (done, process_cpu_seconds(worker_pid), time.monotonic())
        if done == len(match_ids):
            break
        time.sleep(0.1 if first is None else 0.5)
    else:
        raise SystemExit(f"only {done} of {len(match_ids)} games were settled in {timeout} s")
    worker_cpu = process_cpu_seconds(worker_pid)
    busy, seconds = meter.stop(), time.monotonic() - first[2]  # CPUs busy, over seconds
    games = done - first[0]
    cpu = {
        "worker_ms": round((worker_cpu - first[1]) * 1000 / games, 2),
        "postgres_ms": round(busy["postgres"] * seconds * 1000 / games, 2),
    }
    times = sorted(
        Settlement.objects.filter(match_id__in=match_ids).values_list("settled_at", flat=True)
    )
    span = (times[-1] - times[0]).total_seconds()
    return (len(times) - 1) / span, cpu


def deposit_rate(count: int) -> tuple[float, dict[str, float]]:
    """Deposits per second from this process, and the CPU milliseconds per deposit of this
    process and of PostgreSQL."""
    from gin_platform.models import Player
    from gin_platform.tenancy.principals import Actor
    from tests.benchmarks.harness import CpuMeter
    from wallet import services as wallet_services

    actor = Actor.system("bench")
    players = list(Player.objects.all()[:50])
    meter = CpuMeter(groups={}).start()
    started = time.perf_counter()
    for number in range(count):
        wallet_services.deposit(
            player=players[number % len(players)],
            amount=100,
            currency="EUR",
            reference=f"bench-deposit:{number}",
            actor=actor,
        )
    seconds = time.perf_counter() - started
    busy = meter.stop()
    cpu = {
        "process_ms": round(busy["client"] * seconds * 1000 / count, 2),
        "postgres_ms": round(busy["postgres"] * seconds * 1000 / count, 2),
    }
    return count / seconds, cpu


if __name__ == "__main__":
    main()

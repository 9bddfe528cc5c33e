"""Benchmark: deposit-service postings per second on PostgreSQL next to pgbench (docs/wallet.md).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python tests/benchmarks/bench_wallet.py [--clients N] [--seconds S] [--rounds R]

Both sides run on the same machine, against the same PostgreSQL server, with the same
number of clients (default: the CPU count) and for the same time, alternating for R rounds
(default 3) so that both see the same machine load; the medians are compared:

- wallet: N worker processes (one database connection each) call
  ``wallet.services.deposit`` in a loop, each on its own players (no lock contention
  between clients, like pgbench's random accounts), each call one committed posting
  (transaction + 2 entries + the balance update + audit row, with the reference, caps,
  limits and self-exclusion checks);
- pgbench: the built-in "simple-update" script (``pgbench -N``: UPDATE one account, SELECT
  its balance, INSERT a history row) with ``-c N -j N``.

It prints each round, both medians and their ratio, after checking that the ledger
reconciles. The script creates its own scratch databases
(``bench_wallet_<pid>`` and ``bench_pgbench_<pid>``) on the server of DATABASE_URL and
drops them at the end. It is a script, not a test: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from glob import glob
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/postgres"
PLAYERS_PER_CLIENT = 50


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def admin_execute(url: str, statement: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(statement)


def find_pgbench() -> str:
    found = shutil.which("pgbench") or next(
        iter(sorted(glob("/usr/lib/postgresql/*/bin/pgbench"), reverse=True)), None
    )
    if not found:
        sys.exit("pgbench not found (apt-get install postgresql-client, or put it on PATH)")
    return found


def pgbench_env_and_args(url: str) -> tuple[dict[str, str], list[str]]:
    parts = urlsplit(url)
    env = dict(os.environ)
    if parts.password:
        env["PGPASSWORD"] = parts.password
    args = ["-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 5432)]
    if parts.username:
        args += ["-U", parts.username]
    return env, args


def pgbench_init(url: str, *, scale: int) -> None:
    env, conn_args = pgbench_env_and_args(url)
    database = urlsplit(url).path.lstrip("/")
    subprocess.run(
        [find_pgbench(), *conn_args, "-i", "-q", "-s", str(scale), database],
        env=env,
        check=True,
        capture_output=True,
    )


def run_pgbench(url: str, *, clients: int, seconds: int) -> float:
    env, conn_args = pgbench_env_and_args(url)
    database = urlsplit(url).path.lstrip("/")
    command = [find_pgbench(), *conn_args, "-N", "-c", str(clients), "-j", str(clients)]
    result = subprocess.run(
        [*command, "-T", str(seconds), database],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    match = re.search(
        r"tps = ([\d.]+) \((?:without initial connection time|excluding)", result.stdout
    )
    if not match:
        sys.exit(f"could not read pgbench's TPS from:\n{result.stdout}")
    return float(match.group(1))


# --- The wallet side ---------------------------------------------------------------------
def django_setup(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gin_platform.project.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ["DEBUG"] = "false"  # as in production: DEBUG keeps every query's SQL
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def prepare_wallet(clients: int) -> list[list[str]]:
    from django.core.management import call_command

    from gin_platform.models import Operator, Player

    call_command("migrate", verbosity=0)
    operator = Operator.objects.create(name="bench", slug="bench", base_currency="EUR")
    groups = []
    for client in range(clients):
        players = Player.objects.bulk_create(
            Player(
                operator=operator,
                external_ref=f"c{client}-p{n}",
                wallet_currency="EUR",
                display_currency="EUR",
            )
            for n in range(PLAYERS_PER_CLIENT)
        )
        groups.append([str(p.pk) for p in players])
    return groups


def deposit_worker(
    client: int, round_: int, player_ids: list[str], seconds: float, barrier, results
) -> None:
    from django.db import connections

    from gin_platform.models import Player
    from gin_platform.tenancy.principals import Actor
    from wallet.services import deposit

    connections.close_all()  # never share the parent's connection
    players = list(Player.objects.select_related("operator").filter(pk__in=player_ids))
    actor = Actor.system("bench")
    for warm in range(20):  # create the accounts, warm the caches
        deposit(
            player=players[warm % len(players)],
            amount=100,
            currency="EUR",
            reference=f"warm:{round_}:{client}:{warm}",
            actor=actor,
        )
    barrier.wait()
    count = 0
    started = time.perf_counter()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        deposit(
            player=players[count % len(players)],
            amount=1 + count % 500,
            currency="EUR",
            reference=f"bench:{round_}:{client}:{count}",
            actor=actor,
        )
        count += 1
    results.put((count, time.perf_counter() - started))
    connections.close_all()


def setup_wallet(url: str, *, clients: int, shards: int | None) -> list[list[str]]:
    django_setup(url)
    from django.conf import settings
    from django.db import connections

    if shards is not None:
        settings.WALLET_HOUSE_SHARDS = shards
    groups = prepare_wallet(clients)
    connections.close_all()  # the workers are forked: they must not share a connection
    return groups


def run_wallet(groups: list[list[str]], *, round_: int, seconds: int) -> float:
    context = multiprocessing.get_context("fork")
    clients = len(groups)
    barrier = context.Barrier(clients)
    results = context.Queue()
    workers = [
        context.Process(
            target=deposit_worker, args=(i, round_, groups[i], seconds, barrier, results)
        )
        for i in range(clients)
    ]
    for worker in workers:
        worker.start()
    measured = [results.get(timeout=seconds + 120) for _ in workers]
    for worker in workers:
        worker.join()
        if worker.exitcode:
            sys.exit(f"a deposit worker failed (exit {worker.exitcode})")
    postings = sum(count for count, _ in measured)
    return postings / max(duration for _, duration in measured)


def check_ledger() -> int:
    from django.db import connections

    from wallet.models import LedgerTransaction
    from wallet.selectors.reconciliation import reconcile

    report = reconcile()
    if not report.ok:
        sys.exit("the ledger does not reconcile after the benchmark:\n" + report.render())
    total = LedgerTransaction.objects.filter(kind="deposit").count()
    connections.close_all()
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--scale", type=int, default=10, help="pgbench -i scale factor")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (median)")
    parser.add_argument("--shards", type=int, help="WALLET_HOUSE_SHARDS (default: settings)")
    options = parser.parse_args()
    base = os.environ.get("DATABASE_URL") or DEFAULT_URL
    if not base.startswith(("postgres://", "postgresql://")):
        sys.exit("DATABASE_URL must point at PostgreSQL")
    suffix = os.getpid()
    wallet_db, pgbench_db = f"bench_wallet_{suffix}", f"bench_pgbench_{suffix}"
    created: list[str] = []
    try:
        for name in (wallet_db, pgbench_db):
            admin_execute(base, f'CREATE DATABASE "{name}"')
            created.append(name)
        clients, seconds = options.clients, options.seconds
        print(
            f"clients={clients} seconds={seconds} rounds={options.rounds} "
            f"pgbench scale={options.scale} load average={os.getloadavg()[0]:.1f}",
            flush=True,
        )
        pgbench_url = with_database(base, pgbench_db)
        pgbench_init(pgbench_url, scale=options.scale)
        groups = setup_wallet(
            with_database(base, wallet_db), clients=clients, shards=options.shards
        )
        tps_runs, rate_runs = [], []
        for round_ in range(options.rounds):  # alternate, so both see the same machine load
            tps_runs.append(run_pgbench(pgbench_url, clients=clients, seconds=seconds))
            rate_runs.append(run_wallet(groups, round_=round_, seconds=seconds))
            print(
                f"  round {round_ + 1}: pgbench {tps_runs[-1]:8.1f} tps, "
                f"deposit {rate_runs[-1]:7.1f} postings/s",
                flush=True,
            )
        total = check_ledger()
        tps, rate = statistics.median(tps_runs), statistics.median(rate_runs)
        print(f"pgbench -N (simple-update):   {tps:10.1f} transactions/s (median)")
        print(
            f"wallet.services.deposit:      {rate:10.1f} postings/s (median; {total} deposits, "
            "ledger reconciles)"
        )
        print(f"ratio deposit / pgbench:      {rate / tps:10.3f}")
    finally:
        for name in created:
            admin_execute(base, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()

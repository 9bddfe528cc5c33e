"""A scheduled knockout (R14) played to its end by bots over the real API, on PostgreSQL,
Redis, a Celery worker and beat, while the run kills them (docs/tournaments.md "Exactly
once", docs/benchmarks.md):

    .venv/bin/python tests/benchmarks/bench_tournament.py [--entries 1024] [--seed 7]
        [--chaos-every 20 45] [--web-restart-after 90] [--no-chaos] [--json FILE]

The stack is interrupted.py's ``PlatformStack``: a scratch database ``gin_bench_*`` migrated
and dropped at the end, a Redis db that must be empty (``--redis-db``) and is flushed at the
end, gunicorn (deploy/gunicorn.conf.py, 2 workers), a Celery worker (prefork, 2) and beat.

The operator creates a scheduled heads-up knockout for ``--entries`` (First To Knock every
round, 1.00 EUR buy-in and 0.10 fee, a guarantee 2.50 over the buy-ins, so an overlay), makes
and funds its players and registers each in one call; the tournament starts at its time.
tournament_run.py's ``Director`` reads the bracket and, for every table seated, has its two
players take their seats and play the match over their sockets. Meanwhile ``Chaos`` SIGKILLs
the Celery worker (started again 2-5 s later) and a web worker in turn every 20-45 s, and
once, ``--web-restart-after`` seconds in, the whole gunicorn group (started again).

Must hold (exit 1 otherwise): the tournament finished; every match played or forfeited (R14)
and settled; every table sent on its match's winner; the bracket equal to an independent
replay (the draw by docs/fairness.md's own code from the revealed seed, the rounds from the
published results); prizes + fees = buy-ins and fees paid + overlay to the minor unit, each
place's posting once, the escrow empty; every match rated once and ``manage.py
ratings_recompute --check`` exits 0 (R15); ``manage.py reconcile`` exits 0; no error in the
logs but the kills' own. Prints the time from a table's last feeding match's end to the
table seated (p50, p99; the target is p99 < 2 s) and each round's last end to the next
round's last seat, and the CPU each process group used.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # harness; it adds the project
from harness import CpuMeter, StackConfig, exit_on_sigterm, machine_summary
from interrupted import PlatformStack
from tournament_run import (
    Chaos,
    Director,
    document,
    entries_register,
    knockout_create,
    platform_cpu_seconds,
    players_seed,
    records_summary,
    run_checks,
)

TURN_SECONDS = 15
# What gunicorn and the worker say of the processes the run killed on purpose.
EXPECTED_IN_LOGS = ("was sent SIGKILL!", "WorkerLostError", "Worker exited prematurely")


def say(line: str = "") -> None:
    print(line, flush=True)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=1024)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--chaos-every", type=float, nargs=2, default=(20.0, 45.0))
    parser.add_argument("--web-restart-after", type=float, default=90.0)
    parser.add_argument("--no-chaos", action="store_true")
    parser.add_argument("--minutes", type=float, default=60.0, help="give up after")
    parser.add_argument("--redis-db", type=int, default=None)
    parser.add_argument("--keep-logs", action="store_true")
    parser.add_argument("--json", type=Path)
    return parser.parse_args(argv)


def settled(stack, tournament_id: int, timeout: float = 240.0) -> dict:
    """The tournament's matches by status once none is left to settle (or ``timeout``)."""
    deadline = time.monotonic() + timeout
    while True:
        rows = dict(
            stack.sql(
                "SELECT m.status, count(*) FROM tournaments_brackettable t JOIN games_match m "
                f"ON m.id = t.match_id WHERE t.tournament_id = {tournament_id} GROUP BY m.status"
            )
        )
        if set(rows) <= {"settled"} or time.monotonic() > deadline:
            return rows
        time.sleep(1.0)


def ratings_settled(stack, tournament_id: int, timeout: float = 120.0) -> int:
    """How many of the tournament's matches are rated, once that stops growing (the rating
    task after each, the sweep every 15 s for any a killed worker dropped)."""
    deadline = time.monotonic() + timeout
    query = (
        "SELECT count(*), (SELECT count(*) FROM tournaments_brackettable WHERE tournament_id = "
        f"{tournament_id} AND match_id IS NOT NULL) FROM ratings_ratedmatch r JOIN "
        "tournaments_brackettable t ON t.match_id = r.match_id WHERE t.tournament_id = "
        f"{tournament_id}"
    )
    while True:
        ((rated, matches),) = stack.sql(query)
        if rated >= matches or time.monotonic() > deadline:
            return rated
        time.sleep(1.0)


def main(argv=None) -> int:
    args = parse_args(argv)
    exit_on_sigterm()
    random.seed(args.seed)
    config = StackConfig(redis_db=args.redis_db, keep_logs=args.keep_logs)
    config.extra_env = {"PRESENCE_TIMEOUT_SECONDS": "5", "GAMES_PROTECTIONS_PER_DAY": "1000000"}
    say(f"bench_tournament: {args.entries} entries; {machine_summary()}")
    failures: list[str] = []
    figures: dict = {"entries": args.entries, "seed": args.seed}
    with PlatformStack(config, say=say) as stack:
        platform = stack.platform
        assert platform is not None
        say(f"platform up at {stack.base_url}: gunicorn 2 workers, Celery worker, beat")
        started = time.monotonic()
        players = players_seed(stack.base_url, stack.operator_key, args.entries, prefix="ko")
        say(f"{len(players)} players made and funded in {time.monotonic() - started:.0f} s")
        # Registration stays open well past what 1,024 calls take on a loaded machine (53-67 s
        # quiet, over 2 minutes at a load average of 15).
        registering = max(90.0, args.entries * 0.25)
        tournament = knockout_create(
            stack.base_url,
            stack.operator_key,
            entries=args.entries,
            starts_in=registering,
            turn_seconds=TURN_SECONDS,
        )
        started = time.monotonic()
        entries_register(stack.base_url, stack.operator_key, tournament["id"], players)
        say(f"{len(players)} registered in {time.monotonic() - started:.0f} s")
        director = Director(
            stack.base_url,
            stack.operator_key,
            tournament["id"],
            {player.id: player for player in players},
            TURN_SECONDS,
            platform,
            give_up_after=args.minutes * 60,
        )
        chaos = Chaos(
            platform, every=tuple(args.chaos_every), web_restart_after=args.web_restart_after
        )
        meter = CpuMeter(groups=platform.groups()).start()
        cpu_before = platform_cpu_seconds(platform)

        async def run() -> str:
            stop = asyncio.Event()
            faults = None if args.no_chaos else asyncio.create_task(chaos.run(stop))
            try:
                return await director.run()
            finally:
                stop.set()
                if faults is not None:
                    await faults

        started = time.monotonic()
        status = asyncio.run(run())
        played = time.monotonic() - started
        platform_cpu = platform_cpu_seconds(platform) - cpu_before
        cpu = meter.stop()
        say(f"tournament {status} in {played:.0f} s; faults: {len(chaos.log)}")
        figures |= {"played, s": round(played, 1), "faults": chaos.log}
        figures |= records_summary(director.records)
        # The meter's groups are the processes at the start; the chaos replaces some, so the
        # platform's own CPU is counted from /proc and the reaped processes' times instead.
        figures["cpu, CPUs busy (PostgreSQL and Redis server-wide)"] = {
            name: cpu[name] for name in ("postgres", "redis", "client", "machine")
        }
        figures["platform CPU (gunicorn, worker, beat), s, at least"] = round(platform_cpu, 1)
        figures["platform CPU per match, ms"] = round(
            1000 * platform_cpu / max(1, figures["matches played by the bots"]), 1
        )
        figures["platform CPU per move, ms"] = round(
            1000 * platform_cpu / max(1, figures["moves"]), 2
        )
        figures["matches by status after settling"] = settled(stack, tournament["id"])
        checked = run_checks(
            sql=stack.sql,
            base_url=stack.base_url,
            operator_key=stack.operator_key,
            tournament_id=tournament["id"],
        )
        figures |= checked["figures"]
        # Each slow seating beside the faults of the 20 s before its feeders ended and of its
        # wait: the tail with faults and without, told apart.
        for table in figures.get("slow seatings", []):
            seated = table.pop("feeders ended at") + table["wait, s"]
            table["faults before"] = chaos.faults_before(seated, within=20 + table["wait, s"])
        failures += checked["failures"]
        # R15: every match rated once, and the stored ratings equal their recomputation.
        rated = ratings_settled(stack, tournament["id"])
        figures["matches rated"] = rated
        output = stack.manage("ratings_recompute", "--check", check=False)
        figures["ratings_recompute --check exit"] = stack.last_returncode
        if stack.last_returncode or rated != figures.get("matches played by the bots"):
            failures.append(f"{rated} matches rated; ratings_recompute: {output[-300:]}")
        output = stack.manage("reconcile", check=False)
        figures["reconcile exit"] = stack.last_returncode
        if stack.last_returncode:
            failures.append(f"manage.py reconcile exited {stack.last_returncode}: {output[-400:]}")
        problems = [
            line
            for line in stack.log_problems(limit=10_000)
            if not any(expected in line for expected in EXPECTED_IN_LOGS)
        ]
        figures["log problems"] = problems[:20]
        if problems:
            failures.append(f"{len(problems)} problems in the logs: {problems[:3]}")
        if args.keep_logs:
            say(f"logs kept in {stack.logs}")
    figures["failures"] = failures
    say(document(figures))
    if args.json:
        args.json.write_text(document(figures))
    p99 = figures.get("seating p99, s")
    say(
        f"seating p50 {figures.get('seating p50, s')} s, p99 {p99} s (target < 2 s); "
        f"{'FAILED: ' + '; '.join(failures) if failures else 'every check held'}"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

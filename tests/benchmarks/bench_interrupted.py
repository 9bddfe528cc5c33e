"""Interrupted play on the platform as deployed (R13, docs/rules.md "Interrupted play";
docs/benchmarks.md): players who drop out, web workers killed, the whole platform stopped.

    .venv/bin/python tests/benchmarks/bench_interrupted.py --scenario drops [--games 500]
        [--concurrency 40]
    .venv/bin/python tests/benchmarks/bench_interrupted.py --scenario past-grace [--games 4]
    .venv/bin/python tests/benchmarks/bench_interrupted.py --scenario kill-web [--games 12]
    .venv/bin/python tests/benchmarks/bench_interrupted.py --scenario stop-all \\
        [--stop-seconds 120]
    .venv/bin/python tests/benchmarks/bench_interrupted.py --scenario void [--stop-seconds 75]

Each run has a stack of its own (harness.py: a scratch PostgreSQL database ``gin_bench_*``
migrated and dropped at the end, a Redis db that must be empty and is flushed at the end;
DATABASE_URL's server and REDIS_URL's db, or ``--redis-db``), and the platform as child
processes (interrupted.py ``Platform``): gunicorn with deploy/gunicorn.conf.py and 2 workers
(whose worker class writes the web heartbeat), one Celery worker (prefork, 2) and Celery beat
(the turn timer every 5 s). Rooms have short clocks: ``turn_seconds`` 5 and the R13 options
given (``--grace`` 30, ``--bank`` 60, ``--auto-play`` 3); the server's
PRESENCE_TIMEOUT_SECONDS is 3, so a dropped seat counts as disconnected 3 s after its last
request. Players are seeded over the operator API, EUR wallets (transfer: a deposit each;
``--seamless`` every fifth group: a second operator in seamless mode, its balances in the
reference operator wallet of gin_platform/demo/seamless_wallet.py). Every game is played by
scripted clients over real sockets (interrupted.py ``play_game``: each move the engine's bot's
choice from the mover's own view, sent on its socket).

Scenarios:

- ``drops``: ``--games`` games, ``--concurrency`` at a time (one room per group, groups play
  back to back), the kinds in turn (FTK, Match Play and Money Play heads-up, FTK and Match
  Play at 3 and 4 seats). In every game one player closes its socket at its 1st-3rd move
  and sends nothing, until the other players' views show its turn in ``grace``, then comes
  back 1-4 s later (a ticket, a socket with ``after``) and plays on. Must hold: every game
  ended, every drop saw the grace, 0 forfeits, 0 auto-played events, one protection per
  drop, every game settled, ``manage.py reconcile`` exits 0, no error in the logs.
- ``past-grace``: ``--games`` heads-up games (FTK and Match Play in turn), plus three games
  in a row of one player (the cap: GAMES_PROTECTIONS_PER_DAY is 2 on the server). The
  dropper goes at its first move and never comes back; the others never knock. Must hold:
  the grace (none in the cap player's third game), the bank used up, exactly
  ``--auto-play`` turns played for the seat, each move checked three ways (the fairness
  endpoint's ``checks.auto_play``; ``engine.auto_action`` on the hand replayed with
  ``engine.replay`` from its revealed seed; and R13's discard worked out here from the
  cards alone, starting from the dropper's own last view), then the forfeit (reason
  ``timeout``): the opponent's wallet up by the pot less the fee (R10: ``floor(pot x
  fee_bps / 10,000)``), the dropper's down by its stake, to the minor unit;
  ``GET /me/turn-protections`` counts the cap player's graces.
- ``kill-web``: ``--games`` games; in each one player's web worker (the process holding its
  socket: /proc/net/tcp's inode among the workers' files) is SIGKILLed at the player's
  1st-3rd move; gunicorn starts another; the player comes back after ``--back-after``
  seconds (the others' sockets on that worker reconnect at once). Must hold: a player away
  past its turn's clock is in the grace, never the bank (its socket died with the worker);
  no forfeit, no auto-play, every game settled, the ledger reconciled.
- ``stop-all``: ``--games`` games (Match Play and Money Play heads-up, Match Play at 3
  seats); ``--stop-after`` seconds in, gunicorn, the worker and beat are SIGKILLed, kept
  down ``--stop-seconds``, and started again on the same port; the clients reconnect.
  Must hold: one ``Outage`` of about that length, applied; every turn deadline read before
  the stop whose game had not moved since moved on by the outage plus the grace; no
  forfeit, no auto-play, no protection, every game settled, the ledger reconciled.
- ``void``: as stop-all, stopped past GAMES_MAX_INTERRUPTION_SECONDS (``--max-interruption``,
  60); when the first match is voided the Celery worker is SIGKILLed and started again.
  Must hold: every match running through the outage ``voided``, one ledger transaction
  ``void:match:<id>`` each, every player's balance back to before the buy-in, the ledger
  reconciled.

Prints the figures of the run (games, drops, stages seen, forfeits, auto-played events,
settled, reconcile, durations, the CPUs each process kept busy) and a JSON document
(``--json FILE`` writes it too). Exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # harness; it adds the project
from harness import CpuMeter, StackConfig, exit_on_sigterm, machine_summary
from interrupted import (
    Drop,
    PlatformStack,
    Table,
    play_game,
    seed_groups,
)
from interrupted_checks import (
    Report,
    auto_play_checked,
    money_checked,
    outage_checked,
    settled_and_reconciled,
    table_counts,
    void_checked,
)

from gin_platform.demo.seamless_wallet import OperatorWalletServer

SCENARIOS = ("drops", "past-grace", "kill-web", "stop-all", "void")
DROPS_MIX = ["ftk2", "match2", "money2", "ftk3", "match3", "ftk4", "match4", "ftk2"]
STOP_MIX = ["match2", "money2", "match3"]
HANDS_RUNNING = (
    "SELECT h.id, h.match_id, m.seq, h.turn_deadline, m.reconnect_grace_seconds "
    "FROM games_hand h JOIN games_match m ON m.id = h.match_id "
    "WHERE h.status = 'in_progress' AND m.status = 'running'"
)
# What gunicorn says of a worker the run killed on purpose is not a problem of the platform.
EXPECTED_IN_LOGS = {"kill-web": "was sent SIGKILL!"}


def say(line: str = "") -> None:
    print(line, flush=True)


# --- Running games ------------------------------------------------------------------------
async def run_groups(table: Table, groups, games: int, drop_for, *, minutes: float) -> list:
    """Every group plays games back to back until ``games`` have started in all, or until
    ``minutes`` have passed (no game starts after that; the games in hand end)."""
    started = 0
    records = []
    stop_starting = time.monotonic() + minutes * 60

    async def loop(group) -> None:
        nonlocal started
        while started < games and time.monotonic() < stop_starting:
            started += 1
            records.append(await play_game(table, group, drop_for(group)))

    await asyncio.gather(*(loop(group) for group in groups))
    return records


def clock_options(args) -> dict[str, int]:
    return {
        "time_bank_seconds": args.bank,
        "time_bank_top_up_seconds": args.top_up,
        "reconnect_grace_seconds": args.grace,
        "auto_play_turns": args.auto_play,
    }


def seed(stack: PlatformStack, args, kinds: list[str], wallet_server=None) -> list:
    """The groups, every fifth one seamless with ``--seamless`` and a ``wallet_server``."""
    mixed = args.seamless and wallet_server is not None
    transfer = [k for i, k in enumerate(kinds) if not (mixed and i % 5 == 4)]
    seamless = [k for i, k in enumerate(kinds) if mixed and i % 5 == 4]
    options = {"turn_seconds": args.turn_seconds, "turn_clock": clock_options(args)}
    groups = seed_groups(stack.base_url, stack.operator_key, transfer, **options)
    if seamless:
        key, secret = stack.second_operator()
        wallet_server.secret = secret
        from gin_platform.demo.client import ApiClient

        ApiClient(stack.base_url, token=key).write(
            "PUT",
            "/api/v1/operators/me/wallet",
            {"mode": "seamless", "base_url": wallet_server.base_url, "timeout_ms": 3000},
        )
        more = seed_groups(
            stack.base_url,
            key,
            seamless,
            wallet="seamless",
            seamless_wallet=wallet_server,
            prefix="r13s",
            **options,
        )
        for index, group in enumerate(more, start=len(groups)):
            group.index = index
        groups += more
    return groups


def scenario_drops(stack: PlatformStack, args, report: Report, wallet_server) -> None:
    kinds = [DROPS_MIX[i % len(DROPS_MIX)] for i in range(args.concurrency)]
    groups = seed(stack, args, kinds, wallet_server)
    table = Table(stack.base_url, args.turn_seconds, stack.platform)

    def drop_for(group):
        return Drop(who=random.randrange(group.seats), at=random.randint(1, 3), mode="return")

    report.records = _timed(
        stack, report, run_groups(table, groups, args.games, drop_for, minutes=args.max_minutes)
    )
    report.expect_stage("grace")


def scenario_kill_web(stack: PlatformStack, args, report: Report, wallet_server) -> None:
    kinds = [DROPS_MIX[i % len(DROPS_MIX)] for i in range(args.concurrency)]
    groups = seed(stack, args, kinds, wallet_server)
    table = Table(stack.base_url, args.turn_seconds, stack.platform)
    low, high = args.back_after

    def drop_for(group):
        who = random.randrange(group.seats)
        return Drop(who=who, at=random.randint(1, 3), mode="kill", back_after=(low, high))

    before = set(stack.platform.web_workers())
    report.records = _timed(
        stack, report, run_groups(table, groups, args.games, drop_for, minutes=args.max_minutes)
    )
    after = set(stack.platform.web_workers())
    report.figures["web workers started by gunicorn"] = len(after - before)
    report.figures["web workers killed"] = sum(1 for r in report.records if r.killed_pid)
    seen = Counter(r.stage_seen for r in report.records if r.killed_pid)
    report.figures["stage the table saw when the player came back"] = dict(seen)
    if seen["bank"]:  # R13: a seat whose socket died with its worker is owed the grace
        report.fail(f"{seen['bank']} players away with their worker ran the bank, not the grace")
    backs = [r.back_at for r in report.records if r.back_at is not None]
    report.figures["kill -> back on the socket, s (min, max)"] = (
        (round(min(backs), 1), round(max(backs), 1)) if backs else None
    )


def scenario_past_grace(stack: PlatformStack, args, report: Report, wallet_server) -> None:
    kinds = ["ftk2" if i % 2 == 0 else "match2" for i in range(args.games)] + ["ftk2"]
    groups = seed(stack, args, kinds, None)
    *single, cap = groups
    table = Table(stack.base_url, args.turn_seconds, stack.platform, no_knock=True)
    balances_before = report.balances(stack, groups)

    async def run() -> list:
        async def capped() -> list:
            records = []
            for _ in range(3):
                records.append(await play_game(table, cap, Drop(who=0, at=1, mode="never")))
                records[-1].protections = await report.protections_of(stack, cap.players[0])
            records[-1].third = True
            return records

        singles = [play_game(table, g, Drop(who=0, at=1, mode="never")) for g in single]
        done = await asyncio.gather(capped(), *singles)
        return [*done[0], *done[1:]]

    report.records = _timed(stack, report, run())
    report.cap_group = cap.index
    money_checked(stack, report, groups, balances_before)
    auto_play_checked(stack, report, args, groups)


def scenario_stop(stack: PlatformStack, args, report: Report, wallet_server, *, void: bool) -> None:
    kinds = [STOP_MIX[i % len(STOP_MIX)] for i in range(args.games)]
    groups = seed(stack, args, kinds, None)
    balances_before = report.balances(stack, groups)
    table = Table(stack.base_url, args.turn_seconds, stack.platform, give_up_after=1800)
    platform = stack.platform

    table.gate = gate = asyncio.Event()
    gate.set()

    async def stop_and_start() -> None:
        await asyncio.sleep(args.stop_after)
        loop = asyncio.get_running_loop()
        gate.clear()  # the clients find the platform gone: their sockets wait for the gate
        report.before_stop = stack.sql(HANDS_RUNNING)
        await loop.run_in_executor(None, platform.kill_all)
        report.stopped_at = time.monotonic()
        running = len(report.before_stop)
        say(f"platform stopped ({running} hands running); down {args.stop_seconds} s")
        await asyncio.sleep(args.stop_seconds)
        await loop.run_in_executor(None, platform.start)
        report.restarted_at = time.monotonic()
        say(f"platform started again after {report.restarted_at - report.stopped_at:.0f} s")
        if void:
            await loop.run_in_executor(None, report.kill_worker_at_first_void, stack)
        else:  # the deadlines as the timer left them, before any client is back
            await loop.run_in_executor(None, report.wait_outage_applied, stack)
            report.after_apply = stack.sql(HANDS_RUNNING)
        gate.set()

    async def run() -> list:
        games = [play_game(table, group, None) for group in groups]
        *records, _ = await asyncio.gather(*games, stop_and_start())
        return records

    report.records = _timed(stack, report, run())
    for name in ("gunicorn", "worker", "beat"):  # their process groups did not outlive the stop
        report.cpu.pop(name, None)
    if void:
        void_checked(stack, report, groups, balances_before)
    else:
        outage_checked(stack, report, args)


def _timed(stack: PlatformStack, report: Report, work) -> list:
    meter = CpuMeter(groups=stack.platform.groups()).start()
    started = time.monotonic()
    records = asyncio.run(work)
    report.seconds = time.monotonic() - started
    report.cpu = meter.stop()
    return records


# --- Main -----------------------------------------------------------------------------------
def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=SCENARIOS, required=True)
    parser.add_argument("--games", type=int, default=None, help="games (per scenario default)")
    parser.add_argument("--concurrency", type=int, default=40, help="groups playing at once")
    parser.add_argument("--turn-seconds", type=int, default=5)
    parser.add_argument("--grace", type=int, default=30, help="reconnect_grace_seconds")
    parser.add_argument("--bank", type=int, default=None, help="time_bank_seconds")
    parser.add_argument("--top-up", type=int, default=None, help="time_bank_top_up_seconds")
    parser.add_argument("--auto-play", type=int, default=3, help="auto_play_turns")
    parser.add_argument("--presence-timeout", type=int, default=3)
    parser.add_argument("--back-after", type=float, nargs=2, default=(2.0, 12.0))
    parser.add_argument("--stop-after", type=float, default=20.0)
    parser.add_argument("--stop-seconds", type=float, default=None)
    parser.add_argument("--max-interruption", type=int, default=60)
    parser.add_argument(
        "--max-minutes", type=float, default=30, help="no game starts after this (drops, kill-web)"
    )
    parser.add_argument("--seamless", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--redis-db", type=int, default=None)
    parser.add_argument("--seed", type=int, default=None, help="random seed of the clients")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--keep-logs", action="store_true")
    args = parser.parse_args(argv)
    defaults = {"drops": 500, "past-grace": 4, "kill-web": 12, "stop-all": 8, "void": 6}
    args.games = args.games or defaults[args.scenario]
    if args.scenario == "past-grace":
        args.bank = 10 if args.bank is None else args.bank
        args.top_up = 0 if args.top_up is None else args.top_up
    args.bank = 60 if args.bank is None else args.bank
    args.top_up = 10 if args.top_up is None else args.top_up
    if args.stop_seconds is None:
        args.stop_seconds = args.max_interruption + 15 if args.scenario == "void" else 120
    return args


def server_env(args) -> dict[str, str]:
    per_day = 2 if args.scenario == "past-grace" else 1_000_000
    env = {
        "PRESENCE_TIMEOUT_SECONDS": str(args.presence_timeout),
        "GAMES_PROTECTIONS_PER_DAY": str(per_day),
    }
    if args.scenario == "void":
        env["GAMES_MAX_INTERRUPTION_SECONDS"] = str(args.max_interruption)
    return env


def main(argv=None) -> int:
    args = parse_args(argv)
    exit_on_sigterm()
    random.seed(args.seed)
    config = StackConfig(redis_db=args.redis_db, keep_logs=args.keep_logs)
    config.extra_env = server_env(args)
    say(f"bench_interrupted {args.scenario}: {args.games} games; {machine_summary()}")
    report = Report(args.scenario, args)
    with PlatformStack(config, say=say) as stack, OperatorWalletServer(secret="") as wallet_server:
        say(f"platform up at {stack.base_url}: gunicorn 2 workers, Celery worker, beat")
        if args.scenario == "drops":
            scenario_drops(stack, args, report, wallet_server)
        elif args.scenario == "kill-web":
            scenario_kill_web(stack, args, report, wallet_server)
        elif args.scenario == "past-grace":
            scenario_past_grace(stack, args, report, wallet_server)
        else:
            scenario_stop(stack, args, report, wallet_server, void=args.scenario == "void")
        table_counts(stack, report)
        expected = EXPECTED_IN_LOGS.get(args.scenario)
        found = stack.log_problems(limit=10_000)
        report.log_problems = [x for x in found if not (expected and expected in x)]
        settled_and_reconciled(stack, report, void=args.scenario == "void")
        if args.keep_logs:
            say(f"logs kept in {stack.logs}")
    document = report.document()
    say(json.dumps(document, indent=1, default=str))
    if args.json:
        args.json.write_text(json.dumps(document, indent=1, default=str))
    say(report.summary())
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())

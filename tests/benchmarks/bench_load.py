"""Load test (docs/benchmarks.md): bot pairs playing whole games over HTTP, settled by Celery.

    .venv/bin/python tests/benchmarks/bench_load.py --games 8,32,64 --duration 60

Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust auth) and Redis on 127.0.0.1:6379;
everything else it sets up and tears down itself (tests/benchmarks/harness.py): a scratch
database ``gin_bench_<random>`` (migrated, dropped at the end), Redis db 14 (must be empty;
flushed at the end), gunicorn with ``--workers`` x ``--threads`` on a free loopback port,
one real Celery worker (``celery -A gin_platform worker``) that settles every game, and no
beat, so a settlement the worker misses stays missing and is reported.

Setup over the API, like an operator's integration (gin_platform/demo/scenario.py): exchange
rates through the staff API; per pair two players (one EUR wallet, one USD wallet, so buy-ins
and payouts convert), a deposit each and a session token each; per pair its own room of the
pair's variant (``--mix``, FTK-heavy by default: 6 FTK, 1 Match Play to 100, 1 Money Play to
50 in every 8 pairs), so pairs never take each other's seats.

Then for each concurrency level: that many client threads, one per pair, each playing games
back to back: the lobby, both players sit (the second seat starts the game), then the
engine's bot (games.engine.choose_action_from_view) chooses every move from the mover's own
view; ``POST /matches/{id}/actions`` carries ``expected_seq`` and answers the mover's view, so
``GET /matches/{id}/view`` is called only when the turn passes to the other player. An error
is counted and the pair resynchronises from fresh views (10 errors in one game: the pair
leaves, which forfeits the game). With ``--duration`` pairs start games until the time is up
and finish the game in hand (at most ``--drain`` seconds, then they leave); games per minute,
actions per second and the latencies are taken over the measured window (after
``--warmup``). With ``--games-per-pair`` each pair plays that many games and the window is the
whole run.

After each level every finished game (forfeits included) must have a settlement statement:
``GET /api/v1/settlements/{match_id}`` is polled until it answers 200 (at most
``--settle-timeout`` seconds). At the end no game may be left unsettled, ``manage.py
reconcile`` must exit 0, and the server and worker logs are searched for errors. Exits 1 when
any of that fails or any request failed.

Clients, gunicorn, Celery and PostgreSQL share the machine; the CPU line under the table says
who used how many CPUs.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # harness; it adds the project
from harness import (
    Recorder,
    Stack,
    StackConfig,
    exit_on_sigterm,
    machine_summary,
    ms,
    percentile,
)

from games.engine import choose_action_from_view
from gin_platform.demo.client import ApiClient, ApiError

RATES = (("EUR", "USD", "1.0800"), ("USD", "EUR", "0.9259"))
ROOM_SPECS = {
    "ftk": {"variant": "ftk", "currency": "EUR", "stake": "1.00", "fee_bps": 500},
    "match": {
        "variant": "match",
        "currency": "EUR",
        "target": 100,
        "stake": "2.00",
        "fee_bps": 500,
    },
    "money": {
        "variant": "money",
        "currency": "EUR",
        "target": 50,
        "stake_per_point_choices": ["0.05"],
        "cashier_min": "5.00",
        "cashier_max": "50.00",
        "fee_bps": 500,
    },
}
SIT_BODY = {"money": {"cashier_amount": "20.00", "stake_per_point": "0.05"}}
DEPOSIT = "5000.00"
MAX_ERRORS_PER_GAME = 10


def say(line: str = "") -> None:
    print(line, flush=True)


class RequestFailed(Exception):
    pass


@dataclass
class Player:
    id: str
    client: ApiClient


@dataclass
class Pair:
    index: int
    variant: str
    room_id: int
    players: tuple[Player, Player]


@dataclass
class Game:
    match_id: int
    variant: str
    started: float
    finished: float
    actions: int
    hands: int | None
    forfeit: bool


@dataclass
class LevelResult:
    games: int
    window: float
    finished: list[Game] = field(default_factory=list)
    abandoned: int = 0
    cpu: dict = field(default_factory=dict)
    settled: int = 0
    unsettled: list[int] = field(default_factory=list)
    settle_lag: list[float] = field(default_factory=list)
    recorder: Recorder = field(default_factory=Recorder)
    window_start: float = 0.0
    window_end: float = 0.0


def call(rec: Recorder, endpoint: str, client: ApiClient, method: str, path: str, body=None):
    """One timed request; an error is recorded and raised as RequestFailed."""
    started = time.monotonic()
    clock = time.perf_counter()
    try:
        answer = client.request(method, path, body)
    except ApiError as exc:
        rec.add(endpoint, started, time.perf_counter() - clock)
        slug = exc.body.get("type", "").rsplit("/", 1)[-1] if isinstance(exc.body, dict) else ""
        rec.error(endpoint, f"{exc.status} {slug}".strip())
        raise RequestFailed(f"{endpoint}: {exc}") from None
    except OSError as exc:  # refused, reset, timed out
        rec.error(endpoint, type(exc).__name__)
        raise RequestFailed(f"{endpoint}: {exc!r}") from None
    rec.add(endpoint, started, time.perf_counter() - clock)
    return answer


# --- Setup over the API -------------------------------------------------------------------
def seed(stack: Stack, pairs: int, mix: list[str]) -> list[Pair]:
    base = stack.base_url
    staff = ApiClient(base)
    basic = base64.b64encode(":".join(stack.staff).encode()).decode()
    for base_ccy, quote, rate in RATES:
        staff.request(
            "POST",
            "/api/v1/staff/exchange-rates",
            {
                "base": base_ccy,
                "quote": quote,
                "rate": rate,
                "as_of": datetime.now(UTC).isoformat(),
                "source": "bench",
            },
            headers={"Authorization": f"Basic {basic}"},
        )
    operator = ApiClient(base, token=stack.operator_key)

    def player(ref: str, currency: str) -> Player:
        body = operator.write(
            "POST",
            "/api/v1/players",
            {
                "external_ref": ref,
                "display_name": ref,
                "wallet_currency": currency,
                "display_currency": currency,
                "kyc_status": "verified",
            },
        )
        operator.write(
            "POST",
            f"/api/v1/players/{body['id']}/deposits",
            {"amount": DEPOSIT, "currency": currency},
        )
        session = operator.write(
            "POST", f"/api/v1/players/{body['id']}/sessions", {"ttl_seconds": 6 * 3600}
        )
        return Player(body["id"], operator.with_token(session["token"]))

    def make_pair(index: int) -> Pair:
        variant = mix[index % len(mix)]
        room = operator.write(
            "POST",
            "/api/v1/rooms",
            {"name": f"bench {variant} {index}", "turn_seconds": 600, **ROOM_SPECS[variant]},
        )
        return Pair(
            index,
            variant,
            room["id"],
            (player(f"bench-{index}-a", "EUR"), player(f"bench-{index}-b", "USD")),
        )

    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(make_pair, range(pairs)))


# --- Playing ------------------------------------------------------------------------------
class PairRunner:
    def __init__(self, pair: Pair, rec: Recorder, stop: threading.Event) -> None:
        self.pair = pair
        self.rec = rec
        self.stop = stop
        self.games: list[Game] = []
        self.abandoned = 0

    def run(self, *, deadline: float, drain_until: float, games: int | None) -> None:
        while not self.stop.is_set() and time.monotonic() < deadline:
            if games is not None and len(self.games) >= games:
                return
            try:
                self.play_one(drain_until)
            except RequestFailed:
                time.sleep(0.1)  # counted; try a new game
            except Exception as exc:
                self.rec.error("client", f"{type(exc).__name__}: {exc}"[:120])
                time.sleep(0.1)

    def view(self, player: Player, match_id: int) -> dict:
        return call(self.rec, "view", player.client, "GET", f"/api/v1/matches/{match_id}/view")

    def play_one(self, drain_until: float) -> None:
        rec, pair = self.rec, self.pair
        first, second = pair.players
        lobby = call(rec, "lobby", first.client, "GET", f"/api/v1/lobby/{pair.room_id}")
        table = next(t["id"] for t in lobby["tables"] if t["free_seats"] == 2)
        body = SIT_BODY.get(pair.variant, {})
        sit = f"/api/v1/tables/{table}/sit"
        seat_a = call(rec, "sit", first.client, "POST", sit, body)
        try:
            seat_b = call(rec, "sit", second.client, "POST", sit, body)
        except RequestFailed:
            self.leave(first, table)
            raise
        started = time.monotonic()
        match_id = seat_b["match_id"]
        seats = {seat_a["position"]: first, seat_b["position"]: second}
        actions, errors = 0, 0
        look = self.view(seats[0], match_id)
        while True:
            match = look["match"]
            if match["status"] != "running":
                result = match.get("result") or {}
                self.games.append(
                    Game(
                        match_id,
                        pair.variant,
                        started,
                        time.monotonic(),
                        actions,
                        result.get("hands_played"),
                        bool(result.get("forfeit")),
                    )
                )
                return
            if (
                self.stop.is_set()
                or time.monotonic() > drain_until
                or errors >= MAX_ERRORS_PER_GAME
            ):
                self.forfeit(seats, table, match_id, started, actions)
                return
            to_act = look["hand"]["to_act"]
            if look["match"]["your_seat"] != to_act:
                try:
                    look = self.view(seats[to_act], match_id)
                except RequestFailed:
                    errors += 1
                    continue
            move = choose_action_from_view(look["hand"])
            try:
                look = call(
                    rec,
                    "action",
                    seats[to_act].client,
                    "POST",
                    f"/api/v1/matches/{match_id}/actions",
                    {**move, "expected_seq": look["seq"]},
                )
                actions += 1
            except RequestFailed:
                errors += 1
                time.sleep(0.05)
                try:  # resynchronise from a fresh view
                    look = self.view(seats[0], match_id)
                except RequestFailed:
                    errors += 1

    def leave(self, player: Player, table: int) -> None:
        with contextlib.suppress(RequestFailed):
            call(self.rec, "leave", player.client, "POST", f"/api/v1/tables/{table}/leave")

    def forfeit(self, seats, table: int, match_id: int, started: float, actions: int) -> None:
        """Stop a game (time is up or too many errors): seat 0 leaves, which forfeits it."""
        self.abandoned += 1
        self.leave(seats[0], table)
        try:
            look = self.view(seats[1], match_id)
        except RequestFailed:
            return
        if look["match"]["status"] in ("finished", "settled"):
            self.games.append(
                Game(match_id, self.pair.variant, started, time.monotonic(), actions, None, True)
            )


def wait_settled(stack: Stack, games: list[Game], timeout: float) -> tuple[set[int], set[int]]:
    """Poll each statement until it exists; (settled, still missing)."""
    operator = ApiClient(stack.base_url, token=stack.operator_key, timeout=10)
    pending = {g.match_id for g in games}
    settled: set[int] = set()
    deadline = time.monotonic() + timeout

    def check(match_id: int) -> int | None:
        try:
            operator.get(f"/api/v1/settlements/{match_id}")
        except ApiError as exc:
            if exc.status != 404:
                say(f"  settlement {match_id}: HTTP {exc.status} {exc.body}")
            return None
        except OSError:
            return None
        return match_id

    with ThreadPoolExecutor(8) as pool:
        while pending and time.monotonic() < deadline:
            done = {m for m in pool.map(check, sorted(pending)) if m is not None}
            settled |= done
            pending -= done
            if pending:
                time.sleep(0.5)
    return settled, pending


def run_level(stack: Stack, pairs: list[Pair], args) -> LevelResult:
    rec = Recorder()
    stop = threading.Event()
    runners = [PairRunner(pair, rec, stop) for pair in pairs]
    start = time.monotonic()
    if args.games_per_pair:
        deadline = start + args.max_seconds
        drain_until = deadline
    else:
        deadline = start + args.warmup + args.duration
        drain_until = deadline + args.drain
    meter = stack.cpu_meter()
    if args.games_per_pair:
        meter.start()
    threads = [
        threading.Thread(
            target=runner.run,
            kwargs={"deadline": deadline, "drain_until": drain_until, "games": args.games_per_pair},
            daemon=True,
            name=f"pair-{runner.pair.index}",
        )
        for runner in runners
    ]
    for thread in threads:
        thread.start()
    try:
        if not args.games_per_pair:  # CPU over the measured window only
            time.sleep(args.warmup)
            meter.start()
            time.sleep(max(0.0, deadline - time.monotonic()))
            cpu = meter.stop()
        for thread in threads:
            while thread.is_alive():
                thread.join(timeout=0.5)
    except BaseException:
        stop.set()
        raise
    end = time.monotonic()
    games = [g for r in runners for g in r.games]
    if args.games_per_pair:
        cpu = meter.stop()
        window_start = start
        window_end = max((g.finished for g in games), default=end)
    else:
        window_start, window_end = start + args.warmup, deadline
    window = max(window_end - window_start, 1e-9)
    result = LevelResult(len(pairs), window, recorder=rec)
    result.window_start, result.window_end = window_start, window_end
    result.finished = games
    result.abandoned = sum(r.abandoned for r in runners)
    result.cpu = cpu
    say(
        f"  {len(games)} games finished ({result.abandoned} stopped by a forfeit) in "
        f"{end - start:.0f} s; waiting for their settlements"
    )
    settled, missing = wait_settled(stack, games, args.settle_timeout)
    result.settled, result.unsettled = len(settled), sorted(missing)
    if games:
        ids = ",".join(str(g.match_id) for g in games)
        rows = stack.sql(
            "SELECT EXTRACT(EPOCH FROM settled_at - finished_at) FROM games_match "
            f"WHERE id IN ({ids}) AND settled_at IS NOT NULL"
        )
        result.settle_lag = [float(r[0]) for r in rows]
    return result


# --- Reporting ------------------------------------------------------------------------------
def level_row(result: LevelResult) -> dict:
    rec = result.recorder
    lo, hi = result.window_start, result.window_end
    in_window = [g for g in result.finished if lo <= g.finished <= hi and not g.forfeit]
    by_variant = Counter(g.variant for g in in_window)
    actions = rec.latencies("action", lo, hi)
    errors = sum(rec.errors.values())
    minutes = result.window / 60
    return {
        "concurrent_games": result.games,
        "games": len(in_window),
        "games_per_minute": round(len(in_window) / minutes, 1),
        "by_variant": {v: by_variant.get(v, 0) for v in ROOM_SPECS},
        "actions": len(actions),
        "actions_per_second": round(len(actions) / result.window, 1),
        "action_p50_ms": ms(percentile(actions, 50)),
        "action_p99_ms": ms(percentile(actions, 99)),
        "view_p99_ms": ms(percentile(rec.latencies("view", lo, hi), 99)),
        "sit_p99_ms": ms(percentile(rec.latencies("sit", lo, hi), 99)),
        "requests_per_second": round(rec.total(lo, hi) / result.window, 1),
        "errors": errors,
        "error_kinds": {f"{e} {w}": n for (e, w), n in rec.errors.most_common()},
        "finished_total": len(result.finished),
        "forfeits": sum(1 for g in result.finished if g.forfeit),
        "settled": result.settled,
        "unsettled": result.unsettled,
        "settle_lag_p50_s": _seconds(percentile(result.settle_lag, 50)),
        "settle_lag_max_s": _seconds(max(result.settle_lag, default=None)),
        "cpu": result.cpu,
        "window_s": round(result.window, 1),
    }


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def markdown(rows: list[dict]) -> str:
    lines = [
        "| concurrent games | games | games/min | FTK / Match / Money | actions/s "
        "| action p50 ms | action p99 ms | requests/s | errors | settled "
        "| settle lag p50 / max s |",
        "| ---: | ---: | ---: | :---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        v = r["by_variant"]
        lines.append(
            f"| {r['concurrent_games']} | {r['games']} | {r['games_per_minute']:,} "
            f"| {v['ftk']} / {v['match']} / {v['money']} | {r['actions_per_second']:,} "
            f"| {r['action_p50_ms']} | {r['action_p99_ms']} | {r['requests_per_second']:,} "
            f"| {r['errors']} | {r['settled']}/{r['finished_total']} "
            f"| {r['settle_lag_p50_s']} / {r['settle_lag_max_s']} |"
        )
    return "\n".join(lines)


def cpu_lines(rows: list[dict]) -> str:
    lines = []
    for r in rows:
        c = r["cpu"]
        ours = sum(c.get(k, 0) for k in ("gunicorn", "celery", "postgres", "redis", "client"))
        per_request = (
            c.get("gunicorn", 0) / r["requests_per_second"] * 1000
            if r["requests_per_second"]
            else 0
        )
        lines.append(
            f"- {r['concurrent_games']} games, CPUs busy: gunicorn {c.get('gunicorn', 0)} "
            f"({per_request:.1f} ms per request), postgres {c.get('postgres', 0)}, "
            f"celery {c.get('celery', 0)}, redis {c.get('redis', 0)}, "
            f"load client {c.get('client', 0)}; other processes "
            f"{max(0.0, c.get('machine', 0) - ours):.2f}; whole machine "
            f"{c.get('machine', 0)} of {len(os.sched_getaffinity(0))}"
        )
    return "\n".join(lines)


# --- Main -----------------------------------------------------------------------------------
def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="8,32,64", help="concurrency levels, e.g. 8,32,64")
    parser.add_argument(
        "--duration", type=float, default=60, help="measured seconds per level (default 60)"
    )
    parser.add_argument(
        "--games-per-pair",
        type=int,
        default=None,
        help="instead of --duration: each pair plays this many games",
    )
    parser.add_argument("--warmup", type=float, default=10, help="seconds before measuring")
    parser.add_argument(
        "--drain", type=float, default=30, help="seconds to finish the games in hand"
    )
    parser.add_argument(
        "--max-seconds", type=float, default=600, help="cap per level with --games-per-pair"
    )
    parser.add_argument("--settle-timeout", type=float, default=120)
    parser.add_argument("--mix", default="ftk=6,match=1,money=1", help="variants per pair")
    parser.add_argument(
        "--workers", type=int, default=2, help="gunicorn worker processes (default 2)"
    )
    parser.add_argument(
        "--threads", type=int, default=4, help="threads per worker, gthread when > 1 (default 4)"
    )
    parser.add_argument("--celery-concurrency", type=int, default=2)
    parser.add_argument("--redis-db", type=int, default=14)
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    parser.add_argument("--keep-logs", action="store_true", help="keep the server/worker logs")
    args = parser.parse_args(argv)
    args.levels = [int(x) for x in args.games.split(",") if x.strip()]
    if not args.levels or min(args.levels) < 1 or max(args.levels) > 256:
        parser.error("--games: between 1 and 256 concurrent games per level")
    args.mix_list = []
    for part in args.mix.split(","):
        name, _, weight = part.partition("=")
        if name not in ROOM_SPECS:
            parser.error(f"--mix: unknown variant {name!r}")
        args.mix_list += [name] * int(weight or 1)
    if args.games_per_pair is not None and not 1 <= args.games_per_pair <= 1000:
        parser.error("--games-per-pair: 1 to 1000")
    if args.duration <= 0 or args.duration > 3600:
        parser.error("--duration: up to an hour")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    exit_on_sigterm()
    started = time.monotonic()
    say(f"machine: {machine_summary()}")
    config = StackConfig(
        workers=args.workers,
        threads=args.threads,
        celery_concurrency=args.celery_concurrency,
        redis_db=args.redis_db,
        keep_logs=args.keep_logs,
    )
    server = f"gunicorn {args.workers} workers x {args.threads} threads" + (
        " (gthread)" if args.threads > 1 else " (sync)"
    )
    say(
        f"stack: {server}, celery worker --concurrency {args.celery_concurrency}, "
        f"PostgreSQL 127.0.0.1:5432, Redis db {args.redis_db}; mix {args.mix}"
    )
    rows, problems = [], []
    with Stack(config, say=say) as stack:
        pairs = seed(stack, max(args.levels), args.mix_list)
        say(f"seeded {len(pairs)} pairs over the API; server {stack.base_url}")
        for level in args.levels:
            mode = (
                f"{args.games_per_pair} games per pair"
                if args.games_per_pair
                else f"{args.warmup:g} s warm-up + {args.duration:g} s measured"
            )
            say(f"level {level} concurrent games: {mode}")
            result = run_level(stack, pairs[:level], args)
            row = level_row(result)
            rows.append(row)
            say(
                f"  {row['games_per_minute']} games/min, action p50 {row['action_p50_ms']} ms "
                f"p99 {row['action_p99_ms']} ms, errors {row['errors']}, "
                f"settled {row['settled']}/{row['finished_total']}"
            )
            for kind, count in row["error_kinds"].items():
                say(f"    error: {kind} x{count}")
            if row["unsettled"]:
                problems.append(f"{level} games: never settled: matches {row['unsettled'][:20]}")
            if row["errors"]:
                problems.append(f"{level} games: {row['errors']} failed requests")
        statuses = dict(stack.sql("SELECT status, count(*) FROM games_match GROUP BY status"))
        unsettled = statuses.get("finished", 0)
        if unsettled:
            problems.append(f"{unsettled} finished matches without a settlement at the end")
        stuck = {k: v for k, v in statuses.items() if k in ("waiting", "running")}
        if stuck:
            problems.append(f"matches still open at the end: {stuck}")
        reconcile = stack.manage("reconcile", check=False)
        reconcile_rc = stack.last_returncode
        if reconcile_rc:
            problems.append(f"manage.py reconcile exited {reconcile_rc}: {reconcile.strip()}")
        log_problems = stack.log_problems()
        if log_problems:
            problems.append("errors in the server/worker logs (see below)")
        if args.keep_logs:
            say(f"logs kept in {stack.logs}")
    say("")
    say(f"## Load test: {server}, Celery settling, PostgreSQL + Redis")
    say("")
    say(markdown(rows))
    say("")
    say(cpu_lines(rows))
    say(f"- matches by status at the end: {json.dumps(statuses, sort_keys=True)}")
    say(
        f"- manage.py reconcile: exit {reconcile_rc} "
        f"({(reconcile.strip().splitlines() or [''])[-1]})"
    )
    say(f"- total wall time {time.monotonic() - started:.0f} s")
    for line in log_problems:
        say(f"  log: {line}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {"args": sys.argv[1:], "server": server, "levels": rows, "problems": problems},
                indent=2,
            )
        )
    if problems:
        say("")
        for problem in problems:
            say(f"PROBLEM: {problem}")
        return 1
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        say("interrupted: stopped the server and worker, dropped the scratch database")
        sys.exit(130)

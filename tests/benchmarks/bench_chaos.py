"""The chaos run (docs/deploy.md "The chaos run"): 64 games at once on the production topology
(deploy/cluster/: two web nodes behind HAProxy, PgBouncer, a PostgreSQL primary with its
synchronous replica, a private Redis, two Celery workers and beat) while its pieces are
killed in turn; then the ledger is checked against what the clients were told.

    .venv/bin/python tests/benchmarks/bench_chaos.py [--gap 25] [--port-base 15400]

Bounded: the faults come one after the other (``--warmup`` s after the start, ``--gap`` s
apart), no game starts after the last fault's recovery plus ``--gap``, and the games in hand
end. Needs haproxy and pgbouncer (``make cluster-tools``); the topology lives in
``var/chaos`` and is stopped and removed at the end (``--keep`` keeps its logs).

The games (interrupted.py ``play_game``, every move the engine bot's on the mover's socket,
every socket and request through HAProxy, so spread over both nodes): 64 groups playing back
to back, First To Knock at 2, 3 and 4 seats and Money Play heads-up; transfer-wallet players
of one operator, seamless-wallet players of a second (its wallet the reference operator
wallet, gin_platform/demo/seamless_wallet.py), and network tables mixing both. Meanwhile
the first operator deposits 0.01 EUR to its players every 0.2 s, each deposit with its own
Idempotency-Key sent again until it is acknowledged.

The faults, in turn: web node A's gunicorn group SIGKILLed (HAProxy's health check takes it
out, its sockets reconnect to B; started again); Celery worker 1 SIGKILLed with settlements
queued (started again); Redis restarted; PgBouncer SIGKILLed and started again; the
PostgreSQL primary stopped at once (``immediate``, a crash) and the replica promoted, PgBouncer
repointed (web and workers are not restarted). After each fault and at the end: games
finished and settled, requests failed (each a clean problem+json or not), pushes lost (a
push not seen within 20 s, the view then read over REST) and sockets reopened, the fault's
recovery time. At the end, the ledger: every acknowledged deposit, buy-in and settlement
present exactly once, no reference twice, ``manage.py reconcile`` clean, every statement
equal to its recomputation from the ledger's own lines and R10, every wallet equal to what
the player was told. Exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import signal
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # harness; it adds the project
from cluster_stack import ClusterStack
from harness import ROOT, SEED_CODE, exit_on_sigterm, machine_summary, say
from interrupted import (
    DEPOSIT,
    FEE_BPS,
    KINDS,
    SECOND_OPERATOR,
    Group,
    Table,
    play_game,
    player_seed,
    seed_groups,
)
from interrupted_checks import Report, settled_and_reconciled
from live import AsyncHttp, HttpError, problem_slug

from gin_platform.demo.client import ApiClient
from gin_platform.demo.seamless_wallet import OperatorWalletServer

sys.path.insert(0, str(ROOT / "deploy" / "cluster"))
from cluster_processes import missing_tools
from topology import Topology

FAULTS = ("web node", "worker", "redis", "pgbouncer", "primary")
TRANSFER_MIX = ["ftk2"] * 16 + ["ftk3"] * 6 + ["ftk4"] * 6 + ["money2"] * 4
SEAMLESS_MIX = ["ftk2"] * 12 + ["ftk3"] * 4 + ["ftk4"] * 4
NETWORK_MIX = ["ftk2"] * 8 + ["ftk3"] * 4
DEPOSIT_STEP = "0.01"
CLOCK = {
    "time_bank_seconds": 30,
    "time_bank_top_up_seconds": 0,
    "reconnect_grace_seconds": 30,
    "auto_play_turns": 2,
}
TURN_SECONDS = 30


# --- What the clients were told ------------------------------------------------------------
@dataclass
class Book:
    """Every answer the clients got that matters afterwards: the money movements
    acknowledged (2xx), the failures (5xx or no answer) and whether each was a clean
    problem+json, the view reads (each one a push that did not come) and tickets."""

    seats: dict[int, int] = field(default_factory=dict)  # seat id -> match id (buy-ins)
    deposits: dict[str, str] = field(default_factory=dict)  # Idempotency-Key -> player id
    settlements: dict[int, dict] = field(default_factory=dict)  # match id -> statement
    failed: Counter = field(default_factory=Counter)  # (what, clean) -> count
    refused: Counter = field(default_factory=Counter)  # 4xx problem slugs
    view_reads: int = 0
    tickets: int = 0

    def failures(self) -> tuple[int, int]:
        """(failures, of which clean problem+json)."""
        total = sum(self.failed.values())
        clean = sum(n for (_what, is_clean), n in self.failed.items() if is_clean)
        return total, clean


def clean_problem(body: object, status: int) -> bool:
    return (
        isinstance(body, dict)
        and isinstance(body.get("type"), str)
        and body.get("status") == status
    )


def recording_http(book: Book) -> type[AsyncHttp]:
    class RecordingHttp(AsyncHttp):
        async def request(self, method, path, body=None, *, headers=None):
            try:
                status, answer = await super().request(method, path, body, headers=headers)
            except HttpError:
                book.failed[(f"{method} {_route(path)}: no answer", False)] += 1
                raise
            if status >= 500:
                slug = problem_slug(answer) or "not problem+json"
                book.failed[
                    (f"{method} {_route(path)}: {status} {slug}", clean_problem(answer, status))
                ] += 1
            elif status >= 400:
                book.refused[f"{status} {problem_slug(answer)}"] += 1
            elif path.endswith("/sit") and isinstance(answer, dict) and answer.get("amount"):
                book.seats[answer["id"]] = answer["match_id"]  # a buy-in acknowledged
            if method == "GET" and path.endswith("/view"):
                book.view_reads += 1
            if method == "POST" and path.endswith("/socket-tickets"):
                book.tickets += 1
            return status, answer

    return RecordingHttp


def _route(path: str) -> str:
    """``/api/v1/matches/12/view`` -> ``matches/{id}/view``: failures counted per endpoint."""
    parts = path.split("?")[0].removeprefix("/api/v1/").split("/")
    return "/".join("{id}" if part.isdigit() or len(part) >= 20 else part for part in parts)


NETWORK_ROOMS = """
import io, json
from django.core.management import call_command
rooms = []
for options in json.loads('''{rooms}'''):
    out = io.StringIO()
    call_command("network_room_create", json.dumps(options), stdout=out)
    rooms.append(int(out.getvalue().split("network room ", 1)[1].split(":", 1)[0]))
print("SEED " + json.dumps(rooms))
"""


def seed(stack: ClusterStack, wallet: OperatorWalletServer) -> tuple[list[Group], str, dict]:
    """The three kinds of groups; the second operator's key; the players by id."""
    first = stack.seeded(SEED_CODE)
    stack.operator_key = first["operator_key"]
    second = stack.seeded(SECOND_OPERATOR)
    wallet.secret = second["secret"]
    ApiClient(stack.base_url, token=second["key"]).write(
        "PUT",
        "/api/v1/operators/me/wallet",
        {"mode": "seamless", "base_url": wallet.base_url, "timeout_ms": 3000},
    )
    options = {"turn_seconds": TURN_SECONDS, "turn_clock": CLOCK}
    groups = seed_groups(stack.base_url, stack.operator_key, TRANSFER_MIX, prefix="t", **options)
    groups += seed_groups(
        stack.base_url,
        second["key"],
        SEAMLESS_MIX,
        wallet="seamless",
        seamless_wallet=wallet,
        prefix="s",
        **options,
    )
    # Network tables: both operators members, each table's seats alternately theirs.
    stack.manage("network_create", "--reveal-operators", "no")
    operators = [ApiClient(stack.base_url, token=k) for k in (stack.operator_key, second["key"])]
    for operator in operators:
        operator.write("PUT", "/api/v1/operators/me/network", {"member": True, "all_rooms": True})
    rooms = [
        {
            "name": f"network {kind} {n}",
            "currency": "EUR",
            "fee_bps": FEE_BPS,
            "turn_seconds": TURN_SECONDS,
            "turn_clock": CLOCK,
            **KINDS[kind],
        }
        for n, kind in enumerate(NETWORK_MIX)
    ]
    room_ids = stack.seeded(NETWORK_ROOMS.format(rooms=json.dumps(rooms)))
    for n, (kind, room_id) in enumerate(zip(NETWORK_MIX, room_ids, strict=True)):
        players = [
            player_seed(
                operators[seat % 2], f"n-{n}-{seat}", seamless_wallet=wallet if seat % 2 else None
            )
            for seat in range(KINDS[kind]["seats"])
        ]
        for seat, player in enumerate(players):  # the name other operators' players see
            operators[seat % 2].with_token(player.token).write(
                "PUT", "/api/v1/me/screen-name", {"screen_name": f"N{n}x{seat}"}
            )
        groups.append(Group(len(groups), kind, room_id, players, "network"))
    for index, group in enumerate(groups):
        group.index = index
    return groups, second["key"]


# --- Deposits while everything breaks -------------------------------------------------------
async def deposit_loop(
    base_url: str, key: str, players: list[str], book: Book, stop: asyncio.Event
):
    """A 0.01 EUR deposit every 0.2 s, round the transfer players; each sent with its own
    Idempotency-Key again and again (up to 3 minutes) until it is acknowledged."""
    http = recording_http(book)(base_url, key)
    number = 0
    try:
        while not stop.is_set():
            idem, player = f"chaos-{number}", players[number % len(players)]
            number += 1
            give_up = time.monotonic() + 180
            while time.monotonic() < give_up:
                try:
                    status, _answer = await http.request(
                        "POST",
                        f"/api/v1/players/{player}/deposits",
                        {"amount": DEPOSIT_STEP, "currency": "EUR"},
                        headers={"Idempotency-Key": idem},
                    )
                except HttpError:
                    status = 0
                if 200 <= status < 300:
                    book.deposits[idem] = player
                    break
                if status and status < 500 and status != 409:  # refused for good
                    break
                await asyncio.sleep(0.5)
            await asyncio.sleep(0.2)
    finally:
        await http.close()


# --- The faults -------------------------------------------------------------------------------
@dataclass
class Fault:
    name: str
    at: float = 0.0
    recovery: float = 0.0
    detail: dict = field(default_factory=dict)


def health(base_url: str) -> dict:
    try:
        with urllib.request.urlopen(base_url + "/api/v1/health", timeout=5) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        with contextlib.suppress(ValueError):
            return json.loads(exc.read())
    except (OSError, ValueError):
        pass
    return {}


def healthy(base_url: str) -> bool:
    return health(base_url).get("status") == "ok"


def wait_until(check, timeout: float = 180.0) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if check():
            return round(time.monotonic() - started, 1)
        time.sleep(0.2)
    raise RuntimeError("not recovered within 180 s")


def inject(topology: Topology, stack: ClusterStack, fault: Fault) -> None:
    """One fault and its repair; ``fault.recovery``: from the fault until the platform
    serves as before (as each fault's ``detail`` says)."""
    started = time.monotonic()
    fault.at = started
    if fault.name == "web node":
        topology.kill("web_a")
        wait_until(lambda: topology.haproxy_servers_up() == {"web_b"}, 30)
        drained = round(time.monotonic() - started, 1)
        time.sleep(5)  # the clients of node A reconnect to B meanwhile
        topology.restart("web_a")
        wait_until(lambda: topology.haproxy_servers_up() == {"web_a", "web_b"}, 120)
        fault.detail = {"HAProxy took node A out after, s": drained}
    elif fault.name == "worker":
        # Both workers paused until settlements queue up, then worker 1 killed (with the
        # task it had taken) and worker 2 let go on.
        for name in ("worker_1", "worker_2"):
            os.killpg(topology.pids[name], signal.SIGSTOP)
        with contextlib.suppress(RuntimeError):
            wait_until(lambda: finished_count(stack) >= 4, 30)
        waiting = stack.sql("SELECT id FROM games_match WHERE status = 'finished'")
        fault.detail["tasks in the broker's queue at the kill"] = topology.broker_queue_length()
        topology.kill("worker_1")
        os.killpg(topology.pids["worker_2"], signal.SIGCONT)
        time.sleep(3)
        topology.restart("worker_1")
        ids = "{" + ",".join(str(row[0]) for row in waiting) + "}"
        wait_until(
            lambda: (
                not stack.sql(
                    f"SELECT count(*) FROM games_match WHERE id = ANY('{ids}'::bigint[]) "
                    "AND status <> 'settled'"
                )[0][0]
            )
        )
        fault.detail["finished games waiting for settlement at the kill"] = len(waiting)
    elif fault.name == "redis":
        topology.redis_restart()
        wait_until(lambda: healthy(topology.base_url))
    elif fault.name == "pgbouncer":
        topology.kill("pgbouncer")
        topology.restart("pgbouncer")
        wait_until(lambda: healthy(topology.base_url))
    elif fault.name == "primary":
        before = stack.sql("SELECT count(*) FROM wallet_ledgertransaction")[0][0]
        topology.primary_crash()
        fault.detail["promotion, s"] = round(topology.promote(), 1)
        wait_until(lambda: healthy(topology.base_url))
        fault.detail["ledger transactions before the crash / on the promoted replica"] = (
            before,
            stack.sql("SELECT count(*) FROM wallet_ledgertransaction")[0][0],
        )
    fault.recovery = round(time.monotonic() - started, 1)


def finished_count(stack: ClusterStack) -> int:
    return stack.sql("SELECT count(*) FROM games_match WHERE status = 'finished'")[0][0]


def progress(stack: ClusterStack, book: Book, label: str) -> dict:
    statuses = dict(stack.sql("SELECT status, count(*) FROM games_match GROUP BY status"))
    failed, clean = book.failures()
    figures = {
        "games finished or settled": statuses.get("finished", 0) + statuses.get("settled", 0),
        "settled": statuses.get("settled", 0),
        "running": statuses.get("running", 0) + statuses.get("waiting", 0),
        "requests failed": failed,
        "of which clean problem+json": clean,
        "pushes lost, repaired by a REST read": book.view_reads,
        "socket tickets (opens and reopens)": book.tickets,
        "deposits acknowledged": len(book.deposits),
    }
    say(f"{label}: " + json.dumps(figures))
    return figures


async def chaos(topology, stack, book, args, stop_starting: list[float], faults: list[Fault]):
    loop = asyncio.get_running_loop()
    await asyncio.sleep(args.warmup)
    for name in FAULTS:
        fault = Fault(name)
        say(f"--- fault: {name}")
        try:
            await loop.run_in_executor(None, inject, topology, stack, fault)
        except Exception as exc:  # recorded: the run goes on to its checks
            fault.detail["error"] = f"{type(exc).__name__}: {exc}"
            fault.recovery = float("nan")
        faults.append(fault)
        say(f"after {name}: recovered in {fault.recovery} s {json.dumps(fault.detail)}")
        await loop.run_in_executor(None, progress, stack, book, f"after {name}")
        await asyncio.sleep(args.gap)
    stop_starting[0] = time.monotonic()


# --- The ledger against the clients ----------------------------------------------------------
def ledger_checked(stack: ClusterStack, book: Book, report: Report, groups, wallet) -> None:
    references = Counter(
        dict(
            stack.sql("SELECT reference, count(*) FROM wallet_ledgertransaction GROUP BY reference")
        )
    )
    twice = {ref: n for ref, n in references.items() if n > 1}
    by_own_key = Counter()
    for ref, n in references.items():
        if ref.startswith("deposit:"):
            by_own_key[ref.split(":", 2)[2]] += n
    lost_deposits = [k for k in book.deposits if by_own_key[k] != 1]
    lost_buy_ins = [s for s in book.seats if references[f"seat:{s}:buy-in"] != 1]
    lost_settlements = [m for m in book.settlements if references[f"settlement:match:{m}"] != 1]
    report.figures["ledger"] = {
        "acknowledged deposits": len(book.deposits),
        "acknowledged buy-ins": len(book.seats),
        "settlements the players read": len(book.settlements),
        "acknowledged but not exactly once in the ledger": len(lost_deposits)
        + len(lost_buy_ins)
        + len(lost_settlements),
        "references twice": len(twice),
    }
    if lost_deposits or lost_buy_ins or lost_settlements:
        report.fail(
            f"acknowledged movements lost or doubled: deposits {lost_deposits[:5]}, buy-ins "
            f"{lost_buy_ins[:5]}, settlements {lost_settlements[:5]}"
        )
    if twice:
        report.fail(f"ledger references twice: {list(twice.items())[:5]}")
    statements_checked(stack, book, report)
    wallets_checked(stack, book, report, groups, wallet)


def _cents(money: dict | None) -> int:
    return 0 if money is None else int(Decimal(money["amount"]) * 100)


def statements_read(stack: ClusterStack, book: Book, records, groups) -> None:
    """Each settled game's statement as one of its players reads it (GET
    /api/v1/settlements/{match_id}: a 2xx is a settlement the clients saw), with the
    seats' player ids from the game's own record (a network statement masks the others')."""
    tokens = {p.id: p.token for g in groups for p in g.players}
    for record in records:
        if record.match_id is None or not record.players:
            continue
        client = ApiClient(stack.base_url, token=tokens[record.players[min(record.players)]])
        try:
            statement = client.get(f"/api/v1/settlements/{record.match_id}")["statement"]
        except Exception:  # not settled: settled_and_reconciled says so
            continue
        statement["seat_players"] = {int(s): pid for s, pid in record.players.items()}
        book.settlements[record.match_id] = statement


def statements_checked(stack: ClusterStack, book: Book, report: Report) -> None:
    """Each statement the players read against the ledger's own lines (per player, the
    escrow lines of ``settlement:match:<id>`` add up to minus the payout) and R10 (the fee
    is floor(base x fee_bps / 10,000), base the pot or Money Play's capped winnings; the
    payouts are the escrow less the fee; heads-up First To Knock pays it all to the
    winner)."""
    lines: dict[tuple[int, str], int] = {}
    for match_id, player, amount in stack.sql(
        "SELECT substr(x.reference, 18)::bigint, e.player_id::text, sum(e.amount) "
        "FROM wallet_ledgerentry e JOIN wallet_ledgertransaction x ON x.id = e.transaction_id "
        "JOIN wallet_account a ON a.id = e.account_id WHERE x.reference LIKE 'settlement:match:%' "
        "AND a.kind = 'escrow' AND e.player_id IS NOT NULL GROUP BY 1, 2"
    ):
        lines[(match_id, player)] = int(amount)
    wrong = []
    for match_id, statement in book.settlements.items():
        seats = statement["seat_players"]
        escrow, fee = _cents(statement["escrow"]), _cents(statement["fee"])
        payouts = {seats[p["seat"]]: _cents(p["payout"]) for p in statement["players"]}
        base = escrow
        if statement["variant"] == "money":
            base = _cents(statement["money_play"]["winnings"])
        if fee != base * statement["fee_bps"] // 10_000 or sum(payouts.values()) != escrow - fee:
            wrong.append((match_id, "fee or payouts"))
        heads_up_ftk = statement["variant"] == "ftk" and len(seats) == 2
        if heads_up_ftk and payouts[seats[statement["winner_seat"]]] != escrow - fee:
            wrong.append((match_id, "the winner's payout"))
        for player, paid in payouts.items():
            if -lines.get((match_id, str(player)), 0) != paid:
                wrong.append((match_id, f"the ledger lines of {player}"))
    report.figures["statements equal to their recomputation"] = len(book.settlements) - len(
        {m for m, _ in wrong}
    )
    if wrong:
        report.fail(f"statements differing from their recomputation: {wrong[:5]}")


def wallets_checked(stack, book: Book, report: Report, groups, wallet) -> None:
    """Every wallet equals what its player was told: the seed's DEPOSIT, the acknowledged
    deposits and each statement's net (transfer players: the platform's wallet, read by
    their operator; seamless ones: the operator's own wallet, where credits land after the
    commit)."""
    net: Counter = Counter()
    for statement in book.settlements.values():
        seats = statement["seat_players"]
        for entry in statement["players"]:
            net[seats[entry["seat"]]] += _cents(entry["net"])
    for player in book.deposits.values():
        net[player] += int(Decimal(DEPOSIT_STEP) * 100)
    # A buy-in debit the operator's wallet applied whose seat was never taken (its web node
    # killed between the two) is held until the sweep rolls it back, 600 s after it
    # (wallet.services.seamless.STRANDED_DEBIT_SECONDS): counted, not lost.
    stranded = Counter()
    for player, amount in stack.sql(
        "SELECT player_id::text, sum(amount) FROM wallet_walletcall c WHERE kind = 'debit' "
        "AND status = 'applied' AND consumed_by_id IS NULL AND NOT EXISTS (SELECT 1 FROM "
        "wallet_walletcall r WHERE r.rolls_back_id = c.id) GROUP BY 1"
    ):
        stranded[player] = int(amount)
    report.figures["seamless buy-in debits stranded by a kill, awaiting their rollback"] = (
        f"{len(stranded)} players, {sum(stranded.values())} cents"
    )
    operator = ApiClient(stack.base_url, token=stack.operator_key)
    start = int(Decimal(DEPOSIT) * 100)
    off = []
    deadline = time.monotonic() + 120
    for group in groups:
        for player in group.players:
            expected = start + net[player.id]
            while True:
                if seamless_player(player.ref):
                    have = int(wallet.balance(player.ref) * 100) + stranded[player.id]
                else:
                    have = _cents(operator.get(f"/api/v1/players/{player.id}/wallet")["balance"])
                if have == expected or time.monotonic() > deadline:
                    break
                time.sleep(1)
            if have != expected:
                off.append((player.ref, expected, have))
    report.figures["wallets equal to what their players were told"] = sum(
        len(g.players) for g in groups
    ) - len(off)
    if off:
        report.fail(f"wallets off (player, expected cents, have): {off[:5]}")


def seamless_player(ref: str) -> bool:
    """The second operator's: its own groups' (``s-``) and a network table's odd seats."""
    return ref.startswith("s-") or (ref.startswith("n-") and int(ref.rsplit("-", 1)[1]) % 2 == 1)


# --- Main -------------------------------------------------------------------------------------
def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warmup", type=float, default=30.0, help="seconds before the 1st fault")
    parser.add_argument("--gap", type=float, default=25.0, help="seconds between faults")
    parser.add_argument("--port-base", type=int, default=16400)
    parser.add_argument("--web-workers", type=int, default=1, help="gunicorn workers per node")
    parser.add_argument("--dir", type=Path, default=ROOT / "var" / "chaos")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--keep", action="store_true", help="keep var/chaos (the logs)")
    parser.add_argument("--json", type=Path, default=None)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    exit_on_sigterm()
    random.seed(args.seed)
    missing = missing_tools()
    if missing:
        say(f"bench_chaos: missing {', '.join(missing)}: apt-get install -y {' '.join(missing)}")
        return 2
    games = len(TRANSFER_MIX) + len(SEAMLESS_MIX) + len(NETWORK_MIX)
    say(f"bench_chaos: {games} games at once, faults {', '.join(FAULTS)}; {machine_summary()}")
    topology = Topology(
        directory=args.dir,
        port_base=args.port_base,
        web_workers=args.web_workers,
        extra_env={
            "THROTTLE_PLAYER": "100000000/min",
            "THROTTLE_OPERATOR": "100000000/min",
            "THROTTLE_ANON": "100000000/min",
            "PRESENCE_TIMEOUT_SECONDS": "5",
            "GAMES_PROTECTIONS_PER_DAY": "1000000",
        },
        say=say,
    )
    report = Report("chaos", argparse.Namespace(games=games))
    book = Book()
    faults: list[Fault] = []
    try:
        topology.start()
        stack = ClusterStack(topology)
        with OperatorWalletServer(secret="") as wallet:
            groups, _second_key = seed(stack, wallet)
            kinds = Counter(f"{g.kind} {g.wallet}" for g in groups)
            say(f"seeded {len(groups)} groups: {dict(kinds)}")
            report.records, seconds = asyncio.run(play(topology, stack, book, args, groups, faults))
            report.seconds = seconds
            progress(stack, book, "all games ended")
            for check in (
                lambda: settled_and_reconciled(stack, report, void=False),
                lambda: statements_read(stack, book, report.records, groups),
                lambda: ledger_checked(stack, book, report, groups, wallet),
            ):
                try:
                    check()
                except Exception as exc:  # said, and the other checks still run
                    report.fail(f"a check crashed: {type(exc).__name__}: {exc}")
            finish(stack, book, report, faults, args)
    finally:
        topology.stop()
        if not args.keep:
            import shutil

            shutil.rmtree(topology.directory, ignore_errors=True)
    return 1 if report.failures else 0


async def play(topology, stack, book, args, groups, faults) -> tuple[list, float]:
    stop_starting = [float("inf")]
    table = Table(topology.base_url, TURN_SECONDS, give_up_after=1200, http=recording_http(book))
    transfer = [p.id for g in groups for p in g.players if not seamless_player(p.ref)]
    stop_deposits = asyncio.Event()
    started = time.monotonic()
    deposits = asyncio.create_task(
        deposit_loop(topology.base_url, stack.operator_key, transfer, book, stop_deposits)
    )
    driver = asyncio.create_task(chaos(topology, stack, book, args, stop_starting, faults))

    async def until_stopped() -> list:
        records = []

        async def loop(group) -> None:
            while time.monotonic() < stop_starting[0]:
                records.append(await play_game(table, group, None))
                if records[-1].error:  # not at once again: the platform may be recovering
                    await asyncio.sleep(2.0)

        await asyncio.gather(*(loop(group) for group in groups))
        return records

    records = await until_stopped()
    await driver
    stop_deposits.set()
    await deposits
    return records, time.monotonic() - started


def finish(stack: ClusterStack, book: Book, report: Report, faults: list[Fault], args) -> None:
    records = report.records
    errors = Counter(re.sub(r"\d+", "N", r.error) for r in records if r.error)
    failed, clean = book.failures()
    report.figures |= {
        "games": len(records),
        "by kind": dict(Counter(f"{r.kind} {r.wallet}" for r in records)),
        "games played to their end by the clients": sum(1 for r in records if r.final),
        "games the clients gave up (ended by R13's clock)": dict(errors),
        "moves": sum(r.moves for r in records),
        "socket reconnects": sum(r.reconnects for r in records),
        "pushes lost, repaired by a REST read": sum(r.rest_reads for r in records),
        "requests failed": failed,
        "of which clean problem+json": clean,
        "failures": {
            f"{what} ({'clean' if ok else 'NOT problem+json'})": n
            for (what, ok), n in book.failed.items()
        },
        "refusals (4xx)": dict(book.refused),
        "faults": [{"fault": f.name, "recovery, s": f.recovery, **f.detail} for f in faults],
        "log lines with ERROR (per log and message)": dict(stack.log_counts().most_common(15)),
    }
    forfeits = stack.sql(
        "SELECT count(*) FROM games_match WHERE forfeit_seat IS NOT NULL OR forfeits::text <> '[]'"
    )[0][0]
    report.figures["matches ended by a forfeit (R13)"] = forfeits
    if failed != clean:
        report.fail(f"{failed - clean} failed requests were not a clean problem+json")
    if any(f.detail.get("error") for f in faults):
        report.fail(
            "a fault did not recover: "
            + "; ".join(str(f.detail) for f in faults if f.detail.get("error"))
        )
    document = report.document() | {"figures": report.figures}
    say(json.dumps({k: v for k, v in report.figures.items()}, indent=1, default=str))
    if args.json:
        args.json.write_text(json.dumps(document, indent=1, default=str))
    verdict = "OK" if not report.failures else "FAILED: " + "; ".join(report.failures)
    say(f"chaos: {len(records)} games in {report.seconds:.0f} s; {verdict}")


if __name__ == "__main__":
    sys.exit(main())

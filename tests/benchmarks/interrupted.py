"""The pieces of bench_interrupted.py (and of tests/games/test_interrupted_live.py): the
platform as child processes that a run can stop, kill and start again, and the scripted
players that drop out of a game and come back (R13, docs/rules.md "Interrupted play").

- ``Platform``: gunicorn as deployed (deploy/gunicorn.conf.py, its worker class writing the
  web heartbeat), a Celery worker and Celery beat (the turn timer ``expire-turns`` every
  5 s), each in its own process group on one loopback port, so a run can SIGKILL one web
  worker (``worker_serving`` finds the one holding a given socket), the Celery worker, or
  everything, and start it again on the same port.
- ``seed_groups``: per group of 2-4 players a room of its own (its variant, seats and R13
  turn clock) and funded players with session tokens, over the operator API.
- ``play_game``: one game of a group over real sockets, every move the engine's bot's choice
  from the mover's own view, sent as an ``action`` message on the mover's socket (as
  socket_games.py plays). A ``Drop`` makes one seat go away at its k-th move: its socket
  closed and no request sent (``return``: it comes back once the table shows its turn in
  the grace; ``never``: it never comes back; ``kill``: the web worker holding its socket is
  SIGKILLed, it comes back after a delay); nobody goes out (knocks) before the drop, so
  every game has it. Every other socket that closes under a running
  game is reopened with ``after`` (a killed worker, the whole platform stopped).
- ``expected_discard``, ``deadwood``: R13's discard, worked out here from the cards alone
  (not with the engine's solver), to check every auto-played move independently.

Standard library, websockets and ``games.engine`` (pure Python) only: nothing here imports
Django.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # live, harness
from harness import (
    SEED_CODE,
    Stack,
    StackConfig,
    free_port,
    gunicorn_command,
    start_group,
    stop_group,
    wait_healthy,
    worker_pids,
)
from live import AsyncHttp, HttpError, open_socket, problem_slug, socket_url
from websockets.exceptions import ConnectionClosed, WebSocketException

from games.engine import choose_action_from_view
from gin_platform.demo.client import ApiClient
from tests.processes import worker_command

PUSH_TIMEOUT = 20.0  # a push not seen by then: the view is read over REST instead


# --- The platform as child processes ------------------------------------------------------
def beat_command(schedule: Path) -> list[str]:
    """Celery beat (the turn timer every 5 s), its schedule file kept out of the tree."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "gin_platform",
        "beat",
        "--loglevel",
        "warning",
        "--schedule",
        str(schedule),
    ]


@dataclass
class Platform:
    """gunicorn + a Celery worker + Celery beat on one loopback port, each its own process
    group (its log in ``logs``)."""

    env: dict[str, str]
    logs: Path
    port: int
    workers: int = 2
    celery_concurrency: int = 2
    gunicorn: subprocess.Popen | None = None
    worker: subprocess.Popen | None = None
    beat: subprocess.Popen | None = None
    starts: Counter = field(default_factory=Counter)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start_web(self) -> None:
        self.gunicorn = start_group(
            gunicorn_command(port=self.port, workers=self.workers),
            self.env,
            self.logs / "gunicorn.log",
        )
        self.starts["gunicorn"] += 1
        wait_healthy(self.base_url, self.gunicorn, timeout=120, database_only=True)

    def start_worker(self) -> None:
        command = worker_command(pool="prefork", concurrency=self.celery_concurrency)
        self.worker = start_group(command, self.env, self.logs / "celery.log")
        self.starts["worker"] += 1

    def start_beat(self) -> None:
        schedule = self.logs / "beat-schedule"
        with contextlib.suppress(FileNotFoundError):
            schedule.unlink()
        self.beat = start_group(beat_command(schedule), self.env, self.logs / "beat.log")
        self.starts["beat"] += 1

    def start(self) -> None:
        self.start_worker()
        self.start_beat()
        self.start_web()

    def kill(self, name: str) -> None:
        """SIGKILL a whole process group (``gunicorn``, ``worker`` or ``beat``)."""
        process = getattr(self, name)
        if process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        setattr(self, name, None)

    def kill_all(self) -> None:
        for name in ("gunicorn", "worker", "beat"):
            self.kill(name)

    def stop(self) -> None:
        for name in ("gunicorn", "worker", "beat"):
            stop_group(getattr(self, name), grace=10)
            setattr(self, name, None)

    def groups(self) -> dict[str, int]:
        """Process group ids for harness.CpuMeter."""
        return {
            name: process.pid
            for name in ("gunicorn", "worker", "beat")
            if (process := getattr(self, name)) is not None
        }

    def web_workers(self) -> list[int]:
        return [] if self.gunicorn is None else worker_pids(self.gunicorn.pid)

    def worker_serving(self, client_port: int) -> int | None:
        """The gunicorn worker holding the connection from 127.0.0.1:``client_port``: the
        server side's socket inode (/proc/net/tcp) among each worker's open files."""
        inode = server_socket_inode(server_port=self.port, client_port=client_port)
        if inode is None:
            return None
        for pid in self.web_workers():
            with contextlib.suppress(OSError):
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    with contextlib.suppress(OSError):
                        if os.readlink(f"/proc/{pid}/fd/{fd}") == f"socket:[{inode}]":
                            return pid
        return None


def server_socket_inode(*, server_port: int, client_port: int) -> str | None:
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                local, remote = fields[1], fields[2]
                if (
                    int(local.rsplit(":", 1)[1], 16) == server_port
                    and int(remote.rsplit(":", 1)[1], 16) == client_port
                ):
                    return fields[9]
    return None


class PlatformStack(Stack):
    """harness.Stack (a scratch database migrated and seeded, a Redis db, an operator) with
    ``Platform`` for its processes: gunicorn, a Celery worker and beat, each of which a run
    can stop or kill (bench_interrupted.py, bench_tournament.py)."""

    def __init__(self, config: StackConfig, *, say=print) -> None:
        super().__init__(config, say=say)
        self.platform: Platform | None = None

    def _start(self) -> None:
        self._claim_redis()
        self._create_database()
        started = time.monotonic()
        self.manage("migrate", "--noinput", "--verbosity", "0")
        seed = self.manage("shell", "-c", SEED_CODE)
        data = json.loads(next(x for x in seed.splitlines() if x.startswith("SEED "))[5:])
        self.operator_key, self.staff = data["operator_key"], tuple(data["staff"])
        took = time.monotonic() - started
        self.say(f"scratch database {self.database} migrated and seeded in {took:.0f} s")
        self.platform = Platform(env=self.env, logs=self.logs, port=free_port())
        self.platform.start()
        self.base_url = self.platform.base_url

    def close(self) -> None:
        if self.platform is not None:
            self.platform.stop()
        super().close()

    def pids(self) -> dict[str, int]:
        return {} if self.platform is None else self.platform.groups()

    def log_problems(self, limit: int = 12) -> list[str]:
        """Stack's, over the platform's logs (beat's too)."""
        found = super().log_problems(limit=1_000_000)
        beat = self.logs / "beat.log"
        if beat.exists():
            found += [
                f"beat.log: {line.strip()[:300]}"
                for line in beat.read_text(errors="replace").splitlines()
                if "ERROR" in line or "Traceback" in line
            ]
        return found if len(found) <= limit else [*found[:limit], f"... {len(found)} in all"]

    def second_operator(self) -> tuple[str, str]:
        """A second operator (its API key and webhook secret), for seamless players."""
        out = self.manage("shell", "-c", SECOND_OPERATOR)
        data = json.loads(next(x for x in out.splitlines() if x.startswith("SEED "))[5:])
        return data["key"], data["secret"]


SECOND_OPERATOR = """
import json, secrets
from gin_platform.tenancy import services
from gin_platform.tenancy.principals import Actor
actor = Actor.system("bench")
operator = services.operator_create(
    name="Seamless", slug="seamless-" + secrets.token_hex(3), base_currency="EUR", actor=actor
)
key = services.api_key_create(operator=operator, name="bench", actor=actor).key
print("SEED " + json.dumps({"key": key, "secret": operator.webhook_secret}))
"""


# --- Seeding over the operator API ---------------------------------------------------------
KINDS: dict[str, dict] = {
    "ftk2": {"variant": "ftk", "seats": 2, "stake": "1.00"},
    "match2": {"variant": "match", "seats": 2, "target": 100, "stake": "2.00"},
    "money2": {
        "variant": "money",
        "seats": 2,
        "target": 50,
        "stake_per_point_choices": ["0.05"],
        "cashier_min": "5.00",
        "cashier_max": "50.00",
    },
    "ftk3": {"variant": "ftk", "seats": 3, "stake": "1.00"},
    "match3": {"variant": "match", "seats": 3, "target": 100, "stake": "2.00"},
    "ftk4": {"variant": "ftk", "seats": 4, "stake": "1.00"},
    "match4": {"variant": "match", "seats": 4, "target": 100, "stake": "2.00"},
}
SIT_BODY = {"money2": {"cashier_amount": "20.00", "stake_per_point": "0.05"}}
FEE_BPS = 500
DEPOSIT = "5000.00"


@dataclass
class Player:
    id: str
    ref: str
    token: str


@dataclass
class Group:
    index: int
    kind: str
    room_id: int
    players: list[Player]
    wallet: str  # "transfer" or "seamless"

    @property
    def seats(self) -> int:
        return KINDS[self.kind]["seats"]


def player_seed(operator: ApiClient, ref: str, *, seamless_wallet=None) -> Player:
    """A verified EUR player of ``operator`` with ``DEPOSIT`` to play with (a deposit, or a
    balance in ``seamless_wallet``) and a six-hour session."""
    body = operator.write(
        "POST",
        "/api/v1/players",
        {
            "external_ref": ref,
            "display_name": ref,
            "wallet_currency": "EUR",
            "display_currency": "EUR",
            "kyc_status": "verified",
        },
    )
    if seamless_wallet is not None:
        seamless_wallet.set_balance(ref, DEPOSIT)
    else:
        operator.write(
            "POST",
            f"/api/v1/players/{body['id']}/deposits",
            {"amount": DEPOSIT, "currency": "EUR"},
        )
    session = operator.write(
        "POST", f"/api/v1/players/{body['id']}/sessions", {"ttl_seconds": 6 * 3600}
    )
    return Player(body["id"], ref, session["token"])


def seed_groups(
    base_url: str,
    operator_key: str,
    kinds: list[str],
    *,
    turn_seconds: int,
    turn_clock: dict[str, int],
    wallet: str = "transfer",
    seamless_wallet=None,
    prefix: str = "r13",
) -> list[Group]:
    """A room per group (``kinds[i]``'s variant and seats, the R13 clock) and its players:
    EUR wallets funded with a deposit (transfer), or a balance in the operator's own wallet
    (seamless: ``seamless_wallet``, gin_platform/demo/seamless_wallet.py)."""
    operator = ApiClient(base_url, token=operator_key)

    def player(ref: str) -> Player:
        return player_seed(operator, ref, seamless_wallet=seamless_wallet)

    def group(index: int) -> Group:
        kind = kinds[index]
        spec = {key: value for key, value in KINDS[kind].items()}
        room = operator.write(
            "POST",
            "/api/v1/rooms",
            {
                "name": f"{prefix} {kind} {index}",
                "currency": "EUR",
                "fee_bps": FEE_BPS,
                "turn_seconds": turn_seconds,
                "turn_clock": turn_clock,
                **spec,
            },
        )
        players = [player(f"{prefix}-{index}-{n}") for n in range(spec["seats"])]
        return Group(index, kind, room["id"], players, wallet)

    with ThreadPoolExecutor(6) as pool:
        return list(pool.map(group, range(len(kinds))))


# --- Playing --------------------------------------------------------------------------------
class Gone(Exception):
    """The game could not go on (counted in its record)."""


@dataclass
class Drop:
    """One player (``who``: an index into the group's players) goes away before its
    ``at``-th move (1: its first)."""

    who: int
    at: int
    mode: str  # "return", "never" or "kill"
    back_after: tuple[float, float] = (1.0, 4.0)  # seconds, once the grace is seen / killed


@dataclass
class GameRecord:
    group: int
    kind: str
    wallet: str
    match_id: int | None = None
    players: dict[int, str] = field(default_factory=dict)  # seat -> player id
    drop: Drop | None = None
    dropper: int | None = None  # the seat that went away
    dropped_at: float | None = None
    stage_seen: str | None = None  # the dropped turn's stage the table saw
    stage_after: float | None = None  # seconds from the drop
    back_at: float | None = None  # seconds from the drop to the socket's hello
    own_view: dict | None = None  # the dropper's last view before it went
    killed_pid: int | None = None
    protections: dict | None = None  # GET /me/turn-protections after the game (past-grace)
    third: bool = False  # the cap player's third game of the day (past-grace)
    final: dict | None = None  # the last view's match
    moves: int = 0
    refused: Counter = field(default_factory=Counter)
    rest_reads: int = 0
    reconnects: int = 0
    error: str | None = None
    started: float = 0.0
    ended: float = 0.0


class Conn:
    """One player's socket on one match and the newest view it has."""

    def __init__(
        self,
        http: AsyncHttp,
        ws_base: str,
        match_id: int,
        record: GameRecord,
        gate: asyncio.Event | None = None,
    ) -> None:
        self.http = http
        self.gate = gate  # sockets open only while it is set
        self.ws_base = ws_base
        self.match_id = match_id
        self.record = record
        self.socket = None
        self.view: dict = {}
        self.changed = asyncio.Event()
        self.pending: dict[str, asyncio.Future] = {}
        self.reader: asyncio.Task | None = None
        self.wanted = False  # reopen the socket when it closes under a running game
        self.ids = (f"a{n}" for n in itertools.count())

    @property
    def seq(self) -> int:
        return self.view.get("seq", -1)

    def running(self) -> bool:
        return self.view.get("match", {}).get("status", "running") == "running"

    def take(self, view: dict | None) -> None:
        if view and view["seq"] >= self.seq:
            self.view = view
            self.changed.set()

    async def connect(self, *, until: float) -> None:
        """A ticket and a socket (``after`` the last seq seen), tried again every second
        until ``until`` (the server may be restarting)."""
        self.wanted = True
        while True:
            if self.gate is not None:
                await self.gate.wait()
            try:
                status, body = await self.http.request("POST", "/api/v1/socket-tickets")
                if status != 201 or not isinstance(body, dict):
                    raise HttpError(f"ticket: HTTP {status} {problem_slug(body)}")
                after = self.seq if self.view else None
                url = socket_url(self.ws_base, self.match_id, body["ticket"], after=after)
                socket, hello = await open_socket(url)
                if hello.get("type") != "hello":
                    with contextlib.suppress(Exception):
                        await socket.close()
                    raise HttpError(f"socket refused {problem_slug(hello.get('problem'))}")
            except (HttpError, OSError, TimeoutError, WebSocketException) as exc:
                if time.monotonic() > until:
                    raise Gone(f"could not reconnect: {exc}") from None
                await asyncio.sleep(1.0)
                continue
            self.socket = socket
            self.take(hello["view"])
            self.reader = asyncio.create_task(self.read())
            return

    async def read(self) -> None:
        socket = self.socket
        try:
            async for raw in socket:
                message = json.loads(raw)
                kind = message.get("type")
                if kind in ("events", "view"):
                    self.take(message.get("view"))
                elif kind == "ping":
                    await socket.send('{"type":"pong"}')
                elif kind in ("action_result", "error"):
                    future = self.pending.pop(message.get("id") or "", None)
                    if future is not None and not future.done():
                        future.set_result(message)
        except ConnectionClosed:
            pass
        self.socket = None
        for future in self.pending.values():
            if not future.done():
                future.set_result({"type": "closed"})
        self.pending.clear()
        self.changed.set()
        if self.wanted and self.running() and self.reader is asyncio.current_task():
            self.record.reconnects += 1
            with contextlib.suppress(Gone):
                await self.connect(until=time.monotonic() + 600)

    async def close(self) -> None:
        """Go away: the socket closed, no request sent."""
        self.wanted = False
        reader, self.reader = self.reader, None
        if self.socket is not None:
            with contextlib.suppress(Exception):
                await self.socket.close()
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader
        self.socket = None

    async def wait_seq(self, seq: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while self.seq < seq:
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), deadline - time.monotonic())
            except TimeoutError:
                return False
        return True

    async def act(self, move: dict) -> dict:
        """The move over the socket: its ``action_result`` or ``error`` (``closed`` when
        the socket went away first)."""
        socket = self.socket
        if socket is None:
            return {"type": "closed"}
        message_id = next(self.ids)
        future = asyncio.get_running_loop().create_future()
        self.pending[message_id] = future
        body = {"type": "action", "id": message_id, **move, "expected_seq": self.seq}
        try:
            await socket.send(json.dumps(body))
            return await asyncio.wait_for(future, PUSH_TIMEOUT)
        except (ConnectionClosed, TimeoutError):
            self.pending.pop(message_id, None)
            return {"type": "closed"}

    async def refresh(self, until: float) -> None:
        """The view over REST (after a push did not come): a request, so never for a seat
        that is away."""
        self.record.rest_reads += 1
        while True:
            try:
                status, body = await self.http.request(
                    "GET", f"/api/v1/matches/{self.match_id}/view"
                )
            except HttpError:
                status, body = 0, None
            if status == 200 and isinstance(body, dict):
                self.take(body)
                return
            if time.monotonic() > until:
                raise Gone(f"view: HTTP {status}")
            await asyncio.sleep(1.0)


@dataclass
class Table:
    """What a game needs from its run."""

    base_url: str
    turn_seconds: float
    platform: Platform | None = None
    give_up_after: float = 900.0  # a game still running by then is abandoned (an error)
    no_knock: bool = False  # the seats still here never go out (past-grace: the forfeit comes)
    gate: asyncio.Event | None = None  # while cleared, no socket opens (stop-all)
    # The players' HTTP client (bench_chaos.py's records every answer it gets).
    http: type[AsyncHttp] = AsyncHttp


def bot_move(hand: dict, *, no_knock: bool) -> dict:
    if no_knock:
        legal = [a for a in hand["legal_actions"] if a["kind"] not in ("knock", "big_gin")]
        if legal:
            return choose_action_from_view({**hand, "legal_actions": legal})
    return choose_action_from_view(hand)


async def call(http: AsyncHttp, method: str, path: str, body=None, *, until: float):
    """A request that must succeed, tried again while the server is away (no answer, 502,
    503) until ``until``."""
    while True:
        try:
            status, answer = await http.request(method, path, body)
        except HttpError:
            status, answer = 0, None
        if 200 <= status < 300 and isinstance(answer, dict | list):
            return answer
        if status not in (0, 502, 503) or time.monotonic() > until:
            raise Gone(f"{method} {path}: HTTP {status} {problem_slug(answer)}")
        await asyncio.sleep(1.0)


async def play_game(table: Table, group: Group, drop: Drop | None) -> GameRecord:
    """One game of ``group`` to its end (see the module's docstring)."""
    record = GameRecord(group.index, group.kind, group.wallet, drop=drop)
    record.started = time.monotonic()
    until = record.started + table.give_up_after
    https = {p.id: table.http(table.base_url, p.token) for p in group.players}
    conns: dict[int, Conn] = {}
    try:
        first = https[group.players[0].id]
        lobby = await call(first, "GET", f"/api/v1/lobby/{group.room_id}", until=until)
        free = [t["id"] for t in lobby["tables"] if t["free_seats"] == group.seats]
        if not free:
            raise Gone("no free table")
        seats: dict[int, Player] = {}
        body = SIT_BODY.get(group.kind, {})
        for player in group.players:
            path = f"/api/v1/tables/{free[0]}/sit"
            seat = await call(https[player.id], "POST", path, body, until=until)
            seats[seat["position"]] = player
            record.match_id = seat["match_id"]
        record.players = {seat: player.id for seat, player in seats.items()}
        if drop is not None:
            who = group.players[drop.who].id
            record.dropper = next(s for s, p in seats.items() if p.id == who)
        ws_base = "ws" + table.base_url.removeprefix("http")
        for seat, player in seats.items():
            conns[seat] = Conn(https[player.id], ws_base, record.match_id, record, table.gate)
            await conns[seat].connect(until=until)
        await play_seated(table, record, conns, until)
    except Gone as exc:
        record.error = str(exc)
    except Exception as exc:  # a bug in the client: recorded, the run carries on
        record.error = f"client {type(exc).__name__}: {exc}"
    finally:
        for conn in conns.values():
            await conn.close()
        for http in https.values():
            await http.close()
        record.ended = time.monotonic()
    return record


async def play_seated(
    table: Table, record: GameRecord, conns: dict[int, Conn], until: float
) -> None:
    """Play the match of ``conns`` (a connected socket per seat) to its end: each move the
    bot's, on the mover's socket; ``record.drop`` makes its seat go away on its turn."""
    drop, away = record.drop, None
    moves: Counter = Counter()
    while True:
        if time.monotonic() > until:
            raise Gone("the game did not end in time")
        here = [c for s, c in conns.items() if s != away]
        newest = max(here, key=lambda c: c.seq)
        view = newest.view
        if view["match"]["status"] != "running":
            record.final = view["match"]
            return
        to_act = (view.get("hand") or {}).get("to_act")
        if to_act is None or to_act == away:  # between hands, or the absent seat's turn
            await _any_change(here, newest, until)
            continue
        mover = conns[to_act]
        if not await mover.wait_seq(newest.seq, PUSH_TIMEOUT):
            await mover.refresh(until)
            continue
        if mover.view["hand"]["to_act"] != to_act:
            continue
        due = drop is not None and record.dropped_at is None and moves[to_act] + 1 == drop.at
        if due and to_act == record.dropper:
            await _go_away(table, record, conns, drop)
            if drop.mode == "never":
                away = to_act
            continue
        # Nobody goes out before the planned drop, so every game has its drop.
        no_knock = table.no_knock or (drop is not None and record.dropped_at is None)
        result = await mover.act(bot_move(mover.view["hand"], no_knock=no_knock))
        if result["type"] == "closed":
            await asyncio.sleep(0.5)  # its socket is being reopened
            continue
        if result["type"] == "error":
            record.refused[problem_slug(result.get("problem"))] += 1
            await mover.refresh(until)
            continue
        moves[to_act] += 1
        record.moves += 1
        for conn in here:
            if conn.socket is not None and not await conn.wait_seq(result["seq"], PUSH_TIMEOUT):
                await conn.refresh(until)


async def _any_change(conns: list[Conn], newest: Conn, until: float) -> None:
    for conn in conns:
        conn.changed.clear()
    waits = [asyncio.create_task(conn.changed.wait()) for conn in conns]
    done, pending = await asyncio.wait(waits, timeout=PUSH_TIMEOUT, return_when="FIRST_COMPLETED")
    for task in pending:
        task.cancel()
    if not done:
        await newest.refresh(until)


async def _go_away(table: Table, record: GameRecord, conns: dict[int, Conn], drop: Drop) -> None:
    seat = record.dropper
    assert seat is not None
    leaving = conns[seat]
    record.own_view = leaving.view
    record.dropped_at = time.monotonic()
    if drop.mode == "kill":
        assert table.platform is not None
        port = leaving.socket.local_address[1]
        pid = table.platform.worker_serving(port)
        if pid is None:
            raise Gone("no web worker holds the socket")
        leaving.wanted = False  # this one comes back on its own time, below
        os.kill(pid, signal.SIGKILL)
        record.killed_pid = pid
        await asyncio.sleep(random.uniform(*drop.back_after))
        observer = next(c for s, c in conns.items() if s != seat)
        await observer.refresh(time.monotonic() + 60)
        hand = observer.view.get("hand") or {}
        moved_on = hand.get("to_act") != seat or observer.seq > leaving.seq
        record.stage_seen = "moved on" if moved_on else hand.get("turn_stage")
        record.stage_after = time.monotonic() - record.dropped_at
    else:
        await leaving.close()
        if drop.mode == "never":
            return
        # Until the table sees the turn in the grace (or the bank: no grace was given).
        wait = table.turn_seconds + 30
        await _stage_seen(record, conns, seat, timeout=wait)
        await asyncio.sleep(random.uniform(*drop.back_after))
    await leaving.connect(until=time.monotonic() + 60)
    record.back_at = time.monotonic() - record.dropped_at


async def _stage_seen(record: GameRecord, conns: dict[int, Conn], seat: int, *, timeout: float):
    """Until another seat's view shows ``seat``'s turn past its own clock (``grace`` or
    ``bank``), or the game moved on; read over REST as an observer when no push comes."""
    observers = [c for s, c in conns.items() if s != seat]
    deadline = time.monotonic() + timeout
    started_seq = max(c.seq for c in observers)
    while True:
        newest = max(observers, key=lambda c: c.seq)
        hand = newest.view.get("hand") or {}
        stage = hand.get("turn_stage")
        if newest.seq > started_seq or newest.view["match"]["status"] != "running":
            record.stage_seen = "moved on"
            break
        if hand.get("to_act") == seat and stage in ("grace", "bank"):
            record.stage_seen = stage
            break
        if time.monotonic() > deadline:
            record.stage_seen = stage
            break
        for conn in observers:
            conn.changed.clear()
        waits = [asyncio.create_task(c.changed.wait()) for c in observers]
        done, pending = await asyncio.wait(waits, timeout=5.0, return_when="FIRST_COMPLETED")
        for task in pending:
            task.cancel()
        if not done:
            await newest.refresh(deadline + 30)
    record.stage_after = time.monotonic() - (record.dropped_at or 0.0)


# --- R13's discard, worked out from the cards alone ----------------------------------------
RANKS = "A23456789TJQK"
SUIT_ORDER = "SHDC"


def card_rank(card: str) -> int:
    return RANKS.index(card[:-1].replace("10", "T")) + 1


def card_value(card: str) -> int:
    return min(card_rank(card), 10)


def _melds(cards: list[str]) -> list[frozenset[str]]:
    """Every set (3 or 4 of a rank) and run (3+ in a row of a suit, ace low) in ``cards``."""
    found: list[frozenset[str]] = []
    by_rank: dict[int, list[str]] = {}
    by_suit: dict[str, dict[int, str]] = {}
    for card in cards:
        by_rank.setdefault(card_rank(card), []).append(card)
        by_suit.setdefault(card[-1], {})[card_rank(card)] = card
    for same in by_rank.values():
        for size in (3, 4):
            found += [frozenset(c) for c in itertools.combinations(same, size)]
    for ranks in by_suit.values():
        for low in range(1, 12):
            for high in range(low + 2, 14):
                if all(r in ranks for r in range(low, high + 1)):
                    found.append(frozenset(ranks[r] for r in range(low, high + 1)))
    return found


def deadwood(cards: list[str]) -> int:
    """The lowest deadwood of ``cards`` (R2), by trying every choice of disjoint melds."""
    melds = _melds(cards)
    best = sum(card_value(c) for c in cards)

    def search(start: int, used: frozenset[str]) -> None:
        nonlocal best
        best = min(best, sum(card_value(c) for c in cards if c not in used))
        for index in range(start, len(melds)):
            if not melds[index] & used:
                search(index + 1, used | melds[index])

    search(0, frozenset())
    return best


def expected_discard(cards: list[str], taken: str | None = None) -> str:
    """R13: the card leaving the lowest deadwood; ties to the higher rank, then to the
    earlier suit (S, H, D, C); never ``taken`` (the card just taken from the discard pile)."""
    options = [c for c in cards if c != taken]
    return min(
        options,
        key=lambda c: (
            deadwood([o for o in cards if o != c]),
            -card_rank(c),
            SUIT_ORDER.index(c[-1]),
        ),
    )

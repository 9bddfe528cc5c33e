"""Load test (docs/benchmarks.md): bot pairs playing whole games over HTTP and WebSockets,
settled by Celery.

    .venv/bin/python tests/benchmarks/bench_load.py --games 8,32,64 --duration 60 [--compare]
        [--baseline GAMES_PER_MINUTE]

Needs PostgreSQL (DATABASE_URL's server, default 127.0.0.1:5432, user postgres, trust auth)
and Redis (REDIS_URL's, default 127.0.0.1:6379 db 14); everything else it sets up and tears
down itself (tests/benchmarks/harness.py): a scratch database ``gin_bench_<random>``
(migrated, dropped at the end), the Redis db (must be empty; flushed at the end), the web
server as deployed (gunicorn, ``--workers`` uvicorn workers serving the ASGI application,
deploy/gunicorn.conf.py) on a free loopback port, one real Celery worker (``celery -A
gin_platform worker``) that settles every game, and no beat, so a settlement the worker
misses stays missing and is reported.

Setup over the API, like an operator's integration (gin_platform/demo/scenario.py): exchange
rates through the staff API; per pair two players (one EUR wallet, one USD wallet, so buy-ins
and payouts convert), a deposit each and a session token each; per pair its own room of the
pair's variant (``--mix``, FTK-heavy by default: 6 FTK, 1 Match Play to 100, 1 Money Play to
50 in every 8 pairs), so pairs never take each other's seats.

Then for each concurrency level: that many client threads, one per pair, each playing games
back to back: the lobby, both players sit (the second seat starts the game), then the
engine's bot (games.engine.choose_action_from_view) chooses every move from the mover's own
view; ``POST /matches/{id}/actions`` carries ``expected_seq`` and answers the mover's view.
How a player learns the opponent's moves is the mode:

- sockets (the default, as the browser client does): each player mints a ticket
  (``POST /api/v1/socket-tickets``) and holds one socket to the match
  (``/ws/v1/matches/{id}?ticket=...``); its view is the ``hello``'s, then the newest of its
  own action's answer and the pushes (``events``/``view``), and it acts when that view says
  it is its turn. ``GET .../view`` is read only to resynchronise: after a refused move, or
  when no push came for ``--push-timeout`` seconds. A socket that closes is reopened with a
  new ticket and ``after=<seq>`` (its ``hello`` carries the view). Pings are answered;
- ``--poll`` (as before sockets): ``GET /matches/{id}/view`` whenever the turn passes to the
  other player, about one view per two actions;
- ``--compare``: each level in both modes, one after the other on the same stack, and a
  table of the ratios sockets / polling.

An error is counted and the pair resynchronises from fresh views (10 errors in one game: the
pair leaves, which forfeits the game). With ``--duration`` pairs start games until the time is up
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
who used how many CPUs, and what the web server spent per request and per action.
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
    finish,
    machine_summary,
    ms,
    percentile,
    run_script,
    say,
)
from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as socket_connect

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
SOCKET_TIMEOUT = 30.0  # opening a socket and its hello
HTTP_ENDPOINTS = ("lobby", "sit", "view", "action", "ticket", "leave")
SOCKETS, POLLING = "sockets", "polling"


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
    mode: str = SOCKETS
    # pg_stat_database over the measured window: connections opened, statement time (ms)
    pg: dict = field(default_factory=dict)


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
@dataclass
class Live:
    """One player's socket on one match and the newest view it has (sockets mode)."""

    player: Player
    seat: int
    socket: ClientConnection
    view: dict

    @property
    def seq(self) -> int:
        return self.view["seq"]

    def my_turn(self) -> bool:
        hand = self.view.get("hand")
        return bool(hand) and hand.get("to_act") == self.seat


class PairRunner:
    def __init__(
        self,
        pair: Pair,
        rec: Recorder,
        stop: threading.Event,
        *,
        mode: str = SOCKETS,
        ws_url: str = "",
        push_timeout: float = 10.0,
    ) -> None:
        self.pair = pair
        self.rec = rec
        self.stop = stop
        self.mode = mode
        self.ws_url = ws_url
        self.push_timeout = push_timeout
        self.games: list[Game] = []
        self.abandoned = 0

    def run(self, *, deadline: float, drain_until: float, games: int | None) -> None:
        play = self.play_live if self.mode == SOCKETS else self.play_one
        while not self.stop.is_set() and time.monotonic() < deadline:
            if games is not None and len(self.games) >= games:
                return
            try:
                play(drain_until)
            except RequestFailed:
                time.sleep(0.1)  # counted; try a new game
            except Exception as exc:
                self.rec.error("client", f"{type(exc).__name__}: {exc}"[:120])
                time.sleep(0.1)

    def view(self, player: Player, match_id: int) -> dict:
        return call(self.rec, "view", player.client, "GET", f"/api/v1/matches/{match_id}/view")

    def sit_both(self) -> tuple[int, int, dict[int, Player], float]:
        """The lobby, then both players sit at a free table (the second seat starts the
        game): (table, match, players by seat, start time)."""
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
        seats = {seat_a["position"]: first, seat_b["position"]: second}
        return table, seat_b["match_id"], seats, time.monotonic()

    def finished(self, match_id: int, started: float, actions: int, match: dict) -> None:
        result = match.get("result") or {}
        self.games.append(
            Game(
                match_id,
                self.pair.variant,
                started,
                time.monotonic(),
                actions,
                result.get("hands_played"),
                bool(result.get("forfeit")),
            )
        )

    # Polling: the opponent's moves from GET .../view -----------------------------------
    def play_one(self, drain_until: float) -> None:
        rec = self.rec
        table, match_id, seats, started = self.sit_both()
        actions, errors = 0, 0
        look = self.view(seats[0], match_id)
        while True:
            match = look["match"]
            if match["status"] != "running":
                self.finished(match_id, started, actions, match)
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

    # Sockets: the opponent's moves from pushes -----------------------------------------
    def open_socket(self, player: Player, match_id: int, after: int | None = None):
        """A ticket, then the socket and its hello: (socket, hello)."""
        rec = self.rec
        ticket = call(rec, "ticket", player.client, "POST", "/api/v1/socket-tickets")["ticket"]
        url = f"{self.ws_url}/ws/v1/matches/{match_id}?ticket={ticket}"
        if after is not None:
            url += f"&after={after}"
        started, clock = time.monotonic(), time.perf_counter()
        try:
            socket = socket_connect(
                url,
                proxy=None,
                open_timeout=SOCKET_TIMEOUT,
                close_timeout=2,
                ping_interval=None,  # the protocol's own heartbeat is answered below
                max_size=2**22,
                legacy=True,  # the connection itself, closed by play_live
            )
        except (OSError, TimeoutError, WebSocketException) as exc:
            rec.error("socket", type(exc).__name__)
            raise RequestFailed(f"socket: {exc!r}") from None
        try:
            hello = json.loads(socket.recv(timeout=SOCKET_TIMEOUT))
        except (TimeoutError, ConnectionClosed, ValueError) as exc:
            socket.close()
            rec.error("socket", f"no hello: {type(exc).__name__}")
            raise RequestFailed("socket: no hello") from None
        if hello.get("type") != "hello":
            socket.close()
            slug = (hello.get("problem") or {}).get("type", "").rsplit("/", 1)[-1]
            rec.error("socket", f"refused {slug}")
            raise RequestFailed(f"socket refused: {hello}")
        rec.add("socket_open", started, time.perf_counter() - clock)
        rec.count("socket_opened", started)
        return socket, hello

    def absorb(self, live: Live, raw: str | bytes) -> None:
        message = json.loads(raw)
        kind = message.get("type")
        if kind in ("events", "view"):
            self.rec.count("push")
            view = message.get("view")
            # Never back: a push of this player's own earlier move may arrive after the
            # answer to its next one. A "view" at the same seq is a change that is not a
            # feed event (the match settled): take it.
            if view and view["seq"] >= live.seq:
                live.view = view
        elif kind == "ping":
            live.socket.send('{"type":"pong"}')
            self.rec.count("ping")
        elif kind == "presence":
            self.rec.count("presence")
        elif kind == "error":
            slug = (message.get("problem") or {}).get("type", "").rsplit("/", 1)[-1]
            self.rec.error("socket", f"error {slug}")

    def receive(self, live: Live, match_id: int, timeout: float) -> bool:
        """Handle one message within ``timeout`` seconds (0: only one already here); False
        when none came. A closed socket is reopened and resumed (``after``)."""
        try:
            raw = live.socket.recv(timeout=timeout)
        except TimeoutError:
            return False
        except ConnectionClosed:
            self.rec.count("reconnect")
            socket, hello = self.open_socket(live.player, match_id, after=live.seq)
            live.socket = socket
            if hello["view"]["seq"] >= live.seq:
                live.view = hello["view"]
            return True
        self.absorb(live, raw)
        return True

    def play_live(self, drain_until: float) -> None:
        rec = self.rec
        table, match_id, seats, started = self.sit_both()
        lives: dict[int, Live] = {}
        try:
            for seat, player in seats.items():
                socket, hello = self.open_socket(player, match_id)
                lives[seat] = Live(player, seat, socket, hello["view"])
        except RequestFailed:
            for live in lives.values():
                live.socket.close()
            self.forfeit(seats, table, match_id, started, 0)
            raise
        actions, errors = 0, 0
        try:
            while True:
                for live in lives.values():  # whatever has arrived
                    while self.receive(live, match_id, 0):
                        pass
                done = next(
                    (x.view for x in lives.values() if x.view["match"]["status"] != "running"),
                    None,
                )
                if done is not None:
                    self.finished(match_id, started, actions, done["match"])
                    return
                if (
                    self.stop.is_set()
                    or time.monotonic() > drain_until
                    or errors >= MAX_ERRORS_PER_GAME
                ):
                    self.forfeit(seats, table, match_id, started, actions)
                    return
                movers = [x for x in lives.values() if x.my_turn()]
                if not movers:
                    # Wait for the push that gives the turn to whoever the newest view says.
                    newest = max(lives.values(), key=lambda x: x.seq)
                    hand = newest.view.get("hand") or {}
                    waiting = lives.get(hand.get("to_act"), lives[1 - newest.seat])
                    if not self.receive(waiting, match_id, self.push_timeout):
                        rec.count("push_timeout")
                        try:  # resynchronise from a fresh view
                            waiting.view = self.view(waiting.player, match_id)
                            rec.count("resync")
                        except RequestFailed:
                            errors += 1
                    continue
                mover = max(movers, key=lambda x: x.seq)
                move = choose_action_from_view(mover.view["hand"])
                try:
                    mover.view = call(
                        rec,
                        "action",
                        mover.player.client,
                        "POST",
                        f"/api/v1/matches/{match_id}/actions",
                        {**move, "expected_seq": mover.seq},
                    )
                    actions += 1
                except RequestFailed:
                    errors += 1
                    time.sleep(0.05)
                    try:  # resynchronise from a fresh view
                        mover.view = self.view(mover.player, match_id)
                        rec.count("resync")
                    except RequestFailed:
                        errors += 1
        finally:
            for live in lives.values():
                with contextlib.suppress(Exception):
                    live.socket.close()

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


def run_level(stack: Stack, pairs: list[Pair], args, mode: str) -> LevelResult:
    rec = Recorder()
    stop = threading.Event()
    runners = [
        PairRunner(pair, rec, stop, mode=mode, ws_url=stack.ws_url, push_timeout=args.push_timeout)
        for pair in pairs
    ]
    start = time.monotonic()
    if args.games_per_pair:
        deadline = start + args.max_seconds
        drain_until = deadline
    else:
        deadline = start + args.warmup + args.duration
        drain_until = deadline + args.drain
    meter = stack.cpu_meter()
    pg: dict[str, float] = {}
    if args.games_per_pair:
        meter.start()
        pg = stack.pg_stats()
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
            pg = stack.pg_stats()
            time.sleep(max(0.0, deadline - time.monotonic()))
            cpu = meter.stop()
            pg = {k: v - pg[k] for k, v in stack.pg_stats().items()}
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
        pg = {k: v - pg[k] for k, v in stack.pg_stats().items()}
        window_start = start
        window_end = max((g.finished for g in games), default=end)
    else:
        window_start, window_end = start + args.warmup, deadline
    window = max(window_end - window_start, 1e-9)
    result = LevelResult(len(pairs), window, recorder=rec, mode=mode)
    result.window_start, result.window_end = window_start, window_end
    result.finished = games
    result.abandoned = sum(r.abandoned for r in runners)
    result.cpu = cpu
    result.pg = pg
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
    views = len(rec.latencies("view", lo, hi))
    requests = sum(len(rec.latencies(e, lo, hi)) for e in HTTP_ENDPOINTS)
    errors = sum(rec.errors.values())
    minutes = result.window / 60
    c = result.cpu

    def per_action(count: float) -> float | None:
        return round(count / len(actions), 3) if actions else None

    def cpu_ms(name: str, per: int) -> float | None:
        return round(c.get(name, 0) * result.window / per * 1000, 2) if per else None

    return {
        "mode": result.mode,
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
        "requests_per_second": round(requests / result.window, 1),
        "requests_per_action": per_action(requests),
        "view_reads_per_action": per_action(views),
        "sockets_opened": rec.counted("socket_opened", lo, hi),
        "socket_open_p99_ms": ms(percentile(rec.latencies("socket_open", lo, hi), 99)),
        "pushes_per_second": round(rec.counted("push", lo, hi) / result.window, 1),
        "pushes_per_action": per_action(rec.counted("push", lo, hi)),
        "pings_answered": rec.counted("ping", lo, hi),
        "reconnects": rec.counted("reconnect"),
        "push_timeouts": rec.counted("push_timeout"),
        "resyncs": rec.counted("resync"),
        "gunicorn_cpu_ms_per_request": cpu_ms("gunicorn", requests),
        "gunicorn_cpu_ms_per_action": cpu_ms("gunicorn", len(actions)),
        "postgres_cpu_ms_per_action": cpu_ms("postgres", len(actions)),
        "pg_connections_per_action": per_action(result.pg.get("sessions", 0)),
        "pg_active_ms_per_action": per_action(result.pg.get("active_ms", 0)),
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


def _num(value) -> str:
    return "-" if value is None else f"{value:,}"


def markdown(rows: list[dict]) -> str:
    lines = [
        "| mode | concurrent games | games | games/min | FTK / Match / Money | actions/s "
        "| action p50 ms | action p99 ms | requests/s | view reads per action "
        "| sockets opened | pushes/s | errors | settled | settle lag p50 / max s |",
        "| --- | ---: | ---: | ---: | :---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: | ---: | ---: |",
    ]
    for r in rows:
        v = r["by_variant"]
        live = r["mode"] == SOCKETS
        lines.append(
            f"| {r['mode']} | {r['concurrent_games']} | {r['games']} "
            f"| {r['games_per_minute']:,} | {v['ftk']} / {v['match']} / {v['money']} "
            f"| {r['actions_per_second']:,} | {r['action_p50_ms']} | {r['action_p99_ms']} "
            f"| {r['requests_per_second']:,} | {_num(r['view_reads_per_action'])} "
            f"| {r['sockets_opened'] if live else '-'} "
            f"| {r['pushes_per_second'] if live else '-'} | {r['errors']} "
            f"| {r['settled']}/{r['finished_total']} "
            f"| {r['settle_lag_p50_s']} / {r['settle_lag_max_s']} |"
        )
    return "\n".join(lines)


RATIOS = (
    ("games/min", "games_per_minute"),
    ("actions/s", "actions_per_second"),
    ("action p50 ms", "action_p50_ms"),
    ("action p99 ms", "action_p99_ms"),
    ("requests/s", "requests_per_second"),
    ("requests per action", "requests_per_action"),
    ("view reads per action", "view_reads_per_action"),
    ("gunicorn CPU ms per action", "gunicorn_cpu_ms_per_action"),
    ("PostgreSQL CPU ms per action (whole server)", "postgres_cpu_ms_per_action"),
    ("PostgreSQL statement ms per action", "pg_active_ms_per_action"),
    ("PostgreSQL connections per action", "pg_connections_per_action"),
)


def comparison(rows: list[dict]) -> str:
    """Sockets against polling, level by level: 'ratio (sockets / polling)'."""
    by_level: dict[int, dict[str, dict]] = {}
    for r in rows:
        by_level.setdefault(r["concurrent_games"], {})[r["mode"]] = r
    lines = [
        "| concurrent games | " + " | ".join(name for name, _ in RATIOS) + " |",
        "| ---: | " + " | ".join("---:" for _ in RATIOS) + " |",
    ]
    for level, modes in sorted(by_level.items()):
        if SOCKETS not in modes or POLLING not in modes:
            continue
        cells = []
        for _, key in RATIOS:
            a, b = _float(modes[SOCKETS][key]), _float(modes[POLLING][key])
            ratio = f"{a / b:.2f}" if a is not None and b else "-"
            cells.append(f"{ratio} ({_short(a)} / {_short(b)})")
        lines.append(f"| {level} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _float(value) -> float | None:
    try:
        return float(str(value).replace(",", ""))
    except ValueError:
        return None


def _short(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}" if value < 1 else f"{value:.1f}"


def cpu_lines(rows: list[dict]) -> str:
    lines = []
    for r in rows:
        c = r["cpu"]
        ours = sum(c.get(k, 0) for k in ("gunicorn", "celery", "postgres", "redis", "client"))
        lines.append(
            f"- {r['mode']}, {r['concurrent_games']} games, CPUs busy: gunicorn "
            f"{c.get('gunicorn', 0)} ({_num(r['gunicorn_cpu_ms_per_request'])} ms per request, "
            f"{_num(r['gunicorn_cpu_ms_per_action'])} ms per action), postgres (whole server) "
            f"{c.get('postgres', 0)} ({_num(r['postgres_cpu_ms_per_action'])} ms per action; "
            f"this database alone: {_num(r['pg_active_ms_per_action'])} ms of statements and "
            f"{_num(r['pg_connections_per_action'])} connections opened per action), "
            f"celery {c.get('celery', 0)}, redis {c.get('redis', 0)}, "
            f"load client {c.get('client', 0)}; other processes "
            f"{max(0.0, c.get('machine', 0) - ours):.2f}; whole machine "
            f"{c.get('machine', 0)} of {len(os.sched_getaffinity(0))}"
        )
        if r["mode"] == SOCKETS:
            lines.append(
                f"  sockets: {r['sockets_opened']} opened in the window (open + hello p99 "
                f"{r['socket_open_p99_ms']} ms), {r['pushes_per_action']} pushes per action, "
                f"{r['pings_answered']} pings answered, {r['reconnects']} reconnects, "
                f"{r['push_timeouts']} waits for a push timed out, {r['resyncs']} view "
                f"resyncs; {r['requests_per_action']} requests per action"
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
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument(
        "--poll", action="store_true", help="learn moves by polling GET .../view, as before"
    )
    modes.add_argument(
        "--compare", action="store_true", help="each level with sockets, then polling; ratios"
    )
    parser.add_argument(
        "--push-timeout",
        type=float,
        default=10.0,
        help="sockets: seconds without the expected push before reading the view (10)",
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="gunicorn (uvicorn) worker processes (default 2)"
    )
    parser.add_argument(
        "--asgi-threads",
        type=int,
        default=None,
        help="synchronous requests per worker at once (ASGI_THREADS; the conf file's default)",
    )
    parser.add_argument("--celery-concurrency", type=int, default=2)
    parser.add_argument(
        "--redis-db", type=int, default=None, help="default: REDIS_URL's number, else 14"
    )
    parser.add_argument(
        "--baseline",
        type=float,
        default=None,
        help="games/min of the code to compare with, run the same way on this machine "
        "(e.g. the goal's day, dcbbee8: docs/benchmarks.md): prints each level's ratio to it "
        "(goal >= 2)",
    )
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    parser.add_argument("--keep-logs", action="store_true", help="keep the server/worker logs")
    args = parser.parse_args(argv)
    if args.baseline is not None and args.baseline <= 0:
        parser.error("--baseline: games per minute, above 0")
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
    args.modes = [POLLING] if args.poll else [SOCKETS, POLLING] if args.compare else [SOCKETS]
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    exit_on_sigterm()
    started = time.monotonic()
    say(f"machine: {machine_summary()}")
    config = StackConfig(
        workers=args.workers,
        asgi_threads=args.asgi_threads,
        celery_concurrency=args.celery_concurrency,
        redis_db=args.redis_db,
        keep_logs=args.keep_logs,
    )
    rows, problems = [], []
    stack = Stack(config, say=say)
    server = stack.describe()
    say(
        f"stack: {server}, celery worker --concurrency {args.celery_concurrency}, "
        f"PostgreSQL (scratch database {stack.database}), Redis db {stack.redis_db}; "
        f"mix {args.mix}; modes {', '.join(args.modes)}"
    )
    with stack:
        pairs = seed(stack, max(args.levels), args.mix_list)
        say(f"seeded {len(pairs)} pairs over the API; server {stack.base_url}")
        for level in args.levels:
            for mode in args.modes:
                what = (
                    f"{args.games_per_pair} games per pair"
                    if args.games_per_pair
                    else f"{args.warmup:g} s warm-up + {args.duration:g} s measured"
                )
                say(f"level {level} concurrent games, {mode}: {what}")
                result = run_level(stack, pairs[:level], args, mode)
                row = level_row(result)
                rows.append(row)
                say(
                    f"  {row['games_per_minute']} games/min, action p50 {row['action_p50_ms']} "
                    f"ms p99 {row['action_p99_ms']} ms, view reads per action "
                    f"{row['view_reads_per_action']}, errors {row['errors']}, "
                    f"settled {row['settled']}/{row['finished_total']}"
                )
                if args.baseline:
                    ratio = row["games_per_minute"] / args.baseline
                    verdict = "met" if ratio >= 2 else "not met"
                    say(
                        f"  against the baseline's {args.baseline:g} games/min: {ratio:.2f}x "
                        f"(goal >= 2: {verdict})"
                    )
                for kind, count in row["error_kinds"].items():
                    say(f"    error: {kind} x{count}")
                if row["unsettled"]:
                    problems.append(
                        f"{level} games, {mode}: never settled: matches {row['unsettled'][:20]}"
                    )
                if row["errors"]:
                    problems.append(f"{level} games, {mode}: {row['errors']} failed requests")
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
    if len(args.modes) > 1:
        say("")
        say("### Sockets against polling: ratio (sockets / polling)")
        say("")
        say(comparison(rows))
    if problems:
        say("")
    return finish(args, {"server": server, "levels": rows}, problems)


if __name__ == "__main__":
    run_script(main, stopped="stopped the server and worker, dropped the scratch database")

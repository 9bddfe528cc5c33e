"""Push latency (docs/benchmarks.md): a move committed, until the opponent's socket has it.

    .venv/bin/python tests/benchmarks/bench_push.py [--games 100] [--interval 2] \\
        [--duration 60] [--act rest|socket|both] [--cluster DIR]

The stack is the load test's (tests/benchmarks/harness.py: a scratch PostgreSQL database,
its own Redis db, a real Celery worker settling, the web server as deployed: gunicorn with
uvicorn workers serving the ASGI application); the players and rooms are seeded over the API
as bench_load.py seeds them (one room per pair, FTK, Match Play and Money Play 6:1:1, EUR and
USD wallets).

``--games`` pairs play at a human pace: each game sends one action every ``--interval``
seconds (``--arrivals steady``: exactly; ``poisson``: exponential gaps with that mean),
counted from its previous send; so all games together offer games / interval actions/s (100
games every 2 s: 50 actions/s). A send due while the game is still waiting for the previous
action's answer or push goes as soon as the turn is known, and counts as late. Each player
holds one socket to its match (a ticket per connection), learns every move from its pushes,
and acts when its own view (the hello's, its own action's answer, or a push) says it is its
turn; finished games are followed by new ones at once (lobby, both sit, new sockets).

One asyncio event loop in one process plays every player (one keep-alive HTTP connection
per player, ``live.py``), so every time below is ``time.monotonic()`` on one clock:

- the actor records when it sent the action and when it had the answer: the ``POST
  .../actions`` response (``--act rest``), or the ``action_result`` over its socket
  (``--act socket``, as the browser client does);
- the opponent records when the push carrying that ``seq`` arrived;
- **push latency** = arrival - answer: the brief's "commit -> the opponent's socket". The
  server publishes after the commit, before it writes the answer, so the push may arrive
  first: a negative latency means the opponent had the move before the mover had its
  answer. Also printed: arrival - send (an upper bound: the whole action plus the push), and
  arrival - the event's ``created_at`` (written inside the transaction, server clock, wall
  time: ``time.time()`` on the same machine).

Printed per phase: offered and achieved actions/s, late sends, action latency, push latency
p50/p99 (goal p99 < 50 ms), Little's law (actions and pushes in flight = rate x mean
latency), the CPUs each party kept busy and the server's CPU per action (gunicorn,
PostgreSQL, Redis), PostgreSQL connections opened per action, the client's event-loop lag
(a busy client delays the arrivals it records), and per table the server's CPU and resident
memory (and with the client). Many tables open two sockets each before they play: give
``--warmup`` time for all of them (500 tables: 1,000 sockets, about 52 s on a quiet machine),
or the window measures the opening. Exits 1 on failed requests, missing pushes, unsettled
games or errors in the server log.

``--cluster DIR`` plays the same games against the production topology that
``deploy/cluster/run start --dir DIR`` runs (docs/deploy.md; ports and process groups from
its ``pids.json``; cluster_stack.py): its own operator seeded into the topology's database
through PgBouncer as the app writes, every request and socket through HAProxy (so over both
web nodes), the topology's workers and beat settling. The CPUs and memory are those of its
process groups (web a and b are the gunicorn column, workers 1 and 2 with beat the Celery
one, HAProxy, PgBouncer, its Redis) and of its PostgreSQL primary and replica alone, each
printed beside the sums. The seeded rows stay in the topology's database (no DELETE removes
a ledger, an append-only trigger's table, or what points at it); its next ``run start``
builds that database from nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import itertools
import json
import os
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # harness; it adds the project
from bench_load import ROOM_SPECS, SIT_BODY, Pair, seed, wait_settled
from cluster_stack import PIECES, SERVER_PARTS, ClusterStack
from harness import (
    Stack,
    StackConfig,
    exit_on_sigterm,
    finish,
    group_memory,
    machine_summary,
    ms,
    percentile,
    process_rss,
    run_script,
    say,
)
from live import AsyncHttp, HttpError, mint_ticket, open_socket, problem_slug, socket_url
from websockets.exceptions import ConnectionClosed, WebSocketException

from games.engine import choose_action_from_view

ACTION_TIMEOUT = 30.0
# The parts of the server the one-process stack's figures add up (the cluster's: SERVER_PARTS).
ONE_PROCESS_PARTS = ("gunicorn", "postgres", "redis", "celery")
MB = 1024 * 1024
LATE_TOLERANCE = 0.001


class Failed(Exception):
    """A request or socket failed (already counted): the game is abandoned."""


@dataclass
class Commit:
    match_id: int
    seq: int
    seat: int
    sent: float
    answered: float


@dataclass
class Arrival:
    seq: int
    at: float
    wall: float
    created: dict[int, float]  # event seq -> created_at (epoch seconds, server clock)


@dataclass
class Phase:
    """Everything one run of the games records."""

    act: str
    commits: list[Commit] = field(default_factory=list)
    arrivals: dict[tuple[int, int], list[Arrival]] = field(default_factory=dict)
    requests: list[tuple[str, float, float]] = field(default_factory=list)  # endpoint, at, s
    errors: Counter = field(default_factory=Counter)
    counts: Counter = field(default_factory=Counter)
    late: list[float] = field(default_factory=list)  # due times of late sends
    due: list[float] = field(default_factory=list)  # due times of every send
    games: list[tuple[int, float, bool]] = field(default_factory=list)  # match, end, forfeit
    loop_lag: list[tuple[float, float]] = field(default_factory=list)
    stopping: bool = False

    def arrived(self, match_id: int, seat: int, arrival: Arrival) -> None:
        self.arrivals.setdefault((match_id, seat), []).append(arrival)


class Player:
    def __init__(self, player_id: str, http: AsyncHttp, seat: int = 0) -> None:
        self.id = player_id
        self.http = http
        self.seat = seat
        self.socket = None
        self.view: dict = {}
        self.min_seq = 0  # socket actions: act again only on a view at least this new
        self.changed = asyncio.Event()
        self.pending: dict[str, asyncio.Future] = {}
        self.reader: asyncio.Task | None = None

    def my_turn(self) -> bool:
        hand = self.view.get("hand") or {}
        return (
            self.view.get("match", {}).get("status") == "running"
            and hand.get("to_act") == self.seat
            and self.view["seq"] >= self.min_seq
        )

    def running(self) -> bool:
        return self.view.get("match", {}).get("status", "running") == "running"


class Game:
    def __init__(self, runner: PairRunner, match_id: int, players: dict[int, Player]) -> None:
        self.runner = runner
        self.match_id = match_id
        self.players = players
        self.ids = (f"a{n}" for n in itertools.count())


class PairRunner:
    def __init__(self, pair: Pair, stack: Stack, phase: Phase, args) -> None:
        self.pair = pair
        self.stack = stack
        self.phase = phase
        self.args = args
        self.players = [
            Player(p.id, AsyncHttp(stack.base_url, p.client.token)) for p in pair.players
        ]
        self.next_due = 0.0

    def gap(self) -> float:
        if self.args.arrivals == "steady":
            return self.args.interval
        return random.expovariate(1 / self.args.interval)

    async def call(
        self, endpoint: str, player: Player, method: str, path: str, body=None, *, benign=()
    ):
        """One timed request; an error is counted (unless its problem slug is ``benign``)
        and raised as Failed."""
        started = time.monotonic()
        try:
            status, answer = await player.http.request(method, path, body)
        except HttpError as exc:
            self.phase.errors[(endpoint, "no answer")] += 1
            raise Failed(str(exc)) from None
        self.phase.requests.append((endpoint, started, time.monotonic() - started))
        if status >= 400:
            if problem_slug(answer) in benign:
                self.phase.counts[f"{endpoint} {problem_slug(answer)} (benign)"] += 1
            else:
                self.phase.errors[(endpoint, f"{status} {problem_slug(answer)}".strip())] += 1
            raise Failed(f"{endpoint}: HTTP {status}")
        return answer

    # A game -------------------------------------------------------------------------------
    async def run(self, deadline: float, drain_until: float) -> None:
        self.next_due = time.monotonic() + random.uniform(0, self.args.interval)
        failures = 0
        while not self.phase.stopping and time.monotonic() < deadline:
            try:
                await self.play(drain_until)
                failures = 0
                continue
            except Failed:
                pass
            except Exception as exc:  # a bug in the client: counted, and carry on
                self.phase.errors[("client", f"{type(exc).__name__}: {exc}"[:120])] += 1
            # Backing off as a real client does: 500 pairs retrying every 0.1 s are 5,000
            # requests a second, which keep a busy server busy.
            failures += 1
            await asyncio.sleep(min(5.0, 0.1 * 2**failures) * random.uniform(0.5, 1.0))

    async def play(self, drain_until: float) -> None:
        first, second = self.players
        lobby = await self.call("lobby", first, "GET", f"/api/v1/lobby/{self.pair.room_id}")
        table = next((t["id"] for t in lobby["tables"] if t["free_seats"] == 2), None)
        if table is None:  # a seat left held by a pair's failed start (its leave refused)
            for held in lobby["tables"]:
                if held["free_seats"] == 1:
                    for player in self.players:
                        with contextlib.suppress(Failed):
                            await self.call(
                                "leave",
                                player,
                                "POST",
                                f"/api/v1/tables/{held['id']}/leave",
                                benign=("not-seated",),
                            )
            raise Failed("no free table")
        body = SIT_BODY.get(self.pair.variant, {})
        path = f"/api/v1/tables/{table}/sit"
        seat_a = await self.call("sit", first, "POST", path, body)
        try:
            seat_b = await self.call("sit", second, "POST", path, body)
        except Failed:
            with contextlib.suppress(Failed):
                await self.call("leave", first, "POST", f"/api/v1/tables/{table}/leave")
            raise
        first.seat, second.seat = seat_a["position"], seat_b["position"]
        game = Game(self, seat_b["match_id"], {first.seat: first, second.seat: second})
        try:
            for player in self.players:
                await self.connect(game, player)
            await self.act_until_over(game, table, drain_until)
        finally:
            for player in self.players:
                await self.disconnect(player)

    async def connect(self, game: Game, player: Player, after: int | None = None) -> None:
        ticket_started = time.monotonic()
        try:
            ticket = await mint_ticket(player.http)
        except HttpError as exc:
            self.phase.errors[("ticket", str(exc)[:80])] += 1
            raise Failed("ticket") from None
        opened = time.monotonic()
        self.phase.requests.append(("ticket", ticket_started, opened - ticket_started))
        url = socket_url(self.stack.ws_url, game.match_id, ticket, after=after)
        try:
            player.socket, hello = await open_socket(url)
        except (OSError, TimeoutError, WebSocketException) as exc:
            self.phase.errors[("socket", type(exc).__name__)] += 1
            raise Failed("socket") from None
        if hello.get("type") != "hello":
            self.phase.errors[("socket", f"refused {problem_slug(hello.get('problem'))}")] += 1
            await player.socket.close()
            raise Failed("socket refused")
        self.phase.counts["sockets opened"] += 1
        self.phase.requests.append(("socket_open", opened, time.monotonic() - opened))
        if not player.view or hello["view"]["seq"] >= player.view.get("seq", -1):
            player.view = hello["view"]
        if after is None:
            player.min_seq = 0
        player.changed.set()
        player.reader = asyncio.create_task(self.read(game, player))

    async def disconnect(self, player: Player) -> None:
        reader, player.reader = player.reader, None
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader
        if player.socket is not None:
            with contextlib.suppress(Exception):
                await player.socket.close()
        player.socket = None
        player.view = {}
        for future in player.pending.values():
            future.cancel()
        player.pending.clear()

    async def read(self, game: Game, player: Player) -> None:
        """Every message of the player's socket; a socket that closes under the game is
        reopened and resumed (``after``)."""
        phase = self.phase
        try:
            async for raw in player.socket:
                at, wall = time.monotonic(), time.time()
                message = json.loads(raw)
                kind = message.get("type")
                if kind in ("events", "view"):
                    phase.counts["pushes"] += 1
                    created = {
                        e["seq"]: datetime.fromisoformat(e["created_at"]).timestamp()
                        for e in message.get("events", ())
                    }
                    phase.arrived(
                        game.match_id, player.seat, Arrival(message["seq"], at, wall, created)
                    )
                    view = message.get("view")
                    if view and view["seq"] >= player.view.get("seq", -1):
                        player.view = view
                        player.changed.set()
                elif kind == "ping":
                    phase.counts["pings answered"] += 1
                    await player.socket.send('{"type":"pong"}')
                elif kind == "presence":
                    phase.counts["presence messages"] += 1
                elif kind in ("action_result", "error"):
                    future = player.pending.pop(message.get("id") or "", None)
                    if future is not None and not future.done():
                        future.set_result((at, message))
                    elif kind == "error":
                        slug = problem_slug(message.get("problem"))
                        phase.errors[("socket", f"error {slug}")] += 1
        except ConnectionClosed:
            pass
        if player.reader is asyncio.current_task() and player.running():
            phase.counts["reconnects"] += 1
            player.reader = None
            with contextlib.suppress(Failed):
                await self.connect(game, player, after=player.view.get("seq"))

    async def act_until_over(self, game: Game, table: int, drain_until: float) -> None:
        errors = 0
        while True:
            players = list(game.players.values())
            if any(not p.running() for p in players if p.view):
                self.phase.games.append((game.match_id, time.monotonic(), False))
                await self.both_see_the_end(players)
                return
            if self.phase.stopping or time.monotonic() > drain_until or errors >= 10:
                await self.forfeit(game, table)
                return
            movers = [p for p in players if p.my_turn()]
            if not movers:
                for p in players:
                    p.changed.clear()
                waits = [asyncio.create_task(p.changed.wait()) for p in players]
                done, pending = await asyncio.wait(
                    waits, timeout=self.args.push_timeout, return_when=asyncio.FIRST_COMPLETED
                )
                for task in pending:
                    task.cancel()
                if not done:
                    self.phase.counts["push waits timed out"] += 1
                    newest = max(players, key=lambda p: p.view.get("seq", -1))
                    to_act = (newest.view.get("hand") or {}).get("to_act")
                    waiting = game.players.get(to_act, newest)
                    errors += not await self.resync(game, waiting)
                continue
            mover = max(movers, key=lambda p: p.view["seq"])
            await self.wait_turn()
            try:
                await self.act(game, mover)
            except Failed:
                errors += 1
                await asyncio.sleep(0.05)
                errors += not await self.resync(game, mover)

    async def both_see_the_end(self, players: list[Player]) -> None:
        """Keep the sockets until each player's view has the last move (its push may still
        be on its way), so the last push of a game is measured like any other."""
        deadline = time.monotonic() + self.args.push_timeout
        last = max(p.view.get("seq", -1) for p in players)
        for player in players:
            while player.view.get("seq", -1) < last and time.monotonic() < deadline:
                player.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(player.changed.wait(), deadline - time.monotonic())

    async def wait_turn(self) -> None:
        """Hold the move until the game's next send is due (human pace)."""
        now = time.monotonic()
        due = self.next_due
        self.phase.due.append(due)
        if due > now:
            await asyncio.sleep(due - now)
        elif now - due > LATE_TOLERANCE:
            self.phase.late.append(due)
        self.next_due = time.monotonic() + self.gap()  # counted from this send

    async def act(self, game: Game, mover: Player) -> None:
        move = choose_action_from_view(mover.view["hand"])
        expected = mover.view["seq"]
        sent = time.monotonic()
        if self.args_act == "rest":
            answer = await self.call(
                "action",
                mover,
                "POST",
                f"/api/v1/matches/{game.match_id}/actions",
                {**move, "expected_seq": expected},
            )
            answered = time.monotonic()
            if answer["seq"] >= mover.view.get("seq", -1):
                mover.view = answer
            seq = answer["seq"]
        else:
            message_id = next(game.ids)
            future = asyncio.get_running_loop().create_future()
            mover.pending[message_id] = future
            try:
                await mover.socket.send(
                    json.dumps(
                        {"type": "action", "id": message_id, **move, "expected_seq": expected}
                    )
                )
                answered, result = await asyncio.wait_for(future, ACTION_TIMEOUT)
            except (ConnectionClosed, TimeoutError, asyncio.CancelledError, AttributeError):
                mover.pending.pop(message_id, None)
                self.phase.errors[("action", "no action_result")] += 1
                raise Failed("socket action") from None
            if result["type"] == "error":
                slug = problem_slug(result.get("problem"))
                self.phase.errors[("action", f"refused {slug}")] += 1
                raise Failed("socket action refused")
            self.phase.requests.append(("action", sent, answered - sent))
            seq = result["seq"]
            mover.min_seq = seq  # its view follows in an events push
        self.phase.commits.append(Commit(game.match_id, seq, mover.seat, sent, answered))

    async def resync(self, game: Game, player: Player) -> bool:
        try:
            view = await self.call("view", player, "GET", f"/api/v1/matches/{game.match_id}/view")
        except Failed:
            return False
        self.phase.counts["view resyncs"] += 1
        player.view, player.min_seq = view, 0
        player.changed.set()
        return True

    async def forfeit(self, game: Game, table: int) -> None:
        """Time is up (or too many errors): seat 0 leaves, which forfeits the game. A game
        that ended meanwhile answers 409 not-seated: counted, not an error."""
        with contextlib.suppress(Failed):
            await self.call(
                "leave",
                game.players[0],
                "POST",
                f"/api/v1/tables/{table}/leave",
                benign=("not-seated",),
            )
            self.phase.games.append((game.match_id, time.monotonic(), True))

    @property
    def args_act(self) -> str:
        return self.phase.act


async def measure_loop_lag(phase: Phase, interval: float = 0.05) -> None:
    """How late the client's event loop wakes up: part of every time it records."""
    while not phase.stopping:
        before = time.monotonic()
        await asyncio.sleep(interval)
        phase.loop_lag.append((before, time.monotonic() - before - interval))


async def run_phase_async(runners: list[PairRunner], phase: Phase, args, on_window) -> None:
    start = time.monotonic()
    deadline = start + args.warmup + args.duration
    drain_until = deadline + args.drain
    lag = asyncio.create_task(measure_loop_lag(phase))
    games = [asyncio.create_task(r.run(deadline, drain_until)) for r in runners]
    await asyncio.sleep(args.warmup)
    await on_window("start")
    await asyncio.sleep(max(0.0, deadline - time.monotonic()))
    await on_window("stop")
    try:
        await asyncio.wait_for(asyncio.gather(*games), args.drain + 30)
    except TimeoutError:
        phase.stopping = True
        await asyncio.gather(*games, return_exceptions=True)
    phase.stopping = True
    await lag
    for runner in runners:
        for player in runner.players:
            await player.http.close()


def run_phase(stack: Stack | ClusterStack, pairs: list[Pair], args, act: str) -> dict:
    phase = Phase(act)
    runners = [PairRunner(pair, stack, phase, args) for pair in pairs]
    meter = stack.cpu_meter()
    window: dict[str, float] = {}

    async def on_window(what: str) -> None:
        window[what] = time.monotonic()
        if what == "start":
            meter.start()
            window["pg"] = await asyncio.to_thread(stack.pg_stats)
        else:
            used = meter.stop() | {f"postgres_{k}": v for k, v in meter.postgres_servers.items()}
            window["cpu"] = combined(used, args.pieces)
            after = await asyncio.to_thread(stack.pg_stats)
            window["pg"] = {k: v - window["pg"][k] for k, v in after.items()}
            memory = await asyncio.to_thread(memory_in_use, stack)
            window["memory"] = combined(memory, args.pieces)

    asyncio.run(run_phase_async(runners, phase, args, on_window))
    finished = [m for m, _, _ in phase.games]
    say(f"  {len(finished)} games finished; waiting for their settlements")
    settled, missing = wait_settled(stack, [_Finished(m) for m in finished], args.settle_timeout)
    return report(phase, args, window, len(settled), sorted(missing), len(pairs))


@dataclass
class _Finished:
    match_id: int


def memory_in_use(stack: Stack | ClusterStack) -> dict[str, int]:
    """Bytes resident at the end of the measured window, while every table still plays:
    the stack's process groups (VmRSS: gunicorn and Celery; on the cluster each web node,
    worker and beat, HAProxy and PgBouncer), PostgreSQL's private memory (RssAnon: the
    shared buffers are the server's, whatever it serves; this database's backends, or each
    of the cluster's servers whole), Redis (``used_memory``: the whole server, other
    databases included) and this client."""
    found = {name: sum(group_memory(pgid).values()) for name, pgid in stack.pids().items()}
    found |= stack.postgres_memory()
    found["redis"] = int(stack.redis_info("memory").get("used_memory", 0))
    found["client"] = process_rss(os.getpid())
    return found


def combined(figures: dict, pieces: dict[str, tuple[str, ...]]) -> dict:
    """``figures`` with each of ``pieces`` (a part of the server -> the names it is made
    of: the cluster's two web nodes are its gunicorn) added up under its own name."""
    whole = {
        part: round(sum(figures.get(name, 0) for name in names), 2)
        for part, names in pieces.items()
    }
    return figures | whole


def report(phase: Phase, args, window: dict, settled: int, unsettled: list, games: int) -> dict:
    parts = args.server_parts
    lo, hi = window["start"], window["stop"]
    seconds = hi - lo
    commits = [c for c in phase.commits if lo <= c.answered < hi]
    push, push_from_send, push_server, missing = [], [], [], 0
    for c in commits:
        arrivals = phase.arrivals.get((c.match_id, 1 - c.seat), [])
        index = bisect.bisect_left([a.seq for a in arrivals], c.seq)
        if index == len(arrivals):
            missing += 1
            continue
        arrival = arrivals[index]
        push.append(arrival.at - c.answered)
        push_from_send.append(arrival.at - c.sent)
        if c.seq in arrival.created:
            push_server.append(arrival.wall - arrival.created[c.seq])
    actions = [c.answered - c.sent for c in commits]
    rate = len(commits) / seconds
    requests = [r for r in phase.requests if lo <= r[1] < hi and r[0] != "socket_open"]
    cpu = window["cpu"]
    memory = window["memory"]
    server_cpus = sum(cpu.get(k, 0) for k in parts)
    server_bytes = sum(memory.get(k, 0) for k in parts)

    def per_action(name: str) -> float | None:
        return round(cpu.get(name, 0) * seconds / len(commits) * 1000, 2) if commits else None

    mean_action = sum(actions) / len(actions) if actions else 0.0
    mean_push = sum(push_from_send) / len(push_from_send) if push_from_send else 0.0
    lag = [v for t, v in phase.loop_lag if lo <= t < hi]
    due = [d for d in phase.due if lo <= d < hi]
    late = [d for d in phase.late if lo <= d < hi]
    return {
        "act": phase.act,
        "games": games,
        "interval_s": args.interval,
        "arrivals": args.arrivals,
        "offered_actions_per_second": round(games / args.interval, 1),
        "achieved_actions_per_second": round(rate, 1),
        "late_share": round(len(late) / len(due), 3) if due else 0.0,
        "actions": len(commits),
        "action_p50_ms": ms(percentile(actions, 50)),
        "action_p99_ms": ms(percentile(actions, 99)),
        "push_p50_ms": ms(percentile(push, 50)),
        "push_p99_ms": ms(percentile(push, 99)),
        "push_max_ms": ms(max(push, default=None)),
        "push_before_answer_share": round(sum(v < 0 for v in push) / len(push), 3)
        if push
        else None,
        "push_from_send_p50_ms": ms(percentile(push_from_send, 50)),
        "push_from_send_p99_ms": ms(percentile(push_from_send, 99)),
        "push_from_event_p50_ms": ms(percentile(push_server, 50)),
        "push_from_event_p99_ms": ms(percentile(push_server, 99)),
        "pushes_missing": missing,
        "p99_goal_met": bool(push) and percentile(push, 99) < args.p99_goal_ms / 1000,
        "littles_law": {
            "actions_in_flight": round(rate * mean_action, 2),
            "pushes_in_flight_from_send": round(rate * mean_push, 2),
            "mean_action_ms": round(mean_action * 1000, 1),
            "mean_push_from_send_ms": round(mean_push * 1000, 1),
        },
        "requests_per_second": round(len(requests) / seconds, 1),
        "requests_by_endpoint": dict(Counter(r[0] for r in requests)),
        "cpu": cpu,
        "server_cpu_ms_per_action": {name: per_action(name) for name in parts},
        "client_cpu_ms_per_action": per_action("client"),
        "per_table": {
            "server_millicpus": round(server_cpus / games * 1000, 2),
            "with_client_millicpus": round((server_cpus + cpu.get("client", 0)) / games * 1000, 2),
            "server_kb": round(server_bytes / games / 1024, 1),
            "with_client_kb": round((server_bytes + memory.get("client", 0)) / games / 1024, 1),
        },
        "memory_mb": {name: round(value / MB, 1) for name, value in memory.items()},
        "pg_connections_per_action": round(window["pg"]["sessions"] / len(commits), 2)
        if commits
        else None,
        "pg_active_ms_per_action": round(window["pg"]["active_ms"] / len(commits), 2)
        if commits
        else None,
        "client_loop_lag_p99_ms": ms(percentile(lag, 99)),
        "counts": dict(phase.counts),
        "errors": sum(phase.errors.values()),
        "error_kinds": {f"{e} {w}": n for (e, w), n in phase.errors.most_common()},
        "games_finished": len(phase.games),
        "forfeits": sum(1 for _, _, forfeit in phase.games if forfeit),
        "settled": settled,
        "unsettled": unsettled,
        "window_s": round(seconds, 1),
    }


def summary(row: dict, args) -> list[str]:
    s = row["server_cpu_ms_per_action"]
    c = row["cpu"]
    law = row["littles_law"]
    t = row["per_table"]
    parts = args.server_parts
    ours = sum(c.get(k, 0) for k in (*parts, "client"))
    busy = ", ".join(f"{args.part_labels.get(k, k)} {c.get(k, 0)}" for k in parts)
    lines = [
        f"- act over {row['act']}: {row['games']} games, one action per game every "
        f"{row['interval_s']:g} s ({row['arrivals']}): offered {row['offered_actions_per_second']} "
        f"actions/s, achieved {row['achieved_actions_per_second']} ({row['actions']} actions "
        f"in {row['window_s']} s; late sends {row['late_share']:.0%})",
        f"  push latency (arrival - answer): p50 {row['push_p50_ms']} ms, p99 "
        f"{row['push_p99_ms']} ms, max {row['push_max_ms']} ms (p99 < {args.p99_goal_ms:g} ms: "
        f"{'met' if row['p99_goal_met'] else 'not met'}; {row['push_before_answer_share']:.0%} "
        f"arrived before the mover's answer; {row['pushes_missing']} missing)",
        f"  arrival - send: p50 {row['push_from_send_p50_ms']} / p99 "
        f"{row['push_from_send_p99_ms']} ms; arrival - event created_at (server clock): p50 "
        f"{row['push_from_event_p50_ms']} / p99 {row['push_from_event_p99_ms']} ms; action "
        f"p50 {row['action_p50_ms']} / p99 {row['action_p99_ms']} ms",
        f"  Little's law: {law['actions_in_flight']} actions in flight "
        f"({row['achieved_actions_per_second']}/s x {law['mean_action_ms']} ms mean), "
        f"{law['pushes_in_flight_from_send']} moves between send and the opponent's push "
        f"({law['mean_push_from_send_ms']} ms mean); {row['requests_per_second']} HTTP "
        f"requests/s in all",
        f"  CPUs busy: {busy}, client {c.get('client', 0)}; other processes "
        f"{max(0.0, c.get('machine', 0) - ours):.2f}; machine {c.get('machine', 0)} of "
        f"{len(os.sched_getaffinity(0))}",
        "  server CPU per action: " + ", ".join(f"{k} {s[k]} ms" for k in parts) + " (client "
        f"{row['client_cpu_ms_per_action']} ms); this database alone: "
        f"{row['pg_active_ms_per_action']} ms of statements and "
        f"{row['pg_connections_per_action']} connections opened per action; client loop lag p99 "
        f"{row['client_loop_lag_p99_ms']} ms",
        f"  per table: {t['server_millicpus']} thousandths of a CPU of the server "
        f"({t['with_client_millicpus']} with the client) and {t['server_kb']} KB resident "
        f"({t['with_client_kb']} with the client); resident MB at the window's end "
        f"{json.dumps(row['memory_mb'], sort_keys=True)}",
        f"  {json.dumps(row['counts'], sort_keys=True)}; errors {row['errors']}; games "
        f"{row['games_finished']} ({row['forfeits']} forfeited at the end), settled "
        f"{row['settled']}",
    ]
    if args.pieces:  # what each part of the cluster is made of
        lines.insert(
            5,
            "  of which CPUs: "
            + "; ".join(
                f"{part} = " + " + ".join(f"{name} {c.get(name, 0)}" for name in names)
                for part, names in args.pieces.items()
            ),
        )
    return lines


def markdown(rows: list[dict]) -> str:
    lines = [
        "| act over | games | offered / achieved actions/s | push p50 / p99 ms "
        "| arrival - send p50 / p99 ms | action p50 / p99 ms | in flight (actions) "
        "| gunicorn / postgres CPU ms per action | errors |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        s = r["server_cpu_ms_per_action"]
        lines.append(
            f"| {r['act']} | {r['games']} | {r['offered_actions_per_second']} / "
            f"{r['achieved_actions_per_second']} | {r['push_p50_ms']} / {r['push_p99_ms']} "
            f"| {r['push_from_send_p50_ms']} / {r['push_from_send_p99_ms']} "
            f"| {r['action_p50_ms']} / {r['action_p99_ms']} "
            f"| {r['littles_law']['actions_in_flight']} | {s['gunicorn']} / {s['postgres']} "
            f"| {r['errors']} |"
        )
    return "\n".join(lines)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="concurrent games (100)")
    parser.add_argument(
        "--interval", type=float, default=2.0, help="seconds between one game's actions (2)"
    )
    parser.add_argument("--arrivals", choices=("steady", "poisson"), default="steady")
    parser.add_argument("--act", choices=("rest", "socket", "both"), default="rest")
    parser.add_argument("--duration", type=float, default=60.0, help="measured seconds (60)")
    parser.add_argument("--warmup", type=float, default=15.0, help="seconds before measuring")
    parser.add_argument("--drain", type=float, default=20.0, help="seconds to end the games")
    parser.add_argument("--push-timeout", type=float, default=10.0)
    parser.add_argument("--settle-timeout", type=float, default=120.0)
    parser.add_argument("--p99-goal-ms", type=float, default=50.0)
    parser.add_argument("--mix", default="ftk=6,match=1,money=1", help="variants per pair")
    parser.add_argument("--workers", type=int, default=2, help="web worker processes (2)")
    parser.add_argument("--asgi-threads", type=int, default=None)
    parser.add_argument("--celery-concurrency", type=int, default=2)
    parser.add_argument(
        "--redis-db", type=int, default=None, help="default: REDIS_URL's number, else 14"
    )
    parser.add_argument(
        "--cluster",
        type=Path,
        metavar="DIR",
        help="play against the running topology of `deploy/cluster/run start --dir DIR` "
        "through its HAProxy, metering its processes (--workers, --asgi-threads, "
        "--celery-concurrency and --redis-db are then the topology's own)",
    )
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    parser.add_argument("--keep-logs", action="store_true")
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 500:
        parser.error("--games: 1 to 500")
    if args.interval <= 0 or args.duration <= 0:
        parser.error("--interval and --duration must be positive")
    args.mix_list = []
    for part in args.mix.split(","):
        name, _, weight = part.partition("=")
        if name not in ROOM_SPECS:
            parser.error(f"--mix: unknown variant {name!r}")
        args.mix_list += [name] * int(weight or 1)
    args.acts = ["rest", "socket"] if args.act == "both" else [args.act]
    if args.cluster:
        args.server_parts, args.pieces = SERVER_PARTS, PIECES
        args.part_labels = {"postgres": "postgres (primary + replica)"}
    else:
        args.server_parts, args.pieces = ONE_PROCESS_PARTS, {}
        args.part_labels = {"postgres": "postgres (whole server)"}
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    exit_on_sigterm()
    random.seed(1)
    say(f"machine: {machine_summary()}")
    stack: Stack | ClusterStack
    if args.cluster:
        stack = ClusterStack.running(args.cluster)
        say(f"cluster: {stack.describe()}; {args.games} games, mix {args.mix}; one asyncio client")
    else:
        stack = Stack(
            StackConfig(
                workers=args.workers,
                asgi_threads=args.asgi_threads,
                celery_concurrency=args.celery_concurrency,
                redis_db=args.redis_db,
                keep_logs=args.keep_logs,
            ),
            say=say,
        )
        say(
            f"stack: {stack.describe()}, celery worker --concurrency {args.celery_concurrency}, "
            f"Redis db {stack.redis_db}; {args.games} games, mix {args.mix}; one asyncio client "
            "process"
        )
    rows, problems = [], []
    with stack:
        pairs = seed(stack, args.games, args.mix_list)
        say(f"seeded {len(pairs)} pairs over the API; server {stack.base_url}")
        for act in args.acts:
            say(
                f"acting over {act}: {args.warmup:g} s warm-up + {args.duration:g} s measured "
                f"+ up to {args.drain:g} s to finish the games"
            )
            row = run_phase(stack, pairs, args, act)
            rows.append(row)
            for line in summary(row, args):
                say(line)
            if row["errors"]:
                problems.append(f"{act}: {row['errors']} errors: {row['error_kinds']}")
            if row["pushes_missing"]:
                problems.append(f"{act}: {row['pushes_missing']} pushes never arrived")
            if row["unsettled"]:
                problems.append(f"{act}: never settled: {row['unsettled'][:20]}")
        log_problems = stack.log_problems()
        if log_problems:
            problems.append("errors in the server/worker logs: " + " | ".join(log_problems))
        if args.keep_logs and isinstance(stack, Stack):
            say(f"logs kept in {stack.logs}")
    say("")
    say(f"## Push latency: {stack.describe()}")
    say("")
    say(markdown(rows))
    return finish(args, {"rows": rows}, problems)


if __name__ == "__main__":
    run_script(
        main,
        stopped="stopped what it started (the one-process stack: the server and worker; its "
        "scratch database dropped)",
    )

"""R15's quick seat on the platform as deployed (docs/matchmaking.md "Benchmark",
docs/benchmarks.md): simulated players arriving at a steady rate ask for a quick seat over
HTTP and wait for their seat on their own socket.

    .venv/bin/python tests/benchmarks/bench_matchmaking.py [--players 300] [--gap 0.5 1.0]
        [--sd 250] [--linked-pairs 15] [--seed 7] [--redis-db N] [--json FILE]
    .venv/bin/python tests/benchmarks/bench_matchmaking.py --simulate [--runs 20]

The run has a stack of its own (harness.py: a scratch PostgreSQL database ``gin_bench_*``
migrated and dropped at the end, a Redis db that must be empty and is flushed at the end) and
the platform as child processes (interrupted.py ``Platform``: gunicorn with
deploy/gunicorn.conf.py and 2 workers, a Celery worker, prefork 2, and Celery beat, whose
``quick-seat-tick`` runs every 2 s). Seeded first, not measured: the network, two member
operators and a network First To Knock room at 1.00 EUR (600 s turns: no timer fires during
the run) over the operator API; ``--players`` players shared by the two operators, each with a
deposit, a session and a screen name; their heads-up FTK ratings drawn from a normal spread
around 1500 (``--sd``, clipped to 700-2300), RDs from 50 to 350, written with ``manage.py
shell`` (ratings come from rated matches; the run needs a spread at once); and
``--linked-pairs`` pairs of one operator's players linked through the operator API
(``household``), each pair given ratings 0-20 points apart and arriving one after the other,
so that only the link keeps them apart.

Measured: the players arrive one every ``--gap`` seconds (uniform between the two values), each
opening its socket (``/ws/v1/me``), asking (``POST /api/v1/lobby/quick-seat``) and waiting for
``quick_seat.seated`` (a player still waiting 75 s after the last arrival has nobody left to
meet: every band holds anybody after 60 s). Read from the database afterwards: seated and
left waiting (and whether those left are linked to each other), the wait
(the ticket's ``joined_at`` to ``ended_at``) median, p90 and max, the share of matches whose two
ratings are within 100 points, linked pairs matched (must be 0), players seated twice (must
be 0) and the seats per match, and the server's CPU seconds over the run (gunicorn, the worker
and beat together, from /proc; PostgreSQL's backends' active time in the scratch database
beside it) divided by the matches, and the same less what those processes burn idle
(measured for ``--idle`` seconds before the first player: beat's other jobs, heartbeats):
the queue's CPU per match (two requests, two sockets and their
pushes, the matcher's decisions and the pair's seating, buy-ins and first deal included).

``--simulate`` runs only the pure pairing (``matchmaking.bands``) on the same kind of arrivals
in virtual time, the matcher after each arrival and every 2 s, ``--runs`` times, for R15's band
as built ("holds": one player's band holds the other's rating) and for bands that merely
overlap: the figures docs/matchmaking.md "Why the band holds the rating" quotes.

Exits 1 when a check fails: a median wait over 20 s, under 80 % of matches within 100 points,
a linked pair matched, anybody seated twice, two players left waiting who may meet, or an
error in the logs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from statistics import median
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))  # harness; it adds the project
from harness import (
    SEED_CODE,
    Stack,
    StackConfig,
    exit_on_sigterm,
    free_port,
    group_memory,
    machine_summary,
    percentile,
    process_cpu_seconds,
    say,
)
from interrupted import Platform
from live import AsyncHttp, HttpError, mint_ticket, open_socket, problem_slug
from websockets.exceptions import ConnectionClosed, WebSocketException

from gin_platform.demo.client import ApiClient
from matchmaking import bands

ROOM = {
    "name": "Quick FTK 1",
    "variant": "ftk",
    "stake": "1.00",
    "currency": "EUR",
    "fee_bps": 500,
    "turn_seconds": 600,
}
ASK = {"variant": "ftk", "stake": "1.00", "currency": "EUR"}
FAMILY = "heads_up_ftk"
SEAT_TIMEOUT = 240.0  # a player not seated by then stops waiting (a failure)
# Once everybody has arrived, a player still waiting this long after the last arrival has
# nobody left to meet (every band holds anybody after 60 s, the tick runs every 2 s).
LEFTOVER_SECONDS = 75.0
TICK_SECONDS = 2.0  # the beat's quick-seat-tick
OPERATOR = """
import json, secrets
from gin_platform.tenancy import services
from gin_platform.tenancy.principals import Actor
actor = Actor.system("bench")
operator = services.operator_create(
    name="Second", slug="second-" + secrets.token_hex(3), base_currency="EUR", actor=actor
)
print("SEED " + json.dumps({"key": services.api_key_create(operator=operator, actor=actor).key}))
"""
RATINGS = """
import json
from ratings.models import Rating
rows = json.loads('''{rows}''')
Rating.objects.bulk_create(
    Rating(player_id=p, family="{family}", rating=r, rd=d, volatility=0.06) for p, r, d in rows
)
print("SEED " + json.dumps({{"ratings": len(rows)}}))
"""


# --- The players --------------------------------------------------------------------------
@dataclass
class Arrival:
    at: float  # seconds from the start
    rating: float
    rd: float
    operator: int  # 0 or 1
    linked_to: int | None = None  # the index of the arrival it is linked to


def arrivals(args, rng: random.Random) -> list[Arrival]:
    """``--players`` arrivals a steady ``--gap`` apart, ratings from the spread; the linked
    pairs (players of one operator, 0-20 points apart) arrive one after the other, spread
    over the run."""
    count = args.players
    pairs = min(args.linked_pairs, count // 4)
    starts = set(rng.sample(range(0, count - 1, 2), pairs))  # even: pairs never overlap
    people: list[Arrival] = []
    at = 0.0
    for index in range(count):
        rd = rng.uniform(50, 350)
        if index - 1 in starts:  # the second of a linked pair
            first = people[index - 1]
            rating = min(2300.0, first.rating + rng.uniform(0, 20))
            people.append(Arrival(at, rating, rd, first.operator, linked_to=index - 1))
            first.linked_to = index
        else:
            rating = min(2300.0, max(700.0, rng.gauss(1500.0, args.sd)))
            people.append(Arrival(at, rating, rd, rng.randrange(2)))
        at += rng.uniform(*args.gap)
    return people


@dataclass
class Player:
    arrival: Arrival
    id: str = ""
    token: str = ""
    asked_at: float | None = None
    seated_at: float | None = None  # when the push (or, without one, the REST read) said so
    match_id: int | None = None
    pushed: bool = False
    left_waiting: bool = False
    error: str | None = None


# --- The stack ---------------------------------------------------------------------------------
class QuickSeatStack(Stack):
    """harness.Stack (scratch database, Redis db, an operator) with interrupted.Platform for
    its processes: gunicorn, a Celery worker and beat."""

    def __init__(self, config: StackConfig) -> None:
        super().__init__(config, say=say)
        self.platform: Platform | None = None

    def _start(self) -> None:
        self._claim_redis()
        self._create_database()
        started = time.monotonic()
        self.manage("migrate", "--noinput", "--verbosity", "0")
        data = self._seed(SEED_CODE)
        self.operator_key, self.staff = data["operator_key"], tuple(data["staff"])
        say(f"scratch database {self.database} migrated in {time.monotonic() - started:.0f} s")
        self.platform = Platform(env=self.env, logs=self.logs, port=free_port())
        self.platform.start()
        self.base_url = self.platform.base_url

    def _seed(self, code: str) -> dict:
        out = self.manage("shell", "-c", code)
        return json.loads(next(x for x in out.splitlines() if x.startswith("SEED "))[5:])

    def close(self) -> None:
        if self.platform is not None:
            self.platform.stop()
        super().close()


def seed(stack: QuickSeatStack, people: list[Arrival]) -> tuple[list[Player], int]:
    """The network, its room, two member operators, the players (deposit, session, screen
    name), their ratings and links; the room's id."""
    stack.manage("network_create", "--reveal-operators", "no")
    out = stack.manage("network_room_create", json.dumps(ROOM))
    room_id = int(out.split("network room ", 1)[1].split(":", 1)[0])
    keys = [stack.operator_key, stack._seed(OPERATOR)["key"]]
    operators = [ApiClient(stack.base_url, token=key) for key in keys]
    for operator in operators:
        operator.write("PUT", "/api/v1/operators/me/network", {"member": True, "all_rooms": True})
    players = [Player(arrival) for arrival in people]
    tag = stack.database[-6:]

    def make(index: int) -> None:
        player, operator = players[index], operators[players[index].arrival.operator]
        ref = f"qs{tag}-{index}"
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
        player.id = body["id"]
        operator.write(
            "POST", f"/api/v1/players/{player.id}/deposits", {"amount": "100.00", "currency": "EUR"}
        )
        session = operator.write(
            "POST", f"/api/v1/players/{player.id}/sessions", {"ttl_seconds": 6 * 3600}
        )
        player.token = session["token"]
        operator.with_token(player.token).write(
            "PUT", "/api/v1/me/screen-name", {"screen_name": f"Q{tag}x{index}"}
        )

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(make, range(len(players))))
    rows = [[p.id, round(p.arrival.rating, 2), round(p.arrival.rd, 2)] for p in players]
    stack._seed(RATINGS.format(rows=json.dumps(rows), family=FAMILY))
    for index, player in enumerate(players):
        partner = player.arrival.linked_to
        if partner is not None and partner > index:
            operators[player.arrival.operator].write(
                "POST",
                f"/api/v1/players/{player.id}/links",
                {"player_id": players[partner].id, "kind": "household"},
            )
    return players, room_id


# --- The measured run ---------------------------------------------------------------------
async def play(base_url: str, player: Player, started: float, last: float) -> None:
    """At its time: the socket, the request, then the seat's push (a REST read when the
    socket says nothing for a while)."""
    await asyncio.sleep(max(0.0, started + player.arrival.at - time.monotonic()))
    http = AsyncHttp(base_url, player.token)
    socket = None
    try:
        ticket = await mint_ticket(http)
        ws = "ws" + base_url.removeprefix("http")
        socket, hello = await open_socket(f"{ws}/ws/v1/me?ticket={ticket}")
        if hello.get("type") != "hello":
            raise HttpError(f"socket refused: {hello}")
        status, body = await http.request("POST", "/api/v1/lobby/quick-seat", ASK)
        player.asked_at = time.monotonic()
        if status not in (200, 201) or not isinstance(body, dict):
            raise HttpError(f"quick seat: HTTP {status} {problem_slug(body)}")
        if body["status"] == "seated":  # the task seated the pair before the answer
            player.seated_at, player.match_id = player.asked_at, body["seat"]["match_id"]
            return
        await _seat_awaited(http, socket, player, nobody_left_at=started + last + LEFTOVER_SECONDS)
    except (HttpError, OSError, TimeoutError, WebSocketException) as exc:
        player.error = f"{type(exc).__name__}: {exc}"
    finally:
        if socket is not None:
            await socket.close()
        await http.close()


async def _seat_awaited(http: AsyncHttp, socket, player: Player, *, nobody_left_at: float) -> None:
    asked = player.asked_at
    deadline = min(asked + SEAT_TIMEOUT, max(asked + LEFTOVER_SECONDS, nobody_left_at))
    while time.monotonic() < deadline:
        try:
            raw = await asyncio.wait_for(socket.recv(), 10.0)
        except TimeoutError:
            raw = None
        except ConnectionClosed:
            await asyncio.sleep(2.0)
            raw = None
        if raw is not None:
            message = json.loads(raw)
            if message.get("type") == "ping":
                await socket.send('{"type":"pong"}')
            elif message.get("type") == "quick_seat.seated":
                player.seated_at, player.pushed = time.monotonic(), True
                player.match_id = message["ticket"]["seat"]["match_id"]
                return
            continue
        status, body = await http.request("GET", "/api/v1/lobby/quick-seat")  # no push came
        if status == 200 and isinstance(body, dict) and body["status"] != "waiting":
            if body["status"] != "seated":
                raise HttpError(f"the ticket ended {body['status']} {body['problem_type']}")
            player.seated_at, player.match_id = time.monotonic(), body["seat"]["match_id"]
            return
    player.left_waiting = True  # nobody left to meet: the figures say whether that is right


async def run_players(base_url: str, players: list[Player]) -> None:
    started, last = time.monotonic(), players[-1].arrival.at
    await asyncio.gather(*(play(base_url, player, started, last) for player in players))


# --- CPU ----------------------------------------------------------------------------------
def cpu_seconds(groups: dict[str, int]) -> dict[str, float]:
    """CPU seconds each process group has used so far (its live processes, user + system):
    exact, where harness.CpuMeter gives CPUs to two decimals."""
    return {
        name: sum(process_cpu_seconds(pid) or 0.0 for pid in group_memory(pgid))
        for name, pgid in groups.items()
    }


def used(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {name: round(after[name] - before.get(name, 0.0), 2) for name in after}


# --- What the database says ---------------------------------------------------------------
@dataclass
class Figures:
    values: dict = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)


def read_figures(
    stack: QuickSeatStack,
    players: list[Player],
    seconds: float,
    cpu: dict[str, float],
    background: dict[str, float],
    postgres_ms: float,
) -> Figures:
    """The run's figures from the scratch database; ``cpu`` the CPU seconds each process
    group used during the run, ``background`` what it would have used idle meanwhile,
    ``postgres_ms`` the time the database's backends spent running statements."""
    figures = Figures()
    values = figures.values
    statuses = dict(stack.sql("SELECT status, count(*) FROM matchmaking_ticket GROUP BY status"))
    waits = [
        float(w)
        for (w,) in stack.sql(
            "SELECT EXTRACT(EPOCH FROM ended_at - joined_at) FROM matchmaking_ticket "
            "WHERE status = 'seated'"
        )
    ]
    pairs = stack.sql(
        "SELECT s.match_id, array_agg(t.rating), array_agg(t.player_id::text) "
        "FROM matchmaking_ticket t JOIN games_seat s ON s.id = t.seat_id "
        "GROUP BY s.match_id"
    )
    gaps = [abs(r[0] - r[1]) for _, r, _ in pairs if len(r) == 2]
    linked = stack.sql(
        "SELECT count(*) FROM integrity_playerlink l WHERE l.ended_at IS NULL AND EXISTS ("
        " SELECT 1 FROM games_seat a JOIN games_seat b ON a.match_id = b.match_id"
        " WHERE a.player_id = l.player_low_id AND b.player_id = l.player_high_id)"
    )[0][0]
    links = stack.sql("SELECT count(*) FROM integrity_playerlink WHERE ended_at IS NULL")[0][0]
    twice = stack.sql(
        "SELECT count(*) FROM (SELECT player_id FROM games_seat GROUP BY player_id "
        "HAVING count(*) > 1) x"
    )[0][0]
    tickets_twice = stack.sql(
        "SELECT count(*) FROM (SELECT player_id FROM matchmaking_ticket "
        "WHERE status = 'seated' GROUP BY player_id HAVING count(*) > 1) x"
    )[0][0]
    seats_per_match = Counter(
        n for (n,) in stack.sql("SELECT count(*) FROM games_seat GROUP BY match_id")
    )
    matches = len(pairs)
    server = sum(cpu.values())
    idle = sum(background.values())
    left = stack.sql(
        "SELECT player_id::text FROM matchmaking_ticket WHERE status = 'waiting' ORDER BY 1"
    )
    left_ids = [player_id for (player_id,) in left]
    linked_left = stack.sql(
        "SELECT count(*) FROM integrity_playerlink WHERE ended_at IS NULL "
        f"AND player_low_id::text IN ({_sql_list(left_ids)}) "
        f"AND player_high_id::text IN ({_sql_list(left_ids)})"
    )[0][0]
    pairs_left = len(left_ids) * (len(left_ids) - 1) // 2
    pushed = sum(1 for p in players if p.pushed)
    errors = Counter((p.error or "")[:80] for p in players if p.error)
    values |= {
        "players": len(players),
        "tickets": statuses,
        "matches": matches,
        "wait s (median, p90, max)": (
            _round(median(waits) if waits else None),
            _round(percentile(waits, 90)),
            _round(max(waits) if waits else None),
        ),
        "matches within 100 points": f"{sum(g <= 100 for g in gaps)} of {len(gaps)}"
        f" ({100 * sum(g <= 100 for g in gaps) / max(len(gaps), 1):.1f} %)",
        "rating gap (median, p90, max)": (
            _round(median(gaps) if gaps else None),
            _round(percentile(gaps, 90)),
            _round(max(gaps) if gaps else None),
        ),
        "linked pairs matched": f"{linked} (of {links} linked pairs)",
        "players seated twice": twice + tickets_twice,
        "seats per match": dict(seats_per_match),
        "told by the socket's push": f"{pushed} of {sum(1 for p in players if p.seated_at)}",
        "client errors": dict(errors),
        "left waiting": f"{len(left_ids)} ({linked_left} of their {pairs_left} pairs linked)",
        "run s": round(seconds, 1),
        "CPU s used (run)": cpu,
        "CPU s they use idle in as long": {k: round(v, 2) for k, v in background.items()},
        "server CPU per match, ms (gunicorn + worker + beat)": round(
            1000 * server / max(matches, 1), 1
        ),
        "the queue's CPU per match, ms (the same less the idle processes' own)": round(
            1000 * (server - idle) / max(matches, 1), 1
        ),
        "PostgreSQL per match, ms (its backends' active time, this database)": round(
            postgres_ms / max(matches, 1), 1
        ),
    }
    if not waits or median(waits) > 20:
        figures.failures.append("the median wait is over 20 s")
    if not gaps or sum(g <= 100 for g in gaps) < 0.8 * len(gaps):
        figures.failures.append("under 80 % of the matches are within 100 points")
    if linked:
        figures.failures.append(f"{linked} linked pairs were matched")
    if twice or tickets_twice or set(seats_per_match) - {2}:
        figures.failures.append("somebody was seated twice, or a match has other than 2 seats")
    if linked_left < pairs_left:  # two players left over who may meet: they should have
        figures.failures.append(f"left waiting with somebody they may meet: {statuses}")
    if statuses.get("seated", 0) + len(left_ids) != len(players):
        figures.failures.append(f"tickets: {statuses}")
    return figures


def _sql_list(ids: list[str]) -> str:
    return ", ".join(f"'{value}'" for value in ids) or "NULL"


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


# --- The pure simulation --------------------------------------------------------------------
def simulate(args) -> dict:
    """``--runs`` runs of the pairing alone in virtual time, for both readings of R15's
    "whose band overlaps theirs"."""

    def overlap(first, second, *, now) -> bool:
        if first.player == second.player:
            return False
        gap = abs(first.rating - second.rating)
        return gap <= bands.band_width(first.waited(now)) + bands.band_width(second.waited(now))

    results = {}
    for name, meet in (("holds (as built)", bands.may_meet), ("overlap", overlap)):
        waits, within, gaps_all = [], [], []
        with mock.patch.object(bands, "may_meet", meet):
            for run in range(args.runs):
                w, g = _simulated_run(args, random.Random(args.seed + run))
                waits += w
                gaps_all += g
                within.append(sum(x <= 100 for x in g) / max(len(g), 1))
        results[name] = {
            "wait s (median, p90, max)": (
                _round(median(waits)),
                _round(percentile(waits, 90)),
                _round(max(waits)),
            ),
            "within 100 points, % (median run, worst run)": (
                round(100 * median(within), 1),
                round(100 * min(within), 1),
            ),
            "rating gap (median, p90)": (
                _round(median(gaps_all)),
                _round(percentile(gaps_all, 90)),
            ),
        }
    return results


def _simulated_run(args, rng: random.Random) -> tuple[list[float], list[float]]:
    start = datetime(2026, 12, 6, tzinfo=UTC)
    people = arrivals(args, rng)
    waiting: list[bands.Waiting] = []
    waits, gaps = [], []
    linked = {frozenset({i, a.linked_to}) for i, a in enumerate(people) if a.linked_to is not None}

    def match(now: datetime) -> None:
        chosen = bands.pairs(waiting, now=now, linked=lambda a, b: frozenset({a, b}) in linked)
        for first, second in chosen:
            waiting.remove(first)
            waiting.remove(second)
            waits.extend([first.waited(now), second.waited(now)])
            gaps.append(abs(first.rating - second.rating))

    next_tick, index = 0.0, 0
    while index < len(people) or len(waiting) > 1:
        if index < len(people) and people[index].at <= next_tick:
            now = start + timedelta(seconds=people[index].at)
            waiting.append(bands.Waiting(index, index, people[index].rating, now))
            index += 1
            match(now)
        else:
            match(start + timedelta(seconds=next_tick))
            next_tick += TICK_SECONDS
            if next_tick > people[-1].at + 600:
                break
    return waits, gaps


# --- Main -----------------------------------------------------------------------------------
def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--gap", type=float, nargs=2, default=(0.5, 1.0), help="seconds")
    parser.add_argument("--sd", type=float, default=250.0, help="the ratings' spread")
    parser.add_argument("--linked-pairs", type=int, default=15)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--idle", type=float, default=20.0, help="seconds of idle baseline")
    parser.add_argument("--simulate", action="store_true", help="the pure pairing only")
    parser.add_argument("--runs", type=int, default=20, help="--simulate's runs")
    parser.add_argument("--redis-db", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--keep-logs", action="store_true")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.simulate:
        say(f"bench_matchmaking --simulate: {args.runs} runs of {args.players} players")
        say(json.dumps(simulate(args), indent=1))
        return 0
    exit_on_sigterm()
    rng = random.Random(args.seed)
    people = arrivals(args, rng)
    say(
        f"bench_matchmaking: {len(people)} players over {people[-1].at:.0f} s, ratings "
        f"N(1500, {args.sd:.0f}); {machine_summary()}"
    )
    config = StackConfig(redis_db=args.redis_db, keep_logs=args.keep_logs)
    with QuickSeatStack(config) as stack:
        assert stack.platform is not None
        players, room_id = seed(stack, people)
        say(f"seeded: network room {room_id}, {len(players)} players; platform {stack.base_url}")
        groups = stack.platform.groups()
        at_rest = cpu_seconds(groups)
        time.sleep(args.idle)  # the processes' own background (beat's jobs, heartbeats)
        baseline = used(at_rest, cpu_seconds(groups))
        before, pg_before = cpu_seconds(groups), stack.pg_stats()
        started = time.monotonic()
        asyncio.run(run_players(stack.base_url, players))
        seconds = time.monotonic() - started
        cpu = used(before, cpu_seconds(groups))
        postgres_ms = stack.pg_stats()["active_ms"] - pg_before["active_ms"]
        background = {name: value * seconds / args.idle for name, value in baseline.items()}
        figures = read_figures(stack, players, seconds, cpu, background, postgres_ms)
        problems = stack.log_problems(limit=20)
        if problems:
            figures.failures.append(f"{len(problems)} errors in the logs: {problems[0]}")
        if args.keep_logs:
            say(f"logs kept in {stack.logs}")
    report = {"args": sys.argv[1:], **figures.values, "failures": figures.failures}
    say(json.dumps(report, indent=1, default=str))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    for failure in figures.failures:
        say(f"PROBLEM: {failure}")
    return 1 if figures.failures else 0


if __name__ == "__main__":
    sys.exit(main())

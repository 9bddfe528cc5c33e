"""The pieces of bench_tournament.py (and of tests/tournaments/test_tournament_live.py): a
scheduled knockout (R14) played to its end by bots over the real API and sockets, while the
platform's processes are killed under it, and the checks of its end.

- ``players_seed``: funded players with session tokens, over the operator API.
- ``knockout_create`` / ``entries_register``: the operator creates the tournament (heads-up,
  First To Knock every round, a guarantee over the buy-ins so there is an overlay) and
  registers every player in one call each.
- ``Director``: reads the bracket as the operator (one request every ``poll`` seconds: the
  tables' status, match and players) and, for each table newly seated, has its players take
  their seats (``POST /tournaments/{id}/seat``) and play the match over their sockets
  (interrupted.py ``play_seated``: each move the engine's bot's, from the mover's view).
  Every request is tried again while the server is away; a socket closed under a running
  match is reopened.
- ``Chaos``: SIGKILLs the Celery worker at random moments (started again 2-5 s later), the
  web worker process serving the most sockets, and once the whole gunicorn group (started
  again on the same port).
- ``run_checks``: the database (``sql``) and the API after the end: every match played or
  forfeited (R14), the bracket equal to an independent replay of the draw from the revealed
  seed (docs/fairness.md's own code, not the server's) and of the published results,
  prizes + fees = buy-ins + overlay to the minor unit, each place paid by one posting, the
  escrow empty; and the time from a table's last feeding match's end to the table being
  seated, p50 and p99.

Standard library, websockets and the pure-Python engines only: nothing here imports Django.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import random
import re
import signal
import time
import urllib.error
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from itertools import count
from pathlib import Path

from harness import percentile
from interrupted import Conn, GameRecord, Gone, Platform, Table, call, play_seated
from live import AsyncHttp

from gin_platform.demo.client import ApiClient
from tournaments import engine as tournament_engine

BUY_IN = "1.00"
ENTRY_FEE = "0.10"
DEPOSIT = "50.00"
ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Player:
    id: str
    token: str


def players_seed(base_url: str, operator_key: str, count_: int, *, prefix: str) -> list[Player]:
    """``count_`` verified EUR players, each with a deposit and a session token."""
    operator = ApiClient(base_url, token=operator_key)

    def player(index: int) -> Player:
        ref = f"{prefix}-{index}"
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
        operator.write(
            "POST", f"/api/v1/players/{body['id']}/deposits", {"amount": DEPOSIT, "currency": "EUR"}
        )
        session = operator.write(
            "POST", f"/api/v1/players/{body['id']}/sessions", {"ttl_seconds": 6 * 3600}
        )
        return Player(body["id"], session["token"])

    with ThreadPoolExecutor(6) as pool:
        return list(pool.map(player, range(count_)))


def knockout_create(
    base_url: str, operator_key: str, *, entries: int, starts_in: float, turn_seconds: int
) -> dict:
    """A scheduled heads-up knockout for ``entries``, FTK every round, guaranteed a little
    over its buy-ins (an overlay), starting ``starts_in`` seconds from now."""
    starts_at = datetime.now(UTC) + timedelta(seconds=starts_in)
    guaranteed = Decimal(BUY_IN) * entries + Decimal("2.50")
    return ApiClient(base_url, token=operator_key).write(
        "POST",
        "/api/v1/tournaments",
        {
            "name": f"Chaos knockout {entries}",
            "kind": "scheduled",
            "seats": 2,
            "currency": "EUR",
            "buy_in": BUY_IN,
            "entry_fee": ENTRY_FEE,
            "guaranteed": f"{guaranteed:.2f}",
            "min_entries": 2,
            "max_entries": entries,
            "starts_at": starts_at.isoformat().replace("+00:00", "Z"),
            "turn_seconds": turn_seconds,
            "round_settings": [{"variant": "ftk", "target": None}],
        },
    )


REGISTER_ATTEMPTS = 3


def entries_register(base_url: str, operator_key: str, tournament_id: int, players) -> None:
    operator = ApiClient(base_url, token=operator_key)

    def register(player: Player) -> None:
        # An operator's client retries a call that timed out with the same Idempotency-Key:
        # registered once, whichever attempt the server finished.
        key = str(uuid.uuid4())
        for attempt in range(REGISTER_ATTEMPTS):
            try:
                operator.request(
                    "POST",
                    f"/api/v1/tournaments/{tournament_id}/entries",
                    {"player_id": player.id},
                    idempotency_key=key,
                )
                return
            except (TimeoutError, urllib.error.URLError):
                if attempt == REGISTER_ATTEMPTS - 1:
                    raise

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(register, players))


# --- Playing the bracket ---------------------------------------------------------------------
@dataclass
class Director:
    """Seats and plays every table of the tournament as the bracket shows it seated."""

    base_url: str
    operator_key: str
    tournament_id: int
    players: dict[str, Player]
    turn_seconds: float
    platform: Platform | None = None
    poll: float = 1.0
    give_up_after: float = 3600.0
    records: list[GameRecord] = field(default_factory=list)
    started: set[int] = field(default_factory=set)  # match ids taken on
    polls: int = 0
    status: str = ""

    async def run(self) -> str:
        """Until the tournament has ended (its status) or ``give_up_after``."""
        operator = AsyncHttp(self.base_url, self.operator_key)
        until = time.monotonic() + self.give_up_after
        playing: set[asyncio.Task] = set()
        path = f"/api/v1/tournaments/{self.tournament_id}"
        try:
            while time.monotonic() < until:
                detail = await call(operator, "GET", path, until=until)
                self.status = detail["status"]
                if self.status in ("finished", "cancelled"):
                    break
                if self.status == "running":
                    tables = await call(operator, "GET", f"{path}/bracket", until=until)
                    self.polls += 1
                    for table in tables:
                        if table["status"] == "playing" and table["match_id"] not in self.started:
                            self.started.add(table["match_id"])
                            task = asyncio.create_task(self.table_play(table, until))
                            playing.add(task)
                            task.add_done_callback(playing.discard)
                await asyncio.sleep(self.poll)
            if playing:
                await asyncio.wait(playing, timeout=120)
        finally:
            await operator.close()
        return self.status

    async def table_play(self, table: dict, until: float) -> None:
        record = GameRecord(table["number"], f"round {table['round']}", "transfer")
        record.match_id = table["match_id"]
        record.started = time.monotonic()
        seated = [self.players[p["player_id"]] for p in table["players"]]
        https = {player.id: AsyncHttp(self.base_url, player.token) for player in seated}
        conns: dict[int, Conn] = {}
        try:
            seat_path = f"/api/v1/tournaments/{self.tournament_id}/seat"
            for player in seated:
                await call(https[player.id], "POST", seat_path, {}, until=until)
            view_path = f"/api/v1/matches/{record.match_id}/view"
            for player in seated:
                view = await call(https[player.id], "GET", view_path, until=until)
                seat = view["match"]["your_seat"]
                record.players[seat] = player.id
                conns[seat] = Conn(https[player.id], self.ws_base, record.match_id, record)
                await conns[seat].connect(until=until)
            game = Table(self.base_url, self.turn_seconds, self.platform, give_up_after=900.0)
            await play_seated(game, record, conns, min(until, time.monotonic() + 900.0))
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
            self.records.append(record)
            if record.error and sum(1 for r in self.records if r.error) <= 5:
                print(f"match {record.match_id}: {record.error}", flush=True)

    @property
    def ws_base(self) -> str:
        return "ws" + self.base_url.removeprefix("http")


@dataclass
class Chaos:
    """Kills the platform's processes under the run (see the module's docstring)."""

    platform: Platform
    every: tuple[float, float] = (20.0, 45.0)  # seconds between two faults
    web_restart_after: float = 60.0  # the whole gunicorn group, once, this far in
    log: list[tuple[float, str]] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    # The wall clock at the start: a fault's time since the start, plus this, is comparable
    # with the database's timestamps (a slow seating against the fault before it).
    wall_started: float = field(default_factory=time.time)

    def say(self, what: str) -> None:
        self.log.append((round(time.monotonic() - self.started, 1), what))

    def faults_before(self, at: float, *, within: float = 20.0) -> list[str]:
        """The faults of the ``within`` seconds before the wall-clock time ``at``, each with
        how long before it came."""
        return [
            f"{at - (self.wall_started + since):.1f} s before: {what}"
            for since, what in self.log
            if 0 <= at - (self.wall_started + since) <= within
        ]

    async def run(self, stop: asyncio.Event) -> None:
        web_restarted = False
        kinds = count()
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), random.uniform(*self.every))
            if stop.is_set():
                return
            if not web_restarted and time.monotonic() - self.started > self.web_restart_after:
                web_restarted = True
                await self.web_restart()
            elif next(kinds) % 2 == 0:
                await self.worker_kill()
            else:
                self.web_worker_kill()

    async def worker_kill(self) -> None:
        self.platform.kill("worker")
        self.say("Celery worker SIGKILLed")
        await asyncio.sleep(random.uniform(2.0, 5.0))
        self.platform.start_worker()
        self.say("Celery worker started")

    def web_worker_kill(self) -> None:
        workers = self.platform.web_workers()
        if workers:
            pid = random.choice(workers)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            self.say(f"web worker {pid} SIGKILLed (gunicorn starts another)")

    async def web_restart(self) -> None:
        self.platform.kill("gunicorn")
        self.say("gunicorn SIGKILLed")
        await asyncio.sleep(random.uniform(1.0, 3.0))
        await asyncio.to_thread(self.platform.start_web)
        self.say("gunicorn started again")


# --- The checks of the end --------------------------------------------------------------------
def docs_draw() -> object:
    """``tournament_draw(seed, entries)`` as docs/fairness.md prints it for auditors: run from
    the document's own code block, independent of the server's engine."""
    text = (ROOT / "docs" / "fairness.md").read_text()
    blocks = [
        b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "def tournament_draw" in b
    ]
    if len(blocks) != 1:
        raise RuntimeError("docs/fairness.md no longer prints tournament_draw once")
    scope: dict = {}
    exec(blocks[0], scope)  # the auditor's code, as published
    return scope["tournament_draw"]


def run_checks(*, sql, base_url: str, operator_key: str, tournament_id: int) -> dict:
    """The figures of the end and what failed (``failures``)."""
    failures: list[str] = []
    operator = ApiClient(base_url, token=operator_key)
    detail = operator.get(f"/api/v1/tournaments/{tournament_id}")
    bracket = operator.get(f"/api/v1/tournaments/{tournament_id}/bracket")
    figures: dict = {"status": detail["status"], "entries": detail["entries"]}
    if detail["status"] != "finished":
        failures.append(f"the tournament is {detail['status']}, not finished")
    ((seed, commitment, buy_in, fee, overlay, pool, field_),) = sql(
        "SELECT seed, seed_commitment, buy_in, entry_fee, overlay, prize_pool, field "
        f"FROM tournaments_tournament WHERE id = {tournament_id}"
    )
    game_ref = f"tournament:{tournament_id}"  # the escrow's name (Tournament.game_ref)
    if detail.get("seed") != seed or hashlib.sha256(seed.encode()).hexdigest() != commitment:
        failures.append("the revealed seed is not the one committed to")

    # Every match played or forfeited (R14), none left open.
    matches = dict(
        sql(
            "SELECT m.status, count(*) FROM tournaments_brackettable t JOIN games_match m "
            f"ON m.id = t.match_id WHERE t.tournament_id = {tournament_id} GROUP BY m.status"
        )
    )
    forfeited = sql(
        "SELECT count(*) FROM tournaments_brackettable t JOIN games_match m ON m.id = t.match_id "
        f"WHERE t.tournament_id = {tournament_id} AND (m.forfeit_seat IS NOT NULL "
        "OR m.forfeits::text <> '[]')"
    )[0][0]
    figures |= {"matches by status": matches, "matches forfeited": forfeited}
    open_tables = sql(
        f"SELECT count(*) FROM tournaments_brackettable WHERE tournament_id = {tournament_id} "
        "AND status NOT IN ('finished', 'bye')"
    )[0][0]
    if open_tables or set(matches) - {"finished", "settled"}:
        failures.append(f"{open_tables} tables not finished; matches {matches}")

    # The bracket, replayed: the draw by the auditor's code, the rounds from the results.
    entries = sql(
        "SELECT id, number, draw_position, prize, prize_reference FROM tournaments_entry "
        f"WHERE tournament_id = {tournament_id} AND draw_position IS NOT NULL ORDER BY number"
    )
    by_number = {number: entry_id for entry_id, number, *_ in entries}
    drawn = docs_draw()(seed, [number for _, number, *_ in entries])
    stored = [n for _, n, _, *_ in sorted(entries, key=lambda e: e[2])]
    if list(drawn) != stored:
        failures.append("the stored draw is not the auditor's replay of the revealed seed")
    published = {(t["round"], t["number"]): t for t in bracket}

    def ranking(round_number: int, number: int, players) -> list[int]:
        return [by_number[n] for n in published[(round_number, number)]["advancing"]]

    replayed = tournament_engine.bracket_replay(
        seed=seed,
        entries=[entry_id for entry_id, *_ in entries],
        seats=2,
        advance=1,
        ranking=ranking,
    )
    numbers = {entry_id: number for number, entry_id in by_number.items()}
    differ = [
        (table.round, table.number)
        for table in replayed
        if [numbers[e] for e in table.players]
        != [p["entry"] for p in published[(table.round, table.number)]["players"]]
    ]
    figures["bracket tables replayed"] = len(replayed)
    if differ or len(replayed) != len(bracket):
        failures.append(f"the bracket differs from its replay at {differ[:5]}")
    # Who went on is who won: each played table's first advancing entry holds the match's
    # winning seat (published results are what the replay above takes as given).
    checked, wrong = sql(
        "SELECT count(*), count(*) FILTER (WHERE (t.advancing->>0)::bigint <> e.id) FROM "
        "tournaments_brackettable t JOIN games_match m ON m.id = t.match_id "
        "JOIN games_seat s ON s.match_id = m.id AND s.position = m.winner_seat "
        "JOIN tournaments_entry e ON e.player_id = s.player_id AND e.tournament_id = "
        f"t.tournament_id WHERE t.tournament_id = {tournament_id}"
    )[0]
    figures["tables whose winner went on"] = checked - wrong
    if wrong:
        failures.append(f"{wrong} tables sent on somebody other than their match's winner")

    # Money: prizes + fees = buy-ins + overlay, each place paid by one posting, escrow empty.
    prizes = sum(prize or 0 for *_, prize, _ in entries)
    paid_entries = sql(
        f"SELECT count(*) FROM tournaments_entry WHERE tournament_id = {tournament_id} "
        "AND draw_position IS NOT NULL AND payment <> 'free'"
    )[0][0]
    fees = paid_entries * fee
    paid_in = paid_entries * (buy_in + fee)  # what the players paid: buy-in and fee
    figures |= {
        "paid in (buy-ins and fees)": paid_in,
        "overlay": overlay,
        "prize pool": pool,
        "prizes paid": prizes,
        "fees": fees,
    }
    if prizes + fees != paid_in + overlay or prizes != pool:
        failures.append(f"prizes {prizes} + fees {fees} != paid in {paid_in} + overlay {overlay}")
    postings = dict(
        sql(
            "SELECT reference, count(*) FROM wallet_ledgertransaction WHERE reference LIKE "
            f"'tournament-prize:{tournament_id}:%' GROUP BY reference"
        )
    )
    twice = {ref: n for ref, n in postings.items() if n != 1}
    credited = sql(
        "SELECT coalesce(sum(e.amount), 0) FROM wallet_ledgerentry e JOIN wallet_ledgertransaction "
        "x ON x.id = e.transaction_id JOIN wallet_account a ON a.id = e.account_id WHERE "
        f"x.reference LIKE 'tournament-prize:{tournament_id}:%' AND a.kind <> 'escrow'"
    )[0][0]
    figures |= {"prize postings": len(postings), "credited to players": int(credited)}
    if twice or int(credited) != prizes:
        failures.append(f"prizes posted {int(credited)} for {prizes}; references twice: {twice}")
    escrow = sql(
        f"SELECT coalesce(sum(balance), 0) FROM wallet_account WHERE game_ref = '{game_ref}'"
    )[0][0]
    figures["escrow left"] = int(escrow)
    if escrow:
        failures.append(f"the escrow still holds {escrow}")

    # Seating: from a table's last feeding match's end to the table seated.
    latency = seating_latency(sql=sql, tournament_id=tournament_id, field_=field_)
    figures |= latency
    return {"figures": figures, "failures": failures}


# A seating slower than the target (p99 under 2 s): each is listed with the faults before it.
SLOW_SEATING_SECONDS = 2.0


def seating_latency(*, sql, tournament_id: int, field_: int) -> dict:
    """Each table's wait from its last feeding match's end to its match open, and its two
    parts: the result's take (the feeder's match end to the feeder's table finished, under
    the results' lock) and the seating after it (to the table's match open)."""
    shape = tournament_engine.bracket_shape(entries=field_, seats=2, advance=1)
    rows = sql(
        "SELECT t.round, t.number, t.opened_at, m.finished_at, t.finished_at "
        "FROM tournaments_brackettable t LEFT JOIN games_match m ON m.id = t.match_id "
        f"WHERE t.tournament_id = {tournament_id}"
    )
    opened = {(r, n): o for r, n, o, _, _ in rows}
    ended = {(r, n): f for r, n, _, f, _ in rows}
    taken = {(r, n): t for r, n, _, _, t in rows}
    waits: list[float] = []
    takes: list[float] = []
    seats: list[float] = []
    slow: list[dict] = []
    by_round: dict[int, float] = {}
    for (round_number, number), at in opened.items():
        if round_number == 1 or at is None:
            continue
        feeders = [
            (round_number - 1, f) for f in shape.feeders(round_number=round_number, number=number)
        ]
        last = max((f for f in feeders if ended.get(f)), key=lambda f: ended[f], default=None)
        if last is None:
            continue
        waits.append((at - ended[last]).total_seconds())
        last_taken = max(taken[f] for f in feeders if taken.get(f))
        takes.append((taken[last] - ended[last]).total_seconds())
        seats.append((at - last_taken).total_seconds())
        if waits[-1] > SLOW_SEATING_SECONDS:
            slow.append(
                {
                    "table": f"{round_number}-{number}",
                    "wait, s": round(waits[-1], 2),
                    "result taken after, s": round(takes[-1], 2),
                    "seated after the result, s": round(seats[-1], 2),
                    "feeders ended at": ended[last].timestamp(),
                }
            )
    for round_number in range(1, shape.rounds):
        last_end = max(
            (f for (r, _), f in ended.items() if r == round_number and f is not None), default=None
        )
        last_seat = max(
            (o for (r, _), o in opened.items() if r == round_number + 1 and o is not None),
            default=None,
        )
        if last_end and last_seat:
            by_round[round_number] = round((last_seat - last_end).total_seconds(), 3)
    return {
        "tables seated after their feeders": len(waits),
        "seating p50, s": percentile(waits, 50),
        "seating p99, s": percentile(waits, 99),
        "seating max, s": max(waits, default=None),
        "result's take p50 / p99, s": (percentile(takes, 50), percentile(takes, 99)),
        "seating after the result p50 / p99, s": (percentile(seats, 50), percentile(seats, 99)),
        "slow seatings": sorted(slow, key=lambda table: -table["wait, s"]),
        "round's last end to the next round's last seat, s": by_round,
    }


def platform_cpu_seconds(platform: Platform) -> float:
    """CPU seconds the platform's processes have used so far: its live process groups (each
    process's own time and its reaped children's) and the groups this process killed and
    reaped. A killed group's own children (gunicorn's workers, the Celery pool) die unreaped
    by it, so the figure is a lower bound when the run kills them."""
    groups = set(platform.groups().values())
    ticks = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) in groups:  # pgrp; then utime, stime, cutime, cstime
            ticks += sum(int(value) for value in fields[11:15])
    reaped = os.times()
    return ticks / os.sysconf("SC_CLK_TCK") + reaped.children_user + reaped.children_system


def records_summary(records: list[GameRecord]) -> dict:
    errors = Counter(record.error.split(":")[0] for record in records if record.error)
    return {
        "matches played by the bots": len(records),
        "moves": sum(record.moves for record in records),
        "refused moves": sum(sum(record.refused.values()) for record in records),
        "socket reconnects": sum(record.reconnects for record in records),
        "REST reads after a missed push": sum(record.rest_reads for record in records),
        "client errors": dict(errors),
    }


def document(figures: dict) -> str:
    return json.dumps(figures, indent=1, default=str)

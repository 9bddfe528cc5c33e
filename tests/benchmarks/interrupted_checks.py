"""What bench_interrupted.py asserts after its games, and its report: the database read
directly (the scratch database: matches, events, protections, outages, the ledger), the
API as the players and the operator see it (histories, fairness, wallets), and
``manage.py reconcile``."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from statistics import median

from interrupted import FEE_BPS, KINDS, expected_discard
from live import AsyncHttp

from games import engine
from gin_platform.demo.client import ApiClient

SETTLE_TIMEOUT = 240.0


@dataclass
class Report:
    scenario: str
    args: object
    records: list = field(default_factory=list)
    figures: dict = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cpu: dict = field(default_factory=dict)
    before_stop: list = field(default_factory=list)
    after_apply: list = field(default_factory=list)
    stopped_at: float | None = None
    restarted_at: float | None = None
    cap_group: int | None = None
    log_problems: list[str] = field(default_factory=list)

    def fail(self, what: str) -> None:
        self.failures.append(what)

    @property
    def match_ids(self) -> list[int]:
        return [r.match_id for r in self.records if r.match_id is not None]

    def expect_stage(self, stage: str) -> None:
        seen = Counter(r.stage_seen for r in self.records if r.dropped_at is not None)
        self.figures["drops"] = sum(seen.values())
        self.figures["stage the table saw after a drop"] = dict(seen)
        if set(seen) - {stage}:
            self.fail(f"drops whose turn was not seen in {stage}: {dict(seen)}")
        missed = [r.match_id for r in self.records if r.drop and r.dropped_at is None]
        if missed:
            self.fail(f"games that ended before the planned drop: {missed[:10]}")
        waits = [r.stage_after for r in self.records if r.stage_after is not None]
        backs = [r.back_at for r in self.records if r.back_at is not None]
        if waits:
            self.figures["drop -> grace seen, s (median, max)"] = _spread(waits)
        if backs:
            self.figures["drop -> back on the socket, s (median, max)"] = _spread(backs)

    def balances(self, stack, groups) -> dict[str, Decimal]:
        operator = ApiClient(stack.base_url, token=stack.operator_key)
        return {
            p.id: Decimal(operator.get(f"/api/v1/players/{p.id}/wallet")["balance"]["amount"])
            for group in groups
            if group.wallet == "transfer"
            for p in group.players
        }

    async def protections_of(self, stack, player) -> dict:
        http = AsyncHttp(stack.base_url, player.token)
        try:
            _status, body = await http.request("GET", "/api/v1/me/turn-protections")
        finally:
            await http.close()
        return body

    def kill_worker_at_first_void(self, stack) -> None:
        """The void scenario: SIGKILL the Celery worker as soon as the first match is
        voided, then start it again (the timer's next sweep finishes the voids)."""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            rows = stack.sql("SELECT count(*) FROM games_match WHERE status = 'voided'")
            if rows[0][0]:
                stack.platform.kill("worker")
                self.figures["voided when the worker was killed"] = rows[0][0]
                time.sleep(2)
                stack.platform.start_worker()
                return
            time.sleep(0.1)
        self.fail("no match was voided within 120 s of the restart")

    def wait_outage_applied(self, stack, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rows = stack.sql("SELECT count(*) FROM platform_outage WHERE applied_at IS NOT NULL")
            if rows[0][0]:
                return
            time.sleep(0.2)
        self.fail(f"no outage applied within {timeout:.0f} s of the restart")

    def document(self) -> dict:
        records = self.records
        finished = [r for r in records if r.final is not None]
        return {
            "scenario": self.scenario,
            "games": len(records),
            "games asked for": self.args.games,
            "games ended": len(finished),
            "errors": Counter(r.error for r in records if r.error),
            "by kind": Counter(f"{r.kind} {r.wallet}" for r in records),
            "moves": sum(r.moves for r in records),
            "refused moves": sum((r.refused for r in records), Counter()),
            "socket reconnects": sum(r.reconnects for r in records),
            "view reads over REST": sum(r.rest_reads for r in records),
            "seconds": round(self.seconds, 1),
            "game seconds (median, max)": _spread([r.ended - r.started for r in records]),
            "cpus busy": self.cpu,
            **self.figures,
            "log problems": self.log_problems,
            "failures": self.failures,
        }

    def summary(self) -> str:
        f = self.figures
        head = (
            f"{self.scenario}: {len(self.records)} games (of {self.args.games} asked) in "
            f"{self.seconds:.0f} s, "
            f"{f.get('forfeits', '?')} forfeits, {f.get('auto-played events', '?')} auto-played "
            f"events, {f.get('settled', '?')} settled, reconcile exit "
            f"{f.get('reconcile exit', '?')}; CPUs gunicorn {self.cpu.get('gunicorn')}, worker "
            f"{self.cpu.get('worker')}, beat {self.cpu.get('beat')}, PostgreSQL "
            f"{self.cpu.get('postgres')}, machine {self.cpu.get('machine')}"
        )
        verdict = "OK" if not self.failures else "FAILED: " + "; ".join(self.failures)
        return f"{head}\n{verdict}"


def _spread(values: list[float]) -> tuple[float, float] | None:
    return (round(median(values), 1), round(max(values), 1)) if values else None


def _ids(report: Report) -> str:
    """``ANY('{1,2,...}'::bigint[])``: the run's matches, for a WHERE clause."""
    return "ANY('{" + ",".join(str(i) for i in report.match_ids) + "}'::bigint[])"


# --- Counts every scenario checks ---------------------------------------------------------
def table_counts(stack, report: Report) -> None:
    ids = _ids(report)
    errors = [r for r in report.records if r.error]
    if errors:
        report.fail(f"{len(errors)} games did not run to their end: {errors[0].error}")
    forfeits = stack.sql(
        f"SELECT count(*) FROM games_match WHERE id = {ids} AND "
        "(forfeit_seat IS NOT NULL OR forfeits::text <> '[]')"
    )[0][0]
    auto = stack.sql(
        f"SELECT count(*) FROM games_handevent WHERE match_id = {ids} "
        "AND (payload->>'auto')::boolean"
    )[0][0]
    protections = stack.sql(f"SELECT count(*) FROM games_turnprotection WHERE match_id = {ids}")[0][
        0
    ]
    report.figures |= {
        "forfeits": forfeits,
        "auto-played events": auto,
        "protections (graces given)": protections,
    }
    if report.scenario in ("drops", "kill-web", "stop-all") and (forfeits or auto):
        report.fail(f"{forfeits} forfeits and {auto} auto-played events")
    if report.scenario == "drops" and protections != report.figures.get("drops"):
        report.fail(f"{protections} protections for {report.figures.get('drops')} drops")
    if report.scenario == "stop-all" and protections:
        report.fail(f"{protections} protections counted through the outage")


def settled_and_reconciled(stack, report: Report, *, void: bool) -> None:
    """Every game settled (or voided, for the void scenario: ``void_checked`` says which
    must be which), within SETTLE_TIMEOUT; the ledger reconciled."""
    ids = _ids(report)
    final = ("voided", "settled") if void else ("settled",)
    deadline = time.monotonic() + SETTLE_TIMEOUT
    started = time.monotonic()
    while True:
        rows = dict(
            stack.sql(f"SELECT status, count(*) FROM games_match WHERE id = {ids} GROUP BY status")
        )
        pending = sum(n for status, n in rows.items() if status not in final)
        if not pending or time.monotonic() > deadline:
            break
        time.sleep(1)
    report.figures["matches by status"] = rows
    report.figures["settled" if not void else "voided"] = sum(rows.get(s, 0) for s in final)
    report.figures["waited for the last settlement, s"] = round(time.monotonic() - started, 1)
    if pending:
        report.fail(f"{pending} games not {final[0]}: {rows}")
    output = stack.manage("reconcile", check=False)
    report.figures["reconcile exit"] = stack.last_returncode
    if stack.last_returncode:
        report.fail(f"manage.py reconcile exited {stack.last_returncode}: {output[-500:]}")
    if report.log_problems:
        report.fail(f"errors in the logs: {report.log_problems[:3]}")


# --- past-grace: the auto-played moves and the money --------------------------------------
def _player(groups, player_id: str):
    return next(p for g in groups for p in g.players if p.id == player_id)


def auto_play_checked(stack, report: Report, args, groups) -> None:
    """Every auto-played move of every past-grace game, three ways; the counts per seat."""
    checked = Counter()
    for record in report.records:
        if record.match_id is None or record.dropper is None or record.final is None:
            continue
        seat = record.dropper
        capped = record.group == report.cap_group and record.third
        forfeit = record.final.get("forfeit") or {}
        if forfeit.get("seat") != seat or forfeit.get("reason") != "timeout":
            report.fail(f"match {record.match_id}: ended {record.final.get('forfeit')}")
        clock = record.final["clocks"][seat]
        if clock["auto_played_turns"] != args.auto_play:
            report.fail(f"match {record.match_id}: {clock['auto_played_turns']} auto-played")
        if clock["time_bank_seconds"] != 0 or clock["time_bank_used_seconds"] != args.bank:
            report.fail(f"match {record.match_id}: bank {clock}")
        expected_protected = 0 if capped else 1
        if clock["protected_turns"] != expected_protected:
            report.fail(f"match {record.match_id}: protected {clock['protected_turns']}")
        checked["games"] += 1
        mover = _player(groups, record.players[seat])
        client = ApiClient(stack.base_url, token=mover.token)
        history = client.get(f"/api/v1/matches/{record.match_id}/hands")["hands"]
        turns = 0
        own = (record.own_view or {}).get("hand") or {}
        for hand in history:
            autos = [e for e in hand["events"] if e.get("auto")]
            if not autos:
                continue
            path = f"/api/v1/matches/{record.match_id}/hands/{hand['number']}/fairness"
            fairness = client.get(path)
            if fairness["checks"]["auto_play"] is not True or not fairness["verified"]:
                report.fail(f"match {record.match_id} hand {hand['number']}: {fairness['checks']}")
            checked["hands verified by the fairness endpoint"] += 1
            start = own.get("hand") if own.get("number") == hand["number"] else None
            turns += _replayed(report, record, hand, fairness, seat, start, checked)
        if turns != args.auto_play:
            report.fail(f"match {record.match_id}: {turns} auto-played turns in the history")
    report.figures["auto-play checks"] = dict(checked)


def _replayed(report, record, hand, fairness, seat, own_cards, checked) -> int:
    """Walk the hand's events: the engine's replay (``engine.auto_action`` at each auto
    move) beside the dropper's cards tracked from the deal (R13's discard worked out from
    them here); the turns played for the seat."""
    rules = engine.RuleSet.from_dict(record.final["rules"]) if "rules" in record.final else None
    state = engine.deal(seed=fairness["seed"], dealer=hand["dealer"], rules=rules)
    held = {s: list(cards) for s, cards in enumerate(fairness["dealt"]["hands"])}
    turns, first = 0, True
    for event in hand["events"]:
        kind, who, card = event["kind"], event.get("seat"), event.get("card")
        if kind not in engine.ACTION_KINDS:
            continue
        action = {"kind": kind, "seat": who, "card": card if kind in ("discard", "knock") else None}
        if event.get("auto"):
            if who != seat:
                report.fail(f"match {record.match_id}: auto move of seat {who}")
            if first and own_cards is not None and sorted(held[seat]) != sorted(own_cards):
                report.fail(f"match {record.match_id}: cards differ from the player's own view")
            first = False
            by_engine = engine.auto_action(state, seat).to_dict()
            if by_engine != action:
                report.fail(f"match {record.match_id}: {action} but the engine says {by_engine}")
            if kind == "discard":
                mine = expected_discard(held[seat])
                if mine != card:
                    report.fail(f"match {record.match_id}: discarded {card}, R13 says {mine}")
                checked["discards worked out from the cards"] += 1
            elif kind not in ("pass", "draw_stock"):
                report.fail(f"match {record.match_id}: auto-played {kind}")
            if kind in ("pass", "discard"):
                turns += 1
            checked["auto moves matching engine.auto_action"] += 1
        if kind in ("draw_stock", "draw_discard", "take_upcard"):
            held[who].append(card)
        elif kind in ("discard", "knock"):
            held[who].remove(card)
        state, _ = engine.apply(state, engine.Action.from_dict(action))
    return turns


def money_checked(stack, report: Report, groups, before: dict[str, Decimal]) -> None:
    """R10: the forfeiting player loses its stake; the opponent gets the pot less the fee
    (floor(pot x fee_bps / 10,000)), to the minor unit (EUR cents)."""
    after = report.balances(stack, groups)
    changes = Counter()
    for group in groups:
        games = [r for r in report.records if r.group == group.index and r.final is not None]
        stake = int(Decimal(KINDS[group.kind]["stake"]) * 100)
        expected = Counter()
        for record in games:
            pot = stake * group.seats
            prize = pot - pot * FEE_BPS // 10_000
            for s, player_id in record.players.items():
                expected[player_id] -= stake
                if s != record.dropper:
                    expected[player_id] += prize
        for player in group.players:
            moved = int((after[player.id] - before[player.id]) * 100)
            if moved != expected[player.id]:
                want = expected[player.id]
                report.fail(f"{player.ref}: wallet moved {moved} cents, R10 says {want}")
            changes["wallets checked"] += 1
    report.figures["money"] = dict(changes)
    cap = [r for r in report.records if r.group == report.cap_group]
    seen = [(p["used_today"], p["left_today"]) for r in cap if (p := r.protections)]
    report.figures["cap player's protections after each game (used, left)"] = seen
    if seen != [(1, 1), (2, 0), (2, 0)]:
        report.fail(f"the cap player's protections: {seen}")


# --- stop-all and void ----------------------------------------------------------------------
def outage_checked(stack, report: Report, args) -> None:
    rows = stack.sql(
        "SELECT started_at, ended_at, applied_at FROM platform_outage ORDER BY started_at"
    )
    report.figures["outages"] = [
        {"seconds": round((e - s).total_seconds(), 1), "applied": a is not None} for s, e, a in rows
    ]
    long = [(s, e, a) for s, e, a in rows if (e - s).total_seconds() > args.stop_seconds / 2]
    if len(long) != 1 or long[0][2] is None:
        report.fail(f"expected one applied outage of about {args.stop_seconds} s: {rows}")
        return
    started, ended, _applied = long[0]
    report.figures["games running at the stop"] = len({row[1] for row in report.before_stop})
    # Each turn deadline inside the outage (or in the timer's slack before it) moved on by
    # its length plus the match's grace; the games that had not moved since are compared.
    after = {hand: (seq, deadline) for hand, _m, seq, deadline, _g in report.after_apply}
    checked = Counter()
    for hand, _match, seq, deadline, grace in report.before_stop:
        if hand not in after or after[hand][0] != seq or deadline is None:
            checked["moved before the check"] += 1
            continue
        inside = started - timedelta(seconds=2) <= deadline <= ended
        shift = (ended - started) + timedelta(seconds=grace) if inside else timedelta(0)
        if after[hand][1] - deadline == shift:
            checked["moved on by the outage + the grace" if inside else "left as they were"] += 1
        else:
            checked["wrong"] += 1
            report.fail(f"hand {hand}: {deadline} -> {after[hand][1]}, expected + {shift}")
    report.figures["turn deadlines through the outage"] = dict(checked)


def _voids_done(stack, report: Report) -> float:
    """Wait (up to SETTLE_TIMEOUT) until every match that ran through the outage is voided:
    a worker killed mid-way leaves the rest to the timer's next sweep after its restart.
    The seconds waited."""
    touched = sorted({row[1] for row in report.before_stop})
    started = time.monotonic()
    while touched and time.monotonic() - started < SETTLE_TIMEOUT:
        statuses = dict(
            stack.sql(
                "SELECT id, status FROM games_match WHERE id = ANY('{"
                + ",".join(str(m) for m in touched)
                + "}'::bigint[])"
            )
        )
        if all(status == "voided" for status in statuses.values()):
            break
        time.sleep(1)
    return round(time.monotonic() - started, 1)


def _balances_settled(stack, report: Report, groups, expected: dict[str, Decimal], players):
    """The balances of ``players``, read again (up to SETTLE_TIMEOUT) until they are back to
    ``expected``: a seamless player's refund reaches its operator's wallet after the commit."""
    started = time.monotonic()
    while True:
        after = report.balances(stack, groups)
        off = {p: (expected[p], after[p]) for p in players if after[p] != Decimal(expected[p])}
        if not off or time.monotonic() - started > SETTLE_TIMEOUT:
            return off
        time.sleep(1)


def void_checked(stack, report: Report, groups, before: dict[str, Decimal]) -> None:
    report.figures["waited for the voids, s"] = _voids_done(stack, report)
    ids = _ids(report)
    voids = dict(
        stack.sql(
            "SELECT reference, count(*) FROM wallet_ledgertransaction "
            "WHERE reference LIKE 'void:match:%' GROUP BY reference"
        )
    )
    report.figures["void transactions"] = sum(voids.values())
    doubled = {ref: n for ref, n in voids.items() if n != 1}
    if doubled:
        report.fail(f"void transactions not exactly once: {doubled}")
    statuses = dict(stack.sql(f"SELECT id, status FROM games_match WHERE id = {ids}"))
    voided = [m for m, status in statuses.items() if status == "voided"]
    missing = [m for m in voided if f"void:match:{m}" not in voids]
    if missing:
        report.fail(f"voided matches without their refund: {missing}")
    # Exactly the matches running through the outage are voided; those over before it settle.
    touched = {row[1] for row in report.before_stop}
    if set(voided) != touched:
        report.fail(f"voided {sorted(voided)}, running through the outage {sorted(touched)}")
    report.figures["running through the outage"] = len(touched)
    in_touched = (
        {
            str(player)
            for (player,) in stack.sql(
                "SELECT player_id FROM games_seat WHERE match_id = ANY('{"
                + ",".join(str(m) for m in touched)
                + "}'::bigint[])"
            )
        }
        if touched
        else set()
    )
    off = _balances_settled(stack, report, groups, before, [p for p in before if p in in_touched])
    if off:
        report.fail(f"balances not back to before the buy-in: {list(off.items())[:5]}")

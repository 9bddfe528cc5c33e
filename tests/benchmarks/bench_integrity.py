"""The evaluation run of integrity's detection (docs/integrity.md "Evaluation"): a
synthetic population plays over the real HTTP API on PostgreSQL, then the detection jobs run
and the run prints the confusion matrices for pairs and for players.

    .venv/bin/python tests/benchmarks/bench_integrity.py [--games 1500] [--concurrency 80]
        [--honest 200] [--soft-pairs 10] [--dumping-pairs 10] [--scripts 10] [--seed 1]

Needs PostgreSQL and Redis as the other stack benchmarks (tests/benchmarks/harness.py: a
scratch database, migrated and dropped; an empty Redis db, flushed; gunicorn as deployed; a
real Celery worker that settles every real-money game).

The population, all on one operator (EUR wallets, 5,000.00 deposited each):
- ``--honest`` honest players of three strengths: each move is the engine bot's choice
  with probability 0.55, 0.70 or 0.85, else another legal move of the same kind (another
  discard, the other draw; a knock the bot would make can so be passed up); think times
  log-normal (median 0.12 s, sigma 1.0: heavy-tailed, as people's are, scaled down ~30x);
- ``--soft-pairs`` colluding pairs: honest (0.70) against everybody, but against their
  partner neither knocks or goes gin (the knock becomes a discard of the same card) until
  the stock is down to 8 cards (so that their hands still end);
- ``--dumping-pairs``: in Money Play against the partner, the sender resigns at once in 6 of
  10 games and plays to lose in the others (never knocks, draws from the stock, keeps its
  highest deadwood); honest otherwise;
- ``--scripts`` scripted players: the engine bot's every move, after a fixed 0.6 s (+-10 ms).
Time scaling: people's think times are shrunk so the run fits ~15 minutes; the timing
signal's premise (people heavy-tailed, scripts regular) is untouched by a common scale,
since the coefficient of variation has no unit. The script's delay is kept longer than the
people's median so the server's own latency (which the server-side think time includes)
stays small against it, as it is in real play (seconds).

The schedule (``--games`` in all, seeded): each soft pair meets 15 times in First To Knock,
each dumping pair 10 times in Money Play to 50, each script plays 20 games against
random honest players, the rest are random honest pairings (9 in 10 First To Knock at
1.00, 1 in 10 Money Play). A player plays one game at a time. ``--concurrency`` client
threads play the games, each with its own two rooms (so tables are never contended), one
player's view per turn, every move ``POST /matches/{id}/actions`` with ``expected_seq``.

Then: every real-money game settled (polled), the detection jobs run to the end
(``integrity.detection.detection_job_run``, as the beat would, in ``manage.py shell`` on
the scratch database), and the open alerts are read. Truth: the colluding pairs (positive
pairs) against every other pair that played at least once; the scripts (positive players)
against every other player. Printed: the confusion matrix and recall / false-positive rate
for pairs (any pair signal) and players (any player signal), then per signal.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # harness; it adds the project
from harness import Stack, StackConfig, exit_on_sigterm, machine_summary, run_script, say

from games.engine import choose_action_from_view, deadwood, parse_cards
from gin_platform.demo.client import ApiClient, ApiError

FTK_ROOM = {"variant": "ftk", "currency": "EUR", "stake": "1.00", "fee_bps": 500}
MONEY_ROOM = {
    "variant": "money",
    "currency": "EUR",
    "target": 50,
    "stake_per_point_choices": ["0.05"],
    "cashier_min": "5.00",
    "cashier_max": "50.00",
    "fee_bps": 500,
}
MONEY_SIT = {"cashier_amount": "20.00", "stake_per_point": "0.05"}
DEPOSIT = "5000.00"
STRENGTHS = (0.55, 0.70, 0.85)
COLLUDER_STRENGTH = 0.70
MEETINGS = 10
SOFT_MEETINGS = 15
# A soft pair still ends its hands (an unscored First To Knock hand nobody ends is void and
# dealt again, forever): once the stock is this low they play to go out.
SOFT_UNTIL_STOCK = 8
SCRIPT_GAMES = 20
RESIGN_SHARE = 0.6
SCRIPT_DELAY, SCRIPT_JITTER = 0.6, 0.01
HUMAN_MEDIAN, HUMAN_SIGMA = 0.12, 1.0
MAX_ERRORS = 20
PAIR_SIGNALS = ("soft_play", "feeding", "chip_dumping", "pair_win_rate", "repeated_pairing")
PLAYER_SIGNALS = ("bot_timing", "bot_marathon", "bot_engine_moves")

DETECT_CODE = """
import json, time
from django.utils import timezone
from integrity.detection import detection_job_run, jobs
from integrity.models import Alert, DetectionCursor, PairStats
started = time.monotonic()
now = timezone.now() + jobs.LAG
rows = {}
for job in DetectionCursor.JOBS:
    rows[job] = sum(r.rows for r in detection_job_run(job=job, max_batches=10**6, now=now))
alerts = [
    [a.signal, str(a.player_id), str(a.other_player_id) if a.other_player_id else None, a.score]
    for a in Alert.objects.filter(status="open")
]
pairs = [[str(p.player_low_id), str(p.player_high_id)] for p in PairStats.objects.all()]
print("DETECT " + json.dumps({
    "seconds": time.monotonic() - started, "rows": rows, "alerts": alerts, "pairs": pairs,
}))
"""


@dataclass
class Player:
    id: str
    client: ApiClient
    role: str  # honest, soft, dumper, receiver, script
    strength: float = COLLUDER_STRENGTH
    partner: str | None = None


@dataclass
class GameSpec:
    variant: str
    players: tuple[Player, Player]
    # Seat behaviour by player id: "honest", "soft", "resign", "lose", "script".
    plans: dict[str, str] = field(default_factory=dict)


@dataclass
class Tally:
    games: Counter = field(default_factory=Counter)
    actions: int = 0
    errors: Counter = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)


# --- Setup ------------------------------------------------------------------------------------
def seed_players(stack: Stack, args) -> list[Player]:
    operator = ApiClient(stack.base_url, token=stack.operator_key, timeout=60)
    rng = random.Random(args.seed)
    roles: list[tuple[str, float]] = [("honest", rng.choice(STRENGTHS)) for _ in range(args.honest)]
    roles += [("soft", COLLUDER_STRENGTH)] * (2 * args.soft_pairs)
    roles += [("dumper", COLLUDER_STRENGTH), ("receiver", COLLUDER_STRENGTH)] * args.dumping_pairs
    roles += [("script", 1.0)] * args.scripts

    def make(index: int) -> Player:
        role, strength = roles[index]
        ref = f"int-{index}-{role}"
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
        return Player(body["id"], operator.with_token(session["token"]), role, strength)

    with ThreadPoolExecutor(8) as pool:
        players = list(pool.map(make, range(len(roles))))
    for kind in ("soft", "dumper"):
        group = [
            p for p in players if p.role in ((kind,) if kind == "soft" else ("dumper", "receiver"))
        ]
        for a, b in zip(group[::2], group[1::2], strict=True):
            a.partner, b.partner = b.id, a.id
    return players


def make_rooms(stack: Stack, count: int) -> list[dict[str, int]]:
    operator = ApiClient(stack.base_url, token=stack.operator_key, timeout=60)

    def make(index: int) -> dict[str, int]:
        ftk = operator.write(
            "POST", "/api/v1/rooms", {"name": f"int ftk {index}", "turn_seconds": 600, **FTK_ROOM}
        )
        money = operator.write(
            "POST",
            "/api/v1/rooms",
            {"name": f"int money {index}", "turn_seconds": 600, **MONEY_ROOM},
        )
        return {"ftk": ftk["id"], "money": money["id"]}

    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(make, range(count)))


def schedule(players: list[Player], args) -> list[GameSpec]:
    rng = random.Random(args.seed + 1)
    honest = [p for p in players if p.role == "honest"]
    by_id = {p.id: p for p in players}
    specs: list[GameSpec] = []
    for player in players:
        if player.role == "soft" and player.partner and player.id < player.partner:
            partner = by_id[player.partner]
            for _ in range(SOFT_MEETINGS):
                specs.append(
                    GameSpec("ftk", (player, partner), {player.id: "soft", partner.id: "soft"})
                )
        if player.role == "dumper":
            receiver = by_id[player.partner or ""]
            for index in range(MEETINGS):
                plan = "resign" if index < RESIGN_SHARE * MEETINGS else "lose"
                specs.append(
                    GameSpec("money", (player, receiver), {player.id: plan, receiver.id: "honest"})
                )
        if player.role == "script":
            for _ in range(SCRIPT_GAMES):
                other = rng.choice(honest)
                specs.append(
                    GameSpec("ftk", (player, other), {player.id: "script", other.id: "honest"})
                )
    # The colluders' and the scripts' games first: each is a chain one player plays game
    # after game, so it starts at once while the honest games fill the other threads.
    rng.shuffle(specs)
    chains = len(specs)
    colluders = [p for p in players if p.role in ("soft", "dumper", "receiver")]
    while len(specs) < args.games:
        a = rng.choice(honest + colluders if rng.random() < 0.3 else honest)
        b = rng.choice(honest)
        if a.id == b.id:
            continue
        variant = "money" if rng.random() < 0.1 else "ftk"
        specs.append(GameSpec(variant, (a, b), {a.id: "honest", b.id: "honest"}))
    honest_games = specs[chains:]
    rng.shuffle(honest_games)
    return specs[:chains] + honest_games


# --- Playing --------------------------------------------------------------------------------
class Scheduler:
    """Hands out games whose two players are both free (a player plays one game at a time)."""

    def __init__(self, specs: list[GameSpec]) -> None:
        self.pending = list(specs)
        self.busy: set[str] = set()
        self.cond = threading.Condition()

    def take(self) -> GameSpec | None:
        with self.cond:
            while self.pending:
                for index, spec in enumerate(self.pending[:400]):
                    ids = {p.id for p in spec.players}
                    if not ids & self.busy:
                        self.busy |= ids
                        return self.pending.pop(index)
                self.cond.wait(0.5)
            return None

    def done(self, spec: GameSpec) -> None:
        with self.cond:
            self.busy -= {p.id for p in spec.players}
            self.cond.notify_all()


def think(player: Player, plan: str, rng: random.Random) -> float:
    if plan == "script":
        return SCRIPT_DELAY + rng.uniform(-SCRIPT_JITTER, SCRIPT_JITTER)
    return min(rng.lognormvariate(0.0, HUMAN_SIGMA) * HUMAN_MEDIAN, 20.0)


def choose(hand_view: dict, player: Player, plan: str, rng: random.Random) -> dict:
    """The move of ``player`` following ``plan`` from its own view only."""
    legal = hand_view["legal_actions"]
    if plan == "lose":
        kinds = {a["kind"] for a in legal}
        for skip in ("pass", "draw_stock"):
            if skip in kinds:
                return {"kind": skip, "card": None}
        discards = [a for a in legal if a["kind"] == "discard"]
        if discards:
            held = parse_cards(" ".join(hand_view["hand"]))

            def left(action: dict) -> int:
                return deadwood([c for c in held if str(c) != action["card"]])

            best = max(discards, key=left)
            return {"kind": "discard", "card": best["card"]}
    best = choose_action_from_view(hand_view)
    if plan != "script" and rng.random() >= player.strength:
        others = [
            a
            for a in legal
            if a["kind"] not in ("knock", "big_gin")
            and (a["kind"], a.get("card")) != (best["kind"], best["card"])
        ]
        if others:
            pick = rng.choice(others)
            best = {"kind": pick["kind"], "card": pick.get("card")}
    stock = hand_view.get("stock_count") or 0
    if plan == "soft" and best["kind"] in ("knock", "big_gin") and stock > SOFT_UNTIL_STOCK:
        discards = [a for a in legal if a["kind"] == "discard"]
        same = [a for a in discards if a["card"] == best["card"]] or discards
        best = {"kind": "discard", "card": same[0]["card"]}
    return best


def play_game(spec: GameSpec, rooms: dict[str, int], tally: Tally, rng: random.Random) -> None:
    first, second = spec.players
    room = rooms[spec.variant]
    body = MONEY_SIT if spec.variant == "money" else {}
    lobby = first.client.get(f"/api/v1/lobby/{room}")
    table = next(t["id"] for t in lobby["tables"] if t["free_seats"] == 2)
    seat_a = first.client.post(f"/api/v1/tables/{table}/sit", body)
    try:
        seat_b = second.client.post(f"/api/v1/tables/{table}/sit", body)
    except ApiError:
        first.client.post(f"/api/v1/tables/{table}/leave")
        raise
    match_id = seat_b["match_id"]
    by_seat = {seat_a["position"]: first, seat_b["position"]: second}
    resigner = next((p for p in spec.players if spec.plans[p.id] == "resign"), None)
    if resigner is not None:
        time.sleep(think(resigner, "honest", rng))
        resigner.client.post(f"/api/v1/matches/{match_id}/resign")
        with tally.lock:
            tally.games["resigned"] += 1
        return
    look = by_seat[0].client.get(f"/api/v1/matches/{match_id}/view")
    viewer, errors = 0, 0
    while True:
        if look["match"]["status"] != "running":
            with tally.lock:
                tally.games[spec.variant] += 1
            return
        to_act = look["hand"]["to_act"]
        mover = by_seat[to_act]
        if viewer != to_act:
            look = mover.client.get(f"/api/v1/matches/{match_id}/view")
            viewer = to_act
            continue
        plan = spec.plans[mover.id]
        move = choose(look["hand"], mover, plan, rng)
        time.sleep(think(mover, plan, rng))
        try:
            look = mover.client.post(
                f"/api/v1/matches/{match_id}/actions", {**move, "expected_seq": look["seq"]}
            )
            with tally.lock:
                tally.actions += 1
        except ApiError as exc:
            errors += 1
            with tally.lock:
                tally.errors[f"action {exc.status}"] += 1
            if errors >= MAX_ERRORS:
                mover.client.post(f"/api/v1/tables/{table}/leave")
                return
            look = mover.client.get(f"/api/v1/matches/{match_id}/view")


def worker(index: int, scheduler: Scheduler, rooms: dict[str, int], tally: Tally, seed: int):
    rng = random.Random(seed * 1000 + index)
    while (spec := scheduler.take()) is not None:
        try:
            play_game(spec, rooms, tally, rng)
        except (ApiError, OSError, StopIteration, KeyError) as exc:
            with tally.lock:
                tally.errors[type(exc).__name__ + str(getattr(exc, "status", ""))] += 1
        finally:
            scheduler.done(spec)


# --- Evaluation ------------------------------------------------------------------------------
def matrix(name: str, positives: set, universe: set, flagged: set) -> dict:
    flagged &= universe
    tp = len(positives & flagged)
    fn = len(positives - flagged)
    fp = len(flagged - positives)
    tn = len(universe - positives - flagged)
    recall = tp / (tp + fn) if tp + fn else 0.0
    fpr = fp / (fp + tn) if fp + tn else 0.0
    return {"name": name, "tp": tp, "fn": fn, "fp": fp, "tn": tn, "recall": recall, "fpr": fpr}


def show(row: dict) -> None:
    say(
        f"  {row['name']:<18} TP {row['tp']:>4}  FN {row['fn']:>4}  FP {row['fp']:>5}  "
        f"TN {row['tn']:>6}  recall {row['recall']:.3f}  FPR {row['fpr'] * 100:.2f}%"
    )


def evaluate(players: list[Player], detected: dict) -> tuple[dict, dict]:
    soft = {frozenset((p.id, p.partner)) for p in players if p.role == "soft" and p.partner}
    dumping = {frozenset((p.id, p.partner)) for p in players if p.role == "dumper" and p.partner}
    colluding = soft | dumping
    scripts = {p.id for p in players if p.role == "script"}
    played_pairs = {frozenset(pair) for pair in detected["pairs"]}
    played = {player for pair in played_pairs for player in pair}
    by_signal: dict[str, set] = {}
    for signal, player, other, _score in detected["alerts"]:
        subject = frozenset((player, other)) if other else player
        by_signal.setdefault(signal, set()).add(subject)
    pair_flags = set().union(*(by_signal.get(s, set()) for s in PAIR_SIGNALS))
    player_flags = set().union(*(by_signal.get(s, set()) for s in PLAYER_SIGNALS))
    honest_pairs = played_pairs - colluding
    say(
        f"pairs: {len(colluding)} colluding ({len(soft)} soft-play, {len(dumping)} chip-dumping) "
        f"among {len(played_pairs)} pairs that played"
    )
    pair_row = matrix("any pair signal", colluding, played_pairs, set(pair_flags))
    show(pair_row)
    say("  per signal: soft-play pairs / chip-dumping pairs / other pairs flagged")
    for signal in PAIR_SIGNALS:
        flagged = by_signal.get(signal, set())
        say(
            f"  {signal:<18} {len(soft & flagged):>3}/{len(soft)}  "
            f"{len(dumping & flagged):>3}/{len(dumping)}  "
            f"{len(honest_pairs & flagged):>4}/{len(honest_pairs)}"
        )
    say(f"players: {len(scripts)} scripted among {len(played)} players that played")
    player_row = matrix("any player signal", scripts, played, set(player_flags))
    show(player_row)
    for signal in PLAYER_SIGNALS:
        show(matrix(signal, scripts, played, set(by_signal.get(signal, set()))))
    return pair_row, player_row


def wait_settled(stack: Stack, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while True:
        left = stack.sql("SELECT count(*) FROM games_match WHERE status = 'finished'")[0][0]
        if not left or time.monotonic() > deadline:
            return int(left)
        time.sleep(2)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--concurrency", type=int, default=80)
    parser.add_argument("--honest", type=int, default=200)
    parser.add_argument("--soft-pairs", type=int, default=10)
    parser.add_argument("--dumping-pairs", type=int, default=10)
    parser.add_argument("--scripts", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--redis-db", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    exit_on_sigterm()
    started = time.monotonic()
    say(f"machine: {machine_summary()}")
    stack = Stack(StackConfig(workers=args.workers, redis_db=args.redis_db), say=say)
    say(f"stack: {stack.describe()}, one Celery worker (settlement), PostgreSQL {stack.database}")
    with stack:
        players = seed_players(stack, args)
        rooms = make_rooms(stack, args.concurrency)
        specs = schedule(players, args)
        roles = Counter(p.role for p in players)
        say(f"seeded {len(players)} players {dict(roles)}, {len(specs)} games scheduled")
        tally, scheduler = Tally(), Scheduler(specs)
        meter = stack.cpu_meter().start()
        play_started = time.monotonic()
        threads = [
            threading.Thread(
                target=worker, args=(i, scheduler, rooms[i], tally, args.seed), daemon=True
            )
            for i in range(args.concurrency)
        ]
        for thread in threads:
            thread.start()
        while any(t.is_alive() for t in threads):
            time.sleep(30)
            say(
                f"  {time.monotonic() - play_started:.0f} s: {sum(tally.games.values())} games, "
                f"{tally.actions} actions, {len(scheduler.pending)} to go"
            )
        play_seconds = time.monotonic() - play_started
        cpu = meter.stop()
        say(
            f"played {sum(tally.games.values())} games ({dict(tally.games)}), {tally.actions} "
            f"actions in {play_seconds:.0f} s; errors {dict(tally.errors) or 0}"
        )
        say(
            "server CPU while playing (CPUs busy): "
            + ", ".join(f"{k} {v:.2f}" for k, v in cpu.items())
        )
        unsettled = wait_settled(stack, 300)
        say(f"unsettled real-money games: {unsettled}")
        output = stack.manage("shell", "-c", DETECT_CODE)
        line = next(x for x in output.splitlines() if x.startswith("DETECT "))
        detected = json.loads(line[7:])
        say(
            f"detection: {detected['rows']} rows read in {detected['seconds']:.1f} s, "
            f"{len(detected['alerts'])} open alerts"
        )
        pair_row, player_row = evaluate(players, detected)
    ok = (
        pair_row["recall"] >= 0.9
        and pair_row["fpr"] <= 0.01
        and player_row["recall"] >= 0.9
        and player_row["fpr"] <= 0.01
    )
    say(
        f"goals (recall >= 0.9, FPR <= 1%): {'met' if ok else 'NOT met'}; "
        f"wall time {time.monotonic() - started:.0f} s"
    )
    if args.json:
        args.json.write_text(json.dumps({"pairs": pair_row, "players": player_row, "cpu": cpu}))
    return 0 if ok else 1


if __name__ == "__main__":
    run_script(main, stopped="the stack was stopped and its scratch database dropped")

"""The detection jobs (docs/integrity.md "Jobs"): Celery beat runs them off the
move path; each reads its stream after its cursor, in batches, and per batch, in one
transaction: locks the cursors (one job at a time), counts the rows, adds the figures to the
per-player and per-pair aggregates, moves the cursor past the rows, and re-evaluates the
signals of every player and pair the batch touched. A crash rolls the whole batch back (the
next run counts it again from the same cursor); a run with nothing new changes nothing.

- ``games``: finished heads-up matches between two players (their hands replayed), in the
  order they finished;
- ``money``: settlements in the order they were posted (the ledger's net per player).

A row is read only once it is ``LAG`` old: a row's time is taken before its transaction
commits, so a younger one could still be joined by an older-stamped row committed later.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from games.detection_selectors import finished_games_after
from integrity.detection import (
    bot_timing,
    chip_dumping,
    engine_moves,
    feeding,
    marathon,
    pair_win_rate,
    repeated_pairing,
    soft_play,
)
from integrity.detection.alerts import RAISED, alert_record, transfers_link_record
from integrity.detection.counting import GameFigures, count_game
from integrity.detection.findings import Finding, Population
from integrity.locks import detection_cursor_lock
from integrity.models import Alert, DetectionCursor, PairStats, PlayerStats
from wallet.selectors.flows import settled_game_flows

LAG = timedelta(seconds=60)
GAMES_BATCH = 50
MONEY_BATCH = 500
RECENT = 25  # hand and game ids kept on a pair as the reasoning's examples
PairKey = tuple[uuid.UUID, uuid.UUID]

_PLAYER_SUMS = (
    "hands",
    "hands_won",
    "knock_chances",
    "knocks_declined",
    "discards",
    "discards_useful",
    "decisions",
    "engine_same",
)
_PAIR_SIDES = (
    "hands_won",
    "knock_chances",
    "knocks_declined",
    "discards",
    "discards_useful",
)


@dataclass(frozen=True)
class BatchReport:
    job: str
    rows: int
    raised: int
    updated: int
    links: int


def games_batch_run(*, now: datetime | None = None, limit: int = GAMES_BATCH) -> BatchReport:
    """Count the next batch of finished games (see the module)."""
    now = timezone.now() if now is None else now
    with transaction.atomic():
        cursor = detection_cursor_lock(job=DetectionCursor.GAMES)
        page = finished_games_after(
            after_at=cursor.last_at, after_id=cursor.last_id, before=now - LAG, limit=limit
        )
        if page.last is None:
            return BatchReport(DetectionCursor.GAMES, 0, 0, 0, 0)
        games = page.games
        figures = [count_game(game) for game in games]
        player_ids = {player for game in games for player in game.players}
        players = _player_rows(player_ids)
        pairs = _pair_rows({_key(*game.players) for game in games})
        for counted in figures:
            _add_game(counted, players, pairs, now)
        _save(players.values(), pairs.values(), now)
        at, row_id = page.last
        _cursor_move(cursor, at=at, row_id=row_id, rows=page.read, now=now)
        return _evaluate(DetectionCursor.GAMES, page.read, player_ids, set(pairs), now)


def money_batch_run(*, now: datetime | None = None, limit: int = MONEY_BATCH) -> BatchReport:
    """Add the next batch of settled games' money to the pairs (see the module)."""
    now = timezone.now() if now is None else now
    with transaction.atomic():
        cursor = detection_cursor_lock(job=DetectionCursor.MONEY)
        flows = settled_game_flows(
            after_at=cursor.last_at, after_id=cursor.last_id, before=now - LAG, limit=limit
        )
        if not flows:
            return BatchReport(DetectionCursor.MONEY, 0, 0, 0, 0)
        heads_up = [
            flow for flow in flows if flow.game_ref.startswith("match:") and len(flow.net) == 2
        ]
        pairs = _pair_rows({_key(*flow.net) for flow in heads_up})
        for flow in heads_up:
            low, high = _key(*flow.net)
            pair = pairs[(low, high)]
            to_low = (flow.net[low] - flow.net[high]) // 2
            pair.net_to_low = {
                **pair.net_to_low,
                flow.currency: int(pair.net_to_low.get(flow.currency, 0)) + to_low,
            }
        _save((), pairs.values(), now)
        last = flows[-1]
        _cursor_move(
            cursor, at=last.posted_at, row_id=last.transaction_id, rows=len(flows), now=now
        )
        return _evaluate(DetectionCursor.MONEY, len(flows), set(), set(pairs), now)


def detection_job_run(
    *, job: str, max_batches: int = 100, now: datetime | None = None
) -> list[BatchReport]:
    """Batches of ``job`` until one comes back short or ``max_batches`` ran (the beat comes
    back for the rest)."""
    run, size = (
        (games_batch_run, GAMES_BATCH)
        if job == DetectionCursor.GAMES
        else (money_batch_run, MONEY_BATCH)
    )
    reports = []
    for _ in range(max_batches):
        report = run(now=now)
        reports.append(report)
        if report.rows < size:
            break
    return reports


# --- Aggregates -----------------------------------------------------------------------------
def _key(a: uuid.UUID, b: uuid.UUID) -> PairKey:
    return (a, b) if a < b else (b, a)


def _player_rows(ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, PlayerStats]:
    """Each player's stats row, created when missing (under the cursors' lock: no race)."""
    wanted = set(ids)
    rows = {row.player_id: row for row in PlayerStats.objects.filter(player_id__in=wanted)}
    missing = [PlayerStats(player_id=player) for player in wanted - set(rows)]
    for row in PlayerStats.objects.bulk_create(missing):
        rows[row.player_id] = row
    return rows


def _pair_rows(keys: set[PairKey]) -> dict[PairKey, PairStats]:
    lows = {low for low, _ in keys}
    rows = {
        (row.player_low_id, row.player_high_id): row
        for row in PairStats.objects.filter(player_low_id__in=lows)
        if (row.player_low_id, row.player_high_id) in keys
    }
    missing = [PairStats(player_low_id=low, player_high_id=high) for low, high in keys - set(rows)]
    for row in PairStats.objects.bulk_create(missing):
        rows[(row.player_low_id, row.player_high_id)] = row
    return rows


def _add_game(
    counted: GameFigures,
    players: dict[uuid.UUID, PlayerStats],
    pairs: dict[PairKey, PairStats],
    now: datetime,
) -> None:
    game = counted.game
    low, high = _key(*game.players)
    pair = pairs[(low, high)]
    pair.matches += 1
    pair.hands += counted.seats[0].hands
    pair.recent_hands = [*pair.recent_hands, *counted.hand_ids][-RECENT:]
    pair.recent_games = [*pair.recent_games, game.match_id][-RECENT:]
    if counted.real_money:
        pair.games += 1
    for seat, figures in enumerate(counted.seats):
        player = game.players[seat]
        stats = players[player]
        side = "low" if player == low else "high"
        stats.matches += 1
        for name in _PLAYER_SUMS:
            setattr(stats, name, getattr(stats, name) + getattr(figures, name))
        for name in _PAIR_SIDES:
            column = f"{name}_{side}"
            setattr(pair, column, getattr(pair, column) + getattr(figures, name))
        stats.think_count += len(figures.think)
        stats.think_sum += sum(figures.think)
        stats.think_sum_sq += sum(value * value for value in figures.think)
        marathon.session_update(stats, figures.times)
        if counted.real_money:
            stats.games += 1
            if game.winner_seat == seat:
                stats.games_won += 1
                setattr(pair, f"games_won_{side}", getattr(pair, f"games_won_{side}") + 1)
            if game.forfeit_seat == seat:
                stats.forfeits += 1
                setattr(pair, f"forfeits_{side}", getattr(pair, f"forfeits_{side}") + 1)
        stats.updated_at = now


def _save(players: Iterable[PlayerStats], pairs: Iterable[PairStats], now: datetime) -> None:
    player_rows = list(players)
    if player_rows:
        fields = [
            f.name for f in PlayerStats._meta.concrete_fields if f.name not in ("id", "player")
        ]
        PlayerStats.objects.bulk_update(player_rows, fields)
    pair_rows = list(pairs)
    for pair in pair_rows:
        pair.updated_at = now
    if pair_rows:
        fields = [
            f.name
            for f in PairStats._meta.concrete_fields
            if f.name not in ("id", "player_low", "player_high")
        ]
        PairStats.objects.bulk_update(pair_rows, fields)


def _cursor_move(
    cursor: DetectionCursor, *, at: datetime, row_id: int, rows: int, now: datetime
) -> None:
    cursor.last_at = at
    cursor.last_id = row_id
    cursor.rows_read += rows
    cursor.updated_at = now
    cursor.save(update_fields=("last_at", "last_id", "rows_read", "updated_at"))


# --- Signals -------------------------------------------------------------------------------
def _evaluate(
    job: str, rows: int, player_ids: set[uuid.UUID], pair_keys: set[PairKey], now: datetime
) -> BatchReport:
    """Every signal of the touched pairs and players, each finding recorded."""
    population = Population.read()
    everyone = player_ids | {player for key in pair_keys for player in key}
    stats = {row.player_id: row for row in PlayerStats.objects.filter(player_id__in=everyone)}
    for player in everyone - set(stats):
        stats[player] = PlayerStats(player_id=player)
    findings: list[tuple[Finding, PairStats | None]] = []
    pairs = PairStats.objects.filter(player_low_id__in={low for low, _ in pair_keys})
    for pair in pairs:
        if (pair.player_low_id, pair.player_high_id) not in pair_keys:
            continue
        low, high = stats[pair.player_low_id], stats[pair.player_high_id]
        for found in (
            soft_play.evaluate(pair=pair, low=low, high=high, population=population),
            feeding.evaluate(pair=pair, low=low, high=high, population=population),
            chip_dumping.evaluate(pair=pair, low=low, high=high, population=population),
            pair_win_rate.evaluate(pair=pair, low=low, high=high),
            repeated_pairing.evaluate(pair=pair, low=low, high=high, population=population),
        ):
            if found is not None:
                findings.append((found, pair))
    for player in sorted(player_ids):
        for found in (
            bot_timing.evaluate(stats=stats[player]),
            marathon.evaluate(stats=stats[player]),
            engine_moves.evaluate(stats=stats[player]),
        ):
            if found is not None:
                findings.append((found, None))
    raised = updated = links = 0
    for finding, found_in in findings:
        outcome = alert_record(finding=finding, now=now)
        raised += outcome == RAISED
        updated += bool(outcome) and outcome != RAISED
        if (
            found_in is not None
            and finding.signal == Alert.Signal.CHIP_DUMPING
            and chip_dumping.links_pair(finding, found_in)
        ):
            links += transfers_link_record(finding=finding, pair=found_in, now=now)
    return BatchReport(job, rows, raised, updated, links)

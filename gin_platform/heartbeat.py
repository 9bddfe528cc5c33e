"""The platform's heartbeat: when could it take moves? (R13 "the platform's own outage")

Every web process writes the ``web`` heartbeat every ``PLATFORM_HEARTBEAT_SECONDS`` from a
thread of its own, once it has reached both the database and Redis (when Redis is
configured): a beat proves a move could have been taken then. Celery beat's job writes the
``beat`` heartbeat the same way (workers and beat alive; shown by the health check).

- A ``web`` beat that comes more than ``PLATFORM_OUTAGE_AFTER_SECONDS`` after the one before
  it records an :class:`Outage` from the earlier beat to this one, in the same transaction
  (the heartbeat row is locked, so one writer records it, once).
- ``moves_possible`` is what the turn timers ask before they fire: while the web heartbeat
  is overdue no move can be taken, so nobody may time out. With no heartbeat at all (a
  process that never ran a web server, the embedded default) the platform is taken as up.
- ``outage_recorded`` is sent in the transaction that records it: games suspends at once
  every match an outage past its limit touched, so no move reaches a match that is to be
  voided; then games applies each outage (moves every deadline inside it on, or voids the
  suspended matches) before any timer fires (games/services/interruptions.py).

A worker-only outage (web up, Celery down) is not an outage: players could move, only the
timers were late, and each stage of a turn's clock starts when the timer reaches it, so a
late timer gives a player more time, never less (docs/games.md "Interrupted play").
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timedelta

from django.conf import settings
from django.db import close_old_connections, transaction
from django.dispatch import Signal
from django.utils import timezone

from gin_platform.locks import lock_heartbeat
from gin_platform.models import Heartbeat, Outage
from gin_platform.request_path.cache import redis_client

logger = logging.getLogger(__name__)

WEB, BEAT = "web", "beat"

# Sent inside the transaction that records an outage (``outage=``): games suspends the
# matches an outage past its limit touched before any move can reach them (games/apps.py).
outage_recorded = Signal()


def heartbeat_interval() -> float:
    return float(settings.PLATFORM_HEARTBEAT_SECONDS)


def outage_after() -> timedelta:
    """A gap between two web beats longer than this is an outage."""
    return timedelta(seconds=float(settings.PLATFORM_OUTAGE_AFTER_SECONDS))


@transaction.atomic
def heartbeat_write(*, source: str, now: datetime | None = None) -> Outage | None:
    """Record a beat of ``source`` at ``now``; for ``web``, the outage its gap shows, if any."""
    now = now or timezone.now()
    Heartbeat.objects.bulk_create([Heartbeat(source=source, beat_at=now)], ignore_conflicts=True)
    row = lock_heartbeat(source)
    assert row is not None  # created above if it was missing
    outage = None
    if source == WEB and now - row.beat_at > outage_after():
        outage = Outage.objects.create(started_at=row.beat_at, ended_at=now)
        logger.warning(
            "platform outage: no web heartbeat from %s to %s (%.0f s)",
            row.beat_at.isoformat(),
            now.isoformat(),
            outage.seconds,
        )
        outage_recorded.send(sender=Outage, outage=outage)
    if now > row.beat_at:
        row.beat_at = now
        row.save(update_fields=["beat_at"])
    return outage


def moves_possible(*, now: datetime | None = None) -> bool:
    """Could a move be taken now? False while the web heartbeat is overdue."""
    now = now or timezone.now()
    beat_at = Heartbeat.objects.filter(source=WEB).values_list("beat_at", flat=True).first()
    return beat_at is None or now - beat_at <= outage_after()


def outages_unapplied() -> list[Outage]:
    return list(Outage.objects.filter(applied_at__isnull=True).order_by("started_at"))


def _redis_answers() -> bool:
    client = redis_client()
    return client is None or bool(client.ping())


def _beat_forever(source: str, stop: threading.Event) -> None:
    failing = False
    while not stop.wait(heartbeat_interval()):
        try:
            if not _redis_answers():
                raise ConnectionError("Redis did not answer PING")
            heartbeat_write(source=source)
            if failing:
                logger.warning("platform heartbeat (%s): back", source)
            failing = False
        except Exception as exc:
            if not failing:
                logger.warning("platform heartbeat (%s) missed: %s", source, exc)
            failing = True
            close_old_connections()


def heartbeat_thread_start(*, source: str = WEB) -> threading.Event:
    """Beat at once, then every ``heartbeat_interval()`` on a daemon thread, until the
    returned event is set. A beat that cannot reach the database or Redis is simply missed."""
    stop = threading.Event()
    try:
        if _redis_answers():
            heartbeat_write(source=source)
    except Exception as exc:
        logger.warning("platform heartbeat (%s) missed: %s", source, exc)
    finally:
        close_old_connections()
    threading.Thread(
        target=_beat_forever, args=(source, stop), name=f"heartbeat-{source}", daemon=True
    ).start()
    return stop

"""The fallback for clients without WebSockets: ``GET .../events?after=N&wait=S`` holds the
request until the match has an event after N, or S seconds pass (docs/realtime.md).

The wait watches the sequence number every commit of the match leaves in the cache
(``presence.seq_pushed``), a read of the cache every ``POLL_SECONDS``, and looks at the
database itself every ``DATABASE_CHECK_SECONDS`` in case the cache lost it: a lost cache
entry delays an answer, it never loses an event. Under ASGI each waiting request holds one
of the server's sync threads (README: ASGI_THREADS).
"""

from __future__ import annotations

import threading
import time

from django.conf import settings

from games import selectors
from games.realtime import presence

LONG_POLL_MAX_SECONDS = 25
POLL_SECONDS = 0.1
DATABASE_CHECK_SECONDS = 2.0


_slots_lock = threading.Lock()
_slots: dict[int, threading.BoundedSemaphore | None] = {}  # None: long polls are off


def _process_slots() -> threading.BoundedSemaphore | None:
    size = settings.REALTIME_LONG_POLLS_PER_PROCESS
    with _slots_lock:
        if size not in _slots:
            _slots[size] = threading.BoundedSemaphore(size) if size > 0 else None
        return _slots[size]


def wait_for_events(*, match_id: int, after: int, seconds: int, player_id: object) -> bool:
    """Return once the match's sequence number is past ``after``, or after ``seconds``;
    False at once when no wait is free (the process's or the player's share is taken)."""
    slots = _process_slots()
    if slots is None or not slots.acquire(blocking=False):
        return False
    try:
        if presence.long_poll_started(player_id=player_id) > (
            settings.REALTIME_LONG_POLLS_PER_PLAYER
        ):
            return False
        try:
            _wait(match_id=match_id, after=after, seconds=seconds)
        finally:
            presence.long_poll_ended(player_id=player_id)
        return True
    finally:
        slots.release()


def _wait(*, match_id: int, after: int, seconds: int) -> None:
    deadline = time.monotonic() + min(seconds, LONG_POLL_MAX_SECONDS)
    next_database_check = time.monotonic() + DATABASE_CHECK_SECONDS
    while (now := time.monotonic()) < deadline:
        pushed = presence.last_pushed_seq(match_id=match_id)
        if pushed is not None and pushed > after:
            return
        if now >= next_database_check:
            if (selectors.match_seq(match_id=match_id) or 0) > after:
                return
            next_database_check = now + DATABASE_CHECK_SECONDS
        time.sleep(min(POLL_SECONDS, max(deadline - now, 0)))

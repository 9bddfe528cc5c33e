"""Play across 24 hours without a break (docs/integrity.md "Marathons"): a session
is the player's moves with no gap of ``BREAK_MINUTES`` or more between two of them; the
score is the longest session's length in hours.

Sessions are followed as the games are read (``session_update``): the moves of one game come
in time order, games in the order they finished; a player at several tables at once has
moves that overlap, which only continue the session.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from integrity.detection.findings import Finding
from integrity.models import Alert, PlayerStats

BREAK_MINUTES = 15
THRESHOLD = 24.0  # hours


def session_update(stats: PlayerStats, times: Sequence[datetime]) -> None:
    """Extend or start ``stats``'s running session with the move ``times`` (sorted)."""
    gap = timedelta(minutes=BREAK_MINUTES)
    for at in times:
        last = stats.last_action_at
        if last is None or at - last >= gap or stats.session_start is None:
            stats.session_start = at
            stats.session_actions = 0
        latest = at if last is None or at > last else last
        stats.last_action_at = latest
        stats.session_actions += 1
        length = (latest - stats.session_start).total_seconds()
        if length > stats.longest_session_seconds:
            stats.longest_session_seconds = length
            stats.longest_session_start = stats.session_start


def evaluate(*, stats: PlayerStats) -> Finding | None:
    if stats.longest_session_start is None:
        return None
    hours = stats.longest_session_seconds / 3600
    return Finding(
        signal=Alert.Signal.BOT_MARATHON,
        score=hours,
        threshold=THRESHOLD,
        player=stats.player_id,
        other_player=None,
        reasoning={
            "statistic": "longest play without a break, hours",
            "break_minutes": BREAK_MINUTES,
            "longest_from": stats.longest_session_start.isoformat(),
            "longest_hours": round(hours, 3),
            "current_session_moves": stats.session_actions,
        },
    )

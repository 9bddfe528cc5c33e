"""The play sessions' sweep (beat job ``protection.tasks.play_sessions_sweep``, every
``PROTECTION_SWEEP_SECONDS``; docs/player-protection.md "The sweep"): reached duration and
loss limits, the reality checks of players not at a running table (at a table they come at
its next turn boundary), idle sessions, and matches stopped after their hand whose void was
lost; and the sessions of players who began a break (a time-out or a self-exclusion) end.
Each session is changed in its own transaction; running it twice changes nothing more.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import services as games
from games import session_selectors as tables
from games.realtime.publisher import player_message
from protection import selectors
from protection.api.presenters import reality_check_dict
from protection.models import EndReason, PlaySession
from protection.services.endings import session_end, session_limit_reach
from protection.services.reality_checks import reality_check_show
from protection.services.sessions import SESSION_ACTOR
from wallet.selectors import limits as wallet_limits


@dataclass
class SessionSweep:
    limits_reached: list[int] = field(default_factory=list)
    checks_shown: list[int] = field(default_factory=list)
    idle_ended: list[int] = field(default_factory=list)
    break_ended: list[int] = field(default_factory=list)
    voided: list[int] = field(default_factory=list)


def _limits(now: datetime, sweep: SessionSweep) -> None:
    for session in selectors.sessions_past_duration(now=now):
        if session_limit_reach(session_id=session.pk, limit="duration", now=now):
            sweep.limits_reached.append(session.pk)
    for session in selectors.sessions_with_loss_limit():
        assert session.loss_limit is not None  # read with loss_limit__isnull=False
        if -selectors.net_position(session=session) >= session.loss_limit and (
            session_limit_reach(session_id=session.pk, limit="loss", now=now)
        ):
            sweep.limits_reached.append(session.pk)


def _checks_away_from_tables(now: datetime, sweep: SessionSweep) -> None:
    due = list(selectors.sessions_check_due(now=now))
    playing = tables.players_playing(player_ids=[s.player_id for s in due])
    for session in due:
        if session.player_id in playing:
            continue  # the table shows it at its next turn boundary
        with transaction.atomic():
            check, new = reality_check_show(player_id=session.player_id, now=now)
            if check is not None and new:
                message = {"type": "reality_check", "reality_check": reality_check_dict(check)}
                player_message(player_id=session.player_id, message=message)
                sweep.checks_shown.append(check.pk)


def _idle(now: datetime, sweep: SessionSweep) -> None:
    idle = timedelta(minutes=settings.PROTECTION_SESSION_IDLE_MINUTES)
    candidates = list(selectors.sessions_idle(before=now - idle).select_related("player"))
    seated = tables.players_seated(player_ids=[s.player_id for s in candidates])
    for session in candidates:
        if session.player_id in seated:  # still at a table: active
            PlaySession.objects.filter(pk=session.pk).update(last_active_at=now)
            continue
        ended = session_end(player=session.player, reason=EndReason.IDLE, actor=SESSION_ACTOR)
        if ended is not None:
            sweep.idle_ended.append(ended.pk)


def _breaks(now: datetime, sweep: SessionSweep) -> None:
    """A break (a time-out or a self-exclusion) ends the player's session: it takes no
    buy-in from the moment the break begins (the wallet refuses it), and the session's end
    follows here. The game in progress is not stopped: a break is not a reached limit."""
    sessions = list(selectors.sessions_open().select_related("player"))
    on_a_break = wallet_limits.players_on_a_break(
        player_ids=[s.player_id for s in sessions], at=now
    )
    for session in sessions:
        if session.player_id in on_a_break:
            ended = session_end(player=session.player, reason=EndReason.BREAK, actor=SESSION_ACTOR)
            if ended is not None:
                sweep.break_ended.append(ended.pk)


def play_sessions_sweep(*, now: datetime | None = None) -> SessionSweep:
    now = now or timezone.now()
    sweep = SessionSweep()
    _breaks(now, sweep)
    _limits(now, sweep)
    _checks_away_from_tables(now, sweep)
    _idle(now, sweep)
    for match_id, reason in tables.matches_stopped():
        if games.match_void(match_id=match_id, reason=reason, actor=games.PROTECTION_ACTOR):
            sweep.voided.append(match_id)
    return sweep

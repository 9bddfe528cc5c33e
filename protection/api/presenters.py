"""Shapes of player protection's answers: a play session with its figures, and a reality
check. The same shape goes to the REST views, the player's socket, the hosted page, the
webhooks and a seamless debit's ``context``."""

from __future__ import annotations

from typing import Any

from gin_platform.models import Player
from gin_platform.money import money_dict
from protection.models import RealityCheck
from protection.selectors import SessionFigures

# Where a reality check sends the player (the hosted page and the player API).
HISTORY_URL = "/api/v1/me/history/summary"
LIMITS_URL = "/api/v1/me/play-session"


def reality_check_dict(check: RealityCheck) -> dict[str, Any]:
    return {
        "id": check.pk,
        "session_id": check.session_id,
        "due_at": check.due_at.isoformat(),
        "shown_at": check.shown_at.isoformat(),
        "elapsed_seconds": check.elapsed_seconds,
        "net_position": money_dict(check.net_position, check.currency),
        "answer": check.answer or None,
        "answered_at": None if check.answered_at is None else check.answered_at.isoformat(),
        "answers": [choice.value for choice in RealityCheck.Answer],
        "links": {"history": HISTORY_URL, "limits": LIMITS_URL},
    }


def _iso(moment: Any) -> str | None:
    return None if moment is None else moment.isoformat()


def session_dict(figures: SessionFigures) -> dict[str, Any]:
    session = figures.session
    return {
        "id": session.pk,
        "state": session.state,
        "jurisdiction": session.jurisdiction,
        "started_at": session.started_at.isoformat(),
        "elapsed_seconds": int(figures.elapsed.total_seconds()),
        "duration_limit_minutes": session.duration_limit_minutes,
        "duration_ends_at": _iso(session.duration_ends_at),
        "loss_limit": None
        if session.loss_limit is None
        else money_dict(session.loss_limit, session.currency),
        "net_position": money_dict(figures.net_position, session.currency),
        "in_play": money_dict(figures.in_play, session.currency),
        "limits_set_at": _iso(session.limits_set_at),
        "first_buy_in_at": _iso(session.first_buy_in_at),
        "reality_check_minutes": session.reality_check_minutes,
        "next_reality_check_at": _iso(session.next_reality_check_at),
        "reality_check": None
        if figures.reality_check is None
        else reality_check_dict(figures.reality_check),
        "limit_reached": session.limit_reached or None,
        "limit_reached_at": _iso(session.limit_reached_at),
        "ended_at": _iso(session.ended_at),
        "end_reason": session.end_reason or None,
    }


def session_context(figures: SessionFigures) -> dict[str, Any]:
    """A seamless debit's ``context``: the session as ``session_dict`` has it."""
    return {"play_session": session_dict(figures)}


def profile_dict(player: Player) -> dict[str, Any]:
    """What the player's profile asks of them (the hosted page asks for limits first)."""
    operator = player.operator
    profile = operator.protection_profile
    interval = profile.reality_check_interval(operator.reality_check_minutes)
    return {
        "jurisdiction": profile.code,
        "session_limits_required": profile.session_limits_required,
        "limit_reached": profile.limit_reached,
        "session_ends_on_limit": profile.session_ends_on_limit,
        "reality_check_minutes": None if interval is None else int(interval.total_seconds() // 60),
        "time_out_days": list(profile.time_out_days),
        "self_exclusion_min_days": profile.self_exclusion_min_days,
    }


def session_state_dict(player: Player, figures: SessionFigures | None) -> dict[str, Any]:
    """``GET /me/play-session``: the player's profile and their open session (or null)."""
    return {
        "profile": profile_dict(player),
        "session": None if figures is None else session_dict(figures),
    }

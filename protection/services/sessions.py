"""Play sessions: started by the player with their limits, or by a first real-money buy-in
where the profile does not ask for limits (docs/player-protection.md "Sessions").

This module touches no table: games calls it (through protection.play) with a table's or a
match's lock held, so it imports no games. What a session's end or a reached limit does at
a table is ``protection.services.endings``'s.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from gin_platform.audit import audit_record
from gin_platform.events.catalogue import player_ref
from gin_platform.events.webhooks import webhook_enqueue
from gin_platform.i18n.formatting import number_text
from gin_platform.models import Player
from gin_platform.money import money_dict
from gin_platform.tenancy.principals import Actor
from protection.locks import lock_open_session
from protection.models import PlaySession
from protection.problems import (
    SessionActiveProblem,
    SessionLimitsInvalidProblem,
    SessionLimitsRequiredProblem,
)
from wallet.services import MAX_AMOUNT

MAX_DURATION_MINUTES = 1440
SESSION_ACTOR = Actor.system("player-protection")


def reality_check_interval(player: Player) -> timedelta | None:
    """The interval of the player's reality checks now: their operator's choice within its
    profile, else the profile's default (None: none)."""
    operator = player.operator
    return operator.protection_profile.reality_check_interval(operator.reality_check_minutes)


# The session's limits, said to the player when one is missing or not a whole number.
_LIMIT_REQUIRED = {
    "duration_minutes": gettext_lazy("Choose how long this session lasts: both limits are asked."),
    "loss_limit": gettext_lazy("Choose this session's loss limit: both limits are asked."),
}
_LIMIT_WHOLE = {
    "duration_minutes": gettext_lazy("A session's duration is a whole number of minutes."),
    "loss_limit": gettext_lazy("A loss limit is a whole amount in the wallet's smallest unit."),
}


def _limits_check(
    *, player: Player, duration_minutes: object, loss_limit: object
) -> tuple[int | None, int | None]:
    required = player.operator.protection_profile.session_limits_required
    for field, value in (("duration_minutes", duration_minutes), ("loss_limit", loss_limit)):
        if value is None:
            if required:
                raise SessionLimitsInvalidProblem(str(_LIMIT_REQUIRED[field]), field=field)
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise SessionLimitsInvalidProblem(str(_LIMIT_WHOLE[field]), field=field)
    if duration_minutes is not None and not 1 <= duration_minutes <= MAX_DURATION_MINUTES:  # type: ignore[operator]
        raise SessionLimitsInvalidProblem(
            gettext("A session lasts between 1 and %(maximum)s minutes.")
            % {"maximum": number_text(MAX_DURATION_MINUTES)},
            field="duration_minutes",
        )
    if loss_limit is not None and not 0 < loss_limit <= MAX_AMOUNT:  # type: ignore[operator]
        raise SessionLimitsInvalidProblem(
            gettext("The loss limit must be a positive amount."), field="loss_limit"
        )
    return duration_minutes, loss_limit  # type: ignore[return-value]


def _session_create(*, player: Player, now: datetime) -> PlaySession:
    interval = reality_check_interval(player)
    return PlaySession.objects.create(
        player=player,
        operator_id=player.operator_id,
        jurisdiction=player.operator.jurisdiction,
        currency=player.wallet_currency,
        started_at=now,
        last_active_at=now,
        reality_check_minutes=None if interval is None else int(interval.total_seconds() // 60),
        next_reality_check_at=None if interval is None else now + interval,
    )


def _started(session: PlaySession, *, actor: Actor) -> None:
    """The audit row and the ``session.started`` webhook of a new session."""
    limits = {
        "duration_minutes": session.duration_limit_minutes,
        "loss_limit": session.loss_limit,
    }
    audit_record(
        actor=actor,
        action="play_session.started",
        obj=session,
        operator=session.operator,
        data={"player": str(session.player_id), **limits},
    )
    webhook_enqueue(
        operator=session.operator,
        event_type="session.started",
        data={
            **player_ref(session.player),
            "session_id": session.pk,
            "started_at": session.started_at,
            "duration_limit_minutes": session.duration_limit_minutes,
            "loss_limit": None
            if session.loss_limit is None
            else money_dict(session.loss_limit, session.currency),
            "reality_check_minutes": session.reality_check_minutes,
        },
    )


@transaction.atomic
def session_start(
    *,
    player: Player,
    duration_minutes: int | None,
    loss_limit: int | None,
    actor: Actor,
) -> PlaySession:
    """The player sets their session's limits before it starts (``POST /me/play-session``):
    a new session, or the open one while it has not bought in yet. A session that has bought in
    keeps its limits (``session-active``)."""
    duration, loss = _limits_check(
        player=player, duration_minutes=duration_minutes, loss_limit=loss_limit
    )
    now = timezone.now()
    session = lock_open_session(player_id=player.pk)
    if session is not None and (
        session.first_buy_in_at is not None or session.limits_set_at is not None
    ):
        raise SessionActiveProblem(
            gettext("Your session has started: end it before you start another."),
            session_id=session.pk,
        )
    fresh = session is None
    if session is None:
        try:
            with transaction.atomic():
                session = _session_create(player=player, now=now)
        except IntegrityError:  # a buy-in's session started at the same moment
            raise SessionActiveProblem(
                gettext("A session has just started: end it first.")
            ) from None
    session.duration_limit_minutes = duration
    session.loss_limit = loss
    session.limits_set_at = now
    session.save(update_fields=["duration_limit_minutes", "loss_limit", "limits_set_at"])
    if fresh:
        _started(session, actor=actor)
    else:
        audit_record(
            actor=actor,
            action="play_session.limits_set",
            obj=session,
            operator=session.operator,
            data={"duration_minutes": duration, "loss_limit": loss},
        )
    return session


def session_for_buy_in(*, player: Player, now: datetime) -> PlaySession:
    """The session a real-money buy-in belongs to, locked: the player's open session, or a
    new one where the profile does not ask for limits first (``session-limits-required``
    otherwise). Inside the caller's transaction (games' seating, the table locked)."""
    session = lock_open_session(player_id=player.pk)
    required = player.operator.protection_profile.session_limits_required
    if session is None:
        if required:
            raise SessionLimitsRequiredProblem(
                gettext("Choose this session's duration and loss limit before you sit down.")
            )
        try:
            with transaction.atomic():
                session = _session_create(player=player, now=now)
            _started(session, actor=SESSION_ACTOR)
        except IntegrityError:  # the player's buy-in at another table started it just now
            session = lock_open_session(player_id=player.pk)
            if session is None:  # pragma: no cover - the constraint names an open session
                raise
    elif required and session.limits_set_at is None:
        raise SessionLimitsRequiredProblem(
            gettext("Choose this session's duration and loss limit before you sit down.")
        )
    fields = ["last_active_at"]
    session.last_active_at = now
    if session.first_buy_in_at is None:
        session.first_buy_in_at = now
        fields.append("first_buy_in_at")
    session.save(update_fields=fields)
    return session

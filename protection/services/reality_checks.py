"""Reality checks (docs/player-protection.md "Reality checks"): due every interval of the
player's profile, shown once across all their tables at the first turn boundary after
that (or at once by the sweep when they are not playing), answered ``continue`` or
``end_session``. Showing one touches no table (games calls it with a match locked);
the answer's effect at the tables is ``protection.services.endings``'s.
"""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from django.db import transaction

from gin_platform.audit import audit_record
from gin_platform.events.catalogue import player_ref
from gin_platform.events.webhooks import webhook_enqueue
from gin_platform.money import money_dict
from protection import selectors
from protection.locks import lock_open_session
from protection.models import RealityCheck
from protection.services.sessions import SESSION_ACTOR


@transaction.atomic
def reality_check_show(*, player_id: UUID, now: datetime) -> tuple[RealityCheck | None, bool]:
    """The player's reality check to show now: the one waiting for an answer, or a new one
    if the session's is due (``True``: shown just now, audited, ``session.reality_check``
    sent); (None, False) when none is due."""
    session = lock_open_session(player_id=player_id)
    if session is None:
        return None, False
    waiting = selectors.reality_check_waiting(session=session)
    if waiting is not None:
        return waiting, False
    due = session.next_reality_check_at
    if due is None or due > now:
        return None, False
    figures = selectors.session_figures(session=session, now=now)
    check = RealityCheck.objects.create(
        session=session,
        player_id=session.player_id,
        due_at=due,
        shown_at=now,
        elapsed_seconds=int(figures.elapsed.total_seconds()),
        net_position=figures.net_position,
        currency=session.currency,
    )
    session.next_reality_check_at = None  # the next is counted from the answer
    session.save(update_fields=["next_reality_check_at"])
    audit_record(
        actor=SESSION_ACTOR,
        action="reality_check.shown",
        obj=check,
        operator=session.operator,
        data={
            "session": session.pk,
            "due_at": due.isoformat(),
            "elapsed_seconds": check.elapsed_seconds,
            "net_position": check.net_position,
        },
    )
    webhook_enqueue(
        operator=session.operator,
        event_type="session.reality_check",
        data={
            **player_ref(session.player),
            "session_id": session.pk,
            "reality_check_id": check.pk,
            "due_at": due,
            "shown_at": now,
            "elapsed_seconds": check.elapsed_seconds,
            "net_position": money_dict(check.net_position, check.currency),
        },
    )
    return check, True

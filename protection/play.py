"""What games asks player protection, from the seating and move paths
(docs/player-protection.md): may this player buy in now (and up to what loss), which
reality checks are due at a table, and a due one shown at a turn boundary. It imports no
games: games imports it, with a table's or a match's lock held.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from django.db.models import OuterRef, Subquery
from django.utils import timezone
from django.utils.translation import gettext

from gin_platform.models import Player
from protection import selectors
from protection.api.presenters import reality_check_dict, session_context
from protection.models import PlaySession, RealityCheck
from protection.problems import SessionLimitReachedProblem, SessionLimitsRequiredProblem
from protection.services.reality_checks import reality_check_show
from protection.services.sessions import session_for_buy_in
from wallet.services import SessionLossLimit


def _refusal(session: PlaySession | None, player: Player, now: datetime) -> None:
    if session is None:
        if player.operator.protection_profile.session_limits_required:
            raise SessionLimitsRequiredProblem(
                gettext("Choose this session's duration and loss limit before you sit down.")
            )
        return
    if session.state == PlaySession.State.LIMIT_REACHED:
        raise SessionLimitReachedProblem(
            gettext("This session's loss limit is reached: it takes no new buy-in.")
            if session.limit_reached == "loss"
            else gettext("This session's duration limit is reached: it takes no new buy-in."),
            limit=session.limit_reached,
        )
    ends = session.duration_ends_at
    if ends is not None and ends <= now:
        raise SessionLimitReachedProblem(
            gettext("This session's duration limit is reached: it takes no new buy-in."),
            limit="duration",
        )


def buy_in_check(*, player: Player) -> None:
    """May ``player`` buy in for real money now? Raises ``session-limits-required`` or
    ``session-limit-reached``; reads only (the waiting list's join, a seamless debit's
    first check)."""
    now = timezone.now()
    session = selectors.session_open(player_id=player.pk)
    _refusal(session, player, now)
    if (
        session is not None
        and player.operator.protection_profile.session_limits_required
        and session.limits_set_at is None
    ):
        raise SessionLimitsRequiredProblem(
            gettext("Choose this session's duration and loss limit before you sit down.")
        )


def buy_in_session(*, player: Player) -> SessionLossLimit | None:
    """A real-money buy-in is about to be posted: its play session (started now where the
    profile allows), checked and locked; the session's loss limit for the wallet to check
    under its lock (None: no limit). Inside the seating's transaction."""
    now = timezone.now()
    session = session_for_buy_in(player=player, now=now)  # locked: checked as it stands
    _refusal(session, player, now)
    if session.loss_limit is None:
        return None
    return SessionLossLimit(since=session.started_at, limit=session.loss_limit)


def wallet_context(*, player: Player) -> dict[str, Any]:
    """What a seamless debit carries as ``context``: the player's session and any reality
    check waiting (docs/player-protection.md "Reality checks"); empty without a session."""
    session = selectors.session_open(player_id=player.pk)
    if session is None:
        return {}
    return session_context(selectors.session_figures(session=session))


def reality_checks_due(*, player_ids: Iterable[UUID]) -> dict[UUID, datetime | None]:
    """When each player's next reality check is due (None: none): one read, at a hand's
    deal. A check shown and not answered yet counts as due (its table pauses the clock)."""
    ids = list(player_ids)
    due: dict[UUID, datetime | None] = dict.fromkeys(ids)
    waiting = RealityCheck.objects.filter(session=OuterRef("pk"), answered_at__isnull=True).values(
        "due_at"
    )[:1]
    rows = (
        PlaySession.objects.filter(player_id__in=ids, ended_at__isnull=True)
        .annotate(waiting_due=Subquery(waiting))
        .values_list("player_id", "next_reality_check_at", "waiting_due")
    )
    for player_id, next_at, waiting_due in rows:
        due[player_id] = waiting_due or next_at
    return due


@dataclass(frozen=True)
class BoundaryCheck:
    """A player's reality check at a turn boundary: the one shown (``shown``: its push,
    ``new``: shown just now), or when the next is due (``shown`` None)."""

    shown: dict[str, Any] | None
    new: bool
    next_due: datetime | None


def reality_check_at_boundary(*, player_id: UUID, now: datetime) -> BoundaryCheck:
    """A table's snapshot says ``player_id``'s reality check is due: show it now (if it
    really is, once across all their tables), or say when it is due. Rare: the move path
    reads the session only when its snapshot says so."""
    check, new = reality_check_show(player_id=player_id, now=now)
    if check is None:
        session = selectors.session_open(player_id=player_id)
        return BoundaryCheck(
            shown=None,
            new=False,
            next_due=None if session is None else session.next_reality_check_at,
        )
    return BoundaryCheck(shown=reality_check_dict(check), new=new, next_due=check.due_at)

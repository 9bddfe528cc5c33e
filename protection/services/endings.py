"""How a play session ends, and what that does at the player's tables
(docs/player-protection.md "Sessions", "At the table"):

- ``reality_check_answer``: ``continue`` (the next check is due one interval later) or
  ``end_session``;
- ``session_end``: the player's (from the API or a reality check), a reached limit where
  the profile ends the session, a break, or idle;
- ``session_limit_reach``: the duration or loss limit reached: no new buy-in, the
  ``session.limit_reached`` event, and the session ended where the profile says so.

The session's row is locked and written in one transaction; the tables follow after its
commit, each under its own match lock (``games.services``: a paused clock runs on, a match
stops after its hand under an ``end_of_hand`` profile), never inside the session's lock.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from games import services as games
from games import session_selectors as games_selectors
from games.realtime.publisher import player_message
from gin_platform.audit import audit_record
from gin_platform.enqueue import on_commit_logged
from gin_platform.events.catalogue import player_ref
from gin_platform.events.webhooks import webhook_enqueue
from gin_platform.models import Player
from gin_platform.money import money_dict
from gin_platform.tenancy.jurisdictions import END_OF_HAND
from gin_platform.tenancy.principals import Actor
from protection import selectors
from protection.api.presenters import session_dict
from protection.locks import lock_open_session, lock_session
from protection.models import EndReason, PlaySession, RealityCheck
from protection.problems import RealityCheckNotOpenProblem
from protection.services.sessions import SESSION_ACTOR, reality_check_interval


def _tables_after_commit(*, player: Player, next_due: datetime | None, stop: str) -> None:
    """After the commit: the player's paused clocks run on; ``stop`` (an end reason, or
    "") takes them from the real-money tables still waiting for players (their buy-ins
    refunded) and stops their running matches after the hand in play."""
    player_id = player.pk

    def follow() -> None:
        games.reality_check_closed(player_id=player_id, next_due=next_due)
        if stop:
            for table in games_selectors.player_waiting_tables(player=player):
                games.seat_leave(
                    player=player, table=table, actor=games.PROTECTION_ACTOR, waiting_only=True
                )
            games.stop_after_hand(player_id=player_id, reason=stop)

    on_commit_logged(follow, what=f"the tables of player {player_id} after their session")


def _push_session(session: PlaySession) -> None:
    message = {
        "type": "play_session",
        "play_session": session_dict(selectors.session_figures(session=session)),
    }
    player_message(player_id=session.player_id, message=message)


def _end(session: PlaySession, *, reason: str, actor: Actor, now: datetime) -> PlaySession:
    """End the locked ``session`` (its figures frozen), with its audit row, webhook and
    push; the tables follow after the commit."""
    session.final_net = selectors.net_position(session=session)
    session.state = PlaySession.State.ENDED
    session.ended_at = now
    session.end_reason = reason
    session.next_reality_check_at = None
    session.save(
        update_fields=["final_net", "state", "ended_at", "end_reason", "next_reality_check_at"]
    )
    audit_record(
        actor=actor,
        action="play_session.ended",
        obj=session,
        operator=session.operator,
        data={"reason": reason, "net_position": session.final_net},
    )
    webhook_enqueue(
        operator=session.operator,
        event_type="session.ended",
        data={
            **player_ref(session.player),
            "session_id": session.pk,
            "reason": reason,
            "started_at": session.started_at,
            "ended_at": now,
            "net_position": money_dict(session.final_net, session.currency),
        },
    )
    _push_session(session)
    # A session ended by the player or a reached limit stops their games as the profile
    # says; idle sessions hold no seat, and a break leaves the game in progress be.
    profile = session.operator.protection_profile
    stop = (
        reason
        if profile.limit_reached == END_OF_HAND
        and reason in (EndReason.PLAYER, EndReason.DURATION_LIMIT, EndReason.LOSS_LIMIT)
        else ""
    )
    _tables_after_commit(player=session.player, next_due=None, stop=stop)
    return session


@transaction.atomic
def session_end(
    *, player: Player, reason: str = EndReason.PLAYER, actor: Actor
) -> PlaySession | None:
    """End the player's open session (None: there was none)."""
    session = lock_open_session(player_id=player.pk)
    if session is None:
        return None
    return _end(session, reason=reason, actor=actor, now=timezone.now())


@transaction.atomic
def reality_check_answer(
    *, player: Player, check: RealityCheck, answer: str, actor: Actor
) -> RealityCheck:
    """The player answers their reality check: ``continue`` (the next one is due an
    interval from now; their paused clocks run on) or ``end_session``. Once
    (``reality-check-not-open``)."""
    session = lock_session(session_id=check.session_id)
    check.refresh_from_db()
    if check.answered_at is not None or session.ended_at is not None:
        raise RealityCheckNotOpenProblem(
            gettext("This reality check is already answered."),
            reality_check_id=check.pk,
        )
    now = timezone.now()
    check.answer = answer
    check.answered_at = now
    check.save(update_fields=["answer", "answered_at"])
    audit_record(
        actor=actor,
        action="reality_check.answered",
        obj=check,
        operator=session.operator,
        data={"session": session.pk, "answer": answer},
    )
    if answer == RealityCheck.Answer.END_SESSION:
        _end(session, reason=EndReason.PLAYER, actor=actor, now=now)
        return check
    interval = reality_check_interval(player)
    session.next_reality_check_at = None if interval is None else now + interval
    session.save(update_fields=["next_reality_check_at"])
    _push_session(session)
    _tables_after_commit(player=session.player, next_due=session.next_reality_check_at, stop="")
    return check


@transaction.atomic
def session_limit_reach(*, session_id: int, limit: str, now: datetime | None = None) -> bool:
    """The session's ``limit`` (``duration`` or ``loss``) is reached: no new buy-in, the
    ``session.limit_reached`` event, and where the profile says so the session ends (its
    games stop as the profile says). False if it was reached or ended already."""
    now = now or timezone.now()
    session = lock_session(session_id=session_id)
    if session.state != PlaySession.State.OPEN:
        return False
    session.state = PlaySession.State.LIMIT_REACHED
    session.limit_reached = limit
    session.limit_reached_at = now
    session.save(update_fields=["state", "limit_reached", "limit_reached_at"])
    net = selectors.net_position(session=session)
    audit_record(
        actor=SESSION_ACTOR,
        action="play_session.limit_reached",
        obj=session,
        operator=session.operator,
        data={"limit": limit, "net_position": net},
    )
    webhook_enqueue(
        operator=session.operator,
        event_type="session.limit_reached",
        data={
            **player_ref(session.player),
            "session_id": session.pk,
            "limit": limit,
            "reached_at": now,
            "elapsed_seconds": int(selectors.elapsed(session=session, now=now).total_seconds()),
            "net_position": money_dict(net, session.currency),
            "session_ended": session.operator.protection_profile.session_ends_on_limit,
        },
    )
    reason = EndReason.DURATION_LIMIT if limit == "duration" else EndReason.LOSS_LIMIT
    if session.operator.protection_profile.session_ends_on_limit:
        _end(session, reason=reason, actor=SESSION_ACTOR, now=now)
    else:
        _push_session(session)
        if session.operator.protection_profile.limit_reached == END_OF_HAND:
            _tables_after_commit(player=session.player, next_due=None, stop=reason)
    return True

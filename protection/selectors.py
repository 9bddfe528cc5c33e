"""Reads of player protection: a player's play session, its figures (elapsed time and net
position, from the ledger through wallet's selectors) and its reality checks."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from django.db.models import QuerySet
from django.utils import timezone

from gin_platform.models import Player
from protection.models import PlaySession, RealityCheck
from wallet.selectors.balances import wallet_account
from wallet.selectors.limits import PlayNet, play_net_since


def session_open(*, player_id: UUID) -> PlaySession | None:
    """The player's session not ended yet (at most one, a database constraint), or None."""
    return PlaySession.objects.filter(player_id=player_id, ended_at__isnull=True).first()


def session_list(*, player: Player) -> QuerySet[PlaySession]:
    return PlaySession.objects.filter(player=player).order_by("-started_at", "-pk")


def session_get(*, player: Player, session_id: int) -> PlaySession | None:
    return PlaySession.objects.filter(player=player, pk=session_id).first()


def play_net(*, session: PlaySession) -> PlayNet:
    """The session's play since it began (wallet's ``PlayNet``): the games over
    (``settled``) and the stakes still at tables (``in_play``)."""
    account = wallet_account(player=session.player, currency=session.currency)
    return play_net_since(account=account, since=session.started_at)


def net_position(*, session: PlaySession) -> int:
    """Wins minus losses of the session's games that are over, in minor units of its
    wallet currency (positive: the player is up); the stakes at tables now are shown
    beside it (``SessionFigures.in_play``). Once the session ended, the figure it ended
    with."""
    if session.final_net is not None:
        return session.final_net
    return play_net(session=session).settled


def elapsed(*, session: PlaySession, now: datetime | None = None) -> timedelta:
    end = session.ended_at or now or timezone.now()
    return max(end - session.started_at, timedelta(0))


def reality_check_waiting(*, session: PlaySession) -> RealityCheck | None:
    """The session's reality check shown and not answered yet, or None."""
    return RealityCheck.objects.filter(session=session, answered_at__isnull=True).first()


def reality_check_get(*, player: Player, check_id: int | None) -> RealityCheck | None:
    if check_id is None:
        return None
    return RealityCheck.objects.filter(player=player, pk=check_id).select_related("session").first()


@dataclass(frozen=True)
class SessionFigures:
    """A session as the player, their operator and a reality check see it."""

    session: PlaySession
    elapsed: timedelta
    net_position: int  # the games over
    in_play: int  # stakes at tables now (0 or more)
    reality_check: RealityCheck | None


def session_figures(*, session: PlaySession, now: datetime | None = None) -> SessionFigures:
    if session.final_net is not None:
        net, in_play = session.final_net, 0
    else:
        play = play_net(session=session)
        net, in_play = play.settled, -play.in_play
    return SessionFigures(
        session=session,
        elapsed=elapsed(session=session, now=now),
        net_position=net,
        in_play=in_play,
        reality_check=None if session.ended_at else reality_check_waiting(session=session),
    )


def sessions_open() -> QuerySet[PlaySession]:
    return PlaySession.objects.filter(ended_at__isnull=True)


def sessions_past_duration(*, now: datetime) -> list[PlaySession]:
    """Open sessions whose duration limit has run out (the sweep marks them reached)."""
    candidates = PlaySession.objects.filter(
        ended_at__isnull=True,
        state=PlaySession.State.OPEN,
        duration_limit_minutes__isnull=False,
        started_at__lte=now - timedelta(minutes=1),
    )
    return [s for s in candidates if s.duration_ends_at is not None and s.duration_ends_at <= now]


def sessions_with_loss_limit() -> QuerySet[PlaySession]:
    """Open sessions with a loss limit that have bought in (the sweep checks each)."""
    return PlaySession.objects.filter(
        ended_at__isnull=True,
        state=PlaySession.State.OPEN,
        loss_limit__isnull=False,
        first_buy_in_at__isnull=False,
    ).select_related("player")


def sessions_check_due(*, now: datetime) -> QuerySet[PlaySession]:
    """Open sessions whose reality check is due and not shown yet."""
    return PlaySession.objects.filter(
        ended_at__isnull=True, next_reality_check_at__lte=now
    ).select_related("player")


def sessions_idle(*, before: datetime) -> QuerySet[PlaySession]:
    """Open sessions without a buy-in or a move since ``before`` (the sweep asks games
    whether their player still holds a seat)."""
    return PlaySession.objects.filter(ended_at__isnull=True, last_active_at__lt=before)

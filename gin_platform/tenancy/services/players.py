"""Players and their sessions: creating and updating a player, opening and revoking a
player session (the bearer token a player's client sends)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from gin_platform.audit import audit_changes, audit_record
from gin_platform.http.problems import Problem
from gin_platform.locks import lock_player, lock_player_session
from gin_platform.models import Operator, Player, PlayerSession
from gin_platform.tenancy.principals import Actor
from gin_platform.tenancy.services.operators import real_currency
from gin_platform.tenancy.signals import identifiers_announce
from gin_platform.tenancy.tokens import new_player_token


class PlayerExistsProblem(Problem):
    slug = "player-exists"
    status = 409
    title = _("A player with this external_ref already exists")


class PlayerInactiveProblem(Problem):
    slug = "player-inactive"
    status = 409
    title = _("The player is not active")


class SessionTtlProblem(Problem):
    slug = "session-ttl-out-of-range"
    status = 422
    title = _("Session lifetime out of range")


@dataclass(frozen=True)
class IssuedPlayerSession:
    session: PlayerSession
    token: str  # returned once, never stored


def player_create(
    *,
    operator: Operator,
    external_ref: str,
    wallet_currency: str | None = None,
    display_currency: str | None = None,
    locale: str = "en",
    display_name: str = "",
    kyc_status: str = Player.KycStatus.NONE,
    actor: Actor,
) -> Player:
    wallet = real_currency(wallet_currency or operator.base_currency, field="wallet_currency")
    display = real_currency(display_currency or wallet, field="display_currency")
    try:
        with transaction.atomic():
            player = Player.objects.create(
                operator=operator,
                external_ref=external_ref,
                wallet_currency=wallet,
                display_currency=display,
                locale=locale,
                display_name=display_name,
                kyc_status=kyc_status,
            )
            audit_record(
                actor=actor,
                action="player.created",
                obj=player,
                operator=operator,
                data={"external_ref": external_ref, "wallet_currency": wallet},
            )
    except IntegrityError as exc:
        raise PlayerExistsProblem(
            f"external_ref {external_ref!r} is already used by a player of this operator"
        ) from exc
    return player


@transaction.atomic
def player_update(
    *,
    player: Player,
    actor: Actor,
    display_currency: str | None = None,
    locale: str | None = None,
    display_name: str | None = None,
    status: str | None = None,
    kyc_status: str | None = None,
) -> Player:
    locked = lock_player(player.pk)
    new_values = {
        "display_currency": (
            real_currency(display_currency, field="display_currency")
            if display_currency is not None
            else None
        ),
        "locale": locale,
        "display_name": display_name,
        "status": status,
        "kyc_status": kyc_status,
    }
    audit_changes(
        obj=locked,
        values=new_values,
        actor=actor,
        action="player.updated",
        operator=locked.operator,
    )
    return locked


@transaction.atomic
def player_session_create(
    *,
    player: Player,
    ttl_seconds: int | None = None,
    actor: Actor,
    lang: str = "",
    device_id: str | None = None,
    client_address: str | None = None,
) -> IssuedPlayerSession:
    """A player session (its token shown once); ``lang``, a shipped language or "", is
    the one its game launch asked for. ``device_id`` and ``client_address``, as the
    operator saw them, may link the player to others (``identifiers_seen``); neither is
    stored here."""
    ttl = ttl_seconds if ttl_seconds is not None else settings.PLAYER_SESSION_DEFAULT_TTL_SECONDS
    if not 60 <= ttl <= settings.PLAYER_SESSION_MAX_TTL_SECONDS:
        raise SessionTtlProblem(
            f"ttl_seconds must be between 60 and {settings.PLAYER_SESSION_MAX_TTL_SECONDS}"
        )
    if not player.is_active:
        raise PlayerInactiveProblem(f"player {player.external_ref} is {player.status}")
    token, token_hash = new_player_token()
    session = PlayerSession.objects.create(
        player=player,
        token_hash=token_hash,
        expires_at=timezone.now() + timedelta(seconds=ttl),
        lang=lang,
    )
    audit_record(
        actor=actor,
        action="player_session.created",
        obj=session,
        operator=player.operator,
        data={"player": str(player.pk), "ttl_seconds": ttl},
    )
    identifiers_announce(
        player=player,
        source=f"operator:{player.operator_id}",
        device_id=device_id,
        address=client_address,
    )
    return IssuedPlayerSession(session=session, token=token)


@transaction.atomic
def player_session_revoke(*, session: PlayerSession, actor: Actor) -> PlayerSession:
    locked = lock_player_session(session.pk)
    if locked.revoked_at is None:
        locked.revoked_at = timezone.now()
        locked.save(update_fields=["revoked_at"])
        audit_record(
            actor=actor,
            action="player_session.revoked",
            obj=locked,
            operator=player_operator(locked),
        )
    return locked


def player_operator(session: PlayerSession) -> Operator:
    """The operator of the session's player (the audit row's tenant)."""
    return session.player.operator

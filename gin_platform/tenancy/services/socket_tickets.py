"""Socket tickets (docs/realtime.md "Tickets"): a single-use ticket a player's session mints
to open one socket, or an operator's API key mints to open one watching socket (a
tournament's bracket), redeemed once by the socket consumer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from gin_platform.audit import audit_record
from gin_platform.http.problems import SocketTicketInvalidProblem
from gin_platform.models import AuditEvent, OperatorApiKey, PlayerSession, SocketTicket
from gin_platform.tenancy.principals import Actor, OperatorPrincipal, PlayerPrincipal
from gin_platform.tenancy.selectors import api_key_in_force
from gin_platform.tenancy.services.launch import claim_once
from gin_platform.tenancy.services.players import player_operator
from gin_platform.tenancy.signals import identifiers_announce
from gin_platform.tenancy.tokens import SOCKET_TICKET_PREFIX, hash_secret, new_socket_ticket


@dataclass(frozen=True)
class IssuedSocketTicket:
    socket_ticket: SocketTicket
    ticket: str  # returned once, never stored


@transaction.atomic
def socket_ticket_create(
    *, session: PlayerSession, actor: Actor, client_address: str | None = None
) -> IssuedSocketTicket:
    """A ticket that opens one socket for the session's player within
    SOCKET_TICKET_TTL_SECONDS (and only while the session stays valid). ``client_address``
    is the address the platform saw the request come from (``identifiers_seen``)."""
    ticket, token_hash = new_socket_ticket()
    now = timezone.now()
    socket_ticket = SocketTicket.objects.create(
        player_id=session.player_id,
        session=session,
        token_hash=token_hash,
        created_at=now,
        expires_at=now + timedelta(seconds=settings.SOCKET_TICKET_TTL_SECONDS),
    )
    audit_record(
        actor=actor,
        action="socket_ticket.created",
        obj=socket_ticket,
        operator=player_operator(session),
        data={"player": str(session.player_id), "session": session.pk},
    )
    identifiers_announce(player=session.player, source="platform", address=client_address)
    return IssuedSocketTicket(socket_ticket=socket_ticket, ticket=ticket)


@transaction.atomic
def operator_socket_ticket_create(*, api_key: OperatorApiKey, actor: Actor) -> IssuedSocketTicket:
    """A ticket that opens one watching socket for ``api_key``'s operator within
    SOCKET_TICKET_TTL_SECONDS, while the key is in force: a socket that only shows what the
    operator may read over REST (a tournament's bracket, named as the operator sees it)."""
    ticket, token_hash = new_socket_ticket()
    now = timezone.now()
    socket_ticket = SocketTicket.objects.create(
        api_key=api_key,
        token_hash=token_hash,
        created_at=now,
        expires_at=now + timedelta(seconds=settings.SOCKET_TICKET_TTL_SECONDS),
    )
    audit_record(
        actor=actor,
        action="socket_ticket.created",
        obj=socket_ticket,
        operator=api_key.operator,
        data={"api_key": api_key.prefix},
    )
    return IssuedSocketTicket(socket_ticket=socket_ticket, ticket=ticket)


@transaction.atomic
def socket_ticket_redeem(*, ticket: str) -> PlayerPrincipal:
    """Redeem a player's socket ticket, once: the player (with their operator) and the
    session that minted it, for the socket consumer (a sync function: call it through
    ``database_sync_to_async``).

    Missing, unknown, used or expired tickets, a session revoked or expired since, an
    inactive player or operator, and an operator's ticket (it opens a watching socket only,
    ``watch_socket_ticket_redeem``) are all ``socket-ticket-invalid`` (401, close 4401) with
    one message that does not say which. Single use is one conditional UPDATE: of two
    sockets racing with the same ticket exactly one opens.
    """
    principal = _redeem(ticket)
    if not isinstance(principal, PlayerPrincipal):
        raise _refused()
    return principal


@transaction.atomic
def watch_socket_ticket_redeem(*, ticket: str) -> PlayerPrincipal | OperatorPrincipal:
    """Redeem a ticket for a socket that only watches: a player's, as
    ``socket_ticket_redeem``, or an operator's (its API key still in force, the operator
    active); refused alike otherwise."""
    return _redeem(ticket)


def _refused() -> SocketTicketInvalidProblem:
    return SocketTicketInvalidProblem("The socket ticket is not valid, was used or expired")


def _redeem(ticket: str) -> PlayerPrincipal | OperatorPrincipal:
    refused = _refused()
    if not isinstance(ticket, str) or not ticket.startswith(SOCKET_TICKET_PREFIX + "_"):
        raise refused
    token_hash = hash_secret(ticket)
    if not claim_once(SocketTicket, token_hash):
        raise refused
    row = SocketTicket.objects.select_related(
        "session", "player__operator", "api_key__operator"
    ).get(token_hash=token_hash)
    if row.api_key is not None:
        api_key = row.api_key
        if not api_key_in_force(api_key):
            raise refused
        principal = OperatorPrincipal(operator=api_key.operator, api_key=api_key)
        audit_record(
            actor=principal.actor,
            action="socket_ticket.redeemed",
            obj=row,
            operator=api_key.operator,
            data={"api_key": api_key.prefix},
        )
        return principal
    player, session = row.player, row.session
    assert player is not None and session is not None  # the table's check: one or the other
    if (
        not session.is_valid_at(timezone.now())
        or not player.is_active
        or not player.operator.is_active
    ):
        raise refused
    audit_record(
        actor=Actor(AuditEvent.ActorType.PLAYER, str(player.pk)),
        action="socket_ticket.redeemed",
        obj=row,
        operator=player.operator,
        data={"session": session.pk},
    )
    session.player = player  # the same object, operator loaded: no query when read
    return PlayerPrincipal(player=player, session=session)

"""Socket tickets (docs/realtime.md "Tickets"): a player mints one over REST; the socket
consumer redeems it once, within 30 seconds, while the session that minted it is valid. An
operator mints one with its API key that opens only a socket that watches (a tournament's
bracket), while the key is in force."""

import logging
from datetime import UTC, datetime

import pytest
from rest_framework.test import APIClient

from gin_platform.http.problems import SocketTicketInvalidProblem
from gin_platform.http.throttling import PrincipalRateThrottle
from gin_platform.models import (
    AuditEvent,
    Operator,
    OperatorApiKey,
    Player,
    PlayerSession,
    SocketTicket,
)
from gin_platform.redaction import WithholdSecretsFilter
from gin_platform.tasks import prune_expired_records
from gin_platform.tenancy.principals import OperatorPrincipal, PlayerPrincipal
from gin_platform.tenancy.services import (
    expired_records_prune,
    operator_socket_ticket_create,
    player_session_create,
    player_session_revoke,
    socket_ticket_create,
    socket_ticket_redeem,
    watch_socket_ticket_redeem,
)
from gin_platform.tenancy.tokens import hash_secret
from tests.factories import SYSTEM, PlayerFactory
from tests.helpers import assert_problem, freeze_now
from tests.races import race

pytestmark = pytest.mark.django_db
TICKETS = "/api/v1/socket-tickets"
T0 = datetime(2026, 11, 30, 16, 0, tzinfo=UTC)


@pytest.fixture
def session(player) -> PlayerSession:
    return player_session_create(player=player, actor=SYSTEM).session


def ticket_for(session: PlayerSession) -> str:
    return socket_ticket_create(session=session, actor=SYSTEM).ticket


def refused(ticket) -> str:
    with pytest.raises(SocketTicketInvalidProblem) as problem:
        socket_ticket_redeem(ticket=ticket)
    assert problem.value.status == 401
    return problem.value.detail


# --- Minting over REST -------------------------------------------------------------------
def test_a_player_mints_a_ticket(player, player_client, monkeypatch, settings):
    freeze_now(monkeypatch, T0)

    response = player_client.post(TICKETS)

    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"ticket", "expires_at", "ttl_seconds"}
    assert body["ticket"].startswith("gst_")
    assert body["ttl_seconds"] == settings.SOCKET_TICKET_TTL_SECONDS == 30
    assert body["expires_at"] == "2026-11-30T16:00:30Z"
    stored = SocketTicket.objects.get()
    assert stored.token_hash == hash_secret(body["ticket"])  # only the hash is stored
    assert stored.player == player and stored.used_at is None
    event = AuditEvent.objects.get(action="socket_ticket.created")
    assert event.actor_type == "player" and event.actor_id == str(player.pk)
    assert body["ticket"] not in str(event.data)


def test_an_operator_mints_a_ticket_that_only_watches(operator, operator_key, operator_client):
    response = operator_client.post(TICKETS)

    assert response.status_code == 201
    ticket = response.json()["ticket"]
    stored = SocketTicket.objects.get()
    assert stored.api_key.operator == operator and stored.player is None
    assert stored.session is None
    event = AuditEvent.objects.get(action="socket_ticket.created")
    assert event.actor_type == "operator" and event.operator == operator
    refused(ticket)  # a player's socket (a match, /ws/v1/me) does not take it
    operator_ticket = operator_socket_ticket_create(api_key=stored.api_key, actor=SYSTEM).ticket
    principal = watch_socket_ticket_redeem(ticket=operator_ticket)
    assert isinstance(principal, OperatorPrincipal)
    assert principal.operator == operator and principal.api_key == stored.api_key
    with pytest.raises(SocketTicketInvalidProblem):
        watch_socket_ticket_redeem(ticket=operator_ticket)  # single use


def test_nobody_else_mints_tickets():
    assert_problem(APIClient().post(TICKETS), 401, "not-authenticated")


def test_an_operators_ticket_dies_with_its_key_or_its_operator(operator, operator_client):
    first, second = (operator_client.post(TICKETS).json()["ticket"] for _ in range(2))
    api_key = SocketTicket.objects.first().api_key
    OperatorApiKey.objects.filter(pk=api_key.pk).update(revoked_at=T0)
    with pytest.raises(SocketTicketInvalidProblem):
        watch_socket_ticket_redeem(ticket=first)
    OperatorApiKey.objects.filter(pk=api_key.pk).update(revoked_at=None)
    Operator.objects.filter(pk=operator.pk).update(status=Operator.Status.SUSPENDED)
    with pytest.raises(SocketTicketInvalidProblem):
        watch_socket_ticket_redeem(ticket=second)


def test_a_watching_socket_takes_a_players_ticket_too(player, session):
    principal = watch_socket_ticket_redeem(ticket=ticket_for(session))
    assert isinstance(principal, PlayerPrincipal) and principal.player == player


def test_minting_is_throttled_like_other_player_calls(player_client, monkeypatch):
    monkeypatch.setitem(PrincipalRateThrottle.THROTTLE_RATES, "player", "2/min")
    statuses = [player_client.post(TICKETS).status_code for _ in range(3)]
    assert statuses == [201, 201, 429]


def test_a_ticket_never_reaches_a_log():
    ticket = "gst_" + "t" * 43
    record = logging.LogRecord(
        "ws", logging.INFO, __file__, 1, "GET /ws?ticket=%s", (ticket,), None
    )
    WithholdSecretsFilter().filter(record)
    assert ticket not in record.getMessage()


# --- Redeeming (the socket consumer) -------------------------------------------------------
def test_a_ticket_opens_one_socket_for_its_player(player, session):
    ticket = ticket_for(session)

    principal = socket_ticket_redeem(ticket=ticket)

    assert isinstance(principal, PlayerPrincipal)
    assert principal.player == player and principal.session == session
    assert principal.operator == player.operator
    assert SocketTicket.objects.get().used_at is not None
    event = AuditEvent.objects.get(action="socket_ticket.redeemed")
    assert event.operator == player.operator and event.actor_id == str(player.pk)
    refused(ticket)  # single use


def test_the_redeemed_principal_reads_its_operator_without_a_query(
    session, django_assert_num_queries
):
    principal = socket_ticket_redeem(ticket=ticket_for(session))
    with django_assert_num_queries(0):
        assert principal.operator.is_active
        assert principal.session.player.operator.pk == principal.operator.pk


def test_an_expired_ticket_is_refused(session, monkeypatch):
    clock = freeze_now(monkeypatch, T0)
    ticket = ticket_for(session)
    clock.advance(seconds=30)
    refused(ticket)
    assert SocketTicket.objects.get().used_at is None


def test_a_ticket_dies_with_its_session(session):
    ticket = ticket_for(session)
    player_session_revoke(session=session, actor=SYSTEM)
    refused(ticket)


def test_a_ticket_of_an_expired_session_is_refused(session, monkeypatch):
    clock = freeze_now(monkeypatch, T0)
    PlayerSession.objects.filter(pk=session.pk).update(expires_at=T0.replace(second=10))
    ticket = ticket_for(session)
    clock.advance(seconds=10)
    refused(ticket)


def test_a_ticket_of_an_inactive_player_or_operator_is_refused(player, session):
    first, second = ticket_for(session), ticket_for(session)
    Player.objects.filter(pk=player.pk).update(status=Player.Status.SUSPENDED)
    refused(first)
    Player.objects.filter(pk=player.pk).update(status=Player.Status.ACTIVE)
    Operator.objects.filter(pk=player.operator_id).update(status=Operator.Status.SUSPENDED)
    refused(second)


def test_every_refusal_reads_the_same(player, session, monkeypatch):
    """Missing, malformed, unknown, used, expired, revoked session: one detail for all, so
    the answer says nothing about which it was."""
    used = ticket_for(session)
    socket_ticket_redeem(ticket=used)
    clock = freeze_now(monkeypatch, T0)
    expired = ticket_for(session)
    clock.advance(minutes=1)
    revoked_session = player_session_create(player=player, actor=SYSTEM).session
    revoked = ticket_for(revoked_session)
    player_session_revoke(session=revoked_session, actor=SYSTEM)

    details = {
        refused(ticket)
        for ticket in ("", None, "gps_" + "x" * 43, "gst_" + "x" * 43, used, expired, revoked)
    }

    assert len(details) == 1


def test_used_and_expired_tickets_are_pruned(session, monkeypatch):
    clock = freeze_now(monkeypatch, T0)
    socket_ticket_redeem(ticket=ticket_for(session))  # used
    ticket_for(session)  # expires at T0 + 30 s
    clock.advance(seconds=20)
    live = socket_ticket_create(session=session, actor=SYSTEM).socket_ticket
    clock.advance(seconds=11)

    assert expired_records_prune() == 2

    assert list(SocketTicket.objects.values_list("pk", flat=True)) == [live.pk]


def test_the_beat_job_prunes_tickets(settings, session):
    assert settings.CELERY_BEAT_SCHEDULE["prune-expired-records"]["task"] == (
        "gin_platform.tasks.prune_expired_records"
    )
    socket_ticket_redeem(ticket=ticket_for(session))
    assert prune_expired_records.delay().get() == 1
    assert not SocketTicket.objects.exists()


# --- Race (PostgreSQL) ---------------------------------------------------------------------
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_racing_redeemers_of_one_ticket_exactly_one_wins():
    session = player_session_create(player=PlayerFactory(), actor=SYSTEM).session
    ticket = ticket_for(session)

    results = race(4, lambda i: socket_ticket_redeem(ticket=ticket))

    assert sum(isinstance(r, PlayerPrincipal) for r in results) == 1
    assert sum(isinstance(r, SocketTicketInvalidProblem) for r in results) == 3
    assert AuditEvent.objects.filter(action="socket_ticket.redeemed").count() == 1

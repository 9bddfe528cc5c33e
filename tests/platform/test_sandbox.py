"""The sandbox (test mode, docs/api.md "Sandbox"): ``gop_test_`` keys act in a tenant of their
own, the live operator's sandbox twin. A test key never sees or moves live data and a live key
never sees sandbox data, on every operator endpoint (the list is read from the URL resolver, so
a new endpoint fails here until it says how it is scoped); sandbox players withdraw without
KYC; staff reports keep test money out of live totals."""

from __future__ import annotations

import io
import json
import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.db.models import Sum
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from gin_platform.events.webhooks import webhook_enqueue
from gin_platform.http.permissions import IsOperator, IsOperatorOrPlayer, IsPlayer
from gin_platform.http.problems import LaunchTokenInvalidProblem, SocketTicketInvalidProblem
from gin_platform.models import (
    AuditEvent,
    IdempotencyRecord,
    Operator,
    OperatorApiKey,
    OperatorEvent,
    OperatorOrigin,
    OperatorSigningSecret,
    Player,
    PlayerSession,
    WebhookDelivery,
)
from gin_platform.tenancy import services
from gin_platform.tenancy.tokens import hash_secret
from integrity import services as integrity_services
from settlement import services as settlement_services
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory, admin_login
from tests.games.factories import RoomFactory, TableFactory
from tests.games.network_world import network_make, network_room_make
from tests.helpers import bearer_client
from tests.protection.worlds import shown_reality_check
from tests.settlement.helpers import play_out, seat_two
from tests.wallet.factories import fund
from tournaments.services.creation import TournamentOptions, tournament_create
from tournaments.services.registration import entry_register
from wallet.models import Account, LedgerEntry, LedgerTransaction

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

KEYS = "/api/v1/api-keys"
MODES = ("live", "test")


_idempotency = iter(range(1, 10**9))


def idem() -> dict[str, str]:
    return {"HTTP_IDEMPOTENCY_KEY": f"sandbox-test-{next(_idempotency)}"}


# --- Keys, the twin, authentication -----------------------------------------------------------
def test_a_test_key_is_issued_for_the_sandbox_twin_created_on_first_use(operator, operator_client):
    created = operator_client.post(KEYS, {"name": "ci", "mode": "test"}, format="json", **idem())

    assert created.status_code == 201, created.content
    body = created.json()
    assert body["mode"] == "test"
    assert body["key"].startswith(f"gop_test_{body['prefix']}_")
    twin = Operator.objects.get(live_operator=operator)
    assert twin.is_sandbox and twin.base_currency == operator.base_currency
    assert twin.slug == f"{operator.slug}-sandbox" and twin.webhook_secret
    assert twin.webhook_secret != operator.webhook_secret
    assert OperatorApiKey.objects.get(prefix=body["prefix"]).operator == twin
    sandbox_created = AuditEvent.objects.get(action="operator.sandbox_created")
    assert sandbox_created.operator_id == operator.pk
    assert sandbox_created.object_id == str(twin.pk)

    # The test key is the twin: /operators/me says so.
    me = bearer_client(body["key"]).get("/api/v1/operators/me").json()
    assert (me["id"], me["mode"], me["slug"]) == (str(twin.pk), "test", twin.slug)
    assert operator_client.get("/api/v1/operators/me").json()["mode"] == "live"

    # A second test key reuses the twin.
    again = operator_client.post(KEYS, {"mode": "test"}, format="json", **idem())
    assert again.status_code == 201
    assert Operator.objects.filter(live_operator=operator).count() == 1
    assert AuditEvent.objects.filter(action="operator.sandbox_created").count() == 1


def test_live_keys_keep_their_format_and_default_to_live(operator_client):
    body = operator_client.post(KEYS, {"name": "plain"}, format="json", **idem()).json()
    assert body["mode"] == "live"
    assert body["key"].startswith(f"gop_{body['prefix']}_")
    assert not body["key"].startswith("gop_test_")


def test_a_test_key_creates_test_keys_and_can_never_reach_live(operator):
    test_key = services.api_key_create(operator=operator, actor=SYSTEM, mode="test").key
    test_client = bearer_client(test_key)
    keys_before = OperatorApiKey.objects.filter(operator=operator).count()

    for response in (
        test_client.post(KEYS, {"mode": "live"}, format="json", **idem()),
        test_client.get(f"{KEYS}?mode=live"),
    ):
        assert response.status_code == 403
        assert response.json()["type"] == "/problems/live-mode-forbidden"
    assert OperatorApiKey.objects.filter(operator=operator).count() == keys_before

    default = test_client.post(KEYS, {"name": "second"}, format="json", **idem()).json()
    assert default["mode"] == "test" and default["key"].startswith("gop_test_")


def test_a_live_key_lists_and_manages_its_sandbox_keys(operator, operator_client):
    assert operator_client.get(f"{KEYS}?mode=test").json()["results"] == []
    assert not Operator.objects.filter(live_operator=operator).exists()  # a read creates none

    issued = services.api_key_create(operator=operator, name="ci", actor=SYSTEM, mode="test")
    listed = operator_client.get(f"{KEYS}?mode=test").json()["results"]
    assert [(row["prefix"], row["mode"]) for row in listed] == [(issued.api_key.prefix, "test")]
    assert all(row["mode"] == "live" for row in operator_client.get(KEYS).json()["results"])

    # The sandbox's last key: a live key may revoke it (it can always issue another).
    revoked = operator_client.post(f"{KEYS}/{issued.api_key.pk}/revoke", **idem())
    assert revoked.status_code == 200 and revoked.json()["status"] == "revoked"
    assert bearer_client(issued.key).get("/api/v1/operators/me").status_code == 401


def test_a_test_key_cannot_revoke_the_sandboxs_last_key(operator):
    issued = services.api_key_create(operator=operator, actor=SYSTEM, mode="test")
    response = bearer_client(issued.key).post(f"{KEYS}/{issued.api_key.pk}/revoke", **idem())
    assert response.status_code == 409
    assert response.json()["type"] == "/problems/last-api-key"


def test_rotating_a_test_key_issues_a_test_key(operator):
    issued = services.api_key_create(operator=operator, actor=SYSTEM, mode="test")
    rotated = bearer_client(issued.key).post(
        f"{KEYS}/{issued.api_key.pk}/rotate", {}, format="json", **idem()
    )
    assert rotated.status_code == 201
    body = rotated.json()
    assert body["mode"] == "test" and body["key"].startswith(f"gop_test_{body['prefix']}_")
    assert bearer_client(body["key"]).get("/api/v1/operators/me").json()["mode"] == "test"


def test_a_key_authenticates_only_in_its_own_mode(operator):
    live = services.api_key_create(operator=operator, actor=SYSTEM)
    test = services.api_key_create(operator=operator, actor=SYSTEM, mode="test")
    # The same secret with the other mode's shape is not a key (one generic 401).
    live_as_test = "gop_test_" + live.key.removeprefix("gop_")
    test_as_live = "gop_" + test.key.removeprefix("gop_test_")
    for forged in (live_as_test, test_as_live):
        response = bearer_client(forged).get("/api/v1/operators/me")
        assert response.status_code == 401
        assert response.json()["type"] == "/problems/authentication-failed"
    # Even a row whose hash matches a key of the wrong mode is refused.
    OperatorApiKey.objects.filter(pk=test.api_key.pk).update(key_hash=hash_secret(test_as_live))
    assert bearer_client(test_as_live).get("/api/v1/operators/me").status_code == 401


def test_suspending_the_live_operator_stops_its_test_keys_and_sandbox_players(operator):
    test = services.api_key_create(operator=operator, actor=SYSTEM, mode="test")
    twin = test.api_key.operator
    token = services.player_session_create(player=PlayerFactory(operator=twin), actor=SYSTEM).token
    assert bearer_client(test.key).get("/api/v1/operators/me").status_code == 200
    Operator.objects.filter(pk=operator.pk).update(status=Operator.Status.SUSPENDED)
    assert bearer_client(test.key).get("/api/v1/operators/me").status_code == 401
    assert bearer_client(token).get("/api/v1/me/wallet").status_code == 401


def test_suspending_the_live_operator_stops_sandbox_launches_and_socket_tickets(operator):
    """The rule lives in Operator.is_active, so every place that asks it (launch, socket
    tickets, sockets' heartbeats, the wallet) stops a suspended operator's sandbox too."""
    twin = services.sandbox_operator_get_or_create(operator=operator, actor=SYSTEM)
    player = PlayerFactory(operator=twin)
    launch = services.launch_token_create(player=player, actor=SYSTEM)
    session = services.player_session_create(player=player, actor=SYSTEM).session
    ticket = services.socket_ticket_create(session=session, actor=SYSTEM)
    Operator.objects.filter(pk=operator.pk).update(status=Operator.Status.SUSPENDED)
    with pytest.raises(LaunchTokenInvalidProblem):
        services.launch_token_redeem(launch_token=launch.token)
    with pytest.raises(SocketTicketInvalidProblem):
        services.socket_ticket_redeem(ticket=ticket.ticket)
    assert not Operator.objects.get(pk=twin.pk).is_active


def test_the_database_refuses_a_sandbox_without_a_live_operator_and_the_reverse(operator):
    twin = services.sandbox_operator_get_or_create(operator=operator, actor=SYSTEM)
    for bad in (
        {"is_sandbox": True, "live_operator": None},
        {"is_sandbox": False, "live_operator": operator},
    ):
        with pytest.raises(IntegrityError), transaction.atomic():
            Operator.objects.filter(pk=twin.pk).update(**bad)
    with pytest.raises(IntegrityError), transaction.atomic():  # a live one has none
        Operator.objects.filter(pk=operator.pk).update(live_operator=twin)
    with pytest.raises(IntegrityError), transaction.atomic():  # one twin per live operator
        OperatorFactory(is_sandbox=True, live_operator=operator)


def test_the_sandbox_slug_never_takes_a_live_operators(operator):
    OperatorFactory(slug=f"{operator.slug}-sandbox")
    twin = services.sandbox_operator_get_or_create(operator=operator, actor=SYSTEM)
    assert twin.slug.startswith(f"{operator.slug}-sandbox-") and len(twin.slug) <= 64


def test_create_operator_prints_a_test_key_too(db):
    out = io.StringIO()
    call_command("create_operator", "acme", "--test-key", stdout=out)
    text = out.getvalue()
    live_line = next(line for line in text.splitlines() if line.startswith("api key:"))
    test_line = next(line for line in text.splitlines() if line.startswith("test api key:"))
    live_key, test_key = live_line.split()[-1], test_line.split()[-1]
    assert live_key.startswith("gop_") and not live_key.startswith("gop_test_")
    assert test_key.startswith("gop_test_")
    assert bearer_client(test_key).get("/api/v1/operators/me").json()["slug"] == "acme-sandbox"

    keys_only = io.StringIO()
    call_command("create_operator", "beta", "--test-key", "--key-only", stdout=keys_only)
    lines = keys_only.getvalue().split()
    assert len(lines) == 2 and lines[1].startswith("gop_test_")


# --- KYC ------------------------------------------------------------------------------------
def test_a_sandbox_player_withdraws_without_kyc_a_live_one_cannot(operator):
    test_key = services.api_key_create(operator=operator, actor=SYSTEM, mode="test")
    twin = test_key.api_key.operator
    results = {}
    for mode, owner, key in (
        ("live", operator, services.api_key_create(operator=operator, actor=SYSTEM).key),
        ("test", twin, test_key.key),
    ):
        player = PlayerFactory(operator=owner, kyc_status=Player.KycStatus.NONE)
        fund(player, 10_000)
        response = bearer_client(key).post(
            f"/api/v1/players/{player.pk}/withdrawals",
            {"amount": "25.00", "currency": "EUR"},
            format="json",
            **idem(),
        )
        results[mode] = (response, player)
    live, live_player = results["live"]
    assert live.status_code == 403 and live.json()["type"] == "/problems/kyc-required"
    assert Account.objects.get(player=live_player, kind="player").balance == 10_000
    test, test_player = results["test"]
    assert test.status_code == 201, test.content
    assert Account.objects.get(player=test_player, kind="player").balance == 7_500


def test_responsible_gaming_still_applies_in_the_sandbox(operator):
    test = services.api_key_create(operator=operator, actor=SYSTEM, mode="test")
    client = bearer_client(test.key)
    player = PlayerFactory(operator=test.api_key.operator, kyc_status=Player.KycStatus.NONE)
    limit = client.post(
        f"/api/v1/players/{player.pk}/limits",
        {"kind": "deposit", "period": "day", "amount": "10.00"},
        format="json",
        **idem(),
    )
    assert limit.status_code in (200, 201), limit.content
    over = client.post(
        f"/api/v1/players/{player.pk}/deposits",
        {"amount": "10.01", "currency": "EUR"},
        format="json",
        **idem(),
    )
    assert over.status_code == 422 and over.json()["type"] == "/problems/limit-exceeded"


# --- Tenancy over every endpoint -------------------------------------------------------------
@dataclass
class World:
    """One tenant's data: the live operator's or its sandbox's."""

    mode: str
    operator: Operator
    key: str
    client: APIClient
    ids: dict[str, object] = field(default_factory=dict)
    markers: set[str] = field(default_factory=set)
    player_client: APIClient | None = None


def _build_world(mode: str, operator: Operator, key: str) -> World:
    tag = f"{mode}-{secrets.token_hex(3)}"
    players = [
        PlayerFactory(operator=operator, external_ref=f"{tag}-p{n}", display_name=f"{tag} {n}")
        for n in range(3)
    ]
    if mode == "test":
        Player.objects.filter(operator=operator).update(kyc_status=Player.KycStatus.NONE)
    room = RoomFactory(operator=operator, ftk=True, stake=500, name=f"{tag} room")
    match = play_out(seat_two(TableFactory(room=room), players=players[:2]))
    settlement_services.game_settle(match_id=match.pk)
    open_table = TableFactory(room=room)
    deposit = fund(players[0], 50_000)
    fund(players[2], 50_000)
    session = services.player_session_create(player=players[0], actor=SYSTEM)
    spare_revoke = services.api_key_create(operator=operator, name="spare", actor=SYSTEM)
    spare_rotate = services.api_key_create(operator=operator, name="spare", actor=SYSTEM)
    origin = services.operator_origin_create(
        operator=operator, origin=f"https://{tag}.example.com", actor=SYSTEM
    )
    signing_secret = services.signing_secret_create(operator=operator, actor=SYSTEM)
    delivery = WebhookDelivery.objects.create(
        operator=operator,
        event_type="game.settled",
        payload={"match_id": match.pk},
        url=f"https://{tag}.example.com/hooks",
        status=WebhookDelivery.Status.FAILED,
    )
    event = OperatorEvent.objects.filter(operator=operator).order_by("created_at").first()
    assert event is not None, "the game and the deposits recorded events"
    link = integrity_services.player_link_declare(
        player=players[0], other_player_id=players[1].pk, kind="associate", actor=SYSTEM
    ).link
    report = integrity_services.player_report_create(
        reporter=players[0],
        match_id=match.pk,
        seat=1,
        reason="other",
        text="played oddly",
        actor=SYSTEM,
    )
    check = shown_reality_check(players[2])
    cup = TournamentOptions(
        name=f"{tag} cup",
        kind="sit_and_go",
        seats=2,
        currency="EUR",
        max_entries=8,
        round_settings=[{"variant": "ftk", "target": None}],
    )
    tournament = tournament_create(operator=operator, options=cup, actor=SYSTEM)
    entry_register(player=players[2], tournament=tournament, actor=SYSTEM)
    world = World(mode=mode, operator=operator, key=key, client=bearer_client(key))
    world.player_client = bearer_client(
        services.player_session_create(player=players[2], actor=SYSTEM).token
    )
    world.ids = {
        "player_id": players[0].pk,
        "session_id": session.session.pk,
        "transaction_id": deposit.pk,
        "secret_id": signing_secret.pk,
        "origin_id": origin.pk,
        "api_key_id": spare_revoke.api_key.pk,
        "api_key_rotate": spare_rotate.api_key.pk,
        "delivery_id": delivery.pk,
        "event_id": event.pk,
        "room_id": room.pk,
        "table_id": open_table.pk,
        "match_id": match.pk,
        "number": 1,
        "excluded_player": players[2].pk,
        "other_player_id": players[1].pk,
        "link_id": link.pk,
        "report_id": report.pk,
        "check_id": check.pk,
        "tournament_id": tournament.pk,
        "tournament_to_cancel": tournament_create(operator=operator, options=cup, actor=SYSTEM).pk,
    }
    world.markers = {
        operator.slug,
        str(operator.pk),
        room.name,
        tournament.name,
        origin.origin,
        str(delivery.pk),
        str(event.pk),
        spare_revoke.api_key.prefix,
        *(str(p.pk) for p in players),
        *(p.external_ref for p in players),
    }
    return world


@pytest.fixture
def worlds(db) -> dict[str, World]:
    # The player network (docs/network.md): its rooms are the platform's, shared by the
    # member operators of both modes (a network table never mixes them).

    network_make()
    network_room = network_room_make(name="Network FTK", variant="ftk", target=None)
    live_operator = OperatorFactory(slug=f"casino-{secrets.token_hex(3)}")
    live_key = services.api_key_create(operator=live_operator, actor=SYSTEM).key
    test_key = services.api_key_create(operator=live_operator, actor=SYSTEM, mode="test")
    worlds = {
        "live": _build_world("live", live_operator, live_key),
        "test": _build_world("test", test_key.api_key.operator, test_key.key),
    }
    for world in worlds.values():
        world.ids["network_room_id"] = network_room.pk
    return worlds


def _operator_routes():
    """(route, name, view class) of every route an operator key or a player token may call,
    from the URL resolver."""

    def walk(patterns, prefix=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                yield prefix + str(pattern.pattern), pattern

    for route, pattern in walk(get_resolver().url_patterns):
        view = getattr(pattern.callback, "view_class", None)
        permissions = set(getattr(view, "permission_classes", ()))
        if permissions & {IsOperator, IsOperatorOrPlayer, IsPlayer}:
            yield route, pattern.name, view, permissions


METHODS = ("get", "post", "put", "patch", "delete")
_ROOM = {
    "name": "another room",
    "variant": "ftk",
    "currency": "EUR",
    "stake": "1.00",
    "fee_bps": 500,
    "turn_seconds": 30,
}
# How each operator endpoint is called: the body of each write, and per route which id
# stands for a path parameter when it is not the one of the same name (World.ids).
OPERATOR_CALLS: dict[str, dict[str, object]] = {
    "operator-me": {"get": None, "patch": {"require_signed_requests": False}},
    "operator-webhook-secret": {"post": None},
    "operator-signing-secret-create": {"post": None},
    "operator-signing-secret-revoke": {"post": None},
    "operator-origin-list": {"get": None, "post": {"origin": "https://{tag}-new.example.com"}},
    "operator-origin-detail": {"delete": None},
    "api-key-list": {"get": None, "post": {"name": "more"}},
    "api-key-revoke": {"post": None},
    "api-key-rotate": {"post": {"grace_seconds": 3600}, "ids": {"api_key_id": "api_key_rotate"}},
    "event-list": {"get": None},
    "event-detail": {"get": None},
    "webhook-subscriptions": {"get": None, "put": {"event_types": ["*"]}},
    "webhook-list": {"get": None},
    "webhook-detail": {"get": None},
    "webhook-redeliver": {"post": None},
    "player-list": {"get": None, "post": {"external_ref": "{tag}-new"}},
    "player-detail": {"get": None, "patch": {"locale": "it"}},
    "player-session-create": {"post": {}},
    "player-session-revoke": {"post": None},
    "player-launch": {"post": {}},
    "wallet": {"get": None},
    "wallet-deposits": {"post": {"amount": "5.00", "currency": "EUR"}},
    "wallet-withdrawals": {"post": {"amount": "1.00", "currency": "EUR"}},
    "wallet-transactions": {"get": None},
    "wallet-transaction": {"get": None},
    "wallet-limits": {"get": None, "post": {"kind": "loss", "period": "month", "amount": "900.00"}},
    "wallet-limit-history": {"get": None},
    "wallet-self-exclusion": {
        "get": None,
        "post": {"days": 1},
        "ids": {"player_id": "excluded_player"},
    },
    "wallet-time-out": {
        "get": None,
        "post": {"days": 1},
        "ids": {"player_id": "excluded_player"},
    },
    "wallet-practice-top-up": {"post": None},
    "wallet-caps": {"get": None},
    "operator-wallet": {"get": None, "put": {"mode": "transfer"}},
    "room-list": {"get": None, "post": _ROOM},
    "room-detail": {"get": None, "patch": {"name": "renamed"}},
    "room-tables": {"post": {}},
    "match-list": {"get": None},
    "match-detail": {"get": None},
    "hands": {"get": None},
    "hand-detail": {"get": None},
    "hand-fairness": {"get": None},
    "settlement-list": {"get": None},
    "settlement-detail": {"get": None},
    "report-daily": {"get": None, "query": "from={yesterday}&to={tomorrow}"},
    # Integrity (docs/integrity.md): "{other_player}" is the tenant's second player.
    "player-link-list": {"get": None, "post": {"player_id": "{other_player}", "kind": "household"}},
    "player-link-detail": {"delete": None},
    "player-identifier-create": {"post": {"kind": "device", "value": "{tag}-device"}},
    # Player protection (docs/player-protection.md).
    "player-play-session": {"get": None},
    # A player's history (docs/player-protection.md "History").
    "player-history-matches": {"get": None},
    "player-history-transactions": {"get": None},
    "player-history-summary": {"get": None},
    # Tournaments (docs/tournaments.md).
    "tournaments": {
        "get": None,
        "post": {
            "name": "{tag} cup",
            "kind": "sit_and_go",
            "seats": 2,
            "currency": "EUR",
            "max_entries": 4,
            "round_settings": [{"variant": "ftk"}],
        },
    },
    "tournament": {"get": None},
    "tournament-bracket": {"get": None},
    "tournament-cancel": {"post": None, "ids": {"tournament_id": "tournament_to_cancel"}},
    "tournament-entries": {"get": None, "post": {"player_id": "{other_player}"}},
    "tournament-entry": {"delete": None, "ids": {"player_id": "excluded_player"}},
    "tournament-entry-statement": {"get": None, "ids": {"player_id": "excluded_player"}},
    # Ratings (docs/ratings.md).
    "player-ratings": {"get": None},
    "player-rating-history": {"get": None},
    # Leaderboards (docs/leaderboards.md): the operator's own board (its players only).
    "leaderboards": {"get": None},
    # A ticket for the operator's own watching socket (docs/realtime.md "Tickets").
    "socket-ticket-create": {"post": None},
}
OPERATOR_CALLS |= {
    "operator-network": {"get": None, "put": {"member": True, "all_rooms": False}},
    "network-room-list": {"get": None},
    "network-room-detail": {
        "get": None,
        "put": None,
        "delete": None,
        "ids": {"room_id": "network_room_id"},
    },
    "network-statement": {"get": None},
}
# Routes whose ids are the platform's, not a tenant's: every member operator reads the same
# network rooms (docs/network.md), so another tenant's id is no 404 there.
SHARED_IDS = {"network-room-detail"}
# A live key manages its sandbox's keys (docs/api.md "Sandbox"): these calls with the
# sandbox's ids succeed for the live key; with a live key's id they are 404 for a test key.
LIVE_MANAGES_SANDBOX = {"api-key-revoke": 200, "api-key-rotate": 201}
# Endpoints a player token calls with ids of its operator's games.
PLAYER_CALLS: dict[str, dict[str, object]] = {
    "lobby-room": {"get": None},
    "table-sit": {"post": {}},
    "table-leave": {"post": {}},
    "table-bot": {"post": {}},
    "game-view": {"get": None},
    "game-actions": {"post": {"kind": "draw_stock", "card": None, "expected_seq": 1}},
    "game-events": {"get": None},
    "game-resign": {"post": {}},
    "watch": {"get": None},
    "watch-events": {"get": None},
    "hands": {"get": None},
    "hand-detail": {"get": None},
    "hand-fairness": {"get": None},
    "settlement-detail": {"get": None},
    "me-wallet-transaction": {"get": None},
    "lobby-waiting-list": {"get": None, "post": {}, "delete": None},
    "me-report": {"get": None},
    "me-reality-check": {"get": None, "post": {"answer": "continue"}},
    "tournament": {"get": None},
    "tournament-bracket": {"get": None},
    "tournament-registration": {"post": {}, "delete": None},
    "tournament-seat": {"post": None},
    "me-tournament-statement": {"get": None},
    "match-ratings": {"get": None},
}


def _path(route: str, ids: dict[str, object]) -> str:
    path = "/" + route
    for name, value in ids.items():
        path = path.replace(f"<str:{name}>", str(value))
    assert "<" not in path, f"no id for a parameter of {route}"
    return path


def _params(route: str, world: World, overrides: dict[str, str]) -> dict[str, object]:
    names = re.findall(r"<str:(\w+)>", route)
    return {name: world.ids[overrides.get(name, name)] for name in names}


def _call(client, method: str, path: str, body, query: str = ""):
    url = f"{path}?{query}" if query else path
    if method == "get":
        return client.get(url)
    kwargs = {"format": "json"} if body is not None else {}
    return getattr(client, method)(url, body, **kwargs, **idem())


def _state(operator: Operator) -> tuple:
    """Everything a write could have changed for ``operator``: its audit rows, its ledger
    entries, its balances, its players, keys, origins, secrets, sessions and deliveries."""
    accounts = Account.objects.filter(operator=operator)
    return (
        AuditEvent.objects.filter(operator=operator).count(),
        LedgerEntry.objects.filter(account__operator=operator).count(),
        accounts.aggregate(total=Sum("balance"))["total"],
        list(Player.objects.filter(operator=operator).order_by("pk").values()),
        list(OperatorApiKey.objects.filter(operator=operator).order_by("pk").values()),
        OperatorOrigin.objects.filter(operator=operator).count(),
        list(OperatorSigningSecret.objects.filter(operator=operator).values("pk", "revoked_at")),
        list(PlayerSession.objects.filter(player__operator=operator).values("pk", "revoked_at")),
        list(WebhookDelivery.objects.filter(operator=operator).values("pk", "status")),
        Operator.objects.filter(pk=operator.pk).values().get(),
    )


def _leaks(text: str, markers: set[str]) -> set[str]:
    return {marker for marker in markers if f'"{marker}"' in text or f"/{marker}" in text}


def _format(body, world: World):
    if body is None:
        return None
    text = json.dumps(body).replace("{tag}", f"{world.mode}-{secrets.token_hex(2)}")
    text = text.replace("{other_player}", str(world.ids["other_player_id"]))
    return json.loads(text)


def test_every_operator_endpoint_keeps_live_and_sandbox_apart(worlds):
    now = datetime.now(UTC)
    dates = {
        "yesterday": (now - timedelta(days=1)).date().isoformat(),
        "tomorrow": (now + timedelta(days=1)).date().isoformat(),
    }
    # In path order, whatever the URL conf's: a resource is joined (PUT .../network) before
    # the routes under it are called.
    routes = sorted(
        (route, name, view)
        for route, name, view, permissions in _operator_routes()
        if permissions & {IsOperator, IsOperatorOrPlayer}
    )
    unknown = sorted(
        f"{name} {method.upper()}"
        for _, name, view in routes
        for method in METHODS
        if hasattr(view, method) and method not in OPERATOR_CALLS.get(name, {})
    )
    assert not unknown, f"say how these operator endpoints are called here: {unknown}"
    checked = []
    for route, name, view in routes:
        spec = OPERATOR_CALLS[name]
        overrides = spec.get("ids", {})
        query = spec.get("query", "").format(**dates)
        for method in (m for m in METHODS if hasattr(view, m)):
            for mode in MODES:
                me, other = worlds[mode], worlds["test" if mode == "live" else "live"]
                if "<" not in route or name in SHARED_IDS:
                    continue
                # The other tenant's ids (all of them, then own first id and theirs after).
                attempts = [_params(route, other, overrides)]
                own = _params(route, me, overrides)
                if len(own) > 1 and "number" not in own:
                    first = next(iter(own))
                    attempts.append({first: own[first]} | dict(list(attempts[0].items())[1:]))
                for ids in attempts:
                    before = _state(other.operator)
                    response = _call(
                        me.client, method, _path(route, ids), _format(spec[method], me), query
                    )
                    expected = LIVE_MANAGES_SANDBOX.get(name) if mode == "live" else None
                    if expected and ids == attempts[0]:
                        assert response.status_code == expected, (name, response.content)
                        continue
                    assert response.status_code == 404, (mode, method, route, response.content)
                    assert response.json()["type"] == "/problems/not-found"
                    assert _state(other.operator) == before, f"{mode} {method} {route} changed"
        for method in (m for m in METHODS if hasattr(view, m)):
            for mode in MODES:
                me, other = worlds[mode], worlds["test" if mode == "live" else "live"]
                path = _path(route, _params(route, me, overrides))
                before = _state(other.operator)
                response = _call(me.client, method, path, _format(spec[method], me), query)
                assert 200 <= response.status_code < 300, (mode, method, path, response.content)
                leaked = _leaks(response.content.decode(), other.markers)
                assert not leaked, f"{mode} {method} {path} shows the other tenant's {leaked}"
                assert _state(other.operator) == before, f"{mode} {method} {path} changed"
                checked.append((name, method, mode))
    # Each tenant sees its own rows where they list them.
    for mode, world in worlds.items():
        players = world.client.get("/api/v1/players?page_size=200").json()["results"]
        assert str(world.ids["player_id"]) in {p["id"] for p in players}
        matches = world.client.get("/api/v1/matches").json()["results"]
        assert world.ids["match_id"] in {m["id"] for m in matches}
        other = worlds["test" if mode == "live" else "live"]
        assert other.ids["match_id"] not in {m["id"] for m in matches}
        rooms = {r["id"] for r in world.client.get("/api/v1/rooms").json()["results"]}
        assert world.ids["room_id"] in rooms and other.ids["room_id"] not in rooms
        report = world.client.get(
            f"/api/v1/reports/daily?from={dates['yesterday']}&to={dates['tomorrow']}"
        ).json()
        assert {row["mode"] for row in report["totals"]} == {mode}
        settled = world.client.get(f"/api/v1/settlements/{world.ids['match_id']}").json()
        assert settled["mode"] == mode
    assert len({name for name, _, _ in checked}) == len(routes)


def test_a_player_of_one_tenant_never_reaches_the_others_games(worlds):
    routes = [
        (route, name, view)
        for route, name, view, permissions in _operator_routes()
        if permissions & {IsPlayer, IsOperatorOrPlayer} and "<" in route
    ]
    unknown = sorted(
        f"{name} {method.upper()}"
        for _, name, view in routes
        for method in METHODS
        if hasattr(view, method) and method not in PLAYER_CALLS.get(name, {})
    )
    assert not unknown, f"say how these player endpoints are called here: {unknown}"
    for route, name, view in routes:
        spec = PLAYER_CALLS[name]
        for method in (m for m in METHODS if hasattr(view, m)):
            for mode in MODES:
                me, other = worlds[mode], worlds["test" if mode == "live" else "live"]
                before = _state(other.operator)
                path = _path(route, _params(route, other, {}))
                response = _call(me.player_client, method, path, spec[method])
                assert response.status_code == 404, (mode, method, path, response.content)
                assert _state(other.operator) == before, f"{mode} {method} {path} changed"
    # And at their own operator's open table a player sits.
    for world in worlds.values():
        sat = world.player_client.post(
            f"/api/v1/tables/{world.ids['table_id']}/sit", {}, format="json"
        )
        assert sat.status_code == 201, sat.content


# --- Staff reports ---------------------------------------------------------------------------
def test_staff_reports_keep_sandbox_money_out_of_live_totals(worlds, staff_client):
    now = datetime.now(UTC)
    period = (
        f"from={(now - timedelta(days=1)).date().isoformat()}"
        f"&to={(now + timedelta(days=1)).date().isoformat()}"
    )
    live_slug, test_slug = worlds["live"].operator.slug, worlds["test"].operator.slug
    url = "/api/v1/backoffice/reports/daily?" + period

    default = staff_client.get(url).json()
    assert live_slug in {row["operator"] for row in default["totals"]}
    assert test_slug not in {row["operator"] for row in default["totals"]}
    assert {row["mode"] for row in default["totals"] + default["players"]} == {"live"}

    test = staff_client.get(url + "&mode=test").json()
    assert {row["operator"] for row in test["totals"]} == {test_slug}
    assert {row["mode"] for row in test["totals"] + test["players"]} == {"test"}

    named = staff_client.get(url + f"&operator={test_slug}").json()
    assert {row["mode"] for row in named["totals"]} == {"test"}

    csv_text = staff_client.get(url + "&mode=test&format=csv").content.decode()
    header, first = csv_text.splitlines()[:2]
    # ggr, ngr were added after the mode; the tournaments' two after them
    assert header.split(",")[-5:] == ["mode", "ggr", "ngr", "tournament_fees", "promotion"]
    assert first.split(",")[-5] == "test"

    refused = staff_client.get(url + "&mode=both")
    assert refused.status_code == 400
    assert refused.json()["type"] == "/problems/validation-error"

    # Test money is in no live figure: the live totals equal the live operator's own.
    own = worlds["live"].client.get("/api/v1/reports/daily?" + period).json()
    live_rows = [row for row in default["totals"] if row["operator"] == live_slug]
    assert live_rows == own["totals"]
    assert LedgerTransaction.objects.exists()


def test_webhooks_of_the_sandbox_go_to_the_sandboxs_own_url(operator):
    live = services.api_key_create(operator=operator, actor=SYSTEM)
    test = services.api_key_create(operator=operator, actor=SYSTEM, mode="test")
    for key, url in (
        (live.key, "https://live.example.com/hooks"),
        (test.key, "https://sandbox.example.com/hooks"),
    ):
        response = bearer_client(key).patch(
            "/api/v1/operators/me", {"webhook_url": url}, format="json", **idem()
        )
        assert response.status_code == 200, response.content
    operator.refresh_from_db()
    twin = test.api_key.operator
    twin.refresh_from_db()
    assert operator.webhook_url == "https://live.example.com/hooks"
    assert twin.webhook_url == "https://sandbox.example.com/hooks"

    delivery = webhook_enqueue(operator=twin, event_type="game.finished", data={"match_id": 1})
    assert delivery is not None and delivery.url == "https://sandbox.example.com/hooks"
    assert not WebhookDelivery.objects.filter(operator=operator).exists()


# --- Admin ----------------------------------------------------------------------------------
def test_the_admin_badges_and_filters_sandboxes(operator, django_user_model):
    twin = services.sandbox_operator_get_or_create(operator=operator, actor=SYSTEM)
    PlayerFactory(operator=twin, external_ref="sandbox-only-player")
    PlayerFactory(operator=operator, external_ref="live-only-player")
    client = Client()
    admin_login(client, django_user_model.objects.create_superuser("root", password="pw-12345"))

    everyone = client.get("/admin/platform/operator/").content.decode()
    assert twin.slug in everyone and operator.slug in everyone and ">TEST</span>" in everyone
    sandboxes = client.get("/admin/platform/operator/?mode=test").content.decode()
    assert f">{twin.slug}<" in sandboxes and f">{operator.slug}<" not in sandboxes
    live = client.get("/admin/platform/operator/?mode=live").content.decode()
    assert f">{operator.slug}<" in live and ">TEST</span>" not in live

    players = client.get("/admin/platform/player/?mode=test").content.decode()
    assert "sandbox-only-player" in players and "live-only-player" not in players


def test_a_test_key_is_withheld_from_the_idempotency_record(operator_client):
    response = operator_client.post(KEYS, {"mode": "test"}, format="json", **idem())
    key = response.json()["key"]
    stored = IdempotencyRecord.objects.get(path=KEYS)
    assert stored.secret_withheld and key not in json.dumps(stored.response_body)

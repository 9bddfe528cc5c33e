"""Game launch: the operator's launch URL, the hosted page's exchange of its single-use token
for a player session, and what is refused."""

from datetime import UTC, datetime, timedelta

import pytest
from django.core.exceptions import ImproperlyConfigured
from rest_framework.test import APIClient

from games.services import seat_take
from gin_platform.http.problems import LaunchTokenInvalidProblem
from gin_platform.http.throttling import PrincipalRateThrottle
from gin_platform.models import AuditEvent, LaunchToken, Operator, Player, PlayerSession
from gin_platform.tenancy import watchable
from gin_platform.tenancy.services import (
    LaunchedSession,
    expired_records_prune,
    launch_token_create,
    launch_token_redeem,
    operator_origin_create,
)
from gin_platform.tenancy.tokens import hash_secret
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.games.network_world import member_make, network_make, network_room_make
from tests.helpers import assert_problem, bearer_client, freeze_now, operator_api
from tests.races import race
from tests.wallet.factories import fund
from wallet.services import self_exclusion_create

pytestmark = pytest.mark.django_db
EXCHANGE = "/api/v1/launch/session"


def launch(client, player, idem, **body):
    return client.post(f"/api/v1/players/{player.pk}/launch", body, format="json", **idem())


def token_of(response) -> str:
    return response.json()["url"].split("#launch=", 1)[1]


def exchange(token: str, client: APIClient | None = None, **extra):
    return (client or APIClient()).post(EXCHANGE, {"launch_token": token}, format="json", **extra)


# --- Minting ----------------------------------------------------------------------------------
def test_the_launch_url_opens_the_hosted_page_with_a_single_use_token(
    operator, player, operator_client, idem, settings
):
    response = launch(operator_client, player, idem)

    assert response.status_code == 201
    body = response.json()
    token = token_of(response)
    assert body["url"] == f"http://testserver/play/?lang=en#launch={token}"
    assert body["lang"] == "en"
    assert token.startswith("glt_") and body["launch_token"] == token
    assert body["player_id"] == str(player.pk)
    assert body["options"] == {"mode": "lobby", "match": None, "return_url": None}
    row = LaunchToken.objects.get()
    assert row.token_hash == hash_secret(token)  # only the hash is stored
    assert token not in str(row.options)
    expires = datetime.fromisoformat(body["launch_token_expires_at"].replace("Z", "+00:00"))
    assert expires == row.expires_at
    assert row.expires_at - row.created_at == timedelta(seconds=settings.LAUNCH_TOKEN_TTL_SECONDS)
    assert settings.LAUNCH_TOKEN_TTL_SECONDS == 120
    event = AuditEvent.objects.get(action="launch_token.created")
    assert event.operator == operator and event.actor_type == "operator"
    assert event.data == {
        "player": str(player.pk),
        "mode": "lobby",
        "match": None,
        "return_url": None,
    }
    assert token not in str(event.data)


def test_the_url_uses_public_base_url_when_set(player, operator_client, idem, settings):
    settings.PUBLIC_BASE_URL = "https://games.example.com"
    response = launch(operator_client, player, idem)
    assert response.json()["url"].startswith("https://games.example.com/play/?lang=en#launch=glt_")


def test_the_url_follows_the_request_scheme_behind_a_trusted_proxy(
    player, operator_client, idem, settings
):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "play.example.com"]
    response = operator_client.post(
        f"/api/v1/players/{player.pk}/launch",
        {},
        format="json",
        HTTP_X_FORWARDED_PROTO="https",
        HTTP_HOST="play.example.com",
        **idem(),
    )
    assert response.json()["url"].startswith("https://play.example.com/play/?lang=en#launch=glt_")


def waiting_match(operator) -> int:
    """The id of a match at one of ``operator``'s tables (a practice table one player sat at)."""
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))
    seated = seat_take(player=PlayerFactory(operator=operator), table=table, actor=SYSTEM)
    return seated.seat.match_id


def test_watch_options_and_a_return_url_are_kept(operator, player, operator_client, idem):
    match_id = waiting_match(operator)
    response = launch(
        operator_client,
        player,
        idem,
        mode="watch",
        match=match_id,
        return_url="https://casino.example.com/lobby?from=gin",
    )
    assert response.status_code == 201
    assert response.json()["options"] == {
        "mode": "watch",
        "match": match_id,
        "return_url": "https://casino.example.com/lobby?from=gin",
    }


def test_watch_needs_a_match_the_operators_players_may_watch(player, operator_client, idem):
    """A missing match and another operator's get the same answer: no way to tell which
    ids exist elsewhere."""
    theirs = waiting_match(OperatorFactory())
    missing = theirs + 1000
    bodies = []
    for match_id in (missing, theirs):
        response = launch(operator_client, player, idem, mode="watch", match=match_id)
        body = assert_problem(response, 422, "launch-options-invalid")
        assert body["field"] == "match"
        bodies.append({key: value for key, value in body.items() if key != "instance"})
    assert bodies[0] == bodies[1]
    assert not LaunchToken.objects.exists()
    assert not AuditEvent.objects.filter(action="launch_token.created").exists()


def test_watch_takes_a_network_game_in_a_room_the_operator_offers(idem):
    """A network game is the operator's to launch into when its players may watch it: it
    is a member offering the room (or one of its players sat in the game)."""
    network_make()
    room = network_room_make()
    seated_side = member_make(name="Alpha")
    offering = member_make(name="Charlie")
    outsider = OperatorFactory(name="Delta")
    sitter = PlayerFactory(operator=seated_side, screen_name="AlphaAce")
    fund(sitter, 1_000)
    seated = seat_take(player=sitter, table=room.tables.first(), actor=SYSTEM)
    match_id = seated.seat.match_id
    for operator, status in ((seated_side, 201), (offering, 201), (outsider, 422)):
        response = launch(
            operator_api(operator),
            PlayerFactory(operator=operator),
            idem,
            mode="watch",
            match=match_id,
        )
        assert response.status_code == status, (operator.name, response.content)
    assert assert_problem(response, 422, "launch-options-invalid")["field"] == "match"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"mode": "watch"}, "match"),
        ({"mode": "lobby", "match": 3}, "match"),
        ({"return_url": "http://casino.example.com/"}, "return_url"),
        ({"return_url": "javascript:alert(1)"}, "return_url"),
        ({"return_url": "https://user:pw@casino.example.com/"}, "return_url"),
        ({"return_url": "/relative"}, "return_url"),
    ],
)
def test_bad_options_are_422_launch_options_invalid(player, operator_client, idem, body, field):
    response = launch(operator_client, player, idem, **body)
    assert assert_problem(response, 422, "launch-options-invalid")["field"] == field
    assert not LaunchToken.objects.exists()


def test_malformed_options_are_400(player, operator_client, idem):
    for body in ({"mode": "play"}, {"mode": "watch", "match": "abc"}, {"match": 0}):
        assert_problem(launch(operator_client, player, idem, **body), 400, "validation-error")


def test_another_operators_player_is_404(player, idem):
    other = operator_api(OperatorFactory())
    assert_problem(launch(other, player, idem), 404, "not-found")
    assert_problem(
        other.post("/api/v1/players/not-a-uuid/launch", {}, format="json", **idem()),
        404,
        "not-found",
    )
    assert not LaunchToken.objects.exists()


def test_an_inactive_player_cannot_be_launched(player, operator_client, idem):
    Player.objects.filter(pk=player.pk).update(status=Player.Status.SUSPENDED)
    assert_problem(launch(operator_client, player, idem), 409, "player-inactive")


def test_a_self_excluded_player_may_still_launch(player, operator_client, idem):
    """They can watch and read statements; seating refuses them (wallet and games)."""
    self_exclusion_create(player=player, days=30, actor=SYSTEM)
    assert launch(operator_client, player, idem).status_code == 201


def test_players_cannot_launch(player, player_client, idem):
    assert_problem(launch(player_client, player, idem), 403, "permission-denied")


def test_a_replayed_launch_does_not_show_the_token_again(player, operator_client, idem):
    headers = idem()
    first = operator_client.post(
        f"/api/v1/players/{player.pk}/launch", {}, format="json", **headers
    )
    again = operator_client.post(
        f"/api/v1/players/{player.pk}/launch", {}, format="json", **headers
    )

    body = assert_problem(again, 409, "secret-not-replayable")
    token = token_of(first)
    assert token not in again.content.decode()
    stored = body["first_response"]["body"]
    assert stored["url"].endswith("/play/?lang=en#launch=[withheld]")
    assert stored["launch_token"] == "[withheld]"
    assert LaunchToken.objects.count() == 1


# --- Exchanging ------------------------------------------------------------------------------
def test_the_exchange_mints_a_session_that_works_on_the_lobby(
    operator, player, operator_client, idem
):
    minted = launch(operator_client, player, idem, return_url="https://casino.example.com/")
    token = token_of(minted)

    response = exchange(token)

    assert response.status_code == 201
    body = response.json()
    assert body["token"].startswith("gps_")
    assert body["player"] == {
        "id": str(player.pk),
        "screen_name": player.display_name,
        "display_currency": player.display_currency,
        "wallet_currency": player.wallet_currency,
        "locale": player.locale,
    }
    assert "external_ref" not in str(body)
    assert body["options"] == minted.json()["options"]
    session = PlayerSession.objects.get(player=player)
    assert LaunchToken.objects.get().session == session
    assert LaunchToken.objects.get().used_at is not None
    lobby = bearer_client(body["token"])
    assert lobby.get("/api/v1/lobby").status_code == 200
    redeemed = AuditEvent.objects.get(action="launch_token.redeemed")
    assert redeemed.actor_type == "player" and redeemed.actor_id == str(player.pk)
    assert redeemed.operator == operator
    assert AuditEvent.objects.filter(action="player_session.created").count() == 1


def test_a_second_exchange_is_refused(player, operator_client, idem):
    token = token_of(launch(operator_client, player, idem))
    assert exchange(token).status_code == 201

    refused = exchange(token)

    assert_problem(refused, 401, "launch-token-invalid")
    assert refused["WWW-Authenticate"]
    assert PlayerSession.objects.filter(player=player).count() == 1


def test_an_expired_token_is_refused(player, operator_client, idem, monkeypatch, settings):
    clock = freeze_now(monkeypatch, datetime(2026, 11, 30, 16, 0, tzinfo=UTC))
    token = token_of(launch(operator_client, player, idem))

    clock.advance(seconds=settings.LAUNCH_TOKEN_TTL_SECONDS)

    assert_problem(exchange(token), 401, "launch-token-invalid")
    assert not PlayerSession.objects.filter(player=player).exists()
    assert LaunchToken.objects.get().used_at is None


def test_one_answer_for_every_refusal(player, operator_client, idem):
    """Unknown, malformed, used, or of a player since suspended: the same problem and detail."""
    used = token_of(launch(operator_client, player, idem))
    exchange(used)
    suspended = token_of(launch(operator_client, player, idem))
    Player.objects.filter(pk=player.pk).update(status=Player.Status.SUSPENDED)

    unknown, not_a_launch_token = "glt_" + "x" * 43, "gps_" + "x" * 43
    details = {
        assert_problem(exchange(token), 401, "launch-token-invalid")["detail"]
        for token in (unknown, not_a_launch_token, used, suspended)
    }
    assert len(details) == 1


def test_a_token_of_a_suspended_operator_is_refused(player, operator_client, idem):
    token = token_of(launch(operator_client, player, idem))
    Operator.objects.filter(pk=player.operator_id).update(status=Operator.Status.SUSPENDED)
    assert_problem(exchange(token), 401, "launch-token-invalid")


def test_failed_exchanges_are_throttled_like_bad_bearer_tokens(monkeypatch):
    monkeypatch.setitem(PrincipalRateThrottle.THROTTLE_RATES, "auth_failures_address", "3/min")
    statuses = [exchange("glt_" + "x" * 43).status_code for _ in range(5)]
    assert statuses == [401, 401, 401, 429, 429]
    token_client = APIClient()
    token_client.credentials(HTTP_AUTHORIZATION="Bearer gps_" + "y" * 43)
    # The same per-address counter as a bad session token.
    assert token_client.get("/api/v1/lobby").status_code == 429


def test_the_exchange_from_another_operators_site_is_refused_and_keeps_the_token(
    player, operator_client, idem
):
    """The hosted page is the platform's own origin; an operator's own site must be
    registered by that operator."""
    operator_origin_create(
        operator=OperatorFactory(), origin="https://theirs.example", actor=SYSTEM
    )
    token = token_of(launch(operator_client, player, idem))

    refused = exchange(token, HTTP_ORIGIN="https://theirs.example")

    assert_problem(refused, 403, "origin-not-allowed")
    assert LaunchToken.objects.get().used_at is None
    assert exchange(token, HTTP_ORIGIN="http://testserver").status_code == 201


def test_used_and_expired_tokens_are_pruned(player, monkeypatch):
    clock = freeze_now(monkeypatch, datetime(2026, 11, 30, 16, 0, tzinfo=UTC))
    used = launch_token_create(player=player, actor=SYSTEM)
    launch_token_redeem(launch_token=used.token)
    fresh = launch_token_create(player=player, actor=SYSTEM)
    clock.advance(seconds=60)
    later = launch_token_create(player=player, actor=SYSTEM)
    clock.advance(seconds=61)  # the first two are past their 120 s

    assert expired_records_prune() == 2

    assert list(LaunchToken.objects.values_list("pk", flat=True)) == [later.launch_token.pk]
    assert not LaunchToken.objects.filter(pk=fresh.launch_token.pk).exists()
    assert PlayerSession.objects.filter(player=player).count() == 1  # the session stays


# --- Race (PostgreSQL) ------------------------------------------------------------------------
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_racing_exchanges_of_one_token_mint_exactly_one_session():
    player = PlayerFactory()
    token = launch_token_create(player=player, actor=SYSTEM).token

    results = race(4, lambda i: launch_token_redeem(launch_token=token))

    assert sum(isinstance(r, LaunchedSession) for r in results) == 1
    assert sum(isinstance(r, LaunchTokenInvalidProblem) for r in results) == 3
    assert PlayerSession.objects.filter(player=player).count() == 1
    assert AuditEvent.objects.filter(action="launch_token.redeemed").count() == 1


def test_without_an_app_answering_watch_launches_fail_closed(player, operator, monkeypatch):
    """gin_platform asks the games app through gin_platform.tenancy.watchable (it never imports
    games); with nobody registered, no watch launch is issued."""
    match_id = waiting_match(operator)
    monkeypatch.setattr(watchable, "_ANSWER", [])
    with pytest.raises(ImproperlyConfigured):
        launch_token_create(player=player, actor=SYSTEM, mode="watch", match=match_id)
    assert not LaunchToken.objects.exists()

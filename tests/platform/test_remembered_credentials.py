"""Credentials remembered per process under an epoch in Redis
(gin_platform/request_path/remembered_credentials.py).

On Redis a remembered API key or player session costs one round trip (guard, epoch and
throttle) and no database read; every change to an operator, a key, a player or a session
ends what every process remembers, at once.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.core.cache import cache, caches
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.test import APIClient, APIRequestFactory

from gin_platform.http.authentication import OperatorApiKeyAuthentication
from gin_platform.http.throttling import PrincipalRateThrottle
from gin_platform.models import Operator, OperatorApiKey, Player, PlayerSession
from gin_platform.request_path import remembered_credentials
from gin_platform.tenancy import services
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.helpers import bearer_client

pytestmark = pytest.mark.redis

ME = "/api/v1/operators/me"
HEALTH = "/api/v1/health"
WALLET = "/api/v1/me/wallet"  # a player's
STAFF = "/api/v1/staff/ledger/reconciliation"  # staff only: 403 for an operator


def credential_lookups(queries: CaptureQueriesContext) -> int:
    """The SELECTs that read an API key or a session (not the UPDATE of their last use)."""
    tables = (OperatorApiKey._meta.db_table, PlayerSession._meta.db_table)
    return sum(
        q["sql"].startswith("SELECT") and any(table in q["sql"] for table in tables)
        for q in queries.captured_queries
    )


def get_counting_lookups(client: APIClient, path: str = ME) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as queries:
        status = client.get(path).status_code
    return status, credential_lookups(queries)


@pytest.fixture
def round_trips(monkeypatch) -> list[str]:
    """The commands the cache's Redis client sends, one per round trip (a script's own
    commands run inside Redis and are not among them)."""
    client = caches["default"]._cache.get_client(write=True)
    sent: list[str] = []
    real = client.execute_command

    def counting(*args, **options):
        sent.append(str(args[0]).lower())
        return real(*args, **options)

    monkeypatch.setattr(client, "execute_command", counting)
    return sent


# --- What a remembered key costs --------------------------------------------------------------
@pytest.mark.django_db
def test_a_key_is_read_from_the_database_once_then_remembered(operator_client):
    assert get_counting_lookups(operator_client) == (200, 1)
    assert get_counting_lookups(operator_client) == (200, 0)
    assert get_counting_lookups(operator_client) == (200, 0)


@pytest.mark.django_db
def test_a_remembered_key_is_one_redis_round_trip_for_guard_epoch_and_throttle(
    operator_client, round_trips
):
    operator_client.get(ME)  # read from the database: the gate, then the throttle's script
    assert round_trips == ["evalsha", "evalsha"]
    round_trips.clear()

    response = operator_client.get(ME)

    assert response.status_code == 200
    assert round_trips == ["evalsha"]
    assert response["RateLimit-Remaining"] == str(
        int(PrincipalRateThrottle.THROTTLE_RATES["operator"].split("/")[0]) - 2
    )


@pytest.mark.django_db
def test_the_operators_limit_holds_for_a_remembered_key(operator_client, monkeypatch):
    monkeypatch.setitem(PrincipalRateThrottle.THROTTLE_RATES, "operator", "3/min")

    responses = [operator_client.get(ME) for _ in range(5)]

    assert [r.status_code for r in responses] == [200, 200, 200, 429, 429]
    assert [r["RateLimit-Remaining"] for r in responses] == ["2", "1", "0", "0", "0"]
    assert int(responses[-1]["Retry-After"]) > 0
    assert responses[-1]["Content-Type"].startswith("application/problem+json")


@pytest.mark.django_db
def test_a_view_the_throttle_does_not_guard_counts_nothing(operator_client, monkeypatch):
    monkeypatch.setitem(PrincipalRateThrottle.THROTTLE_RATES, "operator", "2/min")
    operator_client.get(ME)  # remembered; 1 of 2 used

    assert [operator_client.get(HEALTH).status_code for _ in range(3)] == [200] * 3
    assert operator_client.get(ME)["RateLimit-Remaining"] == "0"


@pytest.mark.django_db
def test_a_request_the_permissions_refuse_is_counted_once_the_key_is_accepted(operator_client):
    limit = int(PrincipalRateThrottle.THROTTLE_RATES["operator"].split("/")[0])
    for expected_remaining in (limit - 1, limit - 2):  # read from the database, then remembered
        refused = operator_client.get(STAFF)
        assert refused.status_code == 403
        assert refused["RateLimit-Remaining"] == str(expected_remaining)
    assert operator_client.get(ME)["RateLimit-Remaining"] == str(limit - 3)


@pytest.mark.django_db
def test_each_request_gets_its_own_instances(operator, operator_key):

    def authenticated():
        request = Request(
            APIRequestFactory().get(ME, HTTP_AUTHORIZATION=f"Bearer {operator_key}"),
            parser_context={"view": None},
        )
        return OperatorApiKeyAuthentication().authenticate(request)[0]

    first, second = authenticated(), authenticated()  # the second from what was remembered
    first.operator.name = "changed by a view"

    assert second.operator is not first.operator and second.api_key is not first.api_key
    assert authenticated().operator.name == operator.name


# --- What ends a remembered key ---------------------------------------------------------------
@pytest.mark.django_db
def test_a_revocation_ends_the_remembered_key_at_once(operator, operator_key, operator_client):
    services.api_key_create(operator=operator, name="spare", actor=SYSTEM)
    operator_client.get(ME)
    key = OperatorApiKey.objects.get(prefix=operator_key.split("_")[1])

    services.api_key_revoke(api_key=key, actor=SYSTEM)

    assert get_counting_lookups(operator_client) == (401, 1)


@pytest.mark.django_db
def test_any_change_to_the_operator_is_seen_at_the_next_request(operator, operator_client):
    operator_client.get(ME)
    services.signing_secret_create(operator=operator, actor=SYSTEM)
    services.operator_update(operator=operator, require_signed_requests=True, actor=SYSTEM)

    response = operator_client.get(ME)

    assert response.status_code == 401  # unsigned, and signing is now required
    assert response.json()["type"].endswith("/signature-invalid")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change",
    [
        lambda op: Operator.objects.filter(pk=op.pk).update(status=Operator.Status.SUSPENDED),
        lambda op: op.api_keys.update(revoked_at=timezone.now()),
        lambda op: OperatorApiKey.objects.filter(operator=op).delete(),
    ],
    ids=["operator-update", "key-update", "key-delete"],
)
def test_changes_made_in_bulk_end_it_too(operator, operator_client, change):
    operator_client.get(ME)

    change(operator)

    assert operator_client.get(ME).status_code == 401


@pytest.mark.django_db
def test_recording_a_keys_last_use_keeps_the_epoch(operator_client):
    operator_client.get(ME)
    epoch = cache.get(remembered_credentials.EPOCH_KEY)

    OperatorApiKey.objects.update(last_used_at=timezone.now() - timedelta(hours=1))

    assert cache.get(remembered_credentials.EPOCH_KEY) == epoch
    assert get_counting_lookups(operator_client) == (200, 0)


@pytest.mark.django_db
def test_a_change_to_another_operator_makes_every_key_read_again(operator_client):
    operator_client.get(ME)

    other = OperatorFactory()
    other.name = "renamed"
    other.save()

    assert get_counting_lookups(operator_client) == (200, 1)


@pytest.mark.django_db
def test_a_grace_period_ends_on_time_without_any_write(operator, operator_key, monkeypatch):
    key = OperatorApiKey.objects.get(prefix=operator_key.split("_")[1])
    key.revoked_at = timezone.now() + timedelta(minutes=5)
    key.save()
    client = bearer_client(operator_key)
    assert client.get(ME).status_code == 200

    later = timezone.now() + timedelta(minutes=6)
    monkeypatch.setattr("gin_platform.http.authentication.timezone.now", lambda: later)

    assert get_counting_lookups(client) == (401, 0)  # decided on the remembered row


@pytest.mark.django_db
def test_a_flushed_or_restarted_redis_remembers_nothing(operator_client):
    operator_client.get(ME)

    cache.clear()  # the epoch is gone with everything else

    assert get_counting_lookups(operator_client) == (200, 1)
    assert get_counting_lookups(operator_client) == (200, 0)


@pytest.mark.django_db
def test_a_remembered_key_is_read_again_after_remember_seconds(operator_client, monkeypatch):
    operator_client.get(ME)
    now = remembered_credentials.time.monotonic()
    monkeypatch.setattr(
        remembered_credentials.time,
        "monotonic",
        lambda: now + remembered_credentials.REMEMBER_SECONDS + 1,
    )

    assert get_counting_lookups(operator_client) == (200, 1)


@pytest.mark.django_db
def test_without_redis_every_request_reads_the_database(operator_client, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

    assert get_counting_lookups(operator_client) == (200, 1)
    assert get_counting_lookups(operator_client) == (200, 1)


@pytest.mark.django_db
def test_an_unreachable_redis_reads_the_database_and_remembers_nothing(operator_client, settings):
    operator_client.get(ME)  # remembered under the real Redis's epoch
    settings.CACHES = {
        "default": {
            "BACKEND": "gin_platform.request_path.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        }
    }

    assert get_counting_lookups(operator_client) == (200, 1)
    assert get_counting_lookups(operator_client) == (200, 1)


# --- The order of the epoch, the read and the commit, on PostgreSQL ---------------------------
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_row_read_while_a_revocation_commits_is_not_taken_afterwards():
    """A request that reads the key after the revocation started but before it committed
    sees the key in force (200) and remembers it; the commit's epoch ends that: the next
    request reads the database again and is refused."""
    operator = OperatorFactory()
    services.api_key_create(operator=operator, name="spare", actor=SYSTEM)
    issued = services.api_key_create(operator=operator, actor=SYSTEM)
    client = bearer_client(issued.key)
    assert client.get(ME).status_code == 200

    revoked, release, done = threading.Event(), threading.Event(), threading.Event()

    def revoke_and_hold_the_commit():
        try:
            with transaction.atomic():
                services.api_key_revoke(api_key=issued.api_key, actor=SYSTEM)
                revoked.set()
                release.wait(timeout=30)
        finally:
            connection.close()
            done.set()

    writer = threading.Thread(target=revoke_and_hold_the_commit)
    writer.start()
    try:
        assert revoked.wait(timeout=30)
        assert get_counting_lookups(client) == (200, 1)  # not committed yet: in force
        assert get_counting_lookups(client) == (200, 0)  # remembered, under the first epoch
    finally:
        release.set()
        writer.join(timeout=30)
    assert done.is_set()

    assert get_counting_lookups(client) == (401, 1)


# --- Player sessions ---------------------------------------------------------------------------
@pytest.fixture
def session_client(player) -> tuple[APIClient, PlayerSession]:
    issued = services.player_session_create(player=player, actor=SYSTEM)
    return bearer_client(issued.token), issued.session


@pytest.mark.django_db
def test_a_session_is_read_once_then_remembered_in_one_round_trip(session_client, round_trips):
    client, _ = session_client
    assert get_counting_lookups(client, WALLET) == (200, 1)
    round_trips.clear()

    assert get_counting_lookups(client, WALLET) == (200, 0)
    assert round_trips == ["evalsha"]


@pytest.mark.django_db
def test_a_new_session_or_player_keeps_the_epoch(session_client, operator):
    client, _ = session_client
    client.get(WALLET)
    epoch = cache.get(remembered_credentials.EPOCH_KEY)

    services.player_session_create(player=PlayerFactory(operator=operator), actor=SYSTEM)

    assert cache.get(remembered_credentials.EPOCH_KEY) == epoch
    assert get_counting_lookups(client, WALLET) == (200, 0)


@pytest.mark.django_db
def test_a_revoked_session_is_refused_at_once(session_client):
    client, session = session_client
    client.get(WALLET)

    services.player_session_revoke(session=session, actor=SYSTEM)

    assert get_counting_lookups(client, WALLET) == (401, 1)


@pytest.mark.django_db
def test_a_suspended_player_is_refused_at_once(session_client, player):
    client, _ = session_client
    client.get(WALLET)

    services.player_update(player=player, status=Player.Status.SUSPENDED, actor=SYSTEM)

    assert get_counting_lookups(client, WALLET) == (401, 1)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change",
    [
        lambda s: Player.objects.filter(pk=s.player_id).update(status=Player.Status.SUSPENDED),
        lambda s: PlayerSession.objects.filter(pk=s.pk).update(revoked_at=timezone.now()),
        lambda s: Operator.objects.filter(pk=s.player.operator_id).update(
            status=Operator.Status.SUSPENDED
        ),
    ],
    ids=["player-update", "session-update", "operator-update"],
)
def test_bulk_changes_refuse_the_session_too(session_client, change):
    client, session = session_client
    client.get(WALLET)

    change(session)

    assert client.get(WALLET).status_code == 401


@pytest.mark.django_db
def test_a_session_expires_on_time_without_any_write(session_client, monkeypatch):
    client, session = session_client
    client.get(WALLET)
    later = session.expires_at + timedelta(seconds=1)
    monkeypatch.setattr("gin_platform.http.authentication.timezone.now", lambda: later)

    assert get_counting_lookups(client, WALLET) == (401, 0)  # decided on the remembered row


@pytest.mark.django_db
def test_deleting_a_session_that_no_longer_authenticates_keeps_the_epoch(session_client, player):
    client, _ = session_client
    spent = services.player_session_create(player=player, actor=SYSTEM).session
    services.player_session_revoke(session=spent, actor=SYSTEM)
    client.get(WALLET)
    epoch = cache.get(remembered_credentials.EPOCH_KEY)

    PlayerSession.objects.filter(pk=spent.pk).delete()

    assert cache.get(remembered_credentials.EPOCH_KEY) == epoch
    live = services.player_session_create(player=player, actor=SYSTEM).session
    PlayerSession.objects.filter(pk=live.pk).delete()
    assert cache.get(remembered_credentials.EPOCH_KEY) != epoch


@pytest.mark.django_db
def test_the_players_limit_holds_for_a_remembered_session(session_client, monkeypatch):
    client, _ = session_client
    monkeypatch.setitem(PrincipalRateThrottle.THROTTLE_RATES, "player", "2/min")

    assert [client.get(WALLET).status_code for _ in range(4)] == [200, 200, 429, 429]

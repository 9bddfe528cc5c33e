"""Operator API keys, player tokens and staff passwords: missing, wrong, revoked, expired,
locked out."""

import base64
import contextlib
from datetime import timedelta
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.test import Client, RequestFactory
from django.utils import timezone
from django_otp.plugins.otp_totp.models import TOTPDevice
from rest_framework.test import APIClient

from gin_platform.models import Operator, OperatorApiKey, PlayerSession
from gin_platform.staff import login_attempts
from gin_platform.staff.login_attempts import staff_secret_check
from gin_platform.tenancy.services import api_key_create, api_key_revoke, player_session_revoke
from gin_platform.tenancy.tokens import hash_secret
from tests.factories import SYSTEM, totp_code
from tests.helpers import assert_problem, bearer_client

pytestmark = pytest.mark.django_db
ME = "/api/v1/operators/me"


def test_missing_credentials_are_401_not_authenticated():
    response = APIClient().get(ME)
    assert_problem(response, 401, "not-authenticated")
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_a_valid_key_authenticates_the_operator(operator_client, operator):
    response = operator_client.get(ME)
    assert response.status_code == 200
    assert response.json()["slug"] == operator.slug


def test_the_key_is_stored_hashed_and_looked_up_by_its_prefix(operator, operator_key):
    stored = OperatorApiKey.objects.get(operator=operator)
    assert operator_key.startswith(f"gop_{stored.prefix}_")
    assert stored.key_hash == hash_secret(operator_key)
    assert operator_key not in str(OperatorApiKey.objects.values().get(pk=stored.pk))


@pytest.mark.parametrize(
    "mangle",
    [
        lambda key: key[:-2] + ("AA" if not key.endswith("AA") else "BB"),  # wrong secret
        lambda key: "gop_000000000000_" + key.split("_", 2)[2],  # unknown prefix
        lambda key: "gop_garbage",  # malformed
    ],
)
def test_a_wrong_key_is_401(operator_key, mangle):
    client = bearer_client(mangle(operator_key))
    response = client.get(ME)
    assert_problem(response, 401, "authentication-failed")


def test_a_revoked_key_is_401(operator, operator_key, operator_client):
    api_key_revoke(
        api_key=OperatorApiKey.objects.get(operator=operator), actor=SYSTEM, allow_last=True
    )
    response = operator_client.get(ME)
    assert_problem(response, 401, "authentication-failed")


def test_a_suspended_operator_cannot_authenticate(operator, operator_client):
    Operator.objects.filter(pk=operator.pk).update(status=Operator.Status.SUSPENDED)
    assert operator_client.get(ME).status_code == 401


def test_several_keys_work_and_revoking_one_keeps_the_other(operator, operator_key):
    second = api_key_create(operator=operator, name="second", actor=SYSTEM)
    api_key_revoke(
        api_key=OperatorApiKey.objects.get(prefix=operator_key.split("_")[1]), actor=SYSTEM
    )
    client = bearer_client(second.key)
    assert client.get(ME).status_code == 200


def test_last_used_is_recorded(operator, operator_client):
    operator_client.get(ME)
    assert OperatorApiKey.objects.get(operator=operator).last_used_at is not None


def test_player_token_authenticates_the_player_only_for_player_endpoints(player_client):
    # /operators/me needs an operator key: a player is authenticated but not permitted.
    response = player_client.get(ME)
    assert_problem(response, 403, "permission-denied")


def test_an_expired_player_token_is_401(player, player_token, player_client):
    PlayerSession.objects.filter(player=player).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    response = player_client.get(ME)
    assert_problem(response, 401, "authentication-failed")


def test_a_revoked_player_token_is_401(player, player_token, player_client):
    player_session_revoke(session=PlayerSession.objects.get(player=player), actor=SYSTEM)
    assert player_client.get(ME).status_code == 401


def test_an_unknown_player_token_is_401():
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer gps_not-a-real-token")
    assert client.get(ME).status_code == 401


def test_staff_are_not_operators(staff_client):
    assert staff_client.get(ME).status_code == 403


def test_a_key_whose_revocation_is_scheduled_works_until_then(operator, operator_client):
    key = OperatorApiKey.objects.get(operator=operator)
    key.revoked_at = timezone.now() + timedelta(minutes=5)
    key.save()
    assert operator_client.get(ME).status_code == 200
    key.revoked_at = timezone.now() - timedelta(seconds=1)
    key.save()
    assert operator_client.get(ME).status_code == 401


# --- Staff: django-axes lockout -------------------------------------------------------------
ATTACKER, HONEST = "198.51.100.66", "203.0.113.10"
LOGIN = "/admin/login/?next=/admin/"


@pytest.fixture
def staff(django_user_model, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    user = django_user_model.objects.create_superuser("boss", password="pw-boss-correct")
    TOTPDevice.objects.create(user=user, name="tests", confirmed=True)
    return user


def admin_login(password: str, address: str):
    """The admin login form; a superuser also types the TOTP code (docs/backoffice.md)."""
    code = totp_code(TOTPDevice.objects.get(user__username="boss"))
    return Client(REMOTE_ADDR=address).post(
        LOGIN, {"username": "boss", "password": password, "otp_token": code}
    )


def test_the_admin_login_locks_an_address_out_after_repeated_failures(staff):
    assert [admin_login(f"wrong-{n}", ATTACKER).status_code for n in range(4)] == [200] * 4
    fifth = admin_login("wrong-5", ATTACKER)
    assert fifth.status_code == 429
    assert fifth.json()["type"] == "/problems/login-locked-out"
    assert 14 * 60 < int(fifth["Retry-After"]) <= 15 * 60 + 1

    # Locked out: even the right password is not checked from there...
    assert admin_login("pw-boss-correct", ATTACKER).status_code == 429
    # ... while the same account logs in from anywhere else.
    assert admin_login("pw-boss-correct", HONEST).status_code == 302


def test_the_lockout_ends_after_the_cool_off(staff):
    for n in range(5):
        admin_login(f"wrong-{n}", ATTACKER)
    assert admin_login("pw-boss-correct", ATTACKER).status_code == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert admin_login("pw-boss-correct", ATTACKER).status_code == 302


def test_the_staff_api_shares_the_lockout_with_the_admin(staff):
    for n in range(5):
        admin_login(f"wrong-{n}", ATTACKER)
    credentials = base64.b64encode(b"boss:pw-boss-correct").decode()
    client = APIClient(REMOTE_ADDR=ATTACKER)
    client.credentials(HTTP_AUTHORIZATION=f"Basic {credentials}")
    response = client.get("/api/v1/staff/ledger/reconciliation")
    assert_problem(response, 429, "login-locked-out")
    assert int(response["Retry-After"]) > 0


# --- Staff: attempts in flight (gin_platform/staff/login_attempts.py) -----------------------------
# tests/platform/test_staff_login_races.py sends them really at once, to a real server.
def staff_api(password: str, address: str = ATTACKER):
    client = APIClient(REMOTE_ADDR=address)
    client.credentials(
        HTTP_AUTHORIZATION="Basic " + base64.b64encode(f"boss:{password}".encode()).decode()
    )
    return client.get("/api/v1/staff/ledger/reconciliation")


@contextlib.contextmanager
def in_flight(count: int, address: str = ATTACKER):
    """``count`` staff secrets of ``address`` being checked elsewhere meanwhile (other
    requests, other processes): each holds one of the address's attempt slots."""

    with contextlib.ExitStack() as stack:
        for _ in range(count):
            request = RequestFactory().get("/", REMOTE_ADDR=address)
            stack.enter_context(staff_secret_check(request, username="boss"))
        yield


def test_checks_in_flight_count_against_the_failures_left(staff, password_checks, settings):
    settings.STAFF_LOGIN_WAIT_SECONDS = 0.3
    for n in range(3):
        assert staff_api(f"wrong-{n}").status_code == 401
    # 3 failures, 2 checks in flight: no room below the limit (5). The attempt waits for
    # room, finds none in time and is refused without its password being checked.
    with in_flight(2):
        refused = staff_api("wrong-3")
        assert_problem(refused, 429, "throttled")
        assert int(refused["Retry-After"]) >= 1
        # Another address is not concerned.
        assert staff_api("pw-boss-correct", address=HONEST).status_code == 200
    assert password_checks == ["boss"] * 4
    # The checks in flight ended (successes, say): the room is back.
    assert staff_api("wrong-3").status_code == 401
    assert password_checks == ["boss"] * 5


def test_a_locked_out_address_is_refused_before_any_slot_is_waited_for(staff, password_checks):
    for n in range(5):
        staff_api(f"wrong-{n}")
    assert len(password_checks) == 5
    assert_problem(staff_api("pw-boss-correct"), 429, "login-locked-out")
    assert len(password_checks) == 5


def test_an_unreachable_cache_leaves_the_lockout_to_axes(staff, password_checks, settings):
    settings.CACHES = {  # nothing listens on port 1: every cache call is refused
        "default": {
            "BACKEND": "gin_platform.request_path.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        }
    }
    assert staff_api("pw-boss-correct").status_code == 200
    for n in range(5):
        staff_api(f"wrong-{n}")
    assert_problem(staff_api("pw-boss-correct"), 429, "login-locked-out")
    assert len(password_checks) == 6


def test_backoffice_md_quotes_the_attempt_slots_as_the_code_keeps_them(settings):
    page = Path(__file__).resolve().parents[2] / "docs" / "backoffice.md"
    text = " ".join(page.read_text().split())
    assert f"(at most {login_attempts.MOST_IN_FLIGHT} at once," in text
    assert f"ending by itself after {login_attempts.SLOT_SECONDS} s" in text
    assert f"every ~{round(login_attempts.POLL_SECONDS * 1000)} ms" in text
    assert f"After {settings.STAFF_LOGIN_WAIT_SECONDS:g} s without room" in text
    assert "(`STAFF_LOGIN_WAIT_SECONDS`)" in text

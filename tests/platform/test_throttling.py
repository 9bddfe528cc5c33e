"""The sliding-window counter throttle (gin_platform/http/throttling.py): limits, 429s, cost,
races."""

from __future__ import annotations

import base64
import logging
import secrets
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest
import redis
from django.conf import settings
from django.core.cache import cache
from rest_framework.test import APIClient

from gin_platform.http import throttling
from gin_platform.http.throttling import PrincipalRateThrottle, client_address
from gin_platform.request_path import cache as cache_backend
from gin_platform.tenancy.principals import OperatorPrincipal, PlayerPrincipal
from tests.factories import OperatorFactory, PlayerFactory
from tests.factories import staff_user as staff_user_with_roles
from tests.helpers import FrozenClock
from tests.races import race

PERIOD = 60
T0 = 1_000_000 * PERIOD  # a window boundary, so tests can say "elapsed" plainly


def at(seconds: float) -> datetime:
    """The moment ``seconds`` after the epoch, for ``clock.set``."""
    return datetime.fromtimestamp(seconds, UTC)


@pytest.fixture
def clock(monkeypatch) -> FrozenClock:
    """The throttle's timer (``SimpleRateThrottle.timer``), held at T0 until the test moves it."""
    clock = FrozenClock(at(T0))
    # A bound method set on the class stays bound to the clock, not to the throttle.
    monkeypatch.setattr(PrincipalRateThrottle, "timer", clock.timestamp)
    return clock


@pytest.fixture
def rates(monkeypatch):
    def set_rate(scope: str, rate: str) -> None:
        monkeypatch.setitem(PrincipalRateThrottle.THROTTLE_RATES, scope, rate)

    return set_rate


def caller(user=None, ip: str = "203.0.113.7") -> SimpleNamespace:
    """The parts of a DRF request the throttle reads."""
    return SimpleNamespace(user=user, META={"REMOTE_ADDR": ip}, headers={})


def operator_principal(pk: int) -> OperatorPrincipal:
    return OperatorPrincipal(operator=OperatorFactory.build(pk=pk), api_key=None)


def player_principal(pk: int) -> PlayerPrincipal:
    return PlayerPrincipal(player=PlayerFactory.build(pk=pk), session=None)


def hit(request) -> bool:
    return PrincipalRateThrottle().allow_request(request, view=None)


def admitted(request, attempts: int) -> int:
    return sum(hit(request) for _ in range(attempts))


# --- Over HTTP: the limit and the 429 problem ---------------------------------------------
@pytest.mark.django_db
def test_exactly_the_limit_passes_in_one_window(operator_client, rates, clock):
    rates("operator", "5/min")
    statuses = [operator_client.get("/api/v1/operators/me").status_code for _ in range(7)]
    assert statuses == [200] * 5 + [429] * 2


@pytest.mark.django_db
def test_the_refusal_is_the_throttled_problem_with_retry_after(operator_client, rates, clock):
    rates("operator", "2/min")
    clock.set(at(T0 + 15))
    for _ in range(2):
        assert operator_client.get("/api/v1/operators/me").status_code == 200
    response = operator_client.get("/api/v1/operators/me")

    assert response.status_code == 429
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["type"] == "/problems/throttled"
    assert body["status"] == 429 and body["title"] == "Too many requests"
    # This window is full (45 s left); in the next one its 2 hits weigh 2 * (1 - t/60),
    # which leaves room for one more at t = 30 s: 75 s in all.
    assert body["retry_after"] == pytest.approx(75)
    assert response["Retry-After"] == "76"


def rate_limit(response) -> tuple[int, int, int]:
    """The RateLimit-Limit, -Remaining and -Reset of an answer, as integers."""
    return tuple(int(response[name]) for name in throttling.RATE_LIMIT_HEADERS)


@pytest.mark.django_db
def test_every_answer_says_the_limit_what_remains_and_when_it_resets(operator_client, rates, clock):
    rates("operator", "5/min")
    clock.set(at(T0 + 15))
    answers = [operator_client.get("/api/v1/operators/me") for _ in range(5)]

    assert [a.status_code for a in answers] == [200] * 5
    # Each request takes one; the hits slide out over the next window, which ends at
    # T0 + 120: 105 s away, rounded up like Retry-After.
    assert [rate_limit(a) for a in answers] == [(5, n, 106) for n in (4, 3, 2, 1, 0)]

    clock.set(at(T0 + PERIOD + 30))  # half of the last window's 5 hits have slid out
    # An error answered after the throttle counted the request says it too.
    missing = operator_client.get("/api/v1/players/00000000-0000-0000-0000-000000000000")
    assert missing.status_code == 404
    assert rate_limit(missing) == (5, 1, 91)  # 5 * 0.5 + 1 = 3.5 taken; gone at T0 + 180


@pytest.mark.django_db
def test_the_refusal_has_nothing_remaining_and_resets_no_sooner_than_retry_after(
    operator_client, rates, clock
):
    rates("operator", "2/min")
    clock.set(at(T0 + 15))
    for _ in range(2):
        operator_client.get("/api/v1/operators/me")
    refused = [operator_client.get("/api/v1/operators/me") for _ in range(2)]

    for response in refused:
        assert response.status_code == 429
        limit, remaining, reset = rate_limit(response)
        assert (limit, remaining) == (2, 0)
        # Retry-After: when one more request passes (76 s); Reset: when both hits are gone.
        assert reset == 106 >= int(response["Retry-After"]) == 76


@pytest.mark.django_db
def test_answers_the_throttle_did_not_count_carry_no_rate_limit(rates, clock):
    rates("anon", "2/min")
    client = APIClient()
    health = client.get("/api/v1/health")  # never throttled
    unknown_key = client.get("/api/v1/operators/me", HTTP_AUTHORIZATION="Bearer gop_x_y")

    assert health.status_code == 200 and unknown_key.status_code == 401
    for response in (health, unknown_key):
        assert not any(name in response for name in throttling.RATE_LIMIT_HEADERS)


def test_the_status_weighs_the_last_window_like_the_admission(rates, clock):
    rates("anon", "10/min")
    request = caller()

    def answer() -> dict[str, str]:
        view = SimpleNamespace(headers={})
        PrincipalRateThrottle().allow_request(request, view)
        return view.headers

    assert [answer()["RateLimit-Remaining"] for _ in range(10)] == [str(n) for n in range(10)][::-1]
    clock.set(at(T0 + PERIOD))  # the last window's 10 hits weigh fully, none in this one yet
    assert answer() == {
        "RateLimit-Limit": "10",
        "RateLimit-Remaining": "0",
        "RateLimit-Reset": "61",
    }
    clock.set(at(T0 + PERIOD + 45))  # a quarter of them still weighs: 2.5 + 1 taken
    assert answer() == {
        "RateLimit-Limit": "10",
        "RateLimit-Remaining": "6",
        "RateLimit-Reset": "76",
    }
    clock.set(at(T0 + 5 * PERIOD))  # long quiet: a fresh bucket
    assert answer()["RateLimit-Remaining"] == "9"


def test_with_several_throttles_the_tightest_answers(rates, clock):
    rates("anon", "10/min")
    view = SimpleNamespace(headers={})
    for ip, hits in (("198.51.100.1", 1), ("198.51.100.2", 4), ("198.51.100.3", 2)):
        for _ in range(hits):
            PrincipalRateThrottle().allow_request(caller(ip=ip), view)
    assert view.headers["RateLimit-Remaining"] == "6"


@pytest.mark.django_db
def test_anonymous_callers_are_limited_per_address(rates, clock):
    rates("anon", "3/min")
    first = APIClient(REMOTE_ADDR="198.51.100.1")
    second = APIClient(REMOTE_ADDR="198.51.100.2")
    assert [first.get("/api/v1/problems").status_code for _ in range(4)] == [200] * 3 + [429]
    assert second.get("/api/v1/problems").status_code == 200


# --- The sliding window --------------------------------------------------------------------
def test_the_window_slides(rates, clock):
    rates("anon", "10/min")
    request = caller()
    assert admitted(request, 15) == 10

    clock.set(at(T0 + PERIOD))  # next window: the last one's 10 hits still weigh fully
    assert admitted(request, 5) == 0
    clock.set(at(T0 + PERIOD + 30))  # half of them have slid out
    assert admitted(request, 10) == 5
    clock.set(at(T0 + PERIOD + 45))  # three quarters: 2.5 + 7 <= 10
    assert admitted(request, 10) == 2
    clock.set(at(T0 + 2 * PERIOD))  # two windows on: the 7 of the last window weigh fully
    assert admitted(request, 10) == 3
    clock.set(at(T0 + 4 * PERIOD))  # nothing left in the previous window
    assert admitted(request, 15) == 10


@pytest.mark.parametrize(
    ("limit", "previous", "elapsed"),
    [
        (10, 0, 0),  # a fresh bucket filled at the window's start: wait for the next window
        (10, 0, 50),  # filled late in the window
        (10, 8, 20),  # room in this window once more of the last one has slid out
        (7, 3, 10),
        (1, 1, 30),
        (7, 7, 59),  # the room opens exactly at the window boundary
    ],
)
def test_wait_is_when_the_next_request_gets_through(rates, clock, limit, previous, elapsed):
    """`previous` hits in the last window, then as many as pass `elapsed` into this one."""
    rates("anon", f"{limit}/min")
    request = caller()
    clock.set(at(T0 - PERIOD))
    assert admitted(request, previous) == previous
    clock.set(at(T0 + elapsed))
    admitted(request, 2 * limit)

    throttle = PrincipalRateThrottle()
    assert throttle.allow_request(request, view=None) is False
    wait = throttle.wait()
    assert wait > 0

    clock.set(at(T0 + elapsed + wait - 0.01))
    assert hit(request) is False
    clock.set(at(T0 + elapsed + wait + 0.01))
    assert hit(request) is True


# --- Buckets -------------------------------------------------------------------------------
def test_each_principal_and_scope_has_its_own_bucket_under_the_same_key_as_before(rates, clock):
    for scope in ("operator", "player", "anon"):
        rates(scope, "2/min")
    callers = {
        "throttle:operator:operator:1": caller(operator_principal(1)),
        "throttle:operator:operator:2": caller(operator_principal(2)),
        "throttle:player:player:1": caller(player_principal(1)),
        "throttle:player:player:2": caller(player_principal(2)),
        "throttle:anon:ip:192.0.2.1": caller(ip="192.0.2.1"),
        "throttle:anon:ip:192.0.2.2": caller(ip="192.0.2.2"),
    }
    for request in callers.values():
        assert admitted(request, 3) == 2
    window = T0 // PERIOD
    assert cache.get_many([f"{key}:{window}" for key in callers]) == {
        f"{key}:{window}": 2 for key in callers
    }


def test_the_rate_depends_on_the_kind_of_caller(rates, clock):
    rates("operator", "6/min")
    rates("player", "4/min")
    rates("anon", "2/min")
    assert admitted(caller(operator_principal(1)), 10) == 6
    assert admitted(caller(player_principal(1)), 10) == 4
    assert admitted(caller(), 10) == 2


# --- O(1) per request ----------------------------------------------------------------------
class RecordingCache:
    """Passes every call to the real cache and notes the method and the keys it touched."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.keys: set[str] = set()

    def __getattr__(self, name):
        method = getattr(cache, name)

        def call(*args, **kwargs):
            self.calls.append(name)
            keys = args[0] if name == "get_many" else [args[0]]
            self.keys.update(keys)
            return method(*args, **kwargs)

        return call


def test_a_request_costs_the_same_whatever_the_count(rates, clock, monkeypatch):
    rates("operator", "100000/min")
    recorder = RecordingCache()
    monkeypatch.setattr(PrincipalRateThrottle, "cache", recorder)
    request = caller(operator_principal(1))

    costs = []
    for _ in range(3000):
        recorder.calls.clear()
        assert hit(request)
        costs.append(tuple(recorder.calls))

    # The first request creates the counter; every other one is one read and one increment.
    assert costs[0] == ("get_many", "add", "incr")
    assert set(costs[1:]) == {("get_many", "incr")}
    window = T0 // PERIOD
    key = f"throttle:operator:operator:1:{window}"
    assert recorder.keys == {key, f"throttle:operator:operator:1:{window - 1}"}
    assert cache.get(key) == 3000  # one small integer, not a list of timestamps


def test_refused_requests_only_read_and_do_not_count(rates, clock, monkeypatch):
    rates("anon", "5/min")
    request = caller()
    assert admitted(request, 5) == 5
    recorder = RecordingCache()
    monkeypatch.setattr(PrincipalRateThrottle, "cache", recorder)

    assert admitted(request, 100) == 0
    assert set(recorder.calls) == {"get_many"}
    assert cache.get(f"throttle:anon:ip:203.0.113.7:{T0 // PERIOD}") == 5


def test_a_request_that_loses_the_race_for_the_last_slot_takes_its_hit_back(rates, clock):
    rates("anon", "3/min")
    request = caller()
    key = f"throttle:anon:ip:203.0.113.7:{T0 // PERIOD}"
    assert admitted(request, 2) == 2

    throttle = PrincipalRateThrottle()
    real_get_many = throttle.cache.get_many

    def read_then_lose_the_race(keys):
        counts = real_get_many(keys)  # sees 2: room for one more
        assert hit(request) is True  # another process takes the last slot meanwhile
        return counts

    throttle.cache = SimpleNamespace(
        get_many=read_then_lose_the_race,
        add=cache.add,
        incr=cache.incr,
        decr=cache.decr,
    )
    assert throttle.allow_request(request, view=None) is False
    assert throttle.wait() > 0
    assert cache.get(key) == 3


# --- The cache is down ---------------------------------------------------------------------
@pytest.mark.django_db
def test_an_unreachable_cache_lets_requests_through_with_one_warning(
    operator_client, settings, rates, monkeypatch, caplog
):
    rates("operator", "1/min")
    monkeypatch.setattr(cache_backend, "_cache_warning", cache_backend.IntervalWarner(60))
    settings.CACHES = {  # nothing listens on port 1: every cache call is refused
        "default": {
            "BACKEND": "gin_platform.request_path.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        }
    }
    with caplog.at_level(logging.WARNING, logger="gin_platform.request_path.cache"):
        statuses = [operator_client.get("/api/v1/operators/me").status_code for _ in range(3)]

    assert statuses == [200, 200, 200]
    warnings = [r for r in caplog.records if r.name == "gin_platform.request_path.cache"]
    assert len(warnings) == 1
    assert "failing open" in warnings[0].getMessage()


# --- Real concurrency on Redis -------------------------------------------------------------
@pytest.mark.redis
def test_racing_threads_on_redis_never_let_more_than_the_limit_through(rates, clock):
    limit, threads, attempts = 25, 16, 20
    rates("operator", f"{limit}/min")
    request = caller(operator_principal(1))
    # Each thread gets its own cache connection (Django's caches are per thread).
    results = race(threads, lambda _: admitted(request, attempts))
    total = sum(results)
    assert len(results) == threads
    assert 0 < total <= limit
    key = f"throttle:operator:operator:1:{T0 // PERIOD}"
    # In Redis itself: a plain integer (INCRBY's), equal to what got through.
    raw = redis.Redis.from_url(settings.REDIS_URL).get(cache.make_key(key))
    assert raw == str(total).encode()


# --- Failed authentication ------------------------------------------------------------------
ME = "/api/v1/operators/me"
STAFF = "/api/v1/staff/ledger/reconciliation"
ATTACKER, HONEST = "198.51.100.66", "203.0.113.10"


def client_from(address: str, authorization: str | None = None) -> APIClient:
    client = APIClient(REMOTE_ADDR=address)
    if authorization:
        client.credentials(HTTP_AUTHORIZATION=authorization)
    return client


def random_key(prefix: str | None = None) -> str:
    return f"gop_{prefix or secrets.token_hex(6)}_{secrets.token_urlsafe(32)}"


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


@pytest.fixture
def staff_user(db, django_user_model, settings):
    # A fast hasher keeps the test quick; the tests count hash checks, not their cost.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # The finance role: the staff endpoints check a role's permission (docs/backoffice.md).
    return staff_user_with_roles("ops", "finance", password="pw-ops-correct", otp=False)


@pytest.mark.django_db
def test_random_api_keys_from_one_address_get_429_before_any_lookup(
    operator_client, django_assert_num_queries
):
    statuses = [client_from(ATTACKER, f"Bearer {random_key()}").get(ME) for _ in range(140)]

    assert [r.status_code for r in statuses] == [401] * 20 + [429] * 120
    refused = statuses[-1]
    assert refused["Content-Type"] == "application/problem+json"
    assert refused.json()["type"] == "/problems/throttled"
    assert int(refused["Retry-After"]) >= 1
    with django_assert_num_queries(0):  # no key lookup, no hash: the cache answers
        assert client_from(ATTACKER, f"Bearer {random_key()}").get(ME).status_code == 429
    # The operator, from its own address, is not slowed down by any of it.
    assert operator_client.get(ME, REMOTE_ADDR=HONEST).status_code == 200


@pytest.mark.django_db
def test_an_honest_operator_is_unaffected_by_failures_on_its_own_key_prefix_elsewhere(
    operator, operator_key
):
    prefix = operator_key.split("_")[1]
    # An attacker who learnt the prefix tries it from many addresses: the prefix is hot...
    for n in range(30):
        client_from(f"192.0.2.{n}", f"Bearer {random_key(prefix)}").get(ME)
    again = client_from("192.0.2.1", f"Bearer {random_key(prefix)}").get(ME)
    assert again.status_code == 429
    assert again.json()["type"] == "/problems/throttled"
    # ... yet the operator's own address, which never failed, gets through with its key.
    assert client_from(HONEST, f"Bearer {operator_key}").get(ME).status_code == 200


@pytest.mark.django_db
def test_only_failures_count(operator_key, rates):
    rates("operator", "1000/min")
    client = client_from(ATTACKER, f"Bearer {operator_key}")
    assert {client.get(ME).status_code for _ in range(50)} == {200}
    assert client_from(ATTACKER, f"Bearer {random_key()}").get(ME).status_code == 401


@pytest.mark.django_db
def test_failure_limits_come_from_the_throttle_rates(rates, operator_client):
    rates("auth_failures_address", "3/min")
    statuses = [
        client_from(ATTACKER, f"Bearer {random_key()}").get(ME).status_code for _ in range(5)
    ]
    assert statuses == [401, 401, 401, 429, 429]


@pytest.mark.django_db
def test_random_player_tokens_are_throttled_per_address(player_client):
    statuses = [
        client_from(ATTACKER, f"Bearer gps_{secrets.token_urlsafe(32)}").get("/api/v1/me/wallet")
        for _ in range(30)
    ]
    assert [r.status_code for r in statuses] == [401] * 20 + [429] * 10
    assert player_client.get("/api/v1/me/wallet", REMOTE_ADDR=HONEST).status_code == 200


@pytest.mark.django_db
def test_wrong_staff_passwords_stop_reaching_the_password_hash(staff_user, password_checks):
    statuses = [
        client_from(ATTACKER, basic("ops", f"guess-{n}")).get(STAFF).status_code for n in range(140)
    ]

    # django-axes locks the address out after 5 failures: 429 without a password check.
    assert statuses[:4] == [401] * 4
    assert set(statuses[5:]) == {429}
    assert len(password_checks) == 5
    refused = client_from(ATTACKER, basic("ops", "pw-ops-correct")).get(STAFF)
    assert refused.status_code == 429
    assert refused.json()["type"] == "/problems/login-locked-out"
    assert len(password_checks) == 5
    # The same staff member, from another address, is not locked out.
    assert client_from(HONEST, basic("ops", "pw-ops-correct")).get(STAFF).status_code == 200


@pytest.mark.django_db
def test_spraying_staff_usernames_from_one_address_is_throttled_too(
    staff_user, password_checks, settings
):
    settings.AXES_FAILURE_LIMIT = 1000  # show the throttle on its own
    statuses = [
        client_from(ATTACKER, basic(f"user{n}", "guess")).get(STAFF).status_code for n in range(40)
    ]
    assert statuses == [401] * 20 + [429] * 20
    assert len(password_checks) == 20


def test_the_client_address_trusts_x_forwarded_for_only_behind_declared_proxies(settings):
    spoofed = SimpleNamespace(
        META={"REMOTE_ADDR": "10.0.0.5", "HTTP_X_FORWARDED_FOR": "1.2.3.4, 198.51.100.7"}
    )
    # Unset (or 0): a header anyone can write is not an address.
    assert client_address(spoofed) == "10.0.0.5"
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    assert client_address(spoofed) == "198.51.100.7"
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 2}
    assert client_address(spoofed) == "1.2.3.4"
    garbage = SimpleNamespace(META={"REMOTE_ADDR": "10.0.0.5", "HTTP_X_FORWARDED_FOR": "nope"})
    assert client_address(garbage) == "10.0.0.5"


@pytest.mark.django_db
def test_spoofed_forwarded_addresses_do_not_escape_the_failure_throttle():
    statuses = [
        client_from(ATTACKER, f"Bearer {random_key()}")
        .get(ME, HTTP_X_FORWARDED_FOR=f"10.1.{n}.1")
        .status_code
        for n in range(25)
    ]
    assert statuses == [401] * 20 + [429] * 5


@pytest.mark.django_db
def test_an_unreachable_cache_lets_authentication_through(operator_key, settings, monkeypatch):
    monkeypatch.setattr(cache_backend, "_cache_warning", cache_backend.IntervalWarner(60))
    settings.CACHES = {
        "default": {
            "BACKEND": "gin_platform.request_path.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        }
    }
    assert client_from(ATTACKER, f"Bearer {random_key()}").get(ME).status_code == 401
    assert client_from(ATTACKER, f"Bearer {operator_key}").get(ME).status_code == 200


@pytest.mark.redis
def test_on_redis_each_admission_is_one_script_call(rates, clock, monkeypatch):
    """Read, decide and count in one atomic round trip (ADMIT_SCRIPT), not MGET then INCR.

    The commands are counted as this process sends them: the server's own counters
    (INFO commandstats) also move with every other test worker's calls."""
    sent: list[str] = []
    send = redis.Redis.execute_command

    def recorded(client, *args, **options):
        sent.append(str(args[0]).lower())
        return send(client, *args, **options)

    rates("anon", "3/min")
    request = caller(ip="198.51.100.77")
    hit(request)  # the first call may load the script (EVAL)
    monkeypatch.setattr(redis.Redis, "execute_command", recorded)
    assert admitted(request, 4) == 2
    assert sent == ["evalsha"] * 4

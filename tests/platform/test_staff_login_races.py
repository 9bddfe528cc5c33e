"""Staff secrets under concurrent attempts, on the web server as deployed (gunicorn, two
uvicorn worker processes, PostgreSQL, Redis): wrong passwords and TOTP codes sent all at
once from one address are checked no more often than django-axes allows failures
(AXES_FAILURE_LIMIT, 5), whichever worker process takes them (docs/backoffice.md
"Lockout").

The server serves the test database, so every test here is transactional: what it writes
is committed for the server to read, and flushed afterwards. Each scenario comes from its
own address (X-Forwarded-For, which the server trusts from the loopback proxy address).
The passwords are PBKDF2 hashes of 300 000 iterations (a tenth of a second of CPU each, as
the server checks them), so the attempts really overlap. Twenty-four of those queue for the
address's attempt slots; on a slow, busy host the last of them can wait longer than the
deployed 10 s for room, and a throttled answer would hide whether it was refused for the
lockout. So the server here lets an attempt wait 45 s.
"""

from __future__ import annotations

import base64
import re
import threading
from collections.abc import Iterator

import pytest
import requests
from axes.models import AccessAttempt
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection
from django.db.models import Sum
from django_otp.oath import TOTP

from gin_platform.demo.server import RunningServer, running_server
from tests.factories import staff_user

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

ATTEMPTS = 24
LIMIT = 5  # AXES_FAILURE_LIMIT
STAFF_READ = "/api/v1/staff/ledger/reconciliation"
STAFF_WRITE = "/api/v1/staff/approvals"  # moves money: finance needs the TOTP code
PASSWORD = "pw-fin-correct-horse"


def _database_url() -> str:
    settings = connection.settings_dict
    password = f":{settings['PASSWORD']}" if settings.get("PASSWORD") else ""
    user = f"{settings.get('USER') or 'postgres'}{password}@"
    host = settings.get("HOST") or "127.0.0.1"
    return f"postgres://{user}{host}:{settings.get('PORT') or 5432}/{settings['NAME']}"


@pytest.fixture(scope="module")
def server(django_db_setup) -> Iterator[RunningServer]:
    with running_server(
        workers=2,
        env={
            "DATABASE_URL": _database_url(),
            "GIN_ENV": "development",
            "DEBUG": "0",
            "STAFF_LOGIN_WAIT_SECONDS": "45",
        },
    ) as running:
        yield running


@pytest.fixture
def finance():
    """A finance user (password and TOTP code) whose password the server checks with PBKDF2
    at a tenth of a second."""
    user = staff_user("fin", "finance")
    hasher = PBKDF2PasswordHasher()
    user.password = hasher.encode(PASSWORD, hasher.salt(), iterations=300_000)
    user.save(update_fields=["password"])
    return user


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def at_once(count: int, send, prepare=None) -> list[requests.Response]:
    """``send(i, session, prepared)`` in ``count`` threads released together, each with its
    own HTTP session, after ``prepare(i, session)`` (None without it); the answers in order."""
    barrier = threading.Barrier(count)
    sessions = [requests.Session() for _ in range(count)]
    answers: list = [None] * count

    def run(i: int) -> None:
        try:
            prepared = prepare(i, sessions[i]) if prepare else None
            barrier.wait(timeout=60)
            answers[i] = send(i, sessions[i], prepared)
        except Exception as exc:  # asserted on below: every thread must get an answer
            answers[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for session in sessions:
        session.close()
    assert all(isinstance(a, requests.Response) for a in answers), answers
    return answers


def failures(address: str) -> int:
    """django-axes' count of failed staff logins from ``address``: one per checked secret."""
    found = AccessAttempt.objects.filter(ip_address=address).aggregate(
        n=Sum("failures_since_start")
    )
    return found["n"] or 0


def wrong_codes(device, count: int) -> list[str]:
    """``count`` codes the device accepts at no step near now (django-otp allows a drift)."""
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits)
    near = set()
    for drift in range(-3, 4):
        totp.drift = drift
        near.add(f"{totp.token():06d}")
    return [code for code in (f"{n:06d}" for n in range(count + len(near))) if code not in near][
        :count
    ]


def statuses(answers) -> list[int]:
    return sorted(a.status_code for a in answers)


def problem_types(answers) -> set[str]:
    return {a.json()["type"] for a in answers if a.status_code == 429}


def test_concurrent_wrong_basic_passwords_are_checked_at_most_limit_times(server, finance):
    address = "198.51.100.21"

    def send(i, session, _prepared):
        return session.get(
            server.url + STAFF_READ,
            headers={"Authorization": basic("fin", f"guess-{i}"), "X-Forwarded-For": address},
            timeout=60,
        )

    answers = at_once(ATTEMPTS, send)
    checked = failures(address)
    assert checked == LIMIT, (checked, statuses(answers))
    assert statuses(answers).count(401) <= LIMIT
    assert set(statuses(answers)) <= {401, 429}
    assert problem_types(answers) <= {"/problems/login-locked-out"}
    # Locked out from there: the right password is not checked either.
    right = requests.get(
        server.url + STAFF_READ,
        headers={"Authorization": basic("fin", PASSWORD), "X-Forwarded-For": address},
        timeout=30,
    )
    assert right.status_code == 429 and right.json()["type"] == "/problems/login-locked-out"
    assert failures(address) == checked


def test_concurrent_right_basic_passwords_all_get_through(server, finance):
    """Honest parallel requests are not refused: they take turns for the attempts in flight."""
    address = "198.51.100.22"

    def send(i, session, _prepared):
        return session.get(
            server.url + STAFF_READ,
            headers={"Authorization": basic("fin", PASSWORD), "X-Forwarded-For": address},
            timeout=60,
        )

    answers = at_once(12, send)
    assert statuses(answers) == [200] * 12
    assert failures(address) == 0


def test_concurrent_wrong_totp_codes_are_checked_at_most_limit_times(server, finance):
    """The right password with wrong codes in X-OTP, all at once: each wrong code is a failed
    login, and no more codes are tried than failures are allowed."""
    address = "198.51.100.23"
    codes = wrong_codes(finance.otp_device, ATTEMPTS)

    def send(i, session, _prepared):
        return session.post(
            server.url + STAFF_WRITE,
            json={},
            headers={
                "Authorization": basic("fin", PASSWORD),
                "X-OTP": codes[i],
                "X-Forwarded-For": address,
            },
            timeout=60,
        )

    answers = at_once(ATTEMPTS, send)
    checked = failures(address)
    assert checked == LIMIT, (checked, statuses(answers), [a.text for a in answers])
    assert set(statuses(answers)) <= {403, 429}
    assert statuses(answers).count(403) <= LIMIT
    assert problem_types(answers) <= {"/problems/login-locked-out"}


CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def test_concurrent_wrong_admin_logins_are_checked_at_most_limit_times(server, finance):
    address = "198.51.100.24"
    login = server.url + "/admin/login/?next=/admin/"
    headers = {"X-Forwarded-For": address}

    def prepare(i, session):  # the login page first, for its CSRF cookie and token
        page = session.get(login, headers=headers, timeout=60)
        assert page.status_code == 200, page.text[:500]
        return CSRF_INPUT.search(page.text).group(1)

    def send(i, session, token):
        return session.post(
            login,
            data={
                "csrfmiddlewaretoken": token,
                "username": "fin",
                "password": f"guess-{i}",
                "otp_token": "123456",
            },
            headers=headers | {"Referer": login},
            timeout=60,
            allow_redirects=False,
        )

    answers = at_once(ATTEMPTS, send, prepare)
    checked = failures(address)
    assert checked == LIMIT, (checked, statuses(answers))
    assert set(statuses(answers)) <= {200, 429}  # 200: the form again, with its error
    assert statuses(answers).count(200) <= LIMIT
    assert problem_types(answers) <= {"/problems/login-locked-out"}


def test_the_server_sees_each_scenarios_own_address(server, finance):
    """The premise of the scenarios above: the address the server counts failures against is
    the one the test forwarded, not the loopback peer."""
    requests.get(
        server.url + STAFF_READ,
        headers={"Authorization": basic("fin", "nope"), "X-Forwarded-For": "198.51.100.25"},
        timeout=30,
    )
    assert list(AccessAttempt.objects.values_list("ip_address", flat=True)) == ["198.51.100.25"]

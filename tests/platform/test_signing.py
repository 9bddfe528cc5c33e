"""Optional HMAC request signing: the canonical request, freshness, rotation, replays.

The tests sign the way docs/webhooks.md ("Signing requests to the platform") tells operators
to, with their own few lines of hashlib/hmac, not with the server's code: what the server
accepts is what the documentation says.
"""

import hashlib
import hmac
import json
import re
import time
from pathlib import Path

import pytest
from django.core.cache import cache

from gin_platform.http.authentication import refuse_replay
from gin_platform.http.problems import SignatureReplayedProblem
from gin_platform.signing import (
    SignatureError,
    VerifiedSignature,
    compute_signature,
    request_signature_header,
    signature_header,
    verify_request_signature,
    verify_signature,
)
from gin_platform.tenancy.services import (
    signing_secret_create,
    signing_secret_revoke,
)
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.helpers import assert_problem, operator_api
from tests.races import race
from wallet.models import LedgerTransaction

pytestmark = pytest.mark.django_db
DOC = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"


def sign(secret, method, path, body=b"", key="", timestamp=None, *more_secrets) -> str:
    """X-Signature as documented: HMAC-SHA256 over six lines."""
    moment = int(time.time()) if timestamp is None else timestamp
    canonical = "\n".join(
        ["v1", str(moment), method, path, key, hashlib.sha256(body).hexdigest()]
    ).encode()
    parts = [f"t={moment}"]
    for each in (secret, *more_secrets):
        parts.append("v1=" + hmac.new(each.encode(), canonical, hashlib.sha256).hexdigest())
    return ",".join(parts)


def send(client, method, path, body=None, *, key="", header=None):
    raw = b"" if body is None else json.dumps(body).encode()
    extra = {}
    if key:
        extra["HTTP_IDEMPOTENCY_KEY"] = key
    if header is not None:
        extra["HTTP_X_SIGNATURE"] = header
    return client.generic(method, path, raw, content_type="application/json", **extra)


def signed(client, secret, method, path, body=None, *, key="", timestamp=None):
    raw = b"" if body is None else json.dumps(body).encode()
    header = sign(secret, method, path, raw, key, timestamp)
    return send(client, method, path, body, key=key, header=header), header


@pytest.fixture
def signing_operator(operator):
    operator.require_signed_requests = True
    operator.save()
    return operator


@pytest.fixture
def secret(signing_operator):
    return signing_secret_create(operator=signing_operator, actor=SYSTEM).secret


@pytest.fixture
def alice(signing_operator):
    return PlayerFactory(operator=signing_operator)


def deposits(player):
    return f"/api/v1/players/{player.pk}/deposits"


DEPOSIT = {"amount": "10.00", "currency": "EUR"}


# --- Accepted and refused signatures ---------------------------------------------------------
def test_a_good_signature_is_accepted(operator_client, secret):
    response, _ = signed(
        operator_client, secret, "POST", "/api/v1/players", {"external_ref": "s"}, key="k1"
    )
    assert response.status_code == 201


def test_an_unsigned_request_is_refused_when_signing_is_required(operator_client, secret):
    response = send(operator_client, "POST", "/api/v1/players", {"external_ref": "x"}, key="k")
    assert_problem(response, 401, "signature-invalid")


def test_a_stale_signature_is_refused(operator_client, secret):
    response, _ = signed(
        operator_client,
        secret,
        "POST",
        "/api/v1/players",
        {"external_ref": "stale"},
        key="k1",
        timestamp=int(time.time()) - 301,
    )
    assert response.status_code == 401
    assert "300 s" in response.json()["detail"]


def test_a_tampered_body_is_refused(operator_client, secret):
    header = sign(secret, "POST", "/api/v1/players", b'{"external_ref": "a"}', "k1")
    response = send(
        operator_client, "POST", "/api/v1/players", {"external_ref": "b"}, key="k1", header=header
    )
    assert_problem(response, 401, "signature-invalid")


def test_rotation_accepts_either_active_secret_and_not_a_revoked_one(
    operator_client, signing_operator, secret
):
    newer = signing_secret_create(operator=signing_operator, actor=SYSTEM)
    for index, current in enumerate((secret, newer.secret)):
        response, _ = signed(
            operator_client,
            current,
            "POST",
            "/api/v1/players",
            {"external_ref": f"rot-{index}"},
            key=f"r{index}",
        )
        assert response.status_code == 201
    # During a rotation a client may send one v1 per secret: one match is enough.
    raw = json.dumps({"external_ref": "both"}).encode()
    both = sign("whsec_unknown", "POST", "/api/v1/players", raw, "r-both", None, newer.secret)
    assert (
        send(
            operator_client,
            "POST",
            "/api/v1/players",
            {"external_ref": "both"},
            key="r-both",
            header=both,
        ).status_code
        == 201
    )
    old = signing_operator.signing_secrets.get(revoked_at__isnull=True, pk__lt=newer.pk)
    signing_secret_revoke(secret=old, actor=SYSTEM)
    response, _ = signed(
        operator_client, secret, "POST", "/api/v1/players", {"external_ref": "old"}, key="r-old"
    )
    assert response.status_code == 401


def test_a_signature_sent_to_an_operator_that_does_not_require_it_is_still_checked(
    operator_client, operator
):
    signing_secret_create(operator=operator, actor=SYSTEM)
    response = send(
        operator_client,
        "POST",
        "/api/v1/players",
        {"external_ref": "x"},
        key="k",
        header="t=1,v1=00",
    )
    assert response.status_code == 401


def test_a_signed_read_with_a_query_string(operator_client, secret, alice):
    path = f"/api/v1/players?external_ref={alice.external_ref}"
    response, _ = signed(operator_client, secret, "GET", path)
    assert response.status_code == 200
    assert [p["id"] for p in response.json()["results"]] == [str(alice.pk)]


# --- Replays ---------------------------------------------------------------------------------
def credits(player) -> int:
    return LedgerTransaction.objects.filter(kind="deposit", player=player).count()


def test_a_captured_deposit_replayed_with_a_new_idempotency_key_is_refused(
    operator_client, secret, alice
):
    first, header = signed(operator_client, secret, "POST", deposits(alice), DEPOSIT, key="d-1")
    assert first.status_code == 201

    replay = send(operator_client, "POST", deposits(alice), DEPOSIT, key="d-2", header=header)

    assert_problem(replay, 401, "signature-invalid")
    assert credits(alice) == 1


def test_an_exact_copy_of_a_signed_request_is_refused(operator_client, secret, alice):
    first, header = signed(operator_client, secret, "POST", deposits(alice), DEPOSIT, key="d-1")
    assert first.status_code == 201

    copy = send(operator_client, "POST", deposits(alice), DEPOSIT, key="d-1", header=header)

    assert_problem(copy, 401, "signature-replayed")
    assert copy["WWW-Authenticate"].startswith("Bearer")
    assert credits(alice) == 1


def test_a_retry_signed_afresh_gets_the_first_response(operator_client, secret, alice):
    first, _ = signed(
        operator_client,
        secret,
        "POST",
        deposits(alice),
        DEPOSIT,
        key="d-1",
        timestamp=int(time.time()) - 1,
    )
    retry, _ = signed(operator_client, secret, "POST", deposits(alice), DEPOSIT, key="d-1")
    assert first.status_code == retry.status_code == 201
    assert retry["Idempotent-Replayed"] == "true"
    assert retry.json() == first.json()
    assert credits(alice) == 1


@pytest.mark.parametrize(
    ("method", "target", "key"),
    [
        ("POST", "bob-deposits", "d-1"),  # another player's path
        ("POST", "alice-withdrawals", "d-1"),  # another endpoint
        ("PUT", "alice-deposits", "d-1"),  # another method
        ("POST", "alice-deposits?x=1", "d-1"),  # another query
        ("POST", "alice-deposits", "d-2"),  # another Idempotency-Key
    ],
)
def test_a_signature_is_bound_to_method_path_query_and_key(
    operator_client, signing_operator, secret, alice, method, target, key
):
    bob = PlayerFactory(operator=signing_operator)
    paths = {
        "alice-deposits": deposits(alice),
        "bob-deposits": deposits(bob),
        "alice-withdrawals": f"/api/v1/players/{alice.pk}/withdrawals",
    }
    base, _, query = target.partition("?")
    path = paths[base] + (f"?{query}" if query else "")
    header = sign(secret, "POST", deposits(alice), json.dumps(DEPOSIT).encode(), "d-1")

    response = send(operator_client, method, path, DEPOSIT, key=key, header=header)

    assert_problem(response, 401, "signature-invalid")
    assert credits(alice) == credits(bob) == 0


def test_a_replayed_read_is_refused_too(operator_client, secret, alice):
    first, header = signed(operator_client, secret, "GET", f"/api/v1/players/{alice.pk}")
    assert first.status_code == 200
    again = send(operator_client, "GET", f"/api/v1/players/{alice.pk}", header=header)
    assert_problem(again, 401, "signature-replayed")


def test_the_same_request_signed_by_two_operators_is_not_a_replay(
    operator_client, secret, signing_operator
):

    other = OperatorFactory(require_signed_requests=True)
    other_secret = signing_secret_create(operator=other, actor=SYSTEM).secret
    other_client = operator_api(other)
    moment = int(time.time())
    for client, each in ((operator_client, secret), (other_client, other_secret)):
        response, _ = signed(client, each, "GET", "/api/v1/operators/me", timestamp=moment)
        assert response.status_code == 200


def test_a_signature_is_remembered_until_it_would_be_stale_anyway(
    operator_client, secret, alice, monkeypatch
):
    timeouts = []
    real_add = cache.add

    def recording_add(key, value, timeout=None, **kwargs):
        if key.startswith("signature-seen:"):
            timeouts.append(timeout)
        return real_add(key, value, timeout, **kwargs)

    monkeypatch.setattr(cache, "add", recording_add)
    moment = int(time.time()) - 100
    response, _ = signed(
        operator_client, secret, "GET", f"/api/v1/players/{alice.pk}", timestamp=moment
    )
    assert response.status_code == 200
    # Accepted until moment + 300: about 200 s from now (plus a second of slack).
    assert len(timeouts) == 1 and 195 <= timeouts[0] <= 202


def test_bad_signatures_count_as_failed_authentication(operator_client, secret):
    statuses = [
        send(
            operator_client, "GET", "/api/v1/operators/me", header=f"t={int(time.time())},v1=00"
        ).status_code
        for _ in range(12)
    ]
    # One key, one address: the per-credential limit (10 a minute) applies first.
    assert statuses == [401] * 10 + [429] * 2


def test_the_replay_guard_lets_requests_through_when_the_cache_is_down(
    operator_client, secret, alice, settings, caplog
):
    settings.CACHES = {
        "default": {
            "BACKEND": "gin_platform.request_path.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        }
    }
    first, header = signed(operator_client, secret, "POST", deposits(alice), DEPOSIT, key="d-1")
    copy = send(operator_client, "POST", deposits(alice), DEPOSIT, key="d-1", header=header)
    # Accepted, but bound to its Idempotency-Key: the copy gets the first answer, no new credit.
    assert first.status_code == copy.status_code == 201
    assert copy["Idempotent-Replayed"] == "true"
    assert credits(alice) == 1


@pytest.mark.redis
def test_racing_copies_on_redis_get_through_once(secret, signing_operator):
    verified = VerifiedSignature(timestamp=int(time.time()), digest="ab" * 32)
    threads = 12

    def attempt(_: int) -> str:
        try:
            refuse_replay(operator_id=signing_operator.pk, verified=verified)
        except SignatureReplayedProblem:
            return "refused"
        return "accepted"

    outcomes = race(threads, attempt)
    assert sorted(outcomes) == ["accepted"] + ["refused"] * (threads - 1)


# --- The documentation's snippet and test vector ------------------------------------------
def documented_snippet() -> str:
    section = DOC.read_text().split("## Signing requests to the platform", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_documented_snippet_signs_requests_the_server_accepts(operator_client, secret, alice):
    namespace: dict = {}
    exec(documented_snippet(), namespace)  # the operator's code, as printed
    body = json.dumps(DEPOSIT).encode()
    header = namespace["sign"](secret, "POST", deposits(alice), body, "doc-1")
    response = operator_client.generic(
        "POST",
        deposits(alice),
        body,
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="doc-1",
        HTTP_X_SIGNATURE=header,
    )
    assert response.status_code == 201


def test_the_documented_test_vector_is_what_the_server_computes():
    section = DOC.read_text().split("## Signing requests to the platform", 1)[1]
    documented = re.search(r"X-Signature: (t=1700000000,v1=[0-9a-f]{64})", section).group(1)
    header = request_signature_header(
        secrets=["whsec_example"],
        method="POST",
        path="/api/v1/players?source=docs",
        body=b'{"external_ref":"alice"}',
        idempotency_key="4f1c2a9e-0b7d-4c55-9a61-3b8e2f0d7c10",
        timestamp=1_700_000_000,
    )
    assert header == documented


# --- Units -----------------------------------------------------------------------------------
def verify(header, *, now, body=b"{}", method="POST", path="/p", key="k", secrets=("s1",)):
    return verify_request_signature(
        header=header,
        method=method,
        path=path,
        idempotency_key=key,
        body=body,
        secrets=list(secrets),
        tolerance_seconds=300,
        now=now,
    )


def test_verify_request_signature_unit_cases():
    now = 1_700_000_000
    good = sign("s1", "POST", "/p", b"{}", "k", now)
    first = verify(good, now=now, secrets=("s0", "s1"))
    assert first.timestamp == now
    # Every copy of one request has the same digest; another request another one.
    assert verify(good, now=now).digest == first.digest
    assert verify(sign("s1", "POST", "/p", b"{}", "k2", now), now=now, key="k2").digest != (
        first.digest
    )
    with pytest.raises(SignatureError, match="missing"):
        verify(None, now=now)
    with pytest.raises(SignatureError, match="t=<unix>"):
        verify("v1=abc", now=now)
    with pytest.raises(SignatureError, match="does not match"):
        verify(good, now=now, body=b"[]")
    # Exactly at the tolerance is accepted; one second past is not.
    verify(good, now=now + 300)
    with pytest.raises(SignatureError, match="300 s"):
        verify(good, now=now + 301)


@pytest.mark.parametrize(
    "header",
    [
        "t=\u0661\u0667\u0660\u0660\u0660\u0660\u0660\u0660\u0660\u0660,v1=00",  # Arabic-Indic
        "t=1700000000,v1=é" + "0" * 63,  # non-ASCII: compare_digest would raise TypeError
        "t=" + "9" * 400 + ",v1=00",  # too long to compare with a float clock
    ],
)
def test_malformed_headers_are_signature_errors_not_crashes(header):
    with pytest.raises(SignatureError):
        verify(header, now=1_700_000_000)


def test_line_breaks_cannot_smuggle_another_canonical_request():
    with pytest.raises(SignatureError, match="line break"):
        verify(sign("s1", "POST", "/p", b"{}", "k", 1), now=1, key="k\nx")


def test_webhooks_keep_their_timestamp_dot_body_signatures():
    body, moment = b'{"id":"1"}', 1_700_000_000
    expected = hmac.new(b"whsec_w", b"1700000000." + body, hashlib.sha256).hexdigest()
    assert compute_signature(secret="whsec_w", timestamp=moment, body=body) == expected
    header = signature_header(secret="whsec_w", body=body, timestamp=moment)
    assert header == f"t={moment},v1={expected}"
    verify_signature(
        header=header, body=body, secrets=["whsec_w"], tolerance_seconds=300, now=moment
    )

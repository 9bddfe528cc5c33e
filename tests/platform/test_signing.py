"""Issue 2 item 6: optional HMAC request signing (good, stale, tampered, rotation)."""

import json
import time

import pytest

from gin_platform.principals import Actor
from gin_platform.services import signing_secret_create, signing_secret_revoke
from gin_platform.signing import SignatureError, signature_header, verify_signature

pytestmark = pytest.mark.django_db
SYSTEM = Actor.system("tests")


def post_players(client, body: dict, *, header: str | None, key: str = "k1"):
    raw = json.dumps(body).encode()
    extra = {"HTTP_IDEMPOTENCY_KEY": key}
    if header is not None:
        extra["HTTP_X_SIGNATURE"] = header
    return client.generic("POST", "/api/v1/players", raw, content_type="application/json", **extra)


@pytest.fixture
def signing_operator(operator):
    operator.require_signed_requests = True
    operator.save()
    return operator


@pytest.fixture
def secret(signing_operator):
    return signing_secret_create(operator=signing_operator, actor=SYSTEM)


def test_a_good_signature_is_accepted(operator_client, secret):
    body = {"external_ref": "signed-1"}
    header = signature_header(secret=secret.secret, body=json.dumps(body).encode())
    assert post_players(operator_client, body, header=header).status_code == 201


def test_an_unsigned_request_is_refused_when_signing_is_required(operator_client, secret):
    response = post_players(operator_client, {"external_ref": "x"}, header=None)
    assert response.status_code == 401
    assert response.json()["type"] == "/problems/signature-invalid"


def test_a_stale_signature_is_refused(operator_client, secret):
    body = {"external_ref": "stale"}
    header = signature_header(
        secret=secret.secret, body=json.dumps(body).encode(), timestamp=int(time.time()) - 301
    )
    response = post_players(operator_client, body, header=header)
    assert response.status_code == 401
    assert "300 s" in response.json()["detail"]


def test_a_tampered_body_is_refused(operator_client, secret):
    header = signature_header(secret=secret.secret, body=b'{"external_ref": "a"}')
    response = post_players(operator_client, {"external_ref": "b"}, header=header)
    assert response.status_code == 401
    assert response.json()["type"] == "/problems/signature-invalid"


def test_rotation_accepts_either_active_secret_and_not_a_revoked_one(
    operator_client, signing_operator, secret
):
    newer = signing_secret_create(operator=signing_operator, actor=SYSTEM)
    for index, current in enumerate((secret, newer)):
        body = {"external_ref": f"rot-{index}"}
        header = signature_header(secret=current.secret, body=json.dumps(body).encode())
        assert (
            post_players(operator_client, body, header=header, key=f"r{index}").status_code == 201
        )
    signing_secret_revoke(secret=secret, actor=SYSTEM)
    body = {"external_ref": "rot-old"}
    header = signature_header(secret=secret.secret, body=json.dumps(body).encode())
    assert post_players(operator_client, body, header=header, key="r-old").status_code == 401


def test_a_signature_sent_to_an_operator_that_does_not_require_it_is_still_checked(
    operator_client, operator
):
    signing_secret_create(operator=operator, actor=SYSTEM)
    response = post_players(operator_client, {"external_ref": "x"}, header="t=1,v1=00")
    assert response.status_code == 401


def test_verify_signature_unit_cases():
    body = b"{}"
    now = 1_700_000_000
    good = signature_header(secret="s1", body=body, timestamp=now)
    verify_signature(header=good, body=body, secrets=["s0", "s1"], tolerance_seconds=300, now=now)
    with pytest.raises(SignatureError, match="missing"):
        verify_signature(header=None, body=body, secrets=["s1"], tolerance_seconds=300, now=now)
    with pytest.raises(SignatureError, match="t=<unix>"):
        verify_signature(header="v1=abc", body=body, secrets=["s1"], tolerance_seconds=300)
    with pytest.raises(SignatureError, match="does not match"):
        verify_signature(header=good, body=b"[]", secrets=["s1"], tolerance_seconds=300, now=now)
    # Exactly at the tolerance is accepted; one second past is not.
    verify_signature(header=good, body=body, secrets=["s1"], tolerance_seconds=300, now=now + 300)
    with pytest.raises(SignatureError, match="300 s"):
        verify_signature(
            header=good, body=body, secrets=["s1"], tolerance_seconds=300, now=now + 301
        )

"""HMAC-SHA256 signatures: requests operators send to us, and the webhooks we send to them.

Both use the header value ``t=<unix seconds>,v1=<hex>``. Several ``v1=`` parts may be sent
(one per secret during a rotation); one match is enough. Comparison is constant-time and
the timestamp must be within the tolerance (300 s) of the server clock. What the hex is an
HMAC *of* differs by direction:

- **Requests to the platform** (``X-Signature``, docs/webhooks.md "Signing requests"): the
  canonical request, six lines joined by ``\\n`` (no trailing newline)::

      v1
      <t>
      <METHOD, upper case>
      <path and query string, as the server reads the request target: request.get_full_path()>
      <Idempotency-Key header value, or empty when there is none>
      <lower-case hex SHA-256 of the raw body (of zero bytes when there is none)>

  so a signature is bound to one method, path, query, Idempotency-Key and body: it cannot be
  moved to another player's path, to another endpoint, or replayed under a new key. The
  caller (gin_platform.http.authentication) also refuses a canonical request it has accepted
  before within the tolerance, so even an exact copy is good once.
- **Webhooks from the platform** (``X-Gin-Signature``): ``"<t>." + raw body``. Each delivery
  carries its event id in the body; receivers drop ids they have seen.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

REQUEST_SIGNATURE_VERSION = "v1"
MAX_T_DIGITS = 12  # unix seconds to the year 33658; hundreds of digits would overflow a float


class SignatureError(ValueError):
    """Why a signature was refused: missing, malformed, stale or not matching."""


@dataclass(frozen=True)
class VerifiedSignature:
    """A signature that matched: its timestamp and the digest of what it signed."""

    timestamp: int
    digest: str  # hex SHA-256 of the signed message: the same for every copy of a request


# --- Webhooks: "<t>.<body>" -----------------------------------------------------------------
def compute_signature(*, secret: str, timestamp: int, body: bytes) -> str:
    """The webhook signature: HMAC-SHA256 of ``"<t>." + body``."""
    return _hmac(secret, _webhook_message(timestamp, body))


def signature_header(*, secret: str, body: bytes, timestamp: int | None = None) -> str:
    """The ``X-Gin-Signature`` value our webhook sender attaches."""
    moment = int(time.time()) if timestamp is None else timestamp
    return f"t={moment},v1={compute_signature(secret=secret, timestamp=moment, body=body)}"


def standard_signature(*, secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` value (Standard Webhooks): ``v1,<base64 HMAC-SHA256 of
    "<webhook-id>.<webhook-timestamp>.<body>">``, keyed with the UTF-8 bytes of the whole
    webhook secret, ``whsec_`` included (the key of X-Gin-Signature too). A Standard
    Webhooks library wants the key as ``"whsec_" + base64(key)``: docs/webhooks.md."""
    message = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def verify_signature(
    *,
    header: str | None,
    body: bytes,
    secrets: Iterable[str],
    tolerance_seconds: int,
    now: float | None = None,
) -> VerifiedSignature:
    """Raise SignatureError unless the header signs this webhook body with one of the secrets."""
    return _verify(
        header=header,
        message=lambda timestamp: _webhook_message(timestamp, body),
        signed_what="body",
        secrets=secrets,
        tolerance_seconds=tolerance_seconds,
        now=now,
    )


def _webhook_message(timestamp: int, body: bytes) -> bytes:
    return str(timestamp).encode() + b"." + body


# --- Requests: the canonical request --------------------------------------------------------
def canonical_request(
    *, timestamp: int, method: str, path: str, idempotency_key: str, body: bytes
) -> bytes:
    """The bytes a request signature is an HMAC of (module docstring)."""
    for name, value in (("path", path), ("idempotency_key", idempotency_key)):
        if "\n" in value or "\r" in value:
            raise SignatureError(f"the {name} of a signed request cannot contain a line break")
    lines = (
        REQUEST_SIGNATURE_VERSION,
        str(timestamp),
        method.upper(),
        path,
        idempotency_key,
        hashlib.sha256(body).hexdigest(),
    )
    return "\n".join(lines).encode()


def request_signature(
    *, secret: str, timestamp: int, method: str, path: str, idempotency_key: str, body: bytes
) -> str:
    return _hmac(
        secret,
        canonical_request(
            timestamp=timestamp,
            method=method,
            path=path,
            idempotency_key=idempotency_key,
            body=body,
        ),
    )


def request_signature_header(
    *,
    secrets: Iterable[str],
    method: str,
    path: str,
    body: bytes = b"",
    idempotency_key: str = "",
    timestamp: int | None = None,
) -> str:
    """The ``X-Signature`` value a client attaches: one ``v1`` per secret (during a rotation
    a client may sign with both the old and the new secret)."""
    moment = int(time.time()) if timestamp is None else timestamp
    parts = [f"t={moment}"]
    for secret in secrets:
        signature = request_signature(
            secret=secret,
            timestamp=moment,
            method=method,
            path=path,
            idempotency_key=idempotency_key,
            body=body,
        )
        parts.append(f"v1={signature}")
    return ",".join(parts)


def verify_request_signature(
    *,
    header: str | None,
    method: str,
    path: str,
    idempotency_key: str,
    body: bytes,
    secrets: Iterable[str],
    tolerance_seconds: int,
    now: float | None = None,
) -> VerifiedSignature:
    """Raise SignatureError unless the header signs this request with one of the secrets.

    Replays are the caller's to refuse: remember ``digest`` until ``timestamp + tolerance``.
    """
    return _verify(
        header=header,
        message=lambda timestamp: canonical_request(
            timestamp=timestamp,
            method=method,
            path=path,
            idempotency_key=idempotency_key,
            body=body,
        ),
        signed_what="request (method, path and query, Idempotency-Key and body)",
        secrets=secrets,
        tolerance_seconds=tolerance_seconds,
        now=now,
    )


# --- Shared: the header, the clock, the comparison -----------------------------------------
def parse_signature_header(header: str) -> tuple[int, list[str]]:
    timestamp: int | None = None
    signatures: list[str] = []
    for part in header.split(","):
        name, _, value = part.strip().partition("=")
        # ASCII only: int() reads other scripts' digits, and compare_digest refuses non-ASCII
        # text (both would be a 500, not a 401).
        if name == "t" and value.isascii() and value.isdigit() and len(value) <= MAX_T_DIGITS:
            timestamp = int(value)
        elif name == "v1" and value and value.isascii():
            signatures.append(value.lower())
    if timestamp is None or not signatures:
        raise SignatureError("the signature header must look like t=<unix>,v1=<hex>")
    return timestamp, signatures


def _verify(
    *,
    header: str | None,
    message: Callable[[int], bytes],
    signed_what: str,
    secrets: Iterable[str],
    tolerance_seconds: int,
    now: float | None,
) -> VerifiedSignature:
    if not header:
        raise SignatureError("the request is not signed (X-Signature header missing)")
    timestamp, signatures = parse_signature_header(header)
    current = time.time() if now is None else now
    if abs(current - timestamp) > tolerance_seconds:
        raise SignatureError(
            f"the signature timestamp is more than {tolerance_seconds} s from the server clock"
        )
    signed = message(timestamp)
    matched = False
    for secret in secrets:
        expected = _hmac(secret, signed)
        for candidate in signatures:
            # Keep comparing after a match: timing must not depend on which secret matched.
            matched |= hmac.compare_digest(expected, candidate)
    if not matched:
        raise SignatureError(f"the signature does not match the {signed_what}")
    return VerifiedSignature(timestamp=timestamp, digest=hashlib.sha256(signed).hexdigest())


def _hmac(secret: str, message: bytes) -> str:
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()

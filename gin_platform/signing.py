"""HMAC-SHA256 signatures, one format for incoming requests and outgoing webhooks.

Header value: ``t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">``. Several ``v1=``
parts may be sent (one per secret during a rotation); one match is enough. Comparison is
constant-time and the timestamp must be within the tolerance (300 s) of the server clock.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Iterable


class SignatureError(ValueError):
    """Why a signature was refused: missing, malformed, stale or not matching."""


def compute_signature(*, secret: str, timestamp: int, body: bytes) -> str:
    message = str(timestamp).encode() + b"." + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signature_header(*, secret: str, body: bytes, timestamp: int | None = None) -> str:
    """The header value a client (or our webhook sender) attaches."""
    moment = int(time.time()) if timestamp is None else timestamp
    return f"t={moment},v1={compute_signature(secret=secret, timestamp=moment, body=body)}"


def parse_signature_header(header: str) -> tuple[int, list[str]]:
    timestamp: int | None = None
    signatures: list[str] = []
    for part in header.split(","):
        name, _, value = part.strip().partition("=")
        if name == "t" and value.isdigit():
            timestamp = int(value)
        elif name == "v1" and value:
            signatures.append(value.lower())
    if timestamp is None or not signatures:
        raise SignatureError("the signature header must look like t=<unix>,v1=<hex>")
    return timestamp, signatures


def verify_signature(
    *,
    header: str | None,
    body: bytes,
    secrets: Iterable[str],
    tolerance_seconds: int,
    now: float | None = None,
) -> None:
    """Raise SignatureError unless the header signs this body with one of the secrets."""
    if not header:
        raise SignatureError("the request is not signed (X-Signature header missing)")
    timestamp, signatures = parse_signature_header(header)
    current = time.time() if now is None else now
    if abs(current - timestamp) > tolerance_seconds:
        raise SignatureError(
            f"the signature timestamp is more than {tolerance_seconds} s from the server clock"
        )
    matched = False
    for secret in secrets:
        expected = compute_signature(secret=secret, timestamp=timestamp, body=body)
        for candidate in signatures:
            # Keep comparing after a match: timing must not depend on which secret matched.
            matched |= hmac.compare_digest(expected, candidate)
    if not matched:
        raise SignatureError("the signature does not match the body")

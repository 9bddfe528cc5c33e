"""The HTTP client of the seamless wallet: one signed POST to the operator's wallet API.

``<base_url>/balance``, ``/debit``, ``/credit``, ``/rollback`` (docs/wallet.md "Seamless
wallet"). The body is compact JSON, signed like our webhooks (``X-Gin-Signature: t=<unix>,
v1=<hex HMAC-SHA256 of "<t>.<body>">`` with the operator's webhook secret,
gin_platform.signing), plus the Standard Webhooks headers (``webhook-id`` = the call's
transaction id, ``webhook-timestamp``, ``webhook-signature: v1,<base64 HMAC-SHA256 of
"<id>.<timestamp>.<body>">`` keyed with the same secret), as our webhooks send them. The
target is checked like a webhook URL at every call
(gin_platform.events.webhook_targets: public addresses only unless WEBHOOK_ALLOW_PRIVATE_TARGETS),
the connection goes to the checked address, redirects are never followed.

What an answer means (``WalletAnswer.outcome``):
- ``applied``: 200 with a JSON object whose ``transaction_id`` is ours (the operator applied
  it, now or the first time it saw the id);
- ``refused``: 402 or 409 with ``{"error": "insufficient_funds"}`` (or, for a debit whose
  id was rolled back first, ``"transaction_rolled_back"``): nothing was applied;
- ``unknown``: anything else (5xx, timeout, connection error, a redirect, a body we cannot
  read). The call may or may not have been applied: the caller retries with the same id or
  rolls it back. The log keeps a generic class of the error, never the operator's body.
"""

from __future__ import annotations

import http.client
import json
import time
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from gin_platform.events.webhook_targets import (
    TargetRefused,
    connection_error_class,
    pinned_connection,
    resolve_target,
)
from gin_platform.signing import signature_header, standard_signature

SIGNATURE_HEADER = "X-Gin-Signature"
ACTIONS = ("balance", "debit", "credit", "rollback")
REFUSALS = ("insufficient_funds", "transaction_rolled_back")
MAX_ANSWER_BYTES = 16 * 1024


@dataclass(frozen=True)
class WalletAnswer:
    outcome: str  # "applied" | "refused" | "unknown"
    status: int | None
    error: str  # generic class: "timeout", "HTTP 503", "insufficient_funds", ...
    balance: Decimal | None = None


def request_body(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()


def signed_headers(*, secret: str, msg_id: str, body: bytes, timestamp: int) -> dict[str, str]:
    """X-Gin-Signature and the Standard Webhooks headers, one timestamp (the webhooks'
    scheme, gin_platform/signing.py)."""
    return {
        SIGNATURE_HEADER: signature_header(secret=secret, body=body, timestamp=timestamp),
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": standard_signature(
            secret=secret, msg_id=msg_id, timestamp=timestamp, body=body
        ),
    }


def wallet_call_send(
    *, base_url: str, secret: str, timeout_ms: int, action: str, payload: dict[str, Any]
) -> WalletAnswer:
    """POST ``payload`` to ``<base_url>/<action>`` once and classify the answer."""
    if action not in ACTIONS:
        raise ValueError(f"unknown wallet action {action!r}")
    try:
        target = resolve_target(base_url.rstrip("/") + "/" + action)
    except TargetRefused as refused:
        return WalletAnswer("unknown", None, refused.reason)
    body = request_body(payload)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "gin-platform-wallet/1",
        "X-Gin-Wallet-Action": action,
        **signed_headers(
            secret=secret,
            msg_id=str(payload.get("transaction_id") or payload.get("request_id") or ""),
            body=body,
            timestamp=int(time.time()),
        ),
    }
    connection = pinned_connection(target, timeout=timeout_ms / 1000)
    try:
        connection.request("POST", target.path, body=body, headers=headers)
        response = connection.getresponse()
        status = response.status
        raw = response.read(MAX_ANSWER_BYTES + 1)
    except (OSError, http.client.HTTPException, ValueError) as exc:
        return WalletAnswer("unknown", None, connection_error_class(exc))
    finally:
        connection.close()
    return _classify(status, raw, payload.get("transaction_id"))


def _classify(status: int, raw: bytes, transaction_id: object) -> WalletAnswer:
    try:
        answer = json.loads(raw) if len(raw) <= MAX_ANSWER_BYTES else None
    except (ValueError, UnicodeDecodeError):
        answer = None
    if not isinstance(answer, dict):
        answer = {}
    if status in (402, 409) and answer.get("error") in REFUSALS:
        return WalletAnswer("refused", status, str(answer["error"]))
    if status != 200:
        return WalletAnswer("unknown", status, f"HTTP {status}")
    if transaction_id is not None and answer.get("transaction_id") != transaction_id:
        return WalletAnswer("unknown", status, "invalid answer")
    try:
        balance = Decimal(str(answer["balance"])) if "balance" in answer else None
    except (InvalidOperation, ValueError):
        return WalletAnswer("unknown", status, "invalid answer")
    return WalletAnswer("applied", status, "", balance)

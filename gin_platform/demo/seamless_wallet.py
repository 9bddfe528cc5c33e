"""A reference operator wallet for seamless mode (docs/wallet.md "Seamless wallet"): a real
HTTP server on 127.0.0.1 (a ``ThreadingHTTPServer`` in a thread) that does what an operator
must do, and the faults an operator's wallet may have.

- Balances per player (``player_id`` = the player's ``external_ref``), in major units
  (``Decimal``), as the protocol's decimal strings.
- Every request must carry a valid ``X-Gin-Signature`` (the webhook scheme, the operator's
  webhook secret) and a matching Standard Webhooks ``webhook-signature``: otherwise 401
  and nothing happens.
- Idempotent by ``transaction_id``: a repeated id gets the first answer again and changes
  nothing (an insufficient-funds refusal too).
- Rollbacks: a rollback of an applied debit gives the money back; of a debit it never saw,
  it is acknowledged and the id remembered, so a late debit with that id is refused
  (``transaction_rolled_back``).
- Faults, per call kind, consumed in order by the next calls of that kind (``fault``):
  ``timeout`` (sleep past the client's timeout, then apply: the answer comes too late),
  ``5xx`` (answer 500, apply nothing), ``lost`` (apply, then close the socket without an
  answer), ``lost_500`` (apply, then answer 500), ``insufficient`` (refuse with 402),
  ``duplicate`` (the request is delivered twice: both are processed, the second answer is
  sent; the id makes it apply once).

Used by tests/wallet/test_seamless*.py and by ``make demo`` (its seamless operator).
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from gin_platform.signing import SignatureError, verify_signature
from wallet.seamless_client import signed_headers

FAULTS = ("timeout", "5xx", "lost", "lost_500", "insufficient", "duplicate")


@dataclass
class Applied:
    kind: str
    player_id: str
    amount: Decimal
    rolled_back: bool = False


@dataclass
class WalletState:
    balances: dict[str, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    answers: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    applied: dict[str, Applied] = field(default_factory=dict)
    rolled_back_ids: set[str] = field(default_factory=set)
    requests: list[tuple[str, str]] = field(default_factory=list)  # (action, id)
    # What a request said of the player's play session, by transaction id (``context``:
    # docs/player-protection.md): an operator rendering its own client shows it.
    contexts: dict[str, dict[str, Any]] = field(default_factory=dict)
    bad_signatures: int = 0


class OperatorWalletServer:
    """``with OperatorWalletServer(secret=...) as server:`` ... ``server.base_url``."""

    def __init__(self, *, secret: str, timeout_sleep: float = 0.6) -> None:
        self.secret = secret
        self.timeout_sleep = timeout_sleep
        self.state = WalletState()
        self.faults: dict[str, list[str]] = defaultdict(list)
        self.lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- control -------------------------------------------------------------------------
    def __enter__(self) -> OperatorWalletServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        handler = type("Handler", (_Handler,), {"wallet": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/wallet"

    def fault(self, action: str, *faults: str) -> None:
        """Queue ``faults`` for the next calls of ``action`` (debit, credit, rollback,
        balance)."""
        for name in faults:
            if name not in FAULTS:
                raise ValueError(name)
        with self.lock:
            self.faults[action].extend(faults)

    def set_balance(self, player_id: str, amount: str | Decimal) -> None:
        with self.lock:
            self.state.balances[player_id] = Decimal(amount)

    def balance(self, player_id: str) -> Decimal:
        with self.lock:
            return self.state.balances[player_id]

    def applied(self, kind: str | None = None) -> list[tuple[str, Applied]]:
        with self.lock:
            return [
                (tid, a) for tid, a in self.state.applied.items() if kind is None or a.kind == kind
            ]

    def _next_fault(self, action: str) -> str | None:
        with self.lock:
            queue = self.faults[action]
            return queue.pop(0) if queue else None

    # --- the operator's rules --------------------------------------------------------------
    def process(self, action: str, body: dict[str, Any], *, force_refuse: bool) -> tuple[int, dict]:
        """Apply one request (under the lock) and return the answer (status, body)."""
        with self.lock:
            state = self.state
            player = str(body.get("player_id", ""))
            if action == "balance":
                return 200, {"balance": str(state.balances[player])}
            tid = str(body["transaction_id"])
            state.requests.append((action, tid))
            if body.get("context"):
                state.contexts[tid] = body["context"]
            if tid in state.answers:  # idempotent: the first answer again
                return state.answers[tid]
            amount = Decimal(str(body["amount"]))
            if action == "debit":
                if tid in state.rolled_back_ids:
                    answer = (409, {"error": "transaction_rolled_back"})
                elif force_refuse or state.balances[player] < amount:
                    answer = (402, {"error": "insufficient_funds"})
                else:
                    state.balances[player] -= amount
                    state.applied[tid] = Applied("debit", player, amount)
                    answer = (200, {"balance": str(state.balances[player]), "transaction_id": tid})
            elif action == "credit":
                state.balances[player] += amount
                state.applied[tid] = Applied("credit", player, amount)
                answer = (200, {"balance": str(state.balances[player]), "transaction_id": tid})
            elif action == "rollback":
                debit_id = str(body["rolls_back"])
                debit = state.applied.get(debit_id)
                if debit is not None and not debit.rolled_back:
                    state.balances[debit.player_id] += debit.amount
                    debit.rolled_back = True
                state.rolled_back_ids.add(debit_id)
                state.applied[tid] = Applied("rollback", player, amount)
                answer = (200, {"balance": str(state.balances[player]), "transaction_id": tid})
            else:
                return 404, {"error": "unknown_action"}
            state.answers[tid] = answer
            return answer


class _Handler(BaseHTTPRequestHandler):
    wallet: OperatorWalletServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # the tests stay quiet
        pass

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_POST(self) -> None:  # http.server names it
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        wallet = self.wallet
        try:
            verify_signature(
                header=self.headers.get("X-Gin-Signature"),
                body=raw,
                secrets=[wallet.secret],
                tolerance_seconds=300,
            )
            timestamp = int(self.headers.get("webhook-timestamp", "0"))
            msg_id = self.headers.get("webhook-id", "")
            expected = signed_headers(
                secret=wallet.secret, msg_id=msg_id, body=raw, timestamp=timestamp
            )["webhook-signature"]
            if self.headers.get("webhook-signature") != expected:
                raise SignatureError("webhook-signature")
        except (SignatureError, ValueError):
            with wallet.lock:
                wallet.state.bad_signatures += 1
            self._answer(401, {"error": "bad_signature"})
            return
        action = self.path.rstrip("/").rsplit("/", 1)[-1]
        body = json.loads(raw)
        fault = wallet._next_fault(action)
        if fault == "5xx":
            self._answer(500, {"error": "internal"})
            return
        if fault == "timeout":
            time.sleep(wallet.timeout_sleep)
        if fault == "duplicate":
            wallet.process(action, body, force_refuse=False)
        status, answer = wallet.process(action, body, force_refuse=fault == "insufficient")
        if fault == "lost":
            self.close_connection = True
            self.connection.close()
            return
        if fault == "lost_500":
            self._answer(500, {"error": "internal"})
            return
        try:
            self._answer(status, answer)
        except OSError:  # the client gave up (timeout)
            self.close_connection = True

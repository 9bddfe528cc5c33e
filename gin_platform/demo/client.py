"""A small HTTP client for the platform API, standard library only.

Used by the demo and the load benchmark; it is what an operator's integration looks like.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Any


class ApiError(Exception):
    def __init__(self, status: int, body: Any) -> None:
        self.status = status
        self.body = body
        detail = body.get("detail") if isinstance(body, dict) else body
        super().__init__(f"HTTP {status}: {detail}")


@dataclass
class ApiClient:
    base_url: str
    token: str | None = None
    timeout: float = 30.0
    # A 429 is refused before anything is done: wait its Retry-After and send it again, as an
    # integration should (a long match can pass a player's THROTTLE_PLAYER rate).
    throttled_retries: int = 3

    def with_token(self, token: str) -> ApiClient:
        return ApiClient(
            base_url=self.base_url,
            token=token,
            timeout=self.timeout,
            throttled_retries=self.throttled_retries,
        )

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def post(self, path: str, body: dict | None = None, *, idempotency_key: str | None = None):
        return self.request("POST", path, body or {}, idempotency_key=idempotency_key)

    def write(self, method: str, path: str, body: dict | None = None) -> Any:
        """An operator write: always with a fresh Idempotency-Key."""
        return self.request(method, path, body or {}, idempotency_key=str(uuid.uuid4()))

    def request(
        self,
        method: str,
        path: str,
        body: dict | None = None,
        *,
        idempotency_key: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(  # noqa: S310 - base_url is our own http(s) server
            self.base_url + path, data=data, method=method
        )
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        if idempotency_key:
            request.add_header("Idempotency-Key", idempotency_key)
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        for retry in range(self.throttled_retries + 1):
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                    raw = response.read()
                return json.loads(raw) if raw else None
            except urllib.error.HTTPError as exc:
                raw = exc.read()
                wait = _retry_after(exc) if exc.code == 429 else None
                if wait is not None and retry < self.throttled_retries:
                    time.sleep(wait)
                    continue
                try:
                    parsed = json.loads(raw)
                except ValueError:
                    parsed = raw.decode(errors="replace")
                raise ApiError(exc.code, parsed) from None
        raise AssertionError("unreachable: the last attempt returns or raises")


def _retry_after(error: urllib.error.HTTPError) -> float | None:
    """Seconds a 429 asks to wait (its Retry-After, at most a minute); None without one."""
    try:
        return min(float(error.headers.get("Retry-After", "")), 60.0)
    except ValueError:
        return None

"""Staff secrets are checked only within the failures an address has left (docs/backoffice.md
"Lockout"), however many attempts arrive at once and whichever web process takes them.

django-axes records a failed staff login (a wrong password or TOTP code) once its check has
failed, and refuses an address that holds ``AXES_FAILURE_LIMIT`` failures. Checking the
lockout, then the secret, then counting lets attempts sent together all pass the first step
before the first of them is counted: one address got as many guesses as it could send at
once, each costing a password hash. So every check of a staff secret (the HTTP Basic
password, the admin login form's password and code, an ``X-OTP`` code) runs inside
``staff_secret_check``:

1. The attempt takes one of the address's *attempt slots*: ``cache.add`` of one of
   ``min(AXES_FAILURE_LIMIT, MOST_IN_FLIGHT)`` keys, atomic in the shared cache (SET NX on
   Redis), so across every web process.
2. Then it counts, in this order, the other slots taken and the address's failures (axes'
   rows, in the database). Locked out already: it gives its slot back and is refused (429
   ``/problems/login-locked-out``). Failures plus the other attempts in flight still under
   the limit: its secret is checked. Otherwise it gives its slot back and tries again every
   ~50 ms, for at most ``STAFF_LOGIN_WAIT_SECONDS`` (then 429 ``/problems/throttled``,
   Retry-After 1).
3. After the check, axes has recorded its failure (if it failed) before the slot is given
   back.

Why this holds: take the failed checks of an address and, among them, the one that counted
last. Every other one was either still holding its slot then (taken before its own count,
so before this one's: counted as in flight) or had given it back (after axes recorded its
failure: counted as a failure). So that last check saw all the others, and it passed only
if they were fewer than the limit: at most ``AXES_FAILURE_LIMIT`` secrets fail before the
lockout, however they race. An attempt may count one that is both in flight and failed
twice for a moment; that only makes it wait a little longer.

Honest parallel requests (HTTP Basic checks the password on every request) take turns: up
to ``MOST_IN_FLIGHT`` at once, the others wait for a slot. A slot is held at most
``SLOT_SECONDS``, so a process that dies during a check does not keep it. If the cache
cannot be reached the check goes on without a slot (with a logged warning, like the
throttles): axes still refuses a locked-out address, only attempts racing each other are
no longer bounded.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import random
import secrets
import time
from collections.abc import Iterator

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_cool_off, get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from gin_platform.http.problems import LoginLockedOutProblem, ThrottledProblem
from gin_platform.http.throttling import client_address
from gin_platform.request_path.cache import CACHE_ERRORS, warn_cache_unreachable

# At most this many secrets of one address are checked at once (fewer when fewer failures
# are left): a bound on the CPU one address can spend on hashes, too.
MOST_IN_FLIGHT = 5
# A slot ends by itself after this long: far longer than any check (a password hash takes
# well under a second), so only a process that died during a check loses it this way.
SLOT_SECONDS = 30
# An attempt that finds no room tries again every POLL_SECONDS (jittered, so waiters do not
# all retry at the same instant), for at most settings.STAFF_LOGIN_WAIT_SECONDS.
POLL_SECONDS = 0.05


@contextlib.contextmanager
def staff_secret_check(request, *, username: str) -> Iterator[None]:
    """Run the body (the check of one staff secret, whose failure axes records) within the
    address's attempt slots (module docstring). Raises LoginLockedOutProblem when the
    address is locked out and ThrottledProblem when no room was found in time; the body
    does not run then."""
    django_request = getattr(request, "_request", request)
    # Not a setting of ours: axes' own, which it defaults to True (axes.conf).
    if not getattr(settings, "AXES_ENABLED", True):
        yield
        return
    credentials = {"username": username}
    slots = _Slots(django_request, credentials)
    slot = slots.take_turn()
    try:
        yield
    finally:
        slots.release(slot)


class _Slots:
    def __init__(self, request, credentials: dict) -> None:
        self.request = request
        self.credentials = credentials
        self.limit = get_failure_limit(request, credentials)
        address = client_address(request) or "unknown"
        digest = hashlib.sha256(address.encode()).hexdigest()[:32]
        self.keys = [
            f"staff-attempt:{digest}:{n}" for n in range(max(1, min(self.limit, MOST_IN_FLIGHT)))
        ]
        self.token = secrets.token_hex(8)

    def take_turn(self) -> str | None:
        """The slot key this attempt holds (None: the cache did not answer; go unguarded)."""
        deadline = time.monotonic() + settings.STAFF_LOGIN_WAIT_SECONDS
        while True:
            try:
                slot = self._reserve()
                # Counted after the slot is taken: the order the module docstring relies on.
                others = len(cache.get_many(self.keys)) - 1 if slot is not None else 0
            except CACHE_ERRORS:
                warn_cache_unreachable(self.keys[0])
                return None
            if slot is not None:
                if self._locked():
                    self.release(slot)
                    raise locked_out_problem(self.request)
                if self._failures() + others < self.limit:
                    return slot
                self.release(slot)
            if time.monotonic() >= deadline:
                raise ThrottledProblem(
                    "Too many staff logins from this address at once; try again in a moment",
                    retry_after=1,
                )
            time.sleep(POLL_SECONDS * (0.5 + random.random()))  # jitter, not a secret

    def _reserve(self) -> str | None:
        for key in self.keys:
            if cache.add(key, self.token, SLOT_SECONDS):
                return key
        return None

    def _locked(self) -> bool:
        return AxesProxyHandler.is_locked(self.request, self.credentials)

    def _failures(self) -> int:
        return AxesProxyHandler.get_failures(self.request, self.credentials)

    def release(self, slot: str | None) -> None:
        """Give the slot back, unless it ended and another attempt holds it now."""
        if slot is None:
            return
        try:
            if cache.get(slot) == self.token:
                cache.delete(slot)
        except CACHE_ERRORS:
            warn_cache_unreachable(slot)


def locked_out_problem(request) -> LoginLockedOutProblem:
    return LoginLockedOutProblem(
        "Too many failed staff logins from this address; no password is checked from here "
        "until the lockout ends",
        retry_after=lockout_seconds_left(request),
    )


def lockout_seconds_left(request) -> int:
    """Seconds until the axes lockout of this request's address ends (AXES_COOLOFF_TIME
    after its latest failure)."""
    cool_off = get_cool_off(request)
    if cool_off is None:
        return 0
    latest = (
        AccessAttempt.objects.filter(ip_address=client_address(request))
        .order_by("-attempt_time")
        .values_list("attempt_time", flat=True)
        .first()
    )
    if latest is None:
        return math.ceil(cool_off.total_seconds())
    return max(1, math.ceil((latest + cool_off - timezone.now()).total_seconds()))

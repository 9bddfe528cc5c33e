"""Rate limits on the shared cache (Redis in production), per operator, player or address.

A sliding-window counter. Time is cut into fixed windows as long as the rate's period; each
caller has one integer counter per window, and a request is admitted while

    previous * (1 - elapsed / period) + current <= limit

where ``previous`` and ``current`` are the counts of the last and of this window and
``elapsed`` is how far into this window we are: the last window's hits are taken as spread
evenly over it, and only the share still inside the sliding period counts. A request costs
one read of two small integers (MGET) and, when it may pass, one atomic increment: O(1) in
CPU, bytes and round trips whatever the rate (DRF's SimpleRateThrottle read, pruned and
rewrote a pickled list of every timestamp in the period on every request).

Atomic across web processes: the decision is taken on the value the increment returned
(INCRBY on Redis; LocMemCache increments under its lock), which is distinct for each of
several racing requests, so they cannot all take the last slot. A request that finds itself
over the limit takes its hit back, so refused requests never count against the caller (as
with DRF, whose list held only admitted requests).

Precision: within one fixed window never more than ``limit`` pass. Across a window boundary
the count is an estimate: stricter than a true sliding log when the last window's hits came
early in it, looser when they all came at its very end (then up to about twice the limit can
pass in one period-long stretch). Windows follow each web process's clock (keep NTP on).

The same counter, with ``_full`` and ``_count`` in place of ``_admit``, counts failed
authentications per client address and per credential (``AuthFailureGuard``): consulted
before the expensive check, incremented only when the check fails.

Every answer of a throttled view says where the caller stands (IETF draft
httpapi-ratelimit-headers): ``RateLimit-Limit`` (the requests allowed per period),
``RateLimit-Remaining`` (how many more would pass now: the limit minus the sliding estimate,
rounded down; 0 on a 429) and ``RateLimit-Reset`` (seconds until nothing the caller sent
counts any more, so Remaining is back at Limit if no request comes meanwhile; rounded up like
``Retry-After``, which on a 429 says when the next single request would pass). The throttle
hands them to the view (DRF writes ``view.headers`` onto the response, success or error), so
they are on every answer the throttle has counted or refused, and on no other (the health
probes, failed authentication refused before the throttle runs, a fail-open request).

When the cache cannot be reached (Redis down or refusing connections) the throttle fails
open: the request is let through and a warning is logged, at most once a minute per process.
Rate limiting is protection, not correctness (money moves are guarded by row locks and
idempotency keys), so a Redis blip must not turn every API call into a 500, which is what
DRF's SimpleRateThrottle did: its cache read raised straight out of the view.
"""

from __future__ import annotations

import contextlib
import hashlib
import ipaddress
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.core.cache import cache as default_cache
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from gin_platform.http.problems import ThrottledProblem
from gin_platform.request_path.cache import CACHE_ERRORS, redis_script, warn_cache_unreachable
from gin_platform.tenancy.principals import OperatorPrincipal, PlayerPrincipal

# The rate-limit answer headers (IETF draft httpapi-ratelimit-headers), in this order.
LIMIT_HEADER = "RateLimit-Limit"
REMAINING_HEADER = "RateLimit-Remaining"
RESET_HEADER = "RateLimit-Reset"
RATE_LIMIT_HEADERS = (LIMIT_HEADER, REMAINING_HEADER, RESET_HEADER)


@dataclass(frozen=True)
class RateLimitStatus:
    """Where a caller stands after one request: what the RateLimit-* headers answer."""

    limit: int
    remaining: int
    reset: int

    def headers(self) -> dict[str, str]:
        return {
            LIMIT_HEADER: str(self.limit),
            REMAINING_HEADER: str(self.remaining),
            RESET_HEADER: str(self.reset),
        }


def client_address(request) -> str | None:
    """The address a request comes from, for throttling and for counting failed logins.

    The peer's address (``REMOTE_ADDR``), unless ``NUM_PROXIES`` (n > 0) reverse proxies are
    declared in front of the web processes: then the n-th address from the right of
    ``X-Forwarded-For``, the one the outermost trusted proxy saw. Unlike DRF's default for an
    unset ``NUM_PROXIES`` (the whole header), a header the client writes itself is never
    believed: otherwise every request could name a fresh address and so a fresh bucket. A
    value that is not an IP address (fewer proxies than declared) falls back to the peer.
    """
    remote = request.META.get("REMOTE_ADDR") or None
    proxies = api_settings.NUM_PROXIES or 0
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if proxies > 0 and forwarded:
        addresses = [address.strip() for address in forwarded.split(",")]
        candidate = addresses[-min(proxies, len(addresses))]
        try:
            return str(ipaddress.ip_address(candidate))
        except ValueError:
            return remote
    return remote


class SlidingWindowCounter:
    """The sliding-window counter of the module docstring, for one key.

    Users set ``key`` (the caller's bucket), ``num_requests`` (the limit) and ``duration``
    (the period in seconds) and call ``_open_window()``. Then either ``_admit`` (read, and
    count the request if it fits: the request throttle), or ``_read``/``_load`` followed by
    ``_full`` (would one more exceed the limit?) and, separately, ``_count`` (one more,
    unconditionally: failed logins). ``wait()`` follows a refusal.
    """

    cache = default_cache
    timer: Callable[[], float] = time.time  # a plain function: not bound to the counter
    key: str
    num_requests: int
    duration: int

    def _set_rate(self, limits: tuple[int | None, int | None]) -> None:
        """``num_requests`` and ``duration`` from DRF's ``parse_rate`` of a rate (None only
        for no rate at all, which is never counted)."""
        num_requests, duration = limits
        assert num_requests is not None and duration is not None  # a rate was parsed
        self.num_requests, self.duration = num_requests, duration

    def _open_window(self) -> int:
        self.now = self.timer()
        window, self.elapsed = divmod(self.now, self.duration)
        return int(window)

    def window_key(self, window: int) -> str:
        """The counter of one fixed window: the caller's key and the window's number."""
        return f"{self.key}:{window}"

    def _keys(self, window: int) -> tuple[str, str]:
        """This window's counter and the last one's."""
        return self.window_key(window), self.window_key(window - 1)

    def _read(self, window: int) -> tuple[str, bool]:
        current_key, previous_key = self._keys(window)
        return self._load(self.cache.get_many([previous_key, current_key]), window)

    def _load(self, counts: dict[str, int], window: int) -> tuple[str, bool]:
        """Take the two counts from what a (possibly shared) get_many read."""
        current_key, previous_key = self._keys(window)
        self.previous = counts.get(previous_key, 0)
        self.current = counts.get(current_key, 0)
        return current_key, current_key in counts

    def _admit(self, window: int) -> bool:
        script = _admit_script(self.cache)
        if script is not None:
            return self._admit_in_one_round_trip(window, *script)
        current_key, exists = self._read(window)
        if self._estimate(self.current + 1) > self.num_requests:
            return False  # no write: a client hammering a full bucket costs one read each
        hits = self._increment(current_key, exists=exists)
        self.current = hits - 1  # the hits before this one, for wait()
        if self._estimate(hits) > self.num_requests:
            # Another process took the last slot between the read and the increment. If the
            # counter is gone already (ValueError) there is nothing to take back.
            with contextlib.suppress(ValueError):
                self.cache.decr(current_key)
            return False
        return True

    def _admit_in_one_round_trip(self, window: int, client, script) -> bool:
        """``_admit`` as one Redis script: read both counts, decide, count the hit; atomic in
        Redis, so there is never a slot to take back. Same decision, same counters."""
        current_key, previous_key = (
            self.cache.make_and_validate_key(key) for key in self._keys(window)
        )
        previous, current, admitted = script(
            keys=[current_key, previous_key],
            args=[self.num_requests, repr(self.weight), 2 * self.duration + 1],
            client=client,
        )
        self.previous, self.current = int(previous), int(current)
        return bool(admitted)

    def _full(self) -> bool:
        """Would one more hit exceed the limit (after ``_read`` or ``_load``)?"""
        return self._estimate(self.current + 1) > self.num_requests

    def _count(self, window: int) -> None:
        """One more hit in this window, whatever the count (failures are never refused)."""
        self._increment(self.window_key(window), exists=True)

    @property
    def weight(self) -> float:
        """The share of the last window's hits still inside the sliding period."""
        return 1 - self.elapsed / self.duration

    def _estimate(self, current: int) -> float:
        return self.previous * self.weight + current

    def _increment(self, key: str, *, exists: bool) -> int:
        # A counter is read as "previous" all through the next window, so it lives two.
        timeout = 2 * self.duration + 1
        if not exists:
            self.cache.add(key, 0, timeout)  # a no-op if another process created it first
        try:
            return self.cache.incr(key)
        except ValueError:  # expired or evicted between the read and the increment
            self.cache.add(key, 0, timeout)
            return self.cache.incr(key)

    def status(self, *, admitted: bool) -> RateLimitStatus:
        """The RateLimit-* answer after ``_admit`` (module docstring): ``current`` holds the
        hits before this one, which counts only when it was admitted."""
        counted = self.current + 1 if admitted else self.current
        remaining = int(self.num_requests - self._estimate(counted)) if admitted else 0
        if counted:  # this window's hits slide out over the whole next window
            until_empty = 2 * self.duration - self.elapsed
        elif self.previous:  # only the last window's, gone when this one ends
            until_empty = self.duration - self.elapsed
        else:
            until_empty = 0
        return RateLimitStatus(
            limit=self.num_requests,
            remaining=max(remaining, 0),
            # Whole seconds, never early: the rounding of Retry-After (problem_handler).
            reset=int(until_empty) + 1 if until_empty > 0 else 0,
        )

    def wait(self) -> float:
        """Seconds until one more hit would be admitted, if no other comes meanwhile."""
        limit, period = self.num_requests, self.duration
        if limit < 1:
            return float(period)
        if self.current + 1 <= limit:
            # This window has room once enough of the last one has slid out:
            # previous * (1 - (elapsed + t) / period) + current + 1 <= limit.
            seconds = period * (1 - (limit - 1 - self.current) / self.previous) - self.elapsed
        else:
            # This window is full: wait for the next one, where this becomes the previous.
            seconds = period - self.elapsed + period * (1 - (limit - 1) / self.current)
        # Positive in exact arithmetic; the floor keeps float rounding from dropping the
        # Retry-After header (the problem handler omits it for a zero wait).
        return max(seconds, 0.001)


# The sliding-window admission in Redis, as a Lua function both scripts below define: the
# counters of this window and the last one, the limit, the weight of the last window's hits
# (1 - elapsed/period), the counter's TTL. Returns the last window's hits, this window's
# hits before this request, admitted (1/0). Counters are plain integers, as the cache's
# incr() leaves them. ``previous * weight + (current + 1)`` is SlidingWindowCounter._full's
# sum, in its order.
ADMIT_FUNCTION = """
local function hits(key) return tonumber(redis.call('GET', key) or '0') or 0 end
local function admit(current_key, previous_key, limit, weight, ttl)
  local previous, current = hits(previous_key), hits(current_key)
  if previous * weight + (current + 1) > limit then
    return previous, current, 0
  end
  local counted = redis.call('INCR', current_key)
  if counted == 1 then redis.call('EXPIRE', current_key, ttl) end
  return previous, counted - 1, 1
end
"""

# KEYS: this window's counter, the last one's. ARGV: the limit, the weight, the TTL.
ADMIT_SCRIPT = (
    ADMIT_FUNCTION
    + """
local previous, current, admitted = admit(KEYS[1], KEYS[2], tonumber(ARGV[1]),
  tonumber(ARGV[2]), ARGV[3])
return {previous, current, admitted}
"""
)


def _admit_script(cache) -> tuple | None:
    """(client, script) when ``cache`` is the Redis backend, else None (the generic path:
    LocMemCache in the demo and tests without Redis)."""
    return redis_script(cache, ADMIT_SCRIPT, "_gin_admit_script")


class PrincipalRateThrottle(SlidingWindowCounter, SimpleRateThrottle):
    """One bucket per caller; the rate depends on the kind of caller. Fails open."""

    # Set by ``_open`` before any use (Optional in DRF, whose allow_request this replaces).
    scope: str
    key: str
    admitted: bool | None  # None: not decided yet
    counted: bool  # whether the cache answered (else: let through, unseen)

    def __init__(self) -> None:  # the rate is chosen per request in allow_request
        pass

    def _open(self, scope: str, ident: str) -> bool:
        """The rate of ``scope``, the bucket of ``ident`` and this window, the request not
        decided yet; False when the scope has no rate (nothing to decide)."""
        self.scope = scope
        self.rate = self.get_rate()
        if self.rate is None:
            return False
        self._set_rate(self.parse_rate(self.rate))
        self.key = throttle_key(scope, ident)
        self.window = self._open_window()
        self.admitted = None
        self.counted = False
        return True

    @classmethod
    def for_principal(cls, principal) -> PrincipalRateThrottle | None:
        """This throttle for ``principal``, its window open, before DRF asks it: decided when
        the credential is accepted (``pass_gate``, else ``admit_now``). None when the
        principal's scope has no rate."""
        throttle = cls()
        return (
            throttle
            if throttle._open(cls._scope_for(principal), principal.throttle_ident)
            else None
        )

    @property
    def keys(self) -> tuple[str, str]:
        """This window's counter and the last one's (after ``_open``)."""
        return self._keys(self.window)

    def admit_now(self) -> bool:
        """Decide and count this request now (when the gate's round trip did not): whether
        it is admitted."""
        try:
            admitted, self.counted = self._admit(self.window), True
        except CACHE_ERRORS:
            warn_cache_unreachable(self.key)
            admitted, self.counted = True, False
        self.admitted = admitted
        return admitted

    def answer_status(self, view) -> None:
        if self.counted and self.admitted is not None:  # counted: decided too
            _answer_status(view, self.status(admitted=self.admitted))

    def allow_request(self, request, view) -> bool:
        admission = getattr(request, ADMISSION_ATTRIBUTE, None)
        if admission is not None:
            # Decided, counted and answered when the request was authenticated: take its
            # state (counts, window, rate) so that wait() answers for it.
            self.__dict__.update(admission.__dict__)
            return bool(self.admitted)  # decided: True or False
        if not self._open(self._scope_for(request.user), self._ident(request)):
            return True
        admitted = self.admit_now()
        self.answer_status(view)
        return admitted

    @staticmethod
    def _scope_for(user) -> str:
        if isinstance(user, OperatorPrincipal):
            return "operator"
        if isinstance(user, PlayerPrincipal):
            return "player"
        return "anon"

    def get_ident(self, request) -> str:
        """The client's address (``client_address``); "None" for a request without one
        (they share one bucket)."""
        return str(client_address(request))

    def get_cache_key(self, request, view) -> str:
        return throttle_key(self.scope, self._ident(request))

    def _ident(self, request) -> str:
        user = request.user
        if isinstance(user, OperatorPrincipal | PlayerPrincipal):
            return user.throttle_ident
        if user is not None and getattr(user, "is_authenticated", False):
            return f"user:{user.pk}"
        return f"ip:{self.get_ident(request)}"


# Where the authentication leaves a throttle decision it already took (``pass_gate``) for
# ``PrincipalRateThrottle.allow_request``: an attribute of DRF's request.
ADMISSION_ATTRIBUTE = "principal_admission"


def throttle_key(scope: str, ident: str) -> str:
    return f"throttle:{scope}:{ident}"


def _answer_status(view, status: RateLimitStatus) -> None:
    """Have the view answer the RateLimit-* headers (DRF copies ``view.headers`` onto its
    response, a 429 included). With several throttles the one with the least remaining wins."""
    headers = getattr(view, "headers", None)
    if headers is None:
        return
    answered = headers.get(REMAINING_HEADER)
    if answered is None or status.remaining < int(answered):
        headers.update(status.headers())


# --- Failed authentication ---------------------------------------------------------------
class FailureCounter(SlidingWindowCounter):
    """Failed authentications in one bucket, at the rate of a ``DEFAULT_THROTTLE_RATES`` scope."""

    def __init__(self, *, scope: str, ident: str) -> None:
        self.key = f"authfail:{scope}:{ident}"
        rate = PrincipalRateThrottle.THROTTLE_RATES[scope]
        # parse_rate reads nothing from its throttle: DRF's parser for "<n>/<period>".
        self._set_rate(PrincipalRateThrottle().parse_rate(rate))
        self.window = self._open_window()

    @property
    def keys(self) -> tuple[str, str]:
        return self._keys(self.window)

    def load(self, counts: dict[str, int]) -> None:
        self._load(counts, self.window)

    def full(self) -> bool:
        return self._full()

    def has_failed(self) -> bool:
        """Any failure still inside the sliding period (after ``load``)."""
        return self._estimate(self.current) > 0

    def count(self) -> None:
        self._count(self.window)


class AuthFailureGuard:
    """Throttles failed authentication before the expensive check (a key lookup, PBKDF2).

    Two sliding-window counters of failures, never of successes:

    - per client address (scope ``auth_failures_address``, ``THROTTLE_AUTH_FAILURES_ADDRESS``,
      20 a minute by default): an address over it gets 429 for every credential, right or
      wrong, without any check;
    - per credential (scope ``auth_failures_credential``,
      ``THROTTLE_AUTH_FAILURES_CREDENTIAL``, 10 a minute: an API key's public prefix, a staff
      username): a credential over it is refused, but only to addresses that have failed
      themselves within the period. So failures from other addresses never lock out a caller
      whose own address has not failed (an attacker who knows an operator's key prefix or a
      staff username cannot lock its owner out), and once a credential is under attack from
      many addresses each of them gets about one failure per period at it.

    A check costs one cache read (MGET of at most four small integers), a failure one
    increment per counter. Like the request throttle it fails open, with a logged warning,
    when the cache cannot be reached.
    """

    ADDRESS_SCOPE = "auth_failures_address"
    CREDENTIAL_SCOPE = "auth_failures_credential"

    def __init__(self, request, *, credential: str | None = None) -> None:
        address = client_address(request)
        rates = PrincipalRateThrottle.THROTTLE_RATES
        self.by_address = (
            FailureCounter(scope=self.ADDRESS_SCOPE, ident=address)
            if address and rates.get(self.ADDRESS_SCOPE)
            else None
        )
        self.by_credential = (
            FailureCounter(scope=self.CREDENTIAL_SCOPE, ident=_digest(credential))
            if credential and rates.get(self.CREDENTIAL_SCOPE)
            else None
        )
        self.counters = [c for c in (self.by_address, self.by_credential) if c is not None]

    def check(self) -> None:
        """Raise ThrottledProblem if this attempt must not even be checked."""
        if not self.counters:
            return
        try:
            counts = FailureCounter.cache.get_many([k for c in self.counters for k in c.keys])
        except CACHE_ERRORS:
            warn_cache_unreachable(self.counters[0].key)
            return
        for counter in self.counters:
            counter.load(counts)
        self.raise_if_refused()

    def raise_if_refused(self) -> None:
        """Raise ThrottledProblem when the counts loaded say this attempt must not be
        checked (``check``, or the gate's round trip)."""
        refusal = self._refusal()
        if refusal is not None:
            raise ThrottledProblem(
                "Too many failed authentication attempts; wait before trying again",
                retry_after=refusal.wait(),
            )

    def _refusal(self) -> FailureCounter | None:
        if self.by_address is not None and self.by_address.full():
            return self.by_address
        credential_hot = self.by_credential is not None and self.by_credential.full()
        if credential_hot and (self.by_address is None or self.by_address.has_failed()):
            return self.by_credential
        return None

    def failed(self) -> None:
        """Count one failure against the address and the credential."""
        for counter in self.counters:
            try:
                counter.count()
            except CACHE_ERRORS:
                warn_cache_unreachable(counter.key)
                return


def _digest(credential: str) -> str:
    """A fixed-length cache key part for a credential (usernames may be long or odd)."""
    return hashlib.sha256(credential.encode()).hexdigest()[:32]

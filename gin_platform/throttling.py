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

When the cache cannot be reached (Redis down or refusing connections) the throttle fails
open: the request is let through and a warning is logged, at most once a minute per process.
Rate limiting is protection, not correctness (money moves are guarded by row locks and
idempotency keys), so a Redis blip must not turn every API call into a 500, which is what
DRF's SimpleRateThrottle did: its cache read raised straight out of the view.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time

from redis.exceptions import RedisError
from rest_framework.throttling import SimpleRateThrottle

from gin_platform.principals import OperatorPrincipal, PlayerPrincipal

logger = logging.getLogger(__name__)

# What a shared cache raises when it cannot answer: redis-py's errors from RedisCache,
# socket errors (refused, reset, timed out) from other backends.
CACHE_ERRORS: tuple[type[Exception], ...] = (RedisError, OSError)

# A Redis outage at thousands of requests a second must not flood the log as well.
WARNING_INTERVAL = 60.0


class _Warner:
    """Logs the cache-unreachable warning at most once per interval in this process."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.last = -interval
        self.lock = threading.Lock()

    def warn(self, key: str) -> None:
        now = time.monotonic()
        with self.lock:
            if now - self.last < self.interval:
                return
            self.last = now
        logger.warning(
            "throttle cache unreachable, letting requests through (failing open); key %s",
            key,
            exc_info=True,
        )


_cache_warning = _Warner(WARNING_INTERVAL)


class PrincipalRateThrottle(SimpleRateThrottle):
    """One bucket per caller; the rate depends on the kind of caller. Fails open."""

    def __init__(self) -> None:  # the rate is chosen per request in allow_request
        pass

    def allow_request(self, request, view) -> bool:
        self.scope = self._scope_for(request.user)
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        window, self.elapsed = divmod(self.now, self.duration)
        try:
            return self._admit(int(window))
        except CACHE_ERRORS:
            _cache_warning.warn(self.key)
            return True

    @staticmethod
    def _scope_for(user) -> str:
        if isinstance(user, OperatorPrincipal):
            return "operator"
        if isinstance(user, PlayerPrincipal):
            return "player"
        return "anon"

    def get_cache_key(self, request, view) -> str:
        user = request.user
        if isinstance(user, OperatorPrincipal | PlayerPrincipal):
            ident = user.throttle_ident
        elif user is not None and getattr(user, "is_authenticated", False):
            ident = f"user:{user.pk}"
        else:
            ident = f"ip:{self.get_ident(request)}"
        return f"throttle:{self.scope}:{ident}"

    def window_key(self, window: int) -> str:
        """The counter of one fixed window: the caller's key and the window's number."""
        return f"{self.key}:{window}"

    def _admit(self, window: int) -> bool:
        current_key, previous_key = self.window_key(window), self.window_key(window - 1)
        counts = self.cache.get_many([previous_key, current_key])
        self.previous = counts.get(previous_key, 0)
        self.current = counts.get(current_key, 0)
        if self._estimate(self.current + 1) > self.num_requests:
            return False  # no write: a client hammering a full bucket costs one read each
        hits = self._increment(current_key, exists=current_key in counts)
        self.current = hits - 1  # the hits before this one, for wait()
        if self._estimate(hits) > self.num_requests:
            # Another process took the last slot between the read and the increment. If the
            # counter is gone already (ValueError) there is nothing to take back.
            with contextlib.suppress(ValueError):
                self.cache.decr(current_key)
            return False
        return True

    def _estimate(self, current: int) -> float:
        return self.previous * (1 - self.elapsed / self.duration) + current

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

    def wait(self) -> float:
        """Seconds until one more request would be admitted, if no other comes meanwhile."""
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

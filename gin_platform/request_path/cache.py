"""The cache backend on Redis: Django's, with one redis-py client per connection pool.

Django's RedisCacheClient wraps its connection pool in a new ``redis.Redis`` object on every
cache call, and redis-py's constructor (its response callbacks, its retry policy) cost more
CPU than the round trip itself: every API request makes two to four cache calls (the failed-
authentication guard, the throttle's read and increment), so it was several per cent of a
web process's time under load (docs/benchmarks.md). A redis-py client is safe to share
between threads, so each pool gets one, made on first use.

Also what every fail-open user of the cache (the throttles, the failed-authentication guard,
the remembered credentials' epoch, the signature replay guard, the registered origins)
shares: the errors a cache raises when it cannot answer (``CACHE_ERRORS``), the warning it
logs then (at most once a minute per process), and the Lua scripts registered once per
client (``redis_script``).
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Sequence
from typing import Any

from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.cache import cache as default_cache
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as DjangoRedisCacheClient
from redis.exceptions import NoScriptError, RedisError

logger = logging.getLogger(__name__)

# What a shared cache raises when it cannot answer: redis-py's errors from RedisCache,
# socket errors (refused, reset, timed out) from other backends.
CACHE_ERRORS: tuple[type[Exception], ...] = (RedisError, OSError)

# A Redis outage at thousands of requests a second must not flood the log as well.
WARNING_INTERVAL = 60.0


class RedisCacheClient(DjangoRedisCacheClient):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            pool = self._get_connection_pool(write)
            client = self._clients[index] = self._client(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = RedisCacheClient

    def validate_key(self, key) -> None:
        """Nothing to check: Redis takes any key. Django's check warns about keys memcached
        would refuse (a regular expression through a lazy object, per key): 1.5 % of a
        REST move's web CPU, which makes several keys (docs/benchmarks.md)."""


def redis_client(cache=None):
    """The redis-py client of ``cache`` (the default cache when None) if it is this Redis
    backend, else None (LocMemCache in the demo and tests without Redis): for the few
    callers that need Redis's own commands (a Lua script, a set)."""
    if cache is None or cache is default_cache:  # the proxy: the backend is this thread's
        cache = caches[DEFAULT_CACHE_ALIAS]
    if not isinstance(cache, DjangoRedisCache):
        return None
    return cache._cache.get_client(write=True)


class LuaScript:
    """A Lua script run with EVALSHA, loaded again when Redis does not know it (restarted or
    flushed), as redis-py's ``Script`` runs it. That one first asks whether its client is a
    pipeline, an ``isinstance`` through typing's Protocol machinery (redis-py's commands
    derive from a Protocol): 1.7 % of a REST move's web CPU for the request gate alone. No
    caller runs one on a pipeline (a pipeline would need SCRIPT EXISTS first: a round trip
    more; games/realtime/view_cache.py sends its script there as EVAL)."""

    def __init__(self, client: Any, source: str) -> None:
        self.client = client
        self.source = source
        self.sha = hashlib.sha1(source.encode(), usedforsecurity=False).hexdigest()

    def __call__(
        self, keys: Sequence[Any] = (), args: Sequence[Any] = (), client: Any = None
    ) -> Any:
        client = self.client if client is None else client
        try:
            return client.evalsha(self.sha, len(keys), *keys, *args)
        except NoScriptError:
            client.script_load(self.source)
            return client.evalsha(self.sha, len(keys), *keys, *args)


def redis_script(cache, source: str, name: str) -> tuple[Any, LuaScript] | None:
    """(client, script) for one Lua script on the Redis backend ``cache``, else None."""
    client = redis_client(cache)
    if client is None:
        return None
    script = getattr(client, name, None)
    if script is None:  # made once per client: EVALSHA from then on
        script = LuaScript(client, source)
        setattr(client, name, script)
    return client, script


class IntervalWarner:
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


_cache_warning = IntervalWarner(WARNING_INTERVAL)


def warn_cache_unreachable(key: str) -> None:
    """Log (at most once a minute per process) that the cache did not answer for ``key``;
    for other fail-open users of the cache, such as the signature replay guard."""
    _cache_warning.warn(key)

"""The cache backend on Redis: Django's, with one redis-py client per connection pool.

Django's RedisCacheClient wraps its connection pool in a new ``redis.Redis`` object on every
cache call, and redis-py's constructor (its response callbacks, its retry policy) cost more
CPU than the round trip itself: every API request makes two to four cache calls (the failed-
authentication guard, the throttle's read and increment), so it was several per cent of a
web process's time under load (docs/benchmarks.md). A redis-py client is safe to share
between threads, so each pool gets one, made on first use.
"""

from __future__ import annotations

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as DjangoRedisCacheClient


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


def redis_client(cache=None):
    """The redis-py client of ``cache`` (the default cache when None) if it is this Redis
    backend, else None (LocMemCache in the demo and tests without Redis): for the few
    callers that need Redis's own commands (a Lua script, a set)."""
    from django.core.cache import DEFAULT_CACHE_ALIAS, caches
    from django.core.cache import cache as default_cache

    if cache is None or cache is default_cache:  # the proxy: the backend is this thread's
        cache = caches[DEFAULT_CACHE_ALIAS]
    if not isinstance(cache, DjangoRedisCache):
        return None
    return cache._cache.get_client(write=True)

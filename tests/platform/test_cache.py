"""The Redis cache backend keeps one redis-py client per pool
(gin_platform/request_path/cache.py)."""

import pytest
from django.conf import settings
from django.core.cache import caches

from gin_platform.request_path.cache import redis_script

pytestmark = pytest.mark.redis


def test_the_backend_reuses_its_client_and_still_reads_and_writes():
    cache = caches["default"]
    assert settings.CACHES["default"]["BACKEND"] == "gin_platform.request_path.cache.RedisCache"
    client = cache._cache.get_client(write=True)
    assert cache._cache.get_client("any key", write=True) is client
    cache.delete_many(["cache-test:key", "cache-test:counter"])
    cache.set("cache-test:key", {"n": 1}, 30)
    assert cache.get("cache-test:key") == {"n": 1}
    assert cache.add("cache-test:counter", 0, 30)
    assert cache.incr("cache-test:counter") == 1
    assert cache.get_many(["cache-test:key", "cache-test:none"]) == {"cache-test:key": {"n": 1}}
    cache.delete_many(["cache-test:key", "cache-test:counter"])
    assert cache.get("cache-test:key") is None


def test_any_key_goes_to_redis_without_memcacheds_checks(recwarn):
    """Redis takes any key: no check per key (memcached's length and characters), no
    warning, and such a key stores and reads as any other."""
    cache = caches["default"]
    key = "cache-test:a key with spaces\n" + "x" * 300
    cache.set(key, 7, 30)
    assert cache.get(key) == 7
    cache.delete(key)
    assert cache.get(key) is None
    assert not recwarn.list


def test_a_lua_script_runs_by_its_digest_and_is_loaded_again_once_redis_forgot_it():
    cache = caches["default"]
    source = "return {KEYS[1], ARGV[1] + 1}"
    client, script = redis_script(cache, source, "_gin_test_script")
    assert redis_script(cache, source, "_gin_test_script") == (client, script)  # made once
    assert script.sha == client.script_load(source)  # the digest Redis gives it
    assert script(keys=["cache-test:k"], args=[41]) == [b"cache-test:k", 42]
    client.script_flush()  # as after a restart of Redis
    assert client.script_exists(script.sha) == [False]
    assert script(keys=["cache-test:k"], args=[1]) == [b"cache-test:k", 2]
    assert client.script_exists(script.sha) == [True]

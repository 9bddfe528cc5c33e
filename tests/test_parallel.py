"""Each xdist worker's own Redis databases and channel-layer prefix (tests/parallel.py,
docs/testing.md "Parallel runs"), and the lock that lets an ``alone`` test run by itself."""

from __future__ import annotations

import threading
import time

import pytest

from tests.parallel import Machine, isolate, redis_url_for_worker, worker_number


def test_worker_n_uses_the_redis_database_n_above_the_one_redis_url_names():
    assert redis_url_for_worker("redis://127.0.0.1:6379/1", 0) == "redis://127.0.0.1:6379/1"
    assert redis_url_for_worker("redis://127.0.0.1:6379/1", 2) == "redis://127.0.0.1:6379/3"
    assert redis_url_for_worker("redis://:pw@redis:6379", 1) == "redis://:pw@redis:6379/1"
    with pytest.raises(pytest.UsageError):
        redis_url_for_worker("unix:///run/redis.sock?db=1", 1)


def test_a_worker_moves_every_redis_variable_and_names_its_database_in_the_prefix():
    env = {
        "PYTEST_XDIST_WORKER": "gw1",
        "REDIS_URL": "redis://127.0.0.1:6379/8",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/10",
    }
    isolate(env, worker=worker_number(env))
    assert env == {
        "PYTEST_XDIST_WORKER": "gw1",
        "REDIS_URL": "redis://127.0.0.1:6379/9",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/11",
        "CHANNEL_LAYER_PREFIX": "gin:ws:db9",
    }


def test_outside_xdist_only_the_prefix_changes_and_without_redis_nothing():
    env = {"REDIS_URL": "redis://127.0.0.1:6379/4", "CHANNEL_LAYER_PREFIX": "mine"}
    isolate(env, worker=worker_number(env))
    assert env == {"REDIS_URL": "redis://127.0.0.1:6379/4", "CHANNEL_LAYER_PREFIX": "mine:db4"}
    empty: dict[str, str] = {}
    isolate(empty, worker=None)
    assert empty == {}


def test_an_alone_test_waits_for_the_running_ones_and_keeps_later_ones_out(tmp_path):
    """Two workers' views of one run's lock files: the alone test starts only once the
    running test ends, and a test asking after it waits until it is done."""
    first, second = Machine(str(tmp_path)), Machine(str(tmp_path))
    events: list[str] = []

    def alone() -> None:
        with second.share(alone=True):
            events.append("alone starts")
            time.sleep(0.3)
            events.append("alone ends")

    with first.share(alone=False):
        waiting = threading.Thread(target=alone)
        waiting.start()
        time.sleep(0.3)
        events.append("running test ends")
    time.sleep(0.1)  # the alone test has the room now
    with first.share(alone=False):
        events.append("next test starts")
    waiting.join()
    assert events == ["running test ends", "alone starts", "alone ends", "next test starts"]

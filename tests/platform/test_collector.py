"""The garbage collector in server processes (gin_platform/request_path/collector.py): what the
process has loaded is kept out of later collections, and what it allocates afterwards is still
collected."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from celery import signals

from gin_platform.project.celery import keep_the_application_out_of_collections
from gin_platform.request_path.collector import (
    YOUNG_COLLECTION_THRESHOLD,
    loaded_application_frozen,
)


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def _is_tracked_by_the_collector(obj: object) -> bool:
    return any(tracked is obj for tracked in gc.get_objects())


@pytest.fixture
def thawed():
    """Each test freezes this process's heap; give it back to the collector afterwards, with
    its thresholds as they were."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


@contextmanager
def other_threads_held() -> Iterator[None]:
    """No other thread of this process runs meanwhile (one that frees a frozen object, such as
    pytest-xdist's thread receiving the next tests, changes the frozen count)."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(60)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


def test_what_is_loaded_is_frozen_and_later_garbage_is_still_collected(thawed):
    loaded = Node()
    assert _is_tracked_by_the_collector(loaded)
    with other_threads_held():
        assert loaded_application_frozen() == gc.get_freeze_count() > 0
    assert not _is_tracked_by_the_collector(loaded)  # no collection traverses it again
    assert gc.get_threshold()[0] == YOUNG_COLLECTION_THRESHOLD
    # a cycle made afterwards, then dropped, is found and freed as before
    first, second = Node(), Node()
    first.other, second.other = second, first
    assert _is_tracked_by_the_collector(first)
    del first, second
    assert gc.collect() >= 2


def test_each_celery_pool_process_freezes_what_it_inherited(thawed):
    assert keep_the_application_out_of_collections in signals.worker_process_init._live_receivers(
        None
    )
    keep_the_application_out_of_collections()
    assert gc.get_freeze_count() > 0

"""What a push asks the cache first (games/realtime/presence.py): the match's pushed sequence
number recorded and the audiences listened to, in one Redis round trip, with the same
answers as the separate calls on any cache."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from games.realtime import presence
from games.realtime.audience import match_audiences
from gin_platform.request_path.cache import redis_client
from tests.games.realtime.helpers import pipelines_sent

MATCH_ID = 987_654_321
LOCAL_MEMORY = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


def _forget():
    audiences = match_audiences(MATCH_ID, seat_count=4)
    cache.delete_many(
        [presence.listen_key(a) for a in audiences]
        + [presence.seq_key(MATCH_ID), presence.seat_key(MATCH_ID, 1)]
    )
    return audiences


def _pushed_then_listened():
    audiences = _forget()
    presence.listen(audiences[1])
    presence.listen(audiences[-1])  # the watchers
    heard = presence.seq_pushed_and_listened(match_id=MATCH_ID, seq=42, audiences=audiences)
    assert heard == ([audiences[1], audiences[-1]], {})
    assert presence.last_pushed_seq(match_id=MATCH_ID) == 42
    # no sequence number (a seat taken or left): nothing recorded, the audiences still read;
    # a seat's count of sockets read with them when asked
    presence.seat_joined(match_id=MATCH_ID, seat=1)
    presence.seat_joined(match_id=MATCH_ID, seat=1)
    assert presence.seq_pushed_and_listened(
        match_id=MATCH_ID, seq=None, audiences=audiences, count_seats=[1]
    ) == ([audiences[1], audiences[-1]], {1: 2})
    assert presence.last_pushed_seq(match_id=MATCH_ID) == 42
    assert presence.seq_pushed_and_listened(
        match_id=MATCH_ID, seq=None, audiences=audiences, count_seats=[0, 1]
    ) == ([audiences[1], audiences[-1]], {0: 0, 1: 2})
    _forget()
    assert presence.seq_pushed_and_listened(match_id=MATCH_ID, seq=None, audiences=audiences) == (
        [],
        {},
    )


@pytest.mark.redis
def test_on_redis_one_round_trip_records_the_seq_and_reads_the_listeners(monkeypatch):
    client = redis_client()
    assert client is not None
    round_trips = pipelines_sent(client, monkeypatch)
    _pushed_then_listened()
    assert round_trips == [2, 1, 1, 1]  # SET + MGET, then MGET alone (no seq)


def test_without_redis_the_cache_calls_answer_the_same(settings):
    settings.CACHES = LOCAL_MEMORY
    _pushed_then_listened()

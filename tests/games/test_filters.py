"""Query parameters of the games endpoints are parsed by the filter serializers
(games/api/filters.py), with the answers the endpoints always gave."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from games.api.filters import EventsFilterInput, MatchFilterInput, RoomFilterInput
from tests.games.factories import RoomFactory
from tests.games.helpers import seat_both

STATUSES = "one of waiting, running, finished, settled, aborted, suspended, voided"


def _parse(serializer_class, query: str):
    serializer = serializer_class(data=QueryDict(query))
    if serializer.is_valid():
        return serializer.validated_data
    return {name: [str(error) for error in errors] for name, errors in serializer.errors.items()}


def test_room_filter_reads_active_as_before():
    assert _parse(RoomFilterInput, "") == {"active": None}
    for raw in ("1", "true", "TRUE", "Yes"):
        assert _parse(RoomFilterInput, f"active={raw}") == {"active": True}, raw
    for raw in ("0", "false", "no", "on", ""):  # anything else is false, never an error
        assert _parse(RoomFilterInput, f"active={raw}") == {"active": False}, raw


def test_match_filter_reads_status_and_room():
    assert _parse(MatchFilterInput, "") == {"status": None, "room": None}
    assert _parse(MatchFilterInput, "status=&room=7") == {"status": None, "room": 7}
    assert _parse(MatchFilterInput, "status=running&status=finished") == {
        "status": "finished",  # a repeated parameter: the last value, as query_params.get
        "room": None,
    }
    assert _parse(MatchFilterInput, "status=bogus") == {"status": [STATUSES]}
    for raw in ("", "x", "9223372036854775808", "1.0"):
        assert _parse(MatchFilterInput, f"room={raw}") == {"room": ["must be a 64-bit integer"]}, (
            raw
        )


def test_events_filter_defaults_and_bounds():
    assert _parse(EventsFilterInput, "") == {"after": 0, "limit": 100, "wait": 0}
    assert _parse(EventsFilterInput, "after=-5&limit=9999&wait=25") == {
        "after": -5,
        "limit": 9999,
        "wait": 25,
    }
    # A long poll holds a request for 25 seconds at most.
    for wait in ("-1", "26"):
        assert _parse(EventsFilterInput, f"wait={wait}") == {"wait": ["from 0 to 25 seconds"]}
    assert _parse(EventsFilterInput, "after=99999999999999999999") == {
        "after": ["must be a 64-bit integer"]
    }


@pytest.mark.django_db
def test_the_endpoints_answer_through_the_filters(
    alice, bob, operator, operator_client, practice_table, seeds
):
    RoomFactory(operator=operator, active=False)
    rooms = operator_client.get("/api/v1/rooms?active=yes").json()["results"]
    assert rooms and all(room["active"] for room in rooms)
    closed = operator_client.get("/api/v1/rooms?active=off").json()["results"]
    assert closed and not any(room["active"] for room in closed)
    refused = operator_client.get("/api/v1/matches?status=bogus")
    assert refused.status_code == 400
    assert refused.json()["errors"] == {"status": [STATUSES]}
    match_id, _ = seat_both(alice, bob, practice_table.pk)
    feed = alice.get(f"/api/v1/matches/{match_id}/events?after=-3&limit=0").json()
    assert feed["next_after"] == 1 and len(feed["events"]) == 1  # limit 0 reads one event
    assert alice.get(f"/api/v1/matches/{match_id}/events?limit=x").json()["errors"] == {
        "limit": ["must be a 64-bit integer"]
    }

"""The long poll for clients without WebSockets: ``GET .../events?after=N&wait=S``."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection

from games import engine
from games.realtime import presence
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import act, seat_both, view

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def running(alice, bob, operator, seeds):
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))
    return seat_both(alice, bob, table.pk)


def _move_later(seats, match_id: int, delay: float) -> threading.Thread:
    def move() -> None:
        try:
            time.sleep(delay)
            current = view(seats[0], match_id).json()
            to_act = current["hand"]["to_act"]
            mine = view(seats[to_act], match_id).json()
            choice = engine.choose_action_from_view(mine["hand"])
            assert (
                act(seats[to_act], match_id, **choice, expected_seq=mine["seq"]).status_code == 200
            )
        finally:
            connection.close()

    thread = threading.Thread(target=move)
    thread.start()
    return thread


def test_a_long_poll_answers_as_soon_as_the_next_event_commits(running):
    match_id, seats = running
    seq = view(seats[0], match_id).json()["seq"]
    mover = _move_later(seats, match_id, delay=0.5)
    started = time.monotonic()
    response = seats[0].get(f"/api/v1/matches/{match_id}/events?after={seq}&wait=20")
    waited = time.monotonic() - started
    mover.join()
    assert response.status_code == 200
    body = response.json()
    assert [event["seq"] for event in body["events"]] == list(range(seq + 1, body["seq"] + 1))
    assert waited < 15  # it did not sit out the whole wait


def test_a_watcher_long_polls_too(running, make_player_client):
    match_id, seats = running
    watcher = make_player_client(display_name="Watcher")
    seq = view(seats[0], match_id).json()["seq"]
    mover = _move_later(seats, match_id, delay=0.3)
    response = watcher.get(f"/api/v1/matches/{match_id}/watch/events?after={seq}&wait=20")
    mover.join()
    assert response.status_code == 200 and response.json()["events"]


def test_a_long_poll_with_nothing_new_answers_empty_when_the_wait_ends(running):
    match_id, seats = running
    seq = view(seats[0], match_id).json()["seq"]
    started = time.monotonic()
    response = seats[0].get(f"/api/v1/matches/{match_id}/events?after={seq}&wait=1")
    assert time.monotonic() - started >= 1
    assert response.status_code == 200
    assert response.json()["events"] == [] and response.json()["next_after"] == seq


def test_events_already_there_answer_at_once_and_the_wait_is_bounded(running):
    match_id, seats = running
    response = seats[0].get(f"/api/v1/matches/{match_id}/events?after=0&wait=25")
    assert response.status_code == 200 and response.json()["events"]
    refused = seats[0].get(f"/api/v1/matches/{match_id}/events?after=0&wait=26")
    assert refused.status_code == 400
    assert refused.json()["errors"] == {"wait": ["from 0 to 25 seconds"]}


@pytest.mark.parametrize(
    "limits",
    [
        {"REALTIME_LONG_POLLS_PER_PROCESS": 0},  # the process's waits all taken
        {"REALTIME_LONG_POLLS_PER_PLAYER": 0},  # the player's share taken
    ],
)
def test_a_long_poll_without_a_free_wait_answers_at_once(running, settings, limits):
    for name, value in limits.items():
        setattr(settings, name, value)
    match_id, seats = running
    seq = view(seats[0], match_id).json()["seq"]
    started = time.monotonic()
    response = seats[0].get(f"/api/v1/matches/{match_id}/events?after={seq}&wait=20")
    assert time.monotonic() - started < 10  # not held: the threads stay for other requests
    assert response.status_code == 200 and response.json()["events"] == []


def test_a_players_long_polls_are_counted_while_they_wait(running):
    match_id, seats = running
    player = seats[0].player
    seq = view(seats[0], match_id).json()["seq"]
    seen: list[int] = []

    def poll() -> None:
        try:
            seats[0].get(f"/api/v1/matches/{match_id}/events?after={seq}&wait=2")
        finally:
            connection.close()

    waiting = threading.Thread(target=poll)
    waiting.start()
    time.sleep(0.5)
    seen.append(presence.long_poll_started(player_id=player.pk) - 1)
    presence.long_poll_ended(player_id=player.pk)
    waiting.join()
    assert seen == [1]  # one wait in progress
    assert presence.long_poll_started(player_id=player.pk) == 1  # released when it ended

"""R15's quick seat over real HTTP and a real socket, against the platform as deployed
(tests/benchmarks/interrupted.py ``Platform``: gunicorn with 2 workers, a Celery worker and
beat with its quick-seat tick every 2 s) on this worker's test database and Redis database
(bench_matchmaking.py runs the same at full scale: docs/matchmaking.md "Benchmark").

Two players 140 points apart ask: their bands (+-100) do not meet, so both wait; 10 s later
each band holds 150 points and the beat's next tick seats them together, the seat pushed on
the player's own socket. The band's own arithmetic is tested on a frozen clock
(test_bands.py, test_quick_seat.py); here real time runs only the 10 s the rule asks for.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
import requests
from websockets.sync.client import connect

from games.models import Match
from gin_platform.tenancy.services import player_session_create, socket_ticket_create
from tests.benchmarks.interrupted import Platform
from tests.factories import SYSTEM, OperatorFactory
from tests.live_platform import live_platform
from tests.matchmaking.world import FTK, ftk_room, rated_client

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture(scope="module")
def platform(django_db_setup, tmp_path_factory) -> Iterator[Platform]:
    with live_platform("quickseat", tmp_path_factory.mktemp("quick-seat")) as running:
        yield running


def _http(player) -> requests.Session:
    """A client sending a new session token of ``player``."""
    session = requests.Session()
    token = player_session_create(player=player, actor=SYSTEM).token
    session.headers["Authorization"] = f"Bearer {token}"
    return session


def _socket_url(platform: Platform, player) -> str:
    session = player_session_create(player=player, actor=SYSTEM).session
    ticket = socket_ticket_create(session=session, actor=SYSTEM).ticket
    return f"ws://127.0.0.1:{platform.port}/ws/v1/me?ticket={ticket}"


def _seated_push(socket, timeout: float) -> dict:
    """The ``quick_seat.seated`` message on the player's socket (pings answered)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        message = json.loads(socket.recv(timeout=max(0.1, deadline - time.monotonic())))
        if message["type"] == "ping":
            socket.send('{"type": "pong"}')
        elif message["type"] == "quick_seat.seated":
            return message
    raise AssertionError("no quick_seat.seated push")


@pytest.mark.slow
def test_a_band_that_widens_seats_two_players_over_http_and_tells_them_on_their_socket(
    platform,
):
    operator = OperatorFactory()
    room = ftk_room(operator)
    ann, bob = rated_client(operator, 1500).player, rated_client(operator, 1640).player
    url = f"{platform.base_url}/api/v1/lobby/quick-seat"
    with connect(_socket_url(platform, bob), open_timeout=10) as socket:
        assert json.loads(socket.recv(timeout=10))["type"] == "hello"
        asked = [_http(player).post(url, json=FTK, timeout=10) for player in (ann, bob)]
        joined = time.monotonic()
        assert [answer.status_code for answer in asked] == [201, 201], asked[1].text
        assert [answer.json()["status"] for answer in asked] == ["waiting", "waiting"]
        pushed = _seated_push(socket, timeout=30)
        waited = time.monotonic() - joined
    assert waited >= 9.5  # not before the bands reach 150 (10 s), by the beat's tick after
    ticket = pushed["ticket"]
    assert ticket["status"] == "seated" and ticket["room_id"] == room.pk
    theirs = _http(ann).get(url, timeout=10).json()
    assert theirs["status"] == "seated"
    assert theirs["seat"]["match_id"] == ticket["seat"]["match_id"]
    match = Match.objects.get(pk=ticket["seat"]["match_id"])
    assert match.status == Match.Status.RUNNING
    assert {seat.player_id for seat in match.seats.all()} == {ann.pk, bob.pk}

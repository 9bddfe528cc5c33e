"""Fixtures of the games tests: player clients, rooms, deterministic server seeds."""

from __future__ import annotations

import hashlib
import itertools

import pytest
from rest_framework.test import APIClient

from games import engine
from games.signals import match_finished, match_voided
from gin_platform.http.throttling import PrincipalRateThrottle
from tests.factories import PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.helpers import session_client


class PlayerClient(APIClient):
    """An API client holding one player's session token (``.player`` is the player)."""

    player = None


@pytest.fixture
def make_player_client(operator):
    def make(**fields) -> PlayerClient:
        return session_client(PlayerFactory(operator=operator, **fields), PlayerClient)

    return make


@pytest.fixture
def alice(make_player_client) -> PlayerClient:
    return make_player_client(display_name="Alice")


@pytest.fixture
def bob(make_player_client) -> PlayerClient:
    return make_player_client(display_name="Bob")


@pytest.fixture
def seeds(monkeypatch):
    """Server seeds from a fixed sequence, so every game of a test is reproducible."""
    counter = itertools.count()

    def next_seed() -> str:
        return hashlib.sha256(f"games-test-seed-{next(counter)}".encode()).hexdigest()

    monkeypatch.setattr(engine, "new_server_seed", next_seed)
    return next_seed


@pytest.fixture
def practice_table(operator):
    """A practice Match Play table (play money, no wallet funding needed)."""
    return TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))


@pytest.fixture(autouse=True)
def _no_player_throttling(monkeypatch):
    """Whole games make hundreds of requests per player within seconds."""
    monkeypatch.setitem(PrincipalRateThrottle.THROTTLE_RATES, "player", "1000000/min")


@pytest.fixture
def signals_sent():
    """The match ids ``match_finished`` and ``match_voided`` were sent for, in order."""
    sent: dict[str, list[int]] = {"finished": [], "voided": []}

    def finished(sender, match_id: int, **_kwargs) -> None:
        sent["finished"].append(match_id)

    def voided(sender, match_id: int, **_kwargs) -> None:
        sent["voided"].append(match_id)

    match_finished.connect(finished, dispatch_uid="tests.tournament.finished")
    match_voided.connect(voided, dispatch_uid="tests.tournament.voided")
    yield sent
    match_finished.disconnect(dispatch_uid="tests.tournament.finished")
    match_voided.disconnect(dispatch_uid="tests.tournament.voided")

"""Fixtures of player protection's tests: an operator under a jurisdiction profile, its
players' API clients, a real-money table, a frozen clock."""

from __future__ import annotations

import pytest
from django.utils import timezone

from gin_platform.http.throttling import PrincipalRateThrottle
from tests.factories import PlayerFactory
from tests.games.conftest import PlayerClient, seeds  # noqa: F401 (a fixture)
from tests.games.factories import RoomFactory, TableFactory
from tests.helpers import freeze_now, session_client
from tests.wallet.factories import fund


def under(operator, jurisdiction: str, **settings) -> None:
    operator.jurisdiction = jurisdiction
    for name, value in settings.items():
        setattr(operator, name, value)
    operator.save()


@pytest.fixture
def clock(monkeypatch):
    """The services' clock, held at now: a test moves it past limits and checks' due times."""
    return freeze_now(monkeypatch, timezone.now())


@pytest.fixture(autouse=True)
def _long_player_tokens(settings):
    """Tokens that outlive a session's hours on the frozen clock."""
    settings.PLAYER_SESSION_DEFAULT_TTL_SECONDS = 24 * 3600


@pytest.fixture
def make_player_client(operator):
    def make(**fields) -> PlayerClient:
        client = session_client(PlayerFactory(operator=operator, **fields), PlayerClient)
        fund(client.player, 100_000)
        return client

    return make


@pytest.fixture
def alice(make_player_client) -> PlayerClient:
    return make_player_client(display_name="Alice")


@pytest.fixture
def bob(make_player_client) -> PlayerClient:
    return make_player_client(display_name="Bob")


@pytest.fixture
def match_table(operator):
    """A real-money Match Play table: 5.00 EUR stakes, to 100, 30 s turns."""
    return TableFactory(room=RoomFactory(operator=operator, stake=500, target=100))


@pytest.fixture
def practice_table(operator):
    return TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))


@pytest.fixture(autouse=True)
def _no_player_throttling(monkeypatch):
    monkeypatch.setitem(PrincipalRateThrottle.THROTTLE_RATES, "player", "1000000/min")

"""Each socket test gets a channel layer of its own: pytest-asyncio runs every test in a new
event loop, and a layer keeps per-loop state (Redis connections, locks). A test of the
pushes themselves reads them from ``sent`` instead. The sockets' tests play at a practice
``table``, with a ``watcher``."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.layers import channel_layers, get_channel_layer

from games.realtime import layer_send
from tests.games.factories import RoomFactory, TableFactory


@pytest.fixture(autouse=True)
def _fresh_channel_layer():
    channel_layers.backends.clear()
    async_to_sync(get_channel_layer().flush)()
    yield
    async_to_sync(get_channel_layer().flush)()
    channel_layers.backends.clear()


@pytest.fixture
def sent(monkeypatch):
    """Every group_send of the publisher to a match's audiences, as (group, message), in
    place of the channel layer. The players' own groups are left out: a buy-in tells its
    player's socket that the wallet changed (test_wallet_pushes.py)."""
    calls: list[tuple[str, dict]] = []

    class Layer:
        async def group_send(self, group, message):
            if not group.startswith("player."):
                calls.append((group, message))

    monkeypatch.setattr(layer_send, "get_channel_layer", lambda: Layer())
    return calls


@pytest.fixture
def table(operator):
    """A practice table (stake 100) of ``operator``."""
    return TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))


@pytest.fixture
def watcher(make_player_client):
    """A player of the operator who watches."""
    return make_player_client(display_name="Watcher")

"""Each socket test gets a channel layer of its own: pytest-asyncio runs every test in a new
event loop, and a layer keeps per-loop state (Redis connections, locks)."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.layers import channel_layers, get_channel_layer


@pytest.fixture(autouse=True)
def _fresh_channel_layer():
    channel_layers.backends.clear()
    async_to_sync(get_channel_layer().flush)()
    yield
    async_to_sync(get_channel_layer().flush)()
    channel_layers.backends.clear()

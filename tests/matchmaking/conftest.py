from __future__ import annotations

import pytest

from games.realtime import publisher
from tests.matchmaking.world import Pushes


@pytest.fixture
def pushes(monkeypatch) -> Pushes:
    """What the players' own sockets are sent (``publisher.player_message`` sends it after
    the commit through ``player_message_send``)."""
    recorded = Pushes()

    def send(player_id, message) -> None:
        recorded.sent.append((str(player_id), message))

    monkeypatch.setattr(publisher, "player_message_send", send)
    return recorded

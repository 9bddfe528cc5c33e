"""One answer shows many amounts in the player's display currency: each exchange rate is
read once per request (wallet.middleware.DisplayRatesMiddleware), and every amount of the
answer uses that one rate."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.games.factories import RoomFactory
from tests.wallet.factories import ExchangeRateFactory

pytestmark = pytest.mark.django_db


def test_a_lobby_of_several_rooms_reads_the_rate_once(operator, player, player_client):
    player.display_currency = "USD"
    player.save()
    ExchangeRateFactory(base="EUR", quote="USD", rate="1.1000")
    for stake in (100, 200, 500, 1_000):
        RoomFactory(operator=operator, currency="EUR", stake=stake)
    with CaptureQueriesContext(connection) as queries:
        response = player_client.get("/api/v1/lobby")
    assert response.status_code == 200, response.content
    rate_reads = [q for q in queries.captured_queries if "wallet_exchangerate" in q["sql"]]
    assert len(rate_reads) == 2  # the pair and its inverse, once for the whole answer
    rooms = sorted(response.json()["results"], key=lambda room: float(room["stake"]["amount"]))
    shown = [room["stake"]["display"] for room in rooms]
    assert [d["amount"] for d in shown] == ["1.10", "2.20", "5.50", "11.00"]
    assert {d["rate"] for d in shown} == {"1.1"}

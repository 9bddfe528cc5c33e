"""One answer shows many amounts in the player's display currency: each exchange rate is
read once per request (wallet.middleware.DisplayRatesMiddleware), and every amount of the
answer uses that one rate."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.factories import SYSTEM
from tests.games.factories import RoomFactory
from tests.wallet.factories import ExchangeRateFactory
from wallet import services
from wallet.selectors import rates
from wallet.selectors.rates import display_amount

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


def test_a_process_reuses_a_display_rate_briefly_and_a_new_rate_shows_at_once(
    operator, player, player_client, monkeypatch
):
    """Display only (R11): the rate is kept DISPLAY_RATE_SECONDS per process, and recording a
    rate drops this process's copy, so the next answer shows it."""

    def record(rate: str) -> None:
        services.exchange_rate_record(
            base="EUR", quote="USD", rate=rate, as_of=timezone.now(), source="feed", actor=SYSTEM
        )

    player.display_currency = "USD"
    player.save()
    record(rate="1.1000")

    def shown() -> str:
        return display_amount(amount=1_000, currency="EUR", player=player)["display"]["amount"]

    assert shown() == "11.00"
    with CaptureQueriesContext(connection) as queries:
        assert shown() == "11.00"  # kept: no statement
    assert not [q for q in queries.captured_queries if "wallet_exchangerate" in q["sql"]]
    record(rate="1.2000")
    assert shown() == "12.00"  # recorded here: shown at once
    monkeypatch.setattr(rates, "DISPLAY_RATE_SECONDS", 0.0)
    rates.display_rates_forget()
    ExchangeRateFactory(base="EUR", quote="USD", rate="1.3000", as_of=timezone.now())  # elsewhere
    assert shown() == "13.00"  # nothing kept past DISPLAY_RATE_SECONDS

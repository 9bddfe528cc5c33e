"""The lobby (R11): rooms with their tables, free seats and stakes, amounts
also in the player's display currency."""

from __future__ import annotations

import pytest

from games.models import Table
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import sit
from tests.wallet.factories import ExchangeRateFactory, fund

pytestmark = pytest.mark.django_db
LOBBY = "/api/v1/lobby"


def test_the_lobby_shows_rooms_tables_seats_and_stakes(alice, bob, make_player_client, operator):
    room = RoomFactory(operator=operator, name="Match 100", stake=500, target=100)
    empty, waiting, playing = TableFactory.create_batch(3, room=room)
    TableFactory(room=room, status=Table.Status.CLOSED)
    RoomFactory(operator=operator, active=False)
    RoomFactory()  # another operator's
    carol = make_player_client(display_name="Carol")
    for client in (alice, bob, carol):
        fund(client.player, 2_000)
    sit(alice, waiting.pk)
    sit(bob, playing.pk)
    sit(carol, playing.pk)
    listing = carol.get(LOBBY)
    assert listing.status_code == 200
    rooms = listing.json()["results"]
    assert [r["name"] for r in rooms] == ["Match 100"]
    shown = rooms[0]
    assert shown["variant"] == "match" and shown["target"] == 100
    assert shown["stake"]["amount"] == "5.00" and shown["stake"]["currency"] == "EUR"
    assert shown["stake"]["display"]["amount"] == "5.00"  # display currency = wallet's
    tables = {t["id"]: t for t in shown["tables"]}
    assert set(tables) >= {empty.pk, waiting.pk, playing.pk}
    assert tables[empty.pk]["state"] == "empty" and tables[empty.pk]["free_seats"] == 2
    assert tables[waiting.pk]["state"] == "waiting" and tables[waiting.pk]["free_seats"] == 1
    seated = [s["display_name"] for s in tables[waiting.pk]["seats"]]
    assert sorted(filter(None, seated)) == ["Alice"]
    assert tables[playing.pk]["state"] == "playing" and tables[playing.pk]["free_seats"] == 0
    assert shown["free_seats"] == sum(t["free_seats"] for t in shown["tables"])
    detail = carol.get(f"{LOBBY}/{room.pk}").json()
    assert detail == shown


def test_amounts_are_shown_in_the_players_display_currency(make_player_client, operator):
    ExchangeRateFactory(base="EUR", quote="USD", rate="1.0720")
    traveller = make_player_client(display_currency="USD")
    RoomFactory(
        operator=operator,
        money=True,
        stake_per_point_choices=[10, 50],
        cashier_min=1_000,
        cashier_max=100_000,
    )
    shown = traveller.get(LOBBY).json()["results"][0]
    first = shown["stake_per_point_choices"][0]
    assert first["amount"] == "0.10" and first["currency"] == "EUR"
    assert first["display"]["currency"] == "USD" and first["display"]["amount"] == "0.11"
    assert shown["cashier_min"]["display"]["amount"] == "10.72"
    assert shown["stake"] is None


def test_without_an_exchange_rate_the_display_amount_is_null(make_player_client, operator):
    yen = make_player_client(display_currency="JPY")
    RoomFactory(operator=operator)
    shown = yen.get(LOBBY).json()["results"][0]
    assert shown["stake"]["amount"] == "5.00" and shown["stake"]["display"] is None


def test_play_money_is_never_converted(alice, operator):
    RoomFactory(operator=operator, practice=True, ftk=True, stake=100)
    shown = alice.get(LOBBY).json()["results"][0]
    assert shown["is_practice"] is True
    assert shown["stake"] == {"amount": "100", "currency": "XGC", "display": None}


def test_the_lobby_is_cursor_paginated_and_scoped(alice, operator):
    RoomFactory.create_batch(3, operator=operator)
    page = alice.get(f"{LOBBY}?page_size=2").json()
    assert len(page["results"]) == 2 and "cursor=" in page["next"]
    assert len(alice.get(page["next"]).json()["results"]) == 1
    foreign = RoomFactory()
    assert alice.get(f"{LOBBY}/{foreign.pk}").status_code == 404
    inactive = RoomFactory(operator=operator, active=False)
    assert alice.get(f"{LOBBY}/{inactive.pk}").status_code == 404


def test_the_lobby_is_for_players(operator_client):
    assert operator_client.get(LOBBY).status_code == 403


def test_sitting_down_leaving_and_my_seats_show_amounts_in_the_display_currency(
    make_player_client, operator
):
    """R11 holds for every answer to a player, not only the lobby and the game view."""
    ExchangeRateFactory(base="EUR", quote="USD", rate="1.0720")
    traveller = make_player_client(display_currency="USD")
    fund(traveller.player, 50_000)
    room = RoomFactory(
        operator=operator, money=True, stake_per_point_choices=[10], cashier_max=100_000
    )
    table = TableFactory(room=room)
    seated = sit(traveller, table.pk, cashier_amount="100.00", stake_per_point="0.10").json()
    mine = traveller.get("/api/v1/me/seats").json()["results"]
    left = traveller.post(f"/api/v1/tables/{table.pk}/leave").json()
    for body in (seated, mine[0], left):
        assert body["amount"]["amount"] == "100.00" and body["amount"]["currency"] == "EUR"
        shown = body["amount"]["display"]
        assert (shown["amount"], shown["currency"], shown["rate"]) == ("107.20", "USD", "1.072")
        assert body["stake_per_point"]["display"]["amount"] == "0.11"  # 0.1072, rounded

"""What each match was for the player in their history (docs/player-protection.md
"History", "Matches"): R12's places after two of three players resign, and a heads-up match
without a single winner; each net is what the match moved on the player's wallet."""

from __future__ import annotations

import pytest

from games import services as games_services
from games.models import Match
from settlement import services as settlement_services
from tests.factories import SYSTEM, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.helpers import session_client
from tests.protection.history_world import all_pages, game_net
from tests.settlement.helpers import finish_with, seat_two
from tests.wallet.factories import fund

pytestmark = pytest.mark.django_db

MATCHES = "/api/v1/me/history/matches"


def test_r12_places_after_two_of_three_players_resign(operator):
    room = games_services.room_create(
        operator=operator,
        name="Three players",
        variant="ftk",
        currency=operator.base_currency,
        stake=600,
        fee_bps=500,
        seats=3,
        actor=SYSTEM,
    )
    table = TableFactory(room=room)
    clients = {}
    for name in ("ann", "bob", "cyd"):
        player = PlayerFactory(operator=operator, screen_name=name)
        fund(player, 10_000)
        clients[name] = session_client(player)
        sat = clients[name].post(f"/api/v1/tables/{table.pk}/sit", {}, format="json")
        assert sat.status_code == 201, sat.content
    match = Match.objects.get(table=table)
    for name in ("cyd", "bob"):  # cyd leaves first: third place; bob second
        resigned = clients[name].post(f"/api/v1/matches/{match.pk}/resign")
        assert resigned.status_code == 200, resigned.content
    settlement_services.game_settle(match_id=match.pk)
    shown = {}
    for name, client in clients.items():
        (row,) = all_pages(client, MATCHES)
        shown[name] = (row["outcome"], row["place"], len(row["opponents"]), row["seats"])
        net = int(row["net"]["amount"].replace(".", ""))
        assert net == game_net(client.player, match)
    assert shown == {
        "ann": ("won", 1, 2, 3),
        "bob": ("lost", 2, 2, 3),
        "cyd": ("lost", 3, 2, 3),
    }


def test_a_heads_up_match_without_a_winner_is_tied(operator):
    room = RoomFactory(operator=operator)
    match = seat_two(TableFactory(room=room))
    finish_with(match, winner_seat=None, reached_target=None)
    for seat in match.seats.all():
        (row,) = all_pages(session_client(seat.player), MATCHES)
        assert (row["outcome"], row["place"], row["status"]) == ("tied", None, "finished")
        assert row["net"] == {"amount": f"-{room.stake // 100}.00", "currency": "EUR"}

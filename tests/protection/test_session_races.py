"""Buy-ins of one player at several tables at once (PostgreSQL, racing threads): they
share one play session, and its loss limit holds across them (docs/player-protection.md
"Sessions")."""

from __future__ import annotations

import pytest

from games import services as games
from games.models import Table
from protection.models import PlaySession
from tests.factories import SYSTEM, PlayerFactory
from tests.games.factories import RoomFactory
from tests.protection.conftest import under
from tests.races import race
from tests.wallet.factories import fund

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_racing_first_buy_ins_start_one_session(operator):
    under(operator, "uk")
    player = PlayerFactory(operator=operator)
    fund(player, 100_000)
    room = RoomFactory(operator=operator, stake=500)
    tables = [Table.objects.create(room=room) for _ in range(4)]
    results = race(4, lambda i: games.seat_take(player=player, table=tables[i], actor=SYSTEM))
    assert all(not isinstance(result, Exception) for result in results), results
    assert PlaySession.objects.filter(player=player).count() == 1


def test_racing_buy_ins_never_pass_the_session_loss_limit(operator, make_player_client):
    under(operator, "uk")
    client = make_player_client()
    response = client.post("/api/v1/me/play-session", {"loss_limit": "10.00"}, format="json")
    assert response.status_code == 201, response.content
    room = RoomFactory(operator=operator, stake=500)
    tables = [Table.objects.create(room=room) for _ in range(4)]
    results = race(
        4, lambda i: games.seat_take(player=client.player, table=tables[i], actor=SYSTEM)
    )
    taken = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(taken) == 2  # 2 x 5.00 = the limit; a third could pass it
    assert {getattr(r, "slug", None) for r in refused} == {"limit-exceeded"}

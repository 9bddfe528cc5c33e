"""Ratings at network tables (docs/network.md "Tenancy"): players of two operators meet;
each sees the other's rating by screen name only, each operator reads its own player's
ratings and never the other operator's, and no answer names the other operator's player."""

from __future__ import annotations

import json
import uuid

import pytest

from games import services as game_services
from games.models import Match, Seat
from games.services.timers import match_resign
from ratings.models import RatedMatch
from tests.factories import SYSTEM
from tests.games.network_world import member_make, network_make, network_room_make, player_client
from tests.helpers import assert_problem, operator_api
from tests.wallet.factories import fund

pytestmark = pytest.mark.django_db(transaction=True)


class Side:
    def __init__(self, name: str) -> None:
        self.operator = member_make(name=name, webhook_url="")
        self.api = operator_api(self.operator)
        self.client = player_client(
            self.operator,
            screen_name=f"{name}{uuid.uuid4().hex[:4]}",
            display_name=f"Display {name} {uuid.uuid4().hex[:6]}",
            external_ref=f"{name.lower()}-{uuid.uuid4().hex[:8]}",
        )
        self.player = self.client.player
        fund(self.player, 100_000)

    def secrets(self) -> set[str]:
        return {
            str(self.player.pk),
            self.player.external_ref,
            self.player.display_name,
            str(self.operator.pk),
        }

    def reads(self, match_id: int) -> list[object]:
        return [
            self.client.get("/api/v1/me/ratings").json(),
            self.client.get("/api/v1/me/ratings/history").json(),
            self.client.get(f"/api/v1/matches/{match_id}/ratings").json(),
            self.api.get(f"/api/v1/players/{self.player.pk}/ratings").json(),
            self.api.get(f"/api/v1/players/{self.player.pk}/ratings/history").json(),
        ]


def test_players_of_two_operators_see_each_others_rating_by_screen_name_only() -> None:
    network_make()
    room = network_room_make(name="Network FTK", variant="ftk", target=None, stake=500)
    alpha, bravo = Side("Alpha"), Side("Bravo")
    table = room.tables.first()
    for side in (alpha, bravo):
        game_services.seat_take(player=side.player, table=table, actor=SYSTEM)
    match = Match.objects.get(table=table, status=Match.Status.RUNNING)
    match_resign(seat=Seat.objects.get(match=match, player=bravo.player), actor=SYSTEM)
    assert RatedMatch.objects.get(match=match).players == 2

    shown = alpha.client.get(f"/api/v1/matches/{match.pk}/ratings").json()
    theirs = next(s for s in shown["seats"] if s["screen_name"] == bravo.player.screen_name)
    ours = next(s for s in shown["seats"] if s["screen_name"] == alpha.player.screen_name)
    assert theirs["display_name"] is None and theirs["rating"] < 1500 < ours["rating"]
    assert ours["display_name"] == alpha.player.display_name
    # An operator reads its own player's ratings, never the other operator's.
    for path in ("ratings", "ratings/history"):
        response = alpha.api.get(f"/api/v1/players/{bravo.player.pk}/{path}")
        assert_problem(response, 404, "not-found")
    for reader, other in ((alpha, bravo), (bravo, alpha)):
        text = json.dumps(reader.reads(match.pk), default=str)
        leaked = [secret for secret in other.secrets() if secret in text]
        assert leaked == [], leaked

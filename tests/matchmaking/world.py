"""The quick-seat tests' world (docs/matchmaking.md): real-money heads-up rooms, funded
players with a rating, the request over the API, and the pushes a player's socket gets."""

from __future__ import annotations

from dataclasses import dataclass, field

from ratings.models import Rating
from tests.factories import PlayerFactory
from tests.games.factories import RoomFactory
from tests.helpers import session_client
from tests.wallet.factories import fund

URL = "/api/v1/lobby/quick-seat"
FTK = {"variant": "ftk", "stake": "5.00", "currency": "EUR"}
FAMILY = "heads_up_ftk"


def ftk_room(operator, **fields):
    return RoomFactory(operator=operator, ftk=True, **fields)  # 5.00 EUR, heads-up


def rated_client(operator, rating: float, *, funds: int = 10_000, **fields):
    """A session client of a new player of ``operator`` rated ``rating`` in heads-up First
    To Knock (RD 80: settled), with ``funds`` minor units in their EUR wallet."""
    player = PlayerFactory(operator=operator, **fields)
    Rating.objects.create(player=player, family=FAMILY, rating=rating, rd=80.0, volatility=0.06)
    if funds:
        fund(player, funds)
    return session_client(player)


def ask(client, body: dict | None = None):
    return client.post(URL, body or FTK, format="json")


@dataclass
class Pushes:
    """Every message sent to a player's own socket, by player id (as sent: after commit)."""

    sent: list[tuple[str, dict]] = field(default_factory=list)

    def of(self, player) -> list[dict]:
        return [message for player_id, message in self.sent if player_id == str(player.pk)]

    def types(self, player) -> list[str]:
        return [message["type"] for message in self.of(player)]

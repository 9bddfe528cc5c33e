"""A network of two operators for integrity's tests (docs/integrity.md): players who
meet at network tables over the API (sit, resign), and detection's alerts about them made
as the detection job makes them (Alert rows)."""

from __future__ import annotations

from dataclasses import dataclass

from games.models import Match
from integrity.models import Alert
from settlement import services as settlement_services
from tests.factories import PlayerFactory
from tests.games.factories import TableFactory
from tests.games.network_world import member_make, network_make, network_room_make
from tests.helpers import session_client
from tests.wallet.factories import fund

START = 10_000  # minor units each player starts with
STAKE = 500  # the network room's stake: the winner of a resigned match gets 950 (5% fee)
FEE_SHARE_BPS = 2000


@dataclass
class World:
    network: object
    a: object
    b: object
    room: object


def world_make() -> World:
    network = network_make(fee_share_bps=FEE_SHARE_BPS).operator
    a, b = member_make(name="Alpha", webhook_url=""), member_make(name="Bravo", webhook_url="")
    return World(network=network, a=a, b=b, room=network_room_make(stake=STAKE, fee_bps=500))


def player_make(operator, screen_name: str, *, funds: int = START):
    player = PlayerFactory(operator=operator, screen_name=screen_name)
    fund(player, funds)
    return player


def play_and_lose(world: World, *, winner, loser) -> Match:
    """Both sit at a new network table over the API; ``loser`` resigns; the match is
    settled (the settlement task runs on commit in a transactional test; called again here,
    a no-op then)."""
    table = TableFactory(room=world.room)
    clients = {p.pk: session_client(p) for p in (winner, loser)}
    for player in (winner, loser):
        response = clients[player.pk].post(f"/api/v1/tables/{table.pk}/sit", {}, format="json")
        assert response.status_code == 201, response.content
    match = Match.objects.get(table=table)
    response = clients[loser.pk].post(f"/api/v1/matches/{match.pk}/resign")
    assert response.status_code == 200, response.content
    settlement_services.game_settle(match_id=match.pk)
    match.refresh_from_db()
    return match


def alert_make(player, other=None, *, signal=Alert.Signal.SOFT_PLAY, matches=(), score=4.2):
    """An alert as detection records it: the signal, its score and its reasoning."""
    return Alert.objects.create(
        signal=signal,
        player=player,
        other_player=other,
        score=score,
        threshold=3.0,
        reasoning={"statistic": "z", "matches": list(matches), "note": "test evidence"},
    )

"""Two linked players sitting at one table at the same moment (docs/integrity.md "The
seating rule"): the check runs under the table's lock, so the second sees the first's seat
and is refused; never both seated. On PostgreSQL, with real threads."""

from __future__ import annotations

import pytest

from games.models import Seat
from tests.games.factories import TableFactory
from tests.games.helpers import sit
from tests.helpers import session_client
from tests.integrity.links_world import room_make, share_identifier, world_make
from tests.races import race
from tests.wallet.factories import fund

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROUNDS = 6


def test_two_linked_players_sitting_at_once_never_both_sit():
    world = world_make()
    room = room_make(seats=3, name="Net Three")
    outcomes = []
    for round_number in range(ROUNDS):
        ann, bob = world.player(world.a), world.player(world.b)
        for player in (ann, bob):
            fund(player, 10_000)
        share_identifier([ann, bob], kind="device", value=f"race-device-{round_number}")
        clients = [session_client(ann), session_client(bob)]
        table = TableFactory(room=room)
        answers = race(2, lambda i, clients=clients, table_id=table.pk: sit(clients[i], table_id))
        statuses = sorted(answer.status_code for answer in answers)
        outcomes.append(statuses)
        refused = [answer for answer in answers if answer.status_code == 409]
        assert statuses == [201, 409], [answer.json() for answer in answers]
        assert refused[0].json()["type"] == "/problems/linked-players"
        seated = set(Seat.objects.filter(table=table).values_list("player_id", flat=True))
        assert len(seated) == 1 and seated <= {ann.pk, bob.pk}
    assert len(outcomes) == ROUNDS

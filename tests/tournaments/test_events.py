"""The tournament.* events (docs/tournaments.md "Events"): each step's event, to the right
operators, naming only their own players, each payload as its catalogue serializer says."""

from __future__ import annotations

import pytest

from gin_platform.events.catalogue import EVENT_TYPES, payload_serializer
from gin_platform.models import OperatorEvent
from tests.factories import SYSTEM, OperatorFactory
from tests.tournaments.test_lifecycle import funded_player, play_out, sit_and_go
from tournaments.services.lifecycle import tournament_cancel
from tournaments.services.registration import entry_register, entry_unregister

pytestmark = pytest.mark.django_db(transaction=True)


def test_every_step_of_a_tournament_is_an_event_of_its_operator() -> None:
    operator = OperatorFactory()
    players = [funded_player(operator) for _ in range(5)]
    tournament = sit_and_go(operator, entries=4)
    entry_register(player=players[4], tournament=tournament, actor=SYSTEM)
    entry_unregister(player=players[4], tournament=tournament, actor=SYSTEM)
    for player in players[:4]:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    play_out(tournament)
    cancelled = sit_and_go(operator, entries=4)
    entry_register(player=players[4], tournament=cancelled, actor=SYSTEM)
    tournament_cancel(tournament_id=cancelled.pk, reason="operator", actor=SYSTEM)

    events = OperatorEvent.objects.filter(operator=operator, type__startswith="tournament.")
    kinds = set(events.values_list("type", flat=True))
    assert kinds == {name for name in EVENT_TYPES if name.startswith("tournament.")}
    for event in events:
        serializer = payload_serializer(event.type)(data=event.data)
        assert serializer.is_valid(), (event.type, serializer.errors)
    names = {str(player.pk) for player in players}
    for event in events.filter(type__in=["tournament.started", "tournament.finished"]):
        assert not names & set(str(value) for value in event.data.values())

"""The ``data`` of the ``tournament.*`` events (gin_platform/events/catalogue.py names them;
tournaments/services/events.py builds them). An operator hears of its own players only: a
network tournament's other players are never named (docs/tournaments.md "Events")."""

from __future__ import annotations

from rest_framework import serializers

from gin_platform.api.event_serializers import PlayerRefData
from gin_platform.api.serializers import Money
from tournaments.models import Entry


class EntryEventData(PlayerRefData):
    tournament_id = serializers.IntegerField()
    entry_number = serializers.IntegerField(help_text="The order of registration, from 1")
    payment = serializers.ChoiceField(choices=Entry.Payment.choices)
    paid = Money(help_text="The buy-in and fee (0 for a freeroll; a ticket's value)")


class TournamentStartedEventData(serializers.Serializer):
    tournament_id = serializers.IntegerField()
    entries = serializers.IntegerField()
    rounds = serializers.IntegerField()
    prize_pool = Money()
    overlay = Money(help_text="The owner's top-up to the guarantee (0: none needed)")
    started_at = serializers.DateTimeField()


class MatchReadyEventData(PlayerRefData):
    tournament_id = serializers.IntegerField()
    round = serializers.IntegerField()
    table = serializers.IntegerField()
    match_id = serializers.IntegerField()
    seat_by = serializers.DateTimeField(help_text="Take the seat before this, else forfeit")


class EliminatedEventData(PlayerRefData):
    tournament_id = serializers.IntegerField()
    round = serializers.IntegerField()
    reason = serializers.ChoiceField(choices=Entry.OutReason.choices)


class PrizePaidEventData(PlayerRefData):
    tournament_id = serializers.IntegerField()
    place_from = serializers.IntegerField()
    place_to = serializers.IntegerField(help_text="Equal to place_from unless places are shared")
    prize = Money()


class TournamentEndedEventData(serializers.Serializer):
    tournament_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["finished", "cancelled"])
    reason = serializers.CharField(
        allow_blank=True, help_text="Why it was cancelled (empty when finished)"
    )
    seed = serializers.CharField(help_text="The revealed seed of the draw")
    ended_at = serializers.DateTimeField()

"""Input and output serializers of the network's endpoints (docs/network.md): the network
rooms a member operator offers, players' screen names, the lobby's waiting list."""

from __future__ import annotations

from rest_framework import serializers

from games.api.serializers import RoomOutput, SitInput, choice
from games.models import Room
from gin_platform.api.inputs import StrictInput
from gin_platform.api.serializers import OptionallyDisplayedMoney


class NetworkRoomOutput(RoomOutput):
    """A network room as a member operator sees it (docs/network.md): ``opted_in`` (a row of
    its own for the room) and ``offered`` (its players see the room in their lobby now:
    a member that opted in or offers ``all_rooms``). Context: ``opted_in`` (room ids),
    ``member``, ``all_rooms``."""

    opted_in = serializers.SerializerMethodField()
    offered = serializers.SerializerMethodField()

    class Meta(RoomOutput.Meta):
        fields = (*RoomOutput.Meta.fields, "opted_in", "offered")

    def get_opted_in(self, room: Room) -> bool:
        return room.pk in self.context["opted_in"]

    def get_offered(self, room: Room) -> bool:
        context = self.context
        return context["member"] and (context["all_rooms"] or room.pk in context["opted_in"])


# --- Screen names (docs/network.md) ------------------------------------------------------------
class ScreenNameInput(StrictInput):
    screen_name = serializers.CharField(
        max_length=64,
        trim_whitespace=False,
        help_text="3 to 20 characters: letters A-Z, digits, '_' or '-' between them.",
    )


class ScreenNameOutput(serializers.Serializer):
    screen_name = serializers.CharField(
        allow_null=True, help_text="What players of other operators see at network tables."
    )
    changeable = serializers.BooleanField(
        help_text="False while the player holds a seat at a network table."
    )


# --- The waiting list (docs/network.md "Lobby and waiting list") ------------------------------
class WaitingListJoinInput(SitInput):
    """Money Play: the stake per point and the cashier amount to be seated with."""


class WaitingListSeatOutput(serializers.Serializer):
    table_id = serializers.IntegerField()
    match_id = serializers.IntegerField()
    position = serializers.IntegerField()


class WaitingListEntryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    room_id = serializers.IntegerField()
    status = choice(("waiting", "seated", "left", "expired", "refused"))
    stake_per_point = OptionallyDisplayedMoney(allow_null=True)
    cashier_amount = OptionallyDisplayedMoney(allow_null=True)
    seat = WaitingListSeatOutput(allow_null=True, help_text="Where the player was seated")
    problem_type = serializers.CharField(
        allow_null=True, help_text="refused: the problem type the seat was refused with"
    )
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)

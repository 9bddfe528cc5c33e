"""The network's endpoints (docs/network.md): the network rooms a member operator offers
(operators), screen names and the lobby's waiting list (players). Thin, like
``games.api.views``: parse, call one service or selector, render."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import selectors, services
from games.api import examples, presenters
from games.api.network_serializers import (
    NetworkRoomOutput,
    ScreenNameInput,
    ScreenNameOutput,
    WaitingListEntryOutput,
    WaitingListJoinInput,
)
from games.api.views import PROBLEMS
from gin_platform.api.inputs import NoBody, validated
from gin_platform.http.idempotency import idempotent
from gin_platform.http.permissions import IsOperator, IsPlayer
from gin_platform.http.problems import NotFoundProblem
from gin_platform.tenancy.principals import operator_principal, player_principal
from gin_platform.tenancy.selectors import network_get, network_membership_get


# --- The network: rooms a member operator offers, players' screen names ----------------------
def _network_room_context(operator) -> dict:
    if network_get() is None:
        raise NotFoundProblem("The platform has no network")
    membership = network_membership_get(operator=operator)
    member = membership is not None and membership.is_member
    return {
        "opted_in": selectors.network_room_opt_in_ids(operator=operator),
        "member": member,
        "all_rooms": member and membership is not None and membership.all_rooms,
    }


class NetworkRoomListView(GenericAPIView):
    permission_classes = (IsOperator,)
    serializer_class = NetworkRoomOutput

    @extend_schema(
        responses=NetworkRoomOutput(many=True),
        tags=["network"],
        operation_id="operators_me_network_rooms_list",
        summary="List the network's rooms",
        description="Every room of the player network (docs/network.md), with whether the "
        "operator opted into it (`opted_in`) and whether its players see it in their lobby "
        "now (`offered`: a member that opted in, or offers all rooms). 404 without a network.",
    )
    def get(self, request: Request) -> Response:
        caller = operator_principal(request)
        context = _network_room_context(caller.operator)
        page = self.paginate_queryset(selectors.network_room_list())
        return self.get_paginated_response(NetworkRoomOutput(page, many=True, context=context).data)


class NetworkRoomDetailView(APIView):
    permission_classes = (IsOperator,)

    def _answer(self, request: Request, room_id: str) -> Response:
        caller = operator_principal(request)
        room = selectors.network_room_get(room_id=room_id)
        context = _network_room_context(caller.operator)
        return Response(NetworkRoomOutput(room, context=context).data)

    @extend_schema(
        responses={200: NetworkRoomOutput, 404: PROBLEMS[404]},
        tags=["network"],
        operation_id="operators_me_network_rooms_retrieve",
        summary="Show a network room",
        description="One network room, with `opted_in` and `offered` for the operator.",
    )
    def get(self, request: Request, room_id: str) -> Response:
        return self._answer(request, room_id)

    @extend_schema(
        request=None,
        responses={200: NetworkRoomOutput, 404: PROBLEMS[404]},
        tags=["network"],
        operation_id="operators_me_network_rooms_opt_in",
        summary="Offer a network room to the operator's players",
        description="Opt into one network room (a member only: 404 before joining). Its "
        "tables then appear in the operator's players' lobby. Opting in twice changes "
        "nothing. No body.",
        examples=examples.NETWORK_ROOM_OPT_IN,
    )
    @idempotent
    def put(self, request: Request, room_id: str) -> Response:
        caller = operator_principal(request)
        validated(NoBody, request.data)
        room = selectors.network_room_get(room_id=room_id)
        services.network_room_opt_in(operator=caller.operator, room=room, actor=caller.actor)
        return self._answer(request, room_id)

    @extend_schema(
        request=None,
        responses={204: None, 404: PROBLEMS[404]},
        tags=["network"],
        operation_id="operators_me_network_rooms_opt_out",
        summary="Stop offering a network room",
        description="Opt out of one network room: the operator's players seated there play "
        "on; nobody of the operator sits down there again (unless it offers all rooms).",
    )
    @idempotent
    def delete(self, request: Request, room_id: str) -> Response:
        caller = operator_principal(request)
        validated(NoBody, request.data)
        room = selectors.network_room_get(room_id=room_id)
        services.network_room_opt_out(operator=caller.operator, room=room, actor=caller.actor)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ScreenNameView(APIView):
    permission_classes = (IsPlayer,)

    @staticmethod
    def _answer(player) -> Response:
        changeable = not selectors.player_network_seated(player=player)
        body = {"screen_name": player.screen_name, "changeable": changeable}
        return Response(ScreenNameOutput(body).data)

    @extend_schema(
        responses=ScreenNameOutput,
        tags=["network"],
        operation_id="me_screen_name",
        summary="Show my screen name",
        description="The name players of other operators see at network tables (null until "
        "chosen) and whether it may change now.",
    )
    def get(self, request: Request) -> Response:
        caller = player_principal(request)
        return self._answer(caller.player)

    @extend_schema(
        request=ScreenNameInput,
        responses={200: ScreenNameOutput, 409: examples.SCREEN_NAME_REFUSED, 422: PROBLEMS[422]},
        tags=["network"],
        operation_id="me_screen_name_update",
        summary="Choose my screen name",
        description="Choose or change the screen name (docs/network.md): 3 to 20 letters "
        "A-Z, digits, '_' or '-' between them, unique across the platform whatever the case, "
        "not a reserved word, not the player's reference or display name. 409 "
        "screen-name-taken, 409 screen-name-locked while seated at a network table, 422 "
        "screen-name-invalid.",
        examples=examples.SCREEN_NAME,
    )
    def put(self, request: Request) -> Response:
        caller = player_principal(request)
        data = validated(ScreenNameInput, request.data)
        player = services.player_screen_name_set(
            player=caller.player, screen_name=data["screen_name"], actor=caller.actor
        )
        return self._answer(player)


# --- The lobby's waiting list (docs/network.md "Lobby and waiting list") ----------------------
class WaitingListView(APIView):
    permission_classes = (IsPlayer,)

    @staticmethod
    def _answer(entry, player, code=status.HTTP_200_OK) -> Response:
        body = WaitingListEntryOutput(presenters.waiting_list_entry(entry, player=player)).data
        return Response(body, status=code)

    @extend_schema(
        responses={200: WaitingListEntryOutput, 404: PROBLEMS[404]},
        tags=["lobby"],
        operation_id="lobby_waiting_list_retrieve",
        summary="Show my place on a room's waiting list",
        description="The player's latest entry for the room: waiting, or how it ended "
        "(seated: `seat` names the table and match; left, expired, refused with the "
        "problem type). 404 when the player never joined it.",
    )
    def get(self, request: Request, room_id: str) -> Response:
        caller = player_principal(request)
        player = caller.player
        room = selectors.lobby_room_get(operator=caller.operator, room_id=room_id)
        return self._answer(selectors.player_waiting_entry(player=player, room=room), player)

    @extend_schema(
        request=WaitingListJoinInput,
        responses={
            201: WaitingListEntryOutput,
            200: OpenApiResponse(WaitingListEntryOutput, description="Already waiting there"),
            **PROBLEMS,
            403: examples.ON_BREAK,
        },
        tags=["lobby"],
        operation_id="lobby_waiting_list_join",
        summary="Wait for an opponent in a room",
        description="Join the room's waiting list: nothing is charged now. As soon as an "
        "opponent is there (somebody seated alone at the same stake, or another waiting "
        "player) the player is seated automatically, buy-in and all, exactly as by "
        "`POST /tables/{id}/sit`, and told over their socket (`/ws/v1/me`). Money Play: the "
        "stake per point and cashier amount to sit with. The entry expires after "
        "WAITING_LIST_SECONDS. Refused at once like a seat: a player on a break "
        "(timed-out, self-excluded), a network room not offered. The seat's refusals "
        "(funds, limits, a break taken meanwhile) end the entry as `refused`.",
        examples=examples.WAITING_LIST_JOIN,
    )
    def post(self, request: Request, room_id: str) -> Response:
        caller = player_principal(request)
        player = caller.player
        room = selectors.lobby_room_get(operator=caller.operator, room_id=room_id)
        data = validated(WaitingListJoinInput, request.data, context={"currency": room.currency})
        entry, created = services.waiting_list_join(
            player=player, room=room, actor=caller.actor, **data
        )
        entry = selectors.player_waiting_entry(player=player, room=room)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return self._answer(entry, player, code)

    @extend_schema(
        request=None,
        responses={200: WaitingListEntryOutput, 404: PROBLEMS[404]},
        tags=["lobby"],
        operation_id="lobby_waiting_list_leave",
        summary="Leave a room's waiting list",
        description="Leave the waiting list (free: nothing was charged). 404 when not "
        "waiting there.",
        examples=examples.WAITING_LIST_LEAVE,
    )
    def delete(self, request: Request, room_id: str) -> Response:
        caller = player_principal(request)
        validated(NoBody, request.data)
        player = caller.player
        room = selectors.lobby_room_get(operator=caller.operator, room_id=room_id)
        entry = services.waiting_list_leave(player=player, room=room, actor=caller.actor)
        return self._answer(entry, player)


class MyWaitingListView(GenericAPIView):
    permission_classes = (IsPlayer,)
    serializer_class = WaitingListEntryOutput

    @extend_schema(
        responses=WaitingListEntryOutput(many=True),
        tags=["lobby"],
        summary="List my waiting-list entries",
        description="The player's waiting-list entries in every room, newest first, "
        "waiting or ended.",
    )
    def get(self, request: Request) -> Response:
        caller = player_principal(request)
        player = caller.player
        page = self.paginate_queryset(selectors.player_waiting_list(player=player))
        assert page is not None  # None only for a view without a paginator
        entries = [presenters.waiting_list_entry(entry, player=player) for entry in page]
        return self.get_paginated_response(WaitingListEntryOutput(entries, many=True).data)

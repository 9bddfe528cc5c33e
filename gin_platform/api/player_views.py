"""The operator's players and their sessions."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api import examples
from gin_platform.api.inputs import NoBody, text_filter, validated
from gin_platform.api.serializers import (
    PlayerCreateInput,
    PlayerOutput,
    PlayerSessionCreateInput,
    PlayerSessionIssuedOutput,
    PlayerSessionOutput,
    PlayerUpdateInput,
)
from gin_platform.http.idempotency import idempotent
from gin_platform.http.permissions import IsOperator
from gin_platform.tenancy import selectors, services
from gin_platform.tenancy.principals import operator_principal


class PlayerListCreateView(GenericAPIView):
    permission_classes = (IsOperator,)
    serializer_class = PlayerOutput

    @extend_schema(
        parameters=[OpenApiParameter("external_ref", str, description="Exact match")],
        responses=PlayerOutput(many=True),
        tags=["players"],
        summary="List players",
        description="The operator's players, newest first; `external_ref` finds one by your "
        "own reference.",
    )
    def get(self, request: Request) -> Response:
        caller = operator_principal(request)
        players = selectors.player_list(
            operator=caller.operator, external_ref=text_filter(request, "external_ref")
        )
        page = self.paginate_queryset(players)
        return self.get_paginated_response(PlayerOutput(page, many=True).data)

    @extend_schema(
        request=PlayerCreateInput,
        responses={201: PlayerOutput, 409: examples.PLAYER_CREATE_EXISTS},
        tags=["players"],
        summary="Create a player",
        description="Register one of your players under your own `external_ref` (unique per "
        "operator) with a wallet currency (the operator's base currency by default) and a "
        "display currency (R11). 409 player-exists when the reference is taken.",
        examples=examples.PLAYER_CREATE,
    )
    @idempotent
    def post(self, request: Request) -> Response:
        caller = operator_principal(request)
        data = validated(PlayerCreateInput, request.data)
        player = services.player_create(operator=caller.operator, actor=caller.actor, **data)
        return Response(PlayerOutput(player).data, status=status.HTTP_201_CREATED)


class PlayerDetailView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses=PlayerOutput,
        tags=["players"],
        summary="Show a player",
        description="One of the operator's players (another operator's is 404).",
    )
    def get(self, request: Request, player_id: str) -> Response:
        caller = operator_principal(request)
        player = selectors.player_get(operator=caller.operator, player_id=player_id)
        return Response(PlayerOutput(player).data)

    @extend_schema(
        request=PlayerUpdateInput,
        responses={200: PlayerOutput, 400: examples.PLAYER_UPDATE_INVALID},
        tags=["players"],
        summary="Update a player",
        description="Change the screen name, locale, display currency, status (active, "
        "suspended, closed) or KYC status; fields left out stay as they are.",
        examples=examples.PLAYER_UPDATE,
    )
    @idempotent
    def patch(self, request: Request, player_id: str) -> Response:
        caller = operator_principal(request)
        player = selectors.player_get(operator=caller.operator, player_id=player_id)
        data = validated(PlayerUpdateInput, request.data)
        player = services.player_update(player=player, actor=caller.actor, **data)
        return Response(PlayerOutput(player).data)


class PlayerSessionCreateView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=PlayerSessionCreateInput,
        responses={201: PlayerSessionIssuedOutput, 422: examples.SESSION_CREATE_REFUSED},
        tags=["players"],
        summary="Mint a player session token",
        description="Mint a short-lived bearer token for the player (ttl_seconds, 60 to "
        "86400). The token is shown once. Send the player's `device_id` and `client_address` "
        "when you have them: players seen on one device or at one household address are never "
        "seated together (kept only as keyed hashes, docs/integrity.md).",
        examples=examples.SESSION_CREATE,
    )
    @idempotent
    def post(self, request: Request, player_id: str) -> Response:
        caller = operator_principal(request)
        player = selectors.player_get(operator=caller.operator, player_id=player_id)
        data = validated(PlayerSessionCreateInput, request.data)
        issued = services.player_session_create(
            player=player,
            ttl_seconds=data.get("ttl_seconds"),
            actor=caller.actor,
            device_id=data.get("device_id"),
            client_address=data.get("client_address"),
        )
        body = PlayerSessionIssuedOutput(issued.session).data | {"token": issued.token}
        return Response(body, status=status.HTTP_201_CREATED)


class PlayerSessionRevokeView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=None,
        responses=PlayerSessionOutput,
        tags=["players"],
        summary="Revoke a player session",
        description="End the session at once: its token and the socket tickets minted with "
        "it stop working. No body.",
        examples=examples.SESSION_REVOKE,
    )
    @idempotent
    def post(self, request: Request, player_id: str, session_id: str) -> Response:
        caller = operator_principal(request)
        validated(NoBody, request.data)
        operator = caller.operator
        player = selectors.player_get(operator=operator, player_id=player_id)
        session = selectors.player_session_get(
            operator=operator, player=player, session_id=session_id
        )
        session = services.player_session_revoke(session=session, actor=caller.actor)
        return Response(PlayerSessionOutput(session).data)

"""The operator's side of linked accounts (docs/integrity.md): the links of one of its
players to its other players, the household and associate links it declares and ends, and
the identifiers it sends (a payment-instrument fingerprint, a device, an address)."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api.inputs import NoBody, validated
from gin_platform.http.idempotency import idempotent
from gin_platform.http.permissions import IsOperator
from gin_platform.tenancy import selectors as tenancy
from gin_platform.tenancy.principals import operator_principal
from integrity import selectors, services
from integrity.api import link_examples as examples
from integrity.api.link_serializers import (
    PlayerIdentifierInput,
    PlayerIdentifierOutput,
    PlayerLinkInput,
    PlayerLinkOutput,
)
from integrity.api.presenters import link_view, mark_view


class PlayerLinkListCreateView(GenericAPIView):
    permission_classes = (IsOperator,)
    serializer_class = PlayerLinkOutput

    @extend_schema(
        responses=PlayerLinkOutput(many=True),
        tags=["players"],
        operation_id="player_links_list",
        summary="List a player's links",
        description="The player's links to your other players, newest first, ended ones too: "
        "those you declared, and those the platform found from a device, address or payment "
        "instrument both were seen with (never the identifier). Links to other operators' "
        "players are never shown (docs/integrity.md).",
    )
    def get(self, request: Request, player_id: str) -> Response:
        caller = operator_principal(request)
        player = tenancy.player_get(operator=caller.operator, player_id=player_id)
        page = self.paginate_queryset(
            selectors.player_links_visible(operator=caller.operator, player=player)
        )
        body = [link_view(link, player=player) for link in page or []]
        return self.get_paginated_response(PlayerLinkOutput(body, many=True).data)

    @extend_schema(
        request=PlayerLinkInput,
        responses={
            201: PlayerLinkOutput,
            200: PlayerLinkOutput,
            422: examples.LINK_CREATE_INVALID,
        },
        tags=["players"],
        operation_id="player_links_create",
        summary="Declare a household or associate link",
        description="Declare that the player and another of your players are of one household "
        "or known associates: they are never seated together from now on (the seat is refused "
        "with 409 linked-players, the waiting list never pairs them). 201 when declared, 200 "
        "when already in force. 422 link-invalid for the player themselves or a player that "
        "is not yours.",
        examples=examples.LINK_CREATE,
    )
    @idempotent
    def post(self, request: Request, player_id: str) -> Response:
        caller = operator_principal(request)
        player = tenancy.player_get(operator=caller.operator, player_id=player_id)
        data = validated(PlayerLinkInput, request.data)
        declared = services.player_link_declare(
            player=player, other_player_id=data["player_id"], kind=data["kind"], actor=caller.actor
        )
        return Response(
            PlayerLinkOutput(link_view(declared.link, player=player)).data,
            status=status.HTTP_201_CREATED if declared.created else status.HTTP_200_OK,
        )


class PlayerLinkDetailView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=None,
        responses={200: PlayerLinkOutput, 409: examples.LINK_END_REFUSED},
        tags=["players"],
        operation_id="player_links_end",
        summary="End a link you declared",
        description="End a household or associate link you declared: the two may be seated "
        "together again (unless linked otherwise). Ending it again changes nothing. 409 "
        "link-not-endable for a link the platform found or the risk team set. No body.",
        examples=examples.LINK_END,
    )
    @idempotent
    def delete(self, request: Request, player_id: str, link_id: str) -> Response:
        caller = operator_principal(request)
        validated(NoBody, request.data)
        player = tenancy.player_get(operator=caller.operator, player_id=player_id)
        link = selectors.player_link_get(operator=caller.operator, player=player, link_id=link_id)
        link = services.player_link_end(link=link, actor=caller.actor, operator=caller.operator)
        return Response(PlayerLinkOutput(link_view(link, player=player)).data)


class PlayerIdentifierCreateView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=PlayerIdentifierInput,
        responses={
            201: PlayerIdentifierOutput,
            200: PlayerIdentifierOutput,
            422: examples.IDENTIFIER_INVALID,
        },
        tags=["players"],
        operation_id="player_identifiers_create",
        summary="Send an identifier of a player",
        description="An identifier the player was seen with: a payment instrument's fingerprint "
        "(as your payment provider gives it), a device id or a client address. Kept only as a "
        "keyed hash under the platform's secret, so it matches the same identifier sent by any "
        "operator of the network; players who share one are never seated together "
        "(docs/integrity.md). 201 the first time, 200 when seen before. The value is "
        "never stored or returned.",
        examples=examples.IDENTIFIER_RECORD,
    )
    @idempotent
    def post(self, request: Request, player_id: str) -> Response:
        caller = operator_principal(request)
        player = tenancy.player_get(operator=caller.operator, player_id=player_id)
        data = validated(PlayerIdentifierInput, request.data)
        recorded = services.player_identifier_record(
            player=player, kind=data["kind"], value=data["value"], actor=caller.actor
        )
        return Response(
            PlayerIdentifierOutput(mark_view(recorded.mark)).data,
            status=status.HTTP_201_CREATED if recorded.created else status.HTTP_200_OK,
        )

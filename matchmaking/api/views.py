"""The quick seat's endpoint (R15, docs/matchmaking.md "API"): a player asks for a game,
reads how their latest request stands, and cancels it. Thin: parse, one service or
selector, render."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api.inputs import NoBody, validated
from gin_platform.http.permissions import IsPlayer
from gin_platform.tenancy.principals import player_principal
from matchmaking import selectors, services
from matchmaking.api import examples
from matchmaking.api.serializers import QuickSeatInput, TicketOutput
from matchmaking.models import Ticket
from matchmaking.presenters import ticket_view

TAGS = ["lobby"]
NOT_FOUND = OpenApiResponse(description="The player never asked for a quick seat")


def _answer(ticket: Ticket, request: Request, code: int = status.HTTP_200_OK) -> Response:
    player = player_principal(request).player
    return Response(TicketOutput(ticket_view(ticket, player=player)).data, status=code)


class QuickSeatView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        responses={200: TicketOutput, 404: NOT_FOUND},
        tags=TAGS,
        operation_id="lobby_quick_seat_retrieve",
        summary="Show my quick seat",
        description="The player's latest quick-seat request: waiting (with the ratings its "
        "band holds now), or how it ended (seated: `seat` names the table and match; "
        "cancelled, expired, refused with the problem type). 404 when the player never "
        "asked.",
        examples=examples.SHOW,
    )
    def get(self, request: Request) -> Response:
        player = player_principal(request).player
        return _answer(selectors.player_latest_ticket(player=player), request)

    @extend_schema(
        request=QuickSeatInput,
        responses={
            201: TicketOutput,
            200: OpenApiResponse(TicketOutput, description="Already waiting for this game"),
            **examples.JOIN_REFUSED,
        },
        tags=TAGS,
        operation_id="lobby_quick_seat_join",
        summary="Ask for a quick seat",
        description="R15: queue for a heads-up real-money game of `variant` at `stake` "
        "(First To Knock, Match Play) or `stake_per_point` with `cashier_amount` (Money "
        "Play) in `currency`, in the room of the player's lobby that plays it (their "
        "operator's own first, else a network room, whose queue pools every member's "
        "players). Nothing is charged now. The player is seated with the waiting player of "
        "the closest rating whose band meets theirs (+-100, 50 wider every 10 s, anybody "
        "after 60 s), never with a player linked to them, buy-in and all exactly as by "
        "`POST /tables/{id}/sit`, and told on their socket (`/ws/v1/me`: "
        "`quick_seat.seated` with the match). Refused at once like a seat (a break, a "
        "suspension, a network room without a screen name, the session's limits). One "
        "request waits at a time: the same one again answers it (200); another is "
        "`quick-seat-already-queued`. A request expires after 10 minutes.",
        examples=examples.JOIN,
    )
    def post(self, request: Request) -> Response:
        caller = player_principal(request)
        data = validated(QuickSeatInput, request.data)
        ticket, created = services.quick_seat_join(player=caller.player, actor=caller.actor, **data)
        return _answer(ticket, request, status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(
        request=None,
        responses={200: TicketOutput, 404: NOT_FOUND, **examples.CANCEL_REFUSED},
        tags=TAGS,
        operation_id="lobby_quick_seat_cancel",
        summary="Cancel my quick seat",
        description="Stop waiting (free: nothing was charged). Again: the same answer. "
        "`quick-seat-not-waiting` when the request was seated, expired or refused first; "
        "404 when the player never asked.",
        examples=examples.CANCEL,
    )
    def delete(self, request: Request) -> Response:
        caller = player_principal(request)
        validated(NoBody, request.data)
        return _answer(
            services.quick_seat_cancel(player=caller.player, actor=caller.actor), request
        )

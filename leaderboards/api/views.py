"""The leaderboards API (docs/leaderboards.md "API"): a board, for a player (their operator's
side) or an operator's API key, a page at a time; the player's own setting to stay off every
board. Thin views: parse, one selector or service, render."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api.inputs import validated
from gin_platform.http.pagination import CheckedCursorPagination
from gin_platform.http.permissions import IsOperatorOrPlayer, IsPlayer
from gin_platform.tenancy.principals import PlayerPrincipal, operator_principal, player_principal
from leaderboards import periods, selectors
from leaderboards.api import examples, presenters
from leaderboards.api.serializers import (
    MAX_PAGE_SIZE,
    LeaderboardOptOutInput,
    LeaderboardOptOutOutput,
    LeaderboardPageOutput,
    LeaderboardQueryInput,
)
from leaderboards.services import player_leaderboard_opt_out_set
from wallet.amounts import parse_currency

BOARD = (
    "R15's leaderboard of a period (a day, an ISO week, a month, in UTC; the one under way, "
    "or the one holding `date`): by rating in a variant family (the players whose rating "
    "changed in the period, at the rating their last match of it left them; provisional "
    "ratings, RD above 110, are not ranked), or by net tournament winnings in one currency "
    "(the money prizes of the tournaments that ended in the period minus what was paid to "
    "enter them). `scope=operator` holds your operator's players, `scope=network` every "
    "member operator's at the network's tables and tournaments (403 "
    "leaderboard-network-closed outside the network). Players are named by their screen "
    "name only; a player without one, or who stays off the boards, is on none. Ties: the "
    "earlier to reach the figure, then the screen name. Best first, a page at a time "
    "(`cursor`, `page_size` up to 100)."
)


class LeaderboardPagination(CheckedCursorPagination):
    """Pages of a board by its rank (unique: the window numbers every row)."""

    ordering = ("rank",)
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    # A rank is a whole number; a longer one than this is no board's.
    MAX_POSITION_DIGITS = 9

    def decode_cursor(self, request: Request) -> Any:
        cursor = super().decode_cursor(request)
        position = None if cursor is None else cursor.position
        if position is not None and not (
            position.isdigit() and len(position) <= self.MAX_POSITION_DIGITS
        ):
            raise NotFound(self.invalid_cursor_message)
        return cursor


class LeaderboardView(APIView):
    permission_classes = (IsOperatorOrPlayer,)

    @extend_schema(
        parameters=[
            LeaderboardQueryInput,
            OpenApiParameter("cursor", OpenApiTypes.STR, description="A page's cursor"),
            OpenApiParameter(
                "page_size", OpenApiTypes.INT, description="Rows per page, 1 to 100 (50)"
            ),
        ],
        responses={
            200: LeaderboardPageOutput,
            403: examples.NETWORK_CLOSED,
            422: examples.UNKNOWN_CURRENCY,
        },
        tags=["leaderboards"],
        operation_id="leaderboards_retrieve",
        summary="Show a leaderboard",
        description=BOARD,
        examples=examples.BOARDS,
    )
    def get(self, request: Request) -> Response:
        query = validated(LeaderboardQueryInput, request.query_params)
        user = request.user
        if isinstance(user, PlayerPrincipal):
            operator, player_id = user.player.operator, user.player.pk
            currency = query.get("currency") or user.player.wallet_currency
        else:
            operator, player_id = operator_principal(request).operator, None
            currency = query.get("currency") or operator.base_currency
        day = query.get("date") or timezone.now().date()
        board = selectors.leaderboard(
            operator=operator,
            scope=query["scope"],
            board=query["board"],
            period=periods.period_of(query["period"], day),
            family=query["family"],
            currency=parse_currency(currency),
        )
        paginator = LeaderboardPagination()
        rows = paginator.paginate_queryset(board.rows, request, view=self)
        assert rows is not None  # a paginator with a page size always pages
        body = presenters.page_dict(
            board,
            rows,
            operator_id=operator.pk,
            player_id=player_id,
            links=(paginator.get_next_link(), paginator.get_previous_link()),
        )
        return Response(body)


class MyLeaderboardOptOutView(APIView):
    permission_classes = (IsPlayer,)

    @staticmethod
    def _answer(player: Any) -> Response:
        body = {
            "leaderboard_opt_out": player.leaderboard_opt_out,
            "screen_name": player.screen_name,
        }
        return Response(LeaderboardOptOutOutput(body).data)

    @extend_schema(
        responses=LeaderboardOptOutOutput,
        tags=["me"],
        operation_id="me_leaderboard_opt_out",
        summary="Show whether I stay off the leaderboards",
        description="Whether the player stays off every leaderboard (R15; on them by "
        "default), and the screen name the boards show (none chosen: on no board).",
        examples=examples.OPT_OUT_SHOWN,
    )
    def get(self, request: Request) -> Response:
        return self._answer(player_principal(request).player)

    @extend_schema(
        request=LeaderboardOptOutInput,
        responses=LeaderboardOptOutOutput,
        tags=["me"],
        operation_id="me_leaderboard_opt_out_update",
        summary="Stay off the leaderboards, or come back",
        description="R15: a player may stay off every leaderboard, of their operator and of "
        "the network, from the next read on; `false` brings them back. Audited "
        "(player.leaderboard_opt_out_set).",
        examples=examples.OPT_OUT,
    )
    def put(self, request: Request) -> Response:
        caller = player_principal(request)
        data = validated(LeaderboardOptOutInput, request.data)
        player = player_leaderboard_opt_out_set(
            player=caller.player, opt_out=data["leaderboard_opt_out"], actor=caller.actor
        )
        return self._answer(player)

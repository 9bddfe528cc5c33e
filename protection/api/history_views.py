"""A player's history over the API (docs/player-protection.md "History"): their matches,
their wallet's movements and the figures per day or month over the last 365 days, as JSON
pages or as a CSV of the whole window. The player reads their own (``/me/history/...``);
their operator reads the same for any of its players (``/players/{id}/history/...``;
another operator's player is 404). Thin views: parse, call protection.history, render."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.http import HttpResponseBase
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api.inputs import validated
from gin_platform.http.permissions import IsOperator, IsPlayer
from gin_platform.http.renderers import CSVRenderer
from gin_platform.tenancy import selectors as tenancy
from gin_platform.tenancy.principals import operator_principal, player_principal
from protection import history
from protection.api import history_csv
from protection.api import history_presenters as presenters
from protection.api.history_serializers import (
    HistorySummaryOutput,
    MatchHistoryOutput,
    MovementFilterInput,
    MovementOutput,
    SummaryFilterInput,
)

if TYPE_CHECKING:
    from gin_platform.models import Player

FORMAT = OpenApiParameter(
    "format",
    str,
    enum=["json", "csv"],
    description="json (the default): a page; csv: the whole window as RFC 4180 text, streamed "
    "(also `Accept: text/csv`). Any other value is 406",
)
NOT_ACCEPTABLE = OpenApiResponse(
    description="Not acceptable: a `format` other than json or csv, or an Accept header "
    "asking only for another type"
)
MATCHES = (
    "The matches the player sat in over the last 365 days, newest first: variant, stakes, "
    "their seat and outcome, the other seats (a screen name only at a network table), the "
    "hands played, and their net from the ledger; `hands_url` is the match's hand history, "
    "every finished hand with its replay. "
)
MOVEMENTS = (
    "Every movement of the player's wallet over the last 365 days, newest first: deposits, "
    "withdrawals, the buy-ins and payouts of their games, and every other kind, each with "
    "the kind it counts as (a reversal counts as what it undoes) and the balance after it; "
    "`category` keeps one category. "
)
SUMMARY = (
    "The wallet's figures over the last 365 days per UTC day or month (`period`): deposits, "
    "withdrawals, net deposits, the net of play, other movements and the change; the "
    "totals (exactly the sum of the periods, kind by kind) and the balance before and after "
    "the window. The CSV is the periods' table. "
)


def _operator_player(request: Request, player_id: str) -> Player:
    return tenancy.player_get(operator=operator_principal(request).operator, player_id=player_id)


class _MatchHistory(GenericAPIView):
    serializer_class = MatchHistoryOutput
    renderer_classes = (JSONRenderer, CSVRenderer)

    def answer(self, request: Request, player: Player) -> HttpResponseBase:
        matches = history.match_history(player=player, window=history.history_window())
        if request.accepted_renderer.format == "csv":
            return history_csv.matches_download(player=player, matches=matches)
        page = self.paginate_queryset(matches)
        assert page is not None  # None only for a view without a paginator
        body = [
            presenters.match_row(
                row,
                hands_url=request.build_absolute_uri(
                    reverse("hands", kwargs={"match_id": row.record.match_id})
                ),
            )
            for row in history.match_history_rows(player=player, matches=page)
        ]
        return self.get_paginated_response(MatchHistoryOutput(body, many=True).data)


class _MovementHistory(GenericAPIView):
    serializer_class = MovementOutput
    renderer_classes = (JSONRenderer, CSVRenderer)

    def answer(self, request: Request, player: Player) -> HttpResponseBase:
        values = validated(MovementFilterInput, request.query_params)
        movements = history.movement_history(
            player=player, window=history.history_window(), category=values.get("category")
        )
        if request.accepted_renderer.format == "csv":
            return history_csv.movements_download(movements=movements)
        page = self.paginate_queryset(movements)
        assert page is not None  # None only for a view without a paginator
        body = [presenters.movement_row(row) for row in history.movement_rows(page)]
        return self.get_paginated_response(MovementOutput(body, many=True).data)


class _SummaryHistory(APIView):
    renderer_classes = (JSONRenderer, CSVRenderer)

    def answer(self, request: Request, player: Player) -> HttpResponseBase:
        values = validated(SummaryFilterInput, request.query_params)
        summary = history.history_summary(
            player=player, window=history.history_window(), period=values["period"]
        )
        if request.accepted_renderer.format == "csv":
            return history_csv.summary_download(summary)
        return Response(HistorySummaryOutput(presenters.summary_body(summary)).data)


# --- Player session token: their own ---------------------------------------------------------
class MyMatchHistoryView(_MatchHistory):
    permission_classes = (IsPlayer,)

    @extend_schema(
        parameters=[FORMAT],
        responses={200: MatchHistoryOutput(many=True), 406: NOT_ACCEPTABLE},
        tags=["me"],
        operation_id="me_history_matches_list",
        summary="List my matches of the last 12 months",
        description=MATCHES,
    )
    def get(self, request: Request) -> HttpResponseBase:
        return self.answer(request, player_principal(request).player)


class MyMovementHistoryView(_MovementHistory):
    permission_classes = (IsPlayer,)

    @extend_schema(
        parameters=[MovementFilterInput, FORMAT],
        responses={200: MovementOutput(many=True), 406: NOT_ACCEPTABLE},
        tags=["me"],
        operation_id="me_history_transactions_list",
        summary="List my wallet's movements of the last 12 months",
        description=MOVEMENTS,
    )
    def get(self, request: Request) -> HttpResponseBase:
        return self.answer(request, player_principal(request).player)


class MySummaryHistoryView(_SummaryHistory):
    permission_classes = (IsPlayer,)

    @extend_schema(
        parameters=[SummaryFilterInput, FORMAT],
        responses={200: HistorySummaryOutput, 406: NOT_ACCEPTABLE},
        tags=["me"],
        operation_id="me_history_summary_retrieve",
        summary="Show my figures of the last 12 months",
        description=SUMMARY,
    )
    def get(self, request: Request) -> HttpResponseBase:
        return self.answer(request, player_principal(request).player)


# --- Operator API key: the same for one of its players ---------------------------------------
class PlayerMatchHistoryView(_MatchHistory):
    permission_classes = (IsOperator,)

    @extend_schema(
        parameters=[FORMAT],
        responses={200: MatchHistoryOutput(many=True), 406: NOT_ACCEPTABLE},
        tags=["players"],
        operation_id="player_history_matches_list",
        summary="List a player's matches of the last 12 months",
        description=MATCHES + "What the player reads themselves; 404 for another operator's.",
    )
    def get(self, request: Request, player_id: str) -> HttpResponseBase:
        return self.answer(request, _operator_player(request, player_id))


class PlayerMovementHistoryView(_MovementHistory):
    permission_classes = (IsOperator,)

    @extend_schema(
        parameters=[MovementFilterInput, FORMAT],
        responses={200: MovementOutput(many=True), 406: NOT_ACCEPTABLE},
        tags=["players"],
        operation_id="player_history_transactions_list",
        summary="List a player's wallet movements of the last 12 months",
        description=MOVEMENTS + "What the player reads themselves; 404 for another operator's.",
    )
    def get(self, request: Request, player_id: str) -> HttpResponseBase:
        return self.answer(request, _operator_player(request, player_id))


class PlayerSummaryHistoryView(_SummaryHistory):
    permission_classes = (IsOperator,)

    @extend_schema(
        parameters=[SummaryFilterInput, FORMAT],
        responses={200: HistorySummaryOutput, 406: NOT_ACCEPTABLE},
        tags=["players"],
        operation_id="player_history_summary_retrieve",
        summary="Show a player's figures of the last 12 months",
        description=SUMMARY + "What the player reads themselves; 404 for another operator's.",
    )
    def get(self, request: Request, player_id: str) -> HttpResponseBase:
        return self.answer(request, _operator_player(request, player_id))

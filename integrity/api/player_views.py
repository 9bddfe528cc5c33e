"""Players' reports (docs/integrity.md "Player reports"): a player reports an opponent of a
match they played and sees that the report was received and its status, never what the
investigation found. Thin views."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api.inputs import validated
from gin_platform.http.pagination import CheckedCursorPagination
from gin_platform.http.permissions import IsPlayer
from gin_platform.tenancy.principals import player_principal
from integrity import selectors, services
from integrity.api import examples, presenters
from integrity.api.serializers import PlayerReportInput, PlayerReportOutput


class MyReportListCreateView(GenericAPIView):
    permission_classes = (IsPlayer,)
    serializer_class = PlayerReportOutput

    class Pagination(CheckedCursorPagination):
        ordering = ("-created_at", "-pk")
        page_size = 50

    pagination_class = Pagination

    @extend_schema(
        responses=PlayerReportOutput(many=True),
        tags=["me"],
        operation_id="me_reports_list",
        summary="List my reports",
        description="The reports I made, newest first, each with its status (received, "
        "under_review, closed); never what the review found.",
    )
    def get(self, request: Request) -> Response:
        rows = selectors.player_report_list(player=player_principal(request).player)
        page = self.paginate_queryset(rows)
        assert page is not None  # None only for a view without a paginator
        body = [presenters.report(row) for row in page]
        return self.get_paginated_response(PlayerReportOutput(body, many=True).data)

    @extend_schema(
        request=PlayerReportInput,
        responses={201: PlayerReportOutput},
        tags=["me"],
        operation_id="me_reports_create",
        summary="Report a player",
        examples=examples.REPORT_CREATE,
        description="Report an opponent of a match I played (their `seat`, or `reported`: "
        "their screen name at a network table), once per match and opponent, with a "
        "category (collusion, chip_dumping, bot, abuse, other) and an optional text. The integrity "
        "team reviews it; my operator is told (integrity.report_received).",
    )
    def post(self, request: Request) -> Response:
        principal = player_principal(request)
        values = validated(PlayerReportInput, request.data)
        report = services.player_report_create(
            reporter=principal.player,
            match_id=values["match_id"],
            reported_id=values.get("reported"),
            seat=values.get("seat"),
            reason=values["category"],
            text=values["text"],
            actor=principal.actor,
        )
        return Response(
            PlayerReportOutput(presenters.report(report)).data, status=status.HTTP_201_CREATED
        )


class MyReportDetailView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        responses=PlayerReportOutput,
        tags=["me"],
        operation_id="me_reports_retrieve",
        summary="Show one of my reports",
        description="The report and its status; never what the review found.",
    )
    def get(self, request: Request, report_id: str) -> Response:
        row = selectors.player_report_get(
            player=player_principal(request).player, report_id=report_id
        )
        return Response(PlayerReportOutput(presenters.report(row)).data)

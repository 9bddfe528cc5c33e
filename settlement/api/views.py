"""Statements, reports and reconciliation over the API (thin: parse, call, render)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api.inputs import NoBody, validated
from gin_platform.http.pagination import CheckedCursorPagination
from gin_platform.http.permissions import (
    HasStaffPermission,
    IsOperator,
    IsOperatorOrPlayer,
    IsStaff,
)
from gin_platform.http.problems import NotFoundProblem, ValidationProblem
from gin_platform.http.renderers import CSVRenderer
from gin_platform.staff.scope import operator_scope
from gin_platform.tenancy import selectors as platform_selectors
from gin_platform.tenancy.principals import (
    OperatorPrincipal,
    operator_or_player_principal,
    operator_principal,
)
from settlement import reports, selectors, services, statements
from settlement.api.serializers import (
    ReconciliationRunOutput,
    ReportOutput,
    SettlementOutput,
)
from settlement.models import Settlement

if TYPE_CHECKING:
    from gin_platform.models import Operator

SLUG_SHAPE = re.compile(r"[-a-zA-Z0-9_]{1,64}")
PERIOD_PARAMETERS = [
    OpenApiParameter("from", str, description="ISO date or UTC date-time (inclusive)"),
    OpenApiParameter("to", str, description="ISO date or UTC date-time (exclusive)"),
    OpenApiParameter("currency", str),
]


def settlement_body(
    settlement: Settlement, *, mode: str, viewer_operator_id=None, for_player: bool = False
) -> dict:
    """``mode``: the caller's operator's (live, or test in the sandbox): its settlements are
    all of that mode. ``viewer_operator_id``: the caller's operator, for whom a network
    game's statement is masked (docs/network.md)."""
    statement = settlement.statement
    names = None
    if "network" in statement:
        names = selectors.network_operator_names(
            {entry.get("operator_id") for entry in statement["players"]}
        )
    if for_player:
        statement = statements.statement_for_player(
            statement, operator_id=viewer_operator_id, operator_names=names
        )
    else:
        statement = statements.statement_for_operator(
            statement, operator_id=viewer_operator_id, operator_names=names
        )
    return {
        "match_id": settlement.match_id,
        "variant": settlement.variant,
        "currency": settlement.currency,
        "is_practice": settlement.is_practice,
        "mode": mode,
        "escrow": statement["escrow"],
        "fee": statement["fee"],
        "settled_at": settlement.settled_at,
        "ledger_reference": statement["ledger_reference"],
        "statement": statement,
    }


class SettledCursorPagination(CheckedCursorPagination):
    ordering = ("-settled_at", "-pk")
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class SettlementListView(GenericAPIView):
    permission_classes = (IsOperator,)
    pagination_class = SettledCursorPagination
    serializer_class = SettlementOutput

    @extend_schema(
        parameters=PERIOD_PARAMETERS,
        responses=SettlementOutput(many=True),
        tags=["settlement"],
        summary="List settled games",
        description="The operator's settled games, newest first, each with its statement; "
        "optionally those settled in a period (`from`, `to`) and one currency.",
    )
    def get(self, request: Request) -> Response:
        operator = operator_principal(request).operator
        params = request.query_params
        start, end = (
            reports.parse_period(params.get("from"), params.get("to"))
            if params.get("from")
            else (None, None)
        )
        settlements = selectors.settlement_list(
            operator=operator, currency=params.get("currency"), start=start, end=end
        )
        page = self.paginate_queryset(settlements)
        assert page is not None  # None only for a view without a paginator
        return self.get_paginated_response(
            SettlementOutput(
                [
                    settlement_body(s, mode=operator.mode, viewer_operator_id=operator.pk)
                    for s in page
                ],
                many=True,
            ).data
        )


class SettlementDetailView(APIView):
    """The statement of one settled game: for its operator and for each of its players."""

    permission_classes = (IsOperatorOrPlayer,)

    @extend_schema(
        responses=SettlementOutput,
        tags=["settlement"],
        summary="Show a game's settlement",
        description="The statement of one settled game: for its operator, and for each of "
        "its players (who see the other player by screen name, never by your reference). "
        "The same statement the game.settled webhook carries.",
    )
    def get(self, request: Request, match_id: str) -> Response:
        caller = operator_or_player_principal(request)
        if isinstance(caller, OperatorPrincipal):
            settlement = selectors.settlement_get_for_operator(
                operator=caller.operator, match_id=match_id
            )
            body = settlement_body(
                settlement, mode=caller.operator.mode, viewer_operator_id=caller.operator.pk
            )
            return Response(SettlementOutput(body).data)
        settlement = selectors.settlement_get_for_player(player=caller.player, match_id=match_id)
        body = settlement_body(
            settlement,
            mode=caller.operator.mode,
            viewer_operator_id=caller.player.operator_id,
            for_player=True,
        )
        return Response(SettlementOutput(body).data)


def _report_response(request: Request, operator: Operator | None, mode: str = "live") -> Response:
    params = request.query_params
    table = reports.parse_table(params.get("table"))
    start, end = reports.parse_period(params.get("from"), params.get("to"))
    report = reports.daily_report(
        operator=operator, start=start, end=end, currency=params.get("currency"), mode=mode
    )
    if request.accepted_renderer.format == "csv":
        response = Response(reports.report_csv(report, table=table))
        response["Content-Disposition"] = (
            f'attachment; filename="report-{table}-{start:%Y%m%d}-{end:%Y%m%d}.csv"'
        )
        return response
    return Response(reports.report_json(report))


REPORT_PARAMETERS = [
    *PERIOD_PARAMETERS,
    OpenApiParameter(
        "format",
        str,
        enum=["json", "csv"],
        description="json (default): both tables; csv: one table (see `table`). Any other "
        "value is 406, as is an Accept header asking only for other types",
    ),
    OpenApiParameter(
        "table",
        str,
        enum=list(reports.TABLES),
        description="Which table a CSV holds: totals (per day, operator and currency; the "
        "default) or players (per player and day)",
    ),
]
REPORT_RESPONSES = {
    200: OpenApiResponse(
        ReportOutput,
        description="JSON with both tables, or one table as RFC 4180 CSV (?format=csv)",
    ),
    406: OpenApiResponse(
        description="Not acceptable: a `format` other than json or csv, or an Accept header "
        "asking only for another type"
    ),
}


class OperatorReportView(APIView):
    """The operator's own report: its games, its players (by their external_ref)."""

    permission_classes = (IsOperator,)
    renderer_classes = (JSONRenderer, CSVRenderer)

    @extend_schema(
        parameters=REPORT_PARAMETERS,
        responses=REPORT_RESPONSES,
        tags=["reports"],
        summary="Download the operator's daily report",
        description="Turnover, fees, payouts and bonus points per UTC day and currency, and "
        "each player's stakes, payouts and net, for a period: JSON, or one table as CSV. The "
        "same cut-off always gives the same report.",
    )
    def get(self, request: Request) -> Response:
        return _report_response(request, operator_principal(request).operator)


class StaffReportView(APIView):
    permission_classes = (IsStaff, HasStaffPermission("platform.view_reports"))  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only
    renderer_classes = (JSONRenderer, CSVRenderer)

    @extend_schema(
        parameters=[
            *REPORT_PARAMETERS,
            OpenApiParameter("operator", str, description="Operator slug; all when omitted"),
            OpenApiParameter(
                "mode",
                str,
                enum=list(reports.MODES),
                description="Without `operator`: live (the default) covers the live "
                "operators only, test the sandboxes only; test money is never in live totals",
            ),
        ],
        responses=REPORT_RESPONSES,
        tags=["backoffice"],
        summary="Download the daily report of every operator",
        description="The daily report (as operators get theirs) for one operator by slug, or "
        "for all live operators (or, with mode=test, all sandboxes); every row says its mode; "
        "back office.",
    )
    def get(self, request: Request) -> Response:
        mode = reports.parse_mode(request.query_params.get("mode"))
        operator = staff_operator(request)
        return _report_response(request, operator, mode)


def staff_operator(request: Request) -> Operator | None:
    """The operator a staff report is for: ``?operator=<slug>`` (400 when not a slug, 404
    when unknown), in the staff user's scope; None: every operator."""
    slug = request.query_params.get("operator")
    operator = None
    if slug:
        if not SLUG_SHAPE.fullmatch(slug):
            raise ValidationProblem(
                gettext("One or more fields are invalid"), errors={"operator": ["not a slug"]}
            )
        operator = platform_selectors.operator_get_by_slug(slug=slug)
    return in_staff_scope(request, operator)


def in_staff_scope(request: Request, operator: Operator | None) -> Operator | None:
    """A staff user limited to some operators (docs/backoffice.md) gets theirs only: another
    operator is a 404, and without ``operator`` the one they may see (several: name one)."""
    scope = operator_scope(request.user)
    if scope is None:
        return operator
    if operator is not None:
        if operator.pk not in scope:
            raise NotFoundProblem(f"No operator {operator.slug!r}")
        return operator
    if len(scope) == 1:
        return platform_selectors.operator_get(operator_id=next(iter(scope)))
    raise ValidationProblem(
        gettext("One or more fields are invalid"),
        errors={"operator": ["required: your access is limited to some operators"]},
    )


RECONCILIATION_RUN = OpenApiExample(
    "all good",
    value={
        "id": 318,
        "started_at": "2026-11-29T16:50:16.291769Z",
        "ok": True,
        "accounts_checked": 1742,
        "transactions_checked": 98114,
        "unsettled_games": 0,
        "report": {
            "lines": [
                "reconciliation at 2026-11-29T16:50:16.277831+00:00: 1742 accounts, 98114 "
                "transactions, 196230 entries",
                "OK: the ledger reconciles",
            ]
        },
    },
    response_only=True,
    status_codes=["201"],
)


class StaffReconciliationView(GenericAPIView):
    permission_classes = (  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only
        IsStaff,
        HasStaffPermission(
            "settlement.view_reconciliationrun",
            POST="settlement.add_reconciliationrun",
            all_operators=("GET", "POST"),
        ),
    )
    serializer_class = ReconciliationRunOutput

    class Pagination(CheckedCursorPagination):
        ordering = ("-started_at", "-pk")
        page_size = 20

    pagination_class = Pagination

    @extend_schema(
        responses=ReconciliationRunOutput(many=True),
        tags=["backoffice"],
        summary="List reconciliation runs",
        description="Every recorded reconciliation run, newest first: ledger checks, "
        "statements against the ledger, games still waiting for settlement.",
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(selectors.reconciliation_runs())
        return self.get_paginated_response(ReconciliationRunOutput(page, many=True).data)

    @extend_schema(
        request=None,
        responses={201: ReconciliationRunOutput},
        tags=["backoffice"],
        summary="Run a reconciliation now",
        description="Check the ledger (balances, zero-sum transactions), every statement "
        "against its ledger transaction and the games waiting over an hour for settlement, "
        "and record the run (as the periodic job does). No body.",
        examples=[RECONCILIATION_RUN],
    )
    def post(self, request: Request) -> Response:
        validated(NoBody, request.data)
        run = services.reconciliation_run()
        return Response(ReconciliationRunOutput(run).data, status=201)

"""The network statement over the API (docs/network.md "Settling the network"): an
operator reads its own; staff with the reports permission read any member's, or all of
them with the network's own row. JSON, or CSV with ``?format=csv`` (thin: parse, call,
render)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.http.permissions import HasStaffPermission, IsOperator, IsStaff
from gin_platform.http.problems import NotFoundProblem
from gin_platform.http.renderers import CSVRenderer
from gin_platform.models import Operator
from gin_platform.tenancy import selectors as platform_selectors
from gin_platform.tenancy.principals import operator_principal
from settlement import network, reports, selectors
from settlement.api.serializers import NetworkStatementOutput
from settlement.api.views import PERIOD_PARAMETERS, staff_operator

FORMAT_PARAMETER = OpenApiParameter(
    "format", str, enum=["json", "csv"], description="json (default) or csv (RFC 4180)"
)
RESPONSES = {
    200: OpenApiResponse(NetworkStatementOutput, description="JSON, or CSV (?format=csv)"),
    404: OpenApiResponse(description="No network, or no such operator in your scope"),
}


def _respond(request: Request, *, operators: list[Operator], include_network: bool) -> Response:
    network_row = platform_selectors.network_get()
    if network_row is None:
        raise NotFoundProblem("There is no network")
    params = request.query_params
    start, end = reports.parse_period(params.get("from"), params.get("to"))
    statement = network.network_statement(
        network=network_row.operator,
        operators=operators,
        start=start,
        end=end,
        currency=params.get("currency"),
        include_network=include_network,
    )
    if request.accepted_renderer.format == "csv":
        response = Response(network.statement_csv(statement))
        response["Content-Disposition"] = (
            f'attachment; filename="network-statement-{start:%Y%m%d}-{end:%Y%m%d}.csv"'
        )
        return response
    return Response(NetworkStatementOutput(network.statement_json(statement)).data)


class OperatorNetworkStatementView(APIView):
    permission_classes = (IsOperator,)
    renderer_classes = (JSONRenderer, CSVRenderer)

    @extend_schema(
        parameters=[*PERIOD_PARAMETERS, FORMAT_PARAMETER],
        responses=RESPONSES,
        tags=["reports"],
        summary="Download the operator's network statement",
        description="Per UTC day and currency: the network games your players had a stake "
        "in, their turnover and payouts, your share of the fees, and your network position "
        "(positive: you owe the network; negative: it owes you). From the ledger; the same "
        "period always gives the same statement.",
    )
    def get(self, request: Request) -> Response:
        return _respond(
            request, operators=[operator_principal(request).operator], include_network=False
        )


class StaffNetworkStatementView(APIView):
    permission_classes = (IsStaff, HasStaffPermission("platform.view_reports"))  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only
    renderer_classes = (JSONRenderer, CSVRenderer)

    @extend_schema(
        parameters=[
            *PERIOD_PARAMETERS,
            FORMAT_PARAMETER,
            OpenApiParameter("operator", str, description="Operator slug; all when omitted"),
        ],
        responses=RESPONSES,
        tags=["backoffice"],
        summary="Download the network statement",
        description="The network statement of one member operator (by slug), or of every "
        "operator with a network position plus the network's own row; back office.",
    )
    def get(self, request: Request) -> Response:
        operator = staff_operator(request)
        if operator is not None:
            return _respond(request, operators=[operator], include_network=False)
        return _respond(
            request, operators=selectors.network_member_operators(), include_network=True
        )

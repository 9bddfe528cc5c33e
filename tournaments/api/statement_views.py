"""A player's statement of one tournament (docs/tournaments.md "Statements"): every line of
their money in it (entries, refunds, prizes, tickets) with its reference and time, and the
totals, as JSON or as CSV (``?format=csv`` or ``Accept: text/csv``, as a player's history
offers). The player reads their own; their operator reads its player's, and only its own
players' (another operator's player, at a network tournament too, is 404). Thin views:
parse, one selector, render."""

from __future__ import annotations

import csv
import io

from django.http import HttpResponse, HttpResponseBase
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.admin.changelist import safe_cell  # the admin's CSV rule, as the history's
from gin_platform.http.permissions import IsOperator, IsPlayer
from gin_platform.http.renderers import CSV_CONTENT_TYPE, CSVRenderer
from gin_platform.tenancy import selectors as tenancy
from gin_platform.tenancy.principals import operator_principal, player_principal
from tournaments import selectors
from tournaments.api import examples, presenters
from tournaments.api.serializers import EntryStatementOutput
from tournaments.selectors import EntryStatement

FORMAT = OpenApiParameter(
    "format",
    str,
    enum=["json", "csv"],
    description="json (the default), or csv: the lines as RFC 4180 text (also "
    "`Accept: text/csv`). Any other value is 406",
)
RESPONSES = {
    200: OpenApiResponse(EntryStatementOutput, description="JSON, or CSV (?format=csv)"),
    406: OpenApiResponse(
        description="Not acceptable: a `format` other than json or csv, or an Accept header "
        "asking only for another type"
    ),
}
STATEMENT = (
    "Every line of the player's money in this tournament, oldest first: the entry (money or "
    "ticket), a refund, prizes, a ticket won in a satellite to it, the legs of a conversion "
    "to their wallet's currency; each with what it was, its signed amount, the ledger "
    "reference and time. Totals in the tournament's currency: paid in, paid out, net. Only "
    "the player's own lines; 404 when they never entered it. "
)


def _answer(request: Request, statement: EntryStatement) -> HttpResponseBase:
    if request.accepted_renderer.format != "csv":
        return Response(EntryStatementOutput(presenters.statement_dict(statement)).data)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(presenters.STATEMENT_COLUMNS)
    for row in presenters.statement_csv_rows(statement):
        writer.writerow([safe_cell(row[column]) for column in presenters.STATEMENT_COLUMNS])
    response = HttpResponse(text.getvalue(), content_type=CSV_CONTENT_TYPE)
    name = f"tournament-{statement.entry.tournament_id}-statement.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


class MyTournamentStatementView(APIView):
    permission_classes = (IsPlayer,)
    renderer_classes = (JSONRenderer, CSVRenderer)

    @extend_schema(
        parameters=[FORMAT],
        responses=RESPONSES,
        tags=["me"],
        operation_id="me_tournament_statement_retrieve",
        summary="Show my statement of a tournament",
        description=STATEMENT,
        examples=examples.STATEMENT_RESPONSE,
    )
    def get(self, request: Request, tournament_id: str) -> HttpResponseBase:
        player = player_principal(request).player
        tournament = selectors.tournament_get(operator=player.operator, tournament_id=tournament_id)
        entry = selectors.player_entry(player=player, tournament=tournament)
        return _answer(request, selectors.entry_statement(entry=entry))


class TournamentEntryStatementView(APIView):
    permission_classes = (IsOperator,)
    renderer_classes = (JSONRenderer, CSVRenderer)

    @extend_schema(
        parameters=[FORMAT],
        responses=RESPONSES,
        tags=["tournaments"],
        operation_id="tournaments_entries_statement",
        summary="Show your player's statement of a tournament",
        description=STATEMENT + "What the player reads themselves; your own players only "
        "(another operator's player at a network tournament is 404).",
        examples=examples.STATEMENT_RESPONSE,
    )
    def get(self, request: Request, tournament_id: str, player_id: str) -> HttpResponseBase:
        operator = operator_principal(request).operator
        tournament = selectors.tournament_get(operator=operator, tournament_id=tournament_id)
        player = tenancy.player_get(operator=operator, player_id=player_id)
        entry = selectors.player_entry(player=player, tournament=tournament)
        return _answer(request, selectors.entry_statement(entry=entry))

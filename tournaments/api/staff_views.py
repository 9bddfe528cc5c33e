"""Staff's tournaments over the staff API (docs/backoffice.md "Four-eyes approval",
docs/tournaments.md "Staff"): a network tournament proposed, any tournament's cancellation
proposed, the requests listed, approved or rejected by another staff member. Thin views:
parse, one service or selector, render.

Reading needs ``tournaments.view_tournamentrequest``; who may propose or decide which kind
is the four-eyes service's check (``tournaments.propose_<kind>``, ``.approve_<kind>``).
Every write puts money at risk (an overlay, refunds), so a role that logs in with a second
factor must have passed it (a verified session, or ``X-OTP`` with HTTP Basic). A staff user
limited to some operators sees their operators' tournaments and requests only (others 404);
a network tournament's are an unscoped user's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api.inputs import validated
from gin_platform.http.pagination import CheckedCursorPagination
from gin_platform.http.permissions import HasStaffPermission, IsStaff
from gin_platform.staff.scope import operator_scope
from tournaments import selectors
from tournaments.api import examples, presenters
from tournaments.api.serializers import (
    StaffCancelInput,
    StaffTournamentCreateInput,
    TournamentRequestDecisionInput,
    TournamentRequestFilterInput,
    TournamentRequestOutput,
)
from tournaments.models import TournamentRequest
from tournaments.services.creation import TournamentOptions
from tournaments.services.staff import (
    network_tournament_propose,
    tournament_cancel_propose,
    tournament_request_approve,
    tournament_request_reject,
)
from wallet.amounts import parse_currency, parse_money

TAGS = ["tournaments-staff"]
REQUESTS = (
    IsStaff,
    HasStaffPermission("tournaments.view_tournamentrequest", money=("POST",)),
)


def _answer(row: TournamentRequest, code: int = status.HTTP_200_OK) -> Response:
    return Response(TournamentRequestOutput(presenters.tournament_request_dict(row)).data, code)


class StaffTournamentRequestListView(GenericAPIView):
    permission_classes = REQUESTS  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only
    serializer_class = TournamentRequestOutput

    class Pagination(CheckedCursorPagination):
        ordering = ("-proposed_at", "-pk")
        page_size = 50

    pagination_class = Pagination

    @extend_schema(
        parameters=[TournamentRequestFilterInput],
        responses=TournamentRequestOutput(many=True),
        tags=TAGS,
        summary="List tournament requests",
        description="Staff's four-eyes requests on tournaments (a network tournament to "
        "create, a tournament to cancel) of the operators in the caller's scope, newest "
        "first, optionally of one status (`pending`: those waiting for a second person) and "
        "kind.",
    )
    def get(self, request: Request) -> Response:
        values = validated(TournamentRequestFilterInput, request.query_params)
        rows = selectors.tournament_request_list(
            operator_ids=operator_scope(request.user),
            status=values.get("status"),
            kind=values.get("kind"),
        )
        page = self.paginate_queryset(rows)
        assert page is not None  # None only for a view without a paginator
        body = [presenters.tournament_request_dict(row) for row in page]
        return self.get_paginated_response(TournamentRequestOutput(body, many=True).data)


class StaffTournamentCreateView(APIView):
    permission_classes = REQUESTS  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only

    @extend_schema(
        request=StaffTournamentCreateInput,
        responses={201: TournamentRequestOutput},
        tags=TAGS,
        summary="Propose a network tournament",
        description="A four-eyes request (tournaments.propose_create; unscoped staff): a "
        "tournament owned by the network, open to every member operator's players, with the "
        "options an operator's POST /tournaments takes and a `reason`. Checked now as "
        "creation checks it (422 tournament-options-invalid, invalid-room-options); created "
        "only when another staff member approves it. Every staff creation goes through four "
        "eyes, with a guarantee or without.",
        examples=examples.STAFF_CREATE,
    )
    def post(self, request: Request) -> Response:
        data = validated(StaffTournamentCreateInput, request.data)
        reason = data.pop("reason")
        currency = parse_currency(data.pop("currency"))
        for name in ("buy_in", "entry_fee", "guaranteed"):
            data[name] = parse_money(data[name], currency, field=name)
        row = network_tournament_propose(
            options=TournamentOptions(currency=currency, **data), reason=reason, user=request.user
        )
        return _answer(row, status.HTTP_201_CREATED)


class StaffTournamentCancelView(APIView):
    permission_classes = REQUESTS  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only

    @extend_schema(
        request=StaffCancelInput,
        responses={201: TournamentRequestOutput},
        tags=TAGS,
        summary="Propose cancelling a tournament",
        description="A four-eyes request (tournaments.propose_cancel) to cancel any "
        "tournament in the caller's scope (a network tournament: unscoped staff) that has "
        "not ended (409 tournament-ended); one pending per tournament. When another staff "
        "member approves it the tournament is cancelled as R14 says: before any result every "
        "entry refunded; after one, the players still in share what is left of the prize "
        "pool; the matches still open are voided.",
        examples=examples.STAFF_CANCEL,
    )
    def post(self, request: Request, tournament_id: str) -> Response:
        tournament = selectors.staff_tournament_get(
            tournament_id=tournament_id, operator_ids=operator_scope(request.user)
        )
        values = validated(StaffCancelInput, request.data)
        row = tournament_cancel_propose(
            tournament=tournament, reason=values["reason"], user=request.user
        )
        return _answer(row, status.HTTP_201_CREATED)


class StaffTournamentRequestDetailView(APIView):
    permission_classes = REQUESTS  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only

    @extend_schema(
        responses=TournamentRequestOutput,
        tags=TAGS,
        summary="Show a tournament request",
        description="One four-eyes request: what it proposes, who proposed and decided it, "
        "and what its execution made (tournament:<id>) or why it failed.",
    )
    def get(self, request: Request, request_id: str) -> Response:
        row = selectors.tournament_request_get(
            request_id=request_id, operator_ids=operator_scope(request.user)
        )
        return _answer(row)


class _DecisionView(APIView):
    permission_classes = REQUESTS  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only
    decide: Callable[..., Any] = staticmethod(tournament_request_approve)

    def post(self, request: Request, request_id: str) -> Response:
        row = selectors.tournament_request_get(
            request_id=request_id, operator_ids=operator_scope(request.user)
        )
        values = validated(TournamentRequestDecisionInput, request.data)
        decided = self.decide(tournament_request=row, user=request.user, note=values["note"])
        return _answer(decided)


class StaffTournamentRequestApproveView(_DecisionView):
    decide = staticmethod(tournament_request_approve)

    @extend_schema(
        request=TournamentRequestDecisionInput,
        responses=TournamentRequestOutput,
        tags=TAGS,
        summary="Approve and execute a tournament request",
        description="tournaments.approve_<kind>, never the proposer (403 "
        "four-eyes-required). Runs the action (the tournament created, or cancelled) and "
        "marks the request executed, in one transaction: two approvers racing execute it "
        "once; approving an executed request again returns it unchanged. An action refused "
        "(the options no longer valid, the tournament ended meanwhile) marks it failed and "
        "answers its problem.",
        examples=examples.STAFF_APPROVED,
    )
    def post(self, request: Request, request_id: str) -> Response:
        return super().post(request, request_id)


class StaffTournamentRequestRejectView(_DecisionView):
    decide = staticmethod(tournament_request_reject)

    @extend_schema(
        request=TournamentRequestDecisionInput,
        responses=TournamentRequestOutput,
        tags=TAGS,
        summary="Reject a tournament request",
        description="Close a pending request without running it, with a note; never by its "
        "proposer (403 four-eyes-required).",
        examples=examples.STAFF_REJECTED,
    )
    def post(self, request: Request, request_id: str) -> Response:
        return super().post(request, request_id)

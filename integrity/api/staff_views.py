"""Integrity's endpoints for the risk team (docs/integrity.md "Cases"; the staff API's
conventions: docs/backoffice.md). Thin views: parse, call one service or selector, render.

Each endpoint names the permission it needs (``integrity.view_case`` to read,
``integrity.work_case`` to group, note, act and close; a confiscation's proposal and
decisions are the four-eyes service's checks). A staff user limited to some operators sees
the cases about their players, every other operator's player masked.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api.inputs import NoBody, validated
from gin_platform.http.pagination import CheckedCursorPagination
from gin_platform.http.permissions import HasStaffPermission, IsStaff
from gin_platform.staff.scope import operator_scope
from integrity import selectors, services
from integrity.api import examples, presenters
from integrity.api.serializers import (
    AlertDismissInput,
    AlertFilterInput,
    AlertOutput,
    CaseActionInput,
    CaseAlertsInput,
    CaseCloseInput,
    CaseFilterInput,
    CaseNoteInput,
    CaseOpenInput,
    CaseOutput,
    CaseSummaryOutput,
    ConfiscationDecisionInput,
    ConfiscationInput,
    ConfiscationOutput,
)
from integrity.problems import CaseActionInvalidProblem
from wallet.amounts import parse_amount, parse_currency

TAGS = ["integrity-staff"]
READ = (IsStaff, HasStaffPermission("integrity.view_case", POST="integrity.work_case"))
# Who may propose or decide a confiscation is the four-eyes service's check; it moves money,
# so a role that logs in with a second factor must have passed it (docs/backoffice.md).
CONFISCATE = (IsStaff, HasStaffPermission("integrity.view_case", money=("POST",)))


class NewestFirst(CheckedCursorPagination):
    ordering = ("-created_at", "-pk")
    page_size = 50


def _case(request: Request, case_id: str) -> Any:
    return selectors.case_get(case_id=case_id, operator_ids=operator_scope(request.user))


def _case_answer(request: Request, case: Any, code: int = status.HTTP_200_OK) -> Response:
    fresh = _case(request, str(case.pk))
    return Response(CaseOutput(presenters.case(fresh, user=request.user)).data, status=code)


class StaffAlertListView(GenericAPIView):
    permission_classes = (IsStaff, HasStaffPermission("integrity.view_alert"))  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only
    serializer_class = AlertOutput
    pagination_class = NewestFirst

    @extend_schema(
        parameters=[AlertFilterInput],
        responses=AlertOutput(many=True),
        tags=TAGS,
        summary="List integrity alerts",
        description="Detection's alerts and players' reports about players in the caller's "
        "scope, newest first, optionally of one status (open, in_case, dismissed), each with "
        "its score, threshold and reasoning.",
    )
    def get(self, request: Request) -> Response:
        values = validated(AlertFilterInput, request.query_params)
        rows = selectors.alert_list(
            operator_ids=operator_scope(request.user), status=values.get("status")
        )
        page = self.paginate_queryset(rows)
        assert page is not None  # None only for a view without a paginator
        body = [presenters.alert(row, user=request.user) for row in page]
        return self.get_paginated_response(AlertOutput(body, many=True).data)


class StaffAlertDismissView(APIView):
    permission_classes = (IsStaff, HasStaffPermission("integrity.change_alert"))  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only

    @extend_schema(
        request=AlertDismissInput,
        responses=AlertOutput,
        tags=TAGS,
        summary="Dismiss an alert",
        description="A false positive: an open alert in no case is dismissed (with the "
        "reason, audited) and joins no case.",
        examples=examples.ALERT_DISMISS,
    )
    def post(self, request: Request, alert_id: str) -> Response:
        (alert,) = selectors.alerts_get(
            alert_ids=[alert_id], operator_ids=operator_scope(request.user)
        )
        values = validated(AlertDismissInput, request.data)
        row = services.alert_dismiss(alert=alert, reason=values["reason"], user=request.user)
        return Response(AlertOutput(presenters.alert(row, user=request.user)).data)


class StaffAlertGroupView(APIView):
    permission_classes = (IsStaff, HasStaffPermission("integrity.work_case"))  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only

    @extend_schema(
        request=None,
        responses=inline_serializer("AlertsGrouped", {"grouped": serializers.IntegerField()}),
        tags=TAGS,
        summary="Group the open alerts into cases now",
        examples=examples.ALERTS_GROUPED,
        description="What the periodic job does: each open alert not in a case joins the "
        "oldest open case already about all of its players, or opens a new one.",
    )
    def post(self, request: Request) -> Response:
        validated(NoBody, request.data)
        return Response({"grouped": services.alerts_group()})


class StaffCaseListCreateView(GenericAPIView):
    permission_classes = READ  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only
    serializer_class = CaseSummaryOutput
    pagination_class = NewestFirst

    @extend_schema(
        parameters=[CaseFilterInput],
        responses=CaseSummaryOutput(many=True),
        tags=TAGS,
        summary="List cases",
        description="Cases about players in the caller's scope, newest first.",
    )
    def get(self, request: Request) -> Response:
        values = validated(CaseFilterInput, request.query_params)
        rows = selectors.case_list(
            operator_ids=operator_scope(request.user), status=values.get("status")
        )
        page = self.paginate_queryset(rows)
        assert page is not None  # None only for a view without a paginator
        body = [presenters.case_summary(row) for row in page]
        return self.get_paginated_response(CaseSummaryOutput(body, many=True).data)

    @extend_schema(
        request=CaseOpenInput,
        responses={201: CaseOutput},
        tags=TAGS,
        summary="Open a case by hand",
        examples=examples.CASE_OPEN,
        description="Open a case from alerts (none of them in another case).",
    )
    def post(self, request: Request) -> Response:
        values = validated(CaseOpenInput, request.data)
        alerts = selectors.alerts_get(
            alert_ids=values["alert_ids"], operator_ids=operator_scope(request.user)
        )
        case = services.case_open_by_staff(alerts=alerts, title=values["title"], user=request.user)
        return _case_answer(request, case, status.HTTP_201_CREATED)


class StaffCaseDetailView(APIView):
    permission_classes = READ  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only

    @extend_schema(
        responses=CaseOutput,
        tags=TAGS,
        summary="Show a case with its evidence",
        description="The case, its players, alerts (with their reasoning), notes, actions, "
        "sanctions and confiscations, and the evidence per pair: the money flow between "
        "them game by game and each hand they played, with its replay URL.",
    )
    def get(self, request: Request, case_id: str) -> Response:
        return _case_answer(request, _case(request, case_id))


class StaffCaseAlertsView(APIView):
    permission_classes = READ  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only

    @extend_schema(
        request=CaseAlertsInput,
        responses=CaseOutput,
        tags=TAGS,
        summary="Add alerts to a case",
        examples=examples.CASE_ALERTS,
        description="Group alerts into this open case by hand.",
    )
    def post(self, request: Request, case_id: str) -> Response:
        case = _case(request, case_id)
        values = validated(CaseAlertsInput, request.data)
        alerts = selectors.alerts_get(
            alert_ids=values["alert_ids"], operator_ids=operator_scope(request.user)
        )
        services.case_alerts_add(case=case, alerts=alerts, user=request.user)
        return _case_answer(request, case)


class StaffCaseNoteView(APIView):
    permission_classes = READ  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only

    @extend_schema(
        request=CaseNoteInput,
        responses={201: CaseOutput},
        tags=TAGS,
        summary="Add a note to a case",
        examples=examples.CASE_NOTE,
        description="Notes are kept for the risk team only.",
    )
    def post(self, request: Request, case_id: str) -> Response:
        case = _case(request, case_id)
        values = validated(CaseNoteInput, request.data)
        services.case_note_add(case=case, text=values["text"], user=request.user)
        return _case_answer(request, case, status.HTTP_201_CREATED)


class StaffCaseActionView(APIView):
    permission_classes = READ  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only

    @extend_schema(
        request=CaseActionInput,
        responses={201: CaseOutput},
        tags=TAGS,
        summary="Act on a case's player",
        examples=examples.CASE_ACTION,
        description="warn (the player's operator is told), suspend (the player sits at no "
        "table until lifted), lift_suspension, block_pairing (with other_player_id: the two "
        "are never seated together again), ban (no table; at network tables not their other "
        "accounts either; every network member is told, the player masked). Each is audited "
        "and sent to the operators concerned as integrity.case_action.",
    )
    def post(self, request: Request, case_id: str) -> Response:
        case = _case(request, case_id)
        values = validated(CaseActionInput, request.data)
        services.case_action_take(
            case=case,
            kind=values["kind"],
            player_id=values["player_id"],
            other_player_id=values.get("other_player_id"),
            reason=values["reason"],
            user=request.user,
        )
        return _case_answer(request, case, status.HTTP_201_CREATED)


class StaffCaseCloseView(APIView):
    permission_classes = READ  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only

    @extend_schema(
        request=CaseCloseInput,
        responses=CaseOutput,
        tags=TAGS,
        summary="Close a case",
        examples=examples.CASE_CLOSE,
        description="Close with a resolution (kept for the risk team); the operators "
        "concerned get integrity.case_closed with the actions taken, the reporters' reports "
        "are closed.",
    )
    def post(self, request: Request, case_id: str) -> Response:
        case = _case(request, case_id)
        values = validated(CaseCloseInput, request.data)
        services.case_close(case=case, resolution=values["resolution"], user=request.user)
        return _case_answer(request, case)


class StaffCaseHandView(APIView):
    permission_classes = (IsStaff, HasStaffPermission("integrity.view_case"))  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only

    @extend_schema(
        responses=OpenApiTypes.OBJECT,
        tags=TAGS,
        summary="Replay a hand of a case",
        description="A finished hand the case's players played together: the fairness "
        "replay (the deck re-derived from the revealed seed, checked against the commitment "
        "and the cards dealt) and both final hands. 409 while the hand is played.",
    )
    def get(self, request: Request, case_id: str, match_id: str, number: str) -> Response:
        case = _case(request, case_id)
        if selectors.case_match_id(case, match_id) is None:
            raise CaseActionInvalidProblem(
                "the case's players did not play this match together", field="match_id"
            )
        return Response(selectors.hand_replay(match_id=match_id, number=number))


# --- Confiscation (four eyes) -------------------------------------------------------------------
class StaffConfiscationCreateView(APIView):
    permission_classes = CONFISCATE  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only

    @extend_schema(
        request=ConfiscationInput,
        responses={201: ConfiscationOutput},
        tags=TAGS,
        summary="Propose confiscating the colluder's winnings",
        examples=examples.CONFISCATION_PROPOSE,
        description="A four-eyes request (integrity.propose_confiscation): what each victim "
        "gets from the colluder, decimal strings in one currency; all of them players of "
        "the case. Another risk user approves it (then it is posted: one ledger transaction "
        "per case) or rejects it.",
    )
    def post(self, request: Request, case_id: str) -> Response:
        case = _case(request, case_id)
        values = validated(ConfiscationInput, request.data)
        code = parse_currency(values["currency"])
        refunds = [
            (row["player_id"], parse_amount(row["amount"], code, field="refunds"))
            for row in values["refunds"]
        ]
        row = services.confiscation_propose(
            case=case,
            colluder_id=values["colluder_id"],
            refunds=refunds,
            currency=code,
            reason=values["reason"],
            user=request.user,
        )
        return Response(
            ConfiscationOutput(presenters.confiscation(row, user=request.user)).data,
            status=status.HTTP_201_CREATED,
        )


class StaffConfiscationDetailView(APIView):
    permission_classes = CONFISCATE  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only

    @extend_schema(
        responses=ConfiscationOutput,
        tags=TAGS,
        summary="Show a confiscation",
        description="The request, who proposed and decided it, and what it posted.",
    )
    def get(self, request: Request, confiscation_id: str) -> Response:
        row = selectors.confiscation_get(
            confiscation_id=confiscation_id, operator_ids=operator_scope(request.user)
        )
        return Response(ConfiscationOutput(presenters.confiscation(row, user=request.user)).data)


class _ConfiscationDecisionView(APIView):
    permission_classes = CONFISCATE  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only
    decide = staticmethod(services.confiscation_approve)

    def post(self, request: Request, confiscation_id: str) -> Response:
        row = selectors.confiscation_get(
            confiscation_id=confiscation_id, operator_ids=operator_scope(request.user)
        )
        values = validated(ConfiscationDecisionInput, request.data)
        decided = self.decide(confiscation=row, user=request.user, note=values["note"])
        return Response(
            ConfiscationOutput(presenters.confiscation(decided, user=request.user)).data
        )


class StaffConfiscationApproveView(_ConfiscationDecisionView):
    decide = staticmethod(services.confiscation_approve)

    @extend_schema(
        request=ConfiscationDecisionInput,
        responses=ConfiscationOutput,
        tags=TAGS,
        summary="Approve and post a confiscation",
        examples=examples.CONFISCATION_APPROVED,
        description="integrity.approve_confiscation, never the proposer (403 "
        "four-eyes-required). Posts the one ledger transaction of the case and marks the "
        "request executed, together: two approvers racing post it once; approving an "
        "executed request again returns it unchanged. A posting the ledger refuses marks "
        "it failed and answers its problem.",
    )
    def post(self, request: Request, confiscation_id: str) -> Response:
        return super().post(request, confiscation_id)


class StaffConfiscationRejectView(_ConfiscationDecisionView):
    decide = staticmethod(services.confiscation_reject)

    @extend_schema(
        request=ConfiscationDecisionInput,
        responses=ConfiscationOutput,
        tags=TAGS,
        summary="Reject a confiscation",
        examples=examples.CONFISCATION_REJECTED,
        description="Close a pending request without posting it; never by its proposer.",
    )
    def post(self, request: Request, confiscation_id: str) -> Response:
        return super().post(request, confiscation_id)

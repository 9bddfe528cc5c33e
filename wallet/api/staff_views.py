"""Wallet endpoints for back-office staff: exchange rates, cashier caps, ledger
transactions, reversals and adjustments through four-eyes approvals, reconciliation. Thin
views, as in ``views``.

Each endpoint names the permission it needs (``HasStaffPermission``: a role's, never
``is_staff`` alone; docs/backoffice.md), answers 404 for an operator outside the staff
user's scope, and the ones that move money want a verified second factor (``money``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api.inputs import validated
from gin_platform.http.pagination import CheckedCursorPagination
from gin_platform.http.permissions import HasStaffPermission, IsStaff
from gin_platform.http.problems import NotFoundProblem
from gin_platform.staff.scope import in_scope, operator_scope
from gin_platform.tenancy import selectors as platform_selectors
from gin_platform.tenancy.principals import actor_for
from wallet import services
from wallet.amounts import parse_amount, parse_currency
from wallet.api import approval_examples, examples, presenters
from wallet.api.serializers import (
    ApprovalDecisionInput,
    ApprovalFilterInput,
    ApprovalInput,
    ApprovalOutput,
    CashierCapsInput,
    CashierCapsOutput,
    ExchangeRateFilterInput,
    ExchangeRateInput,
    ExchangeRateOutput,
    LedgerTransactionOutput,
    ReconciliationOutput,
    ReversalInput,
)
from wallet.models import CashierCaps
from wallet.selectors import approvals, limits, rates, reconciliation, transactions

if TYPE_CHECKING:
    from gin_platform.models import Operator

View = TypeVar("View", bound=Callable[..., Any])


def scoped_operator(request: Request, operator_id: object) -> Operator:
    """The operator, or 404 when it is outside the staff user's scope (as if unknown)."""
    operator = platform_selectors.operator_get(operator_id=operator_id)
    if not in_scope(request.user, operator.pk):
        raise NotFoundProblem(f"No operator {operator_id}")
    return operator


def scoped_transaction(request: Request, transaction_id: str):
    txn = transactions.transaction_get(transaction_id=transaction_id)
    if not in_scope(request.user, txn.operator_id):
        raise NotFoundProblem(f"No ledger transaction {transaction_id}")
    return txn


# The second factor over HTTP Basic (docs/backoffice.md); a verified session needs none.
X_OTP = OpenApiParameter(
    "X-OTP",
    {"type": "string", "pattern": "^[0-9]{6,8}$"},  # a TOTP code: 6 (or 8) digits
    location=OpenApiParameter.HEADER,
    required=False,
    description="The current TOTP code, for finance and admin roles and superusers using "
    "HTTP Basic (a session that passed the code at login needs none); without it 403 "
    "otp-required",
)


class StaffExchangeRateListCreateView(GenericAPIView):
    # Rates are global: a staff user limited to some operators may read them, not set them.
    permission_classes = (  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only
        IsStaff,
        HasStaffPermission(
            "wallet.view_exchangerate", POST="wallet.add_exchangerate", all_operators=("POST",)
        ),
    )
    serializer_class = ExchangeRateOutput

    @extend_schema(
        parameters=[OpenApiParameter("base", str), OpenApiParameter("quote", str)],
        responses=ExchangeRateOutput(many=True),
        tags=["wallet-staff"],
        summary="List exchange rates",
        description="Recorded rates, newest first, optionally for one base or quote currency.",
    )
    def get(self, request: Request) -> Response:
        values = validated(ExchangeRateFilterInput, request.query_params)
        filters = {k: v.upper() for k, v in values.items()}
        page = self.paginate_queryset(rates.exchange_rate_list(**filters))
        assert page is not None  # None only for a view without a paginator
        body = [presenters.exchange_rate(rate) for rate in page]
        return self.get_paginated_response(ExchangeRateOutput(body, many=True).data)

    @extend_schema(
        request=ExchangeRateInput,
        responses={
            201: ExchangeRateOutput,
            200: ExchangeRateOutput,
            409: examples.EXCHANGE_RATE_CONFLICT,
        },
        tags=["wallet-staff"],
        summary="Record an exchange rate",
        examples=examples.EXCHANGE_RATE,
        description="Record 1 base = rate quote as of a time. The same (pair, as_of, source) "
        "with the same rate is 200 and changes nothing; with another rate 409.",
    )
    def post(self, request: Request) -> Response:
        values = validated(ExchangeRateInput, request.data)
        rate, created = services.exchange_rate_record(**values, actor=actor_for(request.user))
        return Response(
            ExchangeRateOutput(presenters.exchange_rate(rate)).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class StaffCashierCapsView(APIView):
    permission_classes = (  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only
        IsStaff,
        HasStaffPermission("wallet.view_cashiercaps", PUT="wallet.change_cashiercaps"),
    )

    @extend_schema(
        responses=CashierCapsOutput,
        tags=["wallet-staff"],
        summary="Show an operator's cashier caps",
        description="The operator's caps for one currency; 404 when none are set.",
    )
    def get(self, request: Request, operator_id: str, currency: str) -> Response:
        operator = scoped_operator(request, operator_id)
        caps = limits.cashier_caps_get(operator=operator, currency=parse_currency(currency))
        if caps is None:
            raise NotFoundProblem(f"No cashier caps for {currency.upper()}")
        return Response(CashierCapsOutput(presenters.cashier_caps(caps)).data)

    @extend_schema(
        request=CashierCapsInput,
        responses={
            200: CashierCapsOutput,
            201: ApprovalOutput,
            422: examples.CASHIER_CAPS_REFUSED,
        },
        tags=["wallet-staff"],
        summary="Set an operator's cashier caps",
        examples=[*examples.CASHIER_CAPS, approval_examples.CAPS_RAISE_PROPOSED],
        description="Replace the operator's caps for the currency; a missing or null cap "
        "means no cap. Daily, weekly and monthly caps count each player's deposits over UTC "
        "calendar windows (docs/wallet.md). Tightening (or setting the first caps) applies "
        "at once (200); loosening any cap (a maximum up or removed, a minimum down or "
        "removed) is a four-eyes proposal instead (201 with the approval request; send a "
        "`reason`), applied when another staff member approves it (docs/backoffice.md).",
    )
    def put(self, request: Request, operator_id: str, currency: str) -> Response:
        operator = scoped_operator(request, operator_id)
        code = parse_currency(currency)
        values = validated(CashierCapsInput, request.data)
        caps = {
            name: None if value is None else parse_amount(value, code, field=name, allow_zero=True)
            for name, value in values.items()
            if name in CashierCaps.FIELDS
        }
        if services.caps_are_raise(operator=operator, currency=code, caps=caps):
            proposal = services.approval_propose(
                kind="cashier_caps",
                operator=operator,
                payload={"currency": code, "caps": caps},
                reason=values.get("reason"),
                user=request.user,
            )
            return Response(
                ApprovalOutput(presenters.approval(proposal)).data,
                status=status.HTTP_201_CREATED,
            )
        row = services.cashier_caps_set(
            operator=operator, currency=code, actor=actor_for(request.user), **caps
        )
        return Response(CashierCapsOutput(presenters.cashier_caps(row)).data)


class StaffTransactionView(APIView):
    permission_classes = (IsStaff, HasStaffPermission("wallet.view_ledgertransaction"))  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only

    @extend_schema(
        responses=LedgerTransactionOutput,
        tags=["wallet-staff"],
        summary="Show a ledger transaction",
        description="Any ledger transaction with every entry, account and FX snapshot "
        "(back office).",
    )
    def get(self, request: Request, transaction_id: str) -> Response:
        txn = scoped_transaction(request, transaction_id)
        return Response(LedgerTransactionOutput(presenters.ledger_transaction(txn)).data)


class StaffTransactionReversalView(APIView):
    permission_classes = (  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only
        IsStaff,
        HasStaffPermission("wallet.propose_reversal", money=("POST",)),
    )

    @extend_schema(
        request=ReversalInput,
        responses={201: ApprovalOutput, 422: approval_examples.APPROVAL_INVALID},
        tags=["wallet-staff"],
        summary="Propose reversing a ledger transaction",
        parameters=[X_OTP],
        description="Propose posting the exact opposite of a transaction: a four-eyes "
        "approval request (201), which another staff member approves (it is then posted "
        "under `reversal:<reference>`) or rejects; the same as POST /staff/approvals with "
        "kind reversal. Ledger rows are never changed: the reversal is the correction.",
        examples=[examples.REVERSAL[0], approval_examples.REVERSAL_PROPOSED],
    )
    def post(self, request: Request, transaction_id: str) -> Response:
        original = scoped_transaction(request, transaction_id)
        values = validated(ReversalInput, request.data)
        proposal = services.approval_propose(
            kind="reversal",
            payload={"transaction_id": original.pk, "reference": values["reference"]},
            reason=values["reason"],
            user=request.user,
        )
        return Response(
            ApprovalOutput(presenters.approval(proposal)).data, status=status.HTTP_201_CREATED
        )


class StaffReconciliationView(APIView):
    permission_classes = (  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only
        IsStaff,
        HasStaffPermission("settlement.view_reconciliationrun", all_operators=("GET",)),
    )

    @extend_schema(
        responses=ReconciliationOutput,
        tags=["wallet-staff"],
        summary="Reconcile the ledger now",
        description="Check that every cached balance equals the sum of its entries and that "
        "every transaction sums to zero per currency; reads only, records nothing.",
    )
    def get(self, request: Request) -> Response:
        return Response(
            ReconciliationOutput(presenters.reconciliation(reconciliation.reconcile())).data
        )


# --- Four-eyes approvals (docs/backoffice.md) ---------------------------------------------
def _clean_payload(kind: str, payload: dict) -> dict:
    """The API's decimal strings as minor units; the service checks everything else."""
    payload = dict(payload)
    if kind == "adjustment" and isinstance(payload.get("currency"), str):
        code = parse_currency(payload["currency"])
        payload["amount"] = parse_amount(payload.get("amount"), code)
    if kind == "cashier_caps" and isinstance(payload.get("caps"), dict):
        code = parse_currency(payload.get("currency"))
        payload["caps"] = {
            name: None if value is None else parse_amount(value, code, field=name, allow_zero=True)
            for name, value in payload["caps"].items()
        }
    if kind == "net_settlement" and isinstance(payload.get("amount"), str):
        code = parse_currency(payload.get("currency"))
        raw = payload["amount"].strip()
        sign = -1 if raw.startswith("-") else 1
        payload["amount"] = sign * parse_amount(raw.lstrip("-"), code)
    return payload


APPROVAL_PERMISSIONS = (
    IsStaff,
    # Which kind may be proposed or decided is the service's check (wallet.<action>_<kind>).
    HasStaffPermission("wallet.view_approvalrequest", money=("POST",)),
)


class StaffApprovalListCreateView(GenericAPIView):
    permission_classes = APPROVAL_PERMISSIONS  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only
    serializer_class = ApprovalOutput

    class Pagination(CheckedCursorPagination):
        ordering = ("-proposed_at", "-pk")
        page_size = 50

    pagination_class = Pagination

    @extend_schema(
        parameters=[ApprovalFilterInput],
        responses=ApprovalOutput(many=True),
        tags=["wallet-staff"],
        summary="List approval requests",
        description="Four-eyes requests of the operators in the caller's scope, newest "
        "first, optionally of one status (pending, executed, rejected, failed).",
    )
    def get(self, request: Request) -> Response:
        values = validated(ApprovalFilterInput, request.query_params)
        rows = approvals.approval_list(
            operator_ids=operator_scope(request.user),
            status=values.get("status"),
        )
        page = self.paginate_queryset(rows)
        assert page is not None  # None only for a view without a paginator
        body = [presenters.approval(row) for row in page]
        return self.get_paginated_response(ApprovalOutput(body, many=True).data)

    @extend_schema(
        request=ApprovalInput,
        responses={201: ApprovalOutput, 422: approval_examples.APPROVAL_INVALID},
        tags=["wallet-staff"],
        summary="Propose a reversal, an adjustment or a cashier-cap raise",
        parameters=[X_OTP],
        description="Record a pending request that another staff member must approve "
        "(docs/backoffice.md). Needs the kind's propose permission (wallet.propose_reversal, "
        "wallet.propose_adjustment, wallet.propose_cashier_caps) and, for finance and admin "
        "roles, a verified second factor. An adjustment credits or debits the player's "
        "wallet against the operator's outside account (ledger kind adjustment).",
        examples=approval_examples.APPROVAL_PROPOSE,
    )
    def post(self, request: Request) -> Response:
        values = validated(ApprovalInput, request.data)
        kind = values["kind"]
        operator = None
        if "operator_id" in values:
            operator = scoped_operator(request, values["operator_id"])
        payload = _clean_payload(kind, values["payload"])
        if kind == "reversal":
            payload["transaction_id"] = scoped_transaction(
                request, str(payload.get("transaction_id"))
            ).pk
        proposal = services.approval_propose(
            kind=kind,
            operator=operator,
            payload=payload,
            reason=values["reason"],
            user=request.user,
        )
        return Response(
            ApprovalOutput(presenters.approval(proposal)).data, status=status.HTTP_201_CREATED
        )


class StaffApprovalDetailView(APIView):
    permission_classes = APPROVAL_PERMISSIONS  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only

    @extend_schema(
        responses=ApprovalOutput,
        tags=["wallet-staff"],
        summary="Show an approval request",
        description="One four-eyes request: its action, who proposed and who decided, and "
        "what the execution made.",
    )
    def get(self, request: Request, approval_id: str) -> Response:
        row = approvals.approval_get(
            approval_id=approval_id, operator_ids=operator_scope(request.user)
        )
        return Response(ApprovalOutput(presenters.approval(row)).data)


class _ApprovalDecisionView(APIView):
    permission_classes = APPROVAL_PERMISSIONS  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only
    decide = staticmethod(services.approval_approve)

    def post(self, request: Request, approval_id: str) -> Response:
        row = approvals.approval_get(
            approval_id=approval_id, operator_ids=operator_scope(request.user)
        )
        values = validated(ApprovalDecisionInput, request.data)
        decided = self.decide(approval=row, user=request.user, note=values["note"])
        return Response(ApprovalOutput(presenters.approval(decided)).data)


def decision_schema(*, summary: str, description: str, examples: list) -> Callable[[View], View]:
    """The OpenAPI operation of a decision view's POST: approving and rejecting take the
    same body and answer alike; each says what it does."""
    return extend_schema_view(
        post=extend_schema(
            request=ApprovalDecisionInput,
            responses={
                200: ApprovalOutput,
                403: approval_examples.FOUR_EYES_REQUIRED,
                409: approval_examples.APPROVAL_NOT_PENDING,
            },
            tags=["wallet-staff"],
            summary=summary,
            parameters=[X_OTP],
            description=description,
            examples=examples,
        )
    )


@decision_schema(
    summary="Approve and execute a request",
    description="Run the proposed action and mark the request executed, in one "
    "transaction: two approvers racing execute it once, and approving an executed "
    "request again returns it unchanged. Never by its proposer (403 four-eyes-required). "
    "An action the ledger refuses marks the request failed and answers its problem.",
    examples=approval_examples.APPROVAL_APPROVED,
)
class StaffApprovalApproveView(_ApprovalDecisionView):
    decide = staticmethod(services.approval_approve)


@decision_schema(
    summary="Reject a request",
    description="Close a pending request without running it, with a note. Never by its "
    "proposer (403 four-eyes-required).",
    examples=approval_examples.APPROVAL_REJECTED,
)
class StaffApprovalRejectView(_ApprovalDecisionView):
    decide = staticmethod(services.approval_reject)

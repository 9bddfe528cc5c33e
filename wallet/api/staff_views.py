"""Wallet endpoints for back-office staff (``IsStaff``): exchange rates, cashier caps,
ledger transactions and their reversal, reconciliation. Thin views, as in ``views``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform import selectors as platform_selectors
from gin_platform.permissions import IsStaff
from gin_platform.principals import actor_for
from gin_platform.problems import NotFoundProblem
from wallet import selectors, services
from wallet.amounts import parse_amount, parse_currency
from wallet.api import examples, presenters
from wallet.api.serializers import (
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

if TYPE_CHECKING:
    from gin_platform.models import Operator


class StaffExchangeRateListCreateView(GenericAPIView):
    permission_classes = (IsStaff,)
    serializer_class = ExchangeRateOutput

    @extend_schema(
        parameters=[OpenApiParameter("base", str), OpenApiParameter("quote", str)],
        responses=ExchangeRateOutput(many=True),
        tags=["wallet-staff"],
        summary="List exchange rates",
        description="Recorded rates, newest first, optionally for one base or quote currency.",
    )
    def get(self, request: Request) -> Response:
        data = ExchangeRateFilterInput(data=request.query_params)
        data.is_valid(raise_exception=True)
        filters = {k: v.upper() for k, v in data.validated_data.items()}
        page = self.paginate_queryset(selectors.exchange_rate_list(**filters))
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
        data = ExchangeRateInput(data=request.data)
        data.is_valid(raise_exception=True)
        rate, created = services.exchange_rate_record(
            **data.validated_data, actor=actor_for(request.user)
        )
        return Response(
            ExchangeRateOutput(presenters.exchange_rate(rate)).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class StaffCashierCapsView(APIView):
    permission_classes = (IsStaff,)

    def _operator(self, operator_id: str) -> Operator:
        return platform_selectors.operator_get(operator_id=operator_id)

    @extend_schema(
        responses=CashierCapsOutput,
        tags=["wallet-staff"],
        summary="Show an operator's cashier caps",
        description="The operator's caps for one currency; 404 when none are set.",
    )
    def get(self, request: Request, operator_id: str, currency: str) -> Response:
        operator = self._operator(operator_id)
        caps = selectors.cashier_caps_get(operator=operator, currency=parse_currency(currency))
        if caps is None:
            raise NotFoundProblem(f"No cashier caps for {currency.upper()}")
        return Response(CashierCapsOutput(presenters.cashier_caps(caps)).data)

    @extend_schema(
        request=CashierCapsInput,
        responses={200: CashierCapsOutput, 422: examples.CASHIER_CAPS_REFUSED},
        tags=["wallet-staff"],
        summary="Set an operator's cashier caps",
        examples=examples.CASHIER_CAPS,
        description="Replace the operator's caps for the currency; a missing or null cap "
        "means no cap. Daily, weekly and monthly caps count each player's deposits over UTC "
        "calendar windows (docs/wallet.md).",
    )
    def put(self, request: Request, operator_id: str, currency: str) -> Response:
        operator = self._operator(operator_id)
        code = parse_currency(currency)
        data = CashierCapsInput(data=request.data)
        data.is_valid(raise_exception=True)
        caps = {
            name: None if value is None else parse_amount(value, code, field=name, allow_zero=True)
            for name, value in data.validated_data.items()
            if name in CashierCaps.FIELDS
        }
        row = services.cashier_caps_set(
            operator=operator, currency=code, actor=actor_for(request.user), **caps
        )
        return Response(CashierCapsOutput(presenters.cashier_caps(row)).data)


class StaffTransactionView(APIView):
    permission_classes = (IsStaff,)

    @extend_schema(
        responses=LedgerTransactionOutput,
        tags=["wallet-staff"],
        summary="Show a ledger transaction",
        description="Any ledger transaction with every entry, account and FX snapshot "
        "(back office).",
    )
    def get(self, request: Request, transaction_id: str) -> Response:
        txn = selectors.transaction_get(transaction_id=transaction_id)
        return Response(LedgerTransactionOutput(presenters.ledger_transaction(txn)).data)


class StaffTransactionReversalView(APIView):
    permission_classes = (IsStaff,)

    @extend_schema(
        request=ReversalInput,
        responses={201: LedgerTransactionOutput, 409: examples.REVERSAL_REFUSED},
        tags=["wallet-staff"],
        summary="Reverse a ledger transaction",
        description="Post the exact opposite of a transaction (idempotent by `reference`). "
        "Ledger rows are never changed: this is the correction.",
        examples=examples.REVERSAL,
    )
    def post(self, request: Request, transaction_id: str) -> Response:
        original = selectors.transaction_get(transaction_id=transaction_id)
        data = ReversalInput(data=request.data)
        data.is_valid(raise_exception=True)
        reversal = services.transaction_reverse(
            ledger_transaction=original,
            reference=services.reversal_reference(reference=data.validated_data["reference"]),
            reason=data.validated_data["reason"],
            actor=actor_for(request.user),
        )
        return Response(
            LedgerTransactionOutput(presenters.ledger_transaction(reversal)).data,
            status=status.HTTP_201_CREATED,
        )


class StaffReconciliationView(APIView):
    permission_classes = (IsStaff,)

    @extend_schema(
        responses=ReconciliationOutput,
        tags=["wallet-staff"],
        summary="Reconcile the ledger now",
        description="Check that every cached balance equals the sum of its entries and that "
        "every transaction sums to zero per currency; reads only, records nothing.",
    )
    def get(self, request: Request) -> Response:
        return Response(ReconciliationOutput(presenters.reconciliation(selectors.reconcile())).data)

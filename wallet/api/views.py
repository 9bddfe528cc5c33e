"""Wallet endpoints: thin views that parse, call one service or selector, and render.

- Operator (API key, ``IsOperator``): a player's wallet, deposits, withdrawals and
  transactions; the operator's cashier caps. Players of another operator are 404
  (``gin_platform.tenancy.selectors.player_get``). Writes need an Idempotency-Key.
- Player (session token, ``IsPlayer``): their own wallet and transactions; topping their
  practice chips back up (idempotent by nature: at most one top-up per period, a second
  request is ``practice-top-up-too-soon`` naming the first).
- The player's limits, time-outs and self-exclusion (operator and player): in
  ``limit_views``. Staff: in ``staff_views``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api.inputs import NoBody, validated
from gin_platform.http.idempotency import HEADER as IDEMPOTENCY_HEADER
from gin_platform.http.idempotency import idempotent
from gin_platform.http.permissions import IsOperator, IsPlayer
from gin_platform.http.problems import Problem
from gin_platform.tenancy import selectors as platform_selectors
from gin_platform.tenancy.principals import (
    operator_or_player_principal,
    operator_principal,
    player_principal,
)
from wallet import services
from wallet.amounts import parse_amount, parse_currency
from wallet.api import examples, presenters
from wallet.api.serializers import (
    CashierCapsOutput,
    CashierInput,
    OperatorWalletInput,
    OperatorWalletOutput,
    TransactionFilterInput,
    WalletOperatorTransactionOutput,
    WalletOutput,
    WalletTransactionOutput,
)
from wallet.models import LedgerTransaction
from wallet.selectors import limits, seamless, transactions

if TYPE_CHECKING:
    from gin_platform.models import Player

IDEMPOTENCY_PARAMETER = OpenApiParameter(
    IDEMPOTENCY_HEADER,
    str,
    OpenApiParameter.HEADER,
    required=True,
    description="Unique per write (1-255 characters); a replay returns the first response.",
)
TRANSACTION_FILTERS = [
    OpenApiParameter("kind", str, enum=LedgerTransaction.Kind.values),
    OpenApiParameter("game_ref", str, description="Exact match, e.g. match:42"),
    OpenApiParameter("currency", str, description="Wallet currency of the player's lines"),
    OpenApiParameter("created_after", str, description="ISO 8601, inclusive"),
    OpenApiParameter("created_before", str, description="ISO 8601, exclusive"),
]


def _player(request: Request, player_id: str) -> Player:
    return platform_selectors.player_get(
        operator=operator_principal(request).operator, player_id=player_id
    )


def _filters(request: Request) -> dict:
    return validated(TransactionFilterInput, request.query_params)


# --- Operator: one player's wallet -------------------------------------------------------
class PlayerWalletView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses=WalletOutput,
        tags=["wallet"],
        operation_id="players_wallet",
        summary="Show a player's wallet",
        description="The player's balance in the wallet currency (and in their display "
        "currency, R11), practice chips, KYC status and any break (self-exclusion, time-out). "
        "Seamless mode: what your wallet reports (`operator_balance`), and the rollbacks of "
        "buy-in debits you have not acknowledged yet (`rollback_pending`, "
        "`pending_rollbacks`).",
        examples=examples.WALLET,
    )
    def get(self, request: Request, player_id: str) -> Response:
        player = _player(request, player_id)
        return Response(WalletOutput(_wallet_summary(player)).data)


def _wallet_summary(player: Player) -> dict:
    """The wallet, and in seamless mode what the operator's wallet says the player has
    (asked now, within the operator's timeout; null if it does not answer)."""
    if not seamless.is_seamless(operator_id=player.operator_id):
        return presenters.wallet_summary(player=player, seamless=False)
    reported = services.seamless_balance(player=player)
    try:
        minor = (
            None
            if reported is None
            else parse_amount(str(reported), player.wallet_currency, allow_zero=True)
        )
    except Problem:  # more decimals than the currency has, or negative: not shown
        minor = None
    return presenters.wallet_summary(player=player, seamless=True, operator_balance=minor)


class _CashierView(APIView):
    """A deposit or a withdrawal (``kind``) of a player's wallet; each subclass documents
    its own POST."""

    permission_classes = (IsOperator,)
    kind = ""

    @idempotent
    def post(self, request: Request, player_id: str) -> Response:
        caller = operator_principal(request)
        player = _player(request, player_id)
        values = validated(CashierInput, request.data)
        currency = parse_currency(values["currency"])
        amount = parse_amount(values["amount"], currency)
        own_reference = values.get("reference") or request.headers[IDEMPOTENCY_HEADER].strip()
        service, ledger_reference = (
            (services.deposit, services.deposit_reference)
            if self.kind == "deposit"
            else (services.withdraw, services.withdrawal_reference)
        )
        txn = service(
            player=player,
            amount=amount,
            currency=currency,
            reference=ledger_reference(operator_id=caller.operator.pk, reference=own_reference),
            actor=caller.actor,
            metadata=values["metadata"],
        )
        body = presenters.player_transaction(txn, player=player, operator_view=True)
        return Response(WalletOperatorTransactionOutput(body).data, status=status.HTTP_201_CREATED)


@extend_schema_view(
    post=extend_schema(
        request=CashierInput,
        responses={
            201: WalletOperatorTransactionOutput,
            403: examples.DEPOSIT_ON_BREAK,
            422: examples.DEPOSIT_REFUSED,
        },
        parameters=[IDEMPOTENCY_PARAMETER],
        tags=["wallet"],
        summary="Deposit into a player's wallet",
        examples=examples.DEPOSIT,
        description="Credit the player's wallet (wallet currency only). Refused with its own "
        "problem type: amount-invalid, amount-too-precise, amount-not-positive, "
        "unknown-currency, currency-mismatch, player-inactive, self-excluded, timed-out, "
        "amount-below-minimum, cap-exceeded, limit-exceeded.",
    )
)
class DepositCreateView(_CashierView):
    kind = "deposit"


@extend_schema_view(
    post=extend_schema(
        request=CashierInput,
        responses={
            201: WalletOperatorTransactionOutput,
            403: examples.WITHDRAWAL_KYC,
            409: examples.WITHDRAWAL_INSUFFICIENT,
        },
        parameters=[IDEMPOTENCY_PARAMETER],
        tags=["wallet"],
        summary="Withdraw from a player's wallet",
        examples=examples.WITHDRAWAL,
        description="Debit the player's wallet. Needs kyc_status 'verified'; never blocked by "
        "a break (self-exclusion, time-out). Refused: kyc-required, insufficient-funds, "
        "amount-below-minimum, cap-exceeded and the amount/currency problems.",
    )
)
class WithdrawalCreateView(_CashierView):
    kind = "withdrawal"


class PlayerTransactionListView(GenericAPIView):
    permission_classes = (IsOperator,)
    serializer_class = WalletOperatorTransactionOutput

    @extend_schema(
        parameters=TRANSACTION_FILTERS,
        responses=WalletOperatorTransactionOutput(many=True),
        tags=["wallet"],
        summary="List a player's transactions",
        description="Every ledger transaction that touched the player's wallet, newest "
        "first: deposits, withdrawals, buy-ins, settlements, reversals, practice chips; with "
        "its entries, any FX and your metadata.",
    )
    def get(self, request: Request, player_id: str) -> Response:
        player = _player(request, player_id)
        page = self.paginate_queryset(
            transactions.player_transactions(player=player, **_filters(request))
        )
        assert page is not None  # None only for a view without a paginator
        body = [presenters.player_transaction(t, player=player, operator_view=True) for t in page]
        return self.get_paginated_response(WalletOperatorTransactionOutput(body, many=True).data)


class PlayerTransactionDetailView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses=WalletOperatorTransactionOutput,
        tags=["wallet"],
        summary="Show one of a player's transactions",
        description="One ledger transaction of the player's wallet, with its entries, FX and "
        "your metadata.",
    )
    def get(self, request: Request, player_id: str, transaction_id: str) -> Response:
        player = _player(request, player_id)
        txn = transactions.player_transaction_get(player=player, transaction_id=transaction_id)
        body = presenters.player_transaction(txn, player=player, operator_view=True)
        return Response(WalletOperatorTransactionOutput(body).data)


PRACTICE_TOP_UP_DESCRIPTION = (
    "Top the player's practice-chip (XGC) wallet back up to the grant "
    "(WALLET_PRACTICE_GRANT, 10,000 chips by default): 201 with the `practice_top_up` "
    "transaction of exactly the difference; 200 with the unchanged wallet when it already "
    "holds at least that much (chips at stake in a running game's escrow do not count). At "
    "most one top-up per player per period (WALLET_PRACTICE_TOP_UP_SECONDS, UTC clock hours "
    "by default): another in the same period is 409 practice-top-up-too-soon "
    "(`transaction_id`, `next_top_up_at`). Refused: player-inactive."
)


def _practice_top_up_response(request: Request, player: Player, *, operator_view: bool) -> Response:
    txn = services.practice_chips_top_up(
        player=player, actor=operator_or_player_principal(request).actor
    )
    if txn is None:
        return Response(WalletOutput(presenters.wallet_summary(player=player)).data)
    body = presenters.player_transaction(txn, player=player, operator_view=operator_view)
    output = WalletOperatorTransactionOutput if operator_view else WalletTransactionOutput
    return Response(output(body).data, status=status.HTTP_201_CREATED)


class PracticeTopUpCreateView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=None,
        responses={
            201: WalletOperatorTransactionOutput,
            200: OpenApiResponse(WalletOutput, description="Nothing to top up: the wallet"),
            409: examples.TOP_UP_TOO_SOON,
        },
        parameters=[IDEMPOTENCY_PARAMETER],
        tags=["wallet"],
        operation_id="players_wallet_practice_chips_top_up",
        summary="Top a player's practice chips up",
        description=PRACTICE_TOP_UP_DESCRIPTION + " No body.",
        examples=examples.OPERATOR_TOP_UP,
    )
    @idempotent
    def post(self, request: Request, player_id: str) -> Response:
        validated(NoBody, request.data)
        player = _player(request, player_id)
        return _practice_top_up_response(request, player, operator_view=True)


class OperatorCashierCapsView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses=CashierCapsOutput(many=True),
        tags=["wallet"],
        summary="List the operator's cashier caps",
        description="Per currency: minimum and maximum deposit and withdrawal, daily, weekly "
        "and monthly deposit caps (set by back-office staff; null: no cap).",
    )
    def get(self, request: Request) -> Response:
        caps = limits.cashier_caps_list(operator=operator_principal(request).operator)
        return Response(
            CashierCapsOutput([presenters.cashier_caps(c) for c in caps], many=True).data
        )


# --- Player token: own wallet --------------------------------------------------------------
class MyWalletView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        responses=WalletOutput,
        tags=["me"],
        operation_id="me_wallet",
        summary="Show my wallet",
        description="The calling player's balance (also in their display currency, R11), "
        "practice chips, KYC status and any break (self-exclusion, time-out). Seamless "
        "mode: what the operator's wallet reports (`operator_balance`), and any rollback of a "
        "buy-in's debit the operator's wallet has not acknowledged yet (`rollback_pending`, "
        "`pending_rollbacks`): until it does, it may hold that amount of the player's money.",
        examples=examples.WALLET,
    )
    def get(self, request: Request) -> Response:
        return Response(WalletOutput(_wallet_summary(player_principal(request).player)).data)


class MyPracticeTopUpView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        request=None,
        responses={
            201: WalletTransactionOutput,
            200: OpenApiResponse(WalletOutput, description="Nothing to top up: the wallet"),
            409: examples.TOP_UP_TOO_SOON,
        },
        tags=["me"],
        operation_id="me_wallet_practice_chips_top_up",
        summary="Top my practice chips up",
        description=PRACTICE_TOP_UP_DESCRIPTION + " No body.",
        examples=examples.PLAYER_TOP_UP,
    )
    def post(self, request: Request) -> Response:
        validated(NoBody, request.data)
        return _practice_top_up_response(
            request, player_principal(request).player, operator_view=False
        )


class MyTransactionListView(GenericAPIView):
    permission_classes = (IsPlayer,)
    serializer_class = WalletTransactionOutput

    @extend_schema(
        parameters=TRANSACTION_FILTERS,
        responses=WalletTransactionOutput(many=True),
        tags=["me"],
        summary="List my transactions",
        description="Every ledger transaction that touched the calling player's wallet, "
        "newest first (the operator's metadata is not shown).",
    )
    def get(self, request: Request) -> Response:
        player = player_principal(request).player
        page = self.paginate_queryset(
            transactions.player_transactions(player=player, **_filters(request))
        )
        assert page is not None  # None only for a view without a paginator
        body = [presenters.player_transaction(t, player=player, operator_view=False) for t in page]
        return self.get_paginated_response(WalletTransactionOutput(body, many=True).data)


class MyTransactionDetailView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        responses=WalletTransactionOutput,
        tags=["me"],
        summary="Show one of my transactions",
        description="One ledger transaction of the calling player's wallet.",
    )
    def get(self, request: Request, transaction_id: str) -> Response:
        player = player_principal(request).player
        txn = transactions.player_transaction_get(player=player, transaction_id=transaction_id)
        body = presenters.player_transaction(txn, player=player, operator_view=False)
        return Response(WalletTransactionOutput(body).data)


# --- Operator API key: the operator's wallet mode (docs/wallet.md "Seamless wallet") -------
class OperatorWalletView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses=OperatorWalletOutput,
        tags=["wallet"],
        summary="Show the operator's wallet mode",
        description="transfer (the default: the platform holds the players' balances, you "
        "deposit and withdraw) or seamless (your wallet holds them and the platform calls "
        "your wallet API for every buy-in and payout), with your wallet's URL and timeout.",
    )
    def get(self, request: Request) -> Response:
        row = seamless.operator_wallet_get(operator_id=operator_principal(request).operator.pk)
        return Response(OperatorWalletOutput(presenters.operator_wallet(row)).data)

    @extend_schema(
        request=OperatorWalletInput,
        responses={200: OperatorWalletOutput, 409: examples.OPERATOR_WALLET_REFUSED},
        parameters=[IDEMPOTENCY_PARAMETER],
        tags=["wallet"],
        summary="Set the operator's wallet mode",
        examples=examples.OPERATOR_WALLET,
        description="Replace the wallet settings (audited). Seamless needs a base_url, checked "
        "like a webhook URL. Switching mode is refused (wallet-mode-switch-refused) while "
        "your players have money in platform wallets or open games, or wallet calls are in "
        "flight; a bad URL or timeout is operator-wallet-invalid.",
    )
    @idempotent
    def put(self, request: Request) -> Response:
        values = validated(OperatorWalletInput, request.data)
        caller = operator_principal(request)
        row = services.operator_wallet_set(operator=caller.operator, actor=caller.actor, **values)
        return Response(OperatorWalletOutput(presenters.operator_wallet(row)).data)

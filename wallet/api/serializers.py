"""Input and output serializers of the wallet endpoints (shape only; rules live in services).

Amounts travel as decimal strings ("12.50") next to an ISO 4217 code. ``DecimalString``
hands the raw JSON value to ``wallet.amounts.parse_amount``, which applies the one rule for
amounts (a JSON string of ASCII digits; JSON numbers refused) and refuses too many decimals
and non-positive amounts with their own problem types.
"""

from __future__ import annotations

import json

from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from gin_platform.api.fields import DecimalString, TargetUrl
from gin_platform.api.inputs import StrictInput
from gin_platform.api.serializers import KYC_STATUSES, DisplayedMoney, Money
from gin_platform.http.parsers import json_shape
from wallet.models import (
    Account,
    ApprovalRequest,
    LedgerTransaction,
    LimitKind,
    LimitPeriod,
    OperatorWallet,
    SelfExclusion,
)

# An operator's own notes on a cashier movement (docs/wallet.md "Cashier metadata"): a JSON
# object of at most 4096 bytes, 64 keys (counted at every level) and 4 levels.
MAX_METADATA_BYTES = 4096
MAX_METADATA_KEYS = 64
MAX_METADATA_DEPTH = 4


# --- Shared output shapes ------------------------------------------------------------------
class WalletFxOutput(serializers.Serializer):
    base = serializers.CharField()
    quote = serializers.CharField()
    rate = serializers.CharField(help_text="1 base = rate quote")
    as_of = serializers.DateTimeField()
    source = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.source (DRF's metaclass moves it)
    rounding = serializers.CharField()
    base_amount = Money()
    quote_amount = Money()


class WalletEntryOutput(serializers.Serializer):
    account = serializers.ChoiceField(choices=Account.Kind.choices)
    component = serializers.CharField()
    amount = serializers.CharField()
    currency = serializers.CharField()
    balance_after = serializers.CharField(allow_null=True)


class WalletTransactionOutput(serializers.Serializer):
    id = serializers.IntegerField()
    reference = serializers.CharField()
    kind = serializers.ChoiceField(choices=LedgerTransaction.Kind.choices)
    created_at = serializers.DateTimeField()
    game_ref = serializers.CharField(allow_null=True)
    amount = Money(allow_null=True)
    wallet_change = Money(allow_null=True, help_text="Net change to the player's wallet")
    balance_after = Money(allow_null=True, help_text="The wallet balance right after")
    reverses = serializers.IntegerField(allow_null=True)
    reversed_by = serializers.IntegerField(allow_null=True)
    entries = WalletEntryOutput(many=True)
    fx = WalletFxOutput(many=True)


class WalletOperatorTransactionOutput(WalletTransactionOutput):
    metadata = serializers.DictField()


class LedgerEntryOutput(serializers.Serializer):
    account_id = serializers.IntegerField()
    account = serializers.ChoiceField(choices=Account.Kind.choices)
    player_id = serializers.UUIDField(allow_null=True)
    component = serializers.CharField()
    amount = serializers.CharField()
    currency = serializers.CharField()
    balance_after = serializers.CharField()


class LedgerTransactionOutput(serializers.Serializer):
    id = serializers.IntegerField()
    operator_id = serializers.UUIDField()
    reference = serializers.CharField()
    kind = serializers.ChoiceField(choices=LedgerTransaction.Kind.choices)
    created_at = serializers.DateTimeField()
    game_ref = serializers.CharField(allow_null=True)
    player_id = serializers.UUIDField(allow_null=True)
    amount = Money(allow_null=True)
    reverses = serializers.IntegerField(allow_null=True)
    reversed_by = serializers.IntegerField(allow_null=True)
    entries = LedgerEntryOutput(many=True)
    fx = WalletFxOutput(many=True)
    metadata = serializers.DictField()
    actor_type = serializers.CharField()
    actor_id = serializers.CharField()


# --- Wallet, cashier ---------------------------------------------------------------------
class PendingRollbackOutput(serializers.Serializer):
    transaction_id = serializers.UUIDField(
        help_text="The rollback's id: the transaction_id of its POST <base_url>/rollback"
    )
    rolls_back = serializers.UUIDField(help_text="The transaction_id of the debit it undoes")
    amount = Money(help_text="What the debit took, if the operator's wallet applied it")
    since = serializers.DateTimeField(help_text="When the rollback was first sent")
    next_attempt_at = serializers.DateTimeField(
        help_text="When the platform sends it again (backoff from 20 s, doubling, capped at "
        "10 minutes, until acknowledged)"
    )
    attempts = serializers.IntegerField(help_text="Attempts so far")


class WalletOutput(serializers.Serializer):
    player_id = serializers.UUIDField()
    wallet_mode = serializers.ChoiceField(
        choices=["transfer", "seamless"],
        help_text="Where the player's money lives: `transfer`, in this platform wallet "
        "(`balance`); `seamless`, in the operator's own wallet (`operator_balance`), "
        '`balance` being only money in transit (docs/wallet.md "Seamless wallet").',
    )
    balance = DisplayedMoney()
    operator_balance = DisplayedMoney(
        allow_null=True,
        help_text="Seamless mode: the balance the operator's wallet reports now (a `balance` "
        "call, shown only; nothing moves). Null in transfer mode, or when the operator's wallet "
        "did not answer in time.",
    )
    practice_balance = Money()
    kyc_status = serializers.ChoiceField(choices=KYC_STATUSES)
    self_excluded_until = serializers.DateTimeField(
        allow_null=True, help_text="The end of the self-exclusion in force; null: none"
    )
    timed_out_until = serializers.DateTimeField(
        allow_null=True, help_text="The end of the time-out in force; null: none"
    )
    rollback_pending = serializers.BooleanField(
        help_text="Seamless mode: true while a rollback of a buy-in debit is not acknowledged "
        "by the operator's wallet yet, which may hold its amount of the player's money until "
        "it is; the platform keeps sending it (`pending_rollbacks`). Always false in "
        "transfer mode."
    )
    pending_rollbacks = PendingRollbackOutput(
        many=True, help_text="The unacknowledged rollbacks, oldest first; empty when none"
    )


class CashierInput(StrictInput):
    amount = DecimalString()
    currency = serializers.CharField(max_length=8)
    reference = serializers.CharField(
        max_length=128,
        required=False,
        help_text="Your cashier's reference for this movement (unique per operator and kind); "
        "defaults to the Idempotency-Key.",
    )
    metadata = serializers.DictField(required=False, default=dict)

    def validate_metadata(self, value: dict) -> dict:
        # Shape first (iterative): json.dumps would recurse through any nesting.
        shape = json_shape(value)
        if shape.depth > MAX_METADATA_DEPTH:
            raise serializers.ValidationError(f"at most {MAX_METADATA_DEPTH} levels of nesting")
        if shape.keys > MAX_METADATA_KEYS:
            raise serializers.ValidationError(f"at most {MAX_METADATA_KEYS} keys in all")
        if len(json.dumps(value, separators=(",", ":")).encode()) > MAX_METADATA_BYTES:
            raise serializers.ValidationError(f"at most {MAX_METADATA_BYTES} bytes of JSON")
        return value


class TransactionFilterInput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=LedgerTransaction.Kind.choices, required=False)
    game_ref = serializers.CharField(max_length=100, required=False)
    currency = serializers.CharField(max_length=3, required=False)
    created_after = serializers.DateTimeField(required=False, help_text="Inclusive")
    created_before = serializers.DateTimeField(required=False, help_text="Exclusive")


# --- Limits, breaks (time-outs, self-exclusion) ------------------------------------------
class LimitOutput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=LimitKind.choices)
    period = serializers.ChoiceField(choices=LimitPeriod.choices)
    currency = serializers.CharField()
    amount = serializers.CharField(allow_null=True, help_text="In force now; null: no limit")
    pending_amount = serializers.CharField(allow_null=True)
    pending_effective_at = serializers.DateTimeField(allow_null=True)
    pending_removal = serializers.BooleanField()
    used = serializers.CharField(help_text="Deposits, or net losses, in the current window")
    remaining = serializers.CharField(allow_null=True)
    window_start = serializers.DateTimeField()
    window_end = serializers.DateTimeField()


class LimitChangeInput(StrictInput):
    kind = serializers.ChoiceField(choices=LimitKind.choices)
    period = serializers.ChoiceField(choices=LimitPeriod.choices)
    amount = DecimalString(allow_null=True, help_text="Wallet currency; null removes the limit")
    currency = serializers.CharField(max_length=8, required=False)


class LimitChangeOutput(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=LimitKind.choices)
    period = serializers.ChoiceField(choices=LimitPeriod.choices)
    currency = serializers.CharField()
    old_amount = serializers.CharField(allow_null=True)
    new_amount = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    effective_at = serializers.DateTimeField()
    actor_type = serializers.CharField()
    actor_id = serializers.CharField()


class SelfExclusionInput(StrictInput):
    days = serializers.IntegerField(
        help_text="From the jurisdiction's minimum (183 days in uk, es and mga, 30 in it, 1 "
        "without a profile) to 3650; cannot be shortened afterwards"
    )
    reason = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)


class TimeOutInput(StrictInput):
    days = serializers.IntegerField(
        help_text="1, 7, 30 or 42 (24 hours, 7 days, 30 days, 6 weeks); cannot be shortened "
        "afterwards"
    )


class BreakOutput(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=SelfExclusion.Kind.choices)
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()
    days = serializers.IntegerField()
    reason = serializers.CharField()
    created_at = serializers.DateTimeField()


class SelfExclusionStatusOutput(serializers.Serializer):
    self_excluded = serializers.BooleanField()
    until = serializers.DateTimeField(allow_null=True)
    minimum_days = serializers.IntegerField(help_text="The shortest self-exclusion allowed")
    maximum_days = serializers.IntegerField(help_text="The longest self-exclusion allowed")
    exclusions = BreakOutput(many=True)


class TimeOutStatusOutput(serializers.Serializer):
    timed_out = serializers.BooleanField()
    until = serializers.DateTimeField(allow_null=True)
    allowed_days = serializers.ListField(
        child=serializers.IntegerField(), help_text="The time-outs allowed, in days"
    )
    time_outs = BreakOutput(many=True)


# --- Caps, rates, back office ------------------------------------------------------------
class CashierCapsOutput(serializers.Serializer):
    operator_id = serializers.UUIDField()
    currency = serializers.CharField()
    min_deposit = serializers.CharField(allow_null=True)
    max_deposit = serializers.CharField(allow_null=True)
    min_withdrawal = serializers.CharField(allow_null=True)
    max_withdrawal = serializers.CharField(allow_null=True)
    daily_deposit_cap = serializers.CharField(allow_null=True)
    weekly_deposit_cap = serializers.CharField(allow_null=True)
    monthly_deposit_cap = serializers.CharField(allow_null=True)
    updated_at = serializers.DateTimeField()


class CashierCapsInput(StrictInput):
    min_deposit = DecimalString(required=False, allow_null=True, default=None)
    max_deposit = DecimalString(required=False, allow_null=True, default=None)
    min_withdrawal = DecimalString(required=False, allow_null=True, default=None)
    max_withdrawal = DecimalString(required=False, allow_null=True, default=None)
    daily_deposit_cap = DecimalString(required=False, allow_null=True, default=None)
    weekly_deposit_cap = DecimalString(required=False, allow_null=True, default=None)
    monthly_deposit_cap = DecimalString(required=False, allow_null=True, default=None)
    reason = serializers.CharField(
        required=False,
        max_length=500,
        help_text="Why: required when the new caps loosen any cap (a four-eyes proposal)",
    )


class ExchangeRateInput(StrictInput):
    base = serializers.CharField(max_length=8)
    quote = serializers.CharField(max_length=8)
    rate = DecimalString(help_text="1 base = rate quote, as a decimal string ('1.0720')")
    as_of = serializers.DateTimeField()
    source = serializers.CharField(max_length=100)  # type: ignore[assignment]  # a declared field, not Field.source (DRF's metaclass moves it)


class ExchangeRateFilterInput(serializers.Serializer):
    base = serializers.CharField(max_length=3, required=False)
    quote = serializers.CharField(max_length=3, required=False)


class ExchangeRateOutput(serializers.Serializer):
    id = serializers.IntegerField()
    base = serializers.CharField()
    quote = serializers.CharField()
    rate = serializers.CharField()
    as_of = serializers.DateTimeField()
    source = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.source (DRF's metaclass moves it)
    created_at = serializers.DateTimeField()


class ReversalInput(StrictInput):
    reference = serializers.CharField(max_length=150)
    reason = serializers.CharField(max_length=200)


class ReconciliationOutput(serializers.Serializer):
    ok = serializers.BooleanField()
    checked_at = serializers.DateTimeField()
    accounts_checked = serializers.IntegerField()
    transactions_checked = serializers.IntegerField()
    entries_checked = serializers.IntegerField()
    lines = serializers.ListField(child=serializers.CharField())


# --- Seamless wallet (docs/wallet.md "Seamless wallet") -------------------------------------
# The JSON types only: every value is checked by ``operator_wallet_set``, the one place, and
# refused there as operator-wallet-invalid naming its ``field`` (docs/api-errors.md). The
# schema still says which values the service accepts.
@extend_schema_field(serializers.ChoiceField(choices=OperatorWallet.Mode.choices))
class _WalletModeField(serializers.CharField):
    pass


@extend_schema_field(
    serializers.IntegerField(
        min_value=OperatorWallet.MIN_TIMEOUT_MS, max_value=OperatorWallet.MAX_TIMEOUT_MS
    )
)
class _TimeoutField(serializers.IntegerField):
    pass


class OperatorWalletInput(StrictInput):
    mode = _WalletModeField(
        allow_blank=True,
        trim_whitespace=False,
        help_text="transfer: the platform holds the balance (deposits and withdrawals); "
        "seamless: your wallet holds it and the platform calls your wallet API",
    )
    base_url = TargetUrl(
        required=False,
        allow_blank=True,
        default="",
        help_text="Your wallet API: the platform POSTs to <base_url>/balance, /debit, /credit "
        "and /rollback. Required for seamless; checked like a webhook URL, and without a "
        "?query (422 operator-wallet-invalid, field base_url)",
    )
    timeout_ms = _TimeoutField(
        required=False,
        default=OperatorWallet.DEFAULT_TIMEOUT_MS,
        help_text="How long each call to your wallet may take, in milliseconds",
    )


@extend_schema_field({"type": "string", "const": "/problems/wallet-unavailable"})
class _WalletUnavailableType(serializers.CharField):
    pass


@extend_schema_field({"type": "integer", "const": 503})
class _WalletUnavailableStatus(serializers.IntegerField):
    pass


@extend_schema_serializer(component_name="WalletUnavailableProblem")
class WalletUnavailableProblemOutput(serializers.Serializer):
    """The wallet-unavailable problem (RFC 9457) of a seamless buy-in that got no seat."""

    type = _WalletUnavailableType()
    title = serializers.CharField()
    status = _WalletUnavailableStatus()
    detail = serializers.CharField()
    instance = serializers.CharField(required=False, help_text="The request path")
    transaction_id = serializers.UUIDField(help_text="The buy-in's debit (its transaction_id)")
    amount = Money(help_text="The debit's amount")
    rollback_pending = serializers.BooleanField(
        help_text="True: the operator's wallet has not acknowledged the debit's rollback yet, "
        "so it may hold `amount` of the player's money until it does; the platform keeps "
        "sending the rollback and the player's wallet (`GET /api/v1/me/wallet`) lists it "
        "under `pending_rollbacks` until then. False: rolled back, nothing is charged."
    )
    rollback_transaction_id = serializers.UUIDField(
        allow_null=True, help_text="The rollback's id (the transaction_id of its /rollback)"
    )
    rollback_next_attempt_at = serializers.DateTimeField(
        allow_null=True, help_text="When the pending rollback is sent again; null otherwise"
    )


class OperatorWalletOutput(serializers.Serializer):
    mode = serializers.ChoiceField(choices=OperatorWallet.Mode.choices)
    base_url = serializers.CharField()
    timeout_ms = serializers.IntegerField()
    updated_at = serializers.DateTimeField(allow_null=True)


# --- Four-eyes approvals (docs/backoffice.md) ---------------------------------------------
class ApprovalInput(StrictInput):
    kind = serializers.ChoiceField(choices=ApprovalRequest.Kind.choices)
    operator_id = serializers.UUIDField(
        required=False,
        help_text="The operator of a cashier_caps, adjustment or net_settlement proposal",
    )
    reason = serializers.CharField(max_length=500)
    payload = serializers.DictField(
        help_text="reversal: transaction_id, reference; adjustment: player_id, direction "
        "(credit/debit), amount (decimal string), currency, reference; cashier_caps: "
        "currency, caps (each cap a decimal string or null); net_settlement: currency, "
        "cutoff (ISO date-time with offset), optionally amount (signed decimal string: "
        "positive, the operator pays the network; it must be what is outstanding)"
    )


class ApprovalFilterInput(serializers.Serializer):
    status = serializers.ChoiceField(choices=ApprovalRequest.Status.choices, required=False)


class ApprovalDecisionInput(StrictInput):
    note = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")


class ApprovalOutput(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=ApprovalRequest.Kind.choices)
    operator_id = serializers.UUIDField()
    payload = serializers.DictField(help_text="The action's arguments; amounts as decimal strings")
    reason = serializers.CharField()
    status = serializers.ChoiceField(choices=ApprovalRequest.Status.choices)
    proposed_by = serializers.CharField()
    proposed_at = serializers.DateTimeField()
    decided_by = serializers.CharField(allow_null=True)
    decided_at = serializers.DateTimeField(allow_null=True)
    decision_note = serializers.CharField()
    result_ref = serializers.CharField(
        help_text="What the execution made, e.g. ledger_transaction:115; empty until executed"
    )

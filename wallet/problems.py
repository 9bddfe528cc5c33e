"""The wallet's domain errors (RFC 9457 problem types), raised by its services.

Each bad input has its own stable ``type`` (docs/api-errors.md). When one of these is raised,
nothing has been posted: every service is one database transaction and raises before (or
instead of) writing its ledger rows. ``unknown-currency`` and ``player-inactive`` are the
platform's own types, re-used here (gin_platform.tenancy.services), and so are the four-eyes types
(gin_platform.http.problems), which the staff access changes share.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from gin_platform.http.problems import (
    ApprovalInvalidProblem,
    ApprovalNotPendingProblem,
    FourEyesRequiredProblem,
    Problem,
    ProposerNotEntitledProblem,
)
from gin_platform.tenancy.services import PlayerInactiveProblem, UnknownCurrencyProblem

__all__ = [
    "AlreadyReversedProblem",
    "AmountBelowMinimumProblem",
    "AmountInvalidProblem",
    "AmountNotPositiveProblem",
    "AmountTooPreciseProblem",
    "ApprovalInvalidProblem",
    "ApprovalNotPendingProblem",
    "CapExceededProblem",
    "CashierCapsInvalidProblem",
    "CurrencyMismatchProblem",
    "EscrowNotFoundProblem",
    "EscrowOperatorMismatchProblem",
    "EscrowSettledProblem",
    "EscrowUnbalancedProblem",
    "ExchangeRateConflictProblem",
    "ExchangeRateInvalidProblem",
    "FourEyesRequiredProblem",
    "FxRateStaleProblem",
    "FxRateUnavailableProblem",
    "GameRefInvalidProblem",
    "InsufficientFundsProblem",
    "KycRequiredProblem",
    "LimitExceededProblem",
    "LimitInvalidProblem",
    "NetworkSettlementInvalidProblem",
    "NothingToRefundProblem",
    "NothingToVoidProblem",
    "OperatorWalletInvalidProblem",
    "PayoutInvalidProblem",
    "PlayerInactiveProblem",
    "PracticeChipsNotConvertibleProblem",
    "PracticeTopUpTooSoonProblem",
    "ProposerNotEntitledProblem",
    "ReferenceConflictProblem",
    "ReferenceInvalidProblem",
    "SeamlessWalletModeProblem",
    "SelfExcludedProblem",
    "SelfExclusionPeriodInvalidProblem",
    "TimeOutPeriodInvalidProblem",
    "TimedOutProblem",
    "TransactionNotReversibleProblem",
    "UnknownCurrencyProblem",
    "WalletModeSwitchRefusedProblem",
    "WalletUnavailableProblem",
]


# --- Amounts and currencies ----------------------------------------------------------------
class AmountInvalidProblem(Problem):
    slug = "amount-invalid"
    status = 422
    title = _("The amount is not a decimal amount")
    description = (
        "Every amount is a JSON string of ASCII digits with an optional '.' and at most the "
        'currency\'s decimals, such as "12.50"; a JSON number (integer or float), an '
        "exponent, a space or another script's digits is refused. `field` names the field."
    )


class AmountTooPreciseProblem(Problem):
    slug = "amount-too-precise"
    status = 422
    title = _("The amount has more decimals than the currency")
    description = (
        "An amount may have at most as many decimal places as its currency's minor unit "
        "(EUR 2, JPY 0, KWD 3); it is never rounded. `exponent` says how many."
    )


class AmountNotPositiveProblem(Problem):
    slug = "amount-not-positive"
    status = 422
    title = _("The amount must be greater than zero")


class CurrencyMismatchProblem(Problem):
    slug = "currency-mismatch"
    status = 422
    title = _("The currency is not the player's wallet currency")
    description = (
        "Deposits, withdrawals and limits are in the player's wallet currency "
        "(`wallet_currency`); the cashier does not convert."
    )


class PracticeChipsNotConvertibleProblem(Problem):
    slug = "practice-chips-not-convertible"
    status = 422
    title = _("Practice chips never convert to or from real money")
    description = (
        "XGC (practice chips) is play money (R11): it cannot be deposited, withdrawn, "
        "exchanged or mixed with a real-money escrow."
    )


class PracticeTopUpTooSoonProblem(Problem):
    slug = "practice-top-up-too-soon"
    status = 409
    title = _("The practice chips were already topped up in this period")
    description = (
        "Practice chips are topped up at most once per player per period "
        "(WALLET_PRACTICE_TOP_UP_SECONDS, clock hours by default). `transaction_id` is this "
        "period's top-up; `next_top_up_at` is when the next period starts."
    )


class ReferenceInvalidProblem(Problem):
    slug = "reference-invalid"
    status = 422
    title = _("The reference is empty or too long")


class ReferenceConflictProblem(Problem):
    slug = "reference-conflict"
    status = 409
    title = _("The reference was already used for a different posting")
    description = (
        "A ledger reference is unique: repeating it with the same request returns the first "
        "transaction; repeating it with anything else is refused."
    )


class GameRefInvalidProblem(Problem):
    slug = "game-ref-invalid"
    status = 422
    title = _("The game reference is empty or too long")


# --- Funds, caps, limits, responsible gaming ---------------------------------------------
class InsufficientFundsProblem(Problem):
    slug = "insufficient-funds"
    status = 409
    title = _("Insufficient funds")
    description = "The account does not hold enough; `available` says how much it holds."


class AmountBelowMinimumProblem(Problem):
    slug = "amount-below-minimum"
    status = 422
    title = _("The amount is below the cashier minimum")
    description = "`cap` names the minimum (min_deposit, min_withdrawal), `minimum` its value."


class CapExceededProblem(Problem):
    slug = "cap-exceeded"
    status = 422
    title = _("The amount is over a cashier cap")
    description = (
        "`cap` names the operator's cap (max_deposit, max_withdrawal, daily_deposit_cap, "
        "weekly_deposit_cap, monthly_deposit_cap), `limit` its value and `remaining` what is "
        "left in the current window."
    )


class LimitExceededProblem(Problem):
    slug = "limit-exceeded"
    status = 422
    title = _("The amount is over the player's own limit")
    description = (
        "`limit` names the player's limit (e.g. deposit_day, loss_week), `value` its amount and "
        "`remaining` what is left in the current window."
    )


class SelfExcludedProblem(Problem):
    slug = "self-excluded"
    status = 403
    title = _("The player is self-excluded")
    description = (
        "Self-exclusion blocks deposits, every buy-in and every seat (practice tables "
        "included) until `until`; withdrawals and payouts are never blocked."
    )


class TimedOutProblem(Problem):
    slug = "timed-out"
    status = 403
    title = _("The player is taking a time-out")
    description = (
        "A time-out the player took blocks deposits, every buy-in and every seat (practice "
        "tables included) until `until`; withdrawals and payouts are never blocked."
    )


class LimitInvalidProblem(Problem):
    slug = "limit-invalid"
    status = 422
    title = _("The limit is not valid")
    description = "Limits are kind deposit or loss, period day, week or month, amount >= 0."


class SelfExclusionPeriodInvalidProblem(Problem):
    slug = "self-exclusion-period-invalid"
    status = 422
    title = _("The self-exclusion period is not valid")
    description = (
        "A self-exclusion lasts a whole number of days, from the jurisdiction's minimum "
        "(`minimum_days`: 183 in uk, es and mga, 30 in it, 1 without a profile) to "
        "`maximum_days` (3650)."
    )


class TimeOutPeriodInvalidProblem(Problem):
    slug = "time-out-period-invalid"
    status = 422
    title = _("The time-out period is not valid")
    description = (
        "A time-out lasts one of the periods the jurisdiction allows, in days: "
        "`allowed_days` (1, 7, 30 or 42: 24 hours, 7 days, 30 days, 6 weeks)."
    )


class KycRequiredProblem(Problem):
    slug = "kyc-required"
    status = 403
    title = _("Identity verification is required")
    description = "Withdrawals need kyc_status 'verified'."


# --- Escrow and settlement --------------------------------------------------------------
class EscrowNotFoundProblem(Problem):
    slug = "escrow-not-found"
    status = 404
    title = _("No escrow for this game and currency")


class EscrowSettledProblem(Problem):
    slug = "escrow-settled"
    status = 409
    title = _("The game's escrow is already settled")
    description = "No buy-in, refund or second settlement after a settlement (unless reversed)."


class EscrowOperatorMismatchProblem(Problem):
    slug = "escrow-operator-mismatch"
    status = 409
    title = _("The game's escrow belongs to another operator")


class NetworkSettlementInvalidProblem(Problem):
    slug = "network-settlement-invalid"
    status = 422
    title = _("The network net settlement is not valid")
    description = (
        "A net settlement is between a member operator and the network, in a real currency, "
        "at a cut-off in the past, for exactly the position outstanding then (`outstanding`); "
        "nothing outstanding means nothing to settle (docs/network.md)."
    )


class EscrowUnbalancedProblem(Problem):
    slug = "escrow-unbalanced"
    status = 422
    title = _("The payouts and fee do not empty the escrow exactly")
    description = "Settlement must leave the game's escrow at exactly zero."


class PayoutInvalidProblem(Problem):
    slug = "payout-invalid"
    status = 422
    title = _("A payout line is not valid")
    description = (
        "Payout amounts are integers in the escrow currency, components are lower-case tags "
        "(not 'fee' or 'fx'), each player's total is >= 0, each payee bought into the game, "
        "and the fee is >= 0."
    )


class NothingToRefundProblem(Problem):
    slug = "nothing-to-refund"
    status = 409
    title = _("The player has nothing in this game's escrow")


class NothingToVoidProblem(Problem):
    slug = "nothing-to-void"
    status = 409
    title = _("No player has anything in this game's escrow")
    description = (
        "A void gives every player's stake back at once; here every stake is back already "
        "(voided under another reference, or refunded)."
    )


# --- Exchange rates -------------------------------------------------------------------
class FxRateUnavailableProblem(Problem):
    slug = "fx-rate-unavailable"
    status = 409
    title = _("No exchange rate for this currency pair")


class FxRateStaleProblem(Problem):
    slug = "fx-rate-stale"
    status = 409
    title = _("The latest exchange rate is too old to move money with")


class ExchangeRateInvalidProblem(Problem):
    slug = "exchange-rate-invalid"
    status = 422
    title = _("The exchange rate is not valid")


class ExchangeRateConflictProblem(Problem):
    slug = "exchange-rate-conflict"
    status = 409
    title = _("A different rate is already recorded for this pair, time and source")


class CashierCapsInvalidProblem(Problem):
    slug = "cashier-caps-invalid"
    status = 422
    title = _("The cashier caps are not consistent")
    description = (
        "A cap is unknown, not a whole number of minor units (or null), out of range, or a "
        "minimum (min_deposit, min_withdrawal) is above its maximum. Checked alike when caps "
        "are set, when a raise is proposed and when it is approved, so a proposal that "
        "could not be applied is never recorded. `field` names the cap."
    )


# --- Corrections ------------------------------------------------------------------------
class TransactionNotReversibleProblem(Problem):
    slug = "transaction-not-reversible"
    status = 409
    title = _("This transaction cannot be reversed")


class AlreadyReversedProblem(Problem):
    slug = "already-reversed"
    status = 409
    title = _("The transaction is already reversed")


# --- Seamless wallet (docs/wallet.md "Seamless wallet") -------------------------------------
class WalletUnavailableProblem(Problem):
    slug = "wallet-unavailable"
    status = 503
    title = _("The operator's wallet did not answer")
    description = (
        "Seamless mode: the operator's wallet did not answer the buy-in's debit in time "
        "(timeout, 5xx, connection error), or the debit was rolled back before the seat "
        "took it; there is no seat. Its rollback is tried at once: `rollback_pending` false, "
        "the operator acknowledged it and nothing is charged; true, it is not acknowledged "
        "yet, so the operator's wallet may hold `amount` of the player's money until it is "
        "(the platform keeps sending it, next at `rollback_next_attempt_at`, and "
        "GET /api/v1/me/wallet lists it under `pending_rollbacks`). `transaction_id` is the "
        "debit's, `rollback_transaction_id` the rollback's. Try again later."
    )


class SeamlessWalletModeProblem(Problem):
    slug = "seamless-wallet-mode"
    status = 409
    title = _("The operator keeps its players' balances (seamless wallet)")
    description = (
        "The operator's wallet is in seamless mode: the platform calls the operator's wallet "
        "for every buy-in and payout, so deposits and withdrawals through the platform are "
        "refused, and tables are played in the player's wallet currency only."
    )


class WalletModeSwitchRefusedProblem(Problem):
    slug = "wallet-mode-switch-refused"
    status = 409
    title = _("The wallet mode cannot change while players' money is in the platform")
    description = (
        "Switching between transfer and seamless mode needs every platform wallet of the "
        "operator's players empty, no open escrow and no wallet call in flight. "
        "`funded_wallets`, `open_escrows` and `calls_in_flight` say what is left."
    )


class OperatorWalletInvalidProblem(Problem):
    slug = "operator-wallet-invalid"
    status = 422
    title = _("The wallet settings are not valid")
    description = (
        "`mode` is transfer or seamless; seamless needs a `base_url` allowed like a webhook "
        "URL, without a `?query`; `timeout_ms` is 100 to 30000. `field` names the field. "
        "A field of the wrong JSON type (`timeout_ms` not an integer; `mode` or `base_url` "
        "null, a boolean, an object or a list) is validation-error instead."
    )


class ConfiscationInvalidProblem(Problem):
    slug = "confiscation-invalid"
    status = 422
    title = _("The confiscation is not valid")
    description = (
        "A confiscation (integrity's cases, four eyes) moves one real currency from the "
        "colluder to at least one victim, each victim once and never the colluder, every "
        "wallet in that currency, players of different operators only through the network; "
        "`field` names what is wrong."
    )

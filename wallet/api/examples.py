"""Examples of the wallet endpoints' writes for the OpenAPI document (docs/api.md).

Taken from real answers of the API (ids and times replaced by stable values); every one is
checked against its schema by tests/platform/test_openapi_document.py. Amounts are decimal
strings with their currency, as everywhere in the API.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

from gin_platform.http.openapi import problem_example, problem_response
from wallet.problems import (
    AlreadyReversedProblem,
    AmountInvalidProblem,
    CapExceededProblem,
    CurrencyMismatchProblem,
    ExchangeRateConflictProblem,
    InsufficientFundsProblem,
    KycRequiredProblem,
    LimitExceededProblem,
    PracticeTopUpTooSoonProblem,
    SelfExcludedProblem,
    SelfExclusionPeriodInvalidProblem,
    TimedOutProblem,
    TimeOutPeriodInvalidProblem,
    WalletModeSwitchRefusedProblem,
)

OPERATOR_ID = "5408f625-bf01-4e11-8fbb-35b4bfc1fa10"
PLAYER_ID = "86d94968-00df-4cd7-8c65-245f055edd98"
PLAYER_PATH = f"/api/v1/players/{PLAYER_ID}"


def request(name: str, value: dict, summary: str = "") -> OpenApiExample:
    return OpenApiExample(name, value=value, summary=summary, request_only=True)


def response(name: str, value: dict, status: int, summary: str = "") -> OpenApiExample:
    return OpenApiExample(
        name, value=value, summary=summary, response_only=True, status_codes=[str(status)]
    )


def eur(amount: str) -> dict[str, str]:
    return {"amount": amount, "currency": "EUR"}


def _movement(
    txn_id: int, kind: str, reference: str, amount: str, change: str, after: str, metadata: dict
) -> dict:
    """A cashier movement as the operator sees it (WalletOperatorTransactionOutput): the
    outside world's account moves the other way."""
    outside = amount if change.startswith("-") else f"-{amount}"
    return {
        "id": txn_id,
        "reference": f"{kind}:{OPERATOR_ID}:{reference}",
        "kind": kind,
        "created_at": "2026-11-29T16:50:15.043989Z",
        "game_ref": None,
        "amount": eur(amount),
        "wallet_change": eur(change),
        "balance_after": eur(after),
        "reverses": None,
        "reversed_by": None,
        "entries": [
            {
                "account": "outside",
                "component": kind,
                "amount": outside,
                "currency": "EUR",
                "balance_after": None,
            },
            {
                "account": "player",
                "component": kind,
                "amount": change,
                "currency": "EUR",
                "balance_after": after,
            },
        ],
        "fx": [],
        "metadata": metadata,
    }


# --- Deposits and withdrawals ----------------------------------------------------------------
DEPOSIT = [
    request(
        "card deposit",
        {
            "amount": "50.00",
            "currency": "EUR",
            "reference": "dep-20261129-0001",
            "metadata": {"method": "card", "psp_ref": "pi_3QkZ2v"},
        },
        "50.00 EUR with your cashier's reference and notes",
    ),
    request(
        "minimal",
        {"amount": "12.50", "currency": "EUR"},
        "The Idempotency-Key is the reference",
    ),
    response(
        "credited",
        _movement(
            101,
            "deposit",
            "dep-20261129-0001",
            "50.00",
            "50.00",
            "80.00",
            {"method": "card", "psp_ref": "pi_3QkZ2v"},
        ),
        201,
    ),
]
DEPOSIT_REFUSED = problem_response(
    "Refused: the amount, the currency, a cap or the player's own limit",
    problem_example(
        AmountInvalidProblem,
        '12.5 is not an amount: send a JSON string such as "12.50" (ASCII digits, at most '
        "the currency's decimals), never a JSON number",
        instance=f"{PLAYER_PATH}/deposits",
        field="amount",
    ),
    problem_example(
        CurrencyMismatchProblem,
        "the player's wallet is in EUR, not USD",
        instance=f"{PLAYER_PATH}/deposits",
        field="currency",
        wallet_currency="EUR",
    ),
    problem_example(
        LimitExceededProblem,
        "the player's day deposit limit is 100.00 EUR; 50.00 is left",
        instance=f"{PLAYER_PATH}/deposits",
        limit="deposit_day",
        value=eur("100.00"),
        remaining=eur("50.00"),
        window_start="2026-11-29T00:00:00+00:00",
        window_end="2026-11-30T00:00:00+00:00",
    ),
    problem_example(
        CapExceededProblem,
        "the largest deposit is 5000.00",
        instance=f"{PLAYER_PATH}/deposits",
        cap="max_deposit",
        limit=eur("5000.00"),
        remaining=eur("5000.00"),
    ),
)
DEPOSIT_ON_BREAK = problem_response(
    "self-excluded, timed-out: no deposits until the player's break ends",
    problem_example(
        SelfExcludedProblem,
        "the player is self-excluded until 2026-12-29T16:50:15.270210+00:00",
        instance=f"{PLAYER_PATH}/deposits",
        until="2026-12-29T16:50:15.270210+00:00",
    ),
    problem_example(
        TimedOutProblem,
        "the player is taking a time-out until 2026-12-06T16:50:15.270210+00:00",
        instance=f"{PLAYER_PATH}/deposits",
        until="2026-12-06T16:50:15.270210+00:00",
    ),
)
WITHDRAWAL = [
    request(
        "bank transfer",
        {
            "amount": "20.00",
            "currency": "EUR",
            "reference": "wd-20261129-0001",
            "metadata": {"method": "bank_transfer"},
        },
    ),
    response(
        "debited",
        _movement(
            102,
            "withdrawal",
            "wd-20261129-0001",
            "20.00",
            "-20.00",
            "60.00",
            {"method": "bank_transfer"},
        ),
        201,
    ),
]
WITHDRAWAL_INSUFFICIENT = problem_response(
    "insufficient-funds: `available` is what the wallet holds",
    problem_example(
        InsufficientFundsProblem,
        "the player wallet holds 60.00 EUR, 500.00 is needed",
        instance=f"{PLAYER_PATH}/withdrawals",
        available=eur("60.00"),
        needed=eur("500.00"),
    ),
)

WITHDRAWAL_KYC = problem_response(
    "kyc-required: withdrawals need a verified identity",
    problem_example(
        KycRequiredProblem,
        "withdrawals need a verified identity (kyc_status is pending)",
        instance=f"{PLAYER_PATH}/withdrawals",
        kyc_status="pending",
    ),
)

# --- Limits and breaks (time-outs, self-exclusion) ----------------------------------------
LIMIT_SET = [
    request("daily deposit limit", {"kind": "deposit", "period": "day", "amount": "100.00"}),
    request(
        "remove the weekly loss limit",
        {"kind": "loss", "period": "week", "amount": None},
        "Takes effect after the jurisdiction's cooling-off (24 hours; es 3 days, it 7 days)",
    ),
    response(
        "in force",
        {
            "kind": "deposit",
            "period": "day",
            "currency": "EUR",
            "amount": "100.00",
            "pending_amount": None,
            "pending_effective_at": None,
            "pending_removal": False,
            "used": "50.00",
            "remaining": "50.00",
            "window_start": "2026-11-29T00:00:00Z",
            "window_end": "2026-11-30T00:00:00Z",
        },
        200,
        "A decrease applies at once",
    ),
]
LIMIT_SET_REFUSED = problem_response(
    "amount-invalid (and the other amount problems)",
    problem_example(
        AmountInvalidProblem,
        '100 is not an amount: send a JSON string such as "12.50" (ASCII digits, at most '
        "the currency's decimals), never a JSON number",
        instance=f"{PLAYER_PATH}/limits",
        field="amount",
    ),
)
_BREAK = {
    "id": 12,
    "kind": "self_exclusion",
    "starts_at": "2026-11-29T16:50:15.270210Z",
    "ends_at": "2027-05-31T16:50:15.270210Z",
    "days": 183,
    "reason": "Player asked for a break",
    "created_at": "2026-11-29T16:50:15.270210Z",
}
SELF_EXCLUSION = [
    request("six months", {"days": 183, "reason": "Player asked for a break"}),
    response("excluded", _BREAK, 201),
    response(
        "already excluded for longer",
        _BREAK | {"id": 9, "days": 365, "ends_at": "2027-11-29T16:50:15.270210Z"},
        200,
        "Nothing added: the self-exclusion in force runs as long",
    ),
]
SELF_EXCLUSION_REFUSED = problem_response(
    "self-exclusion-period-invalid: the jurisdiction's minimum to 3650 days",
    problem_example(
        SelfExclusionPeriodInvalidProblem,
        "days must be between 183 and 3650",
        instance=f"{PLAYER_PATH}/self-exclusion",
        minimum_days=183,
        maximum_days=3650,
    ),
)
_TIME_OUT = _BREAK | {
    "id": 13,
    "kind": "time_out",
    "ends_at": "2026-12-06T16:50:15.270210Z",
    "days": 7,
    "reason": "",
}
TIME_OUT = [
    request("a week", {"days": 7}),
    response("timed out", _TIME_OUT, 201),
    response(
        "already on a longer break",
        _TIME_OUT | {"id": 11, "days": 30, "ends_at": "2026-12-29T16:50:15.270210Z"},
        200,
        "Nothing added: the break in force runs as long",
    ),
]
TIME_OUT_REFUSED = problem_response(
    "time-out-period-invalid: one of the periods allowed",
    problem_example(
        TimeOutPeriodInvalidProblem,
        "a time-out lasts 1, 7, 30 or 42 days",
        instance=f"{PLAYER_PATH}/time-out",
        allowed_days=[1, 7, 30, 42],
    ),
)

# --- Practice chips --------------------------------------------------------------------------
_CHIPS = {"amount": "10000", "currency": "XGC"}
_TOP_UP = {
    "id": 103,
    "reference": f"practice-top-up:{PLAYER_ID}:2026-11-29T16:00:00Z",
    "kind": "practice_top_up",
    "created_at": "2026-11-29T16:50:15.205438Z",
    "game_ref": None,
    "amount": {"amount": "2500", "currency": "XGC"},
    "wallet_change": {"amount": "2500", "currency": "XGC"},
    "balance_after": _CHIPS,
    "reverses": None,
    "reversed_by": None,
    "entries": [
        {
            "account": "outside",
            "component": "practice_top_up",
            "amount": "-2500",
            "currency": "XGC",
            "balance_after": None,
        },
        {
            "account": "player",
            "component": "practice_top_up",
            "amount": "2500",
            "currency": "XGC",
            "balance_after": "10000",
        },
    ],
    "fx": [],
}
_TOP_UP_METADATA = {
    "target": 10000,
    "balance_before": 7500,
    "window_start": "2026-11-29T16:00:00+00:00",
    "window_end": "2026-11-29T17:00:00+00:00",
}
_WALLET: dict[str, object] = {
    "player_id": PLAYER_ID,
    "wallet_mode": "transfer",
    "balance": {
        "amount": "80.00",
        "currency": "EUR",
        "display": {
            "amount": "85.76",
            "currency": "USD",
            "rate": "1.072",
            "as_of": "2026-11-29T16:00:00+00:00",
        },
    },
    "operator_balance": None,
    "practice_balance": _CHIPS,
    "kyc_status": "verified",
    "self_excluded_until": None,
    "timed_out_until": None,
    "rollback_pending": False,
    "pending_rollbacks": [],
}
WALLET = [
    response("transfer", _WALLET, 200, "The platform holds the balance"),
    response(
        "seamless, a rollback pending",
        _WALLET
        | {
            "wallet_mode": "seamless",
            "balance": {"amount": "0.00", "currency": "EUR", "display": None},
            "operator_balance": {"amount": "87.50", "currency": "EUR", "display": None},
            "rollback_pending": True,
            "pending_rollbacks": [
                {
                    "transaction_id": "2b9d4f61-3c8e-4a57-b1d2-7e6f5a4c3b20",
                    "rolls_back": "8f1c2e4a-6b7d-4c3e-9a10-5d2f7e8b9c01",
                    "amount": {"amount": "12.50", "currency": "EUR"},
                    "since": "2026-11-29T20:15:02.913404Z",
                    "next_attempt_at": "2026-11-29T20:15:23.104000Z",
                    "attempts": 3,
                }
            ],
        },
        200,
        "A buy-in's debit was not answered and its rollback not acknowledged yet: the "
        "operator's wallet may hold 12.50 EUR of the player's until it is",
    ),
]
OPERATOR_TOP_UP = [
    response(
        "topped up",
        _TOP_UP | {"metadata": _TOP_UP_METADATA},
        201,
        "7500 chips left: 2500 more make the grant",
    ),
    response("nothing to do", _WALLET, 200, "The wallet already holds the grant"),
]
PLAYER_TOP_UP = [
    response("topped up", _TOP_UP, 201, "7500 chips left: 2500 more make the grant"),
    response("nothing to do", _WALLET, 200, "The wallet already holds the grant"),
]
TOP_UP_TOO_SOON = problem_response(
    "practice-top-up-too-soon: once per period",
    problem_example(
        PracticeTopUpTooSoonProblem,
        "the practice chips were topped up at 2026-11-29T16:50:15.205438+00:00; the next "
        "top-up is possible from 2026-11-29T17:00:00+00:00",
        instance="/api/v1/me/wallet/practice-chips/top-up",
        transaction_id=103,
        window_start="2026-11-29T16:00:00+00:00",
        window_end="2026-11-29T17:00:00+00:00",
        next_top_up_at="2026-11-29T17:00:00+00:00",
    ),
)

# --- Staff -----------------------------------------------------------------------------------
EXCHANGE_RATE = [
    request(
        "ECB reference rate",
        {
            "base": "EUR",
            "quote": "USD",
            "rate": "1.0720",
            "as_of": "2026-11-29T16:00:00Z",
            "source": "ecb",
        },
        "1 EUR = 1.0720 USD",
    ),
    response(
        "recorded",
        {
            "id": 57,
            "base": "EUR",
            "quote": "USD",
            "rate": "1.072",
            "as_of": "2026-11-29T16:00:00Z",
            "source": "ecb",
            "created_at": "2026-11-29T16:05:12.203123Z",
        },
        201,
    ),
]
EXCHANGE_RATE_CONFLICT = problem_response(
    "exchange-rate-conflict: another rate for this pair, time and source",
    problem_example(
        ExchangeRateConflictProblem,
        "ecb already published 1 EUR = 1.072 USD as of 2026-11-29T16:00:00+00:00",
        instance="/api/v1/staff/exchange-rates",
    ),
)
_CAPS = {
    "min_deposit": "10.00",
    "max_deposit": "5000.00",
    "min_withdrawal": "20.00",
    "max_withdrawal": "10000.00",
    "daily_deposit_cap": "2000.00",
    "weekly_deposit_cap": "5000.00",
    "monthly_deposit_cap": "15000.00",
}
CASHIER_CAPS = [
    request("every cap", _CAPS),
    request("deposits only", {"min_deposit": "10.00", "daily_deposit_cap": "2000.00"}),
    response(
        "replaced",
        {"operator_id": OPERATOR_ID, "currency": "EUR"}
        | _CAPS
        | {"updated_at": "2026-11-29T16:50:16.250737Z"},
        200,
    ),
]
CASHIER_CAPS_REFUSED = problem_response(
    "amount-invalid (naming the cap)",
    problem_example(
        AmountInvalidProblem,
        "'ten' is not a decimal amount like '12.50'",
        instance=f"/api/v1/staff/operators/{OPERATOR_ID}/cashier-caps/EUR",
        field="min_deposit",
    ),
)
REVERSAL = [
    request(
        "returned transfer",
        {"reference": "ticket-4712", "reason": "Bank transfer returned: account closed"},
    ),
    response(
        "reversed",
        {
            "id": 115,
            "operator_id": OPERATOR_ID,
            "reference": "reversal:ticket-4712",
            "kind": "reversal",
            "created_at": "2026-11-29T16:50:48.400910Z",
            "game_ref": None,
            "player_id": PLAYER_ID,
            "amount": eur("20.00"),
            "reverses": 102,
            "reversed_by": None,
            "entries": [
                {
                    "account_id": 2,
                    "account": "player",
                    "player_id": PLAYER_ID,
                    "component": "withdrawal",
                    "amount": "20.00",
                    "currency": "EUR",
                    "balance_after": "80.00",
                },
                {
                    "account_id": 1,
                    "account": "outside",
                    "player_id": PLAYER_ID,
                    "component": "withdrawal",
                    "amount": "-20.00",
                    "currency": "EUR",
                    "balance_after": "-80.00",
                },
            ],
            "fx": [],
            "metadata": {
                "reason": "Bank transfer returned: account closed",
                "reverses": f"withdrawal:{OPERATOR_ID}:wd-20261129-0001",
            },
            "actor_type": "staff",
            "actor_id": "4",
        },
        201,
    ),
]
REVERSAL_REFUSED = problem_response(
    "already-reversed, or insufficient-funds when the wallet no longer holds the amount",
    problem_example(
        AlreadyReversedProblem,
        "transaction #102 is already reversed",
        instance="/api/v1/staff/ledger/transactions/102/reversal",
    ),
    problem_example(
        InsufficientFundsProblem,
        "the player wallet holds 30.00 EUR, 50.00 is needed",
        instance="/api/v1/staff/ledger/transactions/101/reversal",
        available=eur("30.00"),
        needed=eur("50.00"),
    ),
)


# --- Seamless wallet --------------------------------------------------------------------------
OPERATOR_WALLET = [
    request(
        "seamless",
        {"mode": "seamless", "base_url": "https://wallet.example.com/gin", "timeout_ms": 3000},
    ),
    request("transfer", {"mode": "transfer"}),
    response(
        "seamless",
        {
            "mode": "seamless",
            "base_url": "https://wallet.example.com/gin",
            "timeout_ms": 3000,
            "updated_at": "2026-11-30T19:10:00.000000Z",
        },
        200,
    ),
]
OPERATOR_WALLET_REFUSED = problem_response(
    "wallet-mode-switch-refused",
    problem_example(
        WalletModeSwitchRefusedProblem,
        "empty the players' platform wallets and finish the open games first",
        instance="/api/v1/operators/me/wallet",
        funded_wallets=3,
        open_escrows=1,
        calls_in_flight=0,
    ),
)

"""Deposits and withdrawals, every bad input and every cap boundary."""

from datetime import UTC, datetime, timedelta

import pytest

from gin_platform.models import AuditEvent, Player
from tests.factories import PlayerFactory
from tests.helpers import assert_problem, freeze_now
from tests.wallet.factories import SYSTEM, CashierCapsFactory, fund, ref
from wallet import services
from wallet.models import LedgerEntry, LedgerTransaction
from wallet.problems import (
    AmountBelowMinimumProblem,
    AmountNotPositiveProblem,
    CapExceededProblem,
    CurrencyMismatchProblem,
    InsufficientFundsProblem,
    KycRequiredProblem,
    ReferenceConflictProblem,
)
from wallet.selectors import balances, limits, reconciliation

pytestmark = pytest.mark.django_db


def deposits_url(player) -> str:
    return f"/api/v1/players/{player.pk}/deposits"


def withdrawals_url(player) -> str:
    return f"/api/v1/players/{player.pk}/withdrawals"


def assert_nothing_posted(before: int = 0) -> None:
    assert LedgerTransaction.objects.count() == before
    assert reconciliation.reconcile().ok


@pytest.fixture
def clock(monkeypatch):
    """Pin ``timezone.now()`` for the services and selectors: ``clock.set(datetime)``."""
    return freeze_now(monkeypatch, datetime(2026, 3, 4, 12, 0, tzinfo=UTC))


# --- Happy paths ---------------------------------------------------------------------------
def test_a_deposit_credits_the_wallet_from_the_outside_world(operator_client, player, idem):
    response = operator_client.post(
        deposits_url(player),
        {"amount": "12.50", "currency": "eur", "metadata": {"psp": "x-1"}},
        format="json",
        **idem(),
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["kind"] == "deposit"
    assert body["amount"] == {"amount": "12.50", "currency": "EUR"}
    assert body["wallet_change"] == {"amount": "12.50", "currency": "EUR"}
    assert body["balance_after"] == {"amount": "12.50", "currency": "EUR"}
    assert body["metadata"] == {"psp": "x-1"}
    assert balances.wallet_balance(player=player) == 1250
    txn = LedgerTransaction.objects.get()
    assert sorted(txn.entries.values_list("account__kind", "amount")) == [
        ("outside", -1250),
        ("player", 1250),
    ]
    assert AuditEvent.objects.filter(action="ledger.deposit", object_id=str(txn.pk)).exists()


def test_a_withdrawal_debits_the_wallet(operator_client, player, idem):
    fund(player, 5000)
    response = operator_client.post(
        withdrawals_url(player), {"amount": "20.00", "currency": "EUR"}, format="json", **idem()
    )
    assert response.status_code == 201, response.content
    assert response.json()["wallet_change"] == {"amount": "-20.00", "currency": "EUR"}
    assert balances.wallet_balance(player=player) == 3000
    assert reconciliation.reconcile().ok


def test_an_idempotency_key_replay_posts_once(operator_client, player):
    headers = {"HTTP_IDEMPOTENCY_KEY": "dep-1"}
    body = {"amount": "5.00", "currency": "EUR"}
    first = operator_client.post(deposits_url(player), body, format="json", **headers)
    second = operator_client.post(deposits_url(player), body, format="json", **headers)
    assert first.status_code == second.status_code == 201
    assert first.json() == second.json()
    assert second["Idempotent-Replayed"] == "true"
    assert balances.wallet_balance(player=player) == 500


def test_the_same_cashier_reference_under_two_keys_posts_once(operator_client, player, idem):
    body = {"amount": "5.00", "currency": "EUR", "reference": "psp-77"}
    first = operator_client.post(deposits_url(player), body, format="json", **idem())
    second = operator_client.post(deposits_url(player), body, format="json", **idem())
    assert first.json()["id"] == second.json()["id"]
    assert balances.wallet_balance(player=player) == 500
    other = operator_client.post(
        deposits_url(player), body | {"amount": "6.00"}, format="json", **idem()
    )
    assert_problem(other, 409, "reference-conflict")
    assert balances.wallet_balance(player=player) == 500


def test_a_service_reference_is_idempotent_and_refuses_a_different_request(player):
    reference = ref()
    first = services.deposit(
        player=player, amount=100, currency="EUR", reference=reference, actor=SYSTEM
    )
    again = services.deposit(
        player=player, amount=100, currency="EUR", reference=reference, actor=SYSTEM
    )
    assert again.pk == first.pk
    with pytest.raises(ReferenceConflictProblem):
        services.deposit(
            player=player, amount=101, currency="EUR", reference=reference, actor=SYSTEM
        )
    with pytest.raises(ReferenceConflictProblem):
        services.withdraw(
            player=player, amount=100, currency="EUR", reference=reference, actor=SYSTEM
        )
    assert balances.wallet_balance(player=player) == 100


# --- Bad input: each its own type, nothing posted ---------------------------------------
@pytest.mark.parametrize(
    ("amount", "currency", "status", "slug"),
    [
        ("12.505", "EUR", 422, "amount-too-precise"),
        ("0.001", "EUR", 422, "amount-too-precise"),
        ("0", "EUR", 422, "amount-not-positive"),
        ("0.00", "EUR", 422, "amount-not-positive"),
        ("-5.00", "EUR", 422, "amount-not-positive"),
        ("abc", "EUR", 422, "amount-invalid"),
        ("1e3", "EUR", 422, "amount-invalid"),
        (12.5, "EUR", 422, "amount-invalid"),  # a JSON number is a float: refused
        (None, "EUR", 400, "validation-error"),
        ("10.00", "ZZZ", 422, "unknown-currency"),
        ("10.00", "DEM", 422, "unknown-currency"),
        ("10.00", "USD", 422, "currency-mismatch"),
        ("10", "XGC", 422, "practice-chips-not-convertible"),
    ],
)
def test_bad_deposit_input(operator_client, player, idem, amount, currency, status, slug):
    response = operator_client.post(
        deposits_url(player), {"amount": amount, "currency": currency}, format="json", **idem()
    )
    assert_problem(response, status, slug)
    assert_nothing_posted()


def test_too_many_decimals_depends_on_the_currency(operator_client, operator, idem):
    yen = PlayerFactory(operator=operator, wallet_currency="JPY")
    body = assert_problem(
        operator_client.post(
            deposits_url(yen), {"amount": "1.5", "currency": "JPY"}, format="json", **idem()
        ),
        422,
        "amount-too-precise",
    )
    assert body["exponent"] == 0
    dinar = PlayerFactory(operator=operator, wallet_currency="KWD")
    ok = operator_client.post(
        deposits_url(dinar), {"amount": "1.234", "currency": "KWD"}, format="json", **idem()
    )
    assert ok.status_code == 201
    assert balances.wallet_balance(player=dinar) == 1234


def test_the_service_refuses_non_integer_and_non_positive_amounts(player):
    for bad in (0, -1):
        with pytest.raises(AmountNotPositiveProblem):
            services.deposit(
                player=player, amount=bad, currency="EUR", reference=ref(), actor=SYSTEM
            )
    with pytest.raises(CurrencyMismatchProblem):
        services.deposit(player=player, amount=1, currency="USD", reference=ref(), actor=SYSTEM)
    assert_nothing_posted()


def test_insufficient_funds_names_what_is_available(operator_client, player, idem):
    fund(player, 1000)
    body = assert_problem(
        operator_client.post(
            withdrawals_url(player), {"amount": "10.01", "currency": "EUR"}, format="json", **idem()
        ),
        409,
        "insufficient-funds",
    )
    assert body["available"] == {"amount": "10.00", "currency": "EUR"}
    assert_nothing_posted(before=1)
    exact = operator_client.post(
        withdrawals_url(player), {"amount": "10.00", "currency": "EUR"}, format="json", **idem()
    )
    assert exact.status_code == 201
    assert balances.wallet_balance(player=player) == 0


def test_withdrawals_need_kyc(operator_client, operator, idem):
    player = PlayerFactory(operator=operator, kyc_status=Player.KycStatus.PENDING)
    fund(player, 1000)
    body = assert_problem(
        operator_client.post(
            withdrawals_url(player), {"amount": "1.00", "currency": "EUR"}, format="json", **idem()
        ),
        403,
        "kyc-required",
    )
    assert body["kyc_status"] == "pending"
    assert_nothing_posted(before=1)
    with pytest.raises(KycRequiredProblem):
        services.withdraw(player=player, amount=1, currency="EUR", reference=ref(), actor=SYSTEM)


def test_an_inactive_player_cannot_deposit_but_can_withdraw(operator_client, player, idem):
    fund(player, 1000)
    Player.objects.filter(pk=player.pk).update(status=Player.Status.SUSPENDED)
    assert_problem(
        operator_client.post(
            deposits_url(player), {"amount": "1.00", "currency": "EUR"}, format="json", **idem()
        ),
        409,
        "player-inactive",
    )
    response = operator_client.post(
        withdrawals_url(player), {"amount": "10.00", "currency": "EUR"}, format="json", **idem()
    )
    assert response.status_code == 201


def test_a_self_excluded_player_cannot_deposit_but_can_withdraw(operator_client, player, idem):
    fund(player, 1000)
    services.self_exclusion_create(player=player, days=30, actor=SYSTEM)
    body = assert_problem(
        operator_client.post(
            deposits_url(player), {"amount": "1.00", "currency": "EUR"}, format="json", **idem()
        ),
        403,
        "self-excluded",
    )
    assert body["until"]
    assert (
        operator_client.post(
            withdrawals_url(player), {"amount": "10.00", "currency": "EUR"}, format="json", **idem()
        ).status_code
        == 201
    )


def test_another_operators_player_is_404(operator_client, idem):
    stranger = PlayerFactory()
    for url in (deposits_url(stranger), withdrawals_url(stranger)):
        response = operator_client.post(
            url, {"amount": "1.00", "currency": "EUR"}, format="json", **idem()
        )
        assert_problem(response, 404, "not-found")
    assert_nothing_posted()


def test_a_write_needs_an_idempotency_key(operator_client, player):
    response = operator_client.post(
        deposits_url(player), {"amount": "1.00", "currency": "EUR"}, format="json"
    )
    assert_problem(response, 400, "idempotency-key-missing")


# --- Cashier caps: exactly at, one minor unit over ---------------------------------------
@pytest.fixture
def caps(operator):
    return CashierCapsFactory(operator=operator)


def _deposit(player, amount):
    return services.deposit(
        player=player, amount=amount, currency="EUR", reference=ref(), actor=SYSTEM
    )


def _withdraw(player, amount):
    return services.withdraw(
        player=player, amount=amount, currency="EUR", reference=ref(), actor=SYSTEM
    )


def test_min_and_max_per_deposit(operator_client, player, caps, idem):
    caps.min_deposit, caps.max_deposit = 1000, 50000
    caps.save()
    below = operator_client.post(
        deposits_url(player), {"amount": "9.99", "currency": "EUR"}, format="json", **idem()
    )
    body = assert_problem(below, 422, "amount-below-minimum")
    assert body["cap"] == "min_deposit"
    assert body["minimum"] == {"amount": "10.00", "currency": "EUR"}
    over = operator_client.post(
        deposits_url(player), {"amount": "500.01", "currency": "EUR"}, format="json", **idem()
    )
    body = assert_problem(over, 422, "cap-exceeded")
    assert body["cap"] == "max_deposit"
    assert body["limit"] == {"amount": "500.00", "currency": "EUR"}
    assert_nothing_posted()
    _deposit(player, 1000)
    _deposit(player, 50000)
    assert balances.wallet_balance(player=player) == 51000


def test_min_and_max_per_withdrawal(player, caps):
    caps.min_withdrawal, caps.max_withdrawal = 500, 2000
    caps.save()
    fund(player, 10000)
    with pytest.raises(AmountBelowMinimumProblem) as below:
        _withdraw(player, 499)
    assert below.value.extensions["cap"] == "min_withdrawal"
    with pytest.raises(CapExceededProblem) as over:
        _withdraw(player, 2001)
    assert over.value.extensions["cap"] == "max_withdrawal"
    _withdraw(player, 500)
    _withdraw(player, 2000)
    assert balances.wallet_balance(player=player) == 7500


@pytest.mark.parametrize(
    ("field", "period"),
    [
        ("daily_deposit_cap", "day"),
        ("weekly_deposit_cap", "week"),
        ("monthly_deposit_cap", "month"),
    ],
)
def test_window_deposit_caps_exactly_at_and_one_over(player, caps, field, period):
    setattr(caps, field, 10000)
    caps.save()
    _deposit(player, 6000)
    with pytest.raises(CapExceededProblem) as over:
        _deposit(player, 4001)
    problem = over.value
    assert problem.extensions["cap"] == field
    assert problem.extensions["limit"] == {"amount": "100.00", "currency": "EUR"}
    assert problem.extensions["remaining"] == {"amount": "40.00", "currency": "EUR"}
    assert "window_start" in problem.extensions and "window_end" in problem.extensions
    _deposit(player, 4000)  # exactly at the cap
    with pytest.raises(CapExceededProblem) as full:
        _deposit(player, 1)
    assert full.value.extensions["remaining"] == {"amount": "0.00", "currency": "EUR"}
    assert balances.wallet_balance(player=player) == 10000
    assert LedgerTransaction.objects.filter(kind="deposit").count() == 2


def test_caps_are_per_player_and_per_currency(operator, player, caps):
    caps.daily_deposit_cap = 1000
    caps.save()
    other = PlayerFactory(operator=operator)
    _deposit(player, 1000)
    with pytest.raises(CapExceededProblem):  # the player's day is full...
        _deposit(player, 1)
    _deposit(other, 1000)  # ...another player's deposits do not count
    usd = PlayerFactory(operator=operator, wallet_currency="USD")
    services.deposit(player=usd, amount=5000, currency="USD", reference=ref(), actor=SYSTEM)
    assert balances.wallet_balance(player=player) == 1000
    assert balances.wallet_balance(player=other) == 1000
    assert balances.wallet_balance(player=usd) == 5000  # the EUR caps do not bind USD


def test_the_daily_window_turns_at_midnight_utc(player, caps, clock):
    caps.daily_deposit_cap = 1000
    caps.save()
    clock.set(datetime(2026, 3, 4, 23, 59, 59, 999999, tzinfo=UTC))
    _deposit(player, 1000)
    with pytest.raises(CapExceededProblem) as over:
        _deposit(player, 1)
    assert over.value.extensions["window_end"] == "2026-03-05T00:00:00+00:00"
    clock.set(datetime(2026, 3, 5, 0, 0, tzinfo=UTC))
    _deposit(player, 1000)
    assert balances.wallet_balance(player=player) == 2000


def test_the_weekly_window_turns_on_monday_midnight_utc(player, caps, clock):
    caps.weekly_deposit_cap = 1000
    caps.save()
    clock.set(datetime(2026, 3, 2, 0, 0, tzinfo=UTC))  # a Monday: the first instant of a week
    _deposit(player, 600)
    clock.set(datetime(2026, 3, 8, 23, 59, 59, 999999, tzinfo=UTC))  # Sunday, last instant
    with pytest.raises(CapExceededProblem) as over:
        _deposit(player, 401)
    assert over.value.extensions["window_start"] == "2026-03-02T00:00:00+00:00"
    assert over.value.extensions["window_end"] == "2026-03-09T00:00:00+00:00"
    _deposit(player, 400)
    clock.set(datetime(2026, 3, 9, 0, 0, tzinfo=UTC))
    _deposit(player, 1000)


@pytest.mark.parametrize(
    ("last", "first"),
    [
        (datetime(2026, 1, 31, 23, 59, 59, 999999, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)),
        (datetime(2026, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), datetime(2027, 1, 1, tzinfo=UTC)),
    ],
)
def test_the_monthly_window_turns_on_the_first_at_midnight_utc(player, caps, clock, last, first):
    caps.monthly_deposit_cap = 1000
    caps.save()
    clock.set(last)
    _deposit(player, 1000)
    with pytest.raises(CapExceededProblem):
        _deposit(player, 1)
    clock.set(first)
    _deposit(player, 1000)


def test_a_reversed_deposit_still_counts_towards_the_caps(player, caps):
    caps.daily_deposit_cap = 1000
    caps.save()
    txn = _deposit(player, 1000)
    services.transaction_reverse(
        ledger_transaction=txn, reference=ref(), reason="chargeback", actor=SYSTEM
    )
    with pytest.raises(CapExceededProblem):
        _deposit(player, 1)


def test_deposit_entries_carry_the_transaction_time(player, clock):
    clock.set(datetime(2026, 5, 1, 8, 0, tzinfo=UTC))
    txn = _deposit(player, 100)
    assert txn.created_at == clock.moment
    assert set(LedgerEntry.objects.values_list("created_at", flat=True)) == {clock.moment}
    assert limits.deposit_totals(
        account=balances.wallet_account(player=player), at=clock.moment + timedelta(days=1)
    ) == {"day": 0, "week": 100, "month": 100}


def test_withdrawing_more_than_the_balance_is_refused_by_the_service(player):
    fund(player, 100)
    with pytest.raises(InsufficientFundsProblem):
        _withdraw(player, 101)
    assert balances.wallet_balance(player=player) == 100


def test_the_longest_idempotency_key_is_a_valid_reference(operator_client, player):
    response = operator_client.post(
        withdrawals_url(player),
        {"amount": "1.00", "currency": "EUR"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="k" * 255,
    )
    assert response.status_code == 409  # reached the funds check: the reference was fine
    assert response.json()["type"] == "/problems/insufficient-funds"
    fund(player, 100)
    ok = operator_client.post(
        withdrawals_url(player),
        {"amount": "1.00", "currency": "EUR"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="w" * 255,
    )
    assert ok.status_code == 201 and ok.json()["reference"].endswith("w" * 255)

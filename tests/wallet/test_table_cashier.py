"""Table buy-in into a game's escrow, refunds, conversion, practice chips, reversal (the
settlement that empties the escrow: test_escrow_settle.py).

This is the contract ``games`` and ``settlement`` code against (docs/wallet.md).
"""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from gin_platform.models import Player
from gin_platform.money import PRACTICE_CURRENCY
from tests.factories import OperatorFactory, PlayerFactory
from tests.wallet.factories import SYSTEM, ExchangeRateFactory, fund, ref
from tests.wallet.tables import GAME, balance, buy_in, entries, house, refund, settle
from wallet import services
from wallet.models import LedgerTransaction
from wallet.problems import (
    AlreadyReversedProblem,
    EscrowNotFoundProblem,
    EscrowOperatorMismatchProblem,
    EscrowSettledProblem,
    FxRateStaleProblem,
    FxRateUnavailableProblem,
    GameRefInvalidProblem,
    InsufficientFundsProblem,
    LimitExceededProblem,
    NothingToRefundProblem,
    PlayerInactiveProblem,
    PracticeChipsNotConvertibleProblem,
    ReferenceConflictProblem,
    SelfExcludedProblem,
    TransactionNotReversibleProblem,
    UnknownCurrencyProblem,
)
from wallet.selectors import balances, rates
from wallet.services import EscrowPayout

# The ledger reconciles after each test (tests/wallet/conftest.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("reconciled")]


# --- Buy-in -----------------------------------------------------------------------------
def test_a_buy_in_moves_the_stake_into_the_games_escrow(player, opponent):
    fund(player, 5000)
    fund(opponent, 5000)
    txn = buy_in(player, 1000)
    buy_in(opponent, 1000)
    assert txn.kind == "buy_in" and txn.game_ref == GAME and txn.fx == []
    assert entries(txn) == [("escrow", "EUR", 1000, "stake"), ("player", "EUR", -1000, "stake")]
    assert balance(player) == 4000
    assert balances.escrow_balance(game_ref=GAME, currency="EUR") == 2000
    assert balances.escrow_contributions(game_ref=GAME, currency="EUR") == {
        player.pk: 1000,
        opponent.pk: 1000,
    }


def test_a_buy_in_is_idempotent_by_reference(player):
    fund(player, 5000)
    first = buy_in(player, 1000, reference="seat:1")
    assert buy_in(player, 1000, reference="seat:1").pk == first.pk
    assert balance(player) == 4000
    with pytest.raises(ReferenceConflictProblem):
        buy_in(player, 1500, reference="seat:1")
    with pytest.raises(ReferenceConflictProblem):
        buy_in(player, 1000, game="match:43", reference="seat:1")


def test_a_player_may_top_up_the_same_escrow(player):
    fund(player, 5000)
    buy_in(player, 1000)
    buy_in(player, 500)
    assert balances.escrow_contributions(game_ref=GAME, currency="EUR") == {player.pk: 1500}


def test_a_buy_in_without_the_funds_posts_nothing(player):
    fund(player, 999)
    with pytest.raises(InsufficientFundsProblem) as refused:
        buy_in(player, 1000)
    assert refused.value.extensions["available"] == {"amount": "9.99", "currency": "EUR"}
    assert LedgerTransaction.objects.count() == 1
    assert balances.escrow_balance(game_ref=GAME, currency="EUR") == 0
    buy_in(player, 999)
    assert balance(player) == 0


def test_an_inactive_player_cannot_buy_in(player):
    fund(player, 5000)
    Player.objects.filter(pk=player.pk).update(status=Player.Status.SUSPENDED)
    player.refresh_from_db()
    with pytest.raises(PlayerInactiveProblem):
        buy_in(player, 100)
    with pytest.raises(PlayerInactiveProblem):
        buy_in(player, 100, currency=PRACTICE_CURRENCY, game="practice:1")


def test_self_exclusion_blocks_real_money_tables_but_not_practice(player):
    fund(player, 5000)
    services.self_exclusion_create(player=player, days=7, actor=SYSTEM)
    with pytest.raises(SelfExcludedProblem):
        buy_in(player, 100)
    buy_in(player, 100, currency=PRACTICE_CURRENCY, game="practice:1")
    assert balance(player) == 5000


@pytest.mark.parametrize("bad", ["", " ", "x" * 101, None, 42])
def test_a_game_ref_is_a_short_string(player, bad):
    fund(player, 100)
    with pytest.raises(GameRefInvalidProblem):
        buy_in(player, 100, game=bad)


def test_an_unknown_room_currency_is_refused(player):
    with pytest.raises(UnknownCurrencyProblem):
        buy_in(player, 100, currency="ZZZ")


def test_an_escrow_belongs_to_one_operator(player):
    fund(player, 1000)
    buy_in(player, 100)
    stranger = PlayerFactory(operator=OperatorFactory())
    fund(stranger, 1000)
    with pytest.raises(EscrowOperatorMismatchProblem):
        buy_in(stranger, 100)
    assert balance(stranger) == 1000


# --- Loss limits (real money): "a buy-in it could exceed" --------------------------------
def test_a_buy_in_that_could_pass_the_loss_limit_is_refused(player, opponent):
    fund(player, 10000)
    fund(opponent, 10000)
    services.player_limit_set(player=player, kind="loss", period="day", amount=3000, actor=SYSTEM)
    buy_in(player, 2000)
    with pytest.raises(LimitExceededProblem) as over:
        buy_in(player, 1001, game="match:2")
    assert over.value.extensions["limit"] == "loss_day"
    assert over.value.extensions["remaining"] == {"amount": "10.00", "currency": "EUR"}
    buy_in(player, 1000, game="match:2")  # exactly at the limit
    with pytest.raises(LimitExceededProblem):
        buy_in(player, 1, game="match:3")


def test_refunds_and_winnings_count_against_losses(player, opponent):
    fund(player, 10000)
    fund(opponent, 10000)
    services.player_limit_set(player=player, kind="loss", period="week", amount=1000, actor=SYSTEM)
    buy_in(player, 1000)
    refund(player)  # the stake came back: nothing lost
    buy_in(player, 1000)
    buy_in(opponent, 1000)
    settle([EscrowPayout(player, 1000, "stake"), EscrowPayout(player, 1000, "pot")])
    # Up 10.00 this week: a 20.00 buy-in could lose at most 10.00 net.
    buy_in(player, 2000, game="match:2")
    with pytest.raises(LimitExceededProblem):
        buy_in(player, 1, game="match:3")


def test_practice_chips_ignore_loss_limits(player):
    fund(player, 10000)
    services.player_limit_set(player=player, kind="loss", period="day", amount=0, actor=SYSTEM)
    with pytest.raises(LimitExceededProblem):  # the limit holds for money...
        buy_in(player, 500)
    txn = buy_in(player, 500, currency=PRACTICE_CURRENCY, game="practice:1")  # ...not for chips
    assert entries(txn) == [
        ("escrow", PRACTICE_CURRENCY, 500, "stake"),
        ("player", PRACTICE_CURRENCY, -500, "stake"),
    ]
    assert balances.escrow_balance(game_ref="practice:1", currency=PRACTICE_CURRENCY) == 500


# --- Conversion --------------------------------------------------------------------------
def test_a_buy_in_from_another_wallet_currency_converts_rounding_up(operator, usd_player):
    ExchangeRateFactory(base="EUR", quote="USD", rate=Decimal("1.0725"))
    fund(usd_player, 10000)
    txn = buy_in(usd_player, 999)  # 999 EUR cents * 1.0725 = 1071.4275 USD cents
    assert entries(txn) == [
        ("escrow", "EUR", 999, "stake"),
        ("house_fx", "EUR", -999, "fx"),
        ("house_fx", "USD", 1072, "fx"),
        ("player", "USD", -1072, "stake"),
    ]
    (snapshot,) = txn.fx
    assert snapshot["rate"] == "1.0725" and snapshot["rounding"] == "ROUND_CEILING"
    assert snapshot["amount"] == 999 and snapshot["converted"] == 1072
    assert snapshot["base"] == "EUR" and snapshot["quote"] == "USD"
    assert balance(usd_player) == 10000 - 1072
    assert house(operator, "house_fx", "EUR") == -999
    assert house(operator, "house_fx", "USD") == 1072


def test_conversion_uses_the_latest_rate_and_the_reciprocal_of_the_reverse_pair(usd_player):
    now = timezone.now()
    ExchangeRateFactory(base="EUR", quote="USD", rate="1.5", as_of=now - timedelta(hours=2))
    ExchangeRateFactory(base="USD", quote="EUR", rate="0.5", as_of=now - timedelta(hours=1))
    ExchangeRateFactory(base="EUR", quote="USD", rate="9", as_of=now + timedelta(hours=1))
    fund(usd_player, 10000)
    txn = buy_in(usd_player, 100)  # latest effective: 1 USD = 0.5 EUR -> 1 EUR = 2 USD
    assert txn.fx[0]["inverted"] is True and txn.fx[0]["rate"] == "2"
    assert balance(usd_player) == 10000 - 200


def test_no_rate_or_a_stale_rate_refuses_the_buy_in(usd_player):
    fund(usd_player, 10000)
    with pytest.raises(FxRateUnavailableProblem):
        buy_in(usd_player, 100)
    ExchangeRateFactory(as_of=timezone.now() - timedelta(days=8))
    with pytest.raises(FxRateStaleProblem):
        buy_in(usd_player, 100)
    assert balance(usd_player) == 10000


def test_a_refund_returns_exactly_what_the_wallet_paid_even_after_the_rate_moved(
    operator, usd_player, eur_usd
):
    fund(usd_player, 10000)
    buy_in(usd_player, 999)  # pays 1071 USD cents (1070.928 rounded up)
    ExchangeRateFactory(base="EUR", quote="USD", rate="2.0", as_of=timezone.now())
    txn = refund(usd_player)
    assert entries(txn) == [
        ("escrow", "EUR", -999, "refund"),
        ("house_fx", "EUR", 999, "fx"),
        ("house_fx", "USD", -1071, "fx"),
        ("player", "USD", 1071, "refund"),
    ]
    assert balance(usd_player) == 10000
    assert house(operator, "house_fx", "EUR") == house(operator, "house_fx", "USD") == 0


# --- Practice chips -----------------------------------------------------------------------
def test_practice_chips_are_granted_once_on_first_use(operator, player):
    txn = buy_in(player, 500, currency=PRACTICE_CURRENCY, game="practice:1")
    assert balance(player, PRACTICE_CURRENCY) == 9500
    assert balance(player) == 0  # the real wallet is untouched
    grant = LedgerTransaction.objects.get(kind="practice_grant")
    assert grant.amount == 10_000 and grant.currency == PRACTICE_CURRENCY
    buy_in(player, 500, currency=PRACTICE_CURRENCY, game="practice:2")
    assert LedgerTransaction.objects.filter(kind="practice_grant").count() == 1
    assert balance(player, PRACTICE_CURRENCY) == 9000
    assert txn.fx == []
    assert house(operator, "outside", PRACTICE_CURRENCY) == -10_000


def test_a_refused_first_practice_buy_in_grants_nothing(player):
    with pytest.raises(InsufficientFundsProblem):
        buy_in(player, 10_001, currency=PRACTICE_CURRENCY, game="practice:1")
    assert LedgerTransaction.objects.count() == 0
    buy_in(player, 10_000, currency=PRACTICE_CURRENCY, game="practice:1")
    assert balance(player, PRACTICE_CURRENCY) == 0


def test_practice_chips_never_convert(operator_client, player, usd_player, idem):
    fund(player, 1000)
    with pytest.raises(PracticeChipsNotConvertibleProblem):
        services.deposit(
            player=player, amount=100, currency=PRACTICE_CURRENCY, reference=ref(), actor=SYSTEM
        )
    with pytest.raises(PracticeChipsNotConvertibleProblem):
        services.withdraw(
            player=player, amount=100, currency=PRACTICE_CURRENCY, reference=ref(), actor=SYSTEM
        )
    with pytest.raises(PracticeChipsNotConvertibleProblem):
        services.exchange_rate_record(
            base="EUR",
            quote=PRACTICE_CURRENCY,
            rate="1",
            as_of=timezone.now(),
            source="x",
            actor=SYSTEM,
        )
    display = rates.display_amount(amount=500, currency=PRACTICE_CURRENCY, player=usd_player)
    assert display == {"amount": "500", "currency": "XGC", "display": None}


# --- Refund -----------------------------------------------------------------------------
def test_a_refund_returns_everything_the_player_has_in_escrow(player, opponent):
    fund(player, 5000)
    fund(opponent, 5000)
    buy_in(player, 1000)
    buy_in(player, 500)
    buy_in(opponent, 1000)
    txn = refund(player, reference="leave:1")
    assert txn.amount == 1500
    assert entries(txn) == [("escrow", "EUR", -1500, "refund"), ("player", "EUR", 1500, "refund")]
    assert balance(player) == 5000
    assert balances.escrow_contributions(game_ref=GAME, currency="EUR") == {opponent.pk: 1000}
    assert refund(player, reference="leave:1").pk == txn.pk  # idempotent
    with pytest.raises(NothingToRefundProblem):
        refund(player)


def test_a_refund_is_never_blocked_by_self_exclusion_or_status(player):
    fund(player, 5000)
    buy_in(player, 1000)
    services.self_exclusion_create(player=player, days=1, actor=SYSTEM)
    Player.objects.filter(pk=player.pk).update(status=Player.Status.SUSPENDED)
    player.refresh_from_db()
    refund(player)
    assert balance(player) == 5000


def test_refund_without_escrow_or_after_settlement(player, opponent):
    with pytest.raises(EscrowNotFoundProblem):
        refund(player)
    fund(player, 5000)
    fund(opponent, 5000)
    buy_in(player, 1000)
    buy_in(opponent, 1000)
    settle([EscrowPayout(player, 2000, "stake")])
    with pytest.raises(EscrowSettledProblem):
        refund(opponent)


# --- Reversal -------------------------------------------------------------------------------
def test_a_reversal_negates_every_entry_once(operator, player):
    deposit = fund(player, 1000)
    reversal = services.transaction_reverse(
        ledger_transaction=deposit, reference="rev:1", reason="chargeback", actor=SYSTEM
    )
    assert reversal.kind == "reversal" and reversal.reverses_id == deposit.pk
    assert entries(reversal) == [
        ("outside", "EUR", 1000, "deposit"),
        ("player", "EUR", -1000, "deposit"),
    ]
    assert balance(player) == 0
    assert (
        services.transaction_reverse(
            ledger_transaction=deposit, reference="rev:1", reason="again", actor=SYSTEM
        ).pk
        == reversal.pk
    )
    with pytest.raises(AlreadyReversedProblem):
        services.transaction_reverse(
            ledger_transaction=deposit, reference="rev:2", reason="twice", actor=SYSTEM
        )
    with pytest.raises(TransactionNotReversibleProblem):
        services.transaction_reverse(
            ledger_transaction=reversal, reference="rev:3", reason="undo", actor=SYSTEM
        )


def test_a_reversal_cannot_overdraw_a_wallet(player):
    deposit = fund(player, 1000)
    services.withdraw(player=player, amount=600, currency="EUR", reference=ref(), actor=SYSTEM)
    with pytest.raises(InsufficientFundsProblem):
        services.transaction_reverse(
            ledger_transaction=deposit, reference=ref(), reason="chargeback", actor=SYSTEM
        )
    assert balance(player) == 400


def test_reversing_a_settlement_reopens_the_escrow_for_a_corrected_one(seated):
    winner, loser = seated
    wrong = settle([EscrowPayout(loser, 2000, "pot")])
    services.transaction_reverse(
        ledger_transaction=wrong, reference=ref(), reason="wrong winner", actor=SYSTEM
    )
    assert balances.escrow_balance(game_ref=GAME, currency="EUR") == 2000
    assert balance(loser) == 9000
    settle([EscrowPayout(winner, 2000, "pot")])
    assert balance(winner) == 11000


def test_a_buy_in_of_a_settled_escrow_cannot_be_reversed(seated):
    winner, loser = seated
    stake = LedgerTransaction.objects.filter(kind="buy_in", player=loser).get()
    settle([EscrowPayout(winner, 2000, "pot")])
    with pytest.raises(EscrowSettledProblem):
        services.transaction_reverse(
            ledger_transaction=stake, reference=ref(), reason="x", actor=SYSTEM
        )


def test_a_reversed_buy_in_is_no_longer_a_contribution(seated):
    winner, loser = seated
    stake = LedgerTransaction.objects.filter(kind="buy_in", player=loser).get()
    services.transaction_reverse(
        ledger_transaction=stake, reference=ref(), reason="x", actor=SYSTEM
    )
    assert balances.escrow_contributions(game_ref=GAME, currency="EUR") == {winner.pk: 1000}
    with pytest.raises(NothingToRefundProblem):
        refund(loser)
    assert balance(loser) == 10000

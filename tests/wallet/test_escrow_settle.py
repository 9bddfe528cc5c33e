"""The settlement that empties a game's escrow (wallet/services/escrow_settle.py, its plan
wallet/services/plans/escrow_settle.py): the payout lines, the fee, the conversion into
other wallet currencies (rounded down), practice chips, the checks under the escrow's lock
and idempotency. Batches (``escrow_settle_many``): tests/settlement/test_batches.py."""

from decimal import Decimal

import pytest

from gin_platform.models import Player
from gin_platform.money import PRACTICE_CURRENCY
from tests.factories import PlayerFactory
from tests.wallet.factories import SYSTEM, ExchangeRateFactory, fund, ref
from tests.wallet.tables import GAME, balance, buy_in, entries, house, refund, settle
from wallet import services
from wallet.models import LedgerTransaction
from wallet.problems import (
    EscrowNotFoundProblem,
    EscrowSettledProblem,
    EscrowUnbalancedProblem,
    PayoutInvalidProblem,
)
from wallet.selectors import balances
from wallet.services import EscrowPayout

# The ledger reconciles after each test (tests/wallet/conftest.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("reconciled")]


def test_a_payout_converts_into_the_wallet_currency_rounding_down(operator, player, usd_player):
    ExchangeRateFactory(base="EUR", quote="USD", rate="1.0725")
    fund(player, 10000)
    fund(usd_player, 10000)
    buy_in(player, 1000)
    buy_in(usd_player, 1000)  # pays 1072.5 -> 1073 USD cents
    txn = settle(
        [EscrowPayout(usd_player, 1000, "stake"), EscrowPayout(usd_player, 900, "pot")], fee=100
    )
    # 1900 EUR cents * 1.0725 = 2037.75 -> 2037 USD cents
    assert entries(txn) == [
        ("escrow", "EUR", -1000, "stake"),
        ("escrow", "EUR", -900, "pot"),
        ("escrow", "EUR", -100, "fee"),
        ("house_fee", "EUR", 100, "fee"),
        ("house_fx", "EUR", 1900, "fx"),
        ("house_fx", "USD", -2037, "fx"),
        ("player", "USD", 2037, "payout"),
    ]
    (snapshot,) = txn.fx
    assert snapshot["rounding"] == "ROUND_FLOOR" and snapshot["player"] == str(usd_player.pk)
    assert balance(usd_player) == 10000 - 1073 + 2037
    assert house(operator, "house_fee", "EUR") == 100
    # The house FX position: +1.00 EUR... nets to what rounding left behind.
    assert house(operator, "house_fx", "EUR") == -1000 + 1900
    assert house(operator, "house_fx", "USD") == 1073 - 2037


def test_a_practice_game_settles_into_practice_wallets(player, opponent):
    buy_in(player, 1000, currency=PRACTICE_CURRENCY, game="practice:1")
    buy_in(opponent, 1000, currency=PRACTICE_CURRENCY, game="practice:1")
    settle(
        [EscrowPayout(player, 1000, "stake"), EscrowPayout(player, 1000, "pot")],
        currency=PRACTICE_CURRENCY,
        game="practice:1",
    )
    assert balance(player, PRACTICE_CURRENCY) == 11_000
    assert balance(opponent, PRACTICE_CURRENCY) == 9_000


def test_a_settlement_pays_the_lines_and_the_fee_and_empties_the_escrow(operator, seated):
    winner, loser = seated
    txn = settle(
        [EscrowPayout(winner, 1000, "stake"), EscrowPayout(winner, 900, "pot")],
        fee=100,
        metadata={"statement": "ftk"},
    )
    assert txn.kind == "settlement" and txn.amount == 2000
    assert txn.metadata == {"statement": "ftk", "fee": 100}
    assert entries(txn) == [
        ("escrow", "EUR", -1000, "stake"),
        ("escrow", "EUR", -900, "pot"),
        ("escrow", "EUR", -100, "fee"),
        ("house_fee", "EUR", 100, "fee"),
        ("player", "EUR", 1900, "payout"),
    ]
    assert balance(winner) == 10900 and balance(loser) == 9000
    assert balances.escrow_balance(game_ref=GAME, currency="EUR") == 0
    assert house(operator, "house_fee", "EUR") == 100
    # Contributions still say what each staked.
    assert balances.escrow_contributions(game_ref=GAME, currency="EUR") == {
        winner.pk: 1000,
        loser.pk: 1000,
    }


def test_negative_lines_explain_a_net_amount(seated):
    winner, loser = seated
    settle(
        [
            EscrowPayout(winner, 1000, "cashier_return"),
            EscrowPayout(winner, 1900, "points"),
            EscrowPayout(winner, -1000, "cap_adjustment"),
            EscrowPayout(loser, 0, "cashier_return"),
        ],
        fee=100,
    )
    assert balance(winner) == 9000 + 1900 and balance(loser) == 9000


def test_settlement_must_empty_the_escrow_exactly(seated):
    winner, _ = seated
    for payout, fee in ((1900, 99), (1900, 101), (2001, 0)):
        with pytest.raises(EscrowUnbalancedProblem) as refused:
            settle([EscrowPayout(winner, payout, "pot")], fee=fee)
    assert refused.value.extensions["escrow"] == {"amount": "20.00", "currency": "EUR"}
    assert balances.escrow_balance(game_ref=GAME, currency="EUR") == 2000
    assert not LedgerTransaction.objects.filter(kind="settlement").exists()


@pytest.mark.parametrize(
    "make_payouts",
    [
        lambda w, lo: [EscrowPayout(w, 2100, "pot"), EscrowPayout(lo, -100, "points")],
        lambda w, lo: [EscrowPayout(w, 2000, "fee")],
        lambda w, lo: [EscrowPayout(w, 2000, "fx")],
        lambda w, lo: [EscrowPayout(w, 2000, "Bad Tag")],
        lambda w, lo: [EscrowPayout(w, Decimal("2000"), "pot")],
        lambda w, lo: [EscrowPayout(w, True, "pot")],
        lambda w, lo: [EscrowPayout(PlayerFactory(operator=w.operator), 2000, "pot")],
        lambda w, lo: [(w, 2000, "pot")],
    ],
)
def test_invalid_payout_lines_are_refused(seated, make_payouts):
    winner, loser = seated
    with pytest.raises(PayoutInvalidProblem):
        settle(make_payouts(winner, loser))
    assert balances.escrow_balance(game_ref=GAME, currency="EUR") == 2000


def test_a_payee_is_anyone_who_bought_in_even_if_refunded_or_reversed_since(seated):
    """The payees are checked under the escrow's lock against every buy-in ever made: a
    refunded player, or one whose buy-in was reversed, may still be on a line (of 0)."""
    winner, loser = seated
    refund(loser)
    third = PlayerFactory(operator=winner.operator)
    fund(third, 1000)
    reversed_buy_in = buy_in(third, 500)
    services.transaction_reverse(
        ledger_transaction=reversed_buy_in, reference=ref("reverse"), reason="test", actor=SYSTEM
    )
    txn = settle(
        [
            EscrowPayout(winner, 1000, "stake"),
            EscrowPayout(loser, 0, "pot"),
            EscrowPayout(third, 0, "pot"),
        ]
    )
    assert txn.kind == "settlement"
    assert balances.escrow_balance(game_ref=GAME, currency="EUR") == 0


def test_a_negative_fee_is_refused(seated):
    winner, _ = seated
    with pytest.raises(PayoutInvalidProblem):
        settle([EscrowPayout(winner, 2100, "pot")], fee=-100)


def test_settlement_is_idempotent_and_closes_the_escrow(seated):
    winner, loser = seated
    payouts = [EscrowPayout(winner, 2000, "pot")]
    first = settle(payouts, reference="settle:42")
    assert settle(payouts, reference="settle:42").pk == first.pk
    with pytest.raises(EscrowSettledProblem):
        settle([EscrowPayout(loser, 0, "pot")], reference="settle:42:again")
    with pytest.raises(EscrowSettledProblem):
        buy_in(loser, 100)
    assert balance(winner) == 11000


def test_payouts_are_never_blocked_by_self_exclusion_limits_or_status(seated):
    winner, _ = seated
    services.self_exclusion_create(player=winner, days=30, actor=SYSTEM)
    services.player_limit_set(player=winner, kind="loss", period="day", amount=0, actor=SYSTEM)
    Player.objects.filter(pk=winner.pk).update(status=Player.Status.CLOSED, kyc_status="none")
    winner.refresh_from_db()
    settle([EscrowPayout(winner, 2000, "pot")])
    assert balance(winner) == 11000


def test_settling_an_unknown_game_is_refused(player):
    with pytest.raises(EscrowNotFoundProblem):
        settle([EscrowPayout(player, 0, "pot")], game="match:404")

"""Network play's ledger (docs/network.md "Money between operators"): buy-ins of several
operators' players into a network escrow, refunds, the settlement with the fee shared by
contribution, the positions netting to zero, each operator's books balancing on their own."""

from __future__ import annotations

from collections import defaultdict

import pytest
from django.utils import timezone

from gin_platform.models import Network
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.wallet.factories import ExchangeRateFactory, fund, ref
from tests.wallet.tables import buy_in, settle
from wallet import services
from wallet.models import Account, LedgerEntry
from wallet.problems import EscrowOperatorMismatchProblem, NetworkSettlementInvalidProblem
from wallet.selectors import balances, reconciliation
from wallet.selectors import network as network_selectors
from wallet.selectors.seamless import wallet_mode_blockers
from wallet.services import EscrowPayout, network_fee_split

pytestmark = pytest.mark.django_db


@pytest.fixture
def network(db):
    return Network.objects.create(operator=OperatorFactory(name="Network"), fee_share_bps=2000)


@pytest.fixture
def world(network):
    """Two member operators: A's player has a EUR wallet, B's a GBP one (EUR rooms)."""
    ExchangeRateFactory(base="EUR", quote="GBP", rate="0.8500")
    a, b = OperatorFactory(), OperatorFactory(base_currency="GBP")
    alice = PlayerFactory(operator=a)
    bob = PlayerFactory(operator=b, wallet_currency="GBP", display_currency="GBP")
    fund(alice, 10_000)
    fund(bob, 10_000)
    return network.operator, a, b, alice, bob


def _books(txn) -> dict[tuple, int]:
    totals: dict[tuple, int] = defaultdict(int)
    for entry in LedgerEntry.objects.filter(transaction=txn).select_related("account"):
        totals[(entry.account.operator_id, entry.currency)] += entry.amount
    return totals


def _position(operator, currency="EUR") -> int:
    return network_selectors.network_position_balance(operator=operator, currency=currency)


def _buy_in(player, game_ref, amount, owner):
    return buy_in(player, amount, game=game_ref, escrow_operator=owner)


def test_a_network_buy_in_crosses_through_the_positions_and_balances_per_operator(world):
    net, a, b, alice, bob = world
    first = _buy_in(alice, "match:net-1", 500, net)
    second = _buy_in(bob, "match:net-1", 500, net)
    assert first.operator_id == net.pk and second.operator_id == net.pk
    for txn in (first, second):
        assert set(_books(txn).values()) == {0}
    assert _position(a) == 500 and _position(b) == 500 and _position(net) == -1000
    assert network_selectors.network_positions_net() == {"EUR": 0}
    # Bob paid in GBP at 0.85, rounded up, on B's books; the stake crossed in EUR.
    assert balances.wallet_balance(player=bob) == 10_000 - 425
    assert second.fx[0]["converted"] == 425
    escrow = balances.escrow_account(game_ref="match:net-1", currency="EUR")
    assert escrow.operator_id == net.pk and escrow.balance == 1000


def test_a_refund_undoes_the_buy_in_through_the_same_positions(world):
    net, _a, b, _alice, bob = world
    _buy_in(bob, "match:net-2", 700, net)
    refund = services.table_refund(
        player=bob,
        game_ref="match:net-2",
        currency="EUR",
        reference=ref("refund"),
        actor=SYSTEM,
        escrow_operator=net,
    )
    assert set(_books(refund).values()) == {0}
    assert _position(b) == 0 and _position(net) == 0
    assert balances.wallet_balance(player=bob) == 10_000


def test_only_the_network_may_own_another_operators_escrow(world):
    _net, _a, b, alice, bob = world
    with pytest.raises(EscrowOperatorMismatchProblem):
        _buy_in(alice, "match:b-1", 100, b)
    _buy_in(bob, "match:b-2", 100, b)  # B's own game: no position
    assert not Account.objects.filter(kind="network_position", operator=b).exists()


def test_a_network_settlement_pays_each_wallet_and_shares_the_fee_by_contribution(world):
    net, a, b, alice, bob = world
    _buy_in(alice, "match:net-3", 500, net)
    _buy_in(bob, "match:net-3", 500, net)
    fee = 51  # 5.1% of 1000: shared 80% by contribution, 20% plus remainders kept
    payouts = [
        EscrowPayout(player=bob, amount=500, component="stake"),
        EscrowPayout(player=bob, amount=500, component="pot"),
        EscrowPayout(player=bob, amount=-fee, component="fee_deduction"),
        EscrowPayout(player=alice, amount=500, component="stake"),
        EscrowPayout(player=alice, amount=-500, component="pot"),
    ]
    txn = settle(payouts, fee, game="match:net-3")
    assert txn.operator_id == net.pk
    assert set(_books(txn).values()) == {0}
    # Each operator contributed 500 of 1000: floor(51 * 500 * 8000 / 10_000_000) = 20.
    split = txn.metadata["network"]
    assert split["network_fee"] == 11
    assert {row["fee_share"] for row in split["operators"]} == {20}
    house_fee = Account.Kind.HOUSE_FEE
    assert balances.house_balance(operator=a, kind=house_fee, currency="EUR") == 20
    assert balances.house_balance(operator=b, kind=house_fee, currency="EUR") == 20
    assert balances.house_balance(operator=net, kind=house_fee, currency="EUR") == 11
    # Bob won 949 EUR, credited 806 GBP (0.85, rounded down) on B's books.
    assert balances.wallet_balance(player=bob) == 10_000 - 425 + 806
    assert balances.wallet_balance(player=alice) == 10_000 - 500
    # A put 500 in and earned 20 of fee: A owes the network 480; B took out 949 - 500 and
    # earned 20: the network owes B 469; the network's own position holds the difference.
    assert _position(a) == 480 and _position(b) == -469 and _position(net) == -11
    assert network_selectors.network_positions_net() == {"EUR": 0}
    assert reconciliation.reconcile().ok


def test_the_fee_split_gives_each_operator_at_most_its_exact_share():
    split = network_fee_split(fee=7, contributions={"a": 1, "b": 1, "c": 1}, fee_share_bps=0)
    assert split.operators == {"a": 2, "b": 2, "c": 2} and split.network == 1
    split = network_fee_split(fee=100, contributions={"a": 300, "b": 100}, fee_share_bps=2000)
    assert split.operators == {"a": 60, "b": 20} and split.network == 20
    assert network_fee_split(fee=0, contributions={"a": 5}, fee_share_bps=2000).network == 0
    everything = network_fee_split(fee=9, contributions={"a": 5}, fee_share_bps=10_000)
    assert everything.operators == {"a": 0} and everything.network == 9


def test_a_net_settlement_zeroes_what_was_outstanding_at_its_cut_off(world):

    net, a, _b, alice, _bob = world
    _buy_in(alice, "match:net-4", 300, net)
    cutoff = timezone.now()
    assert (
        network_selectors.network_position_outstanding(operator=a, currency="EUR", cutoff=cutoff)
        == 300
    )
    with pytest.raises(NetworkSettlementInvalidProblem):
        services.network_position_settle(
            operator=a, currency="EUR", cutoff=cutoff, amount=299, reference="x", actor=SYSTEM
        )
    reference = services.network_settlement_reference(
        operator_id=a.pk, currency="EUR", cutoff=cutoff
    )
    txn = services.network_position_settle(
        operator=a, currency="EUR", cutoff=cutoff, amount=300, reference=reference, actor=SYSTEM
    )
    again = services.network_position_settle(
        operator=a, currency="EUR", cutoff=cutoff, amount=300, reference=reference, actor=SYSTEM
    )
    assert again.pk == txn.pk
    assert set(_books(txn).values()) == {0}
    assert _position(a) == 0 and _position(net) == 0
    outside = Account.Kind.OUTSIDE
    assert balances.house_balance(operator=a, kind=outside, currency="EUR") == -10_000 + 300
    assert balances.house_balance(operator=net, kind=outside, currency="EUR") == -300
    with pytest.raises(NetworkSettlementInvalidProblem):
        services.check_net_settlement(operator=a, currency="EUR", cutoff=timezone.now())
    assert reconciliation.reconcile().ok


def test_the_worked_example_of_the_network_docs(world):
    """docs/network.md "Worked example": three players, two operators, one game."""
    net, a, b, alice, bob = world
    alma = PlayerFactory(operator=a)
    fund(alma, 10_000)
    for player in (alice, alma, bob):
        _buy_in(player, "match:example", 1000, net)
    payouts = [  # R12's prize-table lines (settlement.payouts.prize_table_payout).
        EscrowPayout(player=bob, amount=1000, component="stake"),
        EscrowPayout(player=bob, amount=-1000, component="pot"),
        EscrowPayout(player=bob, amount=2850, component="prize"),
        EscrowPayout(player=alice, amount=1000, component="stake"),
        EscrowPayout(player=alice, amount=-1000, component="pot"),
        EscrowPayout(player=alma, amount=1000, component="stake"),
        EscrowPayout(player=alma, amount=-1000, component="pot"),
    ]
    txn = settle(payouts, 150, game="match:example")
    lines = sorted(
        (e.account.operator.name, e.account.kind, e.currency, e.component, e.amount)
        for e in LedgerEntry.objects.filter(transaction=txn).select_related("account__operator")
        if e.account.kind != "escrow"
    )
    assert lines == sorted(
        [
            (net.name, "network_position", "EUR", "payout", 2850),
            (b.name, "network_position", "EUR", "payout", -2850),
            (b.name, "house_fx", "EUR", "fx", 2850),
            (b.name, "house_fx", "GBP", "fx", -2422),
            (b.name, "player", "GBP", "payout", 2422),
            (net.name, "house_fee", "EUR", "fee", 30),
            (net.name, "network_position", "EUR", "fee_share", 80),
            (a.name, "network_position", "EUR", "fee_share", -80),
            (a.name, "house_fee", "EUR", "fee", 80),
            (net.name, "network_position", "EUR", "fee_share", 40),
            (b.name, "network_position", "EUR", "fee_share", -40),
            (b.name, "house_fee", "EUR", "fee", 40),
        ]
    )
    assert (_position(a), _position(b), _position(net)) == (1920, -1890, -30)
    assert balances.wallet_balance(player=bob) == 10_000 - 850 + 2422
    assert reconciliation.reconcile().ok


def test_a_stake_in_an_open_network_game_blocks_a_wallet_mode_switch(world):

    net, a, _b, alice, _bob = world
    assert wallet_mode_blockers(operator_id=a.pk)["open_escrows"] == 0
    _buy_in(alice, "match:net-5", 100, net)
    assert wallet_mode_blockers(operator_id=a.pk)["open_escrows"] == 1
    settle([EscrowPayout(player=alice, amount=100, component="stake")], game="match:net-5")
    assert wallet_mode_blockers(operator_id=a.pk)["open_escrows"] == 0

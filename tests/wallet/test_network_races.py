"""Network play under real concurrency (PostgreSQL, threads): buy-ins of players of several
operators into one network game at once, repeated buy-ins, and settlement retries racing
each other create no money: every posting balances per operator's books, the positions net
to zero and the ledger reconciles (docs/network.md "Money between operators")."""

from __future__ import annotations

import contextlib
import threading
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.db.models import Sum
from django.utils import timezone

from games import services as games_services
from games.models import Match, Seat
from settlement import receivers
from settlement import services as settlement_services
from settlement.models import Settlement
from tests.factories import SYSTEM, PlayerFactory
from tests.games.factories import TableFactory
from tests.games.network_world import member_make, network_make, network_room_make
from tests.races import race
from tests.wallet.factories import ExchangeRateFactory, fund
from tests.wallet.tables import buy_in, settle
from tests.wallet.test_ledger_invariants import raw_entry, raw_transaction
from wallet import services
from wallet.models import Account, LedgerTransaction
from wallet.problems import NetworkSettlementInvalidProblem
from wallet.selectors import balances, reconciliation
from wallet.selectors import network as network_selectors
from wallet.services import EscrowPayout

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def world(db):
    network = network_make(fee_share_bps=2000).operator
    ExchangeRateFactory(base="EUR", quote="GBP", rate="0.8500")
    members = [
        member_make(name="Alpha"),
        member_make(name="Bravo", base_currency="GBP"),
        member_make(name="Charlie"),
    ]
    players = []
    for number, operator in enumerate(members * 2):
        gbp = operator.base_currency == "GBP"
        player = PlayerFactory(
            operator=operator,
            screen_name=f"racer{number}",
            wallet_currency="GBP" if gbp else "EUR",
            display_currency="GBP" if gbp else "EUR",
        )
        fund(player, 50_000)
        players.append(player)
    return network, members, players


def _total_money() -> dict[str, int]:
    """Everything the players and house hold per currency, less what came from outside:
    zero whatever happened (no posting creates money)."""

    rows = Account.objects.values("currency").annotate(total=Sum("balance")).order_by()
    return {row["currency"]: row["total"] for row in rows}


def test_concurrent_buy_ins_and_settlement_retries_of_one_network_game_create_no_money(world):
    network, _members, players = world
    game_ref = "match:race-network-1"

    def buy(i: int):
        player = players[i % len(players)]
        # Each player twice, with the same reference: one posting per player.
        reference = f"race-buy-in:{player.pk}"
        return buy_in(player, 400, game=game_ref, reference=reference, escrow_operator=network)

    results = race(len(players) * 2, buy)
    failures = [r for r in results if isinstance(r, Exception)]
    assert failures == [], failures
    assert len({r.pk for r in results}) == len(players)
    assert balances.escrow_balance(game_ref=game_ref, currency="EUR") == 400 * len(players)
    assert network_selectors.network_positions_net() == {"EUR": 0}

    pot = 400 * len(players)
    fee = 97
    payouts = [EscrowPayout(player=players[0], amount=pot - fee, component="pot")]

    settled = race(4, lambda _: settle(payouts, fee, game=game_ref, reference="race-settle-1"))
    assert [r for r in settled if isinstance(r, Exception)] == []
    assert len({r.pk for r in settled}) == 1
    assert LedgerTransaction.objects.filter(kind="settlement", game_ref=game_ref).count() == 1
    assert balances.escrow_balance(game_ref=game_ref, currency="EUR") == 0
    assert network_selectors.network_positions_net() == {"EUR": 0}
    assert all(total == 0 for total in _total_money().values())
    report = reconciliation.reconcile()
    assert report.ok, report.render()


def test_concurrent_game_settle_retries_of_a_network_match_post_once(world, monkeypatch):
    _network, members, players = world
    monkeypatch.setattr(receivers, "game_payout_request", lambda **kwargs: None)
    room = network_room_make(stake=500, fee_bps=500)
    table = TableFactory(room=room)

    def sit(i: int):
        return games_services.seat_take(player=players[i], table=table, actor=SYSTEM)

    # Players of two operators race for the two seats of one table.
    seats = race(2, lambda i: sit([0, 1][i]))
    assert [s for s in seats if isinstance(s, Exception)] == []
    match = Match.objects.get(table=table)
    assert match.status == Match.Status.RUNNING
    games_services.match_resign(seat=Seat.objects.get(match=match, position=0), actor=SYSTEM)
    results = race(4, lambda _i: settlement_services.game_settle(match_id=match.pk))
    assert [r for r in results if isinstance(r, Exception)] == []
    assert Settlement.objects.filter(match=match).count() == 1
    assert LedgerTransaction.objects.filter(kind="settlement", game_ref=match.game_ref).count() == 1
    assert network_selectors.network_positions_net() == {"EUR": 0}
    assert all(total == 0 for total in _total_money().values())
    assert {p.operator_id for p in players[:2]} == {members[0].pk, members[1].pk}
    report = reconciliation.reconcile()
    assert report.ok, report.render()


def test_the_database_refuses_a_transaction_unbalanced_within_one_operators_books(world):
    """The deferred trigger (migration 0006): summing to zero overall is not enough, each
    operator's lines must (and reconcile says so for rows that got in before)."""

    network, members, players = world
    wallet = balances.wallet_account(player=players[0])  # operator A's books
    network_fee = Account.objects.create(kind="house_fee", operator=network, currency="EUR")
    with pytest.raises(IntegrityError, match="in the books of"), transaction.atomic():
        txn_id = raw_transaction(members[0], "raw:cross-books")
        raw_entry(txn_id, wallet, -5)
        raw_entry(txn_id, network_fee, 5)
    assert not LedgerTransaction.objects.filter(reference="raw:cross-books").exists()
    assert reconciliation.reconcile().ok


def test_two_net_settlements_of_one_operator_at_different_cut_offs_pay_once(world, monkeypatch):
    """Both cut-offs see the same outstanding position; the second to take the lock must
    find it settled, never pay it again. Each reads what is outstanding, then waits (at most
    2 s) for the other to have read it too: without a common lock both would pay."""

    network, members, players = world
    game_ref = "match:race-network-2"
    for player in players[:2]:  # Alpha's and Bravo's players
        reference = f"net-race-buy-in:{player.pk}"
        buy_in(player, 1_000, game=game_ref, reference=reference, escrow_operator=network)
    pot = [EscrowPayout(player=players[1], amount=1_900, component="pot")]
    settle(pot, 100, game=game_ref, reference="net-race-settle")
    alpha = members[0]
    now = timezone.now()
    outstanding = network_selectors.network_position_outstanding(
        operator=alpha, currency="EUR", cutoff=now
    )
    assert outstanding > 0  # Alpha's player lost the stake: Alpha owes the network

    both_read = threading.Barrier(2)
    read_outstanding = network_selectors.network_position_outstanding

    def outstanding_then_wait(**kwargs):
        value = read_outstanding(**kwargs)
        # A broken barrier: the other is queued behind our lock.
        with contextlib.suppress(threading.BrokenBarrierError):
            both_read.wait(timeout=2)
        return value

    monkeypatch.setattr(network_selectors, "network_position_outstanding", outstanding_then_wait)

    def settle_position(i: int):
        return services.network_position_settle(
            operator=alpha,
            currency="EUR",
            cutoff=now - timedelta(microseconds=i),
            amount=outstanding,
            reference=f"net-race-{i}",
            actor=SYSTEM,
        )

    results = race(2, settle_position)
    paid = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(paid) == 1, results
    assert len(refused) == 1 and isinstance(refused[0], NetworkSettlementInvalidProblem)
    assert read_outstanding(operator=alpha, currency="EUR", cutoff=timezone.now()) == 0
    assert network_selectors.network_positions_net() == {"EUR": 0}
    report = reconciliation.reconcile()
    assert report.ok, report.render()

"""Whole tournaments' money (R14) on PostgreSQL, to the minor unit: a network tournament of
eight entries (two paid from USD wallets, one by a seamless operator's player over HTTP,
one with a granted ticket), an overlay, prizes paid in three rounds and the fees, after which
the escrow is exactly 0 and prizes plus fees are the entries plus the overlay; and a network
tournament of two operators' players in two currencies whose positions and fee shares come
out exactly as network play's rules say (docs/network.md)."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

import pytest
from django.db import transaction

from gin_platform.demo.seamless_wallet import OperatorWalletServer
from gin_platform.models import Network
from tests.factories import OperatorFactory, PlayerFactory
from tests.wallet.factories import SYSTEM, ExchangeRateFactory, fund, ref
from wallet import services
from wallet.models import Account, LedgerEntry, LedgerTransaction, WalletCall
from wallet.selectors import balances, reconciliation, tournaments
from wallet.selectors import network as network_selectors
from wallet.services import TournamentPrize
from wallet.services import seamless as seamless_module

pytestmark = [pytest.mark.postgres]

T = "tournament:100"
BUY_IN, FEE = 1000, 100
ENTRY = BUY_IN + FEE


def _books_balance(txn) -> None:
    totals: dict[tuple, int] = defaultdict(int)
    for entry in LedgerEntry.objects.filter(transaction=txn).select_related("account"):
        totals[(entry.account.operator_id, entry.currency)] += entry.amount
    assert set(totals.values()) == {0}, (txn.kind, dict(totals))


def _house_fee(operator) -> int:
    return balances.house_balance(operator=operator, kind=Account.Kind.HOUSE_FEE, currency="EUR")


def _position(operator) -> int:
    return network_selectors.network_position_balance(operator=operator, currency="EUR")


def _enter(player, owner):
    return services.table_buy_in(
        player=player,
        game_ref=T,
        amount=ENTRY,
        currency="EUR",
        reference=ref("register"),
        actor=SYSTEM,
        escrow_operator=owner,
    )


def _pay(prizes, owner, reference):
    return services.tournament_prizes_pay(
        game_ref=T,
        currency="EUR",
        prizes=prizes,
        reference=reference,
        actor=SYSTEM,
        escrow_operator=owner,
    )


# --- Eight entries, one of them seamless, over HTTP -------------------------------------------
@pytest.mark.django_db(transaction=True)
def test_a_whole_tournament_pays_out_its_entries_and_overlay_to_the_minor_unit(monkeypatch):
    monkeypatch.setattr(seamless_module, "QUICK_BACKOFF_SECONDS", 0.001)
    network = Network.objects.create(operator=OperatorFactory(name="Network"), fee_share_bps=2000)
    net = network.operator
    ExchangeRateFactory(base="EUR", quote="USD", rate="1.0720")
    a = OperatorFactory()
    seamless_operator = OperatorFactory(webhook_url="")
    cash = [PlayerFactory(operator=a) for _ in range(4)]
    usd = [PlayerFactory(operator=a, wallet_currency="USD") for _ in range(2)]
    ticket_holder = PlayerFactory(operator=a)
    for who in cash + usd:
        fund(who, 10_000)
    with OperatorWalletServer(
        secret=seamless_operator.webhook_secret, timeout_sleep=0.45
    ) as server:
        services.operator_wallet_set(
            operator=seamless_operator,
            mode="seamless",
            base_url=server.base_url,
            timeout_ms=250,
            actor=SYSTEM,
        )
        sam = PlayerFactory(operator=seamless_operator)
        server.set_balance(sam.external_ref, "100.00")

        # Registration: six cash entries, the seamless one (its operator's wallet debited
        # first, as a seat's), the ticket granted by A and entered with.
        entries = [_enter(who, net) for who in cash + usd]
        debit = services.seamless_debit(
            player=sam, amount=ENTRY, currency="EUR", purpose="register:sam", actor=SYSTEM
        )
        with transaction.atomic():
            entries.append(_enter(sam, net))
            services.seamless_debit_consume(
                debit=debit, ledger_transaction=entries[-1], actor=SYSTEM
            )
        granted = services.ticket_grant(
            player=ticket_holder,
            tournament_ref=T,
            amount=ENTRY,
            currency="EUR",
            reference="t100:grant",
            actor=SYSTEM,
        )
        entries.append(
            services.ticket_enter(
                player=ticket_holder,
                tournament_ref=T,
                amount=ENTRY,
                currency="EUR",
                reference="t100:ticket",
                actor=SYSTEM,
                escrow_operator=net,
            )
        )
        assert [usd_entry.fx[0]["converted"] for usd_entry in entries[4:6]] == [1180, 1180]
        assert server.balance(sam.external_ref) == Decimal("89.00")

        # The guarantee is 100.00: 80.00 of buy-ins, the network's overlay tops it up.
        top_up = services.tournament_overlay_add(
            game_ref=T,
            currency="EUR",
            amount=2000,
            operator=net,
            reference="t100:overlay",
            actor=SYSTEM,
        )
        assert balances.escrow_balance(game_ref=T, currency="EUR") == 8 * ENTRY + 2000

        # Three rounds: the quarter-final losers (5th-8th share 20.00; one place's prize is a
        # ticket to the next tournament), the semi-final losers (3rd-4th share 20.00), the
        # final (45.00 and 15.00).
        with transaction.atomic():
            first = _pay(
                [
                    TournamentPrize(player=cash[0], amount=500),
                    TournamentPrize(player=usd[0], amount=500),
                    TournamentPrize(player=ticket_holder, amount=500),
                    TournamentPrize(player=cash[1], amount=500, ticket_for="tournament:101"),
                ],
                net,
                "t100:round:1",
            )
        with transaction.atomic():
            second = _pay(
                [
                    TournamentPrize(player=usd[1], amount=1000),
                    TournamentPrize(player=sam, amount=1000),
                ],
                net,
                "t100:round:2",
            )
        with transaction.atomic():
            final = _pay(
                [
                    TournamentPrize(player=cash[2], amount=4500),
                    TournamentPrize(player=cash[3], amount=1500),
                ],
                net,
                "t100:round:3",
            )
        fee = services.tournament_fee_take(
            game_ref=T,
            currency="EUR",
            amount=8 * FEE,
            reference="t100:fees",
            actor=SYSTEM,
            escrow_operator=net,
        )

        # The seamless player's prize went on to its operator's wallet, mirrored.
        credit = WalletCall.objects.get(kind="credit", player=sam)
        assert (credit.status, credit.reason, credit.amount) == ("applied", "payout", 1000)
        assert server.balance(sam.external_ref) == Decimal("99.00")
        assert balances.wallet_balance(player=sam) == 0  # the transit wallet is empty

    # The escrow is empty, and what came in went out, to the minor unit.
    assert balances.escrow_balance(game_ref=T, currency="EUR") == 0
    paid_out = first.amount + second.amount + final.amount
    assert paid_out + fee.amount == 8 * ENTRY + top_up.amount
    assert (paid_out, fee.amount) == (10_000, 800)
    for txn in [*entries, granted, top_up, first, second, final, fee]:
        _books_balance(txn)
    # Prizes in USD rounded down (5.00 -> 5.36, 10.00 -> 10.72); the ticket prize unconverted.
    assert balances.wallet_balance(player=usd[0]) == 10_000 - 1180 + 536
    assert balances.wallet_balance(player=usd[1]) == 10_000 - 1180 + 1072
    assert balances.wallet_balance(player=cash[2]) == 10_000 - ENTRY + 4500
    assert balances.wallet_balance(player=ticket_holder) == 500
    assert (
        tournaments.ticket_balance(player=cash[1], game_ref="tournament:101", currency="EUR") == 500
    )
    # The fee shared by contribution: A's players put in 77.00, S's 11.00 of 88.00; 80% of
    # 8.00 by those parts (5.60 and 0.80), the network keeps 1.60.
    assert fee.metadata["network"]["network_fee"] == 160
    assert (_house_fee(a), _house_fee(seamless_operator), _house_fee(net)) == (560, 80, 160)
    # A's promotion paid the ticket, the network's the overlay.
    assert tournaments.promotion_balance(operator=a, currency="EUR") == -ENTRY
    assert tournaments.promotion_balance(operator=net, currency="EUR") == -2000
    assert network_selectors.network_positions_net() == {"EUR": 0}
    report = reconciliation.reconcile()
    assert report.ok, report.render()
    assert LedgerTransaction.objects.filter(kind="tournament_prize").count() == 3


# --- Positions and fee shares of two operators' players -----------------------------------------
@pytest.mark.django_db
def test_a_network_tournaments_positions_and_fee_shares_are_exact():
    network = Network.objects.create(operator=OperatorFactory(name="Network"), fee_share_bps=2000)
    net = network.operator
    ExchangeRateFactory(base="EUR", quote="GBP", rate="0.8500")
    a, b = OperatorFactory(), OperatorFactory(base_currency="GBP")
    alice, carol = PlayerFactory(operator=a), PlayerFactory(operator=a)
    bob, bea = (
        PlayerFactory(operator=b, wallet_currency="GBP", display_currency="GBP") for _ in "12"
    )
    for who in (alice, carol, bob):
        fund(who, 10_000)
    for who in (alice, carol, bob):
        _enter(who, net)
    services.ticket_grant(
        player=bea, tournament_ref=T, amount=ENTRY, currency="EUR", reference=ref("g"), actor=SYSTEM
    )
    services.ticket_enter(
        player=bea,
        tournament_ref=T,
        amount=ENTRY,
        currency="EUR",
        reference=ref("t"),
        actor=SYSTEM,
        escrow_operator=net,
    )
    # A sponsors the guarantee: its promotion pays, and the money crosses into the network's
    # books like a stake.
    overlay = services.tournament_overlay_add(
        game_ref=T,
        currency="EUR",
        amount=2000,
        operator=a,
        reference=ref("overlay"),
        actor=SYSTEM,
        escrow_operator=net,
    )
    _books_balance(overlay)
    assert (_position(a), _position(b), _position(net)) == (2200 + 2000, 2200, -6400)

    fee = services.tournament_fee_take(
        game_ref=T,
        currency="EUR",
        amount=4 * FEE,
        reference=ref("fee"),
        actor=SYSTEM,
        escrow_operator=net,
    )
    # Each operator's players put in 22.00 of 44.00: floor(400 x 2200 x 8000 / (4400 x
    # 10000)) = 160 each; the network keeps 80.
    shares = {row["operator_id"]: row["fee_share"] for row in fee.metadata["network"]["operators"]}
    assert shares == {str(a.pk): 160, str(b.pk): 160}
    assert (_house_fee(a), _house_fee(b), _house_fee(net)) == (160, 160, 80)
    prizes = _pay(
        [
            TournamentPrize(player=alice, amount=3600),
            TournamentPrize(player=bob, amount=1800),
            TournamentPrize(player=carol, amount=600, ticket_for="tournament:101"),
        ],
        net,
        ref("prizes"),
    )
    _books_balance(prizes)
    assert balances.escrow_balance(game_ref=T, currency="EUR") == 0
    assert balances.wallet_balance(player=bob) == 10_000 - 935 + 1530  # 0.85 GBP, down
    # Positions: A put in 42.00 (two entries, the overlay), took back its fee share and 42.00
    # of prizes; B put in 22.00, took back its share and 18.00; the network the opposite.
    assert (_position(a), _position(b), _position(net)) == (-160, 240, -80)
    assert network_selectors.network_positions_net() == {"EUR": 0}
    report = reconciliation.reconcile()
    assert report.ok, report.render()

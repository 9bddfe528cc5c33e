"""The table cashier's calls as the wallet's tests make them (tests/wallet/
test_table_cashier.py, test_escrow_settle.py and others): one game, ``GAME``, in EUR by
default."""

from tests.wallet.factories import SYSTEM, ref
from wallet import services
from wallet.selectors import balances

GAME = "match:42"


def buy_in(player, amount, currency="EUR", game=GAME, reference=None, escrow_operator=None):
    """``player`` stakes ``amount`` in ``game`` (a network game: ``escrow_operator``, the
    network's operator, holds the escrow)."""
    return services.table_buy_in(
        player=player,
        game_ref=game,
        amount=amount,
        currency=currency,
        reference=reference or ref("buy-in"),
        actor=SYSTEM,
        escrow_operator=escrow_operator,
    )


def refund(player, currency="EUR", game=GAME, reference=None):
    return services.table_refund(
        player=player,
        game_ref=game,
        currency=currency,
        reference=reference or ref("refund"),
        actor=SYSTEM,
    )


def settle(payouts, fee=0, currency="EUR", game=GAME, reference=None, metadata=None):
    return services.escrow_settle(
        game_ref=game,
        currency=currency,
        reference=reference or ref("settle"),
        payouts=payouts,
        fee=fee,
        actor=SYSTEM,
        metadata=metadata,
    )


def balance(player, currency=None):
    return balances.wallet_balance(player=player, currency=currency)


def house(operator, kind, currency):
    return balances.house_balance(operator=operator, kind=kind, currency=currency)


def entries(txn):
    return sorted(
        txn.entries.values_list("account__kind", "currency", "amount", "component"),
        key=lambda row: (row[0], row[1], row[2]),
    )

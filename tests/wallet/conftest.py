"""Fixtures of the wallet tests."""

import pytest

from tests.factories import PlayerFactory
from tests.wallet.factories import ExchangeRateFactory, fund
from tests.wallet.tables import buy_in
from wallet.selectors import reconciliation


@pytest.fixture
def reconciled(db):
    """The ledger reconciles once the test is over (``usefixtures`` of the table tests)."""
    yield
    report = reconciliation.reconcile()
    assert report.ok, report.render()


@pytest.fixture
def eur_usd(db):
    """1 EUR = 1.0720 USD, recorded five minutes ago."""
    return ExchangeRateFactory(base="EUR", quote="USD", rate="1.0720")


@pytest.fixture
def usd_player(operator):
    """A player of the (EUR) operator whose wallet is in USD."""
    return PlayerFactory(operator=operator, wallet_currency="USD", display_currency="USD")


@pytest.fixture
def opponent(operator):
    return PlayerFactory(operator=operator)


@pytest.fixture
def seated(player, opponent):
    """``player`` and ``opponent`` with 100.00 EUR each, 10.00 of it bought into ``GAME``
    (tests/wallet/tables.py)."""
    fund(player, 10000)
    fund(opponent, 10000)
    buy_in(player, 1000)
    buy_in(opponent, 1000)
    return player, opponent

"""factory-boy factories and small helpers for the wallet's tables."""

from datetime import timedelta
from decimal import Decimal

import factory
from django.utils import timezone

from tests.factories import SYSTEM, OperatorFactory
from wallet import services
from wallet.models import CashierCaps, ExchangeRate


class ExchangeRateFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ExchangeRate

    base = "EUR"
    quote = "USD"
    rate = Decimal("1.0720")
    as_of = factory.LazyFunction(lambda: timezone.now() - timedelta(minutes=5))
    source = factory.Sequence(lambda n: f"test-feed-{n}")


class CashierCapsFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = CashierCaps

    operator = factory.SubFactory(OperatorFactory)
    currency = factory.SelfAttribute("operator.base_currency")


_references = iter(range(1, 10**9))


def ref(prefix: str = "test") -> str:
    """A fresh unique ledger reference."""
    return f"{prefix}:{next(_references)}"


def fund(player, amount: int, currency: str | None = None):
    """Deposit ``amount`` minor units into the player's wallet."""
    return services.deposit(
        player=player,
        amount=amount,
        currency=currency or player.wallet_currency,
        reference=ref("fund"),
        actor=SYSTEM,
    )

"""factory-boy factories for the platform's tenancy models, and the suite's system actor."""

import factory

from gin_platform.models import Operator, Player
from gin_platform.principals import Actor
from gin_platform.tokens import new_signing_secret

# The actor of every state change a test makes on nobody's behalf (audit rows: system/tests).
SYSTEM = Actor.system("tests")


class OperatorFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Operator

    name = factory.Sequence(lambda n: f"Operator {n}")
    slug = factory.Sequence(lambda n: f"operator-{n}")
    base_currency = "EUR"
    webhook_secret = factory.LazyFunction(new_signing_secret)


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    operator = factory.SubFactory(OperatorFactory)
    external_ref = factory.Sequence(lambda n: f"player-{n}")
    display_name = factory.Sequence(lambda n: f"Player {n}")
    wallet_currency = factory.SelfAttribute("operator.base_currency")
    display_currency = factory.SelfAttribute("wallet_currency")
    kyc_status = Player.KycStatus.VERIFIED

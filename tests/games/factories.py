"""factory-boy factories for the games app (rooms and tables; games are played through the
services or the API, never built row by row)."""

import factory

from games import engine
from games.models import Room, Table
from gin_platform.money import PRACTICE_CURRENCY
from tests.factories import OperatorFactory

# The suite's Money Play room: to 100, 0.01 or 0.05 a point, 10.00 to 1000.00 at the cashier.
MONEY_PLAY = {
    "variant": "money",
    "target": 100,
    "stake": None,
    "stake_per_point_choices": [1, 5],
    "cashier_min": 1_000,
    "cashier_max": 100_000,
}


class RoomFactory(factory.django.DjangoModelFactory):
    """A Match Play room to 100 at 5.00 EUR; traits for the other variants and practice."""

    class Meta:
        model = Room

    class Params:
        ftk = factory.Trait(variant="ftk", target=None, stake=500)
        money = factory.Trait(**MONEY_PLAY)
        practice = factory.Trait(is_practice=True, currency=PRACTICE_CURRENCY)

    operator = factory.SubFactory(OperatorFactory)
    name = factory.Sequence(lambda n: f"Room {n}")
    variant = "match"
    rules = factory.LazyFunction(lambda: engine.RuleSet().to_dict())
    target = 100
    stake = 500
    currency = factory.SelfAttribute("operator.base_currency")
    fee_bps = 500
    turn_seconds = 30


class TableFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Table

    room = factory.SubFactory(RoomFactory)

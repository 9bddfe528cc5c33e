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
        # R13 off: a turn that runs out forfeits at once (R10), as the timeout tests expect.
        timeouts_forfeit = factory.Trait(
            time_bank_seconds=0, reconnect_grace_seconds=0, auto_play_turns=0
        )

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


# room_create's R13 options that make a turn that runs out forfeit at once (R10).
TIMEOUTS_FORFEIT = {"time_bank_seconds": 0, "reconnect_grace_seconds": 0, "auto_play_turns": 0}

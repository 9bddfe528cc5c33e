"""The practice house bot's rows (R11): who it is (``HouseBot``) and how well it plays
(``BotLevel``, docs/engine.md "Bot levels"); ``games.models`` names both with the app's
other models.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from games import engine
from gin_platform.models import Operator, Player


class BotLevel(models.TextChoices):
    """How well the practice house bot plays (docs/engine.md "Bot levels"), from the engine."""

    EASY = engine.BOT_EASY, "Easy"
    STRONG = engine.BOT_STRONG, "Strong"


class HouseBot(models.Model):
    """The operator's house bot (R11): an ordinary Player of the operator, marked here as the
    bot. It sits through ``services.seat_take`` and plays through
    ``services.hand_apply_action`` like anybody else, on the Celery worker, deciding from its
    own ``engine.player_view`` only. It has no session token (it never calls the API) and it
    never sits at a real-money table (``services.seat_take`` refuses)."""

    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="+")
    player = models.OneToOneField(Player, on_delete=models.PROTECT, related_name="house_bot")
    # R12: a 3-4 seat practice table may seat up to three bots; each is its own Player.
    number = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("operator", "number"), name="house_bot_number_once")
        ]

    def __str__(self) -> str:
        return f"house bot {self.number} of {self.operator_id}"

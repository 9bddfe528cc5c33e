"""R13's room options for interrupted play, shared by Room (the options) and Match (the
snapshot a game keeps, like ``turn_seconds``), with their defaults and bounds.

- ``time_bank_seconds``: each player's bank of extra seconds per match (0: none);
- ``time_bank_top_up_seconds``: added to every bank at each new hand, never above the bank;
- ``reconnect_grace_seconds``: added once to the turn of a disconnected seat, before the bank;
- ``auto_play_turns``: turns the platform plays for a player per match before a time-out
  forfeits (0: a time-out forfeits at once, as before R13).

``TurnProtection`` records each turn given the reconnect grace (``games.models`` names it
with the app's other models).
"""

from __future__ import annotations

from django.core.validators import MaxValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from gin_platform.models import Player

# The option, its default (R13) and its largest value.
TURN_CLOCK_OPTIONS: dict[str, tuple[int, int]] = {
    "time_bank_seconds": (60, 600),
    "time_bank_top_up_seconds": (10, 120),
    "reconnect_grace_seconds": (30, 300),
    "auto_play_turns": (3, 10),
}


def _option(name: str) -> models.PositiveSmallIntegerField:
    default, most = TURN_CLOCK_OPTIONS[name]
    return models.PositiveSmallIntegerField(default=default, validators=[MaxValueValidator(most)])


def turn_clock_constraints(prefix: str) -> list[models.CheckConstraint]:
    """Each option within its bounds, as a database CHECK named after the model."""
    return [
        models.CheckConstraint(condition=Q(**{f"{name}__lte": most}), name=f"{prefix}_{name}_range")
        for name, (_default, most) in TURN_CLOCK_OPTIONS.items()
    ]


class TurnClockOptions(models.Model):
    """The R13 options as columns (abstract: Room and Match each have their own)."""

    time_bank_seconds = _option("time_bank_seconds")
    time_bank_top_up_seconds = _option("time_bank_top_up_seconds")
    reconnect_grace_seconds = _option("reconnect_grace_seconds")
    auto_play_turns = _option("auto_play_turns")

    class Meta:
        abstract = True

    def turn_clock_options(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in TURN_CLOCK_OPTIONS}


class TurnProtection(models.Model):
    """R13: a turn given the reconnect grace because its seat was disconnected; counted per
    player and UTC day against ``GAMES_PROTECTIONS_PER_DAY``."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    match = models.ForeignKey("games.Match", on_delete=models.PROTECT, related_name="+")
    hand_number = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    granted_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=("player", "granted_at"))]

    def __str__(self) -> str:
        return f"protected turn of seat {self.seat}, match #{self.match_id}"

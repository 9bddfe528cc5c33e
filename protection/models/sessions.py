"""Play sessions and their reality checks (docs/player-protection.md "Sessions", "Reality
checks").

A play session runs from the player's first buy-in (or the limits they set before it) to its
end: the player's, a reached limit (where the profile ends the session then), a break, or
``SESSION_IDLE_MINUTES`` without a seat. A player has at most one session not ended.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import models
from django.db.models import Q
from django.utils import timezone

from gin_platform.models import Operator, Player


class EndReason(models.TextChoices):
    PLAYER = "player"  # the player ended it (or answered a reality check so)
    DURATION_LIMIT = "duration_limit"
    LOSS_LIMIT = "loss_limit"
    IDLE = "idle"  # no seat and no buy-in for SESSION_IDLE_MINUTES
    BREAK = "break"  # a time-out or a self-exclusion began


class PlaySession(models.Model):
    class State(models.TextChoices):
        OPEN = "open"
        LIMIT_REACHED = "limit_reached"  # no new buy-in; the game in progress as the profile says
        ENDED = "ended"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="play_sessions")
    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="+")
    jurisdiction = models.CharField(max_length=8)  # the profile it started under
    currency = models.CharField(max_length=3)  # the wallet currency its figures are in
    state = models.CharField(max_length=16, choices=State.choices, default=State.OPEN)
    started_at = models.DateTimeField(default=timezone.now)
    # The limits the player chose (empty: none), set once, before the session's first buy-in.
    duration_limit_minutes = models.PositiveIntegerField(null=True, blank=True)
    loss_limit = models.BigIntegerField(null=True, blank=True)  # minor units of ``currency``
    limits_set_at = models.DateTimeField(null=True, blank=True)
    first_buy_in_at = models.DateTimeField(null=True, blank=True)
    # The reality checks: the interval in force when the session began (empty: none), and
    # when the next one is due (docs/player-protection.md "Reality checks").
    reality_check_minutes = models.PositiveSmallIntegerField(null=True, blank=True)
    next_reality_check_at = models.DateTimeField(null=True, blank=True)
    last_active_at = models.DateTimeField(default=timezone.now)
    limit_reached = models.CharField(max_length=16, blank=True, default="")  # duration, loss
    limit_reached_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=16, choices=EndReason.choices, blank=True, default="")
    # The net position when it ended (wins minus losses, minor units of ``currency``).
    final_net = models.BigIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=("player",),
                condition=Q(ended_at__isnull=True),
                name="play_session_one_open_per_player",
            ),
            models.CheckConstraint(
                condition=Q(ended_at__isnull=True) | Q(state="ended"),
                name="play_session_ended_has_state",
            ),
            models.CheckConstraint(
                condition=Q(loss_limit__isnull=True) | Q(loss_limit__gt=0),
                name="play_session_loss_limit_positive",
            ),
        ]
        indexes = [
            models.Index(fields=("player", "started_at"), name="play_session_player"),
            models.Index(
                fields=("next_reality_check_at",),
                condition=Q(ended_at__isnull=True),
                name="play_session_due_check",
            ),
        ]

    def __str__(self) -> str:
        return f"session #{self.pk} of {self.player_id} ({self.state})"

    @property
    def duration_ends_at(self) -> datetime | None:
        if self.duration_limit_minutes is None:
            return None
        return self.started_at + timedelta(minutes=self.duration_limit_minutes)


class RealityCheck(models.Model):
    """One reality check: due at ``due_at``, shown at the first turn boundary after it (or at
    once when the player holds no seat), answered ``continue`` or ``end_session``."""

    class Answer(models.TextChoices):
        CONTINUE = "continue"
        END_SESSION = "end_session"

    session = models.ForeignKey(PlaySession, on_delete=models.PROTECT, related_name="checks")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    due_at = models.DateTimeField()
    shown_at = models.DateTimeField(default=timezone.now)
    # What it showed: the session's elapsed time and net position at ``shown_at``.
    elapsed_seconds = models.PositiveIntegerField()
    net_position = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    answer = models.CharField(max_length=16, choices=Answer.choices, blank=True, default="")
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # At most one check open per session.
            models.UniqueConstraint(
                fields=("session",),
                condition=Q(answered_at__isnull=True),
                name="reality_check_one_open",
            ),
        ]
        indexes = [models.Index(fields=("player", "shown_at"), name="reality_check_player")]

    def __str__(self) -> str:
        return f"reality check #{self.pk} ({self.answer or 'open'})"

"""R15's quick seat (docs/matchmaking.md): the queues and the players' tickets in them, rows
in the database, so a queue survives a restart of the web servers and of the workers.

- ``Queue``: one per room, Money Play stake per point and mode (live or test): the players
  who may meet. A network room's queue takes every member operator's players; live and
  test-mode players never share one (their money lives in separate books). Its row is the
  lock the matcher takes (``matchmaking.locks``).
- ``Ticket``: one player's request to be seated, with their rating when they asked (the
  band is built on it) and how it ended. A player holds one waiting ticket at most (a
  partial unique index); a seated ticket names its seat, and a seat belongs to one ticket at
  most (a unique key): nobody is seated twice from the queue.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from games.models import Room, Seat
from gin_platform.models import Player


class Queue(models.Model):
    room = models.ForeignKey(Room, on_delete=models.PROTECT, related_name="+")
    # Money Play: the stake per point its tables play at; None for First To Knock, Match Play.
    stake_per_point = models.BigIntegerField(null=True, blank=True)
    sandbox = models.BooleanField(default=False)  # test-mode players (docs/api.md "Sandbox")
    # The queue's one identity: room, stake per point and mode (unique, NULL included).
    key = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    def __str__(self) -> str:
        return f"quick seat {self.key}"

    @staticmethod
    def key_of(*, room_id: int, stake_per_point: int | None, sandbox: bool) -> str:
        return f"{room_id}:{stake_per_point or '-'}:{'test' if sandbox else 'live'}"


class Ticket(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting"
        SEATED = "seated"
        CANCELLED = "cancelled"  # by the player
        EXPIRED = "expired"  # nobody came within its lifetime
        REFUSED = "refused"  # the seat was refused when an opponent came (problem_type)

    queue = models.ForeignKey(Queue, on_delete=models.PROTECT, related_name="tickets")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    # Money Play: what the player brings to the table cashier.
    cashier_amount = models.BigIntegerField(null=True, blank=True)
    # The player's rating in the room's family when they asked (R15: the band's centre).
    family = models.CharField(max_length=16)
    rating = models.FloatField()
    rd = models.FloatField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    joined_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    seat = models.OneToOneField(
        Seat, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    problem_type = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=("player",),
                condition=Q(status="waiting"),
                name="quick_seat_one_waiting_ticket",
            ),
            models.CheckConstraint(
                condition=Q(status="seated", seat__isnull=False)
                | (~Q(status="seated") & Q(seat__isnull=True)),
                name="quick_seat_seated_has_seat",
            ),
        ]
        indexes = [
            # The matcher's read: a queue's waiting tickets, oldest first.
            models.Index(fields=("queue", "status", "joined_at"), name="quick_seat_queue_wait"),
            # The player's latest ticket.
            models.Index(fields=("player", "-joined_at"), name="quick_seat_player_latest"),
        ]

    def __str__(self) -> str:
        return f"quick seat #{self.pk} {self.status}"

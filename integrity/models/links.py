"""Links between players (docs/integrity.md "Linked accounts"): two linked players are never
seated at one table. A link is stored once per pair and reason, the pair in a fixed order
(``player_low`` has the smaller id), so "are these two linked?" is one index probe."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from gin_platform.models import Player


class LinkKind(models.TextChoices):
    # Shared identifiers, seen by the platform or sent by the operator (as keyed hashes).
    DEVICE = "device"
    ADDRESS = "address"
    PAYMENT_INSTRUMENT = "payment_instrument"
    # Declared by the operator over the API.
    HOUSEHOLD = "household"
    ASSOCIATE = "associate"
    # Found by the platform: value moving one way between the two, again and again.
    TRANSFERS = "transfers"
    # A pairing blocked by the risk team from a case.
    CASE_BLOCK = "case_block"


class PlayerLink(models.Model):
    player_low = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    player_high = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=24, choices=LinkKind.choices)
    # Who said so: "operator:<id>", "platform" or "staff:<id>".
    source = models.CharField(max_length=80)
    # Why, for the risk team (never shown to an operator across the network): the kind of
    # identifier shared, the case, the transfers counted...
    evidence = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    # Set when the link no longer holds (an operator withdrew it, a case lifted the block).
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=("player_low", "player_high", "kind"), name="player_link_unique"
            ),
            models.CheckConstraint(
                condition=Q(player_low__lt=F("player_high")), name="player_link_ordered"
            ),
        ]
        indexes = [models.Index(fields=("player_high", "player_low"))]

    def __str__(self) -> str:
        return f"{self.kind} link {self.player_low_id} ~ {self.player_high_id}"


class MarkKind(models.TextChoices):
    """The identifiers the platform keeps (as keyed hashes) to find shared ones."""

    DEVICE = "device"
    ADDRESS = "address"
    PAYMENT_INSTRUMENT = "payment_instrument"


class LinkMark(models.Model):
    """A player was seen with an identifier: a device id, a client address (an IPv6 address
    by its /64) or a payment-instrument fingerprint, kept ONLY as its HMAC-SHA256 under the
    platform's link secret (integrity/hashing.py), never as sent. Two players with the same
    ``(kind, digest)`` share the identifier; integrity.services.marks links them."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=24, choices=MarkKind.choices)
    digest = models.CharField(max_length=64)
    # Who saw it first: "operator:<id>" (sent with a launch, a session or by API) or "platform".
    source = models.CharField(max_length=80)
    first_seen_at = models.DateTimeField(default=timezone.now)
    last_seen_at = models.DateTimeField(default=timezone.now)
    # When the links of the last sighting were made (null: not yet; the sweeper's work).
    derived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("player", "kind", "digest"), name="link_mark_unique"),
        ]
        # Who else was seen with this identifier (recently): one index range.
        indexes = [
            models.Index(fields=("kind", "digest", "last_seen_at"), name="link_mark_shared_idx")
        ]

    def __str__(self) -> str:
        return f"{self.kind} mark of {self.player_id}"

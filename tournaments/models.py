"""Tournaments (R14, docs/tournaments.md): the tournament, its entries, and the tables of its
bracket.

A tournament owns a games room of purpose ``tournament`` (its rules, seats and clocks); each
table of the bracket becomes one games match when its players are known. The entries' money
sits in the tournament's escrow (``game_ref`` = ``Tournament.game_ref``) in the wallet.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from games.models import Match, Room
from gin_platform.models import Operator, Player


class Tournament(models.Model):
    class Kind(models.TextChoices):
        SIT_AND_GO = "sit_and_go"  # starts as soon as it is full
        SCHEDULED = "scheduled"  # starts at starts_at, with at least min_entries

    class Status(models.TextChoices):
        ANNOUNCED = "announced"  # scheduled: registration not open yet
        REGISTERING = "registering"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    class Seeding(models.TextChoices):
        DRAW = "draw"  # R14's provably fair draw from the committed seed
        RATING = "rating"  # R15: by rating in the variant family, ties by the draw

    OPEN_STATUSES = (Status.ANNOUNCED, Status.REGISTERING)
    ENDED_STATUSES = (Status.FINISHED, Status.CANCELLED)

    # The owner: an operator (its own players) or the network's operator (every member's).
    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="+")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    status = models.CharField(max_length=11, choices=Status.choices)
    room = models.OneToOneField(Room, on_delete=models.PROTECT, related_name="tournament")
    # The format (R14): seats per table (2 heads-up, 3-4 R12) and how many each table sends on.
    seats = models.PositiveSmallIntegerField()
    advance = models.PositiveSmallIntegerField(default=1)
    # Each round's match, from the first: [{"variant": "match"|"ftk", "target": int|None}];
    # the last one also plays every later round.
    round_settings = models.JSONField()
    currency = models.CharField(max_length=3)
    buy_in = models.BigIntegerField(default=0)  # minor units, into the prize pool
    entry_fee = models.BigIntegerField(default=0)  # minor units, the owner's revenue
    guaranteed = models.BigIntegerField(default=0)  # the prize pool's floor (0: none)
    # Basis points per place, best first; empty: the default table for the entries (R14).
    prize_table = models.JSONField(default=list, blank=True)
    min_entries = models.PositiveIntegerField()
    max_entries = models.PositiveIntegerField()
    no_show_seconds = models.PositiveIntegerField(default=120)
    # A satellite's prizes are tickets to this tournament (R14 "Entry").
    satellite_for = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="satellites"
    )
    registration_opens_at = models.DateTimeField(default=timezone.now)
    starts_at = models.DateTimeField(null=True, blank=True)  # scheduled only
    # The draw (R14, docs/fairness.md): the seed is committed at creation and revealed when
    # the tournament ends; never shown before.
    seed = models.CharField(max_length=64)
    seed_commitment = models.CharField(max_length=64)
    # How round 1 is dealt (R14): the draw, or the seeds by rating (each entry's rating at the
    # start kept in Entry.seed_rating, so the bracket replays from public data).
    seeding = models.CharField(
        max_length=6, choices=Seeding.choices, default=Seeding.DRAW, db_default=Seeding.DRAW
    )
    overlay = models.BigIntegerField(default=0)  # the owner's top-up to the guarantee
    prize_pool = models.BigIntegerField(default=0)  # fixed at the start
    field = models.PositiveIntegerField(default=0)  # the entries drawn at the start
    rounds = models.PositiveSmallIntegerField(default=0)  # planned at the start
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    started_at = models.DateTimeField(null=True, blank=True)
    first_result_at = models.DateTimeField(null=True, blank=True)  # R14: cancellation's line
    ended_at = models.DateTimeField(null=True, blank=True)
    cancel_reason = models.CharField(max_length=40, blank=True, default="")
    # One more for each committed change its watchers see (entries, the bracket, places, the
    # end): the watch socket's version, so a client can tell it missed a push
    # (docs/realtime.md "A tournament's bracket").
    bracket_version = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(seats__gte=2, seats__lte=4), name="tournament_seats_2_to_4"
            ),
            models.CheckConstraint(
                condition=Q(advance__gte=1, advance__lt=models.F("seats")),
                name="tournament_advance_below_seats",
            ),
            models.CheckConstraint(
                condition=Q(buy_in__gte=0, entry_fee__gte=0, guaranteed__gte=0, overlay__gte=0),
                name="tournament_money_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(min_entries__gte=2, max_entries__gte=models.F("min_entries")),
                name="tournament_entries_range",
            ),
            models.CheckConstraint(
                condition=Q(kind="sit_and_go") | Q(starts_at__isnull=False),
                name="tournament_scheduled_has_start",
            ),
        ]
        indexes = [
            models.Index(fields=("status", "starts_at"), name="tournament_status_start"),
            models.Index(fields=("operator", "status"), name="tournament_operator_status"),
            # The tournaments of a currency that ended in a period: the leaderboard by net
            # winnings (docs/leaderboards.md).
            models.Index(
                fields=("currency", "ended_at"),
                name="tournament_currency_ended",
                condition=Q(ended_at__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"Tournament {self.pk} {self.name}"

    @property
    def game_ref(self) -> str:
        """The wallet's name for the tournament's escrow."""
        return f"tournament:{self.pk}"

    @property
    def entry_price(self) -> int:
        return self.buy_in + self.entry_fee

    def round_setting(self, number: int) -> dict:
        """Round ``number``'s match (from 1): its own setting, else the last one given."""
        settings = self.round_settings
        return settings[min(number, len(settings)) - 1]


class Entry(models.Model):
    class Status(models.TextChoices):
        REGISTERED = "registered"  # before the start
        UNREGISTERED = "unregistered"  # left before the start; refunded
        IN = "in"  # still in the running
        OUT = "out"  # knocked out (or left, absent); a place is theirs once the round ends
        WON = "won"
        REFUNDED = "refunded"  # the tournament was cancelled before any result

    ACTIVE_STATUSES = (Status.REGISTERED, Status.IN)

    class Payment(models.TextChoices):
        CASH = "cash"  # buy-in + fee from the wallet (or the operator's, seamless)
        TICKET = "ticket"
        FREE = "free"  # a freeroll without an entry fee

    class OutReason(models.TextChoices):
        LOST = "lost"
        ABSENT = "absent"  # R14: did not take the seat within no_show_seconds
        LINKED = "linked"  # linked to a player at the same table (integrity)

    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="entries")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    number = models.PositiveIntegerField()  # the order of registration, from 1
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTERED)
    payment = models.CharField(max_length=6, choices=Payment.choices)
    paid = models.BigIntegerField(default=0)  # buy-in + fee, minor units of the currency
    entry_reference = models.CharField(max_length=64, blank=True, default="")
    refund_reference = models.CharField(max_length=64, blank=True, default="")
    registered_at = models.DateTimeField(default=timezone.now)
    unregistered_at = models.DateTimeField(null=True, blank=True)
    # From 1: the place in the draw, or the seed when seeded by rating (R14).
    draw_position = models.PositiveIntegerField(null=True, blank=True)
    # Seeded by rating: the rating it was seeded by (the start's, to 2 decimals, R15).
    seed_rating = models.FloatField(null=True, blank=True)
    round_out = models.PositiveSmallIntegerField(null=True, blank=True)
    out_reason = models.CharField(max_length=8, choices=OutReason.choices, blank=True, default="")
    # The places the entry shares (R14: losers of one round share its places equally).
    place_from = models.PositiveIntegerField(null=True, blank=True)
    place_to = models.PositiveIntegerField(null=True, blank=True)
    prize = models.BigIntegerField(null=True, blank=True)
    prize_ticket = models.BooleanField(default=False)  # a satellite's ticket, worth ``prize``
    prize_reference = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=("tournament", "player"),
                condition=~Q(status="unregistered"),
                name="tournament_entry_one_per_player",
            ),
            models.UniqueConstraint(
                fields=("tournament", "number"), name="tournament_entry_number_unique"
            ),
            models.CheckConstraint(
                condition=Q(prize__isnull=True) | Q(prize__gte=0),
                name="tournament_entry_prize_not_negative",
            ),
        ]
        indexes = [models.Index(fields=("player", "status"), name="tournament_entry_player")]

    def __str__(self) -> str:
        return f"Entry {self.number} of tournament {self.tournament_id}"


class BracketTable(models.Model):
    """One table of the bracket: a round's match, its players once known (R14)."""

    class Status(models.TextChoices):
        PENDING = "pending"  # waiting for the tables that feed it
        PLAYING = "playing"  # its games match is open
        FINISHED = "finished"  # its players went on or out
        BYE = "bye"  # too few players to play: every one goes on
        # The tournament was cancelled while its match was open: the match is voided (games'
        # tournament_match_void, on commit, or the sweep), its result never taken.
        ABORTED = "aborted"

    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="tables")
    round = models.PositiveSmallIntegerField()
    number = models.PositiveIntegerField()  # from 1 within the round
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    entries = models.JSONField(default=list)  # entry ids in seat order, once known
    advancing = models.JSONField(default=list)  # entry ids going on, best first
    match = models.OneToOneField(
        Match, on_delete=models.PROTECT, null=True, blank=True, related_name="bracket_table"
    )
    opened_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=("tournament", "round", "number"), name="bracket_table_unique"
            )
        ]
        indexes = [
            models.Index(
                fields=("status", "opened_at"),
                condition=Q(status="playing"),
                name="bracket_table_playing",
            )
        ]

    def __str__(self) -> str:
        return f"Table {self.round}-{self.number} of tournament {self.tournament_id}"


class TournamentRequest(models.Model):
    """A staff action on tournaments that needs a second person (four eyes,
    docs/backoffice.md): proposed by one staff user, approved (and executed in the same
    transaction) or rejected by another.

    - ``create``: a network tournament (its owner the network's operator); ``payload`` holds
      its options (money in minor units, moments in ISO 8601), checked when proposed and
      again when created; ``tournament`` is the tournament the approval created.
    - ``cancel``: ``tournament`` cancelled (R14 "Cancellation"), ``payload`` ``{}``; the
      request's ``reason`` says why.

    ``operator`` is the tournament's owner (the operator scope a staff user needs);
    ``result_ref`` what the execution made (``tournament:<id>``), or the failure's slug."""

    class Kind(models.TextChoices):
        CREATE = "create"
        CANCEL = "cancel"

    class Status(models.TextChoices):
        PENDING = "pending"
        EXECUTED = "executed"
        REJECTED = "rejected"
        FAILED = "failed"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="+")
    tournament = models.ForeignKey(
        Tournament, on_delete=models.PROTECT, null=True, blank=True, related_name="requests"
    )
    payload = models.JSONField(default=dict, blank=True)
    reason = models.CharField(max_length=500)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    proposed_at = models.DateTimeField(default=timezone.now, editable=False)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.CharField(max_length=500, blank=True, default="")
    result_ref = models.CharField(max_length=80, blank=True, default="")

    class Meta:
        ordering = ("-proposed_at", "-id")
        constraints = [
            # One cancellation waiting per tournament: a second would only fail once it ran.
            models.UniqueConstraint(
                fields=("tournament",),
                condition=Q(kind="cancel", status="pending"),
                name="tournament_request_one_pending_cancel",
            ),
            models.CheckConstraint(
                condition=Q(kind="create") | Q(tournament__isnull=False),
                name="tournament_request_cancel_names_tournament",
            ),
        ]
        indexes = [models.Index(fields=("status", "proposed_at"), name="tournament_request_status")]
        permissions = [
            ("propose_create", "Can propose a network tournament"),
            ("approve_create", "Can approve a network tournament proposed by someone else"),
            ("propose_cancel", "Can propose cancelling a tournament"),
            ("approve_cancel", "Can approve cancelling a tournament proposed by someone else"),
        ]

    def __str__(self) -> str:
        return f"tournament {self.kind} #{self.pk} ({self.status})"
